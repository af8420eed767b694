#!/usr/bin/env bash
# Zones emulated over a conventional SSD (experiments/emulated/README.md): the key-value store on
# the ZenFS-like layer over emulated zones of 4, 16, 32 (the FTL's superblock) and 128 MiB; per
# run the puts done, what the layer and the SSD wrote, the FTL's write amplification and GC.
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
PY
