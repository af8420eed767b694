#!/usr/bin/env bash
# How much of the eZNS YCSB tail changes is the run's own spread (experiments/ezns/README.md,
# "YCSB tails across seeds"): rocksdb-ycsb.toml on the static baseline (the reproduction's
# overrides: fixed width 4, no ballooning, no scheduler) and on eZNS, for several seeds; each row
# is one seed, each cell a store's get P99.9 in us, static -> eZNS (change). 100,000 operations
# per store leave 100 gets above the P99.9. About 10 s of wall time per seed on the 2-core machine.
#   experiments/ezns/ycsb-seeds.sh [ZONELAB_BINARY] [SEEDS...]   (default seeds 1-6)
set -euo pipefail
source "$(dirname "$0")/../script-setup.sh" "$@"
source experiments/ezns/static-baseline.sh
static_baseline 6
shift || true
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(1 2 3 4 5 6)
for seed in "${seeds[@]}"; do
  "$bin" run experiments/ezns/rocksdb-ycsb.toml --set "seed=$seed" "${static[@]}" \
    --output "$out/$seed-static" >/dev/null &
  pid=$!
  "$bin" run experiments/ezns/rocksdb-ycsb.toml --set "seed=$seed" --output "$out/$seed-ezns" >/dev/null
  wait "$pid"
done
python3 - "$out" "${seeds[@]}" <<'PY'
import json, sys
out, seeds = sys.argv[1], sys.argv[2:]
stores = ["ns0-a", "ns1-b", "ns2-c", "ns3-f", "ns4-a", "ns5-f"]
def p999(s, store):
    for r in s["table"]:
        if r["tenant"] == store + ".run" and r["op"] == "get" and r["layer"] != "device":
            return r["latency_ns"]["percentiles"]["p99.9"] / 1e3
    raise SystemExit(f"no get row for {store}")
print("| seed | " + " | ".join(stores) + " |")
print("|---:|" + "---|" * len(stores))
changes = {st: [] for st in stores}
for seed in seeds:
    a = json.load(open(f"{out}/{seed}-static/summary.json"))
    b = json.load(open(f"{out}/{seed}-ezns/summary.json"))
    cells = []
    for st in stores:
        x, y = p999(a, st), p999(b, st)
        changes[st].append((y / x - 1) * 100)
        cells.append(f"{x:.0f} -> {y:.0f} ({changes[st][-1]:+.0f}%)")
    print(f"| {seed} | " + " | ".join(cells) + " |")
print("| mean change | " + " | ".join(f"{sum(v) / len(v):+.0f}%" for v in changes.values()) + " |")
print("| range | " + " | ".join(f"{min(v):+.0f}% to {max(v):+.0f}%" for v in changes.values()) + " |")
PY
