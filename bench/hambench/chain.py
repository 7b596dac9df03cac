"""Run several commands one after another and record each one's wall time.

    python3 chain.py OUT.json [--time-v DIR] [--sync SETTLE_S] -- CMD1 ... --then CMD2 ... [--then ...]
    python3 chain.py OUT.json --parallel -- CMD1 ... --then CMD2 ...

With --parallel the commands run all at once (the job mix of 3 jobs in one allocation) and the
status is the first failing one's.

Used inside `ham run` (so `hadoop` is HAM's) to time each `hadoop jar` client separately, and
optionally to wrap each in `/usr/bin/time -v` (driver CPU time and max RSS). With --sync, after
each command it times a `sync` (what the command wrote reaches the disk) and then drops the
page cache (root only), so the next command reads from the disk: the I/O case compares with dd
writing with fdatasync and reading cold. A drop followed by another command waits SETTLE_S
seconds first (see cold_cache); the caller does the same before the allocation, so that neither
wait counts in HAM's start-up or teardown. Stops at the first failing command and exits with
its status.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    out = Path(argv[0])
    rest = argv[1:]
    time_v: Path | None = None
    if rest[:1] == ["--time-v"]:
        time_v, rest = Path(rest[1]), rest[2:]
    settle: float | None = None
    parallel = rest[:1] == ["--parallel"]
    if parallel:
        rest = rest[1:]
    if rest[:1] == ["--sync"]:
        settle, rest = float(rest[1]), rest[2:]
    assert rest[:1] == ["--"], \
        "usage: chain.py OUT.json [--time-v DIR] [--sync SETTLE_S] -- CMD [--then CMD]"
    cmds: list[list[str]] = [[]]
    for a in rest[1:]:
        if a == "--then":
            cmds.append([])
        else:
            cmds[-1].append(a)
    if parallel:
        return _parallel(out, cmds)
    steps = []
    rc = 0
    for i, cmd in enumerate(cmds):
        if time_v is not None:
            time_v.mkdir(parents=True, exist_ok=True)
            cmd = ["/usr/bin/time", "-v", "-o", str(time_v / f"step{i}.txt"), *cmd]
        t0 = time.time()
        rc = subprocess.run(cmd).returncode
        steps.append({"argv": cmd, "rc": rc, "t0": t0, "t1": time.time()})
        if settle is not None:
            t = time.time()
            subprocess.run(["sync"], check=True)
            wait = settle if i + 1 < len(cmds) else 0.0  # nothing timed follows the last
            steps[-1].update(sync_s=time.time() - t, cache_dropped=cold_cache(wait))
        out.write_text(json.dumps(steps, indent=1))
        if rc != 0:
            break
    return rc


def _parallel(out: Path, cmds: list[list[str]]) -> int:
    procs = [(time.time(), subprocess.Popen(cmd)) for cmd in cmds]
    ends: dict[int, float] = {}
    while len(ends) < len(procs):  # each command's own end, whichever ends first
        for i, (_, p) in enumerate(procs):
            if i not in ends and p.poll() is not None:
                ends[i] = time.time()
        time.sleep(0.02)
    steps = [{"argv": cmd, "rc": p.returncode, "t0": t0, "t1": ends[i]}
             for i, (cmd, (t0, p)) in enumerate(zip(cmds, procs))]
    out.write_text(json.dumps(steps, indent=1))
    return next((s["rc"] for s in steps if s["rc"]), 0)


def cold_cache(settle_s: float) -> bool:
    """Drop the page cache, then wait settle_s seconds before the next timed I/O.

    The wait is for virtual machines whose balloon device has free page reporting (this test
    machine's has): the guest hands the memory the drop freed back to its host a few seconds at
    a time, and a page handed back costs a host fault when the page cache next takes it. Reads
    started at once after a drop ran at 1.8 GB/s here, the same reads 5 s later at 1.1 GB/s and
    20 s later at 0.7 GB/s (3 x 2 GB, dd). A job starts seconds after the drop and dd at once, so
    without the same settled wait before both the baseline is read into faster memory than HAM.
    """
    dropped = drop_page_cache()
    time.sleep(settle_s)
    return dropped


def drop_page_cache() -> bool:
    try:
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
        return True
    except OSError:  # not root: reads may come from the page cache
        return False


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
