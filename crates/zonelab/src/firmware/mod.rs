//! Firmware policies: what happens to the blocks of a zone the host resets, and which physical
//! zone a logical zone writes into. A policy decides; the device applies the decisions to its
//! NAND timelines, its zone map and its counters.
//!
//! - [`Synchronous`]: erase at reset, logical zone = physical zone (Jung et al., Preemptive Zone Reset, Electronics 2023, 2.2.1).
//! - [`Mapping`]: a logical-to-physical zone table; erases wait until free zones run short (2.2.2).
//! - [`Preemptive`]: Preemptive Zone Reset with partial erases in idle time (3.2).
//! - [`Renewable`]: ReZNS renewable zones (Lee et al., ReZNS, Appl. Sci. 2024, section 3).
//! - [`RoundRobin`]: the small-zone SSD eZNS runs on: each new physical zone on the next die,
//!   least-worn zone in it, lazy erase (docs/reference/ezns.md).

mod mapping;
mod pool;
mod preemptive;
mod renewable;
mod round_robin;
mod synchronous;

use std::ops::Range;

pub use crate::device::FirmwareReport;
pub use crate::device::report::pool::{PoolReport, PoolSample};
pub use crate::device::report::renewable::{RenewableReport, SpareSample};
pub use mapping::Mapping;
pub use pool::{PoolState, S2Erases, ZonePool};
pub use preemptive::{IdleScope, Preemptive};
pub use renewable::{Renewable, RenewableSettings};
pub use round_robin::RoundRobin;
pub use synchronous::Synchronous;

use serde::{Deserialize, Serialize};

use crate::metrics::series::Sampling;
use crate::nand::{Layout, Nand};
use crate::time::Instant;

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
    pub idle_since: Instant,
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
    pub now: Instant,
    /// No foreground command is queued or running anywhere in the device.
    pub device_idle: bool,
    pub nand: &'a Nand,
    pub layout: &'a Layout,
}

impl IdleView<'_> {
    /// No work of any kind is pending on the dies of physical zone `zone`.
    pub fn zone_dies_idle(&self, zone: u32) -> bool {
        self.layout
            .dies_of(zone)
            .all(|d| self.nand.die_free(d) <= self.now)
    }
}

/// A zone-reset and zone-mapping policy. One file per policy in this module.
pub trait ResetPolicy: Send {
    fn name(&self) -> &'static str;

    /// Logical zone `i` is physical zone `i` for good (no allocation, no unmapped zones).
    fn static_mapping(&self) -> bool {
        false
    }

    fn on_host_reset(&mut self, now: Instant, zone: &ResetView) -> ResetDecision;

    /// A logical zone needs space for up to `need_units` more program units (it is written and
    /// holds no space, or its last piece is full). Orders in `erase_first` block foreground I/O
    /// until they are done.
    fn allocate(&mut self, now: Instant, need_units: u64) -> Allocation;

    /// Whether `allocate` can hand out space now. If not, the device compacts a physical zone
    /// (see [`ResetPolicy::compacted`]) first.
    fn has_space(&self) -> bool {
        true
    }

    /// Every physical zone is pinned by live pieces: which one to compact in place (its live
    /// units read, the zone erased, the units written back from unit 0). Pieces still being
    /// written into the victim are closed at their data first, giving back the units they
    /// reserved (their zones take new space at their next write). The default takes the zone
    /// with the least live data among those no piece is still being written into, else among
    /// all (row-rounded reservations of open pieces can pin every zone).
    fn compaction_victim(&self, candidates: &[CompactionCandidate]) -> Option<u32> {
        candidates
            .iter()
            .filter(|c| c.pinned && c.live_units < c.capacity_units)
            .min_by_key(|c| (!c.closed, c.live_units, c.zone))
            .map(|c| c.zone)
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
    fn blocking_erases_end(&mut self, _done: Instant) {}

    /// Idle time is offered: one background erase, if the policy wants one now.
    fn on_idle(&mut self, _view: &IdleView) -> Option<EraseOrder> {
        None
    }

    /// Whether `on_idle` or a timer can ever do anything (lets the device skip idle checks).
    fn has_background_work(&self) -> bool {
        false
    }

    /// When the policy's timer (a periodic daemon) next wants to run.
    fn next_timer(&self) -> Option<Instant> {
        None
    }

    /// The timer is due: the active logical zones that still hold unwritten space.
    fn on_timer(&mut self, _now: Instant, _open: &[ZombieCandidate]) -> TimerDecision {
        TimerDecision::default()
    }

    /// Counters and time series for the summary, if the policy keeps any.
    fn report(&self, _now: Instant) -> Option<FirmwareReport> {
        None
    }

    /// Everything the policy holds (its tables, queues, counters and series), for device state
    /// files ([`crate::state`]).
    fn save(&self) -> PolicyState;
}

/// A policy's whole state: the policy itself, as a device state file keeps it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum PolicyState {
    Synchronous(Synchronous),
    Mapping(Mapping),
    Preemptive(Preemptive),
    Renewable(Renewable),
    RoundRobin(round_robin::RoundRobin),
}

impl PolicyState {
    fn name(&self) -> &'static str {
        match self {
            PolicyState::Synchronous(_) => "synchronous",
            PolicyState::Mapping(_) => "mapping",
            PolicyState::Preemptive(_) => "preemptive",
            PolicyState::Renewable(_) => "renewable",
            PolicyState::RoundRobin(_) => "round_robin",
        }
    }
}

/// The policy a state file kept, checked against the policy `spec` names for `zone_count`
/// physical zones of `cap_units` program units (so a damaged or foreign state is refused here
/// rather than failing later).
pub fn restore(
    state: PolicyState,
    spec: &PolicySpec,
    zone_count: u32,
    cap_units: u64,
) -> Result<Box<dyn ResetPolicy>, String> {
    if state.name() != spec.name() {
        return Err(format!(
            "the firmware state is for the {} policy, the device runs {}",
            state.name(),
            spec.name()
        ));
    }
    Ok(match state {
        PolicyState::Synchronous(p) => Box::new(p),
        PolicyState::Mapping(p) => {
            p.check(zone_count)?;
            Box::new(p)
        }
        PolicyState::Preemptive(p) => {
            p.check(zone_count)?;
            Box::new(p)
        }
        PolicyState::Renewable(p) => {
            p.check(zone_count, cap_units)?;
            Box::new(p)
        }
        PolicyState::RoundRobin(p) => {
            p.check(zone_count)?;
            Box::new(p)
        }
    })
}

/// A physical zone as [`ResetPolicy::compaction_victim`] sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompactionCandidate {
    pub zone: u32,
    /// Program units of live data mapped to it.
    pub live_units: u64,
    pub capacity_units: u64,
    /// No piece on it is still being written.
    pub closed: bool,
    /// Some piece maps to it, if only an empty one (a zone whose unwritten units the zombie
    /// daemon took back keeps its piece, and so its physical zone, until it is reset).
    pub pinned: bool,
}

/// A validated firmware policy choice (built by `config` from the experiment's `[firmware]`).
#[derive(Clone, Debug, PartialEq)]
pub enum PolicySpec {
    Synchronous {
        erase_all_blocks: bool,
    },
    Mapping {
        t_free: u32,
        s2_erases: S2Erases,
        wp_optimisation: bool,
    },
    Preemptive {
        t_free: u32,
        s2_erases: S2Erases,
        t_invalid: u32,
        wp_optimisation: bool,
        idle: IdleScope,
    },
    Renewable(RenewableSettings),
    /// The small-zone SSD's placement: next die in round-robin order, lazy erase.
    RoundRobin,
}

impl PolicySpec {
    pub fn name(&self) -> &'static str {
        match self {
            PolicySpec::Synchronous { .. } => "synchronous",
            PolicySpec::Mapping { .. } => "mapping",
            PolicySpec::Preemptive { .. } => "preemptive",
            PolicySpec::Renewable(_) => "renewable",
            PolicySpec::RoundRobin => "round_robin",
        }
    }
}

/// The policy `spec` names, for `zone_count` physical zones laid out as `layout`, each of
/// `cap_units` program units; its time series sample as `sampling` says.
pub fn build(
    spec: &PolicySpec,
    layout: &Layout,
    zone_count: u32,
    cap_units: u64,
    sampling: Sampling,
) -> Box<dyn ResetPolicy> {
    let (rows, units_per_row) = (layout.rows_per_zone(), layout.units_per_row());
    let pool = |t_free, s2_erases, wp_optimisation| {
        ZonePool::new(
            zone_count,
            t_free,
            wp_optimisation,
            rows,
            units_per_row,
            sampling,
        )
        .with_s2_erases(s2_erases)
    };
    match *spec {
        PolicySpec::Synchronous { erase_all_blocks } => Box::new(Synchronous { erase_all_blocks }),
        PolicySpec::Mapping {
            t_free,
            s2_erases,
            wp_optimisation,
        } => Box::new(Mapping::new(pool(t_free, s2_erases, wp_optimisation))),
        PolicySpec::Preemptive {
            t_free,
            s2_erases,
            t_invalid,
            wp_optimisation,
            idle,
        } => Box::new(Preemptive::new(
            pool(t_free, s2_erases, wp_optimisation),
            t_invalid,
            idle,
        )),
        PolicySpec::Renewable(settings) => Box::new(Renewable::new(
            settings,
            zone_count,
            cap_units,
            units_per_row,
            rows,
            sampling,
        )),
        PolicySpec::RoundRobin => Box::new(RoundRobin::new(layout, zone_count)),
    }
}

#[cfg(test)]
mod tests;
