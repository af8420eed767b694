#!/usr/bin/env bash
# The seed swarm (crates/zonelab-swarm): one seed draws a device, a firmware policy, a front end
# and a workload; checkers run after every step (reference model of the zone rules, bytes read,
# device invariants, no panic, no hang, save -> load -> the same device). `cargo test` runs a
# bounded part; this runs as many seeds as asked, on every core unless ZONELAB_SWARM_JOBS says.
# Usage:
#   scripts/swarm.sh [SEEDS]          seeds 0..SEEDS (default 10000); ZONELAB_SWARM_START moves the first
#   scripts/swarm.sh --seed N         one seed, its case printed
#   scripts/swarm.sh --case FILE      a case file (crates/zonelab-swarm/regressions/*.json)
# Failing seeds are shrunk into swarm-failures/ (add them to crates/zonelab-swarm/regressions/).
# Scratch files (the state files of the device manager's process lifetimes) go to /dev/shm when
# it is writable: the swarm checks the device's logic, not the disk, and fsync to a disk cost
# the manager three quarters of its time (ZONELAB_SWARM_TMPDIR chooses another directory).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -n "${ZONELAB_SWARM_TMPDIR:-}" ]]; then
  export TMPDIR="$ZONELAB_SWARM_TMPDIR"
elif [[ -d /dev/shm && -w /dev/shm ]]; then
  export TMPDIR=/dev/shm
fi
cargo build --locked --profile quick -p zonelab-swarm >&2
target="${CARGO_TARGET_DIR:-target}"
bin="$target/quick/zonelab-swarm"
if [[ "${1:-}" == --* ]]; then
  exec "$bin" "$@"
fi
exec "$bin" --seeds "${1:-10000}" --start "${ZONELAB_SWARM_START:-0}" \
  --jobs "${ZONELAB_SWARM_JOBS:-$(nproc)}" --shrink swarm-failures
