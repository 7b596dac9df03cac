#!/usr/bin/env bash
# HAM's jobs on the test cluster's network file system (GlusterFS, a client per node, bytes over
# TCP; docker/netfs.sh) against the same cluster with everything on a directory of this machine
# (every node sees it through one kernel and one page cache), pairs alternated in one run; and
# TestDFSIO on the network file system against `dd` through the same mount (issue 29, item 7).
#   bash bench/netfs-trial.sh [ROUNDS [OUT [JOBS [ROOTS]]]]  -> OUT/results.md (results/netfs-trial)
# Each round runs, once on each root, the order flipped every round: wordcount (64 MiB of the
# bench's text in 4 files), terasort (500,000 rows of one teragen, 3 reduces), TestDFSIO
# -write then -read (3 files of 64 MB: one map per node), and maps: wordcount over 300
# one-line files (300 maps, 3 reduces; the per-task cost, mostly metadata calls). JOBS, a
# space-separated subset of "wordcount terasort dfsio maps", runs only those (default all;
# the dd limit runs with dfsio). ROOTS, default "local net", may also name netwd: the network
# file system with the runners' working directories on it too (runner_local_dir = none, as
# before they were node-local), and netserial: the network file system with each reduce's
# check and read of the map outputs one map at a time (mapreduce.reduce.shuffle.parallelcopies=1,
# as before they went several at once); each root after the first is reported against the first.
# Inputs are copied to every root first; outputs are compared between the roots every round. The limit for TestDFSIO is `dd`
# with the same parallelism: one 64 MB stream per node at once (srun -N3), through each node's
# own client, buffered with an fsync before close and with O_DIRECT, the better of the two; the
# page cache is dropped before every read (the brick's files are on this machine's disk).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
cmd="bash bench/netfs-trial.sh $*"
rounds=${1:-3}
out="${2:-$here/results/netfs-trial}"
jobs=" ${3:-wordcount terasort dfsio maps} "
for j in $jobs; do
  [[ " wordcount terasort dfsio maps " == *" $j "* ]] \
    || { echo "netfs-trial.sh: unknown job '$j' (wordcount, terasort, dfsio, maps)" >&2; exit 2; }
done
wants() { [[ $jobs == *" $1 "* ]]; }
read -r -a roots <<<"${4:-local net}"
for fs in "${roots[@]}"; do
  [[ " local net netwd netserial " == *" $fs "* ]] \
    || { echo "netfs-trial.sh: unknown root '$fs' (local, net, netwd, netserial)" >&2; exit 2; }
done
(( ${#roots[@]} >= 2 )) && [[ $(printf '%s\n' "${roots[@]}" | sort -u | wc -l) == "${#roots[@]}" ]] \
  || { echo "netfs-trial.sh: ROOTS wants two or three different roots, got '${4:-}'" >&2; exit 2; }
bash "$repo/tests/cluster-up.sh" --reuse >/dev/null
# shellcheck disable=SC1091
. "${HAM_CLUSTER_DIR:-/var/tmp/ham-cluster}/env.sh"
[[ $HAM_CLUSTER_FS == gluster-* ]] || { echo "the test cluster is not on GlusterFS ($HAM_CLUSTER_FS)" >&2; exit 1; }
local_root=/var/tmp/ham-netfs-trial
net_root="$HAM_CLUSTER_SHARED/netfs-trial"
netwd_root="$HAM_CLUSTER_SHARED/netfs-trial-wd"
serial_root="$HAM_CLUSTER_SHARED/netfs-trial-serial"
runs="$here/work/netfs-trial"
rm -rf "$local_root" "$net_root" "$netwd_root" "$serial_root" "$runs"
mkdir -p "$runs" "$out"
ham="$repo/.venv/bin/ham"
py="$repo/.venv/bin/python"
dist="$repo/mapreduce/target/dist/share/hadoop/mapreduce"
examples=$(ls "$dist"/hadoop-mapreduce-examples-*.jar)
jobclient=$(ls "$dist"/hadoop-mapreduce-client-jobclient-*-tests.jar)
text=$(cd "$here" && "$py" -c 'from hambench.data import wordcount_input; print(wordcount_input(64, 4))' | tail -1)
lines=$(cd "$here" && "$py" -c 'from hambench.data import oneline_files; print(oneline_files(300))' | tail -1)
root_of() {
  case $1 in
    local) echo "$local_root" ;; net) echo "$net_root" ;; netwd) echo "$netwd_root" ;;
    *) echo "$serial_root" ;;
  esac
}
for fs in "${roots[@]}"; do
  r=$(root_of "$fs")
  mkdir -p "$r/shared"
  cp -r "$text" "$r/text"
  cp -r "$lines" "$r/lines"
done

# job FS NAME ARGS...: one `ham run -N 3` with everything (shared root, input, output) under
# FS's root; its status.json and times kept under runs/FS-NAME-N.
job() {
  local fs=$1 name=$2; shift 2
  local r s e local_dir=/tmp
  r=$(root_of "$fs")
  run="$fs-$name-$(($(ls "$runs" | wc -l) + 1))"
  s=$(date +%s.%N)
  [[ $fs == netwd ]] && local_dir=none
  # generic options go after the jar and the program's name
  [[ $fs == netserial ]] && set -- "$1" "$2" -Dmapreduce.reduce.shuffle.parallelcopies=1 "${@:3}"
  (cd "$r" && HAM_SHARED_ROOT="$r/shared" HAM_RUNNER_LOCAL_DIR=$local_dir \
    "$ham" run -N 3 -- hadoop jar "$@" >"$runs/last.log" 2>&1) \
    || { tail -20 "$runs/last.log" >&2; exit 1; }
  e=$(date +%s.%N)
  mkdir -p "$runs/$run"
  cp "$(ls -td "$r"/shared/*/*/ | head -1)"jobs/*/status.json "$runs/$run/"
  cp "$runs/last.log" "$runs/$run/client.log"
  echo "$s $e" >"$runs/$run/wall"
}

drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }

# dd_streams FS MODE: one 64 MB dd per node at once under FS's root; MB/s of each stream
dd_streams() {
  local r flags
  r=$(root_of "$1")/dd
  mkdir -p "$r"
  case $2 in
    write) flags="if=/dev/zero of=$r/f-\$SLURMD_NODENAME bs=1M count=64 conv=fsync" ;;
    write-direct) flags="if=/dev/zero of=$r/f-\$SLURMD_NODENAME bs=1M count=64 oflag=direct" ;;
    read) drop_caches; flags="if=$r/f-\$SLURMD_NODENAME of=/dev/null bs=1M" ;;
    read-direct) drop_caches; flags="if=$r/f-\$SLURMD_NODENAME of=/dev/null bs=1M iflag=direct" ;;
  esac
  srun -N3 --ntasks-per-node=1 sh -c "dd $flags 2>&1 | tail -1" |
    awk '{for (i = 1; i < NF; i++) if ($(i + 1) ~ /^s,?$/) t = $i; printf "%.1f ", 64 * 1.048576 / t}'
  echo
}

for r in $(seq "$rounds"); do
  order=("${roots[@]}")
  if (( r % 2 == 0 )); then mapfile -t order < <(printf '%s\n' "${roots[@]}" | tac); fi
  for fs in "${order[@]}"; do
    root=$(root_of "$fs")
    rm -rf "$root"/out-* "$root/gen" "$root/dfsio"
    if wants wordcount; then
      job "$fs" wordcount "$examples" wordcount "$root/text" "$root/out-wc"
    fi
    if wants terasort; then
      job "$fs" teragen "$examples" teragen -Dmapreduce.job.maps=3 500000 "$root/gen"
      job "$fs" terasort "$examples" terasort -Dmapreduce.job.reduces=3 "$root/gen" "$root/out-ts"
    fi
    if wants maps; then
      job "$fs" maps "$examples" wordcount -Dmapreduce.job.reduces=3 "$root/lines" "$root/out-maps"
    fi
    wants dfsio || continue
    job "$fs" dfsiowrite "$jobclient" TestDFSIO -Dtest.build.data="$root/dfsio" -write -nrFiles 3 -size 64MB
    drop_caches
    job "$fs" dfsioread "$jobclient" TestDFSIO -Dtest.build.data="$root/dfsio" -read -nrFiles 3 -size 64MB
    if [[ $fs == net ]]; then
      for mode in write write-direct read read-direct; do
        echo "$fs $mode $(dd_streams "$fs" "$mode")" >>"$runs/dd"
      done
    fi
  done
  first=$(root_of "${roots[0]}")
  for o in out-wc out-ts out-maps; do
    [[ -d $first/$o ]] || continue
    for fs in "${roots[@]:1}"; do
      diff -r -x '_SUCCESS' -x '.*.crc' "$first/$o" "$(root_of "$fs")/$o" >/dev/null \
        || { echo "round $r: $o differs between the roots ${roots[0]} and $fs" >&2; exit 1; }
    done
  done
done

"$py" - "$out/results.md" "$rounds" "$runs" "$cmd" "${roots[@]}" <<'PY'
import datetime, json, pathlib, re, statistics, sys
out, rounds, root = sys.argv[1], int(sys.argv[2]), pathlib.Path(sys.argv[3])
roots = sys.argv[5:]
label = {"local": "local dir", "net": "network fs",
         "netwd": "network fs, runners' work dirs on it (runner_local_dir = none)",
         "netserial": "network fs, reduces check and read map outputs one at a time (parallelcopies=1)"}
job_s, dfsio = {}, {}  # (name, fs) -> [job seconds], [TestDFSIO per-stream MB/s] in round order
map_ms, reduce_ms = {}, {}  # fs -> [median map / reduce attempt ms of the many-map job] by round
for run in sorted((p for p in root.iterdir() if p.is_dir()), key=lambda p: int(p.name.split("-")[-1])):
    fs, name, _ = run.name.split("-")
    st = json.loads((run / "status.json").read_text())
    job_s.setdefault((name, fs), []).append((st["finish_time"] - st["start_time"]) / 1000)
    if name == "maps":
        for kind, into in (("MAP", map_ms), ("REDUCE", reduce_ms)):
            into.setdefault(fs, []).append(statistics.median(
                a["finish"] - a["start"] for a in st["attempts"] if a["type"] == kind))
    m = re.search(r"Throughput mb/sec: ([\d.]+)", (run / "client.log").read_text())
    if m:
        dfsio.setdefault((name, fs), []).append(float(m.group(1)))
dd = {}  # (fs, mode) -> per-round mean MB/s of the three streams
for line in ((root / "dd").read_text().splitlines() if (root / "dd").exists() else []):
    fs, mode, *rates = line.split()
    dd.setdefault((fs, mode), []).append(statistics.mean(map(float, rates)))
med = statistics.median
with open(out, "w") as f:
    f.write("# HAM on a network file system (GlusterFS, strict profile): "
            + " against ".join(label[r] for r in reversed(roots)) + "\n\n")
    f.write(f"Command: `{sys.argv[4]}` ({datetime.datetime.now():%Y-%m-%d %H:%M} UTC);"
            " one run, 3 nodes on the 2-core machine, every root in every round, the order flipped"
            " every round; the outputs of each job run (wordcount, terasort, the many-map wordcount"
            " `maps`) identical between the roots in every round.\n\n")
    base = roots[0]
    f.write("| job | " + " | ".join(f"{label[r]}: median job s" for r in roots) + " | "
            + " | ".join(f"{r}/{base}, median of the rounds' ratios" for r in roots[1:]) + " |\n|"
            + "---|" * (1 + 2 * len(roots) - 1) + "\n")

    def row(name, series, fmt):
        cells = [format(med(series[r]), fmt) for r in roots]
        ratios = [f"{med([y / x for x, y in zip(series[base], series[r])]):.2f}" for r in roots[1:]]
        f.write(f"| {name} | " + " | ".join(cells + ratios) + " |\n")

    for name in ("wordcount", "teragen", "terasort", "maps", "dfsiowrite", "dfsioread"):
        if (name, base) in job_s:
            row(name, {r: job_s[(name, r)] for r in roots}, ".2f")
    if map_ms:
        row("maps: median map attempt, ms", map_ms, ".0f")
        row("maps: median reduce attempt, ms", reduce_ms, ".0f")
    if dd:  # the TestDFSIO section, when dfsio ran
        f.write("\nTestDFSIO (3 files of 64 MB, one map a node) on the network file system against `dd`"
                " through the same mount, one 64 MB stream per node at once; MB/s per stream, medians of"
                " the rounds. (No such limit for the local directory: TestDFSIO's writes end in its page"
                " cache, which a `dd` that syncs cannot match and one that does not measures memory.)\n\n")
        f.write("| | TestDFSIO | dd buffered (+fsync) | dd O_DIRECT | limit (the better dd) |"
                " TestDFSIO / limit |\n|---|---|---|---|---|---|\n")
        for op, name in (("write", "dfsiowrite"), ("read", "dfsioread")):
            t = med(dfsio[(name, "net")])
            b, o = med(dd[("net", op)]), med(dd[("net", op + "-direct")])
            f.write(f"| {op} | {t:.1f} | {b:.1f} | {o:.1f} | {max(b, o):.1f} | {t / max(b, o):.2f} |\n")
print(open(out).read())
PY
