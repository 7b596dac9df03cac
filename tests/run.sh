#!/bin/bash
# The test command: install everything, start the 3-node Slurm test clusters (one per pytest
# worker) on their network file systems, run the Java unit tests and the whole pytest suite
# (unit + integration) with pytest's temporary directories (every test's inputs, outputs and
# shared roots) on the worker's shared root, so each node reads and writes them through its own
# file-system client. As root on Debian 12.
#   bash tests/run.sh [PYTEST ARGS...]
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
DIR=${HAM_CLUSTER_DIR:-/var/tmp/ham-cluster}
BASE=${HAM_CLUSTER_PORT_BASE:-16800}
# HAM_TEST_WORKERS pytest-xdist workers (default 2), each with a test cluster of its own: the
# first is $DIR, worker N's $DIR-N with port base BASE+300*N (tests/conftest.py joins them).
# Two share 2 cores well (most of a test is waiting); 1 runs the suite in one process.
WORKERS=${HAM_TEST_WORKERS:-2}
[[ "$WORKERS" =~ ^[1-9]$ ]] || { echo "run.sh: error: HAM_TEST_WORKERS wants 1 to 9, got '$WORKERS'" >&2; exit 1; }
"$REPO/docker/install.sh"
CLUSTERS=$DIR
"$REPO/tests/cluster-up.sh"
for n in $(seq 1 $((WORKERS - 1))); do
    HAM_CLUSTER_DIR=$DIR-$n HAM_CLUSTER_PORT_BASE=$((BASE + 300 * n)) "$REPO/tests/cluster-up.sh"
    CLUSTERS="$CLUSTERS $DIR-$n"
done
export HAM_TEST_CLUSTERS=$CLUSTERS
. "$DIR/env.sh"
export PATH="$REPO/.venv/bin:$PATH"
echo "== Java unit tests (mvn test)"
mvn -q -B -f "$REPO/mapreduce/pom.xml" test
echo "== pytest"
cd "$REPO"
# --durations: the slowest tests, for keeping the run within its budget (docs/development.md).
# --dist loadfile: a test file's tests in one worker, which makes its module fixtures once.
parallel=()
[ "$WORKERS" = 1 ] || parallel=(-n "$WORKERS" --dist loadfile)
exec python -m pytest -ra --durations=25 "${parallel[@]}" --basetemp "$HAM_CLUSTER_SHARED/pytest" "$@" tests
