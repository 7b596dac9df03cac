"""A start-up trial: the same small job run with two or more variants of HAM's settings, in
alternating rounds, each job's start-up and end split from its own files (ham.json, driver.log,
status.json). bench/startup-trial.sh runs it; results.md says what was run.

A variant is NAME or NAME:SETTINGS, SETTINGS a comma-separated list of ENV=VALUE (HAM_* settings,
e.g. HAM_RUNNER_CDS=off) and -Dkey=value (job keys, e.g. -Dham.runners.early=false)."""

from __future__ import annotations

import argparse
import datetime
import glob
import json
import os
import statistics
import subprocess
from pathlib import Path

# (name, how it is measured): seconds between two moments of one job.
MEASURES = [
    ("job directory made -> driver's first line (client JVM, job id asked for)", "created", "first"),
    ("job directory made -> runners' srun started", "created", "srun"),
    ("job directory made -> job submitted (HamJob's first line)", "created", "submitted"),
    ("srun -> last runner connected", "srun", "connected"),
    ("job directory made -> first task assigned", "created", "assigned"),
    ("map phase (first map start -> last map end)", "map_start", "map_end"),
    ("job directory made -> job finished (status record)", "created", "finished"),
    ("job finished -> `ham run` done (client exit, teardown)", "finished", "done"),
    ("job directory made -> `ham run` done", "created", "done"),
]


def ts(line: str) -> float:
    return datetime.datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f").timestamp()


def moments(jd: Path) -> dict[str, float]:
    """The moments of the one job run in job directory jd (seconds since the epoch)."""
    lines = (jd / "driver.log").read_text().splitlines()
    ham = json.loads((jd / "ham.json").read_text())
    [status] = [json.loads(Path(p).read_text()) for p in glob.glob(str(jd / "jobs/*/status.json"))]
    maps = [a for a in status["attempts"] if a["type"] == "MAP"]
    return {
        "created": ham["created"], "done": ham["finished"], "first": ts(lines[0]),
        "srun": next(ts(x) for x in lines if "Starting task runner" in x),
        "submitted": next(ts(x) for x in lines if "[HamJob-" in x),
        "connected": max(ts(x) for x in lines if "Auth successful" in x),
        "assigned": next(ts(x) for x in lines if "Assigned attempt" in x),
        "map_start": min(a["start"] for a in maps) / 1000,
        "map_end": max(a["finish"] for a in maps) / 1000,
        "finished": status["finish_time"] / 1000,
    }


def run(work: Path, command: list[str], variant: str) -> Path:
    name, _, settings = variant.partition(":")
    env = dict(os.environ)
    props = []
    for s in filter(None, settings.split(",")):
        if s.startswith("-D"):
            props.append(s)
        else:
            k, v = s.split("=", 1)
            env[k] = v
    argv = ["ham", "run", "-N", "3", "--", *command[:4], *props, *command[4:]]
    log = work / "last.log"
    with log.open("w") as f:
        r = subprocess.run(argv, cwd=work, env=env, stdout=f, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        raise SystemExit(f"{name}: ham run failed ({r.returncode}); see {log}")
    return max((p for p in (work / "shared").glob("*/*") if (p / "ham.json").exists()),
               key=lambda p: p.stat().st_mtime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--maps", type=int, default=60)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--jar", required=True, help="the jobclient tests jar (the sleep job)")
    ap.add_argument("--title", default="Start-up trial")
    ap.add_argument("variants", nargs="+")
    a = ap.parse_args()
    (a.work / "shared").mkdir(parents=True, exist_ok=True)
    os.environ["HAM_SHARED_ROOT"] = str(a.work / "shared")
    command = ["hadoop", "jar", a.jar, "sleep", "-m", str(a.maps), "-r", "1", "-mt", "1", "-rt", "1"]
    run(a.work, [*command[:5], "3", *command[6:]], a.variants[0])  # warm-up (archives, caches)
    rows: dict[str, list[dict[str, float]]] = {v.partition(":")[0]: [] for v in a.variants}
    for _ in range(a.rounds):
        for v in a.variants:
            rows[v.partition(":")[0]].append(moments(run(a.work, command, v)))
    names = list(rows)
    a.out.mkdir(parents=True, exist_ok=True)
    with (a.out / "results.md").open("w") as f:
        f.write(f"# {a.title}\n\nCommand: `bash bench/startup-trial.sh` with `--rounds {a.rounds} "
                f"--maps {a.maps} {' '.join(a.variants)}` ({datetime.datetime.now():%Y-%m-%d %H:%M}). "
                f"The {a.maps}-map sleep job (1 ms maps, 1 reduce) on 3 nodes, `ham run -N 3`; "
                f"medians of {a.rounds} alternating runs; times in seconds.\n\n")
        f.write("| measure | " + " | ".join(names) + " | "
                + " | ".join(f"{n} / {names[0]}" for n in names[1:]) + " |\n")
        f.write("|---|" + "---|" * (2 * len(names) - 1) + "\n")
        for label, start, end in MEASURES:
            med = [statistics.median(m[end] - m[start] for m in rows[n]) for n in names]
            f.write(f"| {label} | " + " | ".join(f"{x:.2f}" for x in med) + " | "
                    + " | ".join(f"{x / med[0]:.2f}" if med[0] else "-" for x in med[1:]) + " |\n")
        f.write("\nEvery run (" + ", ".join(label for label, _, _ in MEASURES) + "):\n\n")
        for n in names:
            for m in rows[n]:
                f.write(f"- {n}: " + ", ".join(f"{m[e] - m[s]:.2f}" for _, s, e in MEASURES) + "\n")
    print((a.out / "results.md").read_text())


if __name__ == "__main__":
    main()
