#!/usr/bin/env bash
# Builds the guest vm/test.sh boots: Debian's 6.12 kernel (bookworm-backports) with the modules
# the tests load (ublk_drv, null_blk, f2fs and what they depend on), busybox, the host's fio,
# blkzone, f2fs-tools, db_bench, bash and GNU grep/sed with their shared libraries, fio's
# t/zbd tests, Filebench (built here from third_party/filebench: no Debian package) and the
# zonelab binary, all in one initramfs. Everything comes from Debian packages (installed with
# apt, or downloaded into target/vm/debs) or is built here; downloads and the Filebench build are
# cached under target/vm, so a rerun only rebuilds the initramfs. Prints the kernel and initramfs
# paths.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out="$root/target/vm"
# Cargo's output directory (CARGO_TARGET_DIR, relative to the repository, or target/).
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
mkdir -p "$out/debs"

sudo_() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
export DEBIAN_FRONTEND=noninteractive
export PATH="$PATH:/usr/sbin:/sbin"  # blkzone, mkfs.f2fs and fsck.f2fs live there
log() { echo "vm/build.sh: $*" >&2; }

# Filebench is for group rezns only (varmail, fileserver): built when VM_TESTS names it, so the
# default groups the test command runs do not pay for it.
want_fb=
[[ ",${VM_TESTS:-}," != *",rezns,"* ]] || want_fb=1
# btrfs-progs and the btrfs module for group btrfs, when VM_TESTS names it.
want_btrfs=
[[ ",${VM_TESTS:-}," != *",btrfs,"* ]] || want_btrfs=1
# zonefs-tools (mkzonefs and the test tools zio and zopen, built here from
# third_party/zonefs-tools: no Debian package) and the zonefs module for group zonefs.
want_zonefs=
[[ ",${VM_TESTS:-}," != *",zonefs,"* ]] || want_zonefs=1
# Host tools: QEMU, the programs copied into the guest, libclang for libublk's bindgen, and
# what builds Filebench from its git tree (autotools, libtool, bison, flex, a C compiler).
tools="qemu-system-x86_64:qemu-system-x86 mkfs.f2fs:f2fs-tools fio:fio db_bench:rocksdb-tools
       blkzone:util-linux cpio:cpio modinfo:kmod xz:xz-utils"
[ -z "$want_fb" ] || tools="$tools autoreconf:autoconf automake:automake libtoolize:libtool
       bison:bison flex:flex gcc:gcc make:make"
[ -z "$want_btrfs" ] || tools="$tools mkfs.btrfs:btrfs-progs"
[ -z "$want_zonefs" ] || tools="$tools autoreconf:autoconf automake:automake libtoolize:libtool
       gcc:gcc make:make"
need=()
for p in $tools; do
  command -v "${p%%:*}" >/dev/null 2>&1 || need+=("${p#*:}")
done
# mkzonefs's headers and libraries (libblkid, libuuid).
if [ -n "$want_zonefs" ]; then
  for p in libblkid-dev uuid-dev; do dpkg -s "$p" >/dev/null 2>&1 || need+=("$p"); done
fi
dpkg -s busybox-static >/dev/null 2>&1 || need+=(busybox-static)
compgen -G '/usr/lib/llvm-*/lib/libclang.so' >/dev/null || need+=(libclang-dev)
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  sudo_ apt-get update -qq
  sudo_ apt-get install -y -qq "${need[@]}" >/dev/null
fi
# The guest needs the static busybox (busybox-static replaces the dynamic one).
busybox=$(dpkg -L busybox-static | grep -m1 '/busybox$')

# The kernel: linux-image-6.12 from bookworm-backports (ublk_drv with zoned support, f2fs,
# null_blk), downloaded once.
deb=$(ls "$out"/debs/linux-image-6.12*.deb 2>/dev/null | head -n 1 || true)
if [ -z "$deb" ]; then
  src=/etc/apt/sources.list.d/zonelab-backports.sources
  if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    log "adding bookworm-backports to apt's sources"
    printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      | sudo_ tee "$src" >/dev/null
  fi
  sudo_ apt-get update -qq
  meta=$(apt-cache madison linux-image-amd64 | awk -F'|' '/bookworm-backports/ {gsub(/ /, "", $2); print $2; exit}')
  [ -n "$meta" ] || { echo "error: bookworm-backports has no linux-image-amd64" >&2; exit 1; }
  pkg=$(apt-cache depends "linux-image-amd64=$meta" | awk '/Depends: linux-image-6\.12/ {print $2; exit}')
  [ -n "$pkg" ] || { echo "error: linux-image-amd64 $meta does not depend on a 6.12 image" >&2; exit 1; }
  log "downloading $pkg $meta"
  (cd "$out/debs" && apt-get download -q "$pkg=$meta" >/dev/null)
  deb=$(ls "$out"/debs/linux-image-6.12*.deb | head -n 1)
fi
kdir="$out/kernel"
if [ ! -f "$kdir/.from" ] || [ "$(cat "$kdir/.from")" != "$(basename "$deb")" ]; then
  rm -rf "$kdir" && mkdir -p "$kdir"
  dpkg-deb -x "$deb" "$kdir"
  basename "$deb" >"$kdir/.from"
fi
kver=$(ls "$kdir/lib/modules" | head -n 1)
vmlinuz="$kdir/boot/vmlinuz-$kver"

# fio's zoned block device tests, from the sources fio/build.sh unpacks.
fiov=$(dpkg-query -W -f='${Version}' fio)
zbd="$root/target/fio/fio-${fiov%%-*}/t/zbd"
[ -f "$zbd/test-zbd-support" ] || bash fio/build.sh >&2
[ -f "$zbd/test-zbd-support" ] || { echo "error: $zbd/test-zbd-support missing" >&2; exit 1; }

# autotools_build NAME SRC OUT BINARY AUTORECONF_ARGS CONFIGURE_ARGS: builds the vendored
# autotools tree SRC: copied into OUT/src (autoreconf writes into its tree), configured and built
# out of tree in OUT/build, installed under OUT/install with prefix /usr. Rebuilt only when
# OUT/install/BINARY is missing or the source or the flags changed since the last build.
cflags="-O2 -g"
autotools_build() {
  local name=$1 src=$2 dst=$3 bin=$4 reconf=$5 conf=$6 key
  key=$( (cd "$src" && find . -type f | LC_ALL=C sort | xargs sha256sum; echo "$cflags|$reconf|$conf") | sha256sum | cut -d' ' -f1)
  if [ -x "$dst/install/$bin" ] && [ "$(cat "$dst/.key" 2>/dev/null)" = "$key" ]; then
    return 0
  fi
  log "building $name from ${src#"$root"/}"
  rm -rf "$dst" && mkdir -p "$dst/build"
  cp -r "$src" "$dst/src"
  # shellcheck disable=SC2086 # the argument lists split on purpose
  { (cd "$dst/src" && autoreconf $reconf) >"$dst/autoreconf.log" 2>&1 &&
    (cd "$dst/build" && "$dst/src/configure" --prefix=/usr $conf CFLAGS="$cflags") >"$dst/configure.log" 2>&1 &&
    make -C "$dst/build" -j"$(nproc)" >"$dst/make.log" 2>&1 &&
    make -C "$dst/build" install DESTDIR="$dst/install" >"$dst/install.log" 2>&1
  } || { echo "error: the $name build failed; logs in $dst" >&2; tail -n 20 "$dst"/*.log >&2; exit 1; }
  echo "$key" >"$dst/.key"
}

# Filebench (group rezns's varmail and fileserver): it loads its cvar libraries, e.g. the gamma
# file sizes of varmail.f and fileserver.f, from /usr/lib/filebench. (This tree builds with
# GCC 12 as it is: no -fcommon needed.)
fb="$out/filebench"
[ -z "$want_fb" ] || autotools_build Filebench "$root/third_party/filebench" "$fb" usr/bin/filebench "-i" ""

# zonefs-tools 1.6.0 (group zonefs), configured --with-tests: the tools its test suite runs,
# tests/tools/zio and zopen.
zfsrc="$root/third_party/zonefs-tools"
zf="$out/zonefs-tools"
[ -z "$want_zonefs" ] || autotools_build zonefs-tools "$zfsrc" "$zf" usr/sbin/mkzonefs "-f -i" "--with-tests"

cargo build --release --locked -p zonelab-cli --features "ublk${ZONELAB_CLI_FEATURES:+,$ZONELAB_CLI_FEATURES}" >&2

# The initramfs tree.
tree="$out/initramfs"
rm -rf "$tree"
mkdir -p "$tree"/{bin,sbin,dev,proc,sys,tmp,run,mnt,results,lib/modules,zbd/t/zbd,exp,guest}
cp "$busybox" "$tree/bin/busybox"
for applet in $("$tree/bin/busybox" --list); do
  [ -e "$tree/bin/$applet" ] || ln -s busybox "$tree/bin/$applet"
done

# Host programs and every shared library they load (dynamic loader included).
copy_prog() {
  local src=$1 dst="$tree/bin/$(basename "$1")"
  rm -f "$dst" && cp -L "$src" "$dst"
  ldd "$src" | awk '/=> \// {print $3} /^[ \t]*\// {print $1}' | while read -r lib; do
    mkdir -p "$tree$(dirname "$lib")"
    [ -e "$tree$lib" ] || cp -L "$lib" "$tree$lib"
  done
}
for prog in bash grep sed timeout fio blkzone mkfs.f2fs fsck.f2fs db_bench; do
  copy_prog "$(command -v "$prog")"
done
copy_prog "$target/release/zonelab"
if [ -n "$want_btrfs" ]; then
  for prog in mkfs.btrfs btrfs; do copy_prog "$(command -v "$prog")"; done
fi
if [ -n "$want_zonefs" ]; then
  # mkzonefs, and upstream's test suite with its tools (vm/guest/zonefs.sh runs it from /zonefs).
  copy_prog "$zf/install/usr/sbin/mkzonefs"
  mkdir -p "$tree/zonefs/tools"
  cp -r "$zfsrc/tests/scripts" "$zfsrc/tests/zonefs-tests.sh" "$tree/zonefs/"
  for t in zio zopen; do copy_prog "$zf/build/tests/tools/$t" && mv "$tree/bin/$t" "$tree/zonefs/tools/"; done
  # GNU dd, ls, stat and truncate for the suite's own PATH (it is written for them, not for
  # busybox's: ls -U, for one); vm/guest/zonefs.sh adds its module shims there.
  mkdir -p "$tree/zonefs/bin"
  for p in dd ls stat truncate; do
    copy_prog "$(command -v "$p")" && mv "$tree/bin/$p" "$tree/zonefs/bin/$p" && ln -s busybox "$tree/bin/$p"
  done
fi
if [ -n "$want_fb" ]; then
  copy_prog "$fb/install/usr/bin/filebench"
  # Filebench's cvar libraries (dlopen()ed from /usr/lib/filebench; they need only libc and
  # libm, already copied) and the workloads group rezns runs (vm/guest/rezns.sh sets their
  # parameters).
  mkdir -p "$tree/usr/lib/filebench" "$tree/usr/share/filebench/workloads"
  cp -a "$fb"/install/usr/lib/filebench/*.so* "$tree/usr/lib/filebench/"
  cp "$fb"/install/usr/share/filebench/workloads/{varmail,fileserver}.f "$tree/usr/share/filebench/workloads/"
fi
# fio's t/zbd/test-zbd-support runs ../../fio from its own directory.
cp "$zbd/test-zbd-support" "$zbd/functions" "$tree/zbd/t/zbd/"
ln -s /bin/fio "$tree/zbd/fio"
ln -s /bin/bash "$tree/bin/sh.bash"

# Modules, dependencies first, decompressed so busybox insmod loads them.
mods="$kdir/lib/modules/$kver/kernel"
modpath() { find "$mods" -name "$(echo "$1" | sed 's/[-_]/[-_]/g').ko*" | head -n 1; }
order=()
add_mod() {
  local name=$1 path dep
  for seen in "${order[@]:-}"; do [ "$seen" = "$name" ] && return 0; done
  path=$(modpath "$name")
  [ -n "$path" ] || { echo "error: module $name not in $deb" >&2; exit 1; }
  for dep in $(modinfo -F depends "$path" | tr ',' ' '); do
    add_mod "$dep"
  done
  # Soft dependencies may name an alias (f2fs: crc32); crc32_generic is listed below.
  for dep in $(modinfo -F softdep "$path" | sed -n 's/.*pre: *//p'); do
    [ -z "$(modpath "$dep")" ] || add_mod "$dep"
  done
  order+=("$name")
  xz -dc "$path" >"$tree/lib/modules/$name.ko" 2>/dev/null || cp "$path" "$tree/lib/modules/$name.ko"
}
for m in configfs null_blk ublk_drv crc32_generic f2fs ${want_btrfs:+crc32c_generic btrfs} ${want_zonefs:+zonefs}; do
  add_mod "$m"
done
printf '%s\n' "${order[@]}" >"$tree/lib/modules/order"

cp "$root"/experiments/ublk/*.toml "$tree/exp/"
cp "$root"/vm/guest/* "$tree/guest/"
cp "$root/vm/guest/init" "$tree/init"
chmod +x "$tree/init" "$tree"/guest/*

(cd "$tree" && find . | cpio -o -H newc --quiet) >"$out/initramfs.cpio"
log "initramfs $(du -h "$out/initramfs.cpio" | cut -f1), kernel $kver, modules: ${order[*]}"
echo "$vmlinuz"
echo "$out/initramfs.cpio"
