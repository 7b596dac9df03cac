#!/usr/bin/env bash
# Remakes src/dist/cds/runner.classlist: the classes HAM's task runners load, from which each
# user's class-data archive is made (launcher/ham/cds.py). Runs a sleep job and a wordcount on
# the test cluster (runners of maps and reduces, text input and output, a combiner) with
# -XX:DumpLoadedClassList in the runners, and merges what they loaded, less the classes of the
# jobs' own jars (loaded from job.jar by the job's class loader: not the runners' to share).
#   bash mapreduce/cds-classlist.sh        (needs the Maven build and the test cluster)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
work=$(mktemp -d /tmp/ham-classlist.XXXXXX)
trap 'rm -rf "$work"' EXIT
bash "$repo/tests/cluster-up.sh" --reuse >/dev/null
# shellcheck disable=SC1091
. /var/tmp/ham-cluster/env.sh
# One runner (one node, one per node) per job: each list file has one writer.
export HAM_SHARED_ROOT="$work/shared" HAM_RUNNER_CDS=off HAM_RUNNERS_PER_NODE=1
mkdir -p "$work/shared" "$work/lists" "$work/in"
dist="$here/target/dist"
tests_jar=$(ls "$dist"/share/hadoop/mapreduce/hadoop-mapreduce-client-jobclient-*-tests.jar)
examples_jar=$(ls "$dist"/share/hadoop/mapreduce/hadoop-mapreduce-examples-*.jar)
seq 1 20000 | sed 's/$/ the quick brown fox/' > "$work/in/words.txt"
opts="-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:NewRatio=1 -XX:DumpLoadedClassList=$work/lists"
cd "$work"
"$repo/.venv/bin/ham" run -N 1 -- bash -c "
  hadoop jar $tests_jar sleep '-Dham.runner.java.opts=$opts/sleep.txt' -m 6 -r 2 -mt 1 -rt 1 &&
  hadoop jar $examples_jar wordcount '-Dham.runner.java.opts=$opts/wordcount.txt' \
    $work/in $work/out" >"$work/run.log" 2>&1 \
  || { tail -20 "$work/run.log"; exit 1; }
# The classes of the boot, platform and application loaders (no "source:"), once each, in the
# order first loaded; their ids only matter to the classes left out.
cat "$work"/lists/*.txt | grep -v -e ' source: ' -e '^#' | sed 's/ id: [0-9]*$//' \
  | awk '!seen[$0]++' > "$here/src/dist/cds/runner.classlist"
wc -l "$here/src/dist/cds/runner.classlist"
