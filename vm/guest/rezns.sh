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
# Filebench's varmail and fileserver (section 4.3) run Filebench's own workloads/varmail.f and
# fileserver.f (installed with it under /usr/share/filebench) for 60 s with the paper's
# parameters, which are those files' defaults; only the directory, the run time and, when the
# fileset would not fit, the file count change: nfiles is the paper's (1000, 10,000) or as many
# files of the workload's mean size (16 KiB, 128 KiB) as fill 3/4 of the space left after the
# prefill, whichever is less (on 64 zones: varmail 1000, fileserver about 6,200). Their traces
# after the marker hold Filebench's fileset creation (80% of the files preallocated, as the .f
# files say) before its run: one filebench process does both.
rz_arg() { local v; v=$(sed -n "s/.*$1=\([^ ]*\).*/\1/p" /proc/cmdline); echo "${v:-$2}"; }
RZ_ZONES=$(rz_arg rzzones 64)
ZONE_SECTORS_RZ=131072
RZ_JOBS=$(rz_arg rzjobs 16)
RZ_LOOPS=$(rz_arg rzloops 3)
RZ_DBNUM=$(rz_arg rzdbnum 1000000)
RZ_WORKLOADS=$(rz_arg rzworkloads fsync16:fsync64:fsync128:dbbench:varmail:fileserver)
RZ_FBSECS=60

# Filebench's workload NAME (varmail, fileserver) with $FB_NFILES files under /mnt/rz/fb: its
# own .f file with $dir, $nfiles and the run time set, each substitution checked. Filebench
# needs ASLR off (its processes map one shared region at the same address; the per-process
# switch in its aslr.c does not work) and a writable /tmp (its shared memory file).
rz_filebench() {
  local f=/tmp/rz.$1.f aslr rc
  sed -e "s|^set \$dir=.*|set \$dir=/mnt/rz/fb|" -e "s|^set \$nfiles=.*|set \$nfiles=$FB_NFILES|" \
    -e "s|^set \$runtime=.*|set \$runtime=$RZ_FBSECS|" -e "s|^run 60$|run $RZ_FBSECS|" \
    "/usr/share/filebench/workloads/$1.f" >"$f" || return 2
  grep -qx "set \$dir=/mnt/rz/fb" "$f" && grep -qx "set \$nfiles=$FB_NFILES" "$f" &&
    grep -Eqx "run ($RZ_FBSECS|\\\$runtime)" "$f" || { echo "rz_filebench: $f not as asked:"; cat "$f"; return 2; }
  aslr=$(cat /proc/sys/kernel/randomize_va_space)
  echo 0 >/proc/sys/kernel/randomize_va_space
  # Filebench waits forever for a worker process that died: a time limit, then the workers.
  timeout -s KILL $((RZ_FBSECS + 1200)) filebench -f "$f"
  rc=$?
  pkill -KILL -x filebench 2>/dev/null
  echo "$aslr" >/proc/sys/kernel/randomize_va_space
  return $rc
}
# fb_ok LOG STATUS: Filebench exited 0, printed its IO Summary, and no error: it can exit 0
# after failing flowops, so its exit status alone proves nothing.
fb_ok() {
  [ "$2" = 0 ] && grep -q 'IO Summary:' "$1" && ! grep -Eiq 'fail|error|abort' "$1"
}

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
    varmail|fileserver) rz_filebench "$1" ;;
    *) echo "unknown workload $1"; return 2 ;;
  esac
}

rz_capture() {
  local mib rc w avail prefill file empty t0 detail fbscale sampler
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
    # Filebench: the paper's file count, or fewer files of the mean size so they fit 3/4 of the
    # space left (the fio files' share).
    fbscale=
    case $w in
      varmail) FB_NFILES=$((avail / 2 * 3 / 4 * 1024 / 16)); FB_MAX=1000; FB_KIB=16; FB_THREADS=16 ;;
      fileserver) FB_NFILES=$((avail / 2 * 3 / 4 * 1024 / 128)); FB_MAX=10000; FB_KIB=128; FB_THREADS=50 ;;
      *) FB_NFILES= ;;
    esac
    if [ -n "$FB_NFILES" ]; then
      [ "$FB_NFILES" -le "$FB_MAX" ] || FB_NFILES=$FB_MAX
      fbscale=" fb_nfiles=$FB_NFILES fb_mean_file_kib=$FB_KIB fb_fileset_mib=$((FB_NFILES * FB_KIB / 1024)) fb_threads=$FB_THREADS fb_secs=$RZ_FBSECS"
    fi
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
    # F2FS's own counters (debugfs f2fs/status: cleaning calls and blocks moved, foreground and
    # background, checkpoints) around the workload: what splits the device's writes.
    grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs none /sys/kernel/debug 2>/dev/null
    { echo "== before the workload"; cat /sys/kernel/debug/f2fs/status; } >/tmp/rz.$w.status 2>&1
    t0=$SECONDS
    # And every 5 s during it, the lines that say where F2FS's space is: utilization, each log's
    # current section and its type's dirty and full segments, valid, dirty, prefree and free
    # segments (free sections in brackets), checkpoints and cleaning so far.
    ( while sleep 5; do
        echo "== t=$((SECONDS - t0)) s"
        grep -E '^Utilization|^  - (COLD|WARM|HOT) +data:|^  - (Dir|File) +dnode:|^  - Indir nodes:|^  - (Valid|Dirty|Prefree|Free): |^(CP|GC) calls|^  - (data|node) sections' \
          /sys/kernel/debug/f2fs/status
      done ) >/tmp/rz.$w.timeline 2>&1 &
    sampler=$!
    rz_workload "$w" "$file" >/tmp/rz.$w.log 2>&1
    rc=$?
    kill $sampler 2>/dev/null
    wait $sampler 2>/dev/null
    { echo "== after the workload"; cat /sys/kernel/debug/f2fs/status; } >>/tmp/rz.$w.status 2>&1
    send_file /tmp/rz.$w.status "rezns-$w-f2fs-status.txt"
    send_file /tmp/rz.$w.timeline "rezns-$w-f2fs-timeline.txt"
    umount /mnt/rz
    stop_server 5
    nullb_gone nullb5
    detail="exit $rc after $((SECONDS - t0)) s"
    if [ -n "$fbscale" ]; then
      # Filebench's verdict: its exit status, its IO Summary line and no error in its output.
      detail="$detail, $FB_NFILES files; $(grep -m1 -o 'IO Summary:.*' /tmp/rz.$w.log || echo 'no IO Summary'); $(grep -Eic 'fail|error|abort' /tmp/rz.$w.log) error lines"
      fb_ok /tmp/rz.$w.log $rc || [ $rc != 0 ] || rc=1
    fi
    LOG=/tmp/rz.$w.log check "rezns.$w" "$detail; $(($(wc -l </results/5/trace.csv) - 1)) commands traced" -- \
      test $rc = 0
    send_file /tmp/rz.$w.log "rezns-$w.log"
    send_file /results/5/trace.csv "rezns-$w-trace.csv"
    emit "ZLMEASURE rezns_scale $w zones=$RZ_ZONES avail_mib=$avail prefill_mib=$prefill jobs=$RZ_JOBS file_mib=$file loops=$RZ_LOOPS dbnum=$RZ_DBNUM kernel=$(uname -r) f2fs_meta_mib=$mib$fbscale"
  done
}
