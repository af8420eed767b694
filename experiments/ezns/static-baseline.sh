# Sourced by the eZNS experiment scripts: `static_baseline N` sets the array `static` to the
# overrides of the paper's static baseline over N namespaces, as `zonelab reproduce ezns` runs it
# (static_overrides in crates/zonelab-cli/src/reproduce/ezns/rocksdb.rs): stripe groups fixed at
# width 4 with 16 KiB stripes, no ballooning, no scheduler.
static_baseline() {
  local widths
  widths=$(printf '4,%.0s' $(seq "$1"))
  static=(--set layer.local_overdrive=false --set layer.global_overdrive=false
          --set layer.reclaim=false --set layer.scheduler=false --set "layer.fixed_width=[${widths%,}]")
}
