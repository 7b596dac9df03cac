"""Case `warm`: warm runners across the jobs of one allocation (ham.runner.warm.idle.ms, #32),
against the same jobs without them, side by side in the same round.

The work: `warm_jobs` small jobs in a row (wordcount of `warm_wc_mib` MiB) in one `ham run -N
nodes`, each a `hadoop jar` client of its own (chain.py), as a script of jobs runs. Variants:
- `cold`: warm runners off (`-D ham.runner.warm.idle.ms=0`): each job starts its own srun step;
- `warm`: `-D ham.runner.warm.idle.ms=30000` on every job (on by default with 10 s; 30 s here so
  that a slow client never misses them): a job after the first claims the runners the one
  before it parked.
Metrics, from the jobs' status records: `span_s` (first client's start to last client's end),
`later_startup_s` (median, over the jobs after the first, of the time from the job's
submission, its status record's start_time, to its first task's start), `later_startup_max_s`,
`first_startup_s` (the first job's), `steps` (the allocation's runner steps, from sacct).
"""

from __future__ import annotations

import statistics
from typing import Mapping

from hambench.data import wordcount_input
from hambench.jobs import Step, run_ham
from hambench.util import EXAMPLES_JAR, WORK, run

VARIANTS = {"cold": (("ham.runner.warm.idle.ms", "0"),), "warm": (("ham.runner.warm.idle.ms", "30000"),)}
OUT = WORK / "out" / "warm"


def steps(variant: str, jobs: int, wc_mib: int, files: int) -> list[Step]:
    src = wordcount_input(wc_mib, files)
    return [Step(f"wc{i}", EXAMPLES_JAR, "wordcount", (str(src), str(OUT / variant / f"o{i}")),
                 conf=VARIANTS[variant], clean=(OUT / variant / f"o{i}",)) for i in range(jobs)]


def run_variant(env: Mapping[str, str], tag: str, variant: str, nodes: int, jobs: int,
                wc_mib: int, files: int) -> dict[str, float]:
    s = run_ham(steps(variant, jobs, wc_mib, files), env, tag, nodes, 0)
    startups = [st["first_map_start"] - st["job_start"] for st in s.steps]
    if any(st["state"] != "SUCCEEDED" for st in s.steps):
        raise RuntimeError(f"{tag}: a job did not succeed")
    return {"span_s": s.info["span_s"], "e2e_s": s.info["e2e_s"],
            "first_startup_s": startups[0],
            "later_startup_s": statistics.median(startups[1:]),
            "later_startup_max_s": max(startups[1:]),
            "steps": float(_steps_started(s.info["slurm_job"], env))}


def _steps_started(slurm_job: str, env: Mapping[str, str]) -> int:
    """The runner steps of the allocation (srun's `/bin/sh -c` wrapper: sacct names them sh)."""
    r = run(["sacct", "-j", slurm_job, "-n", "-P", "-o", "JobID,JobName"], env=env, check=False)
    return sum(1 for line in r.out.splitlines() if line.endswith("|sh"))
