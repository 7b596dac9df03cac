#!/usr/bin/env bash
# Plain Java against dd on this machine's disk, without Hadoop: 3 writers then 3 readers in
# parallel, 2 GB each, every step from a page cache dropped SETTLE seconds before (as the
# bench's dfsio case, hambench/chain.py cold_cache), writes until `sync` returns. Shows what
# a JVM's own I/O reaches here, so TestDFSIO's gap to dd can be placed (bench/README.md).
# Tools: java (FileOutputStream/FileInputStream: write(2)/read(2) through a native buffer),
# java-ham (as lustre:// writes a large file: O_DIRECT from a 4 MiB aligned buffer; reads
# through 64 MB mappings, as with ham.lustre.read.mmap=true), dd (buffered, conv=fdatasync),
# dd-direct (oflag=direct writes, reads as dd). reads.sh compares the readers alone.
#   bash bench/rawio/run.sh [ROUNDS] [DIR]   (root: drops the page cache)  > OUT.md
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
rounds=${1:-3} dir=${2:-$here/../work/rawio} mb=2048 settle=20
mkdir -p "$dir/classes"
javac -d "$dir/classes" "$here/RawIo.java"  # compiled once: the timed runs start a JVM only
cold() { sync; echo 3 > /proc/sys/vm/drop_caches; sleep "$settle"; }
now() { date +%s.%N; }
echo "# Plain Java vs dd, 3 x $mb MB in parallel ($(date -u '+%F %T') UTC, \`bash bench/rawio/run.sh $rounds\`)"
echo
echo "| round | tool | write MB/s (incl. sync) | read MB/s |"
echo "|---|---|---|---|"
for r in $(seq "$rounds"); do
  for tool in java java-ham dd dd-direct; do
    rm -f "$dir"/f?; cold; t0=$(now)
    for i in 0 1 2; do
      case $tool in
        java) java -cp "$dir/classes" RawIo write "$dir/f$i" $mb >/dev/null & ;;
        java-ham) java -cp "$dir/classes" RawIo direct "$dir/f$i" $mb >/dev/null & ;;
        dd) dd if=/dev/zero of="$dir/f$i" bs=1M count=$mb conv=fdatasync status=none & ;;
        dd-direct) dd if=/dev/zero of="$dir/f$i" bs=4M count=$((mb / 4)) oflag=direct \
          conv=fdatasync status=none & ;;
      esac
    done
    wait; sync; w=$(echo "3*$mb/($(now)-$t0)" | bc)
    cold; t0=$(now)
    for i in 0 1 2; do
      case $tool in
        java) java -cp "$dir/classes" RawIo read "$dir/f$i" $mb >/dev/null & ;;
        java-ham) java -cp "$dir/classes" RawIo mmap "$dir/f$i" $mb >/dev/null & ;;
        *) dd if="$dir/f$i" of=/dev/null bs=1M status=none & ;;
      esac
    done
    wait; rd=$(echo "3*$mb/($(now)-$t0)" | bc)
    echo "| $r | $tool | $w | $rd |"
  done
done
rm -rf "$dir"
