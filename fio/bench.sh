#!/usr/bin/env bash
# The fio engine's benchmark (BENCHMARKS.md): overhead against fio's null engine on the same
# 4 KiB QD32 job, in virtual time with and without data retention, on a fresh device and in steady
# state, next to fio keeping the same bytes in RAM; and realtime accuracy (fio's mean completion
# latency against the model's) at QD1 and QD16.
set -euo pipefail
cd "$(dirname "$0")/.."
engine=$(bash fio/build.sh | tail -n 1)
tmp=$(mktemp -d)
# fio may print notes before its JSON.
iops() { python3 -c 'import json,sys; t=sys.stdin.read(); j=json.loads(t[t.index("{"):])["jobs"][-1]; print(j["write"]["iops"]+j["read"]["iops"])'; }
# The median of three runs of a measurement (the VM's page-fault cost moves between runs).
median() { for _ in 1 2 3; do "$@"; done | sort -g | sed -n 2p; }
common="--thread=1 --bs=4k --iodepth=32 --rw=write --size=2g --output-format=json"
# "fill": one pass over a fresh 2 GiB device. "steady": 5 s after a 3 s ramp, fio resetting zones
# as it wraps, so a device with retention writes into memory it has used before.
fill=""
steady="--time_based --ramp_time=3 --runtime=5"
null() { fio --name=null --ioengine=null $common $1 | iops; }
# The same job with fio's zbd logic on (null emulates 64 MiB zones): the like-for-like reference.
nullzbd() { fio --name=null --ioengine=null --zonemode=zbd --zonesize=64m $common $1 | iops; }
zl() {
  fio --name=zl --ioengine="external:$engine" --filename=zl --zonemode=zbd \
      --zonelab_set="device.zones.zone_count=32" --zonelab_retention="$1" $common $2 | iops
}
# What keeping the bytes costs without any simulator: fio's mmap engine writing the same job into
# a fresh file in RAM (tmpfs).
shm=$(mktemp -d -p /dev/shm)
trap 'rm -rf "$tmp" "$shm"' EXIT
ram() { rm -f "$shm/ram"; fio --name=ram --ioengine=mmap --filename="$shm/ram" $common $1 | iops; }
declare -A r
for mode in fill steady; do
  r[null,$mode]=$(median null "${!mode}")
  r[nullzbd,$mode]=$(median nullzbd "${!mode}")
  r[off,$mode]=$(median zl 0 "${!mode}")
  r[on,$mode]=$(median zl 1 "${!mode}")
  r[ram,$mode]=$(median ram "${!mode}")
done
k() { python3 -c "print(f'{$1/1000:,.0f} k')"; }
pct() { python3 -c "print(f'{$1/$2*100:.0f}%')"; }
echo "| 4 KiB sequential zone writes, QD32, virtual time (median of 3) | first fill of 2 GiB | steady state |"
echo "|---|---:|---:|"
row() { echo "| $1 | $(k "${r[$2,fill]}") | $(k "${r[$2,steady]}") |"; }
row "fio null engine (IOPS)" null
row "fio null engine, zonemode=zbd, zonesize 64m (IOPS)" nullzbd
row "zonelab, data retention off (IOPS)" off
row "zonelab, data retention on (IOPS)" on
row "fio mmap engine on tmpfs: the same bytes kept in RAM (IOPS)" ram
share() { echo "| $1 | $(pct "${r[$2,fill]}" "${r[$3,fill]}") | $(pct "${r[$2,steady]}" "${r[$3,steady]}") |"; }
share "retention off / null zonemode=zbd" off nullzbd
share "retention off / plain null" off null
share "retention on / null zonemode=zbd" on nullzbd
share "retention on / mmap on tmpfs" on ram
echo
echo "| realtime, 4 KiB random reads, rezns-40g with tR = 200 us | fio mean clat (us) | model mean (us) | error |"
echo "|---|---:|---:|---:|"
for qd in 1 16; do
  out="$tmp/rt$qd"
  json=$(fio --thread=1 --ioengine="external:$engine" --filename=rt --zonemode=zbd \
    --zonelab_set="device.zones.zone_count=32,device.timing.read_latency_ns=200000,device.timing.read_overhead_ns=0" \
    --zonelab_time=realtime --zonelab_results="$out" --output-format=json \
    --name=fill --rw=write --bs=1m --size=2g \
    --name=read --stonewall --rw=randread --bs=4k --iodepth=$qd --size=2g --runtime=5 --time_based)
  fio_us=$(echo "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][1]["read"]["clat_ns"]["mean"]/1000)')
  model_us=$(python3 -c "import json; print(json.load(open('$out/summary.json'))['ops']['read']['latency_ns']['mean']/1000)")
  printf "| QD%s | %.1f | %.1f | %+.1f%% |\n" "$qd" "$fio_us" "$model_us" "$(python3 -c "print(($fio_us-$model_us)/$model_us*100)")"
done
