//! The files a run's results directory holds, rendered from the typed tables: time series,
//! latency percentiles and CDFs, zones, firmware queues over time, summary.json.

use std::fmt::Write as _;

use hdrhistogram::Histogram;

use super::{MIB, Summary};
use crate::device::DeviceModel;
use crate::firmware::FirmwareReport;
use crate::metrics::{Bandwidth, Layer, Metrics, OpKind, Percentile, cdf};
use crate::time::{Instant, NS_PER_S};

/// CSV with one row per interval: time, MiB/s and IOPS for reads and writes.
pub fn bandwidth_csv(series: &Bandwidth) -> String {
    let mut out = String::from("time_s,read_mib_s,write_mib_s,read_iops,write_iops\n");
    let interval = series.interval().ns();
    let per_s = NS_PER_S as f64 / interval as f64;
    for (i, b) in series.buckets().iter().enumerate() {
        let t = (i as u64 + 1) * interval;
        let _ = writeln!(
            out,
            "{:.3},{:.3},{:.3},{:.1},{:.1}",
            t as f64 / NS_PER_S as f64,
            b[0] as f64 / MIB * per_s,
            b[1] as f64 / MIB * per_s,
            b[2] as f64 * per_s,
            b[3] as f64 * per_s
        );
    }
    out
}

/// `layer,op,tenant,percentile,latency_ns` rows (with the mean) for every slot that ran.
pub fn percentiles_csv(metrics: &Metrics) -> String {
    let mut out = String::from("layer,op,tenant,percentile,latency_ns\n");
    let mut slots: Vec<_> = metrics.slots().iter().filter(|s| s.count > 0).collect();
    slots.sort_by_key(|s| (s.layer, s.op, s.tenant));
    for s in slots {
        let prefix = format!(
            "{},{},{}",
            s.layer.name(),
            s.op.name(),
            crate::trace::sanitize(metrics.tenant_name(s.tenant))
        );
        let h = s.histogram();
        let _ = writeln!(out, "{prefix},mean,{:.0}", h.mean());
        for p in Percentile::ALL {
            let _ = writeln!(
                out,
                "{prefix},{},{}",
                p.name(),
                h.value_at_percentile(p.value())
            );
        }
    }
    out
}

/// `percentile,latency_ns` rows of a histogram's CDF.
pub fn cdf_csv(h: &Histogram<u64>) -> String {
    let mut out = String::from("percentile,latency_ns\n");
    for (ns, p) in cdf(h) {
        let _ = writeln!(out, "{p:.6},{ns}");
    }
    out
}

/// The pool's and the spare-list's series on one time axis.
fn combined_csv(r: &crate::device::report::CombinedReport) -> String {
    let mut out = String::from("time_s,free_zones,invalid_zones,state,spare_zones\n");
    for row in r.rows() {
        let _ = writeln!(
            out,
            "{:.9},{},{},S{},{}",
            row.t.secs_f64(),
            row.free,
            row.invalid,
            row.state,
            row.spare_zones
        );
    }
    out
}

/// The firmware's queues over time, one row per interval: Z_free, Z_invalid and the state for
/// the zone-mapping policies, the spare-list length for ReZNS, the spares each namespace holds
/// and may use for eZNS.
pub fn firmware_csv(report: &FirmwareReport) -> String {
    let secs = |t: Instant| t.secs_f64();
    match report {
        FirmwareReport::ZoneMapping(r) => {
            let mut out = String::from("time_s,free_zones,invalid_zones,state\n");
            for s in &r.samples {
                let _ = writeln!(
                    out,
                    "{:.9},{},{},S{}",
                    secs(s.t),
                    s.free,
                    s.invalid,
                    s.state
                );
            }
            out
        }
        FirmwareReport::Renewable(r) => {
            let mut out = String::from("time_s,spare_zones\n");
            for s in &r.spare_samples {
                let _ = writeln!(out, "{:.9},{}", secs(s.t), s.spare_zones);
            }
            out
        }
        FirmwareReport::Combined(r) => combined_csv(r),
        FirmwareReport::Elastic(r) => {
            let mut out = String::from("time_s,namespace,spares_used,spare_pool\n");
            for s in &r.spare_samples {
                let _ = writeln!(
                    out,
                    "{:.9},{},{},{}",
                    secs(s.t),
                    s.namespace,
                    s.spares_used,
                    s.spare_pool
                );
            }
            out
        }
        FirmwareReport::Ftl(r) => {
            let mut out = String::from(
                "time_s,host_mib,gc_copied_mib,superblocks_erased,free_superblocks,waf\n",
            );
            for s in &r.samples {
                let _ = writeln!(
                    out,
                    "{:.9},{:.3},{:.3},{},{},{}",
                    secs(s.t),
                    s.host_bytes as f64 / MIB,
                    s.gc_copied_bytes as f64 / MIB,
                    s.superblocks_erased,
                    s.free_superblocks,
                    s.waf().map_or(String::new(), |w| format!("{w:.4}"))
                );
            }
            out
        }
    }
}

/// `zone,zslba,state,wp,capacity_lbas` for every zone of a zoned device.
pub fn zones_csv(device: &dyn DeviceModel) -> String {
    let mut out = String::from("zone,zslba,state,wp,capacity_lbas\n");
    let Some(z) = device.info().zoned.clone() else {
        return out;
    };
    // Numbers through `itoa`: with `writeln!`, this file took most of a short run's instructions
    // on a device of 40,704 zones.
    let mut digits = itoa::Buffer::new();
    for zone in 0..z.zone_count {
        let d = device.zone(0, zone);
        out.push_str(digits.format(zone));
        out.push(',');
        out.push_str(digits.format(d.zslba));
        out.push(',');
        out.push_str(d.state.nvme_cli_name());
        out.push(',');
        out.push_str(digits.format(d.wp));
        out.push(',');
        out.push_str(digits.format(d.capacity_lbas));
        out.push('\n');
    }
    out
}

/// Every results file of a run: (file name, contents). `config_toml` is the resolved
/// configuration to write beside them.
pub fn render(
    summary: &Summary,
    metrics: &Metrics,
    device: &dyn DeviceModel,
    config_toml: &str,
) -> Vec<(String, String)> {
    let json = serde_json::to_string_pretty(summary).expect("a summary always serializes");
    let mut files = vec![
        ("summary.json".to_string(), json + "\n"),
        ("config.resolved.toml".to_string(), config_toml.to_string()),
        (
            "timeseries.csv".to_string(),
            bandwidth_csv(&metrics.bandwidth()),
        ),
        (
            "latency_percentiles.csv".to_string(),
            percentiles_csv(metrics),
        ),
    ];
    let tenants = metrics.tenants();
    if tenants.len() > 1 {
        for (i, name) in tenants.iter().enumerate() {
            if let Some(s) = metrics.tenant_bandwidth(crate::metrics::TenantId(i as u32)) {
                files.push((
                    format!("timeseries_{}.csv", file_safe(name)),
                    bandwidth_csv(s),
                ));
            }
        }
    }
    for layer in Layer::ALL {
        for kind in OpKind::ALL {
            if let Some(h) = metrics.merged(layer, kind) {
                let name = match layer {
                    Layer::Device => format!("latency_cdf_{}.csv", kind.name()),
                    _ => format!("latency_cdf_{}_{}.csv", layer.name(), kind.name()),
                };
                files.push((name, cdf_csv(&h)));
            }
        }
    }
    if summary.erase_wait.max() > 0 {
        files.push(("erase_wait_cdf.csv".into(), cdf_csv(&summary.erase_wait)));
    }
    if let Some(f) = &summary.firmware {
        files.push(("firmware_over_time.csv".into(), firmware_csv(f)));
    }
    if device.info().zoned.is_some() {
        files.push(("zones.csv".into(), zones_csv(device)));
    }
    files
}

/// A name usable in a file name: letters, digits, '-', '_' and '.' kept, the rest '_'.
pub fn file_safe(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    match s.trim_start_matches('.') {
        "" => "_".to_string(),
        t => t.to_string(),
    }
}
