#!/usr/bin/env bash
# Whether host-side gaps between fio's synchronous writes explain why the paper's preemptive
# P99 stays at about 6 ms where ZoneLab's shows one row erase (11.1 ms): `zonelab reproduce
# preemptive-reset` ran sequential.toml under the preemptive firmware (Table 2 thresholds) with
# no gap; here the same run with fio's `thinktime` between writes (the device idles that long
# before the next write arrives), at both zone sizes. A partial erase starts the moment the
# device idles and holds all 32 dies for one 5 ms row erase: only a gap that long can hide it.
# Prints one row per (zone size, gap). About 20 s of wall time on the 2-core machine.
#   experiments/preemptive-reset/host-gap.sh [ZONELAB_BINARY]
set -euo pipefail
source "$(dirname "$0")/../script-setup.sh" "$@"
gaps="0 50us 1ms 5ms"
# zone MiB and T_free: crates/zonelab-cli/src/reproduce/preemptive_reset/mod.rs SIZES
for zt in 512:479 1024:239; do
  z=${zt%:*} t_free=${zt#*:}
  for g in $gaps; do
    think=()
    [ "$g" = 0 ] || think=(--set "job.0.thinktime=\"$g\"")
    "$bin" run -q -o "$out/$z-$g" experiments/preemptive-reset/sequential.toml \
      --set "device.zones.zone_size_bytes=\"${z}MiB\"" \
      --set "device.zones.zone_capacity_bytes=\"${z}MiB\"" \
      --set 'firmware.policy="preemptive"' --set "firmware.t_free=$t_free" \
      --set firmware.t_invalid=1 "${think[@]}" >/dev/null
  done
done
python3 - "$out" $gaps <<'PY'
import json, sys
out, gaps = sys.argv[1], sys.argv[2:]
print("| zone | host gap between writes | P50 ms | P99 ms | P99.9 ms | P100 ms | partial erases | writes |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for z in (512, 1024):
    for g in gaps:
        s = json.load(open(f"{out}/{z}-{g}/summary.json"))
        (w,) = [r for r in s["table"] if r["layer"] == "device" and r["op"] == "write"]
        p = w["latency_ns"]["percentiles"]
        ms = lambda k: f"{p[k] / 1e6:.2f}"
        print(f"| {z} MiB | {g} | {ms('p50')} | {ms('p99')} | {ms('p99.9')} | {ms('p100')} | "
              f"{s['firmware']['partial_zone_erases']} | {w['count']} |")
print("| paper (Figure 6), both sizes | | about 6 | about 6 | | about 23 | | |")
PY
