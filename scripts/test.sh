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
# rocksdb-tools and a Debian 6.12 kernel. Every stage runs whatever the others do; the end checks
# that the tests left nothing in the temporary directory, prints the total and the stages that
# failed (exit 1 if any). `--quick`: formatting, clippy and the cargo test suite only.
set -uo pipefail
cd "$(dirname "$0")/.."
quick=0
case "${1:-}" in
  --quick) quick=1 ;;
  "") ;;
  *) echo "usage: scripts/test.sh [--quick]" >&2; exit 2 ;;
esac
command -v cargo >/dev/null || { echo "error: cargo not found; install Rust with rustup" >&2; exit 1; }
rustup component add rustfmt clippy >/dev/null 2>&1 || true
# libclang.so itself (libclang-dev): libclang-cpp.so, which LLVM's other packages bring, is not it.
if ! compgen -G '/usr/lib/llvm-*/lib/libclang.so' >/dev/null; then
  sudo_() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
  sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive sudo_ apt-get install -y -qq libclang-dev >/dev/null
fi
# CI builds from a clean clone once: incremental caches would only take disk (a CI machine ran out).
export CARGO_INCREMENTAL=0
log=$(mktemp)
start=$(mktemp)   # what the tests leave in the temporary directory is newer than this
trap 'rm -f "$log" "$start"' EXIT
failed=()
# A stage runs to its end whatever the others do; its output goes to the terminal and the log.
stage() {
  local name=$1
  shift
  echo "== stage: $name"
  local t0=$SECONDS
  if "$@" 2>&1 | tee -a "$log"; then
    echo "== stage: $name passed ($((SECONDS - t0)) s)"
  else
    echo "== stage: $name FAILED ($((SECONDS - t0)) s)"
    failed+=("$name")
  fi
}
# A stage started in the background (its output kept until it ends, then shown and logged), for a
# stage that waits on fixed run times while the foreground one compiles.
declare -A bg_pid bg_out bg_t0
stage_start() {
  local name=$1
  shift
  echo "== stage: $name (started in the background)"
  bg_out[$name]=$(mktemp)
  bg_t0[$name]=$SECONDS
  "$@" >"${bg_out[$name]}" 2>&1 &
  bg_pid[$name]=$!
}
stage_end() {
  local name=$1 rc=0
  wait "${bg_pid[$name]}" || rc=$?
  echo "== stage: $name (output of the background stage)"
  tee -a "$log" <"${bg_out[$name]}"
  rm -f "${bg_out[$name]}"
  if [ "$rc" = 0 ]; then
    echo "== stage: $name passed ($((SECONDS - ${bg_t0[$name]})) s)"
  else
    echo "== stage: $name FAILED ($((SECONDS - ${bg_t0[$name]})) s)"
    failed+=("$name")
  fi
}
fio_test() { # TEST [ARGS...]: an ignored cargo test that drives real fio through the engine
  local engine
  engine=$(bash fio/build.sh | tail -n 1) || return 1
  # The cargo-test stage's workspace and features, so its test build is reused, not redone.
  ZONELAB_FIO_ENGINE="$engine" cargo test --workspace --all-features --locked --test "$@"
}
stage fmt cargo fmt --all -- --check
stage clippy cargo clippy --workspace --all-targets --all-features --locked -- -D warnings
stage cargo-test cargo test --workspace --all-targets --all-features --locked
if [ "$quick" = 0 ]; then
  # One release CLI for every stage below: the VM needs the ublk front end, so all build it
  # with the same features (a feature change would rebuild and relink it with whole-program LTO).
  export ZONELAB_CLI_FEATURES=ublk
  # The Python wheel and the fio engine are tested, not timed: built without whole-program LTO
  # (Cargo profile `quick`); they give the same results as the release builds.
  export ZONELAB_WHEEL_PROFILE=quick ZONELAB_FIO_PROFILE=quick
  # The Python package: virtualenv under target/, wheel built with maturin, pytest.
  stage python bash python/setup.sh
  stage fio fio_test fio -- --ignored
  # zonelab calibrate recovers zn540 from the calibration jobs run through fio on the engine.
  stage calibrate fio_test calibrate -- --ignored
  # fio's own t/zbd suite on three device shapes, in parallel: about 410 s of wall time, most of
  # it in its fixed 30-second tests (BENCHMARKS.md, "The test suite"). It runs beside the PGO
  # stage, whose whole-program link uses one core for minutes (they share no cargo build
  # directory).
  stage_start zbd fio_test zbd -- --ignored --nocapture
  # The PGO build gives the release build's results, byte for byte.
  stage pgo bash scripts/build-pgo.sh --check
  # Its two intermediate build trees (instrumented, then profile-guided) are not used again.
  rm -rf target/pgo/instrumented target/pgo/build
  stage_end zbd
  stage kv-validate bash scripts/kv-validate.sh
  stage vm bash vm/test.sh
fi
# Tests clean up after themselves, passing or failing: nothing of theirs is left in the
# temporary directory (a failed zbd suite keeps its work directory for its logs, and says so).
leftovers() {
  local left
  left=$(find "${TMPDIR:-/tmp}" -mindepth 1 -maxdepth 1 -newer "$start" \
    \( -name 'zonelab-*' -o -name '*-verify.state' \) -print)
  [ -z "$left" ] || { echo "left in ${TMPDIR:-/tmp} by the tests:"; echo "$left"; return 1; }
}
stage leftovers leftovers
# cargo's "test result: ok. N passed; M failed; ..." lines, pytest's "M failed, N passed in T s",
# kv-validate's "kv-validate: N passed, M failed", the PGO check's "pgo: N passed, M failed" and
# the VM's "vm: N passed, M failed, K skipped".
awk '/^test result:/ { p += $4; f += $6; next }
     /^(vm|kv-validate|pgo): [0-9]+ passed/ { p += $2; f += $4; next }
     /(passed|failed).* in [0-9.]+s/ { for (i = 2; i <= NF; i++) { if ($i ~ /^passed/) p += $(i-1); if ($i ~ /^failed/) f += $(i-1) } }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed stages: ${failed[*]}"
  exit 1
fi
