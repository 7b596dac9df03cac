"""Case `resume`: what stopping a job half-way and resuming it costs, against the same job run
without a stop, side by side in the same round.

The job: the jobclient tests' `sleep` (resume_maps maps of resume_map_ms each, one reduce), so
that the work a resume saves is known. Variants:
- `uninterrupted`: `ham run -N nodes -- hadoop jar ... sleep ...`;
- `resumed`: the same, stopped with Ctrl-C (SIGINT to its process group, as at a terminal; a
  time limit or scancel stops it the same way) once half its maps are done, then
  `ham run -N nodes --resume <slurm job id>` in a new allocation.
Metrics: wall times (`first_s`: start to stop, `resumed_s`: the resume, `total_s`: both;
`uninterrupted`'s `total_s` is its run), `maps_at_stop` (done when it stopped) and
`maps_rerun` (maps the resume ran: attempt numbers from 1000), from the status record.
"""

from __future__ import annotations

import getpass
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any, Mapping

from hambench.util import TESTS_JAR, WORK, BenchError, run

ROOT = WORK / "resume"


def _job(maps: int, map_ms: int) -> list[str]:
    return ["hadoop", "jar", str(TESTS_JAR), "sleep", "-m", str(maps), "-r", "1",
            "-mt", str(map_ms), "-rt", "1"]


def _status(shared: Path) -> dict[str, Any] | None:
    for path in shared.glob("*/*/jobs/*/status.json"):
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            return None
    return None


def _env(env: Mapping[str, str], shared: Path) -> dict[str, str]:
    return {**env, "HAM_SHARED_ROOT": str(shared)}


def uninterrupted(env: Mapping[str, str], tag: str, nodes: int, maps: int,
                  map_ms: int) -> dict[str, float]:
    shared = ROOT / tag
    shared.mkdir(parents=True, exist_ok=True)
    r = run(["ham", "run", f"-N{nodes}", "--", *_job(maps, map_ms)], env=_env(env, shared),
            timeout=3600)
    shutil.rmtree(shared, ignore_errors=True)
    return {"total_s": r.wall}


def resumed(env: Mapping[str, str], tag: str, nodes: int, maps: int,
            map_ms: int) -> dict[str, float]:
    shared = ROOT / tag
    shared.mkdir(parents=True, exist_ok=True)
    henv = _env(env, shared)
    t0 = time.time()
    first = subprocess.Popen(["ham", "run", f"-N{nodes}", "--", *_job(maps, map_ms)],
                             env=henv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
    try:
        while True:
            status = _status(shared)
            if status and status["maps"]["completed"] >= maps // 2:
                break
            if first.poll() is not None:
                raise BenchError(f"{tag}: the job ended before half its maps were done")
            if time.time() - t0 > 1800:
                raise BenchError(f"{tag}: half the maps not done in 30 min")
            time.sleep(0.1)
        os.killpg(first.pid, signal.SIGINT)  # Ctrl-C
        first.wait(timeout=300)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
    first_s = time.time() - t0
    stopped = _status(shared) or {}
    if not stopped.get("resumable"):
        raise BenchError(f"{tag}: the stopped job is not resumable: {stopped.get('errors')}")
    session = next((shared / getpass.getuser()).iterdir())
    r = run(["ham", "run", f"-N{nodes}", "--resume", session.name], env=henv, timeout=3600)
    done = _status(shared) or {}
    if done.get("state") != "SUCCEEDED":
        raise BenchError(f"{tag}: the resumed job ended {done.get('state')}")
    rerun = [a for a in done["attempts"] if a["type"] == "MAP" and a["state"] == "SUCCEEDED"
             and int(a["id"].rsplit("_", 1)[1]) >= 1000]
    shutil.rmtree(shared, ignore_errors=True)
    return {"first_s": first_s, "resumed_s": r.wall, "total_s": first_s + r.wall,
            "maps_at_stop": float(stopped["maps"]["completed"]), "maps_rerun": float(len(rerun))}
