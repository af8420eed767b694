#!/usr/bin/env bash
# Every test ZoneLab has, as CI runs it: formatting, lints, then the whole test suite.
# Needs a Rust toolchain (rustup, as the project's machines have); adds rustfmt and clippy.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo >/dev/null || { echo "error: cargo not found; install Rust with rustup" >&2; exit 1; }
rustup component add rustfmt clippy >/dev/null 2>&1 || true
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
