#!/usr/bin/env bash
# Reference measurements of real RocksDB for ZoneLab's key-value model: installs Debian's
# rocksdb-tools (db_bench 7.8.3) if it is missing, runs the cases on a plain directory (tmpfs
# /dev/shm unless --dir says otherwise) and prints one JSON object per case on stdout.
#   scripts/rocksdb-reference.sh                      # validation: fillrandom, overwrite, fillseq (~30 s)
#   scripts/rocksdb-reference.sh --runs 3             # the same three times, then the spread per case
#   scripts/rocksdb-reference.sh --compression snappy
#   scripts/rocksdb-reference.sh --suite cpu          # CPU per operation (~3 min)
# Counter definitions: docs/rocksdb-reference.md. Needs python3 (standard library only).
set -euo pipefail
cd "$(dirname "$0")/.."

sudo_() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
export DEBIAN_FRONTEND=noninteractive

if [ ! -x /usr/bin/db_bench ]; then
  echo "installing Debian's rocksdb-tools (db_bench)" >&2
  if ! sudo_ apt-get install -y -qq rocksdb-tools >/dev/null; then
    sudo_ apt-get update -qq
    sudo_ apt-get install -y -qq rocksdb-tools >/dev/null
  fi
fi
version=$(/usr/bin/db_bench --version 2>/dev/null || true)
case "$version" in
  *"version 7.8.3"*) ;;
  *) echo "warning: expected db_bench 7.8.3 (Debian bookworm), found '$version'; the reference values were measured with 7.8.3" >&2 ;;
esac
command -v python3 >/dev/null || { echo "error: python3 not found" >&2; exit 1; }
exec nice -n 5 python3 scripts/rocksdb_reference.py "$@"
