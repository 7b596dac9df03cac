"""`ham hadoop|mapred|yarn|hdfs ARGS`: the commands of the Hadoop HAM uses (site or bundled)."""

from __future__ import annotations

import os

import click

from ham import proc, settings
from ham.hadoop import COMMANDS, HAM_JAR, bundle_dir, command_argv, command_environment, find_hadoop

HELP = {
    "hadoop": "Run `hadoop ARGS` (jar, fs, version, classpath, envvars, CLASSNAME, ...)",
    "mapred": "Run `mapred ARGS` (job, classpath, version, ...)",
    "yarn": "Run `yarn ARGS` (jar; application -list/-status/-kill on HAM's jobs, ...)",
    "hdfs": "Run `hdfs ARGS` (dfs, classpath, version; no NameNode commands)",
}


def _make(name: str) -> click.Command:
    @click.command(name, context_settings={"ignore_unknown_options": True,
                                           "allow_interspersed_args": False,
                                           "help_option_names": []},
                   add_help_option=False,
                   help=f"{HELP[name]} with the site Hadoop or the bundled Hadoop 3.4.2 client, "
                        f"as its bin/{name} does, honouring HADOOP_CONF_DIR, HADOOP_CLASSPATH and "
                        f"HADOOP_OPTS. What needs HDFS or YARN daemons prints one line saying "
                        f"what to use instead.")
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    @click.pass_context
    def command(ctx: click.Context, args: tuple[str, ...]) -> None:
        if not args or args[0] in ("-h", "--help"):
            click.echo(ctx.get_help())
            return
        resolved = settings.load()
        hadoop = find_hadoop(resolved)
        bundle = bundle_dir(resolved)
        env = command_environment(os.environ, hadoop, bundle / HAM_JAR, resolved["java_home"])
        # exec: signals and the exit code are the JVM's own, as with bin/hadoop.
        proc.replace(command_argv(hadoop, bundle, name, list(args)), env=env,
                     hint="set java_home or JAVA_HOME")

    return command


COMMANDS_BY_NAME = {name: _make(name) for name in COMMANDS}
command = COMMANDS_BY_NAME["hadoop"]
