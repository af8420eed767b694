//! Key-value workloads that run a store ([`crate::host::kv`]) as host tasks: db_bench's
//! benchmarks ([`dbbench`]) and YCSB's core workloads ([`ycsb`]), with their distributions
//! ([`dist`]). Each records its operations as [`Layer::Kv`](crate::metrics::Layer::Kv)
//! latencies under a tenant per phase (`<name>.<benchmark>`, `<name>.load`, `<name>.run`) and
//! adds a report (`layers.<name>` in the summary): per phase its operations, simulated time,
//! throughput and what the device did meanwhile (zone resets, erases, energy), and the store's
//! counters.

pub mod dbbench;
pub mod dist;
pub mod ycsb;

#[cfg(test)]
mod tests;

use std::cell::RefCell;
use std::rc::Rc;

use serde::Serialize;

use crate::host::kv::{Db, KvFiles, KvStats};
use crate::sim::host::Host;

/// Where a store's files live.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FilesChoice {
    /// In memory, at no device cost (the LSM logic alone).
    #[default]
    Memory,
    /// On the experiment's zoned file layer (`[fs]`), over the device.
    Fs,
}

impl std::fmt::Display for FilesChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FilesChoice::Memory => "in memory (no device I/O)",
            FilesChoice::Fs => "on the zoned file layer",
        })
    }
}

/// What the device did in a phase (differences of its counters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct DeviceDelta {
    pub host_read_bytes: u64,
    pub host_write_bytes: u64,
    pub zone_resets_requested: u64,
    pub zone_resets_executed: u64,
    pub block_erases: u64,
    pub page_programs: u64,
    pub page_reads: u64,
    pub energy_read_nj: f64,
    pub energy_program_nj: f64,
    pub energy_erase_nj: f64,
}

impl DeviceDelta {
    fn snapshot(h: &Host) -> DeviceDelta {
        let now = h.now();
        h.with_device(|d| {
            let r = d.report(now);
            DeviceDelta {
                host_read_bytes: r.counters.host_read_bytes,
                host_write_bytes: r.counters.host_write_bytes,
                zone_resets_requested: r.counters.zone_resets_requested,
                zone_resets_executed: r.counters.zone_resets_executed,
                block_erases: r.nand.block_erases,
                page_programs: r.nand.page_programs,
                page_reads: r.nand.page_reads,
                energy_read_nj: r.energy.read,
                energy_program_nj: r.energy.program,
                energy_erase_nj: r.energy.erase,
            }
        })
    }

    fn since(self, start: DeviceDelta) -> DeviceDelta {
        DeviceDelta {
            host_read_bytes: self.host_read_bytes - start.host_read_bytes,
            host_write_bytes: self.host_write_bytes - start.host_write_bytes,
            zone_resets_requested: self.zone_resets_requested - start.zone_resets_requested,
            zone_resets_executed: self.zone_resets_executed - start.zone_resets_executed,
            block_erases: self.block_erases - start.block_erases,
            page_programs: self.page_programs - start.page_programs,
            page_reads: self.page_reads - start.page_reads,
            energy_read_nj: self.energy_read_nj - start.energy_read_nj,
            energy_program_nj: self.energy_program_nj - start.energy_program_nj,
            energy_erase_nj: self.energy_erase_nj - start.energy_erase_nj,
        }
    }
}

/// One phase of a workload (a db_bench benchmark, YCSB's load or run).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PhaseReport {
    pub name: String,
    pub ops: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    pub ops_per_s: f64,
    pub device: DeviceDelta,
    /// The store's counters at the end of the phase (cumulative).
    pub store: KvStats,
}

/// A workload's report, shared by its tasks and read when the run ends.
#[derive(Clone, Debug, Default, Serialize)]
pub struct KvReport {
    pub workload: String,
    pub files: FilesChoice,
    pub phases: Vec<PhaseReport>,
    /// The store's counters when the run ended.
    pub store: Option<KvStats>,
    pub error: Option<String>,
}

/// Shared state of a running workload: the report, the store once open.
pub(crate) struct Shared<F: KvFiles + 'static> {
    pub report: RefCell<KvReport>,
    pub db: RefCell<Option<Db<F>>>,
}

impl<F: KvFiles + 'static> Shared<F> {
    pub fn new(h: &Host, name: &str, files: FilesChoice) -> Rc<Self> {
        let s = Rc::new(Shared {
            report: RefCell::new(KvReport {
                workload: name.to_string(),
                files,
                ..Default::default()
            }),
            db: RefCell::new(None),
        });
        let r = s.clone();
        h.add_report(name, move || {
            let mut rep = r.report.borrow().clone();
            rep.store = r.db.borrow().as_ref().map(Db::stats);
            serde_json::to_value(rep).expect("a report serializes")
        });
        s
    }

    pub fn fail(&self, e: impl std::fmt::Display) {
        let mut r = self.report.borrow_mut();
        if r.error.is_none() {
            r.error = Some(e.to_string());
        }
    }

    pub fn failed(&self) -> bool {
        self.report.borrow().error.is_some()
    }
}

/// Measures a phase: call `start`, run it, then `end`.
pub(crate) struct Phase {
    name: String,
    start_ns: u64,
    device: DeviceDelta,
}

impl Phase {
    pub fn start(h: &Host, name: &str) -> Phase {
        Phase {
            name: name.to_string(),
            start_ns: h.now().ns(),
            device: DeviceDelta::snapshot(h),
        }
    }

    pub fn end<F: KvFiles + 'static>(self, h: &Host, ops: u64, shared: &Shared<F>) {
        let end_ns = h.now().ns();
        let secs = (end_ns - self.start_ns) as f64 / 1e9;
        let store = shared
            .db
            .borrow()
            .as_ref()
            .map(Db::stats)
            .unwrap_or_default();
        shared.report.borrow_mut().phases.push(PhaseReport {
            name: self.name,
            ops,
            start_ns: self.start_ns,
            end_ns,
            ops_per_s: if secs > 0.0 { ops as f64 / secs } else { 0.0 },
            device: DeviceDelta::snapshot(h).since(self.device),
            store,
        });
    }
}
