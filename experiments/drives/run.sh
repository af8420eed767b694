#!/usr/bin/env bash
# Several drives under one host (experiments/drives/README.md): reads and writes on arrays of 1,
# 2, 4 and 8 zn540 drives (RAID-0 of zones); an array of four with one drive slowed from 1 s
# on; zone resets beside reads on arrays of 1-8 rezns-40g drives; static zones and eZNS over one
# drive and over an array; and RAID-5 of zones: its write
# cost, and a drive's zone going offline under readers. Seed 1; a few seconds of wall time.
#   experiments/drives/run.sh [ZONELAB_BINARY]
set -euo pipefail
source "$(dirname "$0")/../script-setup.sh" "$@"
for n in 1 2 4 8; do
  "$bin" run experiments/drives/reads.toml --set "layer.drives=$n" -q -o "$out/reads-$n" >/dev/null
  "$bin" run experiments/drives/writes.toml --set "layer.drives=$n" -q -o "$out/writes-$n" >/dev/null
  "$bin" run experiments/drives/resets.toml --set "layer.drives=$n" -q -o "$out/resets-$n" >/dev/null
done
"$bin" run experiments/drives/writes.toml --set layer.drives=4 --set layer.parity=true -q -o "$out/writes-4-raid5" >/dev/null
fault='faults.zones=[{at="1s",zone=0,state="offline",drive=1}]'
"$bin" run experiments/drives/degraded.toml -q -o "$out/raid5-healthy" >/dev/null
"$bin" run experiments/drives/degraded.toml --set "$fault" -q -o "$out/raid5-fault" >/dev/null
# The RAID-0 run stops at its readers' errors: status 1, results written.
"$bin" run experiments/drives/degraded.toml --set "$fault" --set layer.parity=false -q -o "$out/raid0-fault" >/dev/null 2>&1 || true
# Stacking: eZNS's static baseline zones (4 zones per logical zone, all four written together,
# 16 KiB stripes) over one drive and over the array of four, three writers (zn540's 14 open
# zones allow three such logical zones).
three=(--set 'job.writer.numjobs=3' --set 'job.writer.size="3z"')
static='kind="static",zones_per_logical=4,stripe_width=4,stripe_size="16KiB"'
"$bin" run experiments/drives/writes.toml --set layer.drives=1 "${three[@]}" -q -o "$out/stack-1" >/dev/null
"$bin" run experiments/drives/writes.toml --set layer.drives=4 "${three[@]}" -q -o "$out/stack-4" >/dev/null
"$bin" run experiments/drives/writes.toml --set "layer={$static}" "${three[@]}" -q -o "$out/stack-static-1" >/dev/null
"$bin" run experiments/drives/writes.toml --set "layer={$static,over={kind=\"array\",drives=4}}" "${three[@]}" \
  -q -o "$out/stack-static-4" >/dev/null
# eZNS over one drive and over the array of four: one namespace, v-zones of four zones, three
# active, 12 essentials and no spares, so every stripe group is four zones wide as above.
ezns='kind="ezns",namespaces=1,zones_per_vzone=4,max_active_vzones=3,essentials=12,spares=0'
"$bin" run experiments/drives/writes.toml --set "layer={$ezns}" "${three[@]}" -q -o "$out/stack-ezns-1" >/dev/null
"$bin" run experiments/drives/writes.toml --set "layer={$ezns,over={kind=\"array\",drives=4}}" "${three[@]}" \
  -q -o "$out/stack-ezns-4" >/dev/null
# The same two on one drive without the zone write buffer.
nobuf=(--set device.timing.write_buffer_units_per_zone=0)
"$bin" run experiments/drives/writes.toml --set layer.drives=1 "${three[@]}" "${nobuf[@]}" -q -o "$out/stack-1-nobuf" >/dev/null
"$bin" run experiments/drives/writes.toml --set "layer={$static}" "${three[@]}" "${nobuf[@]}" -q -o "$out/stack-static-1-nobuf" >/dev/null
# Every die of drive 2 (array dies 64-95) 8 times slower from 1 s on.
slow=$(python3 -c "print('[' + ','.join('{die=%d,factor=8.0,from=\"1s\"}' % d for d in range(64, 96)) + ']')")
"$bin" run experiments/drives/slow-drive.toml -q -o "$out/healthy" >/dev/null
"$bin" run experiments/drives/slow-drive.toml --set "faults.dies=$slow" -q -o "$out/slow" >/dev/null
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
load = lambda d: json.load(open(f"{out}/{d}/summary.json"))
print("| drives | 4 KiB random reads, KIOPS | read P50 us | read P99 us | 1 MiB writes, MiB/s | write P50 ms | write P99 ms |")
print("|---:|---:|---:|---:|---:|---:|---:|")
base = None
for n in [1, 2, 4, 8]:
    r, w = load(f"reads-{n}")["ops"]["read"], load(f"writes-{n}")["ops"]["write"]
    rp, wp = r["latency_ns"]["percentiles"], w["latency_ns"]["percentiles"]
    print(f"| {n} | {r['iops'] / 1e3:,.0f} | {rp['p50'] / 1e3:,.0f} | {rp['p99'] / 1e3:,.0f} | "
          f"{w['mib_per_s']:,.0f} | {wp['p50'] / 1e6:.2f} | {wp['p99'] / 1e6:.2f} |")
print()
print("| array of 4 | reader | reads | MiB/s | P50 us | P99 us | P99.9 us |")
print("|---|---|---:|---:|---:|---:|---:|")
for run, label in [("healthy", "all healthy"), ("slow", "drive 2 8x slower from 1 s")]:
    rows = {t["tenant"]: t for t in load(run)["table"] if t["layer"] == "device" and t["op"] == "read"}
    for job, what in [("stripe", "64 KiB (one drive)"), ("row", "256 KiB (every drive)")]:
        t = rows[job]
        p = t["latency_ns"]["percentiles"]
        print(f"| {label} | {what} | {t['count']:,} | {t['mib_per_s']:,.0f} | {p['p50'] / 1e3:,.0f} | "
              f"{p['p99'] / 1e3:,.0f} | {p['p99.9'] / 1e3:,.0f} |")
print()
print("| 4 drives, 1 MiB writes | data MiB/s | written to the drives, MiB/s | write P50 ms |")
print("|---|---:|---:|---:|")
for run, label in [("writes-4", "RAID-0"), ("writes-4-raid5", "RAID-5")]:
    s = load(run)
    w = s["ops"]["write"]
    drives = s["device_counters"]["host_write_bytes"] / 2**20 / (s["simulated_time_ns"] / 1e9)
    print(f"| {label} | {w['mib_per_s']:,.0f} | {drives:,.0f} | {w['latency_ns']['percentiles']['p50'] / 1e6:.2f} |")
print()
print("| 4 drives, 4 KiB reads over 4 zones | reads | rejected | P50 us | P99 us | P99.9 us | P100 us |")
print("|---|---:|---:|---:|---:|---:|---:|")
for run, label in [("raid5-healthy", "RAID-5, healthy"), ("raid5-fault", "RAID-5, drive 1's zone 0 offline at 1 s"),
                   ("raid0-fault", "RAID-0, the same fault")]:
    s = load(run)
    r = s["ops"]["read"]
    p = r["latency_ns"]["percentiles"]
    print(f"| {label} | {r['count']:,} | {s['errors_total']} | {p['p50'] / 1e3:,.0f} | {p['p99'] / 1e3:,.0f} | "
          f"{p['p99.9'] / 1e3:,.0f} | {p['p100'] / 1e3:,.0f} |")
print()
print("| 3 writers of 1 MiB, QD1 (zn540) | MiB/s | write P50 ms | write P99 ms |")
print("|---|---:|---:|---:|")
for run, label in [("stack-1", "one drive"), ("stack-4", "array of 4 (RAID-0)"),
                   ("stack-static-1", "static zones over one drive"),
                   ("stack-static-4", "static zones over the array of 4"),
                   ("stack-ezns-1", "eZNS over one drive"),
                   ("stack-ezns-4", "eZNS over the array of 4"),
                   ("stack-1-nobuf", "one drive, no zone write buffer"),
                   ("stack-static-1-nobuf", "static zones over one drive, no zone write buffer")]:
    w = load(run)["ops"]["write"]
    p = w["latency_ns"]["percentiles"]
    print(f"| {label} | {w['mib_per_s']:,.0f} | {p['p50'] / 1e6:.2f} | {p['p99'] / 1e6:.2f} |")
print()
print("| drives (rezns-40g) | written MiB/s (asked 400) | logical resets | drive zones erased | read mean us | read P99 us | read P99.9 us | read P99.99 us |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|")
for n in [1, 2, 4, 8]:
    s = load(f"resets-{n}")
    ops, c = s["ops"], s["device_counters"]
    r = ops["read"]["latency_ns"]
    p = r["percentiles"]
    print(f"| {n} | {ops['write']['mib_per_s']:,.0f} | {ops['reset']['count']:,} | {c['zone_resets_executed']:,} | "
          f"{r['mean'] / 1e3:,.0f} | {p['p99'] / 1e3:,.0f} | {p['p99.9'] / 1e3:,.0f} | {p['p99.99'] / 1e3:,.0f} |")
PY
