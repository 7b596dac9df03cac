#!/usr/bin/env bash
# HAM benchmark suite, one command:  bash bench/run.sh [--quick] [--rounds N] [--cases a,b] ...
# Brings up what it needs (Python deps, YARN jars, the test cluster if it is down, data), then
# runs bench/run.py. Results: bench/results/{results.json,results.md,*.png}.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
cd "$repo"
py="$(command -v python3)"
if ! "$py" -c 'import matplotlib, yarn_api_client' 2>/dev/null; then
  "$py" -m pip install -q matplotlib yarn-api-client
fi
if [ ! -f mapreduce/target/dist/ham-mapreduce.jar ]; then
  mvn -q -f mapreduce/pom.xml package -DskipTests
fi
if ! ls "$here"/work/yarn-lib/hadoop-yarn-server-resourcemanager-*.jar >/dev/null 2>&1; then
  mvn -q -f "$here/yarn/pom.xml" dependency:copy-dependencies
fi
# shellcheck disable=SC1091
[ -f /var/tmp/ham-cluster/env.sh ] && . /var/tmp/ham-cluster/env.sh
if ! scontrol ping 2>/dev/null | grep -q UP; then
  bash "$repo/docker/cluster.sh" up
  . /var/tmp/ham-cluster/env.sh
fi
exec "$py" "$here/run.py" "$@"
