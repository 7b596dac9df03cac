"""Run several commands one after another and record each one's wall time.

    python3 chain.py OUT.json [--time-v DIR] -- CMD1 ... --then CMD2 ... [--then ...]

Used inside `ham run` (so `hadoop` is HAM's) to time each `hadoop jar` client separately, and
optionally to wrap each in `/usr/bin/time -v` (driver CPU time and max RSS). Stops at the first
failing command and exits with its status.
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
    assert rest[:1] == ["--"], "usage: chain.py OUT.json [--time-v DIR] -- CMD [--then CMD]"
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
        out.write_text(json.dumps(steps, indent=1))
        if rc != 0:
            break
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
