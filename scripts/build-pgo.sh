#!/usr/bin/env bash
# Builds the CLI with profile-guided optimisation and puts it at target/pgo/zonelab: an
# instrumented build runs a training set (every `zonelab bench --quick` case and nine shipped
# experiments: fio jobs, eZNS, the conventional SSD, the file layer and the key-value store), then
# the release build uses the profile it wrote. The simulator is the same code: results are
# byte-identical to `cargo build --release` (scripts/test.sh checks), only faster (BENCHMARKS.md,
# "Simulator core"). The training set does not
# include the peers' streams (experiments/peers/), so the figures measured on them are not
# trained for.
#
# `--check` then runs shipped experiments with it and with the release build (built if missing)
# and compares every output file byte for byte: "pgo: N passed, M failed".
#
# Needs llvm-profdata of the LLVM major version rustc uses (`rustc -vV`); installs llvm-N with
# apt if it is missing. Takes about twice as long as a release build.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=target/pgo
major=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
[ -n "$major" ] || { echo "error: cannot read rustc's LLVM version from \`rustc -vV\`" >&2; exit 1; }
profdata=/usr/lib/llvm-$major/bin/llvm-profdata
if [ ! -x "$profdata" ]; then
  sudo_() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
  echo "build-pgo: installing llvm-$major (llvm-profdata) with apt" >&2
  sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive sudo_ apt-get install -y -qq "llvm-$major" >/dev/null ||
    { echo "error: llvm-$major is not installable here; rustc $(rustc --version) needs llvm-profdata $major" >&2; exit 1; }
fi

# On glibc Linux the CLI is linked statically and not position-independent: a process then
# starts without loading shared libraries or applying relocations (BENCHMARKS.md, "What the hot
# path does"). The build names its target so that RUSTFLAGS
# reach the CLI's crates but not the build scripts and proc macros, which run on the host.
host=$(rustc -vV | sed -n 's/^host: //p')
case "$host" in
  *-linux-gnu) link="-C target-feature=+crt-static -C relocation-model=static" ;;
  *) link="" ;;
esac

rm -rf "$out/profiles" "$out/train"
mkdir -p "$out/profiles" "$out/train"
# Only the CLI's own profiles (zonelab-*) are merged below, so a reused target directory gives
# the same profile as a fresh one.
RUSTFLAGS="${RUSTFLAGS:-} $link -Cprofile-generate=$root/$out/profiles" \
  CARGO_TARGET_DIR="$out/instrumented" cargo build --release --locked -p zonelab-cli --target "$host"
bin=$out/instrumented/$host/release/zonelab
export LLVM_PROFILE_FILE="$root/$out/profiles/zonelab-%p-%m.profraw"
"$bin" bench --quick >/dev/null
for e in quickstart/rezns-randrw preemptive-reset/mixed preemptive-reset/rocksdb ezns/fair-rw \
  ezns/rocksdb-single block-interface-tax/zns block-interface-tax/conventional rezns/fio \
  rezns/varmail; do
  "$bin" run "experiments/$e.toml" -o "$out/train/${e//\//-}" >/dev/null
done
unset LLVM_PROFILE_FILE
"$profdata" merge -o "$out/zonelab.profdata" "$out"/profiles/zonelab-*.profraw
RUSTFLAGS="${RUSTFLAGS:-} $link -Cprofile-use=$root/$out/zonelab.profdata" \
  CARGO_TARGET_DIR="$out/build" cargo build --release --locked -p zonelab-cli --target "$host"
cp "$out/build/$host/release/zonelab" "$out/zonelab"
echo "$out/zonelab"

[ "${1:-}" = --check ] || exit 0
# ZONELAB_CLI_FEATURES: as scripts/test.sh builds the release CLI for every stage (the features
# add front ends; the simulation is the same code).
cargo build --release --locked -p zonelab-cli ${ZONELAB_CLI_FEATURES:+--features "$ZONELAB_CLI_FEATURES"}
rm -rf "$out/check"
passed=0 failed=0
for e in peers/s1-seqwrite peers/s2-randread quickstart/rezns-randrw lsm-zgc/updates \
  ezns/fair-rw block-interface-tax/conventional; do
  name=${e//\//-}
  target/release/zonelab run "experiments/$e.toml" -o "$out/check/release/$name" >/dev/null
  "$out/zonelab" run "experiments/$e.toml" -o "$out/check/pgo/$name" >/dev/null
  if diff -r "$out/check/release/$name" "$out/check/pgo/$name" >/dev/null; then
    passed=$((passed + 1))
  else
    echo "pgo: $e differs between the release and the PGO build" >&2
    failed=$((failed + 1))
  fi
done
echo "pgo: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
