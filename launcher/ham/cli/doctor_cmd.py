"""`ham doctor`."""

from __future__ import annotations

import json
import os
import sys

import click

from ham import doctor, proc, session, settings
from ham.errors import EXIT_FAILED
from ham.slurm import JobRequest, Slurm


@click.command("doctor", help="""Check Java, Hadoop, the HAM jar, the Slurm commands and
controller, and the shared root. Prints one OK/FAIL line per check with what to fix; exits 1 if
any check fails.

\b
Inside an allocation of two or more nodes it also checks the shared root the way a job uses
it, between the first two nodes, each through its own file-system client: a file written and
closed on one read on the other, a rename and a delete seen there, a listing, O_DIRECT, and how
long until a write is seen:
  salloc -N 2 ham doctor          or:   ham doctor --nodes 2""")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("-N", "--nodes", type=click.IntRange(min=2), metavar="N",
              help="Outside an allocation: get one of N nodes (salloc) and run the checks, the "
                   "cross-node ones included, in it.")
def command(as_json: bool, nodes: int | None) -> int:
    resolved = settings.load()
    slurm = Slurm()
    if nodes and not session.within_allocation(os.environ):
        argv = [sys.executable, "-m", "ham", "doctor", *(["--json"] if as_json else [])]
        proc.replace(slurm.allocate_argv(JobRequest(nodes=str(nodes), job_name="ham-doctor"), argv),
                     hint="is Slurm installed? (`ham doctor` checks)")
    checks = doctor.run_checks(resolved, slurm)
    if as_json:
        click.echo(json.dumps([c.__dict__ for c in checks], indent=2))
    else:
        for c in checks:
            click.echo(f"{'OK  ' if c.ok else 'FAIL'}  {c.name:<20} {c.detail}")
    return 0 if all(c.ok for c in checks) else EXIT_FAILED
