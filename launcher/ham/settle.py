"""Settling a job whose driver died without ending it (the `hadoop jar` client SIGKILLed, or
killed by the OOM killer): its shutdown hook never ran, so its status record still says RUNNING
and its output directory may hold `_temporary` or the files of committed tasks.

Whoever notices first settles it: `ham run` once its command has exited, its reaper if
`ham run` was killed too, or `ham status` / `ham cleanup` once Slurm says the job is over (when
every HAM process of the job was SIGKILLed, the SPANK epilog has removed the intermediate data
but cannot read the record). Settling waits for the job's runners to go (they exit on their own
once the driver is unreachable), then leaves the output directory complete with `_SUCCESS` or
absent, and records the job as KILLED: resumable, with its output held aside and its map
outputs kept, if it was marked resumable (ham.resumable, the default); else cleaned up. The driver wrote what this needs into the record: the
output directory, whether the job created it, and the pids of its srun steps (on the client's
node, where `ham run` is).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import time
from pathlib import Path
from typing import Any

from ham import contract
from ham.jobdir import JobDir

log = logging.getLogger(__name__)

RUNNER_GRACE = 60.0  # runners exit within ~30 s of losing their driver
POLL = 0.5


def settle(jd: JobDir, why: str, *, here: bool = True) -> list[str]:
    """Settle every Hadoop job of jd left non-terminal; return their ids. here: this is the
    node the driver ran on (`ham run`, the reaper), so its srun steps can be waited for."""
    settled = []
    for path in jd.status_files():
        record = _read(path)
        if record is None or record.get("state") in contract.TERMINAL_STATES:
            continue
        if here:
            _stop_runners(record.get("launcher_pids") or [])
        job = path.parent
        resumable = (job / contract.RESUMABLE).exists()
        if resumable:
            state, note = _hold_output(record, job)
        else:
            state, note = _settle_output(record)
        if state != "KILLED":
            (job / contract.RESUMABLE).unlink(missing_ok=True)
        record.update(state=state, finish_time=int(time.time() * 1000), launcher_pids=[],
                      errors=[f"{why}; {note}"], resumable=resumable and state == "KILLED")
        _write(path, record)
        log.info("%s %s: %s; %s", record.get("job_id", "?"), state, why, note)
        settled.append(record.get("job_id", "?"))
    return settled


def _settle_output(record: dict[str, Any]) -> tuple[str, str]:
    """(state, what was done): complete output is kept, anything else goes."""
    out = record.get("output_dir")
    if not out:
        return "KILLED", "the job had no output directory"
    out_dir = Path(out)
    if (out_dir / "_SUCCESS").exists():
        # The client died after commitJob: the output is complete.
        return "SUCCEEDED", f"its output {out_dir} was complete (_SUCCESS)"
    if record.get("output_created"):
        shutil.rmtree(out_dir, ignore_errors=True)
        return "KILLED", f"removed its incomplete output directory {out_dir}"
    shutil.rmtree(out_dir / "_temporary", ignore_errors=True)
    return "KILLED", f"removed {out_dir / '_temporary'} (the directory existed before the job)"


def _hold_output(record: dict[str, Any], job: Path) -> tuple[str, str]:
    """A job that can be resumed: (state, what was done). Its output directory, unless
    complete, is moved aside into the job's directory (what the driver's shutdown hook does),
    and its map outputs stay for `ham submit --resume`."""
    resume = "it can be resumed (`ham submit --resume`)"
    out = record.get("output_dir")
    if out and (Path(out) / "_SUCCESS").exists():
        return "SUCCEEDED", f"its output {out} was complete (_SUCCESS)"
    if out and record.get("output_created") and Path(out).exists():
        held = job / contract.HELD_OUTPUT
        if not held.exists():
            try:
                os.rename(out, held)
            except OSError as e:  # another file system: as the driver does, remove it
                shutil.rmtree(out, ignore_errors=True)
                return "KILLED", f"removed its incomplete output {out} ({e.strerror}); {resume}"
            return "KILLED", f"its incomplete output {out} is held in {held}; {resume}"
    return "KILLED", resume


def _is_launcher(pid: int) -> bool:
    """Still the srun (or local runner) the driver started, not a recycled pid."""
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"srun" in cmd or b"TaskRunner" in cmd


def _stop_runners(pids: list[int]) -> None:
    deadline = time.monotonic() + RUNNER_GRACE
    while any(_is_launcher(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(POLL)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        alive = [p for p in pids if _is_launcher(p)]
        for pid in alive:
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
        if alive:
            time.sleep(3)


def _read(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _write(path: Path, record: dict[str, Any]) -> None:
    tmp = path.with_name("." + path.name + ".tmp")
    tmp.write_text(json.dumps(record, indent=2))
    tmp.replace(path)
