#!/usr/bin/env bash
# Many maps on the test cluster's network file system (GlusterFS, a FUSE client per node), two
# HAM builds alternated: the bench's many-map wordcount (MAPS one-line files,
# 3 reduces, 3 nodes x 1 runner) with the job's directory on the cluster's shared root.
#   bash bench/results/trials/runner-cuts/gluster-index/run.sh A B ROUNDS MAPS OUT
# A and B name builds copied to /tmp/dist-A and /tmp/dist-B (mapreduce/target/dist of each).
# Prints, per run, the map attempts' median time, the reduces' (median of 3) and the job's, from
# the job's status.json, into OUT/results.md.
set -euo pipefail
a=$1 b=$2 rounds=$3 maps=$4 out=$5
. "${HAM_CLUSTER_DIR:-/var/tmp/ham-cluster}/env.sh"
work="$HAM_CLUSTER_SHARED/gluster-index"
HAM_AB_WORK=$work HAM_AB_PROFILE=0 bash "$(dirname "$0")/../ab.sh" "$a" "$b" "$rounds" "$maps" \
  "$out"
export PATH="$(cd "$(dirname "$0")/../../../../.." && pwd)/.venv/bin:$PATH"
python - "$work" "$out" "bash bench/results/trials/runner-cuts/gluster-index/run.sh $*" <<'PY'
import json, statistics, sys
from pathlib import Path
work, out, command = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
rows = []
for run in sorted(work.iterdir(), key=lambda p: (int(p.name.rpartition("-")[2]), p.name)):
    status = json.loads(next(run.glob("*/*/jobs/*/status.json")).read_text())
    att = [a for a in status["attempts"] if a["state"] == "SUCCEEDED"]
    red = [a["finish"] - a["start"] for a in att if a["type"] == "REDUCE"]
    maps = [a["finish"] - a["start"] for a in att if a["type"] == "MAP"]
    job = max(a["finish"] for a in att) - min(a["start"] for a in att)
    rows.append((run.name, statistics.median(maps), statistics.median(red) / 1e3, job / 1e3))
lines = ["# Many maps on GlusterFS", "", f"Command: `{command}`", "",
         "| run | map attempt, median (ms) | reduce attempt, median of 3 (s) "
         "| first task start to last task end (s) |",
         "|---|---|---|---|"] + [f"| {n} | {m:.0f} | {r:.2f} | {j:.2f} |" for n, m, r, j in rows]
(out / "results.md").write_text("\n".join(lines) + "\n")
print("\n".join(lines))
PY
