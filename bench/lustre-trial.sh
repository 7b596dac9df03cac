#!/usr/bin/env bash
# wordcount and terasort on `lustre://` against `file://`, the same files, pairs alternated:
# is HAM's Lustre file system at least as fast for real jobs (issue 13), beyond the noise of
# the full run's 3 rounds?
#   bash bench/lustre-trial.sh [ROUNDS [OUT]]   -> OUT/results.md (bench/results/lustre-trial)
#   LUSTRE_OPTS="-Dkey=value ..." bash bench/lustre-trial.sh ...   (lustre:// jobs only: an A/B
#   of a lustre:// setting against file://, e.g. -Dham.lustre.record.buffer.size=4194304)
# ROUNDS (default 5) rounds of four jobs each: wordcount (64 MiB in 4 files, the bench's text)
# and terasort (1.5 M rows of one teragen, 3 reduces), each once per file system, the order
# flipped every round (file first, then lustre first) so that a drift of the machine's speed
# falls on both. One directory is both `lustre_root` and the `file://` paths. Times: the job's
# own (status.json start to finish), the whole `ham run`, and that plus a `sync` right after it
# (the output on disk: lustre:// writes a large file's bytes past 16 MiB with direct I/O and
# honours TeraSort's hsync, where file:// leaves them in the page cache); every output is
# compared with the other file system's, byte for byte.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
rounds=${1:-5}
work="$here/work/lustre-trial"
out="${2:-$here/results/lustre-trial}"
lustre_opts=(${LUSTRE_OPTS:-})
rm -rf "$work" && mkdir -p "$work/shared" "$work/runs" "$out"
bash "$repo/tests/cluster-up.sh" --reuse >/dev/null
# shellcheck disable=SC1091
. /var/tmp/ham-cluster/env.sh
export HAM_SHARED_ROOT="$work/shared"
ham="$repo/.venv/bin/ham"
py="$repo/.venv/bin/python"
examples=$(ls "$repo"/mapreduce/target/dist/share/hadoop/mapreduce/hadoop-mapreduce-examples-*.jar)
text=$(cd "$here" && "$py" -c 'from hambench.data import wordcount_input; print(wordcount_input(64, 4))')
cp -r "$text" "$work/text"

# job FS NAME PROGRAM ARGS...: one `ham run` on file:// or lustre:// (absolute paths are under
# $work, named lustre:///... or as files; LUSTRE_OPTS after PROGRAM on lustre://), kept under
# runs/FS-NAME-N (its status.json, its times and its output, which is the last argument); the
# run's name is left in $run.
job() {
  local fs=$1 name=$2; shift 2
  local args=("$1") p s e
  if [[ $fs == lustre ]]; then args+=("${lustre_opts[@]}"); fi
  shift
  for p in "$@"; do
    if [[ $p == /* && $fs == lustre ]]; then
      args+=("lustre://$p")
    elif [[ $p == /* ]]; then
      args+=("$work$p")
    else
      args+=("$p")
    fi
  done
  run="$fs-$name-$(($(ls "$work/runs" | wc -l) + 1))"
  s=$(date +%s.%N)
  (cd "$work" && HAM_FILESYSTEM=$fs HAM_LUSTRE_ROOT=$work "$ham" run -N 3 -- \
    hadoop jar "$examples" "${args[@]}" >"$work/last.log" 2>&1) \
    || { tail "$work/last.log" >&2; exit 1; }
  e=$(date +%s.%N)
  sync
  synced=$(date +%s.%N)
  mkdir -p "$work/runs/$run"
  cp "$(ls -td "$work"/shared/*/*/ | head -1)"jobs/*/status.json "$work/runs/$run/"
  echo "$s $e $synced" >"$work/runs/$run/wall"
  mv "$work${*: -1}" "$work/runs/$run/out"
}

sync
job file teragen teragen -Dmapreduce.job.maps=3 1500000 /gen
mv "$work/runs/$run/out" "$work/gen"
runs=()
for r in $(seq "$rounds"); do
  order=(file lustre)
  if (( r % 2 == 0 )); then order=(lustre file); fi
  for fs in "${order[@]}"; do
    job "$fs" wordcount wordcount /text "/out-$fs" && runs+=("$run")
    job "$fs" terasort terasort -Dmapreduce.job.reduces=3 /gen "/out-$fs" && runs+=("$run")
  done
  for name in wordcount terasort; do
    a=$(ls -td "$work"/runs/file-$name-* | head -1)
    b=$(ls -td "$work"/runs/lustre-$name-* | head -1)
    diff -r -x '_SUCCESS' -x '.*.crc' "$a/out" "$b/out" >/dev/null \
      || { echo "round $r: $name outputs differ between file:// and lustre://" >&2; exit 1; }
  done
done

"$py" - "$out/results.md" "$rounds" "${LUSTRE_OPTS:-}" "$work/runs" "${runs[@]}" <<'PY'
import datetime, json, statistics, sys
out, rounds, opts, root, runs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
times = {}  # (job, fs) -> [(job s, wall s)] in round order
for run in runs:
    fs, name, _ = run.split("-")
    st = json.load(open(f"{root}/{run}/status.json"))
    s, e, synced = map(float, open(f"{root}/{run}/wall").read().split())
    times.setdefault((name, fs), []).append(
        ((st["finish_time"] - st["start_time"]) / 1000, e - s, synced - s))
with open(out, "w") as f:
    f.write("# wordcount and terasort: `lustre://` against `file://`\n\n")
    env = f'LUSTRE_OPTS="{opts}" ' if opts else ""
    f.write(f"Command: `{env}bash bench/lustre-trial.sh {rounds}` ({datetime.datetime.now():%Y-%m-%d %H:%M}"
            " UTC); 3 nodes x 1 runner on the 2-core machine, the same files through both file"
            " systems, the order flipped every round; outputs identical in every round.\n\n")
    f.write("| job | time | file:// median (s) | lustre:// median (s) | lustre/file, median "
            "of the rounds' ratios | rounds lustre faster |\n|---|---|---|---|---|---|\n")
    for name in ("wordcount", "terasort"):
        for i, what in enumerate(("job (status.json)", "`ham run`", "`ham run` + `sync`")):
            a = [t[i] for t in times[(name, "file")]]
            b = [t[i] for t in times[(name, "lustre")]]
            ratios = [y / x for x, y in zip(a, b)]
            f.write(f"| {name} | {what} | {statistics.median(a):.2f} | {statistics.median(b):.2f}"
                    f" | {statistics.median(ratios):.3f} | {sum(r < 1 for r in ratios)} of"
                    f" {len(ratios)} |\n")
    f.write("\nJob seconds, round by round (file / lustre): " + "; ".join(
        f"{name} " + ", ".join(f"{x[0]:.2f}/{y[0]:.2f}" for x, y in
                               zip(times[(name, "file")], times[(name, "lustre")]))
        for name in ("wordcount", "terasort")) + "\n")
print(open(out).read())
PY
