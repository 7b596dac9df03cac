"""`ham env`: shell code that makes a plain `hadoop jar` run on HAM inside an salloc session."""

from __future__ import annotations

import os
from pathlib import Path

import click

from ham import contract, session, settings, shellenv
from ham.errors import UsageError
from ham.jobdir import JobDir
from ham.slurm import Slurm


@click.command("env", help="""Print shell code that creates this allocation's HAM job directory
and exports what a Hadoop installation sets (HADOOP_HOME, HADOOP_MAPRED_HOME, HADOOP_CONF_DIR,
HADOOP_CLASSPATH, PATH with hadoop, mapred, yarn and hdfs) and HAM_JOB_DIR, so a plain `hadoop
jar` runs on HAM. For interactive salloc sessions:

\b
  salloc -N 3
  eval "$(ham env)"                 # sh, bash, zsh
  eval `ham env --shell csh`        # csh, tcsh
  hadoop jar app.jar wordcount in out
  eval "$(ham env --cleanup)"       # remove intermediate data, restore the environment""")
@click.option("--shell", help="sh, bash, zsh, csh or tcsh (default: from $SHELL).")
@click.option("--cleanup", is_flag=True, help="Undo: apply the retention policy to $HAM_JOB_DIR "
                                              "and restore what `ham env` changed.")
@click.option("--shared-root", help="Override setting shared_root.")
def command(shell: str | None, cleanup: bool, shared_root: str | None) -> None:
    flavour = shellenv.flavour(shell, os.environ)
    resolved = settings.load(flags={"shared_root": shared_root})
    if cleanup:
        job_dir = os.environ.get(contract.ENV_JOB_DIR)
        if not job_dir:
            raise UsageError("HAM_JOB_DIR is not set: nothing to clean up (did you run `ham env`?)")
        jd = JobDir(Path(job_dir))
        if not jd.record.is_file():
            # Removing by a variable's word: only what HAM made (its record is there).
            raise UsageError(f"HAM_JOB_DIR={job_dir} is not a HAM job directory (it has no "
                             f"{jd.record.name}): nothing removed; unset it or run `ham env`")
        jd.clean(resolved["retention"])
        out = shellenv.applied(shellenv.restored(os.environ), flavour)
        click.echo(out, nl=False)
        return
    prepared = session.prepare(resolved, Slurm(), os.environ)
    values = shellenv.exported(os.environ, prepared.env)
    values["HAM_JAR"] = prepared.env["HADOOP_CLASSPATH"].split(":")[0]
    click.echo(shellenv.exports(values, flavour), nl=False)
