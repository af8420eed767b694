#!/usr/bin/env bash
# ZoneLab as a real Linux zoned block device, tested in a VM: builds the guest (vm/build.sh),
# boots it under QEMU (TCG: no KVM here), and checks what the guest reports. The guest serves
# experiments/ublk/vm.toml as /dev/ublkb0 with `zonelab ublk` and runs blkzone, fio (libaio and
# io_uring, zonemode=zbd, verify, resets, open-zone limits), fio's t/zbd/test-zbd-support, F2FS
# (mkfs -m with a null_blk for metadata, a file workload, fsck), db_bench on F2FS, and a ublk
# overhead measurement; see vm/guest/tests.sh. About 4 minutes on an idle 2-core machine; fails
# if any check fails or the guest does not finish within VM_TIMEOUT seconds (default 600: TCG
# slows down when the machine is shared). Logs and the device's results go to
# target/vm/out/. VM_TESTS=basic,fio,zbd,realtime,perf,f2fs picks groups (default: these; rezns, the real-F2FS
# traces of experiments/rezns/capture.sh, btrfs, btrfs in zoned mode, and zonefs, zonefs with
# zonefs-tools' test suite (give it VM_TIMEOUT=3000), only when named);
# ZBD_TESTS=all (or 1:2:5...) picks fio's zbd tests, ZBD_TIMEOUT their time limit.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out="$root/target/vm/out"
mapfile -t built < <(bash vm/build.sh)
kernel=${built[0]}
initrd=${built[1]}
rm -rf "$out" && mkdir -p "$out"
tests=${VM_TESTS:-basic,fio,zbd,realtime,perf,f2fs}
start=$(date +%s)
set +e
# Group rezns's scale (vm/guest/rezns.sh): RZ_ZONES, RZ_JOBS, RZ_LOOPS, RZ_DBNUM, RZ_WORKLOADS
# (a:b); its device keeps gigabytes of data in the guest's memory, hence more of it.
rz=""
for v in ZONES JOBS LOOPS DBNUM WORKLOADS; do
  n="RZ_$v"
  [ -z "${!n:-}" ] || rz="$rz rz${v,,}=${!n}"
done
mem=4096
[[ ",$tests," != *",rezns,"* ]] || mem=10240
timeout "${VM_TIMEOUT:-600}" qemu-system-x86_64 \
  -accel tcg -cpu max -smp 2 -m "${VM_MEM:-$mem}" \
  -kernel "$kernel" -initrd "$initrd" \
  -append "console=ttyS0 panic=-1 quiet loglevel=4 zltests=$tests zbdtests=${ZBD_TESTS:-} zbdtimeout=${ZBD_TIMEOUT:-300}$rz" \
  -display none -monitor none -no-reboot \
  -serial "file:$out/console.log" -serial "file:$out/results.log"
qrc=$?
set -e
secs=$(( $(date +%s) - start ))
tr -d '\r' <"$out/results.log" >"$out/results.txt"
# Files the guest sent: ZLFILE name ... ZLEND.
awk -v dir="$out" '
  /^ZLFILE / { name = $2; gsub(/\//, "_", name); f = dir "/" name; next }
  /^ZLEND$/ { f = ""; next }
  f != "" { print > f }' "$out/results.txt"
grep '^ZLTEST \(PASS\|FAIL\|SKIP\)' "$out/results.txt" | sed 's/^ZLTEST //' || true
grep '^ZLMEASURE' "$out/results.txt" | sed 's/^ZLMEASURE /measured: /' || true
pass=$(grep -c '^ZLTEST PASS' "$out/results.txt" || true)
fail=$(grep -c '^ZLTEST FAIL' "$out/results.txt" || true)
skip=$(grep -c '^ZLTEST SKIP' "$out/results.txt" || true)
done_=$(grep -c '^ZLTEST DONE' "$out/results.txt" || true)
echo "vm: qemu exit $qrc after ${secs} s; console in $out/console.log"
if [ "$done_" != 1 ]; then
  echo "vm: the guest did not finish its tests (timeout or crash); last console lines:" >&2
  tail -n 30 "$out/console.log" >&2
  fail=$((fail + 1))
fi
echo "vm: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
