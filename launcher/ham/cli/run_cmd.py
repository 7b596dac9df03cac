"""`ham run`: run a command with HAM inside an allocation, or in a new one."""

from __future__ import annotations

import logging
import os

import click

from ham import proc, session
from ham.api import Job
from ham.cli.options import SETTING_OPTIONS, SLURM_OPTIONS, apply, job_request, setting_flags

log = logging.getLogger(__name__)


@click.command("run", help="""Run COMMAND with HAM: its `hadoop jar` jobs run on task runners across
the allocation, with configuration in a per-job directory under the shared root.

\b
Inside an allocation (salloc, or your own sbatch script) it uses that allocation:
  salloc -N 3
  ham run -- hadoop jar app.jar wordcount in out
Outside one it asks Slurm for an allocation (salloc) for the command's lifetime:
  ham run -N 3 -t 30 -- hadoop jar app.jar wordcount in out

The exit status is COMMAND's. Ctrl-C, scancel and the time limit stop the job where it is:
its runners stop, its output is moved aside and its finished map outputs are kept, so that
`ham run --resume JOBID` (or `ham submit --resume JOBID`) continues it later, running only what
did not finish. `ham cleanup --resumable` removes a stopped job instead.""")
@apply(SLURM_OPTIONS)
@click.option("--resume", metavar="JOBID", help="Continue the job that stopped before it "
              "finished in Slurm job JOBID (or the Hadoop job JOBID), instead of a COMMAND.")
@apply(SETTING_OPTIONS)
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
def command(command: tuple[str, ...], resume: str | None, **kw: object) -> int:
    flags = setting_flags(kw)
    request = job_request(kw)
    job = Job(command, resume=resume, settings=flags, request=request)
    if session.within_allocation(os.environ):
        if request.options():
            log.warning("inside allocation %s: Slurm options are ignored",
                        session.slurm_job_id(os.environ))
        return job.run()
    job.check()
    argv, env = job.allocation_argv()
    log.info("allocating: %s", argv)
    # exec: salloc relays signals and returns the exit status
    proc.replace(argv, env=env, hint="is Slurm installed? (`ham doctor` checks)")
