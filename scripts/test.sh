#!/usr/bin/env bash
# Every test ZoneLab has, as CI runs it: formatting, lints, the whole test suite (unit, property,
# end-to-end and reproduction tests), then real fio through the ZoneLab engine, the Python
# package's tests, the key-value model against real db_bench (scripts/kv-validate.sh), then ZoneLab
# as a real zoned block device in a VM (vm/test.sh), with a total at the end. Needs a Rust
# toolchain (rustup, as the project's machines have); adds rustfmt and clippy; installs libclang
# (libublk's bindgen) with apt; python/setup.sh needs Python 3.11+ and PyPI (it installs the
# package and its test tools into target/pyenv); scripts/build-pgo.sh installs llvm-N (rustc's LLVM
# version) for llvm-profdata; fio/build.sh installs fio, its sources and gcc;
# scripts/kv-validate.sh installs rocksdb-tools with apt; vm/build.sh QEMU, busybox, f2fs-tools,
# rocksdb-tools and a Debian 6.12 kernel.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo >/dev/null || { echo "error: cargo not found; install Rust with rustup" >&2; exit 1; }
rustup component add rustfmt clippy >/dev/null 2>&1 || true
if ! ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1; then
  sudo_() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
  sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive sudo_ apt-get install -y -qq libclang-dev >/dev/null
fi
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --all-features --locked -- -D warnings
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --workspace --all-targets --all-features --locked 2>&1 | tee "$log"
# The Python package: virtualenv under target/, wheel built with maturin, pytest (python/setup.sh).
bash python/setup.sh 2>&1 | tee -a "$log"
# The PGO build gives the release build's results, byte for byte (scripts/build-pgo.sh --check).
bash scripts/build-pgo.sh --check 2>&1 | tee -a "$log"
engine=$(bash fio/build.sh | tail -n 1)
ZONELAB_FIO_ENGINE="$engine" cargo test --locked -p zonelab-ffi --test fio -- --ignored 2>&1 | tee -a "$log"
# zonelab calibrate recovers zn540 from the calibration jobs run through fio on the engine.
ZONELAB_FIO_ENGINE="$engine" cargo test --locked -p zonelab-cli --test calibrate -- --ignored 2>&1 | tee -a "$log"
# fio's own t/zbd suite on three device shapes, in parallel (7.5 to 11 minutes measured on the
# 2-core machine shared with other builds; its fixed 30-second tests dominate).
ZONELAB_FIO_ENGINE="$engine" cargo test --locked -p zonelab-cli --test zbd -- --ignored --nocapture 2>&1 | tee -a "$log"
bash scripts/kv-validate.sh 2>&1 | tee -a "$log"
bash vm/test.sh 2>&1 | tee -a "$log"
# cargo's "test result: ok. N passed; M failed; ..." lines, pytest's "M failed, N passed in T s",
# kv-validate's "kv-validate: N passed, M failed", the PGO check's "pgo: N passed, M failed" and
# the VM's "vm: N passed, M failed, K skipped".
awk '/^test result:/ { p += $4; f += $6; next }
     /^(vm|kv-validate|pgo): [0-9]+ passed/ { p += $2; f += $4; next }
     /(passed|failed).* in [0-9.]+s/ { for (i = 2; i <= NF; i++) { if ($i ~ /^passed/) p += $(i-1); if ($i ~ /^failed/) f += $(i-1) } }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
