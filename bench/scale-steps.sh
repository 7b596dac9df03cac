#!/usr/bin/env bash
# The scale case (bench/hambench/scale.py) once per commit, each with its own build of HAM, to
# measure driver changes one at a time: bench/results/scale-steps/<n>-<commit>/.
#   bash bench/scale-steps.sh COMMIT... [-- bench/run.py options, e.g. --scale-maps 10000]
# Each commit's mapreduce/ is exported (git archive) to bench/work/steps/<commit> and built
# there (mvn -o package -DskipTests); the harness is this tree's (ScaleBench measures every
# version of the driver's record API). No Slurm needed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
commits=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do commits+=("$1"); shift; done
[ "${1:-}" = -- ] && shift
n=0
for c in "${commits[@]}"; do
  sha=$(git -C "$repo" rev-parse --short "$c")
  src="$here/work/steps/$sha"
  if [ ! -x "$src/mapreduce/target/dist/bin/hadoop" ]; then
    rm -rf "$src" && mkdir -p "$src"
    git -C "$repo" archive "$sha" mapreduce | tar -x -C "$src"
    mvn -q -B -o -f "$src/mapreduce/pom.xml" package -DskipTests
  fi
  "$repo/.venv/bin/python" "$here/run.py" --cases scale --scale-dist "$src/mapreduce/target/dist" \
    --out "$here/results/scale-steps/$n-$sha" "$@"
  n=$((n + 1))
done
