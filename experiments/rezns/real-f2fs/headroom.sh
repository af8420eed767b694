#!/usr/bin/env bash
# How the F2FS-like layer's write volume under fio fsync 16 depends on its free-space headroom
# (docs/real-f2fs.md, "Where real F2FS's extra writes come from"): f2fs-like-fio.toml with
# fs.f2fs.reserved_sections 28 (what mkfs.f2fs gives this device, as shipped), 29 and 30 (each
# also takes a section from the user capacity). Prints, per setting, the bytes written to the
# device and what the cleaner moved, beside real F2FS's 7.62 GiB (the committed trace) and its
# cleaner's 3.83 GiB from 84 sections 73% valid (traces/fsync16.f2fs-status.txt, a recapture).
# About 5 s of wall time on the 2-core machine.
#   experiments/rezns/real-f2fs/headroom.sh [ZONELAB_BINARY]
set -euo pipefail
source "$(dirname "$0")/../../script-setup.sh" "$@"
for n in 28 29 30; do
  "$bin" run -q -o "$out/$n" experiments/rezns/real-f2fs/f2fs-like-fio.toml \
    --set "fs.f2fs.reserved_sections=$n" >/dev/null
done
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
gib = 1 << 30
print("| reserved sections | written to the device | moved by the cleaner | sections cleaned | mean validity |")
print("|---:|---:|---:|---:|---:|")
for n in (28, 29, 30):
    fs = json.load(open(f"{out}/{n}/summary.json"))["layers"]["fs"]
    gc = fs["gc"]
    total = fs["data_bytes_written"] + fs["gc_bytes_written"] + fs["meta_bytes_written"]
    zones = gc["zones_collected"]
    validity = gc["bytes_written"] / max(1, zones * fs["zone_capacity_bytes"])
    print(f"| {n} | {total / gib:.2f} GiB | {gc['bytes_written'] / gib:.2f} GiB | {zones} | {validity:.0%} |")
print("| real F2FS (28) | 7.62 GiB | 3.83 GiB (recapture) | 84 data + 19 node | 73% (data) |")
PY
