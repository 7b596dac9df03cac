#!/bin/bash
# I/O profile of the map side and the shuffle: the sizes of the system calls task runners make
# on spills, file.out, the input and the part files, from strace, for one wordcount (26 MB,
# 8 MB splits, a 8 MB sort buffer so that maps spill several times, 2 reduces) run three ways:
# Hadoop's 4 KB io.file.buffer.size, HAM's defaults on file://, and lustre://.
#   bash bench/ioprofile/run.sh [WORKDIR]       (needs the test cluster and strace)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=${1:-$repo/bench/work/ioprofile}
export PATH="$repo/.venv/bin:$PATH"
. /var/tmp/ham-cluster/env.sh
rm -rf "$work" && mkdir -p "$work/shared" "$work/in"
python3 - "$work/in" <<'PY'
import random, sys
random.seed(3)
words = [f"w{i}" for i in range(50000)]
for f in range(2):
    with open(f"{sys.argv[1]}/f{f}.txt", "w") as out:
        for _ in range(200000):
            out.write(" ".join(random.choice(words) for _ in range(10)) + "\n")
PY
cat > "$work/strace-java" <<EOS
#!/bin/bash
exec strace -f -qq -y -e trace=read,write,pread64,pwrite64 -e abbrev=all -s 0 -o $work/trace.\$\$ java "\$@"
EOS
chmod +x "$work/strace-java"
ex=$(ls "$repo"/mapreduce/target/dist/share/hadoop/mapreduce/hadoop-mapreduce-examples-*.jar)
for variant in hadoop-4k ham-file ham-lustre; do
    rm -f "$work"/trace.*
    env=(HAM_SHARED_ROOT="$work/shared") extra=() in="$work/in" out="$work/out-$variant"
    case $variant in
        hadoop-4k) extra=(-D io.file.buffer.size=4096) ;;
        ham-lustre) env+=(HAM_FILESYSTEM=lustre HAM_LUSTRE_ROOT="$work"); in=/in; out=/out-$variant ;;
    esac
    env "${env[@]}" ham run -N 1 -- hadoop jar "$ex" wordcount -D ham.runner.java="$work/strace-java" \
        -D mapreduce.task.io.sort.mb=8 -D mapreduce.job.reduces=2 \
        -D mapreduce.input.fileinputformat.split.maxsize=8000000 "${extra[@]}" "$in" "$out" \
        > "$work/$variant.log" 2>&1
    echo "### $variant"
    python3 "$here/syscalls.py" "$work"
done
cmp <(cat "$work"/out-hadoop-4k/part-*) <(cat "$work"/out-ham-file/part-*)
cmp <(cat "$work"/out-hadoop-4k/part-*) <(cat "$work"/out-ham-lustre/part-*)
echo "outputs identical"
