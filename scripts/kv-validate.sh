#!/usr/bin/env bash
# The key-value model against real RocksDB, as the test command runs it: installs Debian's
# rocksdb-tools if missing (scripts/rocksdb-reference.sh), runs db_bench's fillrandom and
# overwrite at the small validation scale (the base shape: 1,000,000 keys of 16 + 100 B, 4 MiB
# memtables and files) four times (~10-20 s each on tmpfs), then runs the same cases on the model
# and checks that its WAL, flush and compaction bytes, flushes, compactions and SST files per
# level are each within 25% of db_bench's mean, plus half the range of its runs
# (`zonelab validate-kv`; definitions in docs/rocksdb-reference.md). Several runs, because
# db_bench's overwrite is timing-dependent: on a quiet 2-core machine its compaction thread falls
# behind and one run wrote 406 MB by compaction where others wrote 434-525 MB and a loaded
# machine 502-518 MB (docs/rocksdb-reference.md, "Run-to-run spread"). The other seven shapes are checked against the committed reference
# by `cargo test` (validation::kv): all of them fresh took 8.5 minutes on the busy 2-core
# machine, and db_bench's own compaction bytes moved by 14% between runs of the 1 MiB-memtable
# shape (docs/rocksdb-reference.md, "The LSM shapes"); `--shapes all` below runs them all.
# Prints the table and a last line "kv-validate: N passed, M failed" (the cases, not counters).
#   scripts/kv-validate.sh                # fresh db_bench runs of the base shape
#   scripts/kv-validate.sh --shapes all   # fresh db_bench runs of every shape
#   scripts/kv-validate.sh --committed    # no db_bench: the committed reference only
set -euo pipefail
cd "$(dirname "$0")/.."
# ZONELAB_CLI_FEATURES: the features scripts/test.sh builds the release CLI with, so it is built once.
cargo build --release --locked -q -p zonelab-cli ${ZONELAB_CLI_FEATURES:+--features "$ZONELAB_CLI_FEATURES"}
bin=target/release/zonelab
shapes=base
if [ "${1:-}" = "--shapes" ]; then
  shapes=${2:?--shapes needs a list, or all}
  shift 2
fi
if [ "${1:-}" = "--committed" ]; then
  ref=()
else
  out=$(mktemp)
  trap 'rm -f "$out"' EXIT
  bash scripts/rocksdb-reference.sh --cases fillrandom,overwrite --shapes "$shapes" --runs 4 \
    --out "$out" >/dev/null
  ref=(--reference "$out")
fi
if "$bin" validate-kv "${ref[@]}"; then
  echo "kv-validate: 1 passed, 0 failed"
else
  echo "kv-validate: 0 passed, 1 failed"
  exit 1
fi
