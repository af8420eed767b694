#!/usr/bin/env bash
# What explains why the F2FS-like layer's varmail commands are smaller than real F2FS's
# (docs/real-f2fs.md, "Known differences": real F2FS's node writes merge in the zone write plug,
# the layer's do not). f2fs-like-filebench.toml (varmail, 60 s), changing one thing at a time:
# the host's time per file call at 42 us (as shipped: the capture VM's, for a buffered write),
# 200 us and 800 us (the slower the host, the fewer operations, and the closer to the capture's
# pace of about 2,600 operations a second); and each write's time at the device, 5.6 us as the
# preset gives it, raised by 100 us and 300 us (a stand-in for the VM's block path, ublk under
# emulation, which the capture's writes also waited on: its fio fsyncs took 10x the layer's).
# A write in flight holds its zone's plug, so the longer it takes, the more writes queue behind
# it and merge. Prints the device writes and their mean size, beside real F2FS's 16.6 KiB.
# About 30 s of wall time on the 2-core machine.
#   experiments/rezns/real-f2fs/varmail-pace.sh [ZONELAB_BINARY]
set -euo pipefail
source "$(dirname "$0")/../../script-setup.sh" "$@"
run() {
  "$bin" run -q -o "$out/$1" experiments/rezns/real-f2fs/f2fs-like-filebench.toml \
    --set trace.enabled=false "${@:2}" >/dev/null
}
run call-42us
run call-200us --set 'fs.cpu.call="200us"'
run call-800us --set 'fs.cpu.call="800us"'
run write-105us --set device.timing.write_overhead_ns=105600
run write-305us --set device.timing.write_overhead_ns=305600
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
rows = [
    ("call-42us", "as shipped: 42 us a file call, 5.6 us write overhead"),
    ("call-200us", "200 us a file call"),
    ("call-800us", "800 us a file call"),
    ("write-105us", "write overhead 5.6 + 100 us"),
    ("write-305us", "write overhead 5.6 + 300 us"),
]
print("| run | device writes | mean write | simulated s |")
print("|---|---:|---:|---:|")
for name, what in rows:
    s = json.load(open(f"{out}/{name}/summary.json"))
    w = s["ops"]["write"]
    print(f"| {what} | {w['count']:,} | {w['bytes'] / w['count'] / 1024:.2f} KiB | {s['simulated_time_ns'] / 1e9:.1f} |")
print("| real F2FS (the capture) | 22,218 | 16.57 KiB | 60 |")
PY
