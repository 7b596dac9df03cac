#!/usr/bin/env bash
# Trial of class-data sharing (AppCDS) for the task runner JVMs, before building it into HAM:
# what it changes in a runner's start and first tasks on the test cluster.
#   bash bench/cds-trial.sh [ROUNDS]      -> bench/results/cds-trial/results.md
# 1. A training job (sleep, 1 node) runs its runner with -XX:ArchiveClassesAtExit: a dynamic
#    archive of every class the runner loaded. The runner's class path is given as
#    ham.runner.classpath with the jars first and the job's conf directory last: the JVM
#    refuses to archive with a non-empty directory ahead of the jars (HAM puts conf/ first).
# 2. ROUNDS (default 3) alternating pairs of the same 60-map sleep job on 3 nodes, with and
#    without -XX:SharedArchiveFile, the same class path order in both.
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
jars="$dist/ham-mapreduce.jar:$(find "$dist/share/hadoop/common" "$dist/share/hadoop/hdfs" \
  "$dist/share/hadoop/mapreduce" "$dist/share/hadoop/yarn" -name '*.jar' | sort | paste -sd:)"
tests_jar=$(ls "$dist"/share/hadoop/mapreduce/hadoop-mapreduce-client-jobclient-*-tests.jar)
opts="-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:NewRatio=1"  # runner_java_opts' default
ham="$repo/.venv/bin/ham"

job() {  # job NODES MAPS RUNNER_OPTS
  (cd "$work" && "$ham" run -N "$1" -- bash -c "hadoop jar $tests_jar sleep \
    -D ham.runner.classpath=$jars:\$HADOOP_CONF_DIR '-Dham.runner.java.opts=$opts $3' \
    -m $2 -r 1 -mt 1 -rt 1" >"$work/last.log" 2>&1) || { tail "$work/last.log"; exit 1; }
  ls -td "$work"/shared/*/*/ | head -1
}

job 1 3 "-XX:ArchiveClassesAtExit=$work/runner.jsa" >/dev/null
archive_mb=$(du -m "$work/runner.jsa" | cut -f1)
share="-XX:SharedArchiveFile=$work/runner.jsa -Xlog:cds=off -Xlog:cds+dynamic=off"
dirs=()
for _ in $(seq "$rounds"); do
  dirs+=("without=$(job 3 60 "")" "with=$(job 3 60 "$share")")
done
"$repo/.venv/bin/python" - "$out/results.md" "$rounds" "$archive_mb" "${dirs[@]}" <<'PY'
import datetime, glob, json, statistics, sys
out, rounds, archive_mb, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]

def ts(line):
    return datetime.datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f").timestamp()

rows = {"without": [], "with": []}
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
    f.write("# AppCDS for the task runners: a trial\n\n")
    f.write(f"Command: `bash bench/cds-trial.sh {rounds}` ({datetime.datetime.now():%Y-%m-%d %H:%M}); "
            f"runner archive {archive_mb} MB. Medians of {rounds} alternating runs; each job "
            "starts its own 3 runners (3 nodes on the 2-core machine).\n\n")
    f.write("| measure | without | with archive | with / without |\n|---|---|---|---|\n")
    for i, n in enumerate(names):
        a = statistics.median(r[i] for r in rows["without"])
        b = statistics.median(r[i] for r in rows["with"])
        f.write(f"| {n} | {a:.2f} | {b:.2f} | {b / a:.2f} |\n")
    f.write("\nEvery run: " + "; ".join(
        f"{v}: " + ", ".join(f"{x:.2f}" for x in r) for v in rows for r in rows[v]) + "\n")
print(open(out).read())
PY
