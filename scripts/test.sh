#!/usr/bin/env bash
# Every test ZoneLab has, as CI runs it: formatting, lints, the whole test suite (unit, property,
# end-to-end and reproduction tests), then real fio through the ZoneLab engine, with a total at
# the end. Needs a Rust toolchain (rustup, as the project's machines have); adds rustfmt and
# clippy; fio/build.sh installs fio, its sources and gcc with apt.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo >/dev/null || { echo "error: cargo not found; install Rust with rustup" >&2; exit 1; }
rustup component add rustfmt clippy >/dev/null 2>&1 || true
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --workspace --all-targets --locked 2>&1 | tee "$log"
engine=$(bash fio/build.sh | tail -n 1)
ZONELAB_FIO_ENGINE="$engine" cargo test --locked -p zonelab-ffi --test fio -- --ignored 2>&1 | tee -a "$log"
awk '/^test result:/ { p += $4; f += $6 } END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
