#!/usr/bin/env bash
# Recaptures the real-F2FS traces under experiments/rezns/real-f2fs/traces/: boots the test VM
# (vm/test.sh, group rezns: vm/guest/rezns.sh) where Linux's F2FS runs the ReZNS paper's fio
# workloads (4 KiB random writes at QD1, fsync every 16, 64, 128 writes, three runs), real
# db_bench and Filebench's varmail and fileserver (60 s each) on `zonelab ublk`, every device
# command traced, and keeps each trace gzipped with the guest's logs and the scale it ran at
# (scale.txt, one line per workload). Only the workloads the run traced are replaced: the other
# traces, their logs, their scale.txt lines and mkfs.log stay as they are (e.g. after
# `RZ_WORKLOADS=varmail:fileserver capture.sh`); it fails if the run traced none. The fields a
# replay and `zonelab trace-stats` do not read (start_ns, done_ns, zone, erase_wait_ns, source:
# the model's own output in the VM, which a replay computes again) are left empty, which halves
# the files.
# About 22 minutes on a 2-core machine (TCG, no KVM): 17 for fio's and db_bench's, 5 for
# Filebench's; RZ_ZONES, RZ_JOBS, RZ_LOOPS, RZ_DBNUM and RZ_WORKLOADS change the scale and the
# set (RZ_WORKLOADS=varmail:fileserver: Filebench's alone). `capture.sh --keep` only keeps what
# target/vm/out holds.
set -euo pipefail
cd "$(dirname "$0")/../.."
dest=experiments/rezns/real-f2fs/traces
out=target/vm/out
[ "${1:-}" = --keep ] || VM_TESTS=rezns VM_TIMEOUT=${VM_TIMEOUT:-3600} bash vm/test.sh
mkdir -p "$dest"
all="fsync16 fsync64 fsync128 dbbench varmail fileserver"
kept=() missing=()
for w in $all; do
  [ -f "$out/rezns-$w-trace.csv" ] || { missing+=("$w"); continue; }
  grep -q "^ZLMEASURE rezns_scale $w " "$out/results.txt" ||
    { echo "capture.sh: no scale line of $w in $out/results.txt" >&2; exit 1; }
  kept+=("$w")
done
[ ${#kept[@]} -gt 0 ] || { echo "capture.sh: no trace in $out" >&2; exit 1; }
[ ${#missing[@]} = 0 ] ||
  echo "capture.sh: no trace of ${missing[*]} in $out; their files in $dest stay as they are" >&2
old_scale=$(cat "$dest/scale.txt" 2>/dev/null || true)
for w in "${kept[@]}"; do
  awk -F, 'BEGIN { OFS = "," } NR == 1 { print; next } { print $1, "", "", $4, $5, "", $7, $8, "", "", "", "", $13 }' \
    "$out/rezns-$w-trace.csv" | gzip -9 -n >"$dest/$w.csv.gz"
  cp "$out/rezns-$w.log" "$dest/$w.log"
  # F2FS's own counters before and after the workload (debugfs f2fs/status), when the guest sent them.
  [ ! -f "$out/rezns-$w-f2fs-status.txt" ] || cp "$out/rezns-$w-f2fs-status.txt" "$dest/$w.f2fs-status.txt"
  # ... and every 5 s during it (the lines on where its space is).
  [ ! -f "$out/rezns-$w-f2fs-timeline.txt" ] || cp "$out/rezns-$w-f2fs-timeline.txt" "$dest/$w.f2fs-timeline.txt"
done
# scale.txt: the new line of each workload kept, the old line of the others, in the order above.
for w in $all; do
  if [[ " ${kept[*]} " == *" $w "* ]]; then
    grep "^ZLMEASURE rezns_scale $w " "$out/results.txt" | sed 's/^ZLMEASURE rezns_scale //'
  else
    printf '%s\n' "$old_scale" | grep "^$w " || true
  fi
done >"$dest/scale.txt.new"
mv "$dest/scale.txt.new" "$dest/scale.txt"
# mkfs.log (the same for every workload): replaced only by a run that traced the first four.
if [ ! -f "$dest/mkfs.log" ] || [[ " ${kept[*]} " == *" fsync16 fsync64 fsync128 dbbench "* ]]; then
  cp "$out/rezns-mkfs.log" "$dest/mkfs.log"
fi
ls -l "$dest"
