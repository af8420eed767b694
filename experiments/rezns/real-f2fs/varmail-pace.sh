#!/usr/bin/env bash
# Whether the host's pace explains why the F2FS-like layer's varmail commands are smaller than
# real F2FS's (docs/real-f2fs.md, "Known differences": real F2FS's node writes merge in the
# zone write plug, the layer's do not). f2fs-like-filebench.toml (varmail, 60 s) with the host's
# time per file call at the default 42 us (the capture VM's, for a buffered write), 200 us and
# 800 us: the slower the host, the fewer operations, and the closer to the capture's pace (about
# 2,600 operations a second). Prints the device writes and their mean size, beside real F2FS's
# 16.6 KiB. About 15 s of wall time on the 2-core machine.
#   experiments/rezns/real-f2fs/varmail-pace.sh [ZONELAB_BINARY]
set -euo pipefail
source "$(dirname "$0")/../../script-setup.sh" "$@"
paces="42us 200us 800us"
for c in $paces; do
  "$bin" run -q -o "$out/$c" experiments/rezns/real-f2fs/f2fs-like-filebench.toml \
    --set "fs.cpu.call=\"$c\"" --set trace.enabled=false >/dev/null
done
python3 - "$out" $paces <<'PY'
import json, sys
out, paces = sys.argv[1], sys.argv[2:]
print("| host time per file call | device writes | mean write | simulated s |")
print("|---|---:|---:|---:|")
for c in paces:
    s = json.load(open(f"{out}/{c}/summary.json"))
    w = s["ops"]["write"]
    print(f"| {c} | {w['count']:,} | {w['bytes'] / w['count'] / 1024:.2f} KiB | {s['simulated_time_ns'] / 1e9:.1f} |")
print("| real F2FS (the capture) | 22,218 | 16.57 KiB | 60 |")
PY
