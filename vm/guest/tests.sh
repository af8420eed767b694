#!/bin/bash
# The tests the guest runs on ZoneLab's zoned ublk device, /dev/ublkb0. Progress goes to the
# console (ttyS0); one line per check goes to ttyS1 as `ZLTEST PASS|FAIL|SKIP name detail`,
# measurements as `ZLMEASURE ...`, files as `ZLFILE name` ... `ZLEND`, and `ZLTEST DONE` last.
# vm/test.sh reads ttyS1 and fails on any FAIL or a missing DONE.
# zltests=a,b on the kernel command line limits the groups run: basic, fio, zbd, realtime,
# perf, f2fs (the default), and, asked for by name, rezns (real F2FS traces of the ReZNS paper's
# workloads: vm/guest/rezns.sh), btrfs (btrfs in zoned mode: vm/guest/btrfs.sh), zonefs
# (zonefs and zonefs-tools' test suite: vm/guest/zonefs.sh) and f2fs_cap (why fsck.f2fs's free
# segment count differs when zone capacity < zone size: vm/guest/f2fs_cap.sh).

export PATH=/bin
OUT=/dev/ttyS1
stty -F "$OUT" -opost 2>/dev/null
DEV=/dev/ublkb0
B=$(basename "$DEV")
ZONE_SECTORS=131072      # experiments/ublk/vm.toml: 64 MiB zones
CAP_SECTORS=98304        # 48 MiB capacity
NR_ZONES=32
groups=$(sed -n 's/.*zltests=\([^ ]*\).*/\1/p' /proc/cmdline)
groups=${groups:-basic,fio,zbd,realtime,perf,f2fs}
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

fio_run() { # LOG fio-args...   (returns fio's exit status)
  local log=$1; shift
  fio --filename="$DEV" --direct=1 --zonemode=zbd --thread=1 "$@" >"$log" 2>&1
}
# fio_ok LOG STATUS: fio exited 0 and every job in LOG ended with err= 0. fio prints its
# "WRITE: bw" lines even for a job that failed verification (err=84, exit 1), so they prove
# nothing on their own.
fio_ok() {
  [ "$2" = 0 ] && grep -q 'err= *0' "$1" && ! grep -Eq 'err= *[1-9]' "$1"
}
fio_says() { # LOG STATUS: what a check reports of a fio run
  echo "exit $2, $(grep -m1 -Eo 'err= *[0-9]+' "$1"), $(grep -m1 -o 'WRITE: bw=[^,]*' "$1")"
}

say "guest up: $(uname -r), $(nproc) CPUs, $(free -m | awk '/Mem:/ {print $2}') MiB"
# ---------------------------------------------------------------------------------------------
# start_server ID EXPERIMENT [zonelab ublk options]: serves /exp/EXPERIMENT.toml as /dev/ublkbID, results in
# /results/ID; waits until the zoned block device is there.
declare -A ZPIDS
start_server() {
  local id=$1 exp=$2
  shift 2
  zonelab ublk "/exp/$exp.toml" --id "$id" -o "/results/$id" "$@" >"/tmp/zonelab$id.log" 2>&1 &
  ZPIDS[$id]=$!
  for _ in $(seq 300); do
    [ -f "/run/zonelab-ublk/ublkb$id.pid" ] && [ -b "/dev/ublkb$id" ] && break
    sleep 0.1
  done
  LOG=/tmp/zonelab$id.log check "server$id.start" "$exp as /dev/ublkb$id" -- \
    test -b "/dev/ublkb$id" -a "$(cat /sys/block/ublkb$id/queue/zoned 2>/dev/null)" = host-managed
  say "$(sed -n 2p /tmp/zonelab$id.log)"
}

# stop_server ID: takes the kernel's zone report, stops the server (it writes its results), and
# checks ZoneLab's zones.csv says the same as the kernel did.
stop_server() {
  local id=$1 pid=${ZPIDS[$1]} dev=/dev/ublkb$1 rc zs
  DEV=$dev zones >/tmp/zfinal$id
  zs=$(cat /sys/block/ublkb$id/queue/chunk_sectors)
  grep VmHWM "/proc/$pid/status" | tr -s ' ' >/tmp/hwm$id
  timeout 60 zonelab ublk --stop --id "$id" >/tmp/stop$id.log 2>&1 || {
    say "stop failed: $(cat /tmp/stop$id.log)"
    for t in /proc/$pid/task/*; do echo "$t $(cat $t/comm) $(cat $t/wchan)"; cat $t/stack; done
    dmesg | tail -n 20
  }
  wait "$pid"
  rc=$?
  LOG=/tmp/zonelab$id.log check "server$id.stop" "exit $rc; $(tail -n 3 /tmp/zonelab$id.log | tr '\n' ' ')" -- \
    test $rc = 0
  # (A full zone's write pointer is reported at start + zone size.)
  awk -F, -v zs="$zs" 'NR > 1 {
    c = $3 == "EMPTY" ? 1 : $3 == "IMP_OPENED" ? 2 : $3 == "EXP_OPENED" ? 3 : $3 == "CLOSED" ? 4 : $3 == "READONLY" ? 13 : $3 == "FULL" ? 14 : 15;
    print $2 * 8, c == 14 ? zs : ($4 - $2) * 8, $5 * 8, c }' "/results/$id/zones.csv" >/tmp/zcsv$id
  check "server$id.zones_match" "blkzone report equals ZoneLab's zones.csv ($(wc -l </tmp/zcsv$id) zones)" -- \
    cmp -s /tmp/zfinal$id /tmp/zcsv$id
  emit "ZLMEASURE zonelab_peak_rss device$id $(cat /tmp/hwm$id)"
  send_file "/results/$id/summary.json" "summary$id.json"
  send_file "/tmp/zonelab$id.log" "zonelab$id.log"
}

start_server 0 vm
if [ ! -b "$DEV" ]; then
  emit "ZLTEST DONE"
  exit 1
fi
q=/sys/block/$B/queue

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
  # A full zone's write pointer is reported at start + zone size, as Linux's NVMe driver does.
  check blkzone.open_close_finish "open: $c2 (3), close: $c1 (4), finish: $(zone 1) (14)" -- \
    test "$c2 $c1 $(cond_of 1) $(wp_of 1)" = "3 4 14 $ZONE_SECTORS"
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
      --offset=0 --size=128M --verify=crc32c --do_verify=1
    rc=$?
    LOG=/tmp/seq.log check fio.$engine.seq_write_verify "$(fio_says /tmp/seq.log $rc)" -- \
      fio_ok /tmp/seq.log $rc
    fio_run /tmp/rand.log --name=rand --ioengine=$engine --iodepth=16 --rw=randwrite --bs=16k \
      --offset=256M --size=512M --io_size=48M --max_open_zones=4 --verify=crc32c
    rc=$?
    LOG=/tmp/rand.log check fio.$engine.rand_write_verify "$(fio_says /tmp/rand.log $rc)" -- \
      fio_ok /tmp/rand.log $rc
  done
  # Two zones written three times over: fio resets each zone before it writes it again.
  fio_run /tmp/reset.log --name=wrap --ioengine=libaio --iodepth=4 --rw=write --bs=256k \
    --offset=768M --size=128M --io_size=288M --verify=crc32c
  rc=$?
  resets=$(sed -n 's/^.*write:[^;]*; \([0-9]*\) zone resets$/\1/p' /tmp/reset.log)
  resets_ok() { [ "${resets:-0}" -ge 2 ] && fio_ok /tmp/reset.log "$rc"; }
  LOG=/tmp/reset.log check fio.zone_resets "${resets:-0} zone resets; $(fio_says /tmp/reset.log $rc)" -- \
    resets_ok
  fio_run /tmp/mo.log --name=mo --ioengine=libaio --iodepth=16 --rw=randwrite --bs=64k \
    --offset=0 --size=2G --io_size=64M --max_open_zones=14
  rc=$?
  LOG=/tmp/mo.log check fio.max_open_zones_14 "$(fio_says /tmp/mo.log $rc)" -- fio_ok /tmp/mo.log $rc
  # Over the device's limit fio must refuse the job (a non-zero exit naming the option).
  fio_run /tmp/mo2.log --name=mo --ioengine=libaio --rw=randwrite --bs=64k --size=64M \
    --max_open_zones=15
  rc=$?
  check fio.max_open_zones_over_limit "exit $rc: $(grep -m1 -io 'max_open_zones[^\n]*' /tmp/mo2.log | head -c 100)" -- \
    sh -c "[ $rc != 0 ] && grep -qi 'max_open_zones' /tmp/mo2.log"
  blkzone reset "$DEV"
fi

if want zbd; then
  # fio's own zoned block device tests, on a second device with small zones (vm-zbd.toml).
  # zbdtests=N:N:... on the kernel command line runs only those tests.
  zbd_timeout=$(sed -n 's/.*zbdtimeout=\([0-9]*\).*/\1/p' /proc/cmdline)
  zbd_timeout=${zbd_timeout:-300}
  # The default leaves out, for time, the tests that run 30 s by the clock or write many zones
  # 4 KiB at a time (06 15 16 26 27 28 30 31 32 48 57 58; ZBD_TESTS=all runs them too);
  # test 54 fails the same way on null_blk with this fio (checked below), so it is compared
  # with null_blk rather than required to pass.
  list=$(sed -n 's/.*zbdtests=\([0-9a-z:]*\).*/\1/p' /proc/cmdline)
  case $list in
    "") list=1:2:3:4:5:7:8:9:10:11:12:13:14:17:18:19:20:21:22:23:24:25:29:33:34:35:36:37:38:39:40:41:42:43:44:45:46:47:49:50:51:52:53:55:56 ;;
    all) list=$(seq -s: 1 58 | sed 's/:54:/:/') ;;
  esac
  zbd_tests=()
  for n in $(echo "$list" | tr ':' ' '); do zbd_tests+=(-t "$n"); done
  start_server 1 vm-zbd
  say "fio t/zbd/test-zbd-support on /dev/ublkb1"
  zbd_t0=$SECONDS
  (cd /zbd/t/zbd && timeout "$zbd_timeout" bash ./test-zbd-support -r "${zbd_tests[@]}" /dev/ublkb1) 2>&1 |
    while IFS= read -r line; do echo "$((SECONDS - zbd_t0)) $line"; done >/tmp/zbd.log
  zrc=${PIPESTATUS[0]}
  sed -n 's/^\([0-9]*\) Running test \([0-9]*\) \.\.\. *\([A-Z]*\)\(.*\)$/\1 \2 \3 \4/p' /tmp/zbd.log |
    while read -r t n status reason; do
      result "$status" "zbd.test$n" "(done at ${t} s) $reason"
    done
  npass=$(grep -c '\.\.\. *PASS' /tmp/zbd.log)
  check zbd.suite "exit $zrc: $(grep -E 'tests (passed|skipped|failed)|Run time' /tmp/zbd.log | sed 's/^[0-9]* *//' | tr '\n' ';' | sed 's/;$//; s/;/; /g')" -- \
    test $zrc = 0 -a "$npass" -gt 0
  for f in /zbd/t/zbd/test-zbd-support.log.*; do
    tail -n 1 "$f" | grep -q FAIL && send_file "$f" "zbd/$(basename "$f")"
  done
  send_file /tmp/zbd.log zbd.log
  # Test 54 against ZoneLab and against a zoned null_blk of the same geometry: the same outcome.
  n=/sys/kernel/config/nullb/nullb1
  mkdir $n && echo 1 >$n/zoned && echo 4 >$n/zone_size && echo 3 >$n/zone_capacity &&
    echo 1024 >$n/size && echo 1 >$n/memory_backed && echo 4096 >$n/blocksize &&
    echo 14 >$n/zone_max_open && echo 1 >$n/power
  for d in ublkb1 nullb1; do
    (cd /zbd/t/zbd && timeout 60 bash ./test-zbd-support -r -t 54 /dev/$d) >/tmp/t54.$d 2>&1
    echo "$(sed -n 's/^Running test 54 \.\.\. *\([A-Z]*\).*/\1/p' /tmp/t54.$d):" \
      "$(grep -m1 -o -e 'fio: io_u error.*' -e 'Assertion.*' /zbd/t/zbd/test-zbd-support.log.54 |
         sed 's#/dev/[a-z0-9]*#DEV#')" >/tmp/t54r.$d
  done
  echo 0 >$n/power; rmdir $n
  check zbd.test54_as_null_blk "ZoneLab: $(cat /tmp/t54r.ublkb1); null_blk: $(cat /tmp/t54r.nullb1)" -- \
    cmp -s /tmp/t54r.ublkb1 /tmp/t54r.nullb1
  stop_server 1
fi

if want perf; then
  # ublk's own cost: 4 KiB random reads, QD1 and QD32, on ZoneLab's device (virtual time: the
  # model adds no delay) and on null_blk, both in this guest.
  fio_run /tmp/fill.log --name=fill --ioengine=libaio --iodepth=8 --rw=write --bs=1M --offset=0 --size=256M
  measured=""
  for target in ublk nullb; do
    dev=$DEV; extra=(--offset=0 --size=192M)
    [ $target = nullb ] && dev=/dev/nullb0 && extra=(--offset=0 --size=192M --zonemode=none)
    for qd in 1 32; do
      fio --filename=$dev --direct=1 --thread=1 --name=rr --ioengine=io_uring --rw=randread \
        --bs=4k --iodepth=$qd --time_based --runtime=4 --zonemode=zbd "${extra[@]}" \
        --output-format=terse --terse-version=3 >/tmp/perf.log 2>&1
      # terse v3: field 8 read IOPS, field 40 read total-latency mean (us).
      iops=$(awk -F';' '{print $8}' /tmp/perf.log | tail -n 1)
      lat=$(awk -F';' '{print $40}' /tmp/perf.log | tail -n 1)
      emit "ZLMEASURE randread_4k $target qd$qd iops=$iops lat_mean_us=$lat"
      say "randread 4k $target qd$qd: $iops IOPS, mean $lat us"
      measured="$measured $target.qd$qd=${iops:-none}"
    done
  done
  # Every one of the four runs, ZoneLab's among them, must have measured something.
  all_measured() { # four TARGET.qdN=IOPS words, each IOPS a positive number
    echo "$measured" | awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); if (!(kv[2] + 0 > 0)) exit 1 } exit NF != 4 }'
  }
  check perf.measured "4 KiB random reads, IOPS:$measured" -- all_measured
  blkzone reset "$DEV"
fi

# f2fs_meta NAME ZONED: makes F2FS on ZONED with a memory-backed conventional null_blk /dev/NAME
# for its metadata, the smallest of 16, 32, 64, 128, 256 and 512 MiB that mkfs.f2fs takes. F2FS
# puts its metadata and the start of its main area there: the smaller it is, the sooner the data
# goes to the zones (a 1 GiB one took nearly all of it). Prints the size in MiB.
f2fs_meta() {
  local name=$1 zdev=$2 mib
  for mib in 16 32 64 128 256 512; do
    nullb_new $name size=$mib memory_backed=1 blocksize=4096 power=1
    if mkfs.f2fs -f -m -c "$zdev" /dev/$name >/tmp/f2fs.$name.mkfs 2>&1; then
      echo $mib
      return 0
    fi
    nullb_gone $name
  done
  return 1
}
# nullb_new NAME KEY=VALUE...: a null_blk made through configfs, with these attributes in this
# order (power=1 last); it is /dev/NAME (named after its directory). nullb_gone NAME removes it.
nullb_new() {
  local d=/sys/kernel/config/nullb/$1 kv
  shift
  mkdir $d
  for kv in "$@"; do echo "${kv#*=}" >$d/${kv%%=*}; done
}
nullb_gone() { echo 0 >/sys/kernel/config/nullb/$1/power; rmdir /sys/kernel/config/nullb/$1; }
# The zoned null_blk ZoneLab's device is compared with (experiments/ublk/vm.toml's geometry:
# 64 MiB zones of 48 MiB capacity, 14 open and active); add size=MiB and power=1.
NULLB_LIKE_VM=(zoned=1 zone_size=64 zone_capacity=48 zone_max_open=14 zone_max_active=14
               memory_backed=1 blocksize=4096)
# Bytes the zones of DEV hold (each zone's write pointer, at most its capacity), in MiB.
zoned_mib() {
  DEV=$1 zones | awk '{ s += ($2 < $3 ? $2 : $3) } END { print int(s / 2048) }'
}

# f2fs_run TAG ZONED META: F2FS on ZONED with its metadata on the null_blk META (f2fs_meta),
# mount, a file workload until F2FS has reset zones it freed (the first round must land mostly on
# the zones), db_bench, the last round read back after unmount and mount, unmount, fsck. Results
# in /tmp/f2fs.TAG.*; checks reported only for ZoneLab (TAG ublk).
f2fs_run() {
  local tag=$1 zdev=$2 meta=$3 cdev=/dev/$3 ok=1 resets round i f mib first
  local report=$([ "$tag" = ublk ] && echo check || echo quiet)
  quiet() { shift 3; "$@"; }
  mib=$(f2fs_meta "$meta" "$zdev")
  cp /tmp/f2fs.$meta.mkfs /tmp/f2fs.$tag.mkfs
  LOG=/tmp/f2fs.$tag.mkfs $report f2fs.mkfs "${mib:-no} MiB metadata device: $(grep -m1 -i 'format successful\|error' /tmp/f2fs.$tag.mkfs)" -- \
    grep -qi 'Format successful' /tmp/f2fs.$tag.mkfs
  mkdir -p /mnt/$tag
  mount -t f2fs "$cdev" /mnt/$tag 2>/tmp/f2fs.$tag.mount
  $report f2fs.mount "$(cat /tmp/f2fs.$tag.mount) $(grep "/mnt/$tag" /proc/mounts | cut -d' ' -f1-3)" -- \
    grep -q "/mnt/$tag" /proc/mounts
  # Rounds of files created, appended and fsynced, each deleting the round before.
  for round in 1 2 3; do
    for i in $(seq 1 8); do
      f=/mnt/$tag/r$round-f$i
      dd if=/dev/urandom of=$f bs=1M count=8 conv=fsync 2>/dev/null || ok=0
      dd if=/dev/urandom of=$f bs=64k count=16 oflag=append conv=notrunc,fsync 2>/dev/null || ok=0
    done
    rm -f /mnt/$tag/r$((round - 1))-f*
    sync
    [ $round = 1 ] && first=$(zoned_mib "$zdev")
  done
  $report f2fs.file_workload "3 rounds of 8 files created, appended, fsynced; each round deletes the one before" -- \
    test $ok = 1
  # The first round wrote 72 MiB of files: most of it must be on the zones, not the metadata device.
  $report f2fs.data_on_zones "after the first round's 72 MiB of files, the zones hold $first MiB" -- \
    test "${first:-0}" -ge 48
  # The last round, read back whole after unmount and mount.
  (cd /mnt/$tag && md5sum r3-f*) >/tmp/f2fs.$tag.md5
  umount /mnt/$tag
  mount -t f2fs "$cdev" /mnt/$tag 2>>/tmp/f2fs.$tag.mount
  $report f2fs.read_back_remount "$(wc -l </tmp/f2fs.$tag.md5) files' MD5 after unmount and mount" -- \
    sh -c "cd /mnt/$tag && md5sum -c /tmp/f2fs.$tag.md5 >/dev/null"
  if [ "$tag" = ublk ]; then
    db_bench --benchmarks=fillrandom,readrandom --num=20000 --reads=5000 --value_size=400 \
      --compression_type=none --db=/mnt/$tag/rocksdb --threads=1 >/tmp/dbbench.log 2>&1
    local dbrc=$?
    LOG=/tmp/dbbench.log check db_bench.fillrandom "exit $dbrc: $(grep -m1 '^fillrandom' /tmp/dbbench.log | tr -s ' ')" -- \
      test $dbrc = 0
  fi
  # Delete everything: F2FS resets the zones of the sections it frees (at the latest when it
  # unmounts, when it issues its pending discards).
  rm -rf /mnt/$tag/*
  sync
  DEV=$zdev zones >/tmp/f2fs.$tag.before
  umount /mnt/$tag
  $report f2fs.umount "" -- sh -c "! grep -q /mnt/$tag /proc/mounts"
  DEV=$zdev zones >/tmp/f2fs.$tag.after
  resets=$(paste -d' ' /tmp/f2fs.$tag.before /tmp/f2fs.$tag.after | awk '$2 > 0 && $6 == 0' | wc -l)
  $report f2fs.zone_resets "$(awk '$2 > 0' /tmp/f2fs.$tag.before | wc -l) zones written before unmounting, $resets of them reset by F2FS" -- \
    test "$resets" -gt 0
  fsck.f2fs -f --dry-run "$cdev" >/tmp/f2fs.$tag.fsck 2>&1
  echo $? >/tmp/f2fs.$tag.fsckrc
  # Each check's name and verdict (the counts differ with the data).
  grep '^\[FSCK\]' /tmp/f2fs.$tag.fsck | grep -v 'Max image size' |
    sed 's/^\[FSCK\] *//; s/ *\[0x[0-9a-f]*\] *$//' >/tmp/f2fs.$tag.verdict
  nullb_gone "$meta"
}

if want realtime; then
  # Real time: reads modelled to take 5 ms (read_latency_ns) must take at least that long as
  # fio sees them, and the firmware's idle-time work must run while the host sends nothing:
  # Preemptive Zone Reset erases a reset zone's blocks only when the device is idle.
  start_server 2 vm --time realtime --set device.timing.read_latency_ns=5000000 \
    --set 'firmware.policy="preemptive"' --set firmware.t_free=0 --set firmware.t_invalid=1
  DEV=/dev/ublkb2 fio_run /tmp/rt_w.log --name=w --ioengine=libaio --iodepth=8 --rw=write \
    --bs=1M --offset=0 --size=128M
  blkzone reset -o 0 -c 1 /dev/ublkb2
  sleep 2
  DEV=/dev/ublkb2 fio_run /tmp/rt_r.log --name=r --ioengine=psync --rw=randread --bs=4k \
    --offset=64M --size=64M --time_based --runtime=3 --output-format=terse --terse-version=3
  fio_lat_us=$(awk -F';' '{print $40}' /tmp/rt_r.log | tail -n 1)
  stop_server 2
  model_ns=$(awk '/"read": \{/ {r = 1} r && /"mean"/ {gsub(/[^0-9.]/, "", $2); print $2; exit}' /results/2/summary.json)
  erases=$(sed -n 's/.*"block_erases": \([0-9]*\).*/\1/p' /results/2/summary.json)
  check realtime.read_latency "fio mean ${fio_lat_us} us, ZoneLab's modelled mean ${model_ns} ns" -- \
    awk -v f="$fio_lat_us" -v m="$model_ns" 'BEGIN { exit !(m >= 4000000 && f * 1000 >= m) }'
  check realtime.idle_erases "$erases block erases while idle after the reset" -- \
    test "${erases:-0}" -gt 0
fi

if want f2fs; then
  say "F2FS: metadata on a small null_blk (/dev/nullb2), data zones on $DEV"
  f2fs_run ublk "$DEV" nullb2
  # The same on a zoned null_blk of the same geometry (64 MiB zones, 48 MiB capacity, 14 open
  # and active) with a null_blk for metadata: fsck.f2fs must say the same of both.
  nullb_new nullb1 "${NULLB_LIKE_VM[@]}" size=2048 power=1
  f2fs_run nullb /dev/nullb1 nullb2
  nullb_gone nullb1
  rc_u=$(cat /tmp/f2fs.ublk.fsckrc); rc_n=$(cat /tmp/f2fs.nullb.fsckrc)
  [ "$rc_u" = 0 ] || send_file /tmp/f2fs.ublk.fsck fsck.ublk.log
  [ "$rc_n" = 0 ] || send_file /tmp/f2fs.nullb.fsck fsck.nullb.log
  # Clean on ZoneLab. (With a 1 GiB metadata device fsck.f2fs 1.15 reported "free segment_count
  # matched with CP [Fail]" on ZoneLab and on null_blk alike when zone capacity < zone size; with
  # one just large enough, both are clean.)
  check f2fs.fsck "fsck.f2fs on ZoneLab: exit $rc_u, $(grep -c Fail /tmp/f2fs.ublk.verdict) failed checks ($(grep Fail /tmp/f2fs.ublk.verdict | tr -s ' ' | tr '\n' ';')); on null_blk: exit $rc_n, $(grep -c Fail /tmp/f2fs.nullb.verdict) failed" -- \
    test "$rc_u" = 0

  # F2FS's files outlive the server: a server with --state is stopped (it saves the device),
  # served again from the file, and the files read back whole.
  start_server 4 vm --state /tmp/f2fs4.state
  mib=$(f2fs_meta nullb3 /dev/ublkb4)
  mkdir -p /mnt/st
  LOG=/tmp/f2fs.nullb3.mkfs check f2fs.state_mount "F2FS on a server with --state, ${mib:-no} MiB metadata device" -- \
    mount -t f2fs /dev/nullb3 /mnt/st
  for i in $(seq 1 8); do
    dd if=/dev/urandom of=/mnt/st/f$i bs=1M count=8 conv=fsync 2>/dev/null
  done
  (cd /mnt/st && md5sum f*) >/tmp/f2fs.st.md5
  umount /mnt/st
  stop_server 4
  start_server 4 vm --state /tmp/f2fs4.state
  mount -t f2fs /dev/nullb3 /mnt/st 2>/tmp/f2fs.st.mount
  LOG=/tmp/f2fs.st.mount check f2fs.read_back_restart "$(wc -l </tmp/f2fs.st.md5) files' MD5 after the server stopped and served its --state again; the zones held $(zoned_mib /dev/ublkb4) MiB" -- \
    sh -c "cd /mnt/st && md5sum -c /tmp/f2fs.st.md5 >/dev/null"
  umount /mnt/st
  stop_server 4
  nullb_gone nullb3
  rm -f /tmp/f2fs4.state

  # A real file system's zoned I/O, captured once: every command F2FS sends a small traced
  # device (mkfs, files created, appended, fsynced and deleted, unmount) goes to trace.csv, which
  # must then replay in a plain `zonelab run` with no zone-rule error.
  start_server 3 vm-f2fs-trace
  mkfs.f2fs -f -m -c /dev/ublkb3 /dev/nullb0 >/tmp/f2fs.trace.mkfs 2>&1
  check f2fs.trace_mkfs "$(grep -m1 -i 'format successful\|error' /tmp/f2fs.trace.mkfs)" -- \
    grep -qi 'Format successful' /tmp/f2fs.trace.mkfs || send_file /tmp/f2fs.trace.mkfs mkfs.trace.log
  mkdir -p /mnt/trace
  LOG=/tmp/f2fs.trace.mkfs check f2fs.trace_mount "F2FS on the traced device" -- \
    mount -t f2fs /dev/nullb0 /mnt/trace
  # F2FS puts data on the conventional device first: enough to reach the zones.
  for round in 1 2; do
    for i in $(seq 1 8); do
      dd if=/dev/urandom of=/mnt/trace/r$round-f$i bs=1M count=8 conv=fsync 2>/dev/null
      dd if=/dev/urandom of=/mnt/trace/r$round-f$i bs=64k count=4 oflag=append conv=notrunc,fsync 2>/dev/null
    done
    rm -f /mnt/trace/r$((round - 1))-f*
    sync
  done
  rm -f /mnt/trace/*
  sync
  umount /mnt/trace
  stop_server 3
  send_file /results/3/trace.csv f2fs-trace.csv
  records=$(($(wc -l </results/3/trace.csv) - 1))
  cp /results/3/trace.csv /exp/f2fs-trace.csv
  zonelab run /exp/f2fs-replay.toml -q -o /results/replay >/tmp/replay.log 2>&1
  replayrc=$?
  LOG=/tmp/replay.log check f2fs.trace_replays "$records commands traced under F2FS; zonelab run replayed them: exit $replayrc" -- \
    test "$records" -gt 100 -a "$replayrc" = 0
fi

if want rezns; then
  source /guest/rezns.sh
  rz_capture
fi

if want btrfs; then
  source /guest/btrfs.sh
  bt_run
fi

if want f2fs_cap; then
  source /guest/f2fs_cap.sh
  fc_run
fi

if want zonefs; then
  source /guest/zonefs.sh
  zf_run
  zf_suite
fi

# ---------------------------------------------------------------------------------------------
stop_server 0
# The same id served again at once (the documented --state workflow stops a server and starts
# the next on its file): `--stop` returns once the kernel has deleted the device.
start_server 0 vm
LOG=/tmp/zonelab0.log check server0.restart "served again right after --stop: $(sed -n 2p /tmp/zonelab0.log)" -- \
  test -b /dev/ublkb0
timeout 60 zonelab ublk --stop --id 0 >/tmp/stop0b.log 2>&1
rc=$?
wait "${ZPIDS[0]}"
LOG=/tmp/stop0b.log check server0.restart_stop "exit $rc" -- test $rc = 0
emit "ZLTEST DONE"
say "done"
