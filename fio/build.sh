#!/usr/bin/env bash
# Builds the ZoneLab fio engine, target/fio/zonelab-fio.so, against the fio installed on this
# machine: installs fio (Debian's), fetches the matching sources with `apt-get source` (adding a
# deb-src entry if needed), runs fio's configure for config-host.h, builds the Rust static library
# and links the C shim. Prints the engine's path last.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out="$root/target/fio"
# Cargo's output directory (CARGO_TARGET_DIR, relative to the repository, or target/).
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
mkdir -p "$out"

sudo_() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
export DEBIAN_FRONTEND=noninteractive

if ! command -v fio >/dev/null 2>&1 || ! command -v gcc >/dev/null 2>&1 || [ ! -f /usr/include/libaio.h ]; then
  sudo_ apt-get update -qq
  sudo_ apt-get install -y -qq fio gcc make libaio-dev libnuma-dev zlib1g-dev dpkg-dev >/dev/null
fi
version=$(dpkg-query -W -f='${Version}' fio)   # e.g. 3.33-3
upstream=${version%%-*}
src="$out/fio-$upstream"
if [ ! -f "$src/config-host.h" ]; then
  if ! apt-get source --print-uris "fio=$version" 2>/dev/null | grep -q orig; then
    # No deb-src entry yet: add one mirroring the binary sources.
    for f in /etc/apt/sources.list.d/*.sources; do
      [ -f "$f" ] || continue
      if grep -q '^Types: deb$' "$f" && ! grep -q 'deb-src' "$f"; then
        sed 's/^Types: deb$/Types: deb-src/' "$f" | sudo_ tee "/etc/apt/sources.list.d/zonelab-src-$(basename "$f")" >/dev/null
      fi
    done
    sudo_ apt-get update -qq
  fi
  (cd "$out" && apt-get source -qq --download-only "fio=$version" >/dev/null && dpkg-source -x --skip-patches fio_*.dsc "fio-$upstream" >/dev/null 2>&1 || true)
  [ -d "$src" ] || { echo "error: could not unpack fio $version sources" >&2; exit 1; }
  # Debian configures fio this way (debian/rules); the engine must see the same structures.
  (cd "$src" && ./configure --disable-native --prefix=/usr >/dev/null)
fi

# ZONELAB_FIO_PROFILE: the Cargo profile (scripts/test.sh builds the engine it tests with `quick`).
profile=${ZONELAB_FIO_PROFILE:-release-unwind}
cargo build --profile "$profile" --locked -p zonelab-ffi
gcc -O2 -g -Wall -D_GNU_SOURCE -fPIC -shared -rdynamic \
  -I"$src" -include "$src/config-host.h" \
  -o "$out/zonelab-fio.so" "$root/fio/zonelab_engine.c" \
  "$target/$profile/libzonelab_ffi.a" -lpthread -ldl -lm
echo "$out/zonelab-fio.so"
