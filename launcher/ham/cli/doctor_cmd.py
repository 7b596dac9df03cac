"""`ham doctor`."""

from __future__ import annotations

import json

import click

from ham import doctor, settings
from ham.errors import EXIT_FAILED
from ham.slurm import Slurm


@click.command("doctor", help="Check Java, Hadoop, the HAM jar, the Slurm commands and "
                              "controller, and the shared root. Prints one OK/FAIL line per "
                              "check with what to fix; exits 1 if any check fails.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def command(as_json: bool) -> int:
    resolved = settings.load()
    checks = doctor.run_checks(resolved, Slurm())
    if as_json:
        click.echo(json.dumps([c.__dict__ for c in checks], indent=2))
    else:
        for c in checks:
            click.echo(f"{'OK  ' if c.ok else 'FAIL'}  {c.name:<18} {c.detail}")
    return 0 if all(c.ok for c in checks) else EXIT_FAILED
