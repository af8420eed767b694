#!/usr/bin/env bash
# Whether host-side gaps between fio's synchronous writes explain why the paper's preemptive
# P99 stays at about 6 ms where ZoneLab's shows one row erase (11.1 ms): `zonelab reproduce
# preemptive-reset` ran sequential.toml under the preemptive firmware (Table 2 thresholds) with
# no gap; here the same run with fio's `thinktime` between writes (the device idles that long
# before the next write arrives), at both zone sizes. A partial erase starts the moment the
# device idles and holds all 32 dies for one 5 ms row erase: only a gap that long can hide it.
# Then the other way a write could complete before the device idles: a write buffer
# (`write_buffer_units_per_zone`, 16 KiB units; the prototype has DRAM buffers, section 3.1.1,
# but Figure 6's writes take NAND time), with which the device is never idle between writes.
# Prints one row per (zone size, variant). About 2 s of wall time on the 2-core machine.
#   experiments/preemptive-reset/host-gap.sh [ZONELAB_BINARY]
set -euo pipefail
source "$(dirname "$0")/../script-setup.sh" "$@"
variants="0 50us 1ms 5ms buffer32 buffer128"
# zone MiB and T_free: crates/zonelab-cli/src/reproduce/preemptive_reset/mod.rs SIZES
for zt in 512:479 1024:239; do
  z=${zt%:*} t_free=${zt#*:}
  for g in $variants; do
    case $g in
      0) think=() ;;
      buffer*) think=(--set "device.timing.write_buffer_units_per_zone=${g#buffer}") ;;
      *) think=(--set "job.0.thinktime=\"$g\"") ;;
    esac
    "$bin" run -q -o "$out/$z-$g" experiments/preemptive-reset/sequential.toml \
      --set "device.zones.zone_size_bytes=\"${z}MiB\"" \
      --set "device.zones.zone_capacity_bytes=\"${z}MiB\"" \
      --set 'firmware.policy="preemptive"' --set "firmware.t_free=$t_free" \
      --set firmware.t_invalid=1 "${think[@]}" >/dev/null
  done
done
python3 - "$out" $variants <<'PY'
import json, sys
out, variants = sys.argv[1], sys.argv[2:]
name = lambda v: (f"write buffer of {v[6:]} x 16 KiB, no gap" if v.startswith("buffer")
                  else f"host gap of {v} between writes")
print("| zone | variant | P50 ms | P99 ms | P99.9 ms | P100 ms | partial erases | full zone erases |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for z in (512, 1024):
    for g in variants:
        s = json.load(open(f"{out}/{z}-{g}/summary.json"))
        (w,) = [r for r in s["table"] if r["layer"] == "device" and r["op"] == "write"]
        p = w["latency_ns"]["percentiles"]
        ms = lambda k: f"{p[k] / 1e6:.2f}"
        f = s["firmware"]
        print(f"| {z} MiB | {name(g)} | {ms('p50')} | {ms('p99')} | {ms('p99.9')} | {ms('p100')} | "
              f"{f['partial_zone_erases']} | {f['full_zone_erases']} |")
print("| paper (Figure 6), both sizes | | about 6 | about 6 | | about 23 | | |")
PY
