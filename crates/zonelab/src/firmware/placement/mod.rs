//! Placement: which physical space a logical zone writes into, and which physical zones hold
//! nothing live once the host resets one. The erase scheduler (`super::erase`) decides when dead
//! zones are erased and hands them back through [`Placement::erased`].
//!
//! - [`Static`]: logical zone `i` is physical zone `i` (Jung et al., Preemptive Zone Reset,
//!   Electronics 2023, 2.2.1).
//! - [`FreeList`]: a logical-to-physical table; a new zone takes the free zone freed first
//!   (`queue`, 2.2.2) or the one whose blocks were erased least (`least_worn`: wear levelling by
//!   placement, chosen, the future work the seeds name).
//! - [`RoundRobin`]: the small-zone SSD eZNS runs on: the next die, least-worn zone in it.
//! - [`Renewable`]: ReZNS renewable zones (Lee et al., ReZNS, Appl. Sci. 2024, section 3).

mod free_list;
mod renewable;
mod round_robin;

use serde::{Deserialize, Serialize};

pub use free_list::{FreeList, Pick};
pub use renewable::{Renewable, RenewableSettings};
pub use round_robin::RoundRobin;

use super::{CompactionCandidate, Dead, ResetView, WearView, ZombieCandidate};
use crate::device::report::renewable::RenewableReport;
use crate::time::Instant;

/// Units `start_unit..start_unit + units` of physical zone `zone`, for a logical zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grant {
    pub zone: u32,
    pub start_unit: u64,
    pub units: u64,
}

/// What a placement's timer gave back.
#[derive(Debug, Default)]
pub struct Reclaimed {
    /// Logical zones whose unwritten space was taken back: their pieces are closed.
    pub zones: Vec<u32>,
    /// Physical zones that hold nothing live now.
    pub dead: Vec<Dead>,
}

/// Where logical zones are placed. One file per placement that keeps state.
pub trait Placement: Send {
    /// Logical zone `i` is physical zone `i` for good (no allocation, no unmapped zones).
    fn static_mapping(&self) -> bool {
        false
    }

    /// Whether an explicit Open of an empty zone takes space at once (ReZNS: "an application
    /// creates its zone"), rather than at the first write.
    fn allocates_on_open(&self) -> bool {
        false
    }

    /// Erased zones not handed out.
    fn free_zones(&self) -> u32;

    /// Whether the next allocation takes a free zone (the erase scheduler may erase first).
    fn needs_free_zone(&self) -> bool {
        true
    }

    /// Whether [`Placement::allocate`] can hand out space without a free zone.
    fn has_space_without_free(&self) -> bool {
        false
    }

    /// Space for up to `need_units` more program units of a logical zone.
    fn allocate(&mut self, now: Instant, need_units: u64, wear: &WearView) -> Grant;

    /// The host reset a logical zone: the physical zones that hold nothing live now.
    fn release(&mut self, now: Instant, zone: &ResetView) -> Vec<Dead>;

    /// Zone `zone` is erased (or had nothing to erase): free again.
    fn erased(&mut self, zone: u32);

    /// Every physical zone is pinned by live pieces: which one to compact in place. The default
    /// takes the zone with the least live data among those no piece is still being written
    /// into, else among all (row-rounded reservations of open pieces can pin every zone).
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

    /// When the placement's timer (a periodic daemon) next wants to run.
    fn next_timer(&self) -> Option<Instant> {
        None
    }

    /// The timer is due: the active logical zones that still hold unwritten space.
    fn on_timer(&mut self, _now: Instant, _open: &[ZombieCandidate]) -> Reclaimed {
        Reclaimed::default()
    }

    fn report(&self, _now: Instant) -> Option<RenewableReport> {
        None
    }

    /// The zones it holds free, for checks.
    fn free_list(&self) -> Vec<u32>;
}

/// Logical zone `i` is physical zone `i`; a reset erases it in place.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Static;

impl Placement for Static {
    fn static_mapping(&self) -> bool {
        true
    }
    fn free_zones(&self) -> u32 {
        0
    }
    fn allocate(&mut self, _now: Instant, _need_units: u64, _wear: &WearView) -> Grant {
        unreachable!("a static mapping never unmaps a zone, so it never allocates")
    }
    fn release(&mut self, _now: Instant, _zone: &ResetView) -> Vec<Dead> {
        unreachable!("a static mapping erases in place")
    }
    fn erased(&mut self, _zone: u32) {
        unreachable!("a static mapping frees nothing")
    }
    fn free_list(&self) -> Vec<u32> {
        Vec::new()
    }
}

/// A placement as a state file keeps it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum AnyPlacement {
    Static(Static),
    Free(FreeList),
    RoundRobin(RoundRobin),
    Renewable(Box<Renewable>),
}

impl AnyPlacement {
    pub fn get(&self) -> &dyn Placement {
        match self {
            AnyPlacement::Static(p) => p,
            AnyPlacement::Free(p) => p,
            AnyPlacement::RoundRobin(p) => p,
            AnyPlacement::Renewable(p) => p.as_ref(),
        }
    }

    pub fn get_mut(&mut self) -> &mut dyn Placement {
        match self {
            AnyPlacement::Static(p) => p,
            AnyPlacement::Free(p) => p,
            AnyPlacement::RoundRobin(p) => p,
            AnyPlacement::Renewable(p) => p.as_mut(),
        }
    }

    pub fn kind(&self) -> PlacementKind {
        match self {
            AnyPlacement::Static(_) => PlacementKind::Static,
            AnyPlacement::Free(p) => match p.pick() {
                Pick::Oldest => PlacementKind::Queue,
                Pick::LeastWorn => PlacementKind::LeastWorn,
            },
            AnyPlacement::RoundRobin(_) => PlacementKind::RoundRobin,
            AnyPlacement::Renewable(_) => PlacementKind::Renewable,
        }
    }

    /// A restored placement fits a device of `zones` physical zones of `cap_units` units.
    pub fn check(&self, zones: u32, cap_units: u64) -> Result<(), String> {
        match self {
            AnyPlacement::Static(_) => Ok(()),
            AnyPlacement::Free(p) => p.check(zones),
            AnyPlacement::RoundRobin(p) => p.check(zones),
            AnyPlacement::Renewable(p) => p.check(zones, cap_units),
        }
    }
}

/// Which placement the firmware runs (the `placement` key of `[firmware]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PlacementKind {
    Static,
    Queue,
    LeastWorn,
    RoundRobin,
    Renewable,
}

impl PlacementKind {
    pub const ALL: [PlacementKind; 5] = [
        PlacementKind::Static,
        PlacementKind::Queue,
        PlacementKind::LeastWorn,
        PlacementKind::RoundRobin,
        PlacementKind::Renewable,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PlacementKind::Static => "static",
            PlacementKind::Queue => "queue",
            PlacementKind::LeastWorn => "least_worn",
            PlacementKind::RoundRobin => "round_robin",
            PlacementKind::Renewable => "renewable",
        }
    }
}
