#!/usr/bin/env bash
# Zones emulated over a conventional SSD (experiments/emulated/README.md): the key-value store on
# the ZenFS-like layer over emulated zones of 4, 16, 32 (the FTL's superblock) and 128 MiB; per
# run the puts done, what the layer and the SSD wrote, the FTL's write amplification and GC.
# Then one writer on static zones striped over emulated zones, beside one-die ZNS zones.
# Seed 1; about 50 s of wall time on the 2-core machine.
#   experiments/emulated/run.sh [ZONELAB_BINARY]
set -euo pipefail
source "$(dirname "$0")/../script-setup.sh" "$@"
for zs in 4 16 32 128; do
  # A run the store stops early (out of space) exits 0 with its error in summary.json.
  "$bin" run experiments/emulated/kv.toml --set "layer.zone_size=\"${zs}MiB\"" -q -o "$out/$zs" >/dev/null &
  if [ "$zs" = 16 ] || [ "$zs" = 128 ]; then wait; fi
done
# Less live data: 8,000,000 keys (about 4 GiB).
"$bin" run experiments/emulated/kv.toml --set 'dbbench[0].num=8000000' -q -o "$out/32-8m" >/dev/null
wait
# Striping: static zones of four zones written four wide, over emulated zones and over one-die zones.
st='kind="static",zones_per_logical=4,stripe_width=4,stripe_size="16KiB"'
"$bin" run experiments/emulated/striped.toml -q -o "$out/stripe-emulated-1" >/dev/null
"$bin" run experiments/emulated/striped.toml --set "layer={$st,over={kind=\"emulated\",zone_size=\"16MiB\"}}" \
  -q -o "$out/stripe-emulated-4" >/dev/null
small=(--set 'preset="smallzone-4t"')
"$bin" run experiments/emulated/striped.toml "${small[@]}" \
  --set 'layer={kind="static",zones_per_logical=1,stripe_width=1,stripe_size="16KiB"}' -q -o "$out/stripe-zns-1" >/dev/null
"$bin" run experiments/emulated/striped.toml "${small[@]}" --set "layer={$st}" -q -o "$out/stripe-zns-4" >/dev/null
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
GIB = 1 << 30
print("| zone size | keys | zones | puts done | store stopped by | zone resets (Trims) | written by the layer, GiB | NAND writes / host writes (FTL WAF) | FTL GC copies, GiB |")
print("|---:|---:|---:|---:|---|---:|---:|---:|---:|")
for zs, keys, run in [(4, 20, "4"), (16, 20, "16"), (32, 20, "32"), (128, 20, "128"), (32, 8, "32-8m")]:
    s = json.load(open(f"{out}/{run}/summary.json"))
    db, fs, c = s["layers"]["db"], s["layers"]["fs"], s["device_counters"]
    puts = sum(p["ops"] for p in db["phases"])
    why = (db["error"] or "-").split(": ")[-1]
    gc = s["firmware"]["gc_copied_bytes"] / GIB
    print(f"| {zs} MiB | {keys} M | {fs['zones']:,} | {puts:,} | {why} | {fs['zone_resets']:,} | "
          f"{c['host_write_bytes'] / GIB:.1f} | {c['waf']:.3f} | {gc:.1f} |")
print()
print("| device | zones written together | write MiB/s | mean latency, us | P99, us |")
print("|---|---:|---:|---:|---:|")
for run, device, width in [("stripe-emulated-1", "zn540's NAND as a block SSD, emulated zones", 1),
                           ("stripe-emulated-4", "zn540's NAND as a block SSD, emulated zones", 4),
                           ("stripe-zns-1", "smallzone-4t (one-die zones)", 1),
                           ("stripe-zns-4", "smallzone-4t (one-die zones)", 4)]:
    w = json.load(open(f"{out}/{run}/summary.json"))["ops"]["write"]
    lat = w["latency_ns"]
    print(f"| {device} | {width} | {w['mib_per_s']:.0f} | {lat['mean'] / 1000:.1f} | "
          f"{lat['percentiles']['p99'] / 1000:.1f} |")
PY
