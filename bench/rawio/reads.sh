#!/usr/bin/env bash
# Cold parallel reads only, the ways a reader can take in turn on the same files: dd, dd with
# O_DIRECT in 4 MiB blocks (ddirect: what lustre:// does past a file's first 16 MiB, see
# DirectReads), Java read(2) (lustre:// with ham.lustre.read.direct.after=-1) and Java through
# 64 MB mappings (lustre:// with ham.lustre.read.mmap=true), each from a page cache dropped SETTLE seconds before (as
# run.sh). Files: 3 x 2 GB written by dd (buffered) and 3 x 2 GB written with O_DIRECT (as
# lustre:// writes a large file), so that a difference of layout would show too. Alternating
# the readers on the same files takes the disk's drift between steps out of the comparison.
#   bash bench/rawio/reads.sh [ROUNDS] [DIR]   (root: drops the page cache)  > OUT.md
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
rounds=${1:-2} dir=${2:-$here/../work/rawio-reads} mb=2048 settle=20
mkdir -p "$dir/classes"
javac -d "$dir/classes" "$here/RawIo.java"
cold() { sync; echo 3 > /proc/sys/vm/drop_caches; sleep "$settle"; }
now() { date +%s.%N; }
rm -f "$dir"/[AB]?
cold
for i in 0 1 2; do dd if=/dev/zero of="$dir/A$i" bs=1M count=$mb conv=fdatasync status=none & done
wait
for i in 0 1 2; do java -cp "$dir/classes" RawIo direct "$dir/B$i" $mb >/dev/null & done
wait; sync
echo "# Cold parallel reads, 3 x $mb MB ($(date -u '+%F %T') UTC, \`bash bench/rawio/reads.sh $rounds\`)"
echo
echo "Files A: written by dd (buffered), $(filefrag "$dir/A0" | sed 's/.*: //') in A0;"
echo "files B: written with O_DIRECT, $(filefrag "$dir/B0" | sed 's/.*: //') in B0."
echo
echo "| round | reader | files | read MB/s |"
echo "|---|---|---|---|"
for r in $(seq "$rounds"); do
  for step in dd:A ddirect:A dd:B ddirect:B read:A mmap:A mmap:B read:B; do
    tool=${step%%:*} files=${step##*:}
    cold; t0=$(now)
    for i in 0 1 2; do
      f="$dir/$files$i"
      case $tool in
        dd) dd if="$f" of=/dev/null bs=1M status=none & ;;
        ddirect) dd if="$f" of=/dev/null bs=4M iflag=direct status=none & ;;
        *) java -cp "$dir/classes" RawIo "$tool" "$f" $mb >/dev/null & ;;
      esac
    done
    wait
    echo "| $r | $tool | $files | $(echo "3*$mb/($(now)-$t0)" | bc) |"
  done
done
rm -f "$dir"/[AB]?
