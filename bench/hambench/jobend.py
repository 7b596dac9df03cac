"""Where a job's driver spends its end, from async-profiler wall-clock samples of the client JVM
(collapsed stacks, one file per job, 1 ms interval): the driver's HamJob.finish (runners
stopped, IPC server stopped, files cleaned, history and aggregated logs waited for, status
record), and within the history thread the aggregated logs and their TFile writers' set-up.

    python bench/hambench/jobend.py PROFILE.txt...
"""

from __future__ import annotations

import sys


def summary(path: str) -> dict[str, int]:
    out = {"finish_ms": 0, "aggregated_logs_ms": 0, "log_writer_init_ms": 0}
    with open(path) as f:
        for line in f:
            stack, _, n = line.rstrip().rpartition(" ")
            frames = stack.split(";")
            if "HamJob.finish" in stack:
                out["finish_ms"] += int(n)
            if frames[0].startswith("[ham-history") and "AggregatedLogs" in stack:
                out["aggregated_logs_ms"] += int(n)
            if "LogWriter.initialize" in stack:
                out["log_writer_init_ms"] += int(n)
    return out


def main() -> None:
    print("| profile | HamJob.finish ms | aggregated logs ms | log writers' set-up ms |")
    print("|---|---|---|---|")
    for p in sys.argv[1:]:
        s = summary(p)
        print(f"| {p} | {s['finish_ms']} | {s['aggregated_logs_ms']} | {s['log_writer_init_ms']} |")


if __name__ == "__main__":
    main()
