#!/usr/bin/env bash
# Class-data sharing for the task runner JVMs (setting runner_cds, launcher/ham/cds.py): what
# it changes in a runner's start and first tasks on the test cluster.
#   bash bench/cds-trial.sh [ROUNDS]      -> bench/results/cds-trial/results.md
# ROUNDS (default 3) alternating pairs of the same 60-map sleep job on 3 nodes, with
# runner_cds = "off" and "on" (the archive is made before the first pair, by a 3-map job).
# From each job's ham.json, driver.log and status.json: the job directory made inside the
# allocation -> the driver's first line (the client JVM has submitted the job) -> srun started
# -> first / last runner connected, -> first task assigned, and the map phase span.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
rounds=${1:-3}
work="$here/work/cds-trial"
out="$here/results/cds-trial"
rm -rf "$work" && mkdir -p "$work/shared" "$out"
bash "$repo/tests/cluster-up.sh" --reuse >/dev/null
# shellcheck disable=SC1091
. /var/tmp/ham-cluster/env.sh
export HAM_SHARED_ROOT="$work/shared"
dist="$repo/mapreduce/target/dist"
tests_jar=$(ls "$dist"/share/hadoop/mapreduce/hadoop-mapreduce-client-jobclient-*-tests.jar)
ham="$repo/.venv/bin/ham"

job() {  # job MAPS on|off
  (cd "$work" && HAM_RUNNER_CDS=$2 "$ham" run -N 3 -- hadoop jar "$tests_jar" sleep \
    -m "$1" -r 1 -mt 1 -rt 1 >"$work/last.log" 2>&1) || { tail "$work/last.log"; exit 1; }
  ls -td "$work"/shared/*/*/ | head -1
}

archive=$(grep -o 'SharedArchiveFile=[^ <]*' "$(job 3 on)conf/mapred-site.xml" | cut -d= -f2)
archive_mb=$(du -m "$archive" | cut -f1)
dirs=()
for _ in $(seq "$rounds"); do
  dirs+=("off=$(job 60 off)" "on=$(job 60 on)")
done
"$repo/.venv/bin/python" - "$out/results.md" "$rounds" "$archive_mb" "${dirs[@]}" <<'PY'
import datetime, glob, json, statistics, sys
out, rounds, archive_mb, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]

def ts(line):
    return datetime.datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f").timestamp()

rows = {"off": [], "on": []}
for run in runs:
    variant, d = run.split("=", 1)
    lines = open(d + "driver.log").read().splitlines()
    created = json.load(open(d + "ham.json"))["created"]
    submitted = ts(lines[0])
    srun = next(ts(x) for x in lines if "Starting task runner" in x)
    auth = [ts(x) for x in lines if "Auth successful" in x]
    first = next(ts(x) for x in lines if "Assigned attempt" in x)
    st = json.load(open(glob.glob(d + "jobs/*/status.json")[0]))
    maps = [a for a in st["attempts"] if a["type"] == "MAP"]
    span = (max(a["finish"] for a in maps) - min(a["start"] for a in maps)) / 1000
    rows[variant].append((auth[0] - srun, auth[-1] - srun, first - srun, span,
                          submitted - created, srun - submitted, first - created))
names = ["srun -> first runner connected (s)", "srun -> last runner connected (s)",
         "srun -> first task assigned (s)", "map phase, 60 x 1 ms maps on 3 runners (s)",
         "job directory made -> driver's first line (client JVM, job submission) (s)",
         "driver's first line -> srun started (s)",
         "job directory made -> first task assigned (s)"]
with open(out, "w") as f:
    f.write("# Class-data sharing for the task runners: runner_cds off / on\n\n")
    f.write(f"Command: `bash bench/cds-trial.sh {rounds}` ({datetime.datetime.now():%Y-%m-%d %H:%M}); "
            f"runner archive {archive_mb} MB. Medians of {rounds} alternating runs; each job "
            "starts its own 3 runners (3 nodes on the 2-core machine).\n\n")
    f.write("| measure | off | on | on / off |\n|---|---|---|---|\n")
    for i, n in enumerate(names):
        a = statistics.median(r[i] for r in rows["off"])
        b = statistics.median(r[i] for r in rows["on"])
        f.write(f"| {n} | {a:.2f} | {b:.2f} | {b / a:.2f} |\n")
    f.write("\nEvery run: " + "; ".join(
        f"{v}: " + ", ".join(f"{x:.2f}" for x in r) for v in rows for r in rows[v]) + "\n")
print(open(out).read())
PY
