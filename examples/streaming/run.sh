#!/bin/bash
# Word count with Hadoop Streaming and the Python mapper.py / reducer.py beside this script,
# submitted as a Slurm batch job with `ham submit --wait` (prints the job's output as it runs and
# exits with the job's exit code).
#
#   bash run.sh IN_DIR OUT_DIR [extra `ham submit` options, e.g. -t 30 -p short]
#
# IN_DIR and OUT_DIR must be on the shared file system; OUT_DIR must not exist yet.
# NODES (default 3) and REDUCES (default 3) can be set in the environment.
set -euo pipefail

if [ $# -lt 2 ]; then
    echo "usage: bash run.sh IN_DIR OUT_DIR [ham submit options...]" >&2
    exit 2
fi
IN=$1 OUT=$2
shift 2
HERE=$(cd "$(dirname "$0")" && pwd)

# hadoop-streaming-*.jar: $STREAMING_JAR, else where a Hadoop installation keeps it, the tools'
# directory that `hadoop envvars` names (share/hadoop/tools/lib) of the Hadoop HAM uses (the
# site's, or the one bundled with HAM).
if [ -z "${STREAMING_JAR:-}" ]; then
    eval "$(ham hadoop envvars | grep '^HADOOP_TOOLS_')"
    STREAMING_JAR=$(ls "$HADOOP_TOOLS_HOME/$HADOOP_TOOLS_LIB_JARS_DIR"/hadoop-streaming-*.jar \
        2>/dev/null | tail -n 1 || true)
fi
[ -f "$STREAMING_JAR" ] || { echo "hadoop-streaming jar not found: set STREAMING_JAR" >&2; exit 2; }

# -files ships the scripts to every task's working directory; python3 must exist on the nodes.
# The reducer is also the combiner: it sums partial counts on the map side.
exec ham submit --wait -N "${NODES:-3}" -J ham-streaming "$@" -- \
    hadoop jar "$STREAMING_JAR" \
    -D mapreduce.job.name=ham-streaming-wordcount \
    -D mapreduce.job.reduces="${REDUCES:-3}" \
    -files "$HERE/mapper.py,$HERE/reducer.py" \
    -mapper "python3 mapper.py" \
    -combiner "python3 reducer.py" \
    -reducer "python3 reducer.py" \
    -input "$IN" -output "$OUT"
