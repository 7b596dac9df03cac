#!/bin/bash
# Build the job jar (if needed) and run it on 3 nodes with `ham run`, which asks Slurm for an
# allocation (salloc) for the job's lifetime; inside an allocation it uses that one instead.
#
#   bash run.sh IN_DIR OUT_DIR [-D wordcount.min.length=4 ...]
#
# Generic Hadoop options (-D, -files, -libjars) go after OUT_DIR; IN_DIR and OUT_DIR must be on
# the shared file system and OUT_DIR must not exist yet. NODES (default 3) and TIME (default
# 30 minutes) can be set in the environment.
set -euo pipefail

if [ $# -lt 2 ]; then
    echo "usage: bash run.sh IN_DIR OUT_DIR [generic Hadoop options...]" >&2
    exit 2
fi
IN=$1 OUT=$2
shift 2
cd "$(dirname "$0")"

JAR=target/ham-wordcount-1.0.jar
if [ ! -f "$JAR" ]; then
    # -o: offline, from ~/.m2; the first build on a new machine needs `mvn -q package` (online).
    mvn -q -B -o package || mvn -q -B package
fi

ham run -N "${NODES:-3}" -t "${TIME:-30}" -J ham-java-wordcount -- \
    hadoop jar "$JAR" "$@" "$IN" "$OUT"
