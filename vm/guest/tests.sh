#!/bin/bash
# The tests the guest runs on ZoneLab's zoned ublk device, /dev/ublkb0. Progress goes to the
# console (ttyS0); one line per check goes to ttyS1 as `ZLTEST PASS|FAIL|SKIP name detail`,
# measurements as `ZLMEASURE ...`, files as `ZLFILE name` ... `ZLEND`, and `ZLTEST DONE` last.
# vm/test.sh reads ttyS1 and fails on any FAIL or a missing DONE.
# ZLTESTS (kernel command line: zltests=a,b) limits the groups run: basic, fio, zbd, f2fs, perf.

export PATH=/bin
OUT=/dev/ttyS1
stty -F "$OUT" -opost 2>/dev/null
DEV=/dev/ublkb0
B=$(basename "$DEV")
ZONE_SECTORS=131072      # experiments/ublk/vm.toml: 64 MiB zones
CAP_SECTORS=98304        # 48 MiB capacity
NR_ZONES=32
groups=$(sed -n 's/.*zltests=\([^ ]*\).*/\1/p' /proc/cmdline)
groups=${groups:-basic,fio,zbd,f2fs,perf}
want() { [[ ",$groups," == *",$1,"* ]]; }

say() { echo "[$(printf '%4d' "$SECONDS") s] $*"; }
emit() { echo "$*" >"$OUT"; }
result() { # STATUS NAME DETAIL...
  local status=$1 name=$2; shift 2
  emit "ZLTEST $status $name $*"
  say "$status $name $*"
}
check() { # NAME DETAIL -- command...   ($LOG: a file to show when the check fails)
  local name=$1 detail=$2; shift 3
  if "$@"; then
    result PASS "$name" "$detail"
  else
    result FAIL "$name" "$detail"
    [ -n "${LOG:-}" ] && [ -f "$LOG" ] && tail -n 40 "$LOG"
  fi
  LOG=
}
send_file() { # PATH NAME
  [ -f "$1" ] || return 0
  emit "ZLFILE $2"
  cat "$1" >"$OUT"
  emit "ZLEND"
}

# `blkzone report` as "start wptr cap cond" per zone (start and cap in sectors, wptr from the
# zone start, cond the kernel's code).
zones() {
  blkzone report "$DEV" "$@" |
    sed -n 's/.*start: \(0x[0-9a-f]*\), len 0x[0-9a-f]*, cap \(0x[0-9a-f]*\), wptr \(0x[0-9a-f]*\).*zcond: *\([0-9]*\)(.*/\1 \3 \2 \4/p' |
    while read -r s w c k; do echo "$((s)) $((w)) $((c)) $k"; done
}
zone() { zones -o $(($1 * ZONE_SECTORS)) -c 1; }
cond_of() { zone "$1" | cut -d' ' -f4; }
wp_of() { zone "$1" | cut -d' ' -f2; }

fio_run() { # LOG fio-args...
  local log=$1; shift
  fio --filename="$DEV" --direct=1 --zonemode=zbd --thread=1 "$@" >"$log" 2>&1
}

say "guest up: $(uname -r), $(nproc) CPUs, $(free -m | awk '/Mem:/ {print $2}') MiB"
# ---------------------------------------------------------------------------------------------
zonelab ublk /exp/vm.toml --id 0 -o /results/zonelab >/tmp/zonelab.log 2>&1 &
ZPID=$!
for _ in $(seq 300); do
  [ -f /run/zonelab-ublk/ublkb0.pid ] && [ -b "$DEV" ] && break
  sleep 0.1
done
check server.start "zonelab ublk serves $DEV" -- \
  test -b "$DEV" -a "$(cat /sys/block/$B/queue/zoned 2>/dev/null)" = host-managed
if [ ! -b "$DEV" ]; then
  cat /tmp/zonelab.log
  send_file /tmp/zonelab.log zonelab.log
  emit "ZLTEST DONE"
  exit 1
fi
q=/sys/block/$B/queue
say "$(head -n 2 /tmp/zonelab.log | tail -n 1)"

if want basic; then
  check sysfs.limits "nr_zones=$(cat $q/nr_zones) chunk=$(cat $q/chunk_sectors) open=$(cat $q/max_open_zones) active=$(cat $q/max_active_zones) lbs=$(cat $q/logical_block_size)" -- \
    test "$(cat $q/nr_zones) $(cat $q/chunk_sectors) $(cat $q/max_open_zones) $(cat $q/max_active_zones) $(cat $q/logical_block_size)" = "$NR_ZONES $ZONE_SECTORS 14 14 4096"
  check sysfs.append "zone_append_max_bytes=$(cat $q/zone_append_max_bytes)" -- \
    test "$(cat $q/zone_append_max_bytes)" -gt 0
  zones >/tmp/z0
  check blkzone.report "$(wc -l </tmp/z0) zones, all empty, cap $CAP_SECTORS sectors" -- \
    test "$(wc -l </tmp/z0)" = $NR_ZONES -a \
      "$(awk -v c=$CAP_SECTORS -v z=$ZONE_SECTORS '$1 != (NR-1)*z || $2 != 0 || $3 != c || $4 != 1' /tmp/z0 | wc -l)" = 0
  # Plain sequential writes at the write pointers (fio's zbd mode wants whole zones).
  fio_run /tmp/w0.log --name=w --rw=write --bs=1M --offset=0 --size=4M --zonemode=none
  fio_run /tmp/w1.log --name=w --rw=write --bs=1M --offset=64M --size=2M --zonemode=none
  cat /tmp/w0.log >/tmp/w.log; cat /tmp/w1.log >>/tmp/w.log
  LOG=/tmp/w.log check blkzone.write_pointer "zone 0 wptr $(wp_of 0), zone 1 wptr $(wp_of 1), conds $(cond_of 0)/$(cond_of 1)" -- \
    test "$(wp_of 0) $(wp_of 1) $(cond_of 0) $(cond_of 1)" = "8192 4096 2 2"
  blkzone reset -o 0 -c 1 "$DEV"
  check blkzone.reset_one "zone 0 $(zone 0), zone 1 $(zone 1)" -- \
    test "$(wp_of 0) $(cond_of 0) $(wp_of 1)" = "0 1 4096"
  blkzone open -o $((2 * ZONE_SECTORS)) -c 1 "$DEV"
  c2=$(cond_of 2)
  blkzone close -o $((1 * ZONE_SECTORS)) -c 1 "$DEV"
  c1=$(cond_of 1)
  blkzone finish -o $((1 * ZONE_SECTORS)) -c 1 "$DEV"
  check blkzone.open_close_finish "open: $c2 (3), close: $c1 (4), finish: $(zone 1) (14)" -- \
    test "$c2 $c1 $(cond_of 1) $(wp_of 1)" = "3 4 14 $CAP_SECTORS"
  blkzone reset "$DEV"
  check blkzone.reset_all "$(zones | awk '$4 != 1' | wc -l) zones not empty" -- \
    test "$(zones | awk '$2 != 0 || $4 != 1' | wc -l)" = 0
  # A write off the write pointer fails as a ZNS SSD's would (EIO), and changes nothing.
  fio_run /tmp/bad.log --name=bad --rw=write --bs=4k --offset=4096 --size=4k --zonemode=none
  check errno.invalid_write "$(grep -o 'error=[^:]*' /tmp/bad.log | head -n 1)" -- \
    grep -q 'error=Input/output error' /tmp/bad.log
fi

if want fio; then
  for engine in libaio io_uring; do
    fio_run /tmp/seq.log --name=seq --ioengine=$engine --iodepth=8 --rw=write --bs=128k \
      --offset=0 --size=256M --verify=crc32c --do_verify=1
    check fio.$engine.seq_write_verify "$(grep -m1 -o 'WRITE: bw=[^,]*' /tmp/seq.log)" -- \
      grep -q 'WRITE: bw' /tmp/seq.log
    fio_run /tmp/rand.log --name=rand --ioengine=$engine --iodepth=16 --rw=randwrite --bs=16k \
      --offset=256M --size=512M --io_size=96M --max_open_zones=4 --verify=crc32c
    check fio.$engine.rand_write_verify "$(grep -m1 -o 'WRITE: bw=[^,]*' /tmp/rand.log)" -- \
      grep -q 'WRITE: bw' /tmp/rand.log
  done
  # Two zones written three times over: fio resets each zone before it writes it again.
  fio_run /tmp/reset.log --name=wrap --ioengine=libaio --iodepth=4 --rw=write --bs=256k \
    --offset=768M --size=128M --io_size=288M --verify=crc32c
  resets=$(sed -n 's/^.*write:[^;]*; \([0-9]*\) zone resets$/\1/p' /tmp/reset.log)
  check fio.zone_resets "${resets:-0} zone resets" -- test "${resets:-0}" -ge 2
  fio_run /tmp/mo.log --name=mo --ioengine=libaio --iodepth=16 --rw=randwrite --bs=64k \
    --offset=0 --size=2G --io_size=128M --max_open_zones=14
  check fio.max_open_zones_14 "$(grep -m1 -o 'WRITE: bw=[^,]*' /tmp/mo.log)" -- \
    grep -q 'WRITE: bw' /tmp/mo.log
  fio_run /tmp/mo2.log --name=mo --ioengine=libaio --rw=randwrite --bs=64k --size=64M \
    --max_open_zones=15
  check fio.max_open_zones_over_limit "fio refuses 15 > 14: $(grep -m1 -io 'max_open_zones[^\n]*' /tmp/mo2.log | head -c 100)" -- \
    grep -qi 'max_open_zones' /tmp/mo2.log
  for f in /tmp/seq.log /tmp/rand.log /tmp/reset.log /tmp/mo.log; do
    grep -q 'err= 0' "$f" || say "errors in $f: $(grep -m3 err= "$f")"
  done
  blkzone reset "$DEV"
fi

if want zbd; then
  say "fio t/zbd/test-zbd-support on $DEV"
  (cd /zbd/t/zbd && timeout 240 bash ./test-zbd-support -r "$DEV") >/tmp/zbd.log 2>&1
  zrc=$?
  sed -n 's/^Running test \([0-9]*\) \.\.\. *\([A-Z]*\)\(.*\)$/\1 \2 \3/p' /tmp/zbd.log |
    while read -r n status reason; do
      result "$status" "zbd.test$n" "$reason"
    done
  check zbd.suite "exit $zrc: $(grep -E 'tests (passed|skipped|failed)' /tmp/zbd.log | tr '\n' ' ')" -- \
    test $zrc = 0
  for f in /zbd/t/zbd/test-zbd-support.log.*; do
    tail -n 1 "$f" | grep -q FAIL && send_file "$f" "zbd/$(basename "$f")"
  done
  blkzone reset "$DEV"
fi

if want perf; then
  # ublk's own cost: 4 KiB random reads, QD1 and QD32, on ZoneLab's device (virtual time: the
  # model adds no delay) and on null_blk, both in this guest.
  fio_run /tmp/fill.log --name=fill --ioengine=libaio --iodepth=8 --rw=write --bs=1M --offset=0 --size=256M
  for target in ublk nullb; do
    dev=$DEV; extra=(--offset=0 --size=192M)
    [ $target = nullb ] && dev=/dev/nullb0 && extra=(--offset=0 --size=192M --zonemode=none)
    for qd in 1 32; do
      fio --filename=$dev --direct=1 --thread=1 --name=rr --ioengine=io_uring --rw=randread \
        --bs=4k --iodepth=$qd --time_based --runtime=5 --zonemode=zbd "${extra[@]}" \
        --output-format=terse --terse-version=3 >/tmp/perf.log 2>&1
      # terse v3: field 8 read IOPS, field 40 read total-latency mean (us).
      iops=$(awk -F';' '{print $8}' /tmp/perf.log | tail -n 1)
      lat=$(awk -F';' '{print $40}' /tmp/perf.log | tail -n 1)
      emit "ZLMEASURE randread_4k $target qd$qd iops=$iops lat_mean_us=$lat"
      say "randread 4k $target qd$qd: $iops IOPS, mean $lat us"
    done
  done
  check perf.measured "fio randread ran on ublk and null_blk" -- test -n "$iops"
  blkzone reset "$DEV"
fi

if want f2fs; then
  say "F2FS: metadata on /dev/nullb0, data zones on $DEV"
  mkfs.f2fs -f -m -c "$DEV" /dev/nullb0 >/tmp/mkfs.log 2>&1
  check f2fs.mkfs "$(grep -m1 -i 'format successful\|error' /tmp/mkfs.log)" -- \
    grep -qi 'Format successful' /tmp/mkfs.log
  mkdir -p /mnt/f2fs
  mount -t f2fs /dev/nullb0 /mnt/f2fs 2>/tmp/mount.log
  check f2fs.mount "$(cat /tmp/mount.log) $(grep f2fs /proc/mounts | cut -d' ' -f1-4)" -- \
    grep -q /mnt/f2fs /proc/mounts
  # Files created, appended and fsynced until they fill zones, then half deleted; repeated so
  # F2FS frees whole sections and resets their zones.
  ok=1; before=0; after=0
  for round in 1 2 3; do
    for i in $(seq 1 12); do
      f=/mnt/f2fs/r$round-f$i
      dd if=/dev/urandom of=$f bs=1M count=6 conv=fsync 2>/dev/null || ok=0
      dd if=/dev/urandom of=$f bs=64k count=16 oflag=append conv=notrunc,fsync 2>/dev/null || ok=0
    done
    sync
    before=$(zones | awk '$2 != 0 || $4 != 1' | wc -l)
    rm -f /mnt/f2fs/r$round-f*[02468] /mnt/f2fs/r$((round - 1))-f*
    sync
    sleep 1
    after=$(zones | awk '$2 != 0 || $4 != 1' | wc -l)
    say "round $round: $before zones in use before deleting, $after after"
  done
  check f2fs.file_workload "3 rounds of create, append, fsync, delete" -- test $ok = 1
  db_bench --benchmarks=fillrandom,readrandom --num=20000 --reads=5000 --value_size=400 \
    --compression_type=none --db=/mnt/f2fs/rocksdb --threads=1 >/tmp/dbbench.log 2>&1
  dbrc=$?
  check db_bench.fillrandom "exit $dbrc: $(grep -m1 '^fillrandom' /tmp/dbbench.log | tr -s ' ')" -- \
    test $dbrc = 0
  umount /mnt/f2fs
  check f2fs.umount "" -- sh -c '! grep -q /mnt/f2fs /proc/mounts'
  after=$(zones | awk '$2 != 0 || $4 != 1' | wc -l)
  check f2fs.zone_resets "zones in use: $before after writing, $after after deleting and unmounting" -- \
    test "$after" -lt "$before"
  fsck.f2fs -f /dev/nullb0 >/tmp/fsck.log 2>&1
  frc=$?
  check f2fs.fsck "exit $frc" -- test $frc = 0
  [ $frc = 0 ] || send_file /tmp/fsck.log fsck.log
fi

# ---------------------------------------------------------------------------------------------
# ZoneLab's own view must match the kernel's: zones.csv, written at stop, against blkzone.
zones >/tmp/zfinal
grep VmHWM /proc/$ZPID/status | tr -s ' ' >/tmp/hwm
timeout 60 zonelab ublk --stop --id 0 >/tmp/stop.log 2>&1 || {
  say "stop failed: $(cat /tmp/stop.log)"
  for t in /proc/$ZPID/task/*; do echo "$t $(cat $t/comm) $(cat $t/wchan)"; cat $t/stack; done
  cat /tmp/zonelab.log
  dmesg | tail -n 20
}
wait $ZPID
zrc=$?
check server.stop "exit $zrc; $(tail -n 3 /tmp/zonelab.log | tr '\n' ' ')" -- test $zrc = 0
awk -F, 'NR > 1 {
  split("EMPTY IMP_OPENED EXP_OPENED CLOSED", n, " ");
  c = $3 == "EMPTY" ? 1 : $3 == "IMP_OPENED" ? 2 : $3 == "EXP_OPENED" ? 3 : $3 == "CLOSED" ? 4 : $3 == "READONLY" ? 13 : $3 == "FULL" ? 14 : 15;
  print $2 * 8, ($4 - $2) * 8, $5 * 8, c }' /results/zonelab/zones.csv >/tmp/zcsv
check zones.match "blkzone report equals ZoneLab's zones.csv ($(wc -l </tmp/zcsv) zones)" -- \
  cmp -s /tmp/zfinal /tmp/zcsv
emit "ZLMEASURE zonelab_peak_rss $(cat /tmp/hwm)"
send_file /results/zonelab/summary.json summary.json
send_file /tmp/zonelab.log zonelab.log
send_file /tmp/zbd.log zbd.log
emit "ZLTEST DONE"
say "done"
