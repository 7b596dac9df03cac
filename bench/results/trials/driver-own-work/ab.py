"""The trial of README.md: the driver's CPU a dispatch with two builds alternated in one
invocation (kept as run). Run from the repository:
python bench/results/trials/driver-own-work/ab.py DIST_A DIST_B MAPS RUNNERS PAIRS
(each DIST a copy of mapreduce/target/dist of the build to measure)."""
import json
import sys
sys.path.insert(0, "bench"); sys.path.insert(0, "launcher")  # run from the repository
from pathlib import Path

from hambench import scale

a, b = Path(sys.argv[1]), Path(sys.argv[2])
maps, runners, pairs = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
classes = scale.snapshot_classes()
for p in range(pairs):
    for dist in ((a, b) if p % 2 == 0 else (b, a)):
        res = scale.run_one(dist, classes, f"own-{dist.name}-{p}", maps, runners, hang=0,
                            heartbeat_ms=30000, client_jit="c1", sim_warmup=2000,
                            extra_args=["--commit", "false", "--task-ms", "0"])
        m = res["metrics"]
        print(json.dumps({"pair": p + 1, "dist": str(dist),
                          "driver_cpu_ms_per_dispatch": round(m["driver_cpu_ms_per_dispatch"], 4),
                          "dispatches_per_s": round(m["dispatches_per_s"]),
                          "by_thread": {k: round(v, 4) for k, v in
                                        m["thread_cpu_ms_per_dispatch"].items() if v > 0.001}}),
              flush=True)
