#!/usr/bin/env bash
# Faults at run time (experiments/faults/README.md): each experiment with its faults and without
# them (the same file with its `faults.zones`, `faults.dies` and `faults.commands` emptied), and per run the commands
# the device rejected, the first of them, the work done and the simulated seconds; for the slow
# die, the read latencies. Seed 1; about 25 s of wall time on the 2-core machine.
#   experiments/faults/run.sh [ZONELAB_BINARY]
set -euo pipefail
source "$(dirname "$0")/../script-setup.sh" "$@"
for e in offline-zone kv-write-faults slow-die; do
  # A run whose commands failed exits with status 1, results written.
  ("$bin" run "experiments/faults/$e.toml" -q -o "$out/$e" >/dev/null 2>&1 || true) &
  pid=$!
  "$bin" run "experiments/faults/$e.toml" --set 'faults.zones=[]' --set 'faults.commands=[]' --set 'faults.dies=[]' \
    -q -o "$out/$e-none" >/dev/null 2>&1
  wait "$pid"
done
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
print("| run | faults | rejected commands | first rejection | work done | simulated s |")
print("|---|---|---:|---|---:|---:|")
for e in ["offline-zone", "kv-write-faults"]:
    for suffix, faults in [("-none", "none"), ("", "as in the file")]:
        s = json.load(open(f"{out}/{e}{suffix}/summary.json"))
        first = s["errors"][0] if s["errors"] else None
        first = f"{first['source']}: {first['command']} {first['status'].split(' (')[0]}" if first else "-"
        if e == "offline-zone":
            files = s["layers"]["files"][0]
            work = f"{files['ops']:,} flowops"
        else:
            db = s["layers"]["db"]
            work = f"{sum(p['ops'] for p in db['phases']):,} puts"
            if db["error"]:
                first += f"; store: {db['error'].split(':')[0]}"
        print(f"| {e} | {faults} | {s['errors_total']} | {first} | {work} | {s['simulated_time_ns'] / 1e9:.2f} |")
print()
print("| slow-die | reads | P50 us | P99 us | P99.9 us | P100 us |")
print("|---|---:|---:|---:|---:|---:|")
for suffix, faults in [("-none", "no fault"), ("", "die 5 8x slower, 1-2 s")]:
    r = json.load(open(f"{out}/slow-die{suffix}/summary.json"))["ops"]["read"]
    p = r["latency_ns"]["percentiles"]
    cells = " | ".join(f"{p[k] / 1e3:,.0f}" for k in ["p50", "p99", "p99.9", "p100"])
    print(f"| {faults} | {r['count']:,} | {cells} |")
PY
