#!/usr/bin/env bash
# Firmware pairs (experiments/firmware-pairs/README.md): partial-zones.toml under four firmwares
# (synchronous, ReZNS's renewable zones, Preemptive Zone Reset, and ReZNS placement with
# preemptive erasing), with the writers filling 15 MiB of each zone (ReZNS's case) and whole
# zones (nothing to recycle). Seed 1; a few seconds of wall time.
#   experiments/firmware-pairs/run.sh [ZONELAB_BINARY]
set -euo pipefail
source "$(dirname "$0")/../script-setup.sh" "$@"
declare -A firmware=(
  [synchronous]='--set firmware.policy="synchronous" --set firmware.erase_all_blocks=true'
  [renewable]='--set firmware.policy="renewable"'
  [preemptive]='--set firmware.policy="preemptive"'
  [renewable+preemptive]='--set firmware.policy="pair" --set firmware.placement="renewable" --set firmware.erase="preemptive" --set firmware.erase_all_blocks=true'
)
for fill in 15MiB 64MiB; do
  for f in synchronous renewable preemptive renewable+preemptive; do
    # shellcheck disable=SC2086 # the settings are separate words
    "$bin" run experiments/firmware-pairs/partial-zones.toml ${firmware[$f]} \
      --set "job[1].zone_fill=\"$fill\"" -q -o "$out/$fill-$f" >/dev/null
  done
done
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
print("| zone fill | firmware | written GiB | host resets | zones erased | left to erase | erases owed per GiB | erase mJ per GiB | S2 share | reads | read P99 ms | read P99.9 ms | write P99 ms |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for fill in ["15MiB", "64MiB"]:
    for f in ["synchronous", "renewable", "preemptive", "renewable+preemptive"]:
        s = json.load(open(f"{out}/{fill}-{f}/summary.json"))
        ops, c = s["ops"], s["device_counters"]
        gib = ops["write"]["bytes"] / 2**30
        pct = lambda op, k: ops[op]["latency_ns"]["percentiles"][k] / 1e6
        fw = s.get("firmware") or {}
        pool = fw.get("zone_mapping") if fw.get("kind") == "combined" else fw if fw.get("kind") == "zone_mapping" else None
        s2 = f"{pool['time_in_s2_ns'] / s['simulated_time_ns']:.0%}" if pool else "-"
        debt = pool["invalid_zones"] if pool else 0
        erased = c["zone_resets_executed"]
        print(f"| {fill} | {f} | {gib:.1f} | {c['zone_resets_requested']:,} | {erased:,} | {debt} | {(erased + debt) / gib:.2f} | "
              f"{s['energy']['erase_mj'] / gib:.1f} | {s2} | {ops['read']['count']:,} | {pct('read', 'p99'):.1f} | "
              f"{pct('read', 'p99.9'):.1f} | {pct('write', 'p99'):.1f} |")
PY
