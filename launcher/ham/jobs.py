"""The user's HAM jobs as seen from their job directories and Slurm (`ham status`, `logs`,
`cleanup`)."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ham import contract as c
from ham import settle
from ham.errors import UsageError
from ham.jobdir import JobDir, user_root
from ham.slurm import JobInfo, Slurm


@dataclass
class JobSummary:
    slurm_job_id: str
    job_dir: str
    slurm_state: str
    hadoop_jobs: list[dict[str, Any]] = field(default_factory=list)
    command: list[str] = field(default_factory=list)
    exit_code: int | None = None
    elapsed_s: float | None = None
    resumed_in: list[str] = field(default_factory=list)  # Slurm jobs that resumed its jobs

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def progress_text(summary: JobSummary) -> str:
    """'RUNNING map 40% reduce 0% (4/10 maps, 0/2 reduces, 1 failed)' for the latest Hadoop job."""
    if not summary.hadoop_jobs:
        return "-"
    s = max(summary.hadoop_jobs, key=lambda j: j.get("start_time") or 0)
    maps, reduces = s.get("maps", {}), s.get("reduces", {})
    return (f"{s.get('state', '?')} map {100 * s.get('map_progress', 0):.0f}% "
            f"reduce {100 * s.get('reduce_progress', 0):.0f}% "
            f"({maps.get('completed', 0)}/{maps.get('total', 0)} maps, "
            f"{reduces.get('completed', 0)}/{reduces.get('total', 0)} reduces, "
            f"{maps.get('failed', 0) + reduces.get('failed', 0)} failed)")


def ids_text(summary: JobSummary) -> str:
    """'79' or, for a directory whose job was resumed, '79,86' (the latest Slurm job last)."""
    return ",".join([summary.slurm_job_id, *summary.resumed_in])


def elapsed_text(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    m, s = divmod(int(seconds), 60)
    return f"{m // 60}:{m % 60:02d}:{s:02d}"


def slurm_id_of(path: Path) -> str:
    return path.name.split(".")[0]


HADOOP_ID = re.compile(r"(?:job|application)_(\d+_\d+)")


def hadoop_job_id(job_id: str) -> str | None:
    """job_X_N for a Hadoop job id or a YARN application id (application_X_N: the same job, as
    on YARN), None for anything else (a Slurm job id)."""
    m = HADOOP_ID.fullmatch(job_id)
    return f"job_{m.group(1)}" if m else None


def job_dirs(shared_root: str, only: list[str] | None = None) -> list[JobDir]:
    root = user_root(shared_root)
    if not root.is_dir():
        return []
    dirs = [p for p in root.iterdir() if p.is_dir() and slurm_id_of(p).isdigit()]
    if only:
        # A directory answers to its own Slurm job, to those that resumed its jobs, and to the
        # Hadoop jobs it ran (job_X_N or application_X_N, as every Hadoop message names them).
        hadoop = {h for h in map(hadoop_job_id, only) if h}
        dirs = [p for p in dirs if p.name in only or set(JobDir(p).slurm_ids()) & set(only)
                or any((p / c.JOBS / h).is_dir() for h in hadoop)]
    return [JobDir(p) for p in sorted(dirs, key=lambda p: (int(slurm_id_of(p)), p.name))]


def read_status(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None  # being replaced right now, or not written yet


def failures(jd: JobDir) -> list[str]:
    """One line per Hadoop job of jd that failed or was killed: its id, state and the first line of
    its error. `ham run` prints these last, so the cause is in a failed job's last lines even
    when a long stack trace and the final counters came before it."""
    lines = []
    for status in (read_status(p) for p in jd.status_files()):
        if not status or status.get("state") not in ("FAILED", "KILLED"):
            continue
        errors = status.get("errors") or ["no error recorded"]
        first = " ".join(_headline(errors[0]))
        lines.append(f"{status.get('job_id', '?')} {status.get('state', '?')}: {first}")
        said = _stderr_end(errors[0])
        if said:
            lines.append(f"  the failed attempt's stderr ends: {said}")
    return lines


STDERR_TAIL = re.compile(r"^Last \d+ bytes of stderr :$", re.M)


def _stderr_end(error: str) -> str:
    """The last line an attempt wrote to stderr, from the tail the runner appends to its error
    (as YARN does for a failed container): often the script's or program's own message."""
    parts = STDERR_TAIL.split(error)
    if len(parts) < 2:
        return ""
    lines = [line.strip() for line in parts[-1].splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _headline(error: str) -> list[str]:
    """The first line of an error, and the next one too when the first only introduces it
    ("...; last output:")."""
    lines = [line.strip() for line in error.splitlines() if line.strip()] or ["no error recorded"]
    return lines[:2] if lines[0].endswith(":") else lines[:1]


def settle_ended(jd: JobDir, info: JobInfo | None) -> None:
    """Every HAM process of jd's latest Slurm job may have been killed: once Slurm says it is
    over, a record still RUNNING is not."""
    if info is not None and info.finished:
        settle.settle(jd, f"the Slurm job ended ({info.state}) while the job was running",
                      here=False)


def summarize(jd: JobDir, slurm: Slurm, now: float) -> JobSummary:
    record = jd.read_record()
    info = slurm.job(jd.slurm_ids()[-1])
    settle_ended(jd, info)
    hadoop_jobs = [s for s in (read_status(p) for p in jd.status_files()) if s]
    started, finished = record.get("started"), record.get("finished")
    elapsed = (finished or now) - started if started else None
    return JobSummary(
        slurm_job_id=jd.path.name, job_dir=str(jd.path),
        slurm_state=info.state if info else "GONE",
        hadoop_jobs=hadoop_jobs, command=record.get("command", []),
        exit_code=record.get("exit_code"), elapsed_s=elapsed,
        resumed_in=jd.slurm_ids()[1:])


def summaries(shared_root: str, slurm: Slurm, job_ids: list[str],
              now: float) -> list[JobSummary]:
    """Summaries of the user's job directories (of job_ids, if given). A requested job that
    Slurm knows but that has no directory yet (pending, starting) is listed without one."""
    found = [summarize(d, slurm, now) for d in job_dirs(shared_root, job_ids)]
    seen = {i for s in found for i in (slurm_id_of(Path(s.job_dir)), *s.resumed_in)}
    ran = {j.get("job_id") for s in found for j in s.hadoop_jobs}
    for job_id in job_ids:
        if job_id in seen or hadoop_job_id(job_id) in ran:
            continue
        if hadoop_job_id(job_id):
            raise UsageError(f"no HAM job directory under {shared_root} ran {job_id} (`ham status` "
                             f"lists your jobs)")
        info = slurm.job(job_id)
        if info is None:
            raise UsageError(f"job {job_id} is unknown to Slurm and has no HAM job directory "
                             f"under {shared_root}")
        found.append(JobSummary(slurm_job_id=job_id, job_dir="", slurm_state=info.state))
    return found


def by_activity(shared_root: str, slurm: Slurm) -> tuple[list[JobDir], list[JobDir]]:
    """Job directories split in two: (stale, live). A live one has a Slurm job (the first or a
    resume) still in the queue: pending, running, or still completing after it was stopped."""
    dirs = job_dirs(shared_root)
    alive = slurm.known_jobs(sorted({i for d in dirs for i in d.slurm_ids()}))
    stale = [d for d in dirs if not set(d.slurm_ids()) & alive]
    return stale, [d for d in dirs if d not in stale]


def remove(jd: JobDir) -> None:
    shutil.rmtree(jd.path)
