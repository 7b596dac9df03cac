#!/usr/bin/env bash
# A start-up trial on the test cluster: the same sleep job with variants of HAM's settings in
# alternating rounds, each job's start-up split from its own files (bench/hambench/trial.py).
#   bash bench/startup-trial.sh --out DIR [--rounds N] [--maps M] VARIANT...
# VARIANT: NAME or NAME:SETTINGS, SETTINGS comma-separated ENV=VALUE or -Dkey=value, e.g.
#   bash bench/startup-trial.sh --out bench/results/early-runners \
#     late:-Dham.runners.early=false early
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
work="$here/work/startup-trial"
rm -rf "$work" && mkdir -p "$work"
bash "$repo/tests/cluster-up.sh" --reuse >/dev/null
# shellcheck disable=SC1091
. /var/tmp/ham-cluster/env.sh
export PATH="$repo/.venv/bin:$PATH"
jar=$(ls "$repo"/mapreduce/target/dist/share/hadoop/mapreduce/hadoop-mapreduce-client-jobclient-*-tests.jar)
exec python "$here/hambench/trial.py" --work "$work" --jar "$jar" "$@"
