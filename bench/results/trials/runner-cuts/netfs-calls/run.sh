#!/usr/bin/env bash
# Alternates NetFsCalls.java (see there) between two HAM builds copied to /tmp/dist-A and
# /tmp/dist-B, on the test cluster's shared root (GlusterFS), and writes OUT/results.md.
#   bash bench/results/trials/runner-cuts/netfs-calls/run.sh A B ROUNDS CALLS OUT
set -euo pipefail
a=$1 b=$2 rounds=$3 calls=$4 out=$5
here="$(cd "$(dirname "$0")" && pwd)"
. "${HAM_CLUSTER_DIR:-/var/tmp/ham-cluster}/env.sh"
dir="$HAM_CLUSTER_SHARED/netfs-calls"
mkdir -p "$out"
{
  echo "# File-system calls on the test cluster's GlusterFS, ms per call"
  echo
  echo "Command: \`bash bench/results/trials/runner-cuts/netfs-calls/run.sh $*\` ($(date -u +%F\ %H:%M), HAM_CLUSTER_FS=$HAM_CLUSTER_FS)"
  echo
  echo "| build | round | probe: stat + list | probe: open | create (the build's) |"
  echo "|---|---|---|---|---|"
  for r in $(seq "$rounds"); do
    for v in $a $b; do
      d=/tmp/dist-$v
      java -cp "$d/ham-mapreduce.jar:$d/share/hadoop/common/*:$d/share/hadoop/common/lib/*" \
        "$here/NetFsCalls.java" "$dir" 1 "$calls" "$v" 2>/dev/null | sed "s/| $v | 1 |/| $v | $r |/"
    done
  done
} | tee "$out/results.md"
rm -rf "$dir"
