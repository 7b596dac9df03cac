"""Run several commands one after another and record each one's wall time.

    python3 chain.py OUT.json [--time-v DIR] [--sync] -- CMD1 ... --then CMD2 ... [--then ...]

Used inside `ham run` (so `hadoop` is HAM's) to time each `hadoop jar` client separately, and
optionally to wrap each in `/usr/bin/time -v` (driver CPU time and max RSS). With --sync, after
each command it times a `sync` (what the command wrote reaches the disk) and then drops the
page cache (root only), so the next command reads from the disk: the I/O case compares with dd
writing with fdatasync and reading cold. Stops at the first failing command and exits with its
status.
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
    sync = rest[:1] == ["--sync"]
    if sync:
        rest = rest[1:]
    assert rest[:1] == ["--"], "usage: chain.py OUT.json [--time-v DIR] [--sync] -- CMD [--then CMD]"
    cmds: list[list[str]] = [[]]
    for a in rest[1:]:
        if a == "--then":
            cmds.append([])
        else:
            cmds[-1].append(a)
    steps = []
    rc = 0
    for i, cmd in enumerate(cmds):
        if time_v is not None:
            time_v.mkdir(parents=True, exist_ok=True)
            cmd = ["/usr/bin/time", "-v", "-o", str(time_v / f"step{i}.txt"), *cmd]
        t0 = time.time()
        rc = subprocess.run(cmd).returncode
        steps.append({"argv": cmd, "rc": rc, "t0": t0, "t1": time.time()})
        if sync:
            t = time.time()
            subprocess.run(["sync"], check=True)
            steps[-1].update(sync_s=time.time() - t, cache_dropped=drop_page_cache())
        out.write_text(json.dumps(steps, indent=1))
        if rc != 0:
            break
    return rc


def drop_page_cache() -> bool:
    try:
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
        return True
    except OSError:  # not root: reads may come from the page cache
        return False


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
