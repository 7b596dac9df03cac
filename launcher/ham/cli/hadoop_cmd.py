"""`ham hadoop ARGS`: bin/hadoop for the Hadoop HAM uses (site or bundled)."""

from __future__ import annotations

import os

import click

from ham import proc, settings
from ham.hadoop import bundled_classpath, find_hadoop, hadoop_argv
from ham.java import java_binary


@click.command("hadoop", context_settings={"ignore_unknown_options": True,
                                           "allow_interspersed_args": False,
                                           "help_option_names": []},
               add_help_option=False,
               help="Run `hadoop ARGS` (jar, fs, version, classpath, CLASSNAME) with the site "
                    "Hadoop or the bundled Hadoop 3.4.2 client, honouring HADOOP_CONF_DIR, "
                    "HADOOP_CLASSPATH and HADOOP_OPTS.")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.pass_context
def command(ctx: click.Context, args: tuple[str, ...]) -> None:
    if not args or args[0] in ("-h", "--help"):
        click.echo(ctx.get_help())
        return
    resolved = settings.load()
    hadoop = find_hadoop(resolved)
    java = java_binary(resolved["java_home"]) if hadoop.kind == "bundled" else ""
    if hadoop.kind == "bundled" and list(args) == ["classpath"]:
        # bin/hadoop prints its class path itself (Classpath without options prints usage).
        click.echo(bundled_classpath(hadoop, os.environ))
        return
    argv = hadoop_argv(hadoop, java, list(args), os.environ)
    # exec: signals and the exit code are the JVM's own, as with bin/hadoop.
    proc.replace(argv, hint="set java_home or JAVA_HOME")
