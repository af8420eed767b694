#!/usr/bin/env bash
# Recaptures the real-F2FS traces under experiments/rezns/real-f2fs/traces/: boots the test VM
# (vm/test.sh, group rezns: vm/guest/rezns.sh) where Linux's F2FS runs the ReZNS paper's fio
# workloads (4 KiB random writes at QD1, fsync every 16, 64, 128 writes, three runs) and real
# db_bench on `zonelab ublk`, every device command traced, and keeps each trace gzipped with
# the guest's logs and the scale it ran at (scale.txt). The fields a replay and `zonelab
# trace-stats` do not read (start_ns, done_ns, zone, erase_wait_ns, source: the model's own
# output in the VM, which a replay computes again) are left empty, which halves the files.
# About 17 minutes on a 2-core machine (TCG, no KVM); RZ_ZONES, RZ_JOBS, RZ_LOOPS, RZ_DBNUM and
# RZ_WORKLOADS change the scale. `capture.sh --keep` only keeps what target/vm/out holds.
set -euo pipefail
cd "$(dirname "$0")/../.."
dest=experiments/rezns/real-f2fs/traces
out=target/vm/out
[ "${1:-}" = --keep ] || VM_TESTS=rezns VM_TIMEOUT=${VM_TIMEOUT:-3600} bash vm/test.sh
mkdir -p "$dest"
: >"$dest/scale.txt"
for w in fsync16 fsync64 fsync128 dbbench; do
  [ -f "$out/rezns-$w-trace.csv" ] || { echo "capture.sh: no trace of $w in $out" >&2; exit 1; }
  awk -F, 'BEGIN { OFS = "," } NR == 1 { print; next } { print $1, "", "", $4, $5, "", $7, $8, "", "", "", "", $13 }' \
    "$out/rezns-$w-trace.csv" | gzip -9 -n >"$dest/$w.csv.gz"
  cp "$out/rezns-$w.log" "$dest/$w.log"
  grep "^ZLMEASURE rezns_scale $w " "$out/results.txt" | sed 's/^ZLMEASURE rezns_scale //' >>"$dest/scale.txt"
done
cp "$out/rezns-mkfs.log" "$dest/mkfs.log"
ls -l "$dest"
