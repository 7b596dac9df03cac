"""`ham hadoop|mapred|yarn|hdfs ARGS`: the commands of the Hadoop HAM uses (site or bundled)."""

from __future__ import annotations

import os

import click

from ham import loginconf, proc, settings
from ham.hadoop import (COMMANDS, HAM_JAR, bundle_dir, command_argv, command_environment,
                        find_hadoop, user_jar)

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
                        f"what to use instead. Outside a job (no HAM HADOOP_CONF_DIR), `mapred "
                        f"job`, `yarn application` and `yarn logs` see your HAM jobs.")
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
        if loginconf.needed(name, list(args), env):
            # `mapred job -list` and the like from a login shell: the user's HAM jobs.
            env["HADOOP_CONF_DIR"] = str(loginconf.write(resolved, bundle, env))
        # exec: signals and the exit code are the JVM's own, as with bin/hadoop.
        proc.replace(command_argv(hadoop, bundle, name, list(args)), env=env,
                     hint="set java_home or JAVA_HOME")

    return command


COMMANDS_BY_NAME = {name: _make(name) for name in COMMANDS}
command = COMMANDS_BY_NAME["hadoop"]


@click.command("examples-jar", help="""Print the path of Hadoop's examples jar (wordcount,
terasort, pi, ...) in the Hadoop HAM uses (the site's or the bundled one), or with --streaming
of Hadoop Streaming's jar, for a first job:

\b
  ham submit -N 3 -t 30 -- hadoop jar "$(ham examples-jar)" wordcount books books-wc
  ham run -N 2 -- hadoop jar "$(ham examples-jar --streaming)" -mapper cat -input in -output out""")
@click.option("--streaming", is_flag=True, help="Hadoop Streaming's jar instead.")
def examples_jar(streaming: bool) -> None:
    resolved = settings.load()
    click.echo(str(user_jar(find_hadoop(resolved), "streaming" if streaming else "examples")))
