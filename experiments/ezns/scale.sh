#!/usr/bin/env bash
# How the eZNS 4-tenant throughput gains depend on the stores' size (experiments/ezns/README.md,
# "The 4-tenant gains against store size"): rocksdb-multi.toml on the static baseline (the
# reproduction's overrides: width 4, no ballooning, no scheduler) and on eZNS, with every store's
# entries (150,000 as shipped) and the readers' gets (10,000) multiplied by 1, 2, 4 and 8. Per
# size: eZNS's change in the writers' (A + B) and readers' (C + D) operations per second, the
# spares global overdrive lent, the physical zones allocated and the run's simulated seconds.
# Seed 1; about 30 s of wall time on the 2-core machine.
#   experiments/ezns/scale.sh [ZONELAB_BINARY] [FACTORS...]   (default 1 2 4 8)
set -euo pipefail
source "$(dirname "$0")/../script-setup.sh" "$@"
source experiments/ezns/static-baseline.sh
shift || true
factors=("$@")
[ ${#factors[@]} -gt 0 ] || factors=(1 2 4 8)
static_baseline 4
for k in "${factors[@]}"; do
  size=()
  for store in A B C D; do size+=(--set "dbbench.$store.num=$((150000 * k))"); done
  for store in C D; do size+=(--set "dbbench.$store.reads=$((10000 * k))"); done
  "$bin" run experiments/ezns/rocksdb-multi.toml "${static[@]}" "${size[@]}" -q -o "$out/$k-static" >/dev/null &
  pid=$!
  "$bin" run experiments/ezns/rocksdb-multi.toml "${size[@]}" -q -o "$out/$k-ezns" >/dev/null
  wait "$pid"
done
python3 - "$out" "${factors[@]}" <<'PY'
import json, sys
out, factors = sys.argv[1], sys.argv[2:]
def measure(path):
    s = json.load(open(path))
    ops = {st: p["ops_per_s"] for st in "ABCD" for p in s["layers"][st]["phases"]
           if p["name"] in ("overwrite", "readrandom")}
    return (ops["A"] + ops["B"], ops["C"] + ops["D"], s["firmware"]["spares_lent"],
            s["firmware"]["allocations"], s["simulated_time_ns"] / 1e9)
print("| entries per store | A + B write, static -> eZNS | C + D read, static -> eZNS | spares lent | zones allocated (static / eZNS) | simulated s (eZNS) |")
print("|---:|---|---|---:|---|---:|")
for k in factors:
    a, b = measure(f"{out}/{k}-static/summary.json"), measure(f"{out}/{k}-ezns/summary.json")
    print(f"| {150000 * int(k):,} | {a[0]:.0f} -> {b[0]:.0f} ({(b[0] / a[0] - 1) * 100:+.0f}%) "
          f"| {a[1]:.0f} -> {b[1]:.0f} ({(b[1] / a[1] - 1) * 100:+.0f}%) | {b[2]} | {a[3]} / {b[3]} | {b[4]:.1f} |")
print("| paper (500 M entries) | +7% | +18% | | | |")
PY
