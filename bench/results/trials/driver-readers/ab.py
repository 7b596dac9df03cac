"""The trial of README.md: the driver's IPC reader threads, 1 against 4, alternated in one
invocation (kept as run). Run from the repository: python ab.py MAPS RUNNERS PAIRS."""
import json
import sys
sys.path.insert(0, "bench"); sys.path.insert(0, "launcher")  # run from the repository
from pathlib import Path

from hambench import scale

maps, runners, pairs = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
dist = Path("mapreduce/target/dist")
classes = scale.snapshot_classes()
for p in range(pairs):
    for readers in ((1, 4) if p % 2 == 0 else (4, 1)):
        res = scale.run_one(dist, classes, f"readers{readers}-{p}", maps, runners, hang=0,
                            heartbeat_ms=30000, client_jit="c1", sim_warmup=2000,
                            extra_conf=[f"ipc.server.read.threadpool.size={readers}"],
                            extra_args=["--commit", "false", "--task-ms", "0"])
        m = res["metrics"]
        print(json.dumps({"pair": p + 1, "readers": readers,
                          "driver_cpu_ms_per_dispatch": round(m["driver_cpu_ms_per_dispatch"], 4),
                          "dispatches_per_s": round(m["dispatches_per_s"]),
                          "driver_cpu_ms_per_connection": m["driver_cpu_ms_per_connection"],
                          "by_thread": {k: round(v, 4) for k, v in
                                        m["thread_cpu_ms_per_dispatch"].items()}}), flush=True)
