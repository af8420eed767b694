#!/usr/bin/env bash
# Why hot/cold separation does not lower LSM_ZGC's GC time here (experiments/lsm-zgc/README.md,
# "Hot/cold separation, measured"): updates.toml (LSM_ZGC, utilisation 0.6) with and without
# `fs.gc.separate`, varying one thing at a time from the reproduction's run:
#   - the layer's size (32, 64, 128 zones; updates scaled with it): separation keeps 3 free
#     destination zones where one stream keeps 1, 9.4% of a 32-zone layer and 2.3% of 128;
#   - the skew (90/10 and 50/50 instead of 70/30);
#   - the run's length (18 M updates instead of 6 M: about three passes of the collector);
#   - what "without" means: survivors in a log of their own (ZoneLab's default), or in the
#     file's data log with user writes (`fs.gc.survivors = "user_log"`: no split by age at all).
# Prints one table row per variant: GC time with separation, without (own log), without (user
# log), and the changes. 4 minutes of CPU, 3 minutes of wall time on the quiet 2-core machine
# (two runs at a time, 2026-11-29).
#   experiments/lsm-zgc/separation.sh [ZONELAB_BINARY]
set -euo pipefail
source "$(dirname "$0")/../script-setup.sh" "$@"

# run NAME MODE OVERRIDES...: prints GC seconds, GiB copied, zones collected. MODE: with
# (separation), own (without, survivors in their own log), user (without, in the user's log).
run() {
  local name=$1 mode=$2
  shift 2
  local sets
  case $mode in
    with) sets=(--set fs.gc.separate=true) ;;
    own) sets=(--set fs.gc.separate=false) ;;
    user) sets=(--set fs.gc.separate=false --set 'fs.gc.survivors="user_log"') ;;
  esac
  for o in "$@"; do sets+=(--set "$o"); done
  "$bin" run experiments/lsm-zgc/updates.toml "${sets[@]}" --output "$out/$name-$mode" >/dev/null
  python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))["layers"]["fs"]["gc"]
t, b, z = g["time_ns"] / 1e9, g["bytes_written"] / 2**30, g["zones_collected"]
print(f"{t:.1f} {b:.2f} {z}")
' "$out/$name-$mode/summary.json"
}

# variant KEY LABEL OVERRIDES...: the three runs (two at a time), then the row.
variant() {
  local key=$1 label=$2
  shift 2
  run "$key" with "$@" >"$out/$key.with" &
  local pid=$!
  run "$key" own "$@" >"$out/$key.own"
  wait "$pid"
  run "$key" user "$@" >"$out/$key.user"
  read -r ws wg _ <"$out/$key.with"
  read -r os og _ <"$out/$key.own"
  read -r us ug _ <"$out/$key.user"
  python3 -c '
import sys
label, ws, wg, os_, og, us, ug = sys.argv[1:]
pct = lambda a, b: f"{(float(a) / float(b) - 1) * 100:+.1f}%"
print(f"| {label} | {ws} | {os_} | {us} | {pct(ws, os_)} | {pct(ws, us)} | {wg} / {og} / {ug} |")
' "$label" "$ws" "$wg" "$os" "$og" "$us" "$ug"
}

echo "| run (LSM_ZGC, utilisation 0.6) | GC s with separation | without, own log | without, user log | with vs own log | with vs user log | GiB copied with / own / user |"
echo "|---|---:|---:|---:|---:|---:|---:|"
variant z32 "32 zones, 70/30, 6 M updates (the reproduction's)"
variant z64 "64 zones, 70/30, 12 M updates" 'fs.size="64GiB"' updates.0.updates=12000000
variant z128 "128 zones, 70/30, 24 M updates" 'fs.size="128GiB"' updates.0.updates=24000000
variant skew90 "32 zones, 90/10, 6 M updates" updates.0.hot_updates=0.9 updates.0.hot_data=0.1
variant skew50 "32 zones, 50/50, 6 M updates" updates.0.hot_updates=0.5 updates.0.hot_data=0.5
variant long "32 zones, 70/30, 18 M updates" updates.0.updates=18000000
