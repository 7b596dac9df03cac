"""`ham status`, `ham logs`, `ham cancel`, `ham cleanup`: the user's HAM jobs."""

from __future__ import annotations

import json
import sys
import time

import click

from ham import jobs, report, settings
from ham.errors import UsageError
from ham.slurm import Slurm


@click.command("status", help="""Show your HAM jobs: Slurm state, MapReduce progress, elapsed
time and job directory, from each job's status record and Slurm. A JOB_ID is a Slurm job id
or a Hadoop job id (job_X_N, or YARN's application_X_N).""")
@click.argument("job_ids", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--watch", is_flag=True, help="Refresh every 2 s until interrupted.")
@click.option("--tasks", is_flag=True, help="Also print every task attempt: node, state, start, "
                                            "end and duration (a text timeline).")
def status(job_ids: tuple[str, ...], as_json: bool, watch: bool, tasks: bool) -> None:
    resolved = settings.load()
    slurm = Slurm()
    while True:
        summaries = jobs.summaries(resolved["shared_root"], slurm, list(job_ids), time.time())
        if as_json:
            click.echo(json.dumps([s.to_json() for s in summaries], indent=1))
        else:
            if watch and sys.stdout.isatty():
                click.clear()
            click.echo(f"{'JOBID':<10} {'SLURM':<11} {'ELAPSED':>9}  PROGRESS / JOB DIRECTORY")
            for s in summaries:
                click.echo(f"{jobs.ids_text(s):<10} {s.slurm_state:<11} {jobs.elapsed_text(s.elapsed_s):>9}  "
                           f"{jobs.progress_text(s)}\n{'':<33}{s.job_dir}")
                if tasks:
                    for hadoop_job in s.hadoop_jobs:
                        click.echo(f"  {hadoop_job.get('job_id', '')}:")
                        for row in report.text_rows(hadoop_job):
                            click.echo(f"    {row}")
        if not watch:
            return
        time.sleep(2)


@click.command("logs", help="""List the task attempt logs of JOBID (stdout, stderr and syslog
per attempt, named after the node it ran on), or print one attempt's logs with --attempt, or the
driver's log (what the client console leaves out: tasks assigned and finished, runners started
and lost) with --driver. JOBID is a Slurm job id (every Hadoop job it ran) or a Hadoop job id
(job_X_N or application_X_N: that job's attempts).""")
@click.argument("job_id")
@click.option("--attempt", help="Attempt id (or a unique part of it) whose logs to print.")
@click.option("--driver", is_flag=True, help="Print the driver's log.")
@click.option("--json", "as_json", is_flag=True, help="List the log files as JSON.")
def logs(job_id: str, attempt: str | None, driver: bool, as_json: bool) -> None:
    resolved = settings.load()
    dirs = jobs.job_dirs(resolved["shared_root"], [job_id])
    if not dirs:
        raise UsageError(f"no HAM job directory for {job_id} under {resolved['shared_root']}")
    if driver:
        for d in dirs:
            if d.driver_log.exists():
                click.echo(f"==> {d.driver_log} <==")
                click.echo(d.driver_log.read_text(errors="replace"), nl=False)
        return
    files = [f for d in dirs for f in d.log_files()]
    hadoop_job = jobs.hadoop_job_id(job_id)
    if hadoop_job:  # that Hadoop job's attempts only, not its session's other jobs'
        files = [f for f in files if f.parent.parent.name == hadoop_job]
    if attempt:
        files = [f for f in files if attempt in f.name]
        if not files:
            raise UsageError(f"no logs of attempt {attempt} in job {job_id} "
                             f"(`ham logs {job_id}` lists them)")
        for f in files:
            click.echo(f"==> {f} <==")
            click.echo(f.read_text(errors="replace"), nl=False)
        return
    if as_json:
        click.echo(json.dumps([{"path": str(f), "attempt": f.name.split(".")[0],
                                "node": f.name.split(".")[1] if f.name.count(".") >= 2 else "",
                                "size": f.stat().st_size} for f in files], indent=1))
        return
    for f in files:
        click.echo(f"{f.stat().st_size:>10}  {f}")


@click.command("cancel", help="Cancel a HAM job (scancel): its runners stop and nothing "
                              "half-written is committed. Its finished map outputs are kept "
                              "(unless it ran with -D ham.resumable=false): `ham submit "
                              "--resume JOBID` continues it, `ham cleanup --resumable` "
                              "removes them.")
@click.argument("job_id")
def cancel(job_id: str) -> None:
    settings.load()  # a broken settings file is reported, as by every command
    Slurm().cancel(job_id)


@click.command("cleanup", help="""Remove your job directories whose Slurm jobs are no longer
pending or running. A directory holding a job that stopped before it finished (time limit,
scancel, Ctrl-C) is kept, with its map outputs, for `ham submit --resume`, unless --resumable.""")
@click.option("--dry-run", is_flag=True, help="List what would be removed.")
@click.option("--resumable", is_flag=True, help="Also remove the directories of stopped jobs "
                                                "(they can no longer be resumed).")
def cleanup(dry_run: bool, resumable: bool) -> None:
    resolved = settings.load()
    slurm = Slurm()
    stale, live = jobs.by_activity(resolved["shared_root"], slurm)
    for jd in live:
        # Said out loud: a job stopped a moment ago is still COMPLETING for a while.
        click.echo(f"leaving {jd.path}: its Slurm job is still in the queue (pending, running "
                   f"or completing); run `ham cleanup` again once it has left")
    for jd in stale:
        jobs.settle_ended(jd, slurm.job(jd.slurm_ids()[-1]))
        stopped = [j.name for j in jd.resumable_jobs()]
        if stopped and not resumable:
            click.echo(f"keeping {jd.path}: {', '.join(stopped)} can be resumed (`ham submit "
                       f"--resume {stopped[0]}`; `ham cleanup --resumable` removes it)")
            continue
        click.echo(f"{'would remove' if dry_run else 'removing'} {jd.path}")
        if not dry_run:
            jobs.remove(jd)


@click.command("report", help="""Write a PNG timeline of JOBID: every task attempt as a bar on
its node, over time (maps, reduces, failed attempts), one file per Hadoop job the Slurm job ran
(JOBID a Slurm job id), or of one Hadoop job (job_X_N or application_X_N).""")
@click.argument("job_id")
@click.option("-o", "--output", default="ham-{job}.png", show_default=True,
              help="PNG file (or a directory); {job} is replaced by the Hadoop job id, and "
                   "added before the extension when the Slurm job ran several Hadoop jobs.")
def report_cmd(job_id: str, output: str) -> None:
    resolved = settings.load()
    found = [s for s in jobs.summaries(resolved["shared_root"], Slurm(), [job_id],
                                       time.time()) for s in s.hadoop_jobs]
    hadoop_job = jobs.hadoop_job_id(job_id)
    if hadoop_job:
        found = [j for j in found if j.get("job_id") == hadoop_job]
    if not found:
        raise UsageError(f"job {job_id} has no status record yet (has a `hadoop jar` job started?)")
    for hadoop_job in found:
        path = report.timeline_png(hadoop_job, report.png_path(output, hadoop_job["job_id"],
                                                               several=len(found) > 1))
        click.echo(str(path))
