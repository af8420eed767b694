#!/usr/bin/env bash
# Why the multi-thread run's GC cost is larger than the slides' (experiments/lsm-zgc/README.md,
# "Multi-thread cost by update count"): the reproduction's multi-thread configuration at 8 threads
# (updates.toml, 70/30 updates over a 16 GiB data set, 8 modelled cores), worker only (a 96 GiB
# layer that never needs a zone collected) against LSM_ZGC and Basic_ZGC on the 32-zone layer,
# with the number of updates varied. The slides give neither the workload's size nor how much
# of it needed GC; this shows how the ratio to worker only follows the bytes the updates write
# over the free space the layer had after the fill.
# Prints one table row per update count (UPDATES="N ..." to choose them). 1 minute of wall
# time for the default six on the 2-core machine (two runs at a time, 2026-11-29).
#   experiments/lsm-zgc/threads.sh [ZONELAB_BINARY]
set -euo pipefail
source "$(dirname "$0")/../script-setup.sh" "$@"

# run NAME POLICY SIZE UPDATES: writes the run's results under $out/NAME.
run() {
  "$bin" run experiments/lsm-zgc/updates.toml --set "fs.gc.policy=\"$2\"" --set "fs.size=\"$3\"" \
    --set 'updates.0.dataset="16GiB"' --set updates.0.threads=8 --set host.cores=8 \
    --set "updates.0.updates=$4" --output "$out/$1" >/dev/null
}

echo "| updates (8 threads) | written / free space after the fill | worker only s | LSM_ZGC s | Basic_ZGC s | LSM_ZGC / worker only | Basic_ZGC / worker only |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for n in ${UPDATES:-1000000 2000000 2500000 3000000 4000000 6000000}; do
  run "w$n" none 96GiB "$n" &
  pid=$!
  run "l$n" lsm_zgc 32GiB "$n"
  wait "$pid"
  run "b$n" basic_zgc 32GiB "$n"
  python3 - "$n" "$out/w$n" "$out/l$n" "$out/b$n" <<'PY'
import json, sys
n, w, l, b = sys.argv[1:]
def load(d):
    s = json.load(open(d + "/summary.json"))
    fs, files = s["layers"]["fs"], s["layers"]["files"][0]
    return files["elapsed_ns"] / 1e9, files["write_bytes"], fs["capacity_bytes"]
(ws, _, _), (ls, lw, cap), (bs, _, _) = load(w), load(l), load(b)
free = max(cap - (16 << 30), 1)
print(f"| {int(n):,} | {lw / free:.2f} | {ws:.1f} | {ls:.1f} | {bs:.1f} | {ls / ws:.2f}x | {bs / ws:.2f}x |")
PY
done
