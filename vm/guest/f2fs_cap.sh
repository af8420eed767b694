# Group f2fs_cap (sourced by tests.sh; asked for by name, VM_TESTS=f2fs_cap): why fsck.f2fs 1.15
# reported "free segment_count matched with CP [Fail]" when zone capacity is below zone size and
# F2FS's metadata device was 1 GiB (group f2fs now uses the smallest one mkfs takes, and fsck is
# clean). The cause this group measures: Linux 6.12 applies one zone capacity to every section of
# a zoned F2FS (fs/f2fs/segment.h, f2fs_usable_zone_blks_in_seg() with
# sbi->unusable_blocks_per_sec), including the sections of the main area that lie on the
# conventional metadata device, so the checkpoint's free_segment_count leaves their segments
# past the capacity out; fsck.f2fs 1.15 (fsck/mount.c, is_usable_seg()) counts every segment of a
# conventional device as usable. Then fsck's count exceeds the checkpoint's by
# (main-area sections on the metadata device) x (segments per section past the capacity), on
# any zoned device, since neither side looks at the zoned device itself: on ZoneLab and on a
# zoned null_blk alike, and 0 when capacity = size.

# fc_case TAG ZONED CAP_MIB: F2FS with a 1 GiB metadata null_blk on ZONED (64 MiB zones of
# CAP_MIB capacity), a file written, unmount, fsck; checks fsck's excess over the checkpoint.
fc_case() {
  local tag=$1 zdev=$2 cap_mib=$3 meta=nullb5 log=/tmp/fc.$1
  local cp_free fsck_free main segs conv unusable expect rc mdev=/dev/$meta
  nullb_new $meta size=1024 memory_backed=1 blocksize=4096 power=1
  mkfs.f2fs -f -m -c "$zdev" "$mdev" >$log.mkfs 2>&1
  mkdir -p /mnt/fc
  mount -t f2fs "$mdev" /mnt/fc 2>$log.mount &&
    dd if=/dev/urandom of=/mnt/fc/f bs=1M count=16 conv=fsync 2>/dev/null &&
    umount /mnt/fc
  fsck.f2fs -f --dry-run -d 1 "$mdev" >$log.fsck 2>&1
  rc=$?
  nullb_gone $meta
  cp_free=$(awk '$1 == "free_segment_count" { gsub(/]/, "", $NF); print $NF; exit }' $log.fsck)
  fsck_free=$(sed -n 's/^\[FSCK\] free segment_count matched with CP.*\[0x\([0-9a-f]*\)\].*/\1/p' $log.fsck)
  fsck_free=$((16#${fsck_free:-0}))
  main=$(awk '$1 == "main_blkaddr" { gsub(/]/, "", $NF); print $NF; exit }' $log.fsck)
  segs=$(awk '$1 == "segs_per_sec" { gsub(/]/, "", $NF); print $NF; exit }' $log.fsck)
  # Sections of the main area on the 1 GiB (262144-block) metadata device, and segments (512
  # blocks, 2 MiB) per section past the zone capacity.
  conv=$(( (262144 - ${main:-0}) / (512 * ${segs:-1}) ))
  unusable=$(( ${segs:-0} - cap_mib / 2 ))
  expect=$((conv * unusable))
  emit "ZLMEASURE f2fs_cap $tag cap=${cap_mib}MiB fsck_exit=$rc cp_free=$cp_free fsck_free=$fsck_free main_sections_on_meta=$conv unusable_segs_per_sec=$unusable"
  LOG=$log.fsck check f2fs_cap.$tag "capacity $cap_mib of 64 MiB, 1 GiB metadata device: fsck counts $fsck_free free segments, the checkpoint $cp_free; $conv main-area sections on the metadata device x $unusable segments past the capacity = $expect (fsck exit $rc)" -- \
    test -n "$cp_free" -a $((fsck_free - cp_free)) = "$expect" -a \( "$expect" != 0 -o "$rc" = 0 \)
}

fc_run() {
  start_server 9 vm
  fc_case zonelab_cap48 /dev/ublkb9 48
  stop_server 9
  start_server 9 vm --set 'device.zones.zone_capacity_bytes="64MiB"'
  fc_case zonelab_cap64 /dev/ublkb9 64
  stop_server 9
  nullb_new nullb6 "${NULLB_LIKE_VM[@]}" size=2048 power=1
  fc_case null_blk_cap48 /dev/nullb6 48
  nullb_gone nullb6
}
