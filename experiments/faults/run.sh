#!/usr/bin/env bash
# Faults at run time (experiments/faults/README.md): each experiment without its faults, with them
# and `[fs] on_zone_error = "stop"` (the default), and with them and "relocate"; per run the
# commands the device rejected and how many the file layer rode through, the first rejection, the
# work done, what the layer relocated, recovered and lost, and the simulated seconds; for the slow
# die, the read latencies. Seed 1; about 40 s of wall time on the 2-core machine.
#   experiments/faults/run.sh [ZONELAB_BINARY]
set -euo pipefail
source "$(dirname "$0")/../script-setup.sh" "$@"
none=(--set 'faults.zones=[]' --set 'faults.commands=[]' --set 'faults.dies=[]')
relocate=(--set 'fs.on_zone_error="relocate"')
one_drive=(--set 'layer.drives=1' --set 'layer.parity=false')
jobs=0
# run NAME EXPERIMENT [--set ...]: two at a time; a run whose commands failed exits with status 1,
# its results written.
run() {
  local name=$1 exp=$2
  shift 2
  ("$bin" run "experiments/faults/$exp.toml" "$@" -q -o "$out/$name" >/dev/null 2>&1 || true) &
  jobs=$((jobs + 1))
  if [ $((jobs % 2)) = 0 ]; then wait; fi
}
run offline-zone-none offline-zone "${none[@]}"
run offline-zone-stop offline-zone
run offline-zone-relocate offline-zone "${relocate[@]}"
run offline-zone-relocate-8m offline-zone "${relocate[@]}" --set 'fs.cache.page_cache="8MiB"'
run kv-offline-none kv-offline "${none[@]}"
run kv-offline-stop kv-offline
run kv-offline-relocate kv-offline "${relocate[@]}"
run kv-offline-1drive kv-offline "${relocate[@]}" "${one_drive[@]}" \
  --set 'faults.zones=[{at="3s",zone=5,state="offline"}]'
run kv-readonly-1drive kv-offline "${relocate[@]}" "${one_drive[@]}" \
  --set 'faults.zones=[{at="3s",zone=5,state="read_only"}]'
run kv-write-faults-none kv-write-faults "${none[@]}"
run kv-write-faults-stop kv-write-faults
run kv-write-faults-relocate kv-write-faults "${relocate[@]}"
run slow-die-none slow-die "${none[@]}"
run slow-die slow-die
wait
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
MIB = 1 << 20
rows = [
    ("offline-zone", "none", "-", "offline-zone-none"),
    ("offline-zone", "zone 444 Offline at 30 s", "stop", "offline-zone-stop"),
    ("offline-zone", "zone 444 Offline at 30 s", "relocate", "offline-zone-relocate"),
    ("offline-zone", "same, 8 MiB page cache", "relocate", "offline-zone-relocate-8m"),
    ("kv-offline", "none", "-", "kv-offline-none"),
    ("kv-offline", "RAID-5: drive 1's zone 5 Offline at 3 s", "stop", "kv-offline-stop"),
    ("kv-offline", "RAID-5: drive 1's zone 5 Offline at 3 s", "relocate", "kv-offline-relocate"),
    ("kv-offline", "one drive: zone 5 Offline at 3 s", "relocate", "kv-offline-1drive"),
    ("kv-offline", "one drive: zone 5 Read Only at 3 s", "relocate", "kv-readonly-1drive"),
    ("kv-write-faults", "none", "-", "kv-write-faults-none"),
    ("kv-write-faults", "1% of writes Write Fault from 1 s", "stop", "kv-write-faults-stop"),
    ("kv-write-faults", "1% of writes Write Fault from 1 s", "relocate", "kv-write-faults-relocate"),
]
print("| run | faults | on_zone_error | rejected (ridden through) | first rejection | work done | relocated / recovered / lost MiB | simulated s |")
print("|---|---|---|---:|---|---:|---:|---:|")
for exp, faults, mode, name in rows:
    s = json.load(open(f"{out}/{name}/summary.json"))
    first = s["errors"][0] if s["errors"] else None
    first = f"{first['source']}: {first['command']} {first['status'].split(' (')[0]}" if first else "-"
    if exp == "offline-zone":
        work = f"{s['layers']['files'][0]['ops']:,} flowops"
    else:
        db = s["layers"]["db"]
        work = " + ".join(f"{p['ops']:,} {'puts' if p['name'] == 'fillrandom' else 'gets'}" for p in db["phases"])
        if db["error"]:
            first += f"; store stopped: {db['error'].split(':')[0]}"
    ze = s["layers"]["fs"].get("zone_errors")
    moved = "-" if not ze else f"{ze['bytes_relocated'] / MIB:.1f} / {ze['bytes_recovered'] / MIB:.1f} / {ze['bytes_lost'] / MIB:.1f}"
    rejected = f"{s['errors_total']} ({s.get('errors_ridden_through', 0)})"
    print(f"| {exp} | {faults} | {mode} | {rejected} | {first} | {work} | {moved} | {s['simulated_time_ns'] / 1e9:.2f} |")
print()
print("| slow-die | reads | P50 us | P99 us | P99.9 us | P100 us |")
print("|---|---:|---:|---:|---:|---:|")
for suffix, faults in [("-none", "no fault"), ("", "die 5 8x slower, 1-2 s")]:
    r = json.load(open(f"{out}/slow-die{suffix}/summary.json"))["ops"]["read"]
    p = r["latency_ns"]["percentiles"]
    cells = " | ".join(f"{p[k] / 1e3:,.0f}" for k in ["p50", "p99", "p99.9", "p100"])
    print(f"| {faults} | {r['count']:,} | {cells} |")
PY
