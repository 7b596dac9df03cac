"""A sidecar that finishes teardown when `ham run` itself is killed (SIGKILL, OOM killer).

`ham run` starts it next to the user's command; the command also gets SIGTERM from the kernel
when `ham run` dies (PR_SET_PDEATHSIG), so the `hadoop jar` client stops its runners and aborts
the job. The reaper then waits for the command to exit and applies the retention policy, so no
intermediate data is left behind. When `ham run` ends normally it stops the reaper first.

    python -m ham.reaper JOB_DIR RETENTION COMMAND_PID
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time
from pathlib import Path

from ham import settle, warm
from ham.jobdir import JobDir

PR_SET_PDEATHSIG = 1
POLL = 0.5
COMMAND_GRACE = 60.0  # the client's shutdown hook aborts the job within seconds


def die_with_parent(sig: int = signal.SIGTERM) -> None:
    """In a child before exec: receive sig when the parent dies (Linux prctl)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie is dead for our purpose (its parent, `ham run`, is gone and cannot reap it).
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def main(argv: list[str]) -> int:
    job_dir, retention, pid = Path(argv[0]), argv[1], int(argv[2])
    parent = os.getppid()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # `ham run` finished normally
    while os.getppid() == parent:
        time.sleep(POLL)
    deadline = time.monotonic() + COMMAND_GRACE
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(POLL)
    if _alive(pid):
        os.kill(pid, signal.SIGKILL)
    jd = JobDir(job_dir)
    warm.stop_parked(jd.path)  # runners parked for a next job end with the session
    settle.settle(jd, "`ham run` was killed while the job was running")
    if retention != "none":
        jd.write_record(finished=time.time(), exit_code=None, signals=["SIGKILL (ham run)"])
    jd.clean(retention)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
