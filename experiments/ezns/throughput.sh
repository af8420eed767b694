#!/usr/bin/env bash
# What sets the eZNS RocksDB throughput gains (experiments/ezns/README.md, "What sets the
# throughput gains"): the 4-tenant run (rocksdb-multi.toml: A and B overwrite, C and D read) and
# the YCSB run (rocksdb-ycsb.toml), on the static baseline (static-baseline.sh) with each half of
# eZNS's scheduler added, on eZNS with one mechanism off at a time or a short global-overdrive
# history, and on both with reads ahead of queued programs. Per run: the stores' operations per
# simulated second in their measured phase, the seconds the writers' puts spent stalled (RocksDB's
# write slowdowns and stops), the device's write MB/s over the writers' phase, the stripe groups
# eZNS opened and the spares it lent. Seed 1, the shipped scale; about 10 s of wall time on the
# 2-core machine.
#   experiments/ezns/throughput.sh [ZONELAB_BINARY]
set -euo pipefail
source "$(dirname "$0")/../script-setup.sh" "$@"
source experiments/ezns/static-baseline.sh
# label:base:overrides, base the static baseline or eZNS as shipped, overrides applied after it.
variants=(
  "static (width 4):static:"
  "static with read congestion control:static:layer.scheduler=true layer.write_admission=false"
  "static with write admission control:static:layer.scheduler=true layer.read_cc=false"
  "static with both (the scheduler):static:layer.scheduler=true"
  "eZNS:ezns:"
  "eZNS, no global overdrive:ezns:layer.global_overdrive=false"
  "eZNS, no scheduler:ezns:layer.scheduler=false"
  "eZNS, history of 16 allocations:ezns:layer.history=16"
  "static, reads ahead of queued programs:static:device.timing.read_priority=true"
  "eZNS, reads ahead of queued programs:ezns:device.timing.read_priority=true"
)
run() { # name namespaces index
  local name=$1 v=${variants[$3]#*:} sets=() o
  if [ "${v%%:*}" = static ]; then
    static_baseline "$2"
    sets=("${static[@]}")
  fi
  for o in ${v#*:}; do sets+=(--set "$o"); done
  "$bin" run "experiments/ezns/rocksdb-$name.toml" "${sets[@]}" --output "$out/$name-$3" >/dev/null
}
for exp in multi:4 ycsb:6; do
  # Two runs at a time, one per core.
  for ((i = 0; i < ${#variants[@]}; i += 2)); do
    run "${exp%%:*}" "${exp#*:}" "$i" &
    pid=$!
    [ $((i + 1)) -ge ${#variants[@]} ] || run "${exp%%:*}" "${exp#*:}" $((i + 1))
    wait "$pid"
  done
done
labels=$(printf '%s\n' "${variants[@]}" | cut -d: -f1 | paste -sd'|')
python3 - "$out" "$labels" <<'PY'
import json, sys
out, labels = sys.argv[1], sys.argv[2].split("|")
def phase(s, store, name):
    layer = s["layers"][store]
    if layer.get("error"):
        raise SystemExit(f"store {store} stopped: {layer['error']}")
    for p in layer["phases"]:
        if p["name"] == name:
            return p
    raise SystemExit(f"store {store} has no phase {name}")
def writers(s, stores, name):
    """ops/s summed, stall seconds summed, device write MB/s over the writers' phase."""
    ps = [phase(s, st, name) for st in stores]
    start, end = min(p["start_ns"] for p in ps), max(p["end_ns"] for p in ps)
    wrote = sum(p["device"]["host_write_bytes"] for p in ps)
    return (sum(p["ops_per_s"] for p in ps), sum(p["store"]["stall_ns"] for p in ps) / 1e9,
            wrote / ((end - start) / 1e9) / 1e6)
def readers(s):
    return sum(phase(s, st, "readrandom")["ops_per_s"] for st in ["C", "D"])
def load(name, i):
    return json.load(open(f"{out}/{name}-{i}/summary.json"))
def ballooning(s):
    """The stripe groups opened, by width, and the spares global overdrive lent."""
    widths = {}
    for ns in s["firmware"]["namespaces"]:
        for w, n in ns["widths"].items():
            widths[int(w)] = widths.get(int(w), 0) + n
    return [" ".join(f"{n}x{w}" for w, n in sorted(widths.items())), str(s["firmware"]["spares_lent"])]
def pct(x, base):
    return f"{x:.0f} ({(x / base - 1) * 100:+.0f}%)"
print("\nrocksdb-multi: ops/s per store pair (change against static width 4), the overwriters' put")
print("stall s, the device's write MB/s while they overwrite, the stripe groups and loans\n")
print("| run | A + B overwrite ops/s | C + D readrandom ops/s | A + B stalled s | device write MB/s | groups (count x width) | spares lent |")
print("|---|---:|---:|---:|---:|---|---:|")
m0 = load("multi", 0)
for i, label in enumerate(labels):
    s = load("multi", i)
    w_ops, stall, mbs = writers(s, ["A", "B"], "overwrite")
    cells = [pct(w_ops, writers(m0, ["A", "B"], "overwrite")[0]), pct(readers(s), readers(m0)),
             f"{stall:.2f}", f"{mbs:.0f}"] + ballooning(s)
    print(f"| {label} | " + " | ".join(cells) + " |")
stores = ["ns0-a", "ns1-b", "ns2-c", "ns3-f", "ns4-a", "ns5-f"]
print("\nrocksdb-ycsb: ops/s per store (change against static width 4), the A stores' put stall s,")
print("the stripe groups and loans\n")
print("| run | " + " | ".join(stores) + " | A stores stalled s | groups (count x width) | spares lent |")
print("|---|" + "---:|" * (len(stores) + 1) + "---|---:|")
y0 = load("ycsb", 0)
for i, label in enumerate(labels):
    s = load("ycsb", i)
    cells = [pct(phase(s, st, "run")["ops_per_s"], phase(y0, st, "run")["ops_per_s"]) for st in stores]
    stall = sum(phase(s, st, "run")["store"]["stall_ns"] for st in ["ns0-a", "ns4-a"]) / 1e9
    print(f"| {label} | " + " | ".join(cells + [f"{stall:.2f}"] + ballooning(s)) + " |")
# eZNS against static as the reproduction states it, with the device as shipped and with reads
# allowed ahead of queued programs.
print("\neZNS against static (the reproduction's three throughput rows)\n")
print("| device | A + B write | C + D read | YCSB, at most (A) |")
print("|---|---:|---:|---:|")
for label, st, ez in (("as shipped", 0, 4), ("reads ahead of queued programs", 8, 9)):
    m0, m1, y0, y1 = load("multi", st), load("multi", ez), load("ycsb", st), load("ycsb", ez)
    w = writers(m1, ["A", "B"], "overwrite")[0] / writers(m0, ["A", "B"], "overwrite")[0]
    a = max(phase(y1, x, "run")["ops_per_s"] / phase(y0, x, "run")["ops_per_s"]
            for x in ["ns0-a", "ns4-a"])
    print(f"| {label} | {(w - 1) * 100:+.1f}% | {(readers(m1) / readers(m0) - 1) * 100:+.1f}% "
          f"| {(a - 1) * 100:+.1f}% |")
PY
