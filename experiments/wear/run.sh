#!/usr/bin/env bash
# Wear levelling by placement (experiments/wear/README.md): skewed.toml for five years of one
# drive write per day (1,826 drive writes of the 4 GiB device, four fifths to the hot zones), on
# a new drive and on a used one (each zone's blocks start at an erase count drawn from 0-1,500),
# under seven firmwares: static placement (synchronous), the queue and the least-worn placement
# erasing at reset, and the queue and the least-worn placement erasing on demand, the oldest
# invalid zone first or the least-worn first. Seed 1; about 35 s of wall time.
#   experiments/wear/run.sh [ZONELAB_BINARY] [DRIVE_WRITES]
set -euo pipefail
source "$(dirname "$0")/../script-setup.sh" "$@"
writes=${2:-1826}
hot=$((writes * 4 * 4 / 5))   # GiB: the device is 4 GiB
warm=$((writes * 4 - hot))
declare -A firmware=(
  [static+at_reset]='--set firmware.policy="synchronous"'
  [queue+at_reset]='--set firmware.policy="pair" --set firmware.placement="queue" --set firmware.erase="at_reset"'
  [least_worn+at_reset]='--set firmware.policy="pair" --set firmware.placement="least_worn" --set firmware.erase="at_reset"'
  [queue+on_demand]='--set firmware.policy="mapping" --set firmware.wp_optimisation=true'
  [least_worn+on_demand]='--set firmware.policy="pair" --set firmware.placement="least_worn" --set firmware.erase="on_demand"'
  [queue+on_demand/least_worn_first]='--set firmware.policy="pair" --set firmware.placement="queue" --set firmware.erase="on_demand" --set firmware.invalid_order="least_worn"'
  [least_worn+on_demand/least_worn_first]='--set firmware.policy="pair" --set firmware.placement="least_worn" --set firmware.erase="on_demand" --set firmware.invalid_order="least_worn"'
)
names="static+at_reset queue+at_reset least_worn+at_reset queue+on_demand least_worn+on_demand queue+on_demand/least_worn_first least_worn+on_demand/least_worn_first"
used='--set device.aging.initial_erase_counts=[0,1500] --set device.aging.initial_wear_group=[32,1]'
for drive in new used; do
  for f in $names; do
    extra=""
    [ "$drive" = used ] && extra=$used
    # shellcheck disable=SC2086 # the settings are separate words
    "$bin" run experiments/wear/skewed.toml ${firmware[$f]} $extra \
      --set "job[0].io_size=\"${hot}GiB\"" --set "job[1].io_size=\"${warm}GiB\"" -q -o "$out/$drive-${f//\//-}" >/dev/null &
    # Two at a time (two cores).
    [ "$(jobs -r | wc -l)" -ge 2 ] && wait -n
  done
done
wait
python3 - "$out" "$writes" $names <<'PY'
import json, sys
out, writes, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rated = 3000  # P/E cycles of TLC NAND (chosen: the usual datasheet class; ReZNS's device gives none)
print(f"{writes:,} drive writes ({writes / 365.25:.1f} years at one drive write per day):")
print()
print("| drive | firmware | erases per block: min | mean | max | max / mean | blocks at 3,000 or more | write P99 ms | write P99.9 ms | reset P99 ms | simulated s |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for drive in ["new", "used"]:
  for f in names:
    s = json.load(open(f"{out}/{drive}-{f.replace('/', '-')}/summary.json"))
    w, ops = s["wear"], s["ops"]
    pct = lambda op, k: ops[op]["latency_ns"]["percentiles"][k] / 1e6
    worn = sum(n for e, n in w["histogram"].items() if int(e) >= rated)
    print(f"| {drive} | {f} | {w['min_erases']} | {w['mean_erases']:.1f} | {w['max_erases']} | {w['max_erases'] / w['mean_erases']:.2f} | "
          f"{worn:,} of {sum(w['histogram'].values()):,} | {pct('write', 'p99'):.2f} | {pct('write', 'p99.9'):.2f} | {pct('reset', 'p99'):.2f} | "
          f"{s['simulated_time_ns'] / 1e9:,.0f} |")
PY
