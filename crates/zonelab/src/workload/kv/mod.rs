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

use crate::device::LayerReport;
pub use crate::device::report::kv::{DeviceDelta, FilesChoice, KvReport, PhaseReport};
use crate::host::kv::{Db, KvFiles};
use crate::sim::host::Host;

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
            LayerReport::KvStore(rep)
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
