"""`ham submit`: wrap a command in an sbatch script that runs it under `ham run`."""

from __future__ import annotations

import sys

import click

from ham.api import Job
from ham.errors import UsageError
from ham.cli.options import SETTING_OPTIONS, SLURM_OPTIONS, apply, job_request, setting_flags


@click.command("submit", help="""Submit COMMAND as a Slurm batch job that runs it under
`ham run`, and print the job id.

\b
  ham submit -N 4 -t 1:00:00 -- hadoop jar app.jar wordcount /lustre/in /lustre/out
  ham submit --dry-run -N 2 -- hadoop jar app.jar ...     print the script, submit nothing
  ham submit --wait -N 2 -- hadoop jar app.jar ...        stream the output, exit with the job's code
  ham submit --array 0-2 -- hadoop jar app.jar wc in/'$SLURM_ARRAY_TASK_ID' out/'$SLURM_ARRAY_TASK_ID'

Arguments after `--` reach the command unchanged (quoted with shlex). Slurm is asked for
SIGUSR1 60 s before the time limit, so the job is stopped cleanly, and can be continued:


  ham submit --resume 1234 -N 4 -t 1:00:00     continue the job Slurm job 1234 ran: its
                                               finished maps and committed reduces are kept""")
@apply(SLURM_OPTIONS)
@click.option("--resume", metavar="JOBID", help="Continue the job that stopped before it "
              "finished (time limit, scancel, Ctrl-C) in Slurm job JOBID (or the Hadoop job "
              "JOBID), instead of a COMMAND. Refused if its inputs, jar or configuration "
              "changed.")
@click.option("-a", "--array", help="Submit a job array (sbatch --array), e.g. 0-2 or 1,3,5: "
              "each task runs COMMAND with $SLURM_ARRAY_TASK_ID (quote it: "
              "'$SLURM_ARRAY_TASK_ID') replaced by its task id, e.g. in/'$SLURM_ARRAY_TASK_ID'.")
@click.option("--requeue", is_flag=True, help="Let Slurm requeue the job (preemption, a node "
              "failure, scontrol requeue); the requeued job resumes the Hadoop job it stopped.")
@click.option("-o", "--output", help="Batch output file (sbatch --output; %j is the job id) "
              "[default: ham-%j.out; for an array ham-%A_%a.out]")
@click.option("-e", "--error", default="", help="Batch error file (default: with the output).")
@click.option("--dry-run", is_flag=True, help="Print the batch script and submit nothing.")
@click.option("--wait", is_flag=True, help="Follow the job and exit with its exit code. On a "
              "terminal it shows a live progress line (map %, reduce %, tasks done/failed, "
              "elapsed); elsewhere, or with --stream, it copies the job's output.")
@click.option("--stream", is_flag=True, help="With --wait: copy the job's output even on a "
                                             "terminal.")
@apply(SETTING_OPTIONS)
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
def command(command: tuple[str, ...], resume: str | None, output: str | None, error: str,
            dry_run: bool, wait: bool, stream: bool, **kw: object) -> int:
    flags = setting_flags(kw)
    if kw.get("array") and wait:
        raise UsageError("--wait follows one job, an array has one per task: follow them with "
                         "`ham status` or `squeue -r`")
    output = output or ("ham-%A_%a.out" if kw.get("array") else "ham-%j.out")
    job = Job(command, resume=resume, settings=flags, output=output,
              request=job_request(kw, output=output, error=error))
    job.check()
    if dry_run:
        click.echo(job.script(), nl=False)
        return 0
    click.echo(job.submit())
    if not wait:
        return 0
    if sys.stdout.isatty() and not stream:
        # On a terminal: one live progress line; the job's output stays in its file.
        click.echo(f"output: {job.output_file}", err=True)
        code = job.wait(progress=lambda line: click.echo(f"\r\x1b[2K{line}", nl=False, err=True))
        click.echo("", err=True)
    else:
        code = job.wait(sys.stdout.buffer)
    info = job.state()
    click.echo(f"ham: job {job.job_id} {info.state if info else 'ended'}, exit code {code}", err=True)
    return code
