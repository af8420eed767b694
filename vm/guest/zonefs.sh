# Group zonefs (sourced by tests.sh; asked for by name, VM_TESTS=zonefs): zonefs, the kernel's
# file-per-zone file system, on ZoneLab's device, formatted with mkzonefs (zonefs-tools, built by
# vm/build.sh from third_party/zonefs-tools). Two parts:
# - zf_run: files written by appending, the zone rules zonefs enforces (a write not at a file's
#   end is refused, a file cannot grow past its zone's capacity, truncating to 0 resets the
#   zone), every file's size equal to its zone's write pointer, and the data read back after
#   unmount and mount and after the server stopped and served its --state file again.
# - zf_suite: zonefs-tools' own test suite (tests/zonefs-tests.sh, short mode) on ZoneLab's
#   device and on a zoned null_blk of the same geometry; every case must end the same on both,
#   and none may fail on ZoneLab.
zf_mnt=/mnt/zf
zf_mounted() { grep -q " $zf_mnt zonefs " /proc/mounts; }
# zf_sizes_match D: every sequential file's size equals the data its zone holds: its write
# pointer, or its capacity when it is full (the kernel reports a full zone's write pointer at
# the zone's end). File seq/i is zone i + 1: zone 0 holds the super block.
zf_sizes_match() {
  local d=$1 f i sz s w cap cond held
  for f in "$zf_mnt"/seq/*; do
    i=$(basename "$f")
    sz=$(stat -c %s "$f")
    read -r s w cap cond < <(DEV=$d zone $((i + 1)))
    held=$(( (cond == 14 ? cap : w) * 512 ))
    [ "$held" = "$sz" ] || { echo "seq/$i: size $sz, zone holds $held (condition $cond)"; return 1; }
  done
}

zf_run() {
  local rc n=7 st=/tmp/zonefs7.state d=/dev/ublkb7 i nseq cap_b=$((CAP_SECTORS * 512))
  mkdir -p "$zf_mnt"
  start_server $n vm --state $st
  mkzonefs -f $d >/tmp/zf.mkfs 2>&1
  rc=$?
  LOG=/tmp/zf.mkfs check zonefs.mkfs "mkzonefs on $NR_ZONES zones of 64 MiB (48 MiB capacity): exit $rc" -- \
    test $rc = 0
  mount -t zonefs $d "$zf_mnt" 2>/tmp/zf.mount
  nseq=$(ls "$zf_mnt/seq" 2>/dev/null | wc -l)
  LOG=/tmp/zf.mount check zonefs.mount "$nseq sequential zone files, $(stat -c %s "$zf_mnt/seq/0" 2>/dev/null) B in seq/0" -- \
    sh -c "grep -q ' $zf_mnt zonefs ' /proc/mounts && test $nseq = $((NR_ZONES - 1))"
  # Files 0-7 get (i + 1) * 4 MiB in two direct appends; file 0 is then filled to its capacity.
  dd if=/dev/urandom of=/tmp/zf.src bs=1M count=64 2>/dev/null
  rc=0
  for i in $(seq 0 7); do
    dd if=/tmp/zf.src of="$zf_mnt/seq/$i" bs=1M count=$((i + 1)) oflag=direct,append conv=notrunc 2>/dev/null || rc=1
    dd if=/tmp/zf.src of="$zf_mnt/seq/$i" bs=1M skip=$((i + 1)) count=$((3 * (i + 1))) \
      oflag=direct,append conv=notrunc 2>/dev/null || rc=1
  done
  dd if=/tmp/zf.src of="$zf_mnt/seq/0" bs=1M skip=4 count=44 oflag=direct,append conv=notrunc 2>/dev/null || rc=1
  check zonefs.append "8 files written by direct appends (4 to 32 MiB), seq/0 to its 48 MiB capacity: sizes $(stat -c %s "$zf_mnt"/seq/[0-7] | tr '\n' ' ')" -- \
    sh -c "test $rc = 0 && test \$(stat -c %s $zf_mnt/seq/0) = $cap_b && test \$(stat -c %s $zf_mnt/seq/7) = $((32 << 20))"
  check zonefs.full_zone "seq/0 written to its capacity: zone 1 condition $(DEV=$d cond_of 1) (14 = full)" -- \
    test "$(DEV=$d cond_of 1)" = 14
  # Zone rules, as zonefs enforces them on the device's write pointers.
  ! dd if=/tmp/zf.src of="$zf_mnt/seq/1" bs=1M count=1 oflag=direct conv=notrunc 2>/tmp/zf.rewrite
  rc=$?
  LOG=/tmp/zf.rewrite check zonefs.write_not_at_end_refused "a direct write at offset 0 of an 8 MiB file: $(head -n 1 /tmp/zf.rewrite)" -- \
    sh -c "test $rc = 0 && test \$(stat -c %s $zf_mnt/seq/1) = $((8 << 20))"
  ! dd if=/tmp/zf.src of="$zf_mnt/seq/0" bs=1M count=1 oflag=direct,append conv=notrunc 2>/tmp/zf.past
  rc=$?
  LOG=/tmp/zf.past check zonefs.past_capacity_refused "an append to a file at its zone's capacity: $(head -n 1 /tmp/zf.past)" -- \
    sh -c "test $rc = 0 && test \$(stat -c %s $zf_mnt/seq/0) = $cap_b"
  truncate -s 0 "$zf_mnt/seq/7"
  check zonefs.truncate_resets "truncating seq/7 to 0 resets zone 8: write pointer $(DEV=$d wp_of 8), condition $(DEV=$d cond_of 8) (1 = empty)" -- \
    test "$(DEV=$d wp_of 8)" = 0 -a "$(DEV=$d cond_of 8)" = 1
  dd if=/tmp/zf.src of="$zf_mnt/seq/7" bs=1M skip=9 count=5 oflag=direct,append conv=notrunc 2>/dev/null
  zf_sizes_match $d >/tmp/zf.sizes 2>&1
  rc=$?
  LOG=/tmp/zf.sizes check zonefs.sizes_are_write_pointers "every file's size equals the data its zone holds (write pointer, or capacity when full)" -- \
    test $rc = 0
  (cd "$zf_mnt/seq" && md5sum 0 1 2 3 4 5 6 7) >/tmp/zf.md5
  umount "$zf_mnt"
  mount -t zonefs $d "$zf_mnt" 2>/tmp/zf.mount
  LOG=/tmp/zf.mount check zonefs.read_back "$(wc -l </tmp/zf.md5) files read back after unmount and mount (sizes from the write pointers)" -- \
    sh -c "grep -q ' $zf_mnt zonefs ' /proc/mounts && cd $zf_mnt/seq && md5sum -c /tmp/zf.md5 >/dev/null"
  umount "$zf_mnt"
  stop_server $n
  start_server $n vm --state $st
  mount -t zonefs $d "$zf_mnt" 2>/tmp/zf.mount
  LOG=/tmp/zf.mount check zonefs.read_back_restart "the files read back after the server stopped and served its --state again" -- \
    sh -c "grep -q ' $zf_mnt zonefs ' /proc/mounts && cd $zf_mnt/seq && md5sum -c /tmp/zf.md5 >/dev/null"
  umount "$zf_mnt"
  stop_server $n
  rm -f $st /tmp/zf.src
}

# zf_suite_on TAG DEV: runs zonefs-tools' suite in short mode on DEV; each case's verdict goes to
# /tmp/zft.TAG.verdicts as "NNNN PASS|skip|FAIL".
zf_suite_on() {
  local tag=$1 d=$2
  rm -rf /tmp/zft.$tag && mkdir -p /tmp/zft.$tag
  (cd /zonefs && PATH=/zonefs/bin:$PATH timeout "${ZF_TIMEOUT:-1500}" bash ./zonefs-tests.sh -s -g /tmp/zft.$tag "$d") \
    >/tmp/zft.$tag.out 2>&1
  echo $? >/tmp/zft.$tag.rc
  sed -n 's/^ *Test \([0-9]*\): .* \.\.\. \(.*\)$/\1 \2/p' /tmp/zft.$tag.out |
    sed 's/\x1b\[[0-9;]*m//g' >/tmp/zft.$tag.verdicts
}

# The suite's module and privilege commands, for a guest whose modules are loaded at boot from
# an initramfs without a modules tree (busybox's modprobe and modinfo look for one) and which
# runs as root: modinfo and modprobe succeed for a loaded module, `modprobe -c` lists nothing
# (so the suite uses the zonefs it finds in /proc/filesystems, without loading or unloading it),
# rmmod leaves null_blk loaded (the other groups' metadata devices need it), sudo runs its command.
zf_shims() {
  local b=/zonefs/bin
  printf '#!/bin/sh\n[ -d "/sys/module/$1" ] && echo "name: $1"\n' >$b/modinfo
  printf '#!/bin/sh\n[ "$1" = -c ] && exit 0\n[ -d "/sys/module/$1" ]\n' >$b/modprobe
  printf '#!/bin/sh\nexit 0\n' >$b/rmmod
  printf '#!/bin/sh\nexec "$@"\n' >$b/sudo
  chmod +x $b/modinfo $b/modprobe $b/rmmod $b/sudo
}

zf_suite() {
  local n=8 pass fail skip differ
  zf_shims
  # A smaller device than vm.toml's 32 zones: 16 zones, the same 64 MiB zones and 48 MiB capacity.
  start_server $n vm --set device.zones.zone_count=16
  zf_suite_on ublk /dev/ublkb$n
  stop_server $n
  nullb_new nullb7 "${NULLB_LIKE_VM[@]}" size=1024 power=1
  zf_suite_on nullb /dev/nullb7
  nullb_gone nullb7
  pass=$(grep -c ' PASS$' /tmp/zft.ublk.verdicts)
  fail=$(grep -c ' FAIL$' /tmp/zft.ublk.verdicts)
  skip=$(grep -c ' skip$' /tmp/zft.ublk.verdicts)
  differ=$(diff /tmp/zft.ublk.verdicts /tmp/zft.nullb.verdicts | grep -c '^[<>]')
  send_file /tmp/zft.ublk.out zonefs-tests.ublk.log
  send_file /tmp/zft.nullb.out zonefs-tests.nullb.log
  for t in $(awk '$2 == "FAIL" {print $1}' /tmp/zft.ublk.verdicts); do
    send_file /tmp/zft.ublk/$t.log zonefs-test-$t.ublk.log
  done
  emit "ZLMEASURE zonefs_tests ublk: $pass passed, $fail failed, $skip skipped (exit $(cat /tmp/zft.ublk.rc)); null_blk: $(grep -c ' PASS$' /tmp/zft.nullb.verdicts) passed, $(grep -c ' FAIL$' /tmp/zft.nullb.verdicts) failed"
  check zonefs.upstream_suite "zonefs-tools' tests (short) on ZoneLab: $pass passed, $fail failed ($(awk '$2 == "FAIL" {printf "%s ", $1}' /tmp/zft.ublk.verdicts)), $skip skipped, exit $(cat /tmp/zft.ublk.rc)" -- \
    test "$pass" -gt 0 -a "$fail" = 0 -a "$(cat /tmp/zft.ublk.rc)" = 0
  check zonefs.upstream_suite_matches_null_blk "every case ends as on a zoned null_blk of the same geometry ($differ lines differ)" -- \
    test "$differ" = 0 -a -s /tmp/zft.nullb.verdicts
}
