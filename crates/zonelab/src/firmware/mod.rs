//! Firmware: where a logical zone's data goes and when dead blocks are erased, as two seams.
//! A [`placement`] decides which physical space a logical zone gets and which physical zones
//! hold nothing live after a reset; an [`erase`] scheduler decides when those are erased. The
//! [`Firmware`] pairs one of each; the device applies its decisions to its NAND timelines, its
//! zone map and its counters.
//!
//! The policies of the papers are pairs ([`PolicySpec`]):
//! - `synchronous`: static placement, erase at reset (Jung et al., Preemptive Zone Reset,
//!   Electronics 2023, 2.2.1).
//! - `mapping`: queue placement, erase on demand at T_free (2.2.2).
//! - `preemptive`: queue placement, Partial Zone Erases in idle time (3.2).
//! - `renewable`: ReZNS renewable zones, erase at reset (Lee et al., ReZNS, Appl. Sci. 2024, 3).
//! - `round_robin`: the small-zone SSD eZNS runs on: next die, least-worn zone in it, lazy erase
//!   (docs/reference/ezns.md).
//!
//! Any other valid pair is `policy = "pair"` with `placement` and `erase` keys.

pub mod erase;
mod paired;
pub mod placement;

use std::ops::Range;

pub use crate::device::FirmwareReport;
pub use crate::device::report::pool::{PoolReport, PoolSample};
pub use crate::device::report::renewable::{RenewableReport, SpareSample};
pub use erase::{EraseTiming, IdleScope, InvalidOrder, PoolState, S2Erases, ZonePool};
pub use paired::{Firmware, PairSpec, PolicySpec, PolicyState, build, restore, synchronous};
pub use placement::{PlacementKind, RenewableSettings};

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

/// What the firmware's timer decided.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimerDecision {
    /// Logical zones whose unwritten space the firmware took back: their pieces are closed.
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
    pub fn wear(&self) -> WearView<'_> {
        WearView {
            nand: self.nand,
            layout: self.layout,
        }
    }

    /// No work of any kind is pending on the dies of physical zone `zone`.
    pub fn zone_dies_idle(&self, zone: u32) -> bool {
        self.layout
            .dies_of(zone)
            .all(|d| self.nand.die_free(d) <= self.now)
    }
}

/// A physical zone that holds nothing live: its blocks wait for the erase scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dead {
    pub zone: u32,
    /// Units handed out or programmed in it: what an erase of programmed blocks covers.
    pub units: u64,
    pub cause: DeathCause,
}

/// Why a zone died: the host waits for a reset, not for the firmware's own releases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeathCause {
    HostReset,
    /// A timer or a spare-list trim released it.
    Released,
}

/// The NAND's wear, as placement and erase scheduling read it.
#[derive(Clone, Copy)]
pub struct WearView<'a> {
    pub nand: &'a Nand,
    pub layout: &'a Layout,
}

impl WearView<'_> {
    /// Erases of the zone's most-worn block (a zone is as worn as its worst block).
    pub fn zone_erases(&self, zone: u32) -> u32 {
        let counts = self.nand.erase_counts();
        let per_die = self.layout.blocks_per_die as usize;
        self.layout
            .blocks_holding(zone, u64::MAX)
            .map(|a| counts[a.die as usize * per_die + a.block as usize])
            .max()
            .unwrap_or(0)
    }
}

/// A physical zone as [`placement::Placement::compaction_victim`] sees it.
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

#[cfg(test)]
mod tests;
