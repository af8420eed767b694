//! The summary `zonelab run` prints at the end: device commands and host layers' operations
//! with their latency percentiles, then one line per host layer and job.

use std::fmt::Write as _;

use zonelab::device::LayerReport;
use zonelab::device::report::elastic::ElasticReport;
use zonelab::device::report::ftl::FtlReport;
use zonelab::firmware::FirmwareReport;
use zonelab::metrics::{Layer, Percentile};
use zonelab::report::{OpSummary, Summary};

/// One line for a host layer's report: the file layer's space and writes, each file workload's
/// rates, or a key-value workload's phases (operations, simulated time, throughput) and its
/// error if it stopped.
fn layer_line(name: &str, report: &LayerReport) -> String {
    let mut line = format!("{name}:");
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    match report {
        LayerReport::FileLayer(r) => {
            let _ = write!(
                line,
                " {}-like, {:.1} of {:.1} MiB used, {} files; wrote {:.1} MiB of file data, {:.1} MiB of GC copies, {:.1} MiB of metadata (write amplification {}); {} zone resets",
                r.personality,
                mib(r.used_bytes),
                mib(r.capacity_bytes),
                r.files,
                mib(r.data_bytes_written),
                mib(r.gc_bytes_written),
                mib(r.meta_bytes_written),
                r.write_amplification
                    .map_or("-".to_string(), |w| format!("{w:.3}")),
                r.zone_resets,
            );
        }
        LayerReport::FileWorkloads(workloads) => {
            for w in workloads {
                let _ = write!(
                    line,
                    " {} ({}) {} ops ({:.0} ops/s, {:.1} MiB/s);",
                    w.name, w.kind, w.ops, w.ops_per_s, w.mib_per_s,
                );
                if let Some(e) = &w.error {
                    let _ = write!(line, " did not run: {e};");
                }
            }
        }
        LayerReport::KvStore(kv) => {
            for p in &kv.phases {
                let secs = p.end_ns.saturating_sub(p.start_ns) as f64 / 1e9;
                let _ = write!(
                    line,
                    " {} {} ops in {:.3} s ({:.0} ops/s);",
                    p.name, p.ops, secs, p.ops_per_s
                );
            }
            if let Some(e) = &kv.error {
                let _ = write!(line, " stopped: {e}");
            }
        }
    }
    line.trim_end_matches(';').to_string()
}

fn us(ns: u64) -> String {
    format!("{:.1}", ns as f64 / 1e3)
}

/// The summary as a table: one row per operation kind, then device counters.
pub fn table(s: &Summary) -> String {
    let mut t = op_table(&op_rows(s));
    device_lines(&mut t, s);
    firmware_lines(&mut t, s.firmware.as_ref());
    for (name, report) in &s.layers {
        let _ = writeln!(t, "{}", layer_line(name, report));
    }
    let iv = &s.series_interval;
    if iv.used_ns != iv.requested_ns {
        let _ = writeln!(
            t,
            "time series: every {} s instead of the {} s asked, to stay within metrics.max_intervals (summary.json, series_interval)",
            iv.used_ns as f64 / 1e9,
            iv.requested_ns as f64 / 1e9
        );
    }
    for j in &s.jobs {
        let _ = writeln!(
            t,
            "job {}: {} reads, {} writes, {} resets; stopped: {}",
            j.name,
            j.reads,
            j.writes,
            j.resets,
            j.stopped
                .iter()
                .map(|r| r.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    t
}

/// Device commands by kind, then host layers' operations by (layer, kind, tenant).
fn op_rows(s: &Summary) -> Vec<(String, &OpSummary)> {
    let mut rows: Vec<(String, &OpSummary)> =
        s.ops.iter().map(|(name, o)| (name.clone(), o)).collect();
    rows.extend(
        s.table
            .iter()
            .filter(|r| r.layer != Layer::Device)
            .map(|r| {
                (
                    format!("{} {} [{}]", r.layer.name(), r.op.name(), r.tenant),
                    &r.summary,
                )
            }),
    );
    rows
}

/// The header and one line per row: count, rates and latency percentiles.
fn op_table(rows: &[(String, &OpSummary)]) -> String {
    let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0).max(7);
    let mut t = format!(
        "\n{:<w$} {:>10} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10} {:>10}\n",
        "op",
        "count",
        "IOPS",
        "MiB/s",
        "mean us",
        "p50 us",
        "p99 us",
        "p99.9 us",
        "p99.99 us",
        "p100 us"
    );
    for (name, o) in rows {
        let p = |q| o.latency_ns.get(q);
        let _ = writeln!(
            t,
            "{:<w$} {:>10} {:>10.0} {:>9.1} {:>9.1} {:>9} {:>9} {:>9} {:>10} {:>10}",
            name,
            o.count,
            o.iops,
            o.mib_per_s,
            o.latency_ns.mean / 1e3,
            us(p(Percentile::P50)),
            us(p(Percentile::P99)),
            us(p(Percentile::P999)),
            us(p(Percentile::P9999)),
            us(p(Percentile::P100))
        );
    }
    t
}

/// The device's counters: traffic, NAND work, zone management, energy, wear and erase waits.
fn device_lines(t: &mut String, s: &Summary) {
    let d = &s.device_counters;
    let _ = writeln!(
        t,
        "\nhost: {:.1} MiB read, {:.1} MiB written | NAND: {} page reads, {} page programs, {} block erases | WAF {}",
        d.counters.host_read_bytes as f64 / (1 << 20) as f64,
        d.counters.host_write_bytes as f64 / (1 << 20) as f64,
        d.nand_page_reads,
        d.nand_page_programs,
        d.block_erases,
        d.waf.map_or("-".to_string(), |w| format!("{w:.3}"))
    );
    let c = &d.counters;
    let _ = writeln!(
        t,
        "zone resets: {} requested, {} executed | finishes {} | implicit closes {}",
        c.zone_resets_requested, c.zone_resets_executed, c.zone_finishes, c.implicit_closes
    );
    let e = &s.energy;
    let _ = writeln!(
        t,
        "energy: {:.3} mJ (read {:.3}, program {:.3}, erase {:.3}) | wear: erases per block min {} mean {:.3} max {}",
        e.total_mj,
        e.read_mj,
        e.program_mj,
        e.erase_mj,
        s.wear.min_erases,
        s.wear.mean_erases,
        s.wear.max_erases
    );
    let w = &s.erase_wait_ns;
    if w.get(Percentile::P100) > 0 {
        let _ = writeln!(
            t,
            "erase wait per I/O: mean {:.1} us, p99 {} us, p100 {} us",
            w.mean / 1e3,
            us(w.get(Percentile::P99)),
            us(w.get(Percentile::P100))
        );
    }
}

/// The firmware policy's own counters, if it reports any.
fn firmware_lines(t: &mut String, firmware: Option<&FirmwareReport>) {
    match firmware {
        Some(FirmwareReport::ZoneMapping(f)) => zone_mapping_line(t, f),
        Some(FirmwareReport::Renewable(r)) => renewable_line(t, r),
        Some(FirmwareReport::Combined(c)) => {
            renewable_line(t, &c.renewable);
            zone_mapping_line(t, &c.zone_mapping);
        }
        Some(FirmwareReport::Elastic(r)) => elastic_line(t, r),
        Some(FirmwareReport::Ftl(f)) => ftl_lines(t, f),
        None => {}
    }
}

fn elastic_line(t: &mut String, r: &ElasticReport) {
    let spares: Vec<String> = r
        .namespaces
        .iter()
        .map(|n| format!("ns{} {}/{}", n.namespace, n.spares_used_max, n.own_spares))
        .collect();
    let _ = writeln!(
        t,
        "ezns: {} physical zones allocated | {} overdrive cycles | {} spares lent, {} returned | {} reclaims | spares used max: {} | read cwnd cuts {} | queued reads {}, writes {} | admission delay {:.1} us/block",
        r.allocations,
        r.overdrive_cycles,
        r.spares_lent,
        r.spares_returned,
        r.reclaims,
        spares.join(", "),
        r.read_cc_decreases,
        r.reads_queued,
        r.writes_queued,
        r.admission_delay_ns as f64 / 1e3
    );
}

/// A conventional device's FTL: garbage collection, and the preconditioning if it ran.
fn ftl_lines(t: &mut String, f: &FtlReport) {
    let _ = writeln!(
        t,
        "FTL ({}): WAF {} | GC copied {:.1} MiB, erased {} superblocks ({} foreground, {} background, {} wear levelling) | free superblocks {}",
        f.victim_policy,
        f.waf.map_or("-".to_string(), |w| format!("{w:.3}")),
        f.gc_copied_bytes as f64 / (1 << 20) as f64,
        f.gc_erased_superblocks,
        f.foreground_collections,
        f.background_collections,
        f.wear_leveling_moves,
        f.free_superblocks
    );
    if let Some(p) = &f.precondition {
        let _ = writeln!(
            t,
            "precondition: filled {:.1} GiB, overwrote {:.1} GiB in {} rounds, last round WAF {}, steady state {}",
            p.filled_bytes as f64 / (1u64 << 30) as f64,
            p.overwritten_bytes as f64 / (1u64 << 30) as f64,
            p.rounds,
            p.round_waf
                .last()
                .map_or("-".to_string(), |w| format!("{w:.3}")),
            if p.steady_state {
                "reached"
            } else {
                "not reached"
            }
        );
    }
}

fn zone_mapping_line(t: &mut String, f: &zonelab::firmware::PoolReport) {
    let _ = writeln!(
        t,
        "firmware: S0 {:.3} s, S1 {:.3} s, S2 {:.3} s | partial erases {} | full zone erases {} | free {} invalid {}",
        f.time_in_s0_ns as f64 / 1e9,
        f.time_in_s1_ns as f64 / 1e9,
        f.time_in_s2_ns as f64 / 1e9,
        f.partial_zone_erases,
        f.full_zone_erases,
        f.free_zones,
        f.invalid_zones
    );
}

fn renewable_line(t: &mut String, r: &zonelab::firmware::RenewableReport) {
    let _ = writeln!(
        t,
        "renewable: {} host resets ({} Rzone, {} Nzone) | {} zones erased | {} zombie reclaims | {} ReGC releases | {} units recycled | spare-list {} (max {})",
        r.host_resets,
        r.rzone_resets,
        r.nzone_resets,
        r.zones_erased,
        r.zombie_reclaims,
        r.regc_releases,
        r.units_recycled,
        r.spare_zones,
        r.spare_zones_max
    );
}
