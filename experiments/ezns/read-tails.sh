#!/usr/bin/env bash
# What sets the read tails of the eZNS RocksDB runs (experiments/ezns/README.md, "What sets the
# read tails"): the 4-tenant run (rocksdb-multi.toml, stores C and D read beside A and B
# overwriting) and the YCSB run (rocksdb-ycsb.toml), each on the static baseline (the
# reproduction's overrides) and on eZNS, with the device as shipped and with one device
# mechanism changed at a time: TLC program time halved, erase time halved, reads allowed ahead of
# queued programs (device.timing.read_priority), and the host's CPU: 16 modelled cores instead of
# 4. Each cell is a store's get P99.9 in us,
# static -> eZNS. Seed 1, the shipped scale; about 45 s of wall time on the 2-core machine.
#   experiments/ezns/read-tails.sh [ZONELAB_BINARY]
set -euo pipefail
source "$(dirname "$0")/../script-setup.sh" "$@"
source experiments/ezns/static-baseline.sh
# smallzone-4t's program and erase times (presets/smallzone-4t.toml), halved.
program_ns=$(sed -n 's/^program_latency_ns = \([0-9]*\).*/\1/p' presets/smallzone-4t.toml)
erase_ns=$(sed -n 's/^erase_latency_ns = \([0-9]*\).*/\1/p' presets/smallzone-4t.toml)
variants=(
  "shipped:"
  "program/2:device.timing.program_latency_ns=$((program_ns / 2))"
  "erase/2:device.timing.erase_latency_ns=$((erase_ns / 2))"
  "read priority:device.timing.read_priority=true"
  "16 host cores:host.cores=16"
)
for exp in multi:4 ycsb:6; do
  name=${exp%%:*}
  static_baseline "${exp#*:}"
  for i in "${!variants[@]}"; do
    set=${variants[$i]#*:}
    extra=()
    [ -z "$set" ] || extra=(--set "$set")
    "$bin" run "experiments/ezns/rocksdb-$name.toml" "${static[@]}" "${extra[@]}" \
      --output "$out/$name-$i-static" >/dev/null &
    pid=$!
    "$bin" run "experiments/ezns/rocksdb-$name.toml" "${extra[@]}" --output "$out/$name-$i-ezns" >/dev/null
    wait "$pid"
  done
done
labels=$(printf '%s\n' "${variants[@]}" | cut -d: -f1 | paste -sd'|')
python3 - "$out" "$labels" <<'PY'
import json, sys
out, labels = sys.argv[1], sys.argv[2].split("|")
def gets(path):
    s = json.load(open(path))
    return {r["tenant"]: r["latency_ns"]["percentiles"]["p99.9"] / 1e3
            for r in s["table"] if r["op"] == "get" and r["layer"] == "kv"}
for name, stores in (("multi", ["C.readrandom", "D.readrandom"]),
                     ("ycsb", ["ns0-a.run", "ns1-b.run", "ns2-c.run", "ns3-f.run", "ns4-a.run", "ns5-f.run"])):
    print(f"\nrocksdb-{name}: get P99.9 (us), static -> eZNS (change)\n")
    print("| device | " + " | ".join(s.split(".")[0] for s in stores) + " |")
    print("|---|" + "---|" * len(stores))
    for i, label in enumerate(labels):
        a, b = gets(f"{out}/{name}-{i}-static/summary.json"), gets(f"{out}/{name}-{i}-ezns/summary.json")
        cells = [f"{a[s]:.0f} -> {b[s]:.0f} ({(b[s] / a[s] - 1) * 100:+.0f}%)" for s in stores]
        print(f"| {label} | " + " | ".join(cells) + " |")
PY
