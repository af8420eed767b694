#!/usr/bin/env bash
# How steady the F2FS-like layer's write volume is in the fsync interval, with and without Linux
# 6.12's count of the sections dirty pages need (`fs.f2fs.dirty_sections`; experiments/rezns/
# README.md, "The write-volume gap"): f2fs-like-fio.toml with an fsync every 16 to 128 writes.
# Prints, per interval, the bytes written to the device and the zones reset, off and on, beside
# real F2FS's three captured intervals (the committed traces; a recapture in parentheses).
# About 40 s of wall time on the 2-core machine.
#   experiments/rezns/real-f2fs/dirty-sections.sh [ZONELAB_BINARY]
set -euo pipefail
source "$(dirname "$0")/../../script-setup.sh" "$@"
intervals="16 32 48 64 80 96 112 128"
for n in $intervals; do
  for on in false true; do
    "$bin" run -q -o "$out/$n-$on" experiments/rezns/real-f2fs/f2fs-like-fio.toml \
      --set "fio_files[0].fsync=$n" --set "fs.f2fs.dirty_sections=$on" \
      --set trace.enabled=false >/dev/null
  done
done
python3 - "$out" $intervals <<'PY'
import json, sys
out, intervals = sys.argv[1], sys.argv[2:]
real = {"16": "7.62 (8.65)", "64": "8.29 (7.84)", "128": "8.23 (7.71)"}
print("| fsync every | real F2FS GiB | off: GiB, resets | on: GiB, resets |")
print("|---:|---:|---:|---:|")
for n in intervals:
    cells = []
    for on in ("false", "true"):
        d = json.load(open(f"{out}/{n}-{on}/summary.json"))["device_counters"]
        cells.append(f"{d['host_write_bytes'] / (1 << 30):.2f}, {d['zone_resets_executed']}")
    print(f"| {n} | {real.get(n, '')} | {cells[0]} | {cells[1]} |")
PY
