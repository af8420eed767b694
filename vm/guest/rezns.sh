# Group rezns (sourced by tests.sh; not in the default groups): the ReZNS paper's workloads on a
# real Linux F2FS over ZoneLab's device (experiments/ublk/vm-rezns.toml: rezns-40g cut to RZ_ZONES
# zones of 64 MiB, no zone limit as in NVMeVirt), every command traced. Each workload gets a
# fresh device: mkfs.f2fs, mount, a prefill as the paper's (section 4.1: "pre-filled with dummy
# data up to 50%"; here half the space F2FS offers after mkfs, whose reserved sections take a
# large share of a small device), then a marker, then the workload, then unmount. The marker is
# a 12 KiB read of an empty zone's last three LBAs (F2FS reads only blocks it wrote; an explicit
# zone Open would do, but blkzone cannot open a mounted device): the trace's commands before it
# are the set-up, after it the workload.
# The traces come back as rezns-WORKLOAD-trace.csv (experiments/rezns/capture.sh keeps them).
# Scale (kernel command line, set by vm/test.sh from RZ_*): rzzones, rzjobs fio jobs writing
# files of 3/4 of the space left after the prefill between them (the paper's 15 GB of files in
# its 20 GB left), rzloops consecutive runs, rzdbnum db_bench keys, rzworkloads (a:b).
rz_arg() { local v; v=$(sed -n "s/.*$1=\([^ ]*\).*/\1/p" /proc/cmdline); echo "${v:-$2}"; }
RZ_ZONES=$(rz_arg rzzones 64)
ZONE_SECTORS_RZ=131072
RZ_JOBS=$(rz_arg rzjobs 16)
RZ_LOOPS=$(rz_arg rzloops 3)
RZ_DBNUM=$(rz_arg rzdbnum 1000000)
RZ_WORKLOADS=$(rz_arg rzworkloads fsync16:fsync64:fsync128:dbbench)

# The workload NAME on the F2FS mounted at /mnt/rz; fio's files are FILE_MIB each.
rz_workload() {
  case $1 in
    fsync*)
      # Section 4.2: 4 KB random writes at QD1, fsync every 16/64/128 writes, three runs.
      fio --name=rz --directory=/mnt/rz --rw=randwrite --bs=4k --ioengine=psync --iodepth=1 \
        --fsync="${1#fsync}" --numjobs="$RZ_JOBS" --size="${2}M" --loops="$RZ_LOOPS" \
        --thread=1 --group_reporting=1 --randseed=1 ;;
    dbbench)
      # A RocksDB workload through real db_bench: a random load, then overwrites of it.
      db_bench --db=/mnt/rz/db --benchmarks=fillrandom,overwrite --num="$RZ_DBNUM" \
        --value_size=400 --compression_type=none --threads=1 --seed=1 ;;
    *) echo "unknown workload $1"; return 2 ;;
  esac
}

rz_capture() {
  local mib rc w avail prefill file empty t0
  mkdir -p /mnt/rz
  for w in ${RZ_WORKLOADS//:/ }; do
    start_server 5 vm-rezns --set device.zones.zone_count="$RZ_ZONES"
    mib=$(f2fs_meta nullb5 /dev/ublkb5)
    LOG=/tmp/f2fs.nullb5.mkfs check "rezns.$w.mkfs" "F2FS on $RZ_ZONES zones of 64 MiB, ${mib:-no} MiB metadata device" -- \
      test -n "$mib"
    send_file /tmp/f2fs.nullb5.mkfs "rezns-mkfs.log"
    mount -t f2fs /dev/nullb5 /mnt/rz
    avail=$(df -m /mnt/rz | awk 'NR == 2 {print $4}')
    prefill=$((avail / 2))
    file=$((avail / 2 * 3 / 4 / RZ_JOBS))
    dd if=/dev/zero of=/mnt/rz/prefill bs=1M count="$prefill" conv=fsync 2>/tmp/rz.prefill
    rc=$?
    LOG=/tmp/rz.prefill check "rezns.$w.prefill" "$prefill MiB of dummy data (half of the $avail MiB F2FS offers), exit $rc; the zones hold $(zoned_mib /dev/ublkb5) MiB" -- \
      test $rc = 0
    # The marker: one 12 KiB direct read of the last empty zone's last three LBAs.
    empty=$(DEV=/dev/ublkb5 zones | awk '$2 == 0 {z = $1} END {print z}')
    fio --name=marker --filename=/dev/ublkb5 --rw=read --bs=12k --size=12k --direct=1 \
      --ioengine=psync --offset=$(((empty + ZONE_SECTORS_RZ) * 512 - 12288)) >/tmp/rz.marker 2>&1
    rc=$?
    LOG=/tmp/rz.marker check "rezns.$w.marker" "a 12 KiB read at the end of the empty zone at sector $empty, exit $rc" -- \
      test $rc = 0
    t0=$SECONDS
    rz_workload "$w" "$file" >/tmp/rz.$w.log 2>&1
    rc=$?
    umount /mnt/rz
    stop_server 5
    meta_gone nullb5
    LOG=/tmp/rz.$w.log check "rezns.$w" "exit $rc after $((SECONDS - t0)) s; $(($(wc -l </results/5/trace.csv) - 1)) commands traced" -- \
      test $rc = 0
    send_file /tmp/rz.$w.log "rezns-$w.log"
    send_file /results/5/trace.csv "rezns-$w-trace.csv"
    emit "ZLMEASURE rezns_scale $w zones=$RZ_ZONES avail_mib=$avail prefill_mib=$prefill jobs=$RZ_JOBS file_mib=$file loops=$RZ_LOOPS dbnum=$RZ_DBNUM kernel=$(uname -r) f2fs_meta_mib=$mib"
  done
}
