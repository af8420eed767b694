//! The performance monitor (002_78400e817c039edc.txt, section III): latency histograms per
//! operation kind down to P100, throughput, bandwidth and IOPS over time, and the report the CLI
//! writes as summary.json.

use std::collections::BTreeMap;

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::firmware::FirmwareReport;
use crate::nand::{EnergyNj, WearSummary};
use crate::units::{MIB, NS_PER_S};
use crate::zns::{DeviceCounters, Status};

/// Operation kinds, each with its own latency histogram.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OpKind {
    Read,
    Write,
    Append,
    Reset,
    Finish,
    Other,
}

impl OpKind {
    pub const ALL: [OpKind; 6] = [
        OpKind::Read,
        OpKind::Write,
        OpKind::Append,
        OpKind::Reset,
        OpKind::Finish,
        OpKind::Other,
    ];

    pub fn name(self) -> &'static str {
        match self {
            OpKind::Read => "read",
            OpKind::Write => "write",
            OpKind::Append => "append",
            OpKind::Reset => "reset",
            OpKind::Finish => "finish",
            OpKind::Other => "other",
        }
    }

    fn carries_data(self) -> bool {
        matches!(self, OpKind::Read | OpKind::Write | OpKind::Append)
    }
}

/// The percentiles every latency table reports.
pub const PERCENTILES: [(&str, f64); 7] = [
    ("p50", 50.0),
    ("p90", 90.0),
    ("p99", 99.0),
    ("p99.9", 99.9),
    ("p99.99", 99.99),
    ("p99.999", 99.999),
    ("p100", 100.0),
];

/// Bandwidth and IOPS per interval, by completion time.
#[derive(Clone, Debug)]
pub struct TimeSeries {
    pub interval_ns: u64,
    /// Per interval: [read bytes, write bytes, read ops, write ops].
    pub buckets: Vec<[u64; 4]>,
}

impl TimeSeries {
    fn add(&mut self, since_start_ns: u64, is_read: bool, bytes: u64) {
        let i = (since_start_ns / self.interval_ns) as usize;
        if i >= self.buckets.len() {
            self.buckets.resize(i + 1, [0; 4]);
        }
        let b = &mut self.buckets[i];
        let k = if is_read { 0 } else { 1 };
        b[k] += bytes;
        b[k + 2] += 1;
    }

    /// CSV with one row per interval: time, MiB/s and IOPS for reads and writes.
    pub fn to_csv(&self) -> String {
        let mut out = String::from("time_s,read_mib_s,write_mib_s,read_iops,write_iops\n");
        let per_s = NS_PER_S as f64 / self.interval_ns as f64;
        for (i, b) in self.buckets.iter().enumerate() {
            let t = (i as u64 + 1) * self.interval_ns;
            out += &format!(
                "{:.3},{:.3},{:.3},{:.1},{:.1}\n",
                t as f64 / NS_PER_S as f64,
                b[0] as f64 / MIB as f64 * per_s,
                b[1] as f64 / MIB as f64 * per_s,
                b[2] as f64 * per_s,
                b[3] as f64 * per_s
            );
        }
        out
    }
}

pub struct Metrics {
    histograms: Vec<Histogram<u64>>,
    ops: [u64; 6],
    bytes: [u64; 6],
    start_ns: u64,
    last_done_ns: u64,
    pub series: TimeSeries,
}

impl Metrics {
    pub fn new(start_ns: u64, interval_ns: u64) -> Self {
        // 1 ns .. 1 hour at 3 significant digits: exact to 0.1%.
        let h = Histogram::new_with_bounds(1, 3_600 * NS_PER_S, 3).expect("valid histogram bounds");
        Metrics {
            histograms: vec![h; OpKind::ALL.len()],
            ops: [0; 6],
            bytes: [0; 6],
            start_ns,
            last_done_ns: start_ns,
            series: TimeSeries {
                interval_ns,
                buckets: Vec::new(),
            },
        }
    }

    #[inline]
    pub fn record(&mut self, kind: OpKind, submit_ns: u64, done_ns: u64, bytes: u64) {
        let k = kind as usize;
        self.histograms[k].saturating_record((done_ns - submit_ns).max(1));
        self.ops[k] += 1;
        self.bytes[k] += bytes;
        self.last_done_ns = self.last_done_ns.max(done_ns);
        if kind.carries_data() {
            self.series.add(
                done_ns.saturating_sub(self.start_ns),
                kind == OpKind::Read,
                bytes,
            );
        }
    }

    pub fn histogram(&self, kind: OpKind) -> &Histogram<u64> {
        &self.histograms[kind as usize]
    }

    pub fn ops(&self, kind: OpKind) -> u64 {
        self.ops[kind as usize]
    }

    pub fn elapsed_ns(&self) -> u64 {
        self.last_done_ns - self.start_ns
    }

    pub fn op_summaries(&self) -> BTreeMap<String, OpSummary> {
        let secs = self.elapsed_ns().max(1) as f64 / NS_PER_S as f64;
        OpKind::ALL
            .iter()
            .filter(|k| self.ops[**k as usize] > 0)
            .map(|&k| {
                let latency = LatencySummary::of(&self.histograms[k as usize]);
                let s = OpSummary {
                    count: self.ops[k as usize],
                    bytes: self.bytes[k as usize],
                    iops: self.ops[k as usize] as f64 / secs,
                    mib_per_s: self.bytes[k as usize] as f64 / MIB as f64 / secs,
                    latency_ns: latency,
                };
                (k.name().to_string(), s)
            })
            .collect()
    }

    /// `kind,percentile,latency_ns` rows for every kind that ran.
    pub fn percentiles_csv(&self) -> String {
        let mut out = String::from("kind,percentile,latency_ns\n");
        for k in OpKind::ALL {
            let h = &self.histograms[k as usize];
            if h.is_empty() {
                continue;
            }
            out += &format!("{},mean,{:.0}\n", k.name(), h.mean());
            for (name, q) in PERCENTILES {
                out += &format!("{},{},{}\n", k.name(), name, h.value_at_percentile(q));
            }
        }
        out
    }
}

/// A histogram's CDF as (value, percentile) points (HDR quantile iteration, 8 ticks per half
/// distance to 100%, dense enough for P99.999).
pub fn cdf(h: &Histogram<u64>) -> Vec<(u64, f64)> {
    if h.is_empty() {
        return Vec::new();
    }
    h.iter_quantiles(8)
        .map(|v| (v.value_iterated_to(), v.quantile_iterated_to() * 100.0))
        .collect()
}

/// `percentile,latency_ns` rows of a histogram's CDF.
pub fn cdf_csv(h: &Histogram<u64>) -> String {
    let mut out = String::from("percentile,latency_ns\n");
    for (ns, p) in cdf(h) {
        out += &format!("{p:.6},{ns}\n");
    }
    out
}

#[derive(Clone, Debug, Serialize)]
pub struct LatencySummary {
    pub min: u64,
    pub mean: f64,
    pub percentiles: BTreeMap<String, u64>,
}

impl LatencySummary {
    pub fn of(h: &Histogram<u64>) -> Self {
        LatencySummary {
            min: h.min(),
            mean: h.mean(),
            percentiles: PERCENTILES
                .iter()
                .map(|(name, q)| (name.to_string(), h.value_at_percentile(*q)))
                .collect(),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct OpSummary {
    pub count: u64,
    pub bytes: u64,
    pub iops: f64,
    pub mib_per_s: f64,
    pub latency_ns: LatencySummary,
}

#[derive(Clone, Debug, Serialize)]
pub struct DeviceSummary {
    pub host_read_bytes: u64,
    pub host_write_bytes: u64,
    pub nand_page_reads: u64,
    pub nand_page_programs: u64,
    pub nand_bytes_programmed: u64,
    pub block_erases: u64,
    pub zone_resets_requested: u64,
    pub zone_resets_executed: u64,
    pub zone_finishes: u64,
    pub implicit_closes: u64,
    /// The most zones open, and active, at once.
    pub open_zones_max: u32,
    pub active_zones_max: u32,
    /// NAND bytes programmed / host bytes written (padding of finished zones raises it above 1).
    pub waf: Option<f64>,
}

impl DeviceSummary {
    pub fn new(c: &DeviceCounters, nand: &crate::nand::NandCounters, page_bytes: u64) -> Self {
        let programmed = nand.page_programs * page_bytes;
        DeviceSummary {
            host_read_bytes: c.host_read_bytes,
            host_write_bytes: c.host_write_bytes,
            nand_page_reads: nand.page_reads,
            nand_page_programs: nand.page_programs,
            nand_bytes_programmed: programmed,
            block_erases: nand.block_erases,
            zone_resets_requested: c.zone_resets_requested,
            zone_resets_executed: c.zone_resets_executed,
            zone_finishes: c.zone_finishes,
            implicit_closes: c.implicit_closes,
            open_zones_max: c.open_zones_max,
            active_zones_max: c.active_zones_max,
            waf: (c.host_write_bytes > 0).then(|| programmed as f64 / c.host_write_bytes as f64),
        }
    }
}

/// Energy by kind, in millijoules.
#[derive(Clone, Debug, Serialize)]
pub struct EnergySummary {
    pub read_mj: f64,
    pub program_mj: f64,
    pub erase_mj: f64,
    pub total_mj: f64,
}

impl From<EnergyNj> for EnergySummary {
    fn from(e: EnergyNj) -> Self {
        EnergySummary {
            read_mj: e.read / 1e6,
            program_mj: e.program / 1e6,
            erase_mj: e.erase / 1e6,
            total_mj: e.total() / 1e6,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct WearReport {
    pub min_erases: u32,
    pub mean_erases: f64,
    pub max_erases: u32,
    /// erase count -> blocks with that count
    pub histogram: BTreeMap<u32, u64>,
}

impl From<WearSummary> for WearReport {
    fn from(w: WearSummary) -> Self {
        WearReport {
            min_erases: w.min,
            mean_erases: w.mean,
            max_erases: w.max,
            histogram: w.histogram,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct JobReport {
    pub name: String,
    pub clones: u32,
    pub reads: u64,
    pub writes: u64,
    pub resets: u64,
    pub finishes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Why the job stopped: "io_size", "runtime", "no data to read", or an NVMe status.
    pub stopped: String,
}

/// A command the device rejected during the run.
#[derive(Clone, Debug, Serialize)]
pub struct ErrorReport {
    pub job: String,
    pub command: String,
    pub lba: u64,
    pub status: String,
}

impl ErrorReport {
    pub fn new(job: &str, command: &str, lba: u64, status: Status) -> Self {
        ErrorReport {
            job: job.into(),
            command: command.into(),
            lba,
            status: status.to_string(),
        }
    }
}

/// Everything a run reports, as written to summary.json. Contains nothing from the wall clock,
/// so the same experiment and seed give the same bytes.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub zonelab_version: String,
    pub experiment: String,
    pub seed: u64,
    pub config_fingerprint: String,
    pub device: String,
    pub firmware_policy: String,
    pub prefill_bytes: u64,
    pub prefill_time_ns: u64,
    pub simulated_time_ns: u64,
    pub ops: BTreeMap<String, OpSummary>,
    pub device_counters: DeviceSummary,
    pub energy: EnergySummary,
    pub wear: WearReport,
    pub jobs: Vec<JobReport>,
    pub errors: Vec<ErrorReport>,
    /// Per foreground read, write or append: how long erases held it up.
    pub erase_wait_ns: LatencySummary,
    /// The zone-mapping policies' states, erases and queues.
    pub firmware: Option<FirmwareReport>,
}

/// The firmware's queues over time, one row per change: Z_free, Z_invalid and the state for
/// the zone-mapping policies, the spare-list length for ReZNS.
pub fn firmware_csv(report: &FirmwareReport) -> String {
    let secs = |t: u64| t as f64 / NS_PER_S as f64;
    match report {
        FirmwareReport::ZoneMapping(r) => {
            let mut out = String::from("time_s,free_zones,invalid_zones,state\n");
            for s in &r.samples {
                out += &format!(
                    "{:.9},{},{},S{}\n",
                    secs(s.t_ns),
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
                out += &format!("{:.9},{}\n", secs(s.t_ns), s.spare_zones);
            }
            out
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_come_from_the_recorded_latencies() {
        let mut m = Metrics::new(1000, 500_000_000);
        for i in 1..=1000u64 {
            m.record(OpKind::Read, 1000, 1000 + i * 1000, 4096);
        }
        let s = &m.op_summaries()["read"];
        assert_eq!(s.count, 1000);
        assert_eq!(s.latency_ns.min, 1000);
        let p50 = s.latency_ns.percentiles["p50"];
        assert!((499_000..=501_000).contains(&p50), "p50 {p50}");
        let p100 = s.latency_ns.percentiles["p100"];
        assert!((999_000..=1_001_000).contains(&p100), "p100 {p100}");
        assert_eq!(m.elapsed_ns(), 1_000_000);
    }

    #[test]
    fn time_series_buckets_by_completion() {
        let mut m = Metrics::new(0, 1000);
        m.record(OpKind::Write, 0, 500, 100);
        m.record(OpKind::Write, 0, 1500, 100);
        m.record(OpKind::Read, 0, 1600, 50);
        assert_eq!(m.series.buckets, vec![[0, 100, 0, 1], [50, 100, 1, 1]]);
        m.record(OpKind::Reset, 0, 9000, 0);
        assert_eq!(m.series.buckets.len(), 2, "resets carry no bandwidth");
    }
}
