"""Task runners' CPU per task from async-profiler's collapsed stacks (bench/runner-profile.sh):
results.json and results.md with, per variant, the runners' CPU per task, split by phase of the
task loop, and the frames most often on the main thread's stack.

    python bench/hambench/apsummary.py --maps N --out DIR RUN_DIR...

A RUN_DIR is named <variant>-<round> and holds ap/*.txt (one collapsed file per runner JVM,
`threads` on, 1 ms CPU interval) and the job's status.json below it.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import statistics
from pathlib import Path

INTERVAL_MS = 1.0
# The main thread's samples by the first of these frames on its stack (outermost first wins).
PHASES = (
    ("sort buffer (MapOutputBuffer.init)", "MapOutputBuffer.init"),
    ("map output flush, spill, merge", "MapOutputBuffer.flush"),
    ("Task.done (commit, final status)", "Task.done"),
    ("split (MapTask.getSplitDetails)", "MapTask.getSplitDetails"),
    ("other task code (MapTask/ReduceTask.run)", "Task.run"),
    ("task set-up (TaskSetup.configure)", "TaskSetup.configure"),
    ("task configuration copy", "RunnerJob.newTaskConf"),
    ("job state (RunnerJob, once a job)", "RunnerJob.<init>"),
    ("attempt logs (AttemptLogs)", "AttemptLogs."),
    ("other per-task runner work", "TaskRunner.runTask"),
    ("asking for a task (nextTask RPC)", "TaskRunner.loop"),
)
STARTUP = "JVM start-up, before the task loop"


def phase(frames: list[str]) -> str:
    text = ";".join(frames)
    if "TaskRunner.loop" not in text:
        return STARTUP
    for name, marker in PHASES:
        if marker in text:
            return name
    return "asking for a task (nextTask RPC)"


def frame_name(f: str) -> str:
    """io/github/ham/X.m_[j] -> X.m (the class's simple name)."""
    f = re.sub(r"_\[[a-z0-9]\]$", "", f)
    return f.split("/")[-1] if "/" in f else f


def thread_name(first: str) -> str:
    """'[IPC Client (123) connection to vm/10.0.0.1:4000 from job_1_1 tid=77]' ->
    'IPC Client (N) connection to vm/N.N.N.N:N from job_N_N': one name for the same thread in
    every runner and run (a thread without a name is 'tid=N')."""
    return re.sub(r"\d+", "N", re.sub(r" ?tid=\d+", "", first).strip("[]") or "tid=0")


def read_run(run: Path) -> dict:
    threads: collections.Counter[str] = collections.Counter()
    phases: collections.Counter[str] = collections.Counter()
    inclusive: collections.Counter[str] = collections.Counter()
    for f in sorted((run / "ap").glob("*.txt")):
        for line in f.read_text().splitlines():
            stack, _, n = line.rpartition(" ")
            first, *rest = stack.split(";")
            frames = [frame_name(x) for x in rest]
            thread = thread_name(first)
            threads[thread] += int(n)
            if thread == "main":
                phases[phase(frames)] += int(n)
                inclusive.update({x: int(n) for x in set(frames)})
    status = json.loads(next(run.glob("*/*/jobs/*/status.json")).read_text())
    maps = [a for a in status["attempts"] if a["type"] == "MAP" and a["state"] == "SUCCEEDED"]
    span = (max(a["finish"] for a in maps) - min(a["start"] for a in maps)) / 1000
    tasks = len(status["attempts"])
    variant, _, rnd = run.name.rpartition("-")
    return {
        "variant": variant, "round": int(rnd), "tasks": tasks, "runners": len(list((run / "ap").glob("*.txt"))),
        "slot_ms_per_map": span * len(list((run / "ap").glob("*.txt"))) / len(maps) * 1e3,
        "map_attempt_ms_median": statistics.median(a["finish"] - a["start"] for a in maps),
        "cpu_ms_per_task_all_threads": (sum(threads.values()) - phases[STARTUP]) * INTERVAL_MS / tasks,
        "cpu_ms_per_task_main": (threads["main"] - phases[STARTUP]) * INTERVAL_MS / tasks,
        "threads_ms": dict(threads.most_common()), "phases_ms": dict(phases.most_common()),
        "main_inclusive_top": inclusive.most_common(40),
    }


def markdown(runs: list[dict], command: str) -> str:
    variants = sorted({r["variant"] for r in runs}, key=lambda v: (v != "reuse", v))
    by = {v: [r for r in runs if r["variant"] == v] for v in variants}

    def med(v: str, key: str, sub: str | None = None) -> float:
        vals = [(r[key].get(sub, 0) / r["tasks"]) if sub else r[key] for r in by[v]]
        return statistics.median(vals)

    lines = ["# Task runners' CPU per task", "", f"Command: `{command}`  ",
             f"{len(runs)} runs, {runs[0]['tasks']} tasks each ({runs[0]['runners']} runners); "
             "medians over the runs of each variant. async-profiler CPU samples (1 ms) of the "
             "runner JVMs; per task = samples in the task loop / tasks (the main thread's JVM "
             "start-up left out; other threads, such as the JIT compiler, counted whole).", "",
             "| | " + " | ".join(variants) + " |", "|---" * (len(variants) + 1) + "|"]
    for label, key in (("CPU ms per task, all runner threads", "cpu_ms_per_task_all_threads"),
                       ("CPU ms per task, main thread", "cpu_ms_per_task_main"),
                       ("map attempt, median ms (status.json)", "map_attempt_ms_median"),
                       ("map phase span x runners / maps, ms", "slot_ms_per_map")):
        lines.append(f"| {label} | " + " | ".join(f"{med(v, key):.1f}" for v in variants) + " |")
    lines += ["", "Each run, CPU ms per task, all runner threads / main thread:", "",
              "| variant | " + " | ".join(f"round {r['round']}" for r in by[variants[0]]) + " |",
              "|---" * (len(by[variants[0]]) + 1) + "|"]
    for v in variants:
        lines.append(f"| {v} | " + " | ".join(
            f"{r['cpu_ms_per_task_all_threads']:.2f} / {r['cpu_ms_per_task_main']:.2f}"
            for r in by[v]) + " |")
    busiest = collections.Counter()
    for r in runs:
        busiest.update({t: ms / r["tasks"] for t, ms in r["threads_ms"].items()})
    lines += ["", "CPU ms per task by thread (the busiest, all of each run counted; the "
              "main thread's start-up included here):", "",
              "| thread | " + " | ".join(variants) + " |", "|---" * (len(variants) + 1) + "|"]
    for name, _ in busiest.most_common(12):
        lines.append(f"| {name} | " + " | ".join(f"{med(v, 'threads_ms', name):.2f}"
                                                  for v in variants) + " |")
    lines += ["", "Main thread, CPU ms per task by phase:", "",
              "| phase | " + " | ".join(variants) + " |", "|---" * (len(variants) + 1) + "|"]
    for name in [p for p, _ in PHASES]:
        lines.append(f"| {name} | " + " | ".join(f"{med(v, 'phases_ms', name):.2f}"
                                                  for v in variants) + " |")
    for v in variants:
        r = by[v][0]
        lines += ["", f"## {v}, round {r['round']}: frames on the main thread's stack "
                      "(inclusive, ms per task)", "", "| frame | ms per task |", "|---|---|"]
        lines += [f"| `{f}` | {n * INTERVAL_MS / r['tasks']:.2f} |"
                  for f, n in r["main_inclusive_top"][:30]]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", type=Path)
    ap.add_argument("--maps", type=int, required=True)
    ap.add_argument("--command", default="bash bench/runner-profile.sh")
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    runs = [read_run(r) for r in a.runs]
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "results.json").write_text(json.dumps({"command": a.command, "maps": a.maps,
                                                    "runs": runs}, indent=1) + "\n")
    (a.out / "results.md").write_text(markdown(runs, a.command))
    print((a.out / "results.md").read_text(), end="")


if __name__ == "__main__":
    main()
