"""The trial of README.md: what runners with nothing to do cost the driver, two builds
alternated in one invocation (kept as run). Run from the repository:
python bench/results/trials/idle-runners/ab.py DIST_A DIST_B RUNNERS PAIRS
(each DIST a copy of mapreduce/target/dist of the build to measure)."""
import json
import sys
sys.path.insert(0, "bench"); sys.path.insert(0, "launcher")  # run from the repository
from pathlib import Path

from hambench import scale

a, b, runners, pairs = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
# 10 maps of 20-60 s (40 s x 0.5-1.5) among RUNNERS runners: all but 10 ask for a task and
# have none until the job ends. A heartbeat timeout of 120 s: the driver holds an idle
# runner's call for its longest, 10 s (a third of it, at most 10 s), and the simulated
# runners, which send no status while a map runs, are not taken for lost.
classes = scale.snapshot_classes()
for p in range(pairs):
    for dist in ((a, b) if p % 2 == 0 else (b, a)):
        res = scale.run_one(dist, classes, f"idle-{dist.name}-{p}", 10, runners, hang=0,
                            heartbeat_ms=120_000, client_jit="c1", warmup=0,
                            extra_args=["--commit", "false", "--task-ms", "40000"])
        m = res["metrics"]
        window = m["dispatch_window_s"]
        print(json.dumps({"pair": p + 1, "dist": str(dist), "runners": runners,
                          "window_s": round(window, 1),
                          "driver_cpu_util": round(m["driver_cpu_util"], 4),
                          "idle_polls": m["idle_polls"], "handshakes": m["handshakes"],
                          "connect_driver_cpu_s": m["connect_driver_cpu_s"],
                          "by_thread_ms": {k: round(v * 10, 1) for k, v in
                                           m["thread_cpu_ms_per_dispatch"].items()}}),
              flush=True)
