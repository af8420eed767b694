//! Typed result tables, built in the core from a run's metrics and device, and rendered to the
//! files every front end writes (`zonelab run`, the fio engine, Python): summary.json, the time
//! series, latency percentiles and CDFs, the zones, the firmware's queues over time, and the
//! resolved configuration. Front ends only put the rendered files on disk.

use std::collections::BTreeMap;

use hdrhistogram::Histogram;
use serde::{Serialize, Serializer};

use crate::device::{DeviceCounters, DeviceModel, LayerReport};
use crate::firmware::FirmwareReport;
use crate::metrics::series::IntervalNote;
use crate::metrics::{Layer, Metrics, OpKind, Percentile};
use crate::nand::{EnergyNj, NandCounters, WearSummary};
pub use crate::record::{ErrorLog, ErrorReport};
use crate::time::{Duration, NS_PER_S};
use crate::workload::StopReason;

mod files;

pub use files::{
    bandwidth_csv, cdf_csv, file_safe, firmware_csv, percentiles_csv, render, zones_csv,
};

const MIB: f64 = (1u64 << 20) as f64;

impl Serialize for Layer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl Serialize for OpKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl Serialize for Percentile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct LatencySummary {
    pub min: u64,
    pub mean: f64,
    pub percentiles: BTreeMap<Percentile, u64>,
}

impl LatencySummary {
    pub fn of(h: &Histogram<u64>) -> Self {
        LatencySummary {
            min: h.min(),
            mean: h.mean(),
            percentiles: Percentile::ALL
                .iter()
                .map(|&p| (p, h.value_at_percentile(p.value())))
                .collect(),
        }
    }

    pub fn get(&self, p: Percentile) -> u64 {
        self.percentiles[&p]
    }
}

/// One operation kind's totals and latency.
#[derive(Clone, Debug, Serialize)]
pub struct OpSummary {
    pub count: u64,
    pub bytes: u64,
    pub iops: f64,
    pub mib_per_s: f64,
    pub latency_ns: LatencySummary,
}

impl OpSummary {
    fn of(h: &Histogram<u64>, count: u64, bytes: u64, elapsed: Duration) -> Self {
        let secs = elapsed.ns().max(1) as f64 / NS_PER_S as f64;
        OpSummary {
            count,
            bytes,
            iops: count as f64 / secs,
            mib_per_s: bytes as f64 / MIB / secs,
            latency_ns: LatencySummary::of(h),
        }
    }
}

/// One row of the (layer, operation, tenant) table.
#[derive(Clone, Debug, Serialize)]
pub struct OpRow {
    pub layer: Layer,
    pub op: OpKind,
    pub tenant: String,
    #[serde(flatten)]
    pub summary: OpSummary,
}

/// The device's counters as summary.json gives them: its own [`DeviceCounters`] (a new counter
/// there appears here by itself), then the NAND's work and the write amplification.
#[derive(Clone, Debug, Serialize)]
pub struct DeviceSummary {
    #[serde(flatten)]
    pub counters: DeviceCounters,
    pub nand_page_reads: u64,
    pub nand_page_programs: u64,
    pub nand_bytes_programmed: u64,
    pub block_erases: u64,
    pub erase_suspends: u64,
    /// Extra senses of read retries (NAND aging); absent when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub read_retries: u64,
    /// Read priority: queued programs reads went ahead of, and how far they moved in all (the
    /// bound on how optimistic completions reported before a push are); absent when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub programs_pushed: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub program_push_ns: u64,
    /// NAND bytes programmed / host bytes written (padding of finished zones raises it above 1).
    pub waf: Option<f64>,
}

impl DeviceSummary {
    pub fn new(c: &DeviceCounters, nand: &NandCounters, page_bytes: u64) -> Self {
        let programmed = nand.page_programs * page_bytes;
        DeviceSummary {
            counters: *c,
            nand_page_reads: nand.page_reads,
            nand_page_programs: nand.page_programs,
            nand_bytes_programmed: programmed,
            block_erases: nand.block_erases,
            erase_suspends: nand.erase_suspends,
            read_retries: nand.read_retries,
            programs_pushed: nand.programs_pushed,
            program_push_ns: nand.program_push_ns,
            waf: (c.host_write_bytes > 0).then(|| programmed as f64 / c.host_write_bytes as f64),
        }
    }
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// Host layers' reports with every object's keys in alphabetical order, as summary.json has
/// written them since they were `serde_json::Value`s (whose maps sort their keys), so results
/// files stay comparable across versions.
fn keys_sorted<S: Serializer>(
    layers: &BTreeMap<String, LayerReport>,
    s: S,
) -> Result<S::Ok, S::Error> {
    serde_json::to_value(layers)
        .map_err(serde::ser::Error::custom)?
        .serialize(s)
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

/// What one job (all its clones) did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct JobReport {
    pub name: String,
    pub clones: u32,
    pub reads: u64,
    pub writes: u64,
    pub resets: u64,
    pub finishes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Why its clones stopped, each reason once.
    pub stopped: Vec<StopReason>,
}

impl JobReport {
    /// Counts one completed command of kind `kind` moving `bytes`.
    pub fn count(&mut self, kind: OpKind, bytes: u64) {
        match kind {
            OpKind::Read => {
                self.reads += 1;
                self.read_bytes += bytes;
            }
            OpKind::Write | OpKind::Append => {
                self.writes += 1;
                self.write_bytes += bytes;
            }
            OpKind::Reset => self.resets += 1,
            OpKind::Finish => self.finishes += 1,
            _ => {}
        }
    }
}

/// The modelled host.
#[derive(Clone, Debug, Default, Serialize)]
pub struct HostReport {
    pub cores: u32,
    /// CPU time host tasks used, all cores together.
    pub cpu_busy_ns: u64,
    /// Time CPU work waited for a free core, all work together.
    pub cpu_wait_ns: u64,
    pub tasks: u32,
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
    /// When the measured phase started on the simulated clock.
    pub start_ns: u64,
    pub simulated_time_ns: u64,
    /// Device commands by kind, all tenants together.
    pub ops: BTreeMap<String, OpSummary>,
    /// Every (layer, operation, tenant).
    pub table: Vec<OpRow>,
    pub device_counters: DeviceSummary,
    pub energy: EnergySummary,
    pub wear: WearReport,
    pub jobs: Vec<JobReport>,
    /// The first [`ErrorLog::KEPT`] commands the device rejected.
    pub errors: Vec<ErrorReport>,
    /// Every command the device rejected.
    pub errors_total: u64,
    /// Of those, the ones a host layer took in and went on from (`on_zone_error`).
    #[serde(skip_serializing_if = "is_zero")]
    pub errors_ridden_through: u64,
    /// Per foreground read, write or append: how long erases held it up.
    pub erase_wait_ns: LatencySummary,
    /// The whole distribution `erase_wait_ns` summarises, for its CDF file (so writing the
    /// files does not ask the device for its report again).
    #[serde(skip)]
    pub erase_wait: Histogram<u64>,
    pub host: HostReport,
    /// The time series' interval: as asked, and as used (doubled past the memory bound).
    pub series_interval: IntervalNote,
    /// The firmware policy's states, erases and queues.
    pub firmware: Option<FirmwareReport>,
    /// Real-time front ends (the fio engine in realtime mode, the block device): how late
    /// completions reached the host after the model's completion time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub realtime: Option<RealtimeReport>,
    /// Host layers' own reports (the file layer's write amplification and GC, a workload's
    /// phases), by name.
    #[serde(
        skip_serializing_if = "BTreeMap::is_empty",
        serialize_with = "keys_sorted"
    )]
    pub layers: BTreeMap<String, LayerReport>,
    /// Why the run stopped before its workload ended (interrupted, or a budget ran out): the
    /// results are those of the run so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_early: Option<EarlyStop>,
}

/// Why a run stopped before its workload ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EarlyStop {
    /// The front end was asked to stop (Ctrl-C).
    Interrupted,
    /// The run's event budget ran out.
    Events,
    /// The run's simulated-time budget ran out.
    SimulatedTime,
}

/// How far behind the model a real-time front end delivered completions. A completion counts as
/// late when it reached the host more than `late_threshold_ns` after its modelled time (the wall
/// clock's wake-up granularity is below that threshold on an idle machine).
#[derive(Clone, Debug, Serialize)]
pub struct RealtimeReport {
    pub completions: u64,
    pub late: u64,
    pub late_threshold_ns: u64,
    pub lateness_mean_ns: f64,
    pub lateness_p99_ns: u64,
    pub lateness_max_ns: u64,
}

impl RealtimeReport {
    pub fn of(lateness: &Histogram<u64>, late: u64, late_threshold_ns: u64) -> Self {
        RealtimeReport {
            completions: lateness.len(),
            late,
            late_threshold_ns,
            lateness_mean_ns: lateness.mean(),
            lateness_p99_ns: lateness.value_at_percentile(99.0),
            lateness_max_ns: lateness.max(),
        }
    }

    /// One line for a front end's log.
    pub fn describe(&self) -> String {
        format!(
            "{} of {} completions reached the host more than {} us after the model's time (p99 {:.1} us, max {:.1} us late): the machine was too busy for real time",
            self.late,
            self.completions,
            self.late_threshold_ns / 1000,
            self.lateness_p99_ns as f64 / 1e3,
            self.lateness_max_ns as f64 / 1e3
        )
    }
}

/// What names a run in its summary.
pub struct RunIdentity {
    pub experiment: String,
    pub seed: u64,
    pub config_fingerprint: u64,
    pub prefill_bytes: u64,
}

/// The summary of a run of `device` measured by `metrics`.
pub fn summarize(
    id: &RunIdentity,
    device: &dyn DeviceModel,
    metrics: &Metrics,
    host: HostReport,
    jobs: Vec<JobReport>,
    errors: ErrorLog,
) -> Summary {
    let elapsed = metrics.elapsed();
    let r = device.report(metrics.last_done());
    let mut ops = BTreeMap::new();
    for kind in OpKind::ALL {
        if let Some(h) = metrics.merged(Layer::Device, kind) {
            let (count, bytes) = metrics
                .slots()
                .iter()
                .filter(|s| s.layer == Layer::Device && s.op == kind)
                .fold((0, 0), |a, s| (a.0 + s.count, a.1 + s.bytes));
            ops.insert(
                kind.name().to_string(),
                OpSummary::of(&h, count, bytes, elapsed),
            );
        }
    }
    let mut table: Vec<OpRow> = metrics
        .slots()
        .iter()
        .filter(|s| s.count > 0)
        .map(|s| OpRow {
            layer: s.layer,
            op: s.op,
            tenant: metrics.tenant_name(s.tenant).to_string(),
            summary: OpSummary::of(&s.histogram(), s.count, s.bytes, elapsed),
        })
        .collect();
    table.sort_by(|a, b| (a.layer, a.op, &a.tenant).cmp(&(b.layer, b.op, &b.tenant)));
    let bw = metrics.bandwidth();
    Summary {
        zonelab_version: env!("CARGO_PKG_VERSION").to_string(),
        experiment: id.experiment.clone(),
        seed: id.seed,
        config_fingerprint: format!("{:016x}", id.config_fingerprint),
        device: device.info().name.clone(),
        firmware_policy: device.policy_name().to_string(),
        prefill_bytes: id.prefill_bytes,
        start_ns: metrics.origin().ns(),
        simulated_time_ns: elapsed.ns(),
        ops,
        table,
        device_counters: DeviceSummary::new(&r.counters, &r.nand, r.page_size_bytes),
        energy: r.energy.into(),
        wear: r.wear.into(),
        jobs,
        errors_total: errors.total(),
        errors_ridden_through: errors.ridden_through(),
        errors: errors.into_kept(),
        erase_wait_ns: LatencySummary::of(&r.erase_wait),
        host,
        series_interval: IntervalNote {
            requested_ns: bw.requested_interval().ns(),
            used_ns: bw.interval().ns(),
        },
        firmware: r.firmware,
        erase_wait: r.erase_wait,
        realtime: None,
        layers: BTreeMap::new(),
        stopped_early: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::{Op, Status};

    /// A host failing commands in a loop keeps the log's memory bounded, its count exact, and
    /// only the latest report (while kept) open to amendment.
    #[test]
    fn the_error_log_keeps_the_first_reports_and_counts_all() {
        let mut log = ErrorLog::default();
        for lba in 0..ErrorLog::KEPT as u64 + 10 {
            log.push(|| ErrorReport::new("job", Op::Read, lba, Status::LbaOutOfRange));
        }
        assert_eq!(log.kept().len(), ErrorLog::KEPT);
        assert_eq!(log.total(), ErrorLog::KEPT as u64 + 10);
        assert_eq!(
            log.kept().last().map(|e| e.lba),
            Some(ErrorLog::KEPT as u64 - 1)
        );
        assert!(log.latest_mut().is_none(), "the latest one was not kept");
        let mut built = false;
        log.push(|| {
            built = true;
            ErrorReport::new("job", Op::Read, 0, Status::LbaOutOfRange)
        });
        assert!(!built, "a full log builds no report");
        let mut log = ErrorLog::default();
        log.push(|| ErrorReport::new("job", Op::Read, 7, Status::LbaOutOfRange));
        assert_eq!(log.latest_mut().map(|e| e.lba), Some(7));
    }

    /// Every counter a device keeps reaches summary.json under its own name, with its value,
    /// without being listed again here.
    #[test]
    fn summary_json_carries_every_device_counter() {
        let serde_json::Value::Object(names) =
            serde_json::to_value(DeviceCounters::default()).unwrap()
        else {
            panic!("counters serialize as an object");
        };
        let distinct: serde_json::Map<String, serde_json::Value> = names
            .keys()
            .enumerate()
            .map(|(i, k)| (k.clone(), (i as u64 + 1).into()))
            .collect();
        let counters: DeviceCounters = serde_json::from_value(distinct.clone().into()).unwrap();
        let summary = serde_json::to_value(DeviceSummary::new(
            &counters,
            &NandCounters::default(),
            4096,
        ))
        .unwrap();
        for (k, v) in &distinct {
            assert_eq!(summary.get(k), Some(v), "device_counters.{k}");
        }
        assert!(distinct.len() >= 12, "{} counters", distinct.len());
    }
}
