//! Firmware policies: what happens to the blocks of a zone the host resets, and which physical
//! zone a logical zone writes into. A policy decides; the device applies the decisions to its
//! NAND timelines, its zone map and its counters.
//!
//! - [`Synchronous`]: erase at reset, logical zone = physical zone (001_da3b5f2dcfaef21c.txt, 2.2.1).
//! - [`Mapping`]: a logical-to-physical zone table; erases wait until free zones run short (2.2.2).
//! - [`Preemptive`]: Preemptive Zone Reset with partial erases in idle time (3.2).
//! - [`Renewable`]: ReZNS renewable zones (000_1e8e6a1fe63635bd.txt, section 3).

mod mapping;
mod pool;
mod preemptive;
mod renewable;
mod synchronous;

use std::ops::Range;

pub use mapping::Mapping;
pub use pool::{PoolReport, PoolSample, PoolState, ZonePool};
pub use preemptive::{IdleScope, Preemptive};
pub use renewable::{Renewable, RenewableReport, RenewableSettings, SpareSample};
pub use synchronous::Synchronous;

use serde::Serialize;

use crate::config::{FirmwareConfig, Geometry};
use crate::nand::Layout;
use crate::nand::Nand;

/// Program units `start_unit..end_unit` of physical zone `zone` hold part of a logical zone
/// (`end_unit` is one past the last unit programmed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceRef {
    pub zone: u32,
    pub start_unit: u64,
    pub end_unit: u64,
    /// One past the last unit the firmware reserved for the piece.
    pub reserved_end_unit: u64,
}

/// What a policy sees of a logical zone the host has just reset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResetView<'a> {
    /// The physical zone the logical zone was writing into (its last piece).
    pub physical_zone: u32,
    /// One past the last unit programmed in that physical zone: its write frontier.
    pub programmed_units: u64,
    /// Every piece of the logical zone, in logical order.
    pub pieces: &'a [PieceRef],
}

/// Which blocks of the zone to erase before the reset completes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EraseScope {
    /// Only blocks holding programmed units.
    ProgrammedBlocks,
    /// Every block of the zone.
    AllBlocks,
}

/// A policy's answer to a host reset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResetDecision {
    /// Erase now, holding the dies, and keep the logical zone on this physical zone.
    EraseNow(EraseScope),
    /// Unlink the logical zone from its pieces: it is Empty at once. `erase_now` runs before the
    /// reset completes; `erase_background` runs on the dies without holding the reset.
    Unlink {
        erase_now: Vec<EraseOrder>,
        erase_background: Vec<EraseOrder>,
    },
}

impl ResetDecision {
    /// Unlink and leave the erasing to later.
    pub fn unlink() -> Self {
        ResetDecision::Unlink {
            erase_now: Vec::new(),
            erase_background: Vec::new(),
        }
    }
}

/// Partial (one row, in idle time) or full (every remaining row, blocking).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EraseKind {
    Partial,
    Full,
}

/// Erase rows `rows` of physical zone `zone` (a row is one block on each die of the stripe).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EraseOrder {
    pub zone: u32,
    pub rows: Range<u32>,
    /// With the write-pointer optimisation: only blocks holding the first this many units.
    pub programmed_only: Option<u64>,
    /// The zone is erased once this order is done and may be handed out again.
    pub frees_zone: bool,
    pub kind: EraseKind,
}

/// Space for a logical zone that needs some: units `start_unit..start_unit + units` of
/// physical zone `zone`, and the blocking erases to run first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allocation {
    pub zone: u32,
    pub start_unit: u64,
    pub units: u64,
    pub erase_first: Vec<EraseOrder>,
}

/// A logical zone still holding unwritten space, shown to a policy's timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZombieCandidate {
    pub logical_zone: u32,
    /// When the host last wrote it.
    pub idle_since_ns: u64,
    /// Its last piece (the one with unwritten space).
    pub piece: PieceRef,
    /// A partial unit waits in the controller: it is programmed (padded) if the zone is reclaimed.
    pub staged: bool,
}

/// What a policy's timer decided.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimerDecision {
    /// Logical zones whose unwritten space the policy took back: their pieces are closed.
    pub reclaimed: Vec<u32>,
    pub erase_background: Vec<EraseOrder>,
}

/// What a policy may look at when the device offers it idle time.
pub struct IdleView<'a> {
    pub now_ns: u64,
    /// No foreground command is queued or running anywhere in the device.
    pub device_idle: bool,
    pub nand: &'a Nand,
}

impl IdleView<'_> {
    /// No work of any kind is pending on the dies of physical zone `zone`.
    pub fn zone_dies_idle(&self, zone: u32) -> bool {
        self.nand
            .layout
            .dies_of(zone)
            .all(|d| self.nand.die_free_ns(d) <= self.now_ns)
    }
}

/// What a policy reports in the summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FirmwareReport {
    /// Mapping and preemptive: states, erases and queues.
    ZoneMapping(PoolReport),
    /// ReZNS.
    Renewable(RenewableReport),
}

/// A zone-reset and zone-mapping policy. One file per policy in this module.
pub trait ResetPolicy: Send {
    fn name(&self) -> &'static str;

    /// Logical zone `i` is physical zone `i` for good (no allocation, no unmapped zones).
    fn static_mapping(&self) -> bool {
        false
    }

    fn on_host_reset(&mut self, now_ns: u64, zone: &ResetView) -> ResetDecision;

    /// A logical zone needs space for up to `need_units` more program units (it is written and
    /// holds no space, or its last piece is full). Orders in `erase_first` block foreground I/O
    /// until they are done.
    fn allocate(&mut self, now_ns: u64, need_units: u64) -> Allocation;

    /// Whether `allocate` can hand out space now. If not, the device compacts a physical zone
    /// (see [`ResetPolicy::compacted`]) first.
    fn has_space(&self) -> bool {
        true
    }

    /// The device compacted physical zone `zone` in place: its live pieces now fill units
    /// `0..packed_units` and the rest is unwritten.
    fn compacted(&mut self, _zone: u32, _packed_units: u64) {}

    /// Whether an explicit Open of an empty zone takes space at once (ReZNS: "an application
    /// creates its zone"), rather than at the first write.
    fn allocates_on_open(&self) -> bool {
        false
    }

    /// The device reports when the blocking erases of the last allocation end.
    fn blocking_erases_end(&mut self, _done_ns: u64) {}

    /// Idle time is offered: one background erase, if the policy wants one now.
    fn on_idle(&mut self, _view: &IdleView) -> Option<EraseOrder> {
        None
    }

    /// Whether `on_idle` or a timer can ever do anything (lets the device skip idle checks).
    fn has_background_work(&self) -> bool {
        false
    }

    /// When the policy's timer (a periodic daemon) next wants to run.
    fn next_timer_ns(&self) -> Option<u64> {
        None
    }

    /// The timer is due: the active logical zones that still hold unwritten space.
    fn on_timer(&mut self, _now_ns: u64, _open: &[ZombieCandidate]) -> TimerDecision {
        TimerDecision::default()
    }

    /// Counters and time series for the summary, if the policy keeps any.
    fn report(&self, _now_ns: u64) -> Option<FirmwareReport> {
        None
    }
}

/// The policy an experiment names, for a device of geometry `geo`.
pub fn build(config: &FirmwareConfig, geo: &Geometry) -> Box<dyn ResetPolicy> {
    let layout = Layout::new(geo);
    let (rows, units_per_row) = (layout.rows_per_zone(), layout.units_per_row());
    let pool = |t_free, wp_optimisation| {
        ZonePool::new(geo.zone_count, t_free, wp_optimisation, rows, units_per_row)
    };
    match *config {
        FirmwareConfig::Synchronous { erase_all_blocks } => {
            Box::new(Synchronous { erase_all_blocks })
        }
        FirmwareConfig::Mapping {
            t_free,
            wp_optimisation,
        } => Box::new(Mapping::new(pool(t_free, wp_optimisation))),
        FirmwareConfig::Preemptive {
            t_free,
            t_invalid,
            wp_optimisation,
            idle,
        } => Box::new(Preemptive::new(
            pool(t_free, wp_optimisation),
            t_invalid,
            idle,
        )),
        FirmwareConfig::Renewable {
            threshold,
            regc_fraction,
            zombie_scan_period,
            zombie_idle,
            erase_all_blocks,
        } => {
            let settings = RenewableSettings {
                threshold,
                regc_fraction,
                zombie_scan_period_ns: zombie_scan_period.ns(),
                zombie_idle_ns: zombie_idle.ns(),
                erase_all_blocks,
            };
            let cap_units = geo.zone_capacity_bytes.div_ceil(geo.program_unit_bytes());
            Box::new(Renewable::new(
                settings,
                geo.zone_count,
                cap_units,
                units_per_row,
                rows,
            ))
        }
    }
}

#[cfg(test)]
mod tests;
