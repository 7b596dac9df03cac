#!/usr/bin/env bash
# Remakes src/dist/cds/{runner,client}.classlist: the classes HAM's task runners and a job's
# client JVM (`hadoop jar`, with HAM's driver in it) load, from which the class-data archives
# are made (launcher/ham/cds.py). Runs a sleep job and a wordcount on the test cluster (runners
# of maps and reduces, text input and output, a combiner; a wordcount through lustre:// of a
# file past the 16 MiB after which its reads and writes are direct) with -XX:DumpLoadedClassList in the
# runners and the clients, and merges what each kind loaded, less the classes of the jobs' own
# jars: a runner loads them from job.jar with the job's class loader; a client finds them on
# its class path (the bundle's examples and tests jars), but users' jobs are in jars of their
# own, so an archive holding these would flatter the bench's jobs.
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
export HAM_SHARED_ROOT="$work/shared" HAM_RUNNER_CDS=off HAM_CLIENT_CDS=off HAM_RUNNERS_PER_NODE=1
export HAM_LUSTRE_ROOT="$work"
mkdir -p "$work/shared" "$work/lists" "$work/in" "$work/big"
dist="$here/target/dist"
tests_jar=$(ls "$dist"/share/hadoop/mapreduce/hadoop-mapreduce-client-jobclient-*-tests.jar)
examples_jar=$(ls "$dist"/share/hadoop/mapreduce/hadoop-mapreduce-examples-*.jar)
seq 1 20000 | sed 's/$/ the quick brown fox/' > "$work/in/words.txt"
seq 1 700000 | sed 's/$/ the quick brown fox/' > "$work/big/words.txt"  # 18 MB
opts="-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:NewRatio=1 -XX:DumpLoadedClassList=$work/lists"
dump="-XX:DumpLoadedClassList=$work/lists"
cd "$work"
"$repo/.venv/bin/ham" run -N 1 -- bash -c "
  HADOOP_CLIENT_OPTS='$dump/client-sleep.txt' hadoop jar $tests_jar sleep \
    '-Dham.runner.java.opts=$opts/runner-sleep.txt' -m 6 -r 2 -mt 1 -rt 1 &&
  HADOOP_CLIENT_OPTS='$dump/client-wordcount.txt' hadoop jar $examples_jar wordcount \
    '-Dham.runner.java.opts=$opts/runner-wordcount.txt' $work/in $work/out &&
  HADOOP_CLIENT_OPTS='$dump/client-lustre.txt' hadoop jar $examples_jar wordcount \
    '-Dham.runner.java.opts=$opts/runner-lustre.txt' lustre:///big lustre:///out-lustre" \
  >"$work/run.log" 2>&1 \
  || { tail -20 "$work/run.log"; exit 1; }
for jar in "$tests_jar" "$examples_jar"; do
  unzip -Z1 "$jar" '*.class' | sed 's/\.class$//'
done > "$work/jobs-classes.txt"
# The classes of the boot, platform and application loaders (no "source:"), once each, in the
# order first loaded, less the jobs' classes and their lambdas; their ids only matter to the
# classes left out.
for kind in runner client; do
  cat "$work"/lists/"$kind"-*.txt | grep -v -e ' source: ' -e '^#' | sed 's/ id: [0-9]*$//' \
    | awk -v jobs="$work/jobs-classes.txt" '
        BEGIN { while ((getline c < jobs) > 0) job[c] = 1 }
        !($1 in job) && !($1 == "@lambda-proxy" && $2 in job) && !seen[$0]++' \
    > "$here/src/dist/cds/$kind.classlist"
  wc -l "$here/src/dist/cds/$kind.classlist"
done
