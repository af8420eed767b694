#!/usr/bin/env bash
# The fio engine's benchmark (BENCHMARKS.md): overhead against fio's null engine on the same
# 4 KiB QD32 job, in virtual time with and without data retention; and realtime accuracy (fio's
# mean completion latency against the model's) at QD1 and QD16.
set -euo pipefail
cd "$(dirname "$0")/.."
engine=$(bash fio/build.sh | tail -n 1)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
iops() { python3 -c 'import json,sys; d=json.load(sys.stdin); j=d["jobs"][-1]; print(j["write"]["iops"]+j["read"]["iops"])'; }
common="--thread=1 --bs=4k --iodepth=32 --rw=write --size=2g --output-format=json"
null=$(fio --name=null --ioengine=null $common | iops)
# The same job with fio's zbd logic on (null emulates 64 MiB zones): the like-for-like reference.
nullzbd=$(fio --name=null --ioengine=null --zonemode=zbd --zonesize=64m $common | iops)
zl() {
  fio --name=zl --ioengine="external:$engine" --filename=zl --zonemode=zbd \
      --zonelab_set="device.zones.zone_count=32" --zonelab_retention="$1" $common | iops
}
keep=$(zl 1)
nokeep=$(zl 0)
share() { python3 -c "print($1/$2*100)"; }
echo "| 4 KiB sequential zone writes, QD32, 2 GiB, virtual time | IOPS (wall clock) | share of null zonemode=zbd | share of plain null |"
echo "|---|---:|---:|---:|"
printf "| fio null engine | %.0f | | 100%% |\n" "$null"
printf "| fio null engine, zonemode=zbd (zonesize 64m) | %.0f | 100%% | %.0f%% |\n" "$nullzbd" "$(share "$nullzbd" "$null")"
printf "| zonelab, data retention on | %.0f | %.0f%% | %.0f%% |\n" "$keep" "$(share "$keep" "$nullzbd")" "$(share "$keep" "$null")"
printf "| zonelab, data retention off | %.0f | %.0f%% | %.0f%% |\n" "$nokeep" "$(share "$nokeep" "$nullzbd")" "$(share "$nokeep" "$null")"
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
