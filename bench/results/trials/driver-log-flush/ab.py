"""The trial of README.md: driver.log appenders alternated in one invocation (kept as run)."""
import json
import sys
sys.path.insert(0, "bench"); sys.path.insert(0, "launcher")  # run from the repository
from pathlib import Path
from ham import session
from hambench import scale
orig = scale._conf_dir
variant = {"v": None}
def conf_dir(dist, tag):
    d = orig(dist, tag)
    if variant["v"] == "plain":
        p = d / "log4j.properties"
        p.write_text(p.read_text().replace("io.github.ham.mapreduce.driver.report.DriverLogAppender", "org.apache.log4j.FileAppender"))
    return d
scale._conf_dir = conf_dir
maps, runners, rounds = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
extra = sys.argv[4:]
dist = Path("mapreduce/target/dist")
classes = scale.snapshot_classes()
for r in range(rounds):
    for v in (("plain", "paced") if r % 2 == 0 else ("paced", "plain")):
        variant["v"] = v
        res = scale.run_one(dist, classes, f"ab-{v}-{r}", maps, runners, hang=1, heartbeat_ms=30000, client_jit="c1", sim_warmup=2000, extra_args=extra)
        m = res["metrics"]
        print(v, r, round(m["driver_cpu_ms_per_dispatch"], 4), round(m["dispatches_per_s"]), json.dumps({k: round(x, 4) for k, x in m["thread_cpu_ms_per_dispatch"].items()}), flush=True)
