#!/bin/bash
# The main job: install everything, start the local 3-node Slurm cluster, and run a real
# MapReduce wordcount through `ham submit` on it. As root on Debian 12:
#   bash examples/main-job.sh
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
"$REPO/docker/install.sh"
"$REPO/tests/cluster-up.sh" --reuse
. "${HAM_CLUSTER_DIR:-/var/tmp/ham-cluster}/env.sh"
export PATH="$REPO/.venv/bin:$PATH"

# The cluster's shared root (a GlusterFS volume that every node mounts with its own client)
# stands in for Lustre here.
work=${HAM_DEMO_DIR:-$HAM_CLUSTER_SHARED/ham-demo}
rm -rf "$work" && mkdir -p "$work/in" "$work/shared"
export HAM_SHARED_ROOT="$work/shared"
for f in "$REPO"/README.md "$REPO"/launcher/ham/*.py "$REPO"/docker/*.sh; do
    cp "$f" "$work/in/$(basename "$f").txt"
done
examples_jar=$(ls "$REPO"/mapreduce/target/dist/share/hadoop/mapreduce/hadoop-mapreduce-examples-*.jar)

cd "$work"
# The script's exit status is the job's: --wait returns it (and set -e stops here on failure).
ham submit --wait -N 3 -J ham-wordcount -- \
    hadoop jar "$examples_jar" wordcount -D mapreduce.job.reduces=3 "$work/in" "$work/out"

echo
echo "== output: $work/out"
ls "$work/out"
echo "== the ten most frequent words"
# awk reads all its input: `head` would exit early, and sort's SIGPIPE (exit 141) would fail
# the script under pipefail although the job succeeded.
sort -k2,2nr -k1,1 "$work"/out/part-r-* | awk 'NR <= 10'
