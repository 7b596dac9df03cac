#!/bin/bash
# The test command: install everything, start the 3-node Slurm test cluster on its network file
# system, run the Java unit tests and the whole pytest suite (unit + integration) with pytest's
# temporary directories (every test's inputs, outputs and shared roots) on the shared root, so
# each node reads and writes them through its own file-system client. As root on Debian 12.
#   bash tests/run.sh [PYTEST ARGS...]
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
"$REPO/docker/install.sh"
"$REPO/tests/cluster-up.sh"
. "${HAM_CLUSTER_DIR:-/var/tmp/ham-cluster}/env.sh"
export PATH="$REPO/.venv/bin:$PATH"
echo "== Java unit tests (mvn test)"
mvn -q -B -f "$REPO/mapreduce/pom.xml" test
echo "== pytest"
cd "$REPO"
# --durations: the slowest tests, for keeping the run within its budget (docs/development.md).
exec python -m pytest -ra --durations=25 --basetemp "$HAM_CLUSTER_SHARED/pytest" "$@" tests
