"""Follow a batch job: stream its output file and return its exit code (`ham submit --wait`).

Polls squeue every half second (Intel's HAM polled every 2 s; `sbatch --wait` polls >= 2 s)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import IO, Callable

from ham.errors import SlurmError
from ham.slurm import JobInfo, Slurm

POLL = 0.5
SACCT_GRACE = 30.0  # sacct lags about a second behind the end of a job


def _drain(path: Path, offset: int, out: IO[bytes]) -> int:
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            data = f.read()
    except FileNotFoundError:
        return offset
    if data:
        out.write(data)
        out.flush()
    return offset + len(data)


def follow(slurm: Slurm, job_id: str, output: Path | None, out: IO[bytes] | None,
           on_poll: Callable[[JobInfo | None], None] | None = None) -> JobInfo:
    """Poll until the job has an exit code. Its output file is copied to out (when given);
    on_poll sees every poll (for a progress line)."""
    offset = 0
    missing_since: float | None = None
    while True:
        info = slurm.job(job_id)
        if on_poll is not None:
            on_poll(info)
        if output is not None and out is not None:
            offset = _drain(output, offset, out)
        if info is not None and info.finished and info.exit_code is not None:
            if output is not None and out is not None:
                _drain(output, offset, out)
            return info
        if info is None or info.finished:
            missing_since = missing_since or time.monotonic()
            if time.monotonic() - missing_since > SACCT_GRACE:
                raise SlurmError(f"job {job_id} left the queue but sacct has no exit code for it; "
                                 f"check `sacct -j {job_id}` (is accounting enabled?)")
        time.sleep(POLL)
