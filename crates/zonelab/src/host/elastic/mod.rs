//! eZNS (Min et al., "eZNS: An Elastic Zoned Namespace for Commodity ZNS SSDs", OSDI 2023;
//! docs/reference/ezns.md is the spec): a host-side layer over a small-zone ZNS SSD that
//! presents namespaces of *v-zones*, logical zones built from single-die physical zones, grows
//! and shrinks them with the workload (zone ballooning), and schedules each tenant's I/O to cut
//! die interference. It sits behind the device seam: it is a [`DeviceModel`] over any zoned
//! [`DeviceModel`] (a ZNS drive, an array of drives, static zones, zones emulated over a
//! conventional SSD; [`below`]), so every front end drives it as it drives a device.
//!
//! One module per component:
//! - [`below`]: the device under the layer;
//! - [`hal`]: the hardware abstraction (MAR, page size, physical zone size, headers);
//! - [`allocator`]: the serial zone allocator (reservations, no die collision in a group);
//! - [`vzone`]: v-zones and their stripe groups;
//! - [`resources`]: essential and spare resources per namespace, loans;
//! - [`overdrive`]: local overdrive (EWMA, widths, stripe sizes) and global overdrive;
//! - `arbiter`: opening and closing stripe groups, finish and reset of v-zones;
//! - `reclaim`: compaction of idle overdriven groups into narrower ones;
//! - [`sched`]: weighted round-robin, read congestion control, write admission control;
//! - `datapath`: reads and writes through the scheduler;
//! - [`report`]: what the layer reports;
//! - `setup`: the prefill and the layer's invariants.
//!
//! Commands the scheduler queues complete later: `submit` returns `done: None` and `advance`
//! reports the completion under the command's tag; the token refresh (1 ms) and the read
//! windows are wake-ups `advance` asks for. Host-visible state (zone states, write pointers)
//! changes at submission; the physical zones follow when the layer dispatches.

mod allocator;
mod arbiter;
mod below;
mod datapath;
mod hal;
mod overdrive;
mod reclaim;
mod resources;
pub mod sched;
mod seam;
mod setup;
mod vzone;

#[cfg(test)]
mod sched_tests;
#[cfg(test)]
pub(crate) mod tests;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub use crate::device::report::elastic::{ElasticReport, NamespaceReport, SpareSample};
pub use hal::Hal;
use sched::admission::{Admission, AdmissionParams, Bucket};
use sched::read_cc::CcParams;
use sched::wrr::Wrr;

use crate::device::{Completed, DeviceInfo, DeviceModel, ZonedInfo};
use crate::host::lzone::LogicalZones;
use crate::metrics::series::{Sampling, StepSeries};
use crate::time::{Duration, Instant};
use allocator::Allocator;
pub use below::Below;
use overdrive::{Ewma, Global};
use reclaim::Migration;
use resources::Resources;
use rustc_hash::FxHashMap;
use vzone::{Group, GroupId, VZone};

/// When the local-overdrive estimate takes a sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EwmaSample {
    /// Whenever a stripe group opens (the paper: local overdrive happens when a group opens).
    GroupOpen,
    /// When a v-zone opens its first group (the authors' code).
    FirstGroup,
}

/// The hierarchical scheduler's settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchedSpec {
    /// Weighted round-robin weights, one per namespace.
    pub weights: Vec<u32>,
    pub read_cc: bool,
    pub write_admission: bool,
    pub cc: CcParams,
    pub admission: AdmissionParams,
}

/// A validated eZNS layer.
#[derive(Clone, Debug, PartialEq)]
pub struct ElasticSpec {
    pub namespaces: u32,
    pub vzones_per_namespace: u32,
    /// Physical zones a v-zone owns (16 in the paper).
    pub zones_per_vzone: u32,
    /// Active v-zones per namespace at most.
    pub max_active_vzones: u32,
    /// Essential and spare active resources, all namespaces together.
    pub essentials: u32,
    pub spares: u32,
    /// The stripe size at the minimum width (32 KiB in the paper).
    pub max_stripe_lbas: u64,
    pub reserve_pool: u32,
    /// The EWMA's weight is 1 / this (32 in the authors' code).
    pub ewma_weight: u32,
    pub ewma_sample: EwmaSample,
    pub local_overdrive: bool,
    pub global_overdrive: bool,
    pub reclaim: bool,
    /// With local overdrive off: each namespace's group width (empty: the minimum width).
    pub fixed_width: Vec<u32>,
    /// What the layer builds on, probed from the device under it at validation.
    pub hal: Hal,
    /// A global-overdrive cycle every this many allocations (32 in the authors' code).
    pub redistribute_every: u32,
    /// Allocations a namespace must appear in to count as active (the essentials).
    pub history: u32,
    /// Reclaim after this many cycles without writes ...
    pub reclaim_cycles: u32,
    /// ... and at least this long without writes.
    pub reclaim_wait: Duration,
    pub sched: SchedSpec,
}

impl ElasticSpec {
    /// The minimum width: essentials / (namespaces x active v-zones per namespace).
    pub fn base_width(&self) -> u32 {
        (self.essentials / (self.namespaces * self.max_active_vzones)).max(1)
    }

    /// The width of namespace `ns`'s groups with local overdrive off.
    pub fn fixed_width_of(&self, ns: u32) -> u32 {
        self.fixed_width
            .get(ns as usize)
            .copied()
            .unwrap_or(self.base_width())
    }

    /// What the layer presents over `device`: `namespaces` namespaces of v-zones.
    pub fn info(&self, device: &DeviceInfo) -> DeviceInfo {
        let hal = self.hal;
        let cap = hal.usable_lbas * self.zones_per_vzone as u64;
        let size = cap.next_power_of_two();
        DeviceInfo {
            name: format!("{} (eZNS)", device.name),
            lba_size_bytes: hal.lba_bytes,
            namespace_lbas: size * self.vzones_per_namespace as u64,
            namespaces: self.namespaces,
            zoned: Some(ZonedInfo {
                zone_size_lbas: size,
                zone_capacity_lbas: cap,
                zone_count: self.vzones_per_namespace,
                max_open_zones: Some(self.max_active_vzones),
                max_active_zones: Some(self.max_active_vzones),
                zone_append_size_limit_lbas: None,
            }),
        }
    }
}

/// Counters beside the report's.
#[derive(Clone, Debug, Default)]
struct Stats {
    groups_opened: Vec<u64>,
    widths: Vec<std::collections::BTreeMap<u32, u64>>,
    reclaims: u64,
    reclaimed_lbas: u64,
    /// Of groups already gone.
    cc_decreases: u64,
    cc_increases: u64,
    reads_queued: u64,
    writes_queued: u64,
}

pub struct Elastic {
    dev: Below,
    spec: ElasticSpec,
    hal: Hal,
    info: DeviceInfo,
    base: u32,
    /// V-zones per namespace.
    per_ns: u32,
    lz: Vec<LogicalZones>,
    /// All namespaces' v-zones: v-zone `z` of namespace `ns` is `ns * per_ns + z`.
    vz: Vec<VZone>,
    ewma: Vec<Ewma>,
    /// Per namespace: when it last wrote and in which global-overdrive cycle.
    last_write: Vec<(Instant, u64)>,
    groups: Vec<Option<Group>>,
    free_groups: Vec<GroupId>,
    alloc: Allocator,
    res: Resources,
    global: Global,
    adm: Admission,
    wrr: Wrr,
    /// Host commands with parts still queued: (parts left, latest completion so far).
    pending: FxHashMap<u64, (u32, Instant)>,
    /// Completions known, not yet reported.
    known: Vec<Completed>,
    /// Groups with queued reads, by when their next read in flight completes.
    read_wakes: BinaryHeap<Reverse<(Instant, GroupId)>>,
    /// V-zones with queued work.
    write_waiting: Vec<u32>,
    /// The next token refresh at which queued writes may go.
    next_tick: Instant,
    migrations: Vec<Option<Migration>>,
    /// When `advance` next has something to do.
    wake: Option<Instant>,
    /// Physical zones of open groups (active on the device).
    open_pzs: u32,
    stats: Stats,
    spare_series: Vec<StepSeries<(u32, u32)>>,
    scratch: Vec<u8>,
    retain: bool,
}

impl Elastic {
    /// eZNS over `dev` (the zoned device `spec` was validated over: a drive, or any zoned
    /// `Box<dyn DeviceModel>`); its spare series sample as `sampling` says.
    pub fn new(dev: impl Into<Below>, spec: &ElasticSpec, sampling: Sampling) -> Self {
        let dev: Below = dev.into();
        let hal = spec.hal;
        let info = spec.info(dev.info());
        let z = info.zoned.clone().expect("zoned");
        let n = spec.namespaces as usize;
        let base = spec.base_width();
        let retain = dev.retains_data();
        let bucket = Bucket::full(base, &spec.sched.admission, Instant::ZERO);
        let mut e = Elastic {
            lz: (0..n)
                .map(|_| {
                    LogicalZones::new(
                        z.zone_count,
                        z.zone_size_lbas,
                        z.zone_capacity_lbas,
                        spec.max_active_vzones,
                    )
                })
                .collect(),
            vz: (0..n as u32 * z.zone_count)
                .map(|_| VZone::new(bucket))
                .collect(),
            ewma: vec![Ewma::new(spec.max_active_vzones as f64, spec.ewma_weight); n],
            last_write: vec![(Instant::ZERO, 0); n],
            groups: Vec::new(),
            free_groups: Vec::new(),
            alloc: Allocator::new(&hal, spec.reserve_pool, retain),
            res: Resources::new(spec.essentials, spec.spares, spec.namespaces),
            global: Global::new(spec.history, spec.redistribute_every),
            adm: Admission::new(spec.sched.admission),
            wrr: Wrr::new(spec.sched.weights.clone()),
            pending: FxHashMap::default(),
            known: Vec::new(),
            read_wakes: BinaryHeap::new(),
            write_waiting: Vec::new(),
            next_tick: Instant::ZERO,
            migrations: Vec::new(),
            wake: None,
            open_pzs: 0,
            stats: Stats {
                groups_opened: vec![0; n],
                widths: vec![Default::default(); n],
                ..Stats::default()
            },
            spare_series: (0..n).map(|_| sampling.step_series()).collect(),
            scratch: Vec::new(),
            retain,
            per_ns: z.zone_count,
            base,
            hal,
            info,
            spec: spec.clone(),
            dev,
        };
        for ns in 0..n {
            e.sample_spares(Instant::ZERO, ns);
        }
        e
    }

    /// The device under the layer.
    pub fn device(&self) -> &dyn DeviceModel {
        self.dev.as_model()
    }

    pub fn hal(&self) -> &Hal {
        &self.hal
    }

    fn vid(&self, ns: u32, zone: u32) -> u32 {
        ns * self.per_ns + zone
    }

    fn group(&self, g: GroupId) -> &Group {
        self.groups[g as usize].as_ref().expect("a live group")
    }

    fn group_mut(&mut self, g: GroupId) -> &mut Group {
        self.groups[g as usize].as_mut().expect("a live group")
    }

    fn sample_spares(&mut self, now: Instant, ns: usize) {
        let point = (self.res.spare_used[ns], self.res.pool(ns));
        if self.spare_series[ns].last() != Some(point) {
            self.spare_series[ns].record(now, point);
        }
    }

    fn sample_all_spares(&mut self, now: Instant) {
        for ns in 0..self.spec.namespaces as usize {
            self.sample_spares(now, ns);
        }
    }

    /// A queued part of host command `tag` completes at `done`.
    fn complete_part(&mut self, tag: u64, done: Instant) {
        let e = self
            .pending
            .get_mut(&tag)
            .expect("a queued part belongs to a pending command");
        e.0 -= 1;
        e.1 = e.1.max(done);
        if e.0 == 0 {
            let done = e.1;
            self.pending.remove(&tag);
            self.known.push(Completed { tag, done });
        }
    }

    /// Notes that `parts` parts of command `tag` wait in queues (`done` so far).
    fn defer(&mut self, tag: u64, parts: u32, done: Instant) {
        assert!(
            !self.pending.contains_key(&tag),
            "command tags are unique while pending"
        );
        self.pending.insert(tag, (parts, done));
    }

    fn want_wake(&mut self, t: Instant) {
        self.wake = Some(self.wake.map_or(t, |w| w.min(t)));
    }

    /// Where LBA `lba` of namespace `ns` lives on the device now, if it was written and sent.
    pub fn locate(&self, ns: u32, lba: u64) -> Option<u64> {
        let lz = &self.lz[ns as usize];
        let zone = lz.zone_of(lba);
        let offset = lba - zone as u64 * lz.zone_lbas();
        let vz = &self.vz[self.vid(ns, zone) as usize];
        if offset >= vz.dispatched {
            return None;
        }
        let (g, start) = self.read_group(vz, offset)?;
        let gr = self.group(g);
        let (index, pz_off, _) = gr.stripe.locate(offset - start);
        Some(self.hal.data_lba(gr.pzs[index as usize], pz_off))
    }

    /// The group that holds v-zone offset `offset` for reads, and where its range starts.
    fn read_group(&self, vz: &VZone, offset: u64) -> Option<(GroupId, u64)> {
        if let Some((old, start, end)) = vz.read_from
            && (start..end).contains(&offset)
        {
            return Some((old, self.group(old).start));
        }
        vz.groups.iter().copied().find_map(|g| {
            let gr = self.group(g);
            (gr.start..gr.end())
                .contains(&offset)
                .then_some((g, gr.start))
        })
    }

    /// The dies of every open stripe group (tests: no two zones of a group on one die). Over a
    /// ZNS drive only: other devices do not say where a zone's bytes go.
    pub fn open_group_dies(&self) -> Vec<Vec<u32>> {
        let dies = self.hal.dies;
        let drive = self
            .dev
            .as_any()
            .downcast_ref::<crate::zns::Device>()
            .expect("the dies of a group are known over a ZNS drive");
        self.groups
            .iter()
            .flatten()
            .filter(|g| g.open)
            .map(|g| {
                g.pzs
                    .iter()
                    .map(|&pz| {
                        let phys = drive.physical_zone(pz).expect("a reserved zone is mapped");
                        phys % dies
                    })
                    .collect()
            })
            .collect()
    }

    /// Spares in use and pool per namespace (tests).
    pub fn spares(&self) -> Vec<(u32, u32)> {
        (0..self.spec.namespaces as usize)
            .map(|j| (self.res.spare_used[j], self.res.pool(j)))
            .collect()
    }

    /// Width of every group opened, per namespace (tests).
    pub fn widths(&self, ns: u32) -> &std::collections::BTreeMap<u32, u64> {
        &self.stats.widths[ns as usize]
    }

    pub fn elastic_report(&self) -> ElasticReport {
        let n = self.spec.namespaces as usize;
        let live = self.groups.iter().flatten();
        let (dec, inc) = live.fold((0, 0), |a, g| (a.0 + g.cc.decreases, a.1 + g.cc.increases));
        let mut spare_samples = Vec::new();
        for (ns, s) in self.spare_series.iter().enumerate() {
            spare_samples.extend(s.points().map(|(t, (used, pool))| SpareSample {
                t,
                namespace: ns as u32,
                spares_used: used,
                spare_pool: pool,
            }));
        }
        spare_samples.sort_by_key(|s| (s.t, s.namespace));
        ElasticReport {
            namespaces: (0..n)
                .map(|j| NamespaceReport {
                    namespace: j as u32,
                    essentials: self.res.essentials[j],
                    own_spares: self.res.own_spares[j],
                    spare_pool: self.res.pool(j),
                    spares_used_max: self.res.spare_used_max[j],
                    groups_opened: self.stats.groups_opened[j],
                    widths: self.stats.widths[j].clone(),
                    active_estimate: self.ewma[j].value(),
                })
                .collect(),
            allocations: self.alloc.allocations,
            overdrive_cycles: self.global.cycle,
            spares_lent: self.res.lent,
            spares_returned: self.res.returned,
            reclaims: self.stats.reclaims,
            reclaimed_lbas: self.stats.reclaimed_lbas,
            read_cc_decreases: self.stats.cc_decreases + dec,
            read_cc_increases: self.stats.cc_increases + inc,
            reads_queued: self.stats.reads_queued,
            writes_queued: self.stats.writes_queued,
            admission_delay_ns: self.adm.delay_ns() as u64,
            spare_samples,
            series_interval_ns: self
                .spare_series
                .iter()
                .map(|s| s.interval().ns())
                .max()
                .unwrap_or(0),
        }
    }
}
