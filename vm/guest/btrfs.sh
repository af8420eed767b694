# Group btrfs (sourced by tests.sh; asked for by name, VM_TESTS=btrfs): btrfs in zoned mode on
# ZoneLab's device (experiments/ublk/vm.toml: 32 zones of 64 MiB, 48 MiB capacity, 14 open and
# active), what a researcher tries first on a zoned block device after F2FS. mkfs.btrfs -O zoned,
# files written and checksummed, read back after unmount and mount, and again after the server
# stopped and served its --state file; the kernel's own check (btrfs scrub) must find nothing.
# zonefs has its own group (vm/guest/zonefs.sh).
# bt_mounted: /mnt/bt is a btrfs mount (not the directory under it, which a failed mount leaves).
bt_mounted() { grep -q ' /mnt/bt btrfs ' /proc/mounts; }
bt_run() {
  local rc n=6 st=/tmp/btrfs6.state
  mkdir -p /mnt/bt
  start_server $n vm --state $st
  mkfs.btrfs -f -O zoned -d single -m single /dev/ublkb$n >/tmp/bt.mkfs 2>&1
  rc=$?
  LOG=/tmp/bt.mkfs check btrfs.mkfs "mkfs.btrfs -O zoned on 32 zones of 64 MiB (48 MiB capacity): exit $rc" -- \
    test $rc = 0
  mount -t btrfs /dev/ublkb$n /mnt/bt 2>/tmp/bt.mount
  rc=$?
  LOG=/tmp/bt.mount check btrfs.mount "exit $rc" -- bt_mounted
  for i in $(seq 1 8); do
    dd if=/dev/urandom of=/mnt/bt/f$i bs=1M count=24 conv=fsync 2>/dev/null
  done
  # Overwrites: btrfs writes them out of place, into new zones.
  for i in 1 2 3; do
    dd if=/dev/urandom of=/mnt/bt/f$i bs=1M count=24 conv=fsync,notrunc 2>/dev/null
  done
  (cd /mnt/bt && md5sum f*) >/tmp/bt.md5
  umount /mnt/bt
  mount -t btrfs /dev/ublkb$n /mnt/bt 2>/tmp/bt.mount
  LOG=/tmp/bt.mount check btrfs.read_back "$(wc -l </tmp/bt.md5) files of 24 MiB (three overwritten) read back after unmount and mount; the zones held $(zoned_mib /dev/ublkb$n) MiB" -- \
    sh -c "grep -q ' /mnt/bt btrfs ' /proc/mounts && cd /mnt/bt && md5sum -c /tmp/bt.md5 >/dev/null"
  umount /mnt/bt
  stop_server $n
  start_server $n vm --state $st
  mount -t btrfs /dev/ublkb$n /mnt/bt 2>/tmp/bt.mount
  LOG=/tmp/bt.mount check btrfs.read_back_restart "the files read back after the server stopped and served its --state again" -- \
    sh -c "grep -q ' /mnt/bt btrfs ' /proc/mounts && cd /mnt/bt && md5sum -c /tmp/bt.md5 >/dev/null"
  btrfs scrub start -B /mnt/bt >/tmp/bt.scrub 2>&1
  rc=$?
  LOG=/tmp/bt.scrub check btrfs.scrub "btrfs scrub: exit $rc, $(grep -m1 -o 'no errors found\|[0-9]* errors' /tmp/bt.scrub || echo 'no verdict')" -- \
    sh -c "test $rc = 0 && grep -q 'no errors found' /tmp/bt.scrub"
  umount /mnt/bt
  stop_server $n
  rm -f $st
}
