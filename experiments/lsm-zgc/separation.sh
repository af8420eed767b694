#!/usr/bin/env bash
# Why hot/cold separation does not lower LSM_ZGC's GC time here (experiments/lsm-zgc/README.md,
# "Hot/cold separation, measured"): updates.toml (LSM_ZGC, utilisation 0.6) with and without
# `fs.gc.separate`, varying one thing at a time from the reproduction's run:
#   - the layer's size (32, 64, 128 zones; updates scaled with it): separation keeps 3 free
#     destination zones where one stream keeps 1, 9.4% of a 32-zone layer and 2.3% of 128;
#   - the skew (90/10 and 50/50 instead of 70/30);
#   - the run's length (18 M updates instead of 6 M: about three passes of the collector).
# Prints one table row per pair: GC time with and without, and the change. 3 minutes of CPU,
# 93 s of wall time on the quiet 2-core machine (two runs at a time, 2026-11-29).
#   experiments/lsm-zgc/separation.sh [ZONELAB_BINARY]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-target/release/zonelab}
[ -x "$bin" ] || cargo build --release --locked -q -p zonelab-cli
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# run NAME SEPARATE OVERRIDES...: prints GC seconds, GiB copied, zones collected.
run() {
  local name=$1 sep=$2
  shift 2
  local sets=(--set "fs.gc.separate=$sep")
  for o in "$@"; do sets+=(--set "$o"); done
  "$bin" run experiments/lsm-zgc/updates.toml "${sets[@]}" --output "$out/$name-$sep" >/dev/null
  python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))["layers"]["fs"]["gc"]
t, b, z = g["time_ns"] / 1e9, g["bytes_written"] / 2**30, g["zones_collected"]
print(f"{t:.1f} {b:.2f} {z}")
' "$out/$name-$sep/summary.json"
}

# pair KEY LABEL OVERRIDES...: both runs at once, then the row.
pair() {
  local key=$1 label=$2
  shift 2
  run "$key" true "$@" >"$out/$key.with" &
  local with_pid=$!
  run "$key" false "$@" >"$out/$key.without"
  wait "$with_pid"
  read -r ws wg wz <"$out/$key.with"
  read -r os og oz <"$out/$key.without"
  python3 -c '
import sys
label, os_, og, oz, ws, wg, wz = sys.argv[1:]
print(f"| {label} | {os_} | {ws} | {(float(ws) / float(os_) - 1) * 100:+.1f}% | {og} / {wg} | {oz} / {wz} |")
' "$label" "$os" "$og" "$oz" "$ws" "$wg" "$wz"
}

echo "| run (LSM_ZGC, utilisation 0.6) | GC s without | GC s with | with separation | GiB copied without / with | zones collected without / with |"
echo "|---|---:|---:|---:|---:|---:|"
pair z32 "32 zones, 70/30, 6 M updates (the reproduction's)"
pair z64 "64 zones, 70/30, 12 M updates" 'fs.size="64GiB"' updates.0.updates=12000000
pair z128 "128 zones, 70/30, 24 M updates" 'fs.size="128GiB"' updates.0.updates=24000000
pair skew90 "32 zones, 90/10, 6 M updates" updates.0.hot_updates=0.9 updates.0.hot_data=0.1
pair skew50 "32 zones, 50/50, 6 M updates" updates.0.hot_updates=0.5 updates.0.hot_data=0.5
pair long "32 zones, 70/30, 18 M updates" updates.0.updates=18000000
