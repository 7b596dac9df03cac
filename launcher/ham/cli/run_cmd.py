"""`ham run`: run a command with HAM inside an allocation, or in a new one."""

from __future__ import annotations

import logging
import os
import sys

import click

from ham import preflight, session, settings
from ham.cli.options import SETTING_OPTIONS, SLURM_OPTIONS, apply, job_request, setting_flags
from ham.settings import BY_KEY
from ham.slurm import backend

log = logging.getLogger(__name__)


@click.command("run", context_settings={"ignore_unknown_options": False},
               help="""Run COMMAND with HAM: its `hadoop jar` jobs run on task runners across
the allocation, with configuration in a per-job directory under the shared root.

\b
Inside an allocation (salloc, or your own sbatch script) it uses that allocation:
  salloc -N 3
  ham run -- hadoop jar app.jar wordcount in out
Outside one it asks Slurm for an allocation (salloc) for the command's lifetime:
  ham run -N 3 -t 30 -- hadoop jar app.jar wordcount in out

The exit status is COMMAND's. Ctrl-C, scancel and the time limit stop the job's runners and
remove its intermediate data.""")
@apply(SLURM_OPTIONS)
@apply(SETTING_OPTIONS)
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def command(command: tuple[str, ...], **kw: object) -> int:
    flags = setting_flags(kw)
    resolved = settings.load(flags=flags)
    slurm = backend(resolved)
    argv = list(command)
    preflight.check(resolved, argv)
    if session.within_allocation(os.environ):
        if any(v for v in kw.values()):
            log.warning("inside allocation %s: Slurm options are ignored",
                        session.slurm_job_id(os.environ))
        prepared = session.prepare(resolved, slurm, os.environ)
        return session.run_command(prepared, argv, resolved["retention"])
    request = job_request(kw, resolved)
    env = dict(os.environ)
    # Flags travel into the allocation as HAM_* variables (the inner `ham run` re-reads them).
    env.update({BY_KEY[k].env_var: str(v) for k, v in flags.items() if v is not None})
    alloc = slurm.allocate_argv(request, [sys.executable, "-m", "ham", "run", "--", *argv])
    log.info("allocating: %s", alloc)
    os.execvpe(alloc[0], alloc, env)
    return 0  # not reached
