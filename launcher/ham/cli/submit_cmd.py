"""`ham submit`: wrap a command in an sbatch script that runs it under `ham run`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from ham import follow, preflight, render, settings
from ham.cli.options import SETTING_OPTIONS, SLURM_OPTIONS, apply, job_request, setting_flags
from ham.settings import BY_KEY
from ham.slurm import backend

# Slurm sends SIGUSR1 to the batch shell this long before the time limit; `ham run` then stops
# the job gracefully (runners stopped, intermediate data removed, nothing half-committed).
WARNING_SIGNAL = "--signal=B:USR1@60"


@click.command("submit", help="""Submit COMMAND as a Slurm batch job that runs it under
`ham run`, and print the job id.

\b
  ham submit -N 4 -t 1:00:00 -- hadoop jar app.jar wordcount /lustre/in /lustre/out
  ham submit --dry-run -N 2 -- hadoop jar app.jar ...     print the script, submit nothing
  ham submit --wait -N 2 -- hadoop jar app.jar ...        stream the output, exit with the job's code

Arguments after `--` reach the command unchanged (quoted with shlex).""")
@apply(SLURM_OPTIONS)
@click.option("-o", "--output", default="ham-%j.out", show_default=True,
              help="Batch output file (sbatch --output; %j is the job id).")
@click.option("-e", "--error", default="", help="Batch error file (default: with the output).")
@click.option("--dry-run", is_flag=True, help="Print the batch script and submit nothing.")
@click.option("--wait", is_flag=True, help="Follow the job: stream its output and exit with its "
                                           "exit code.")
@apply(SETTING_OPTIONS)
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def command(command: tuple[str, ...], output: str, error: str, dry_run: bool, wait: bool,
            **kw: object) -> int:
    flags = setting_flags(kw)
    resolved = settings.load(flags=flags)
    argv = list(command)
    preflight.check(resolved, argv)
    output = os.path.abspath(output)
    request = job_request(kw, resolved, output=output, error=os.path.abspath(error) if error else "")
    script = render.render(
        "sbatch.sh.j2",
        sbatch_options=[*request.options(), WARNING_SIGNAL],
        environment={BY_KEY[k].env_var: v for k, v in flags.items() if v is not None},
        ham_command=[sys.executable, "-m", "ham", "run"],
        command=argv,
    )
    if dry_run:
        click.echo(script, nl=False)
        return 0
    slurm = backend(resolved)
    job_id = slurm.submit(script)
    click.echo(job_id)
    if not wait:
        return 0
    info = follow.follow(slurm, job_id, Path(output.replace("%j", job_id)), sys.stdout.buffer)
    click.echo(f"ham: job {job_id} {info.state}, exit code {info.exit_code}", err=True)
    return info.exit_code if info.exit_code is not None else 1
