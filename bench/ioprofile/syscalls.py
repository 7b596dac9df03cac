"""Sizes of the read and write system calls task runners made on a job's files, from
`strace -f -y` traces (one per runner JVM): spills, file.out, input, part files."""

from __future__ import annotations

import collections
import glob
import re
import sys

KINDS = [("spill", re.compile(r"/spill\d+\.out>")), ("file.out", re.compile(r"/file\.out>")),
         ("part-r", re.compile(r"/part-r-\d+>")), ("input", re.compile(r"/in/[^/>]+\.txt>"))]
CALL = re.compile(r"^\d+\s+(read|write|pread64|pwrite64)\(\d+(<[^>]*>),.*\) = (\d+)$")


def main(trace_dir: str) -> None:
    stats: dict[tuple[str, str], list[int]] = collections.defaultdict(lambda: [0, 0])
    for f in glob.glob(f"{trace_dir}/trace.*"):
        for line in open(f, errors="replace"):
            m = CALL.match(line)
            if not m:
                continue
            for kind, rx in KINDS:
                if rx.search(m.group(2)):
                    s = stats[(kind, "read" if "read" in m.group(1) else "write")]
                    s[0] += 1
                    s[1] += int(m.group(3))
    print("| file | op | calls | MB | mean KiB |\n|---|---|---|---|---|")
    for (kind, op), (n, b) in sorted(stats.items()):
        print(f"| {kind} | {op} | {n} | {b / 1e6:.1f} | {b / max(n, 1) / 1024:.1f} |")


if __name__ == "__main__":
    main(sys.argv[1])
