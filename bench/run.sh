#!/usr/bin/env bash
# HAM benchmark suite, one command:  bash bench/run.sh [--smoke] [--rounds N] [--cases a,b] ...
# Brings up what it needs (Python deps, fio, YARN jars, the test cluster if it is down, data),
# then runs bench/run.py. Results: one directory per run, bench/results/<date>-<commit>/
# (results.json, results.md, *.png); see bench/README.md.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
cd "$repo"
# HAM itself, the bundled Hadoop and the test cluster's packages: the project's installer.
"$repo/docker/install.sh"
export PATH="$repo/.venv/bin:$PATH"
py="$repo/.venv/bin/python"
if ! "$py" -c 'import matplotlib, yarn_api_client' 2>/dev/null; then
  "$py" -m pip install -q --disable-pip-version-check matplotlib yarn-api-client
fi
# fio: one of the raw tools whose best is the physical limit of the I/O case (hambench/limit.py)
if ! command -v fio >/dev/null; then
  apt-get install -y -q fio >/dev/null || { apt-get update -q && apt-get install -y -q fio; }
fi
if ! ls "$here"/work/yarn-lib/hadoop-yarn-server-resourcemanager-*.jar >/dev/null 2>&1; then
  mvn -q -f "$here/yarn/pom.xml" dependency:copy-dependencies
fi
# The test cluster, unless every case asked for runs without Slurm (scale).
cases="" prev=""
for a in "$@"; do
  [ "$prev" = --cases ] && cases=$a
  case $a in --cases=*) cases=${a#--cases=} ;; esac
  prev=$a
done
if [ -z "$cases" ] || [ -n "$(printf '%s\n' "${cases//,/$'\n'}" | grep -vx -e scale -e '')" ]; then
  bash "$repo/tests/cluster-up.sh" --reuse  # keeps a running test cluster of the same shape
  # shellcheck disable=SC1091
  . /var/tmp/ham-cluster/env.sh
fi
exec "$py" "$here/run.py" "$@"
