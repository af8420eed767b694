//! Erase scheduling: when the blocks of a physical zone that holds nothing live are erased. The
//! placement (`super::placement`) says which zones die; a scheduler says when their erases run
//! and when they are free again.
//!
//! - [`AtReset`]: at once, the host's reset waiting for the erase (Jung et al., Preemptive Zone
//!   Reset, Electronics 2023, 2.2.1; ReZNS's Nzone resets, Lee et al., Appl. Sci. 2024).
//! - [`Background`]: at once on the dies, the reset not waiting (the small-zone SSD's lazy erase,
//!   docs/reference/ezns.md).
//! - [`OnDemand`]: queued as invalid; Full Zone Erases when an allocation finds free zones at
//!   T_free (Jung et al. 2023, 2.2.2).
//! - [`Preemptive`]: as on demand, plus Partial Zone Erases in idle time (Jung et al. 2023, 3.2).

mod pool;
mod preemptive;

use serde::{Deserialize, Serialize};

pub use pool::{InvalidOrder, PoolState, S2Erases, ZonePool};
pub use preemptive::{IdleScope, Preemptive};

use super::{Dead, DeathCause, EraseKind, EraseOrder, EraseScope, IdleView, WearView};
use crate::device::report::pool::PoolReport;
use crate::time::Instant;

/// What a scheduler made of zones that died: erases to run before the reset completes, erases
/// to run without holding it, and the zones free again, in the order they became free.
#[derive(Debug, Default)]
pub struct Disposal {
    pub erase_now: Vec<EraseOrder>,
    pub erase_background: Vec<EraseOrder>,
    pub freed: Vec<u32>,
}

/// When dead zones are erased. One file per scheduler that keeps state.
pub trait EraseScheduler: Send {
    /// A zone holds nothing live; `free` zones are free before it.
    fn on_dead(&mut self, now: Instant, dead: Dead, free: u32, out: &mut Disposal);

    /// A free zone is about to be taken from `free`: the blocking erases to run first (each
    /// frees its zone).
    fn before_allocate(&mut self, _now: Instant, _free: u32, _wear: &WearView) -> Vec<EraseOrder> {
        Vec::new()
    }

    /// An allocation is done; `free` zones are left.
    fn after_allocate(&mut self, _now: Instant, _free: u32) {}

    /// The blocking erases of the last allocation end at `done`.
    fn blocking_erases_end(&mut self, _done: Instant, _free: u32) {}

    /// Idle time is offered: one background erase, if the scheduler wants one now.
    fn on_idle(&mut self, _view: &IdleView, _free: u32) -> Option<EraseOrder> {
        None
    }

    fn has_idle_work(&self) -> bool {
        false
    }

    /// Dead zones not yet erased.
    fn pending_zones(&self) -> u32 {
        0
    }

    /// Those zones, for checks.
    fn pending(&self) -> Vec<u32> {
        Vec::new()
    }

    fn report(&self, _now: Instant, _free: u32) -> Option<PoolReport> {
        None
    }
}

/// Erase at once, the host's reset waiting (or, for a zone the firmware released on its own,
/// in the background: nobody waits for it).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AtReset {
    pub erase_all_blocks: bool,
    pub rows_per_zone: u32,
}

impl AtReset {
    /// What a static mapping erases at a reset.
    pub fn scope(&self) -> EraseScope {
        if self.erase_all_blocks {
            EraseScope::AllBlocks
        } else {
            EraseScope::ProgrammedBlocks
        }
    }
}

impl EraseScheduler for AtReset {
    fn on_dead(&mut self, _now: Instant, dead: Dead, _free: u32, out: &mut Disposal) {
        let order = whole_zone(dead, self.rows_per_zone, self.erase_all_blocks);
        match dead.cause {
            DeathCause::HostReset => out.erase_now.push(order),
            DeathCause::Released => out.erase_background.push(order),
        }
        out.freed.push(dead.zone);
    }
}

/// Erase at once on the dies; the reset does not wait, later work on those dies does.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Background {
    pub erase_all_blocks: bool,
    pub rows_per_zone: u32,
}

impl EraseScheduler for Background {
    fn on_dead(&mut self, _now: Instant, dead: Dead, _free: u32, out: &mut Disposal) {
        if dead.units > 0 || self.erase_all_blocks {
            let order = whole_zone(dead, self.rows_per_zone, self.erase_all_blocks);
            out.erase_background.push(order);
        }
        out.freed.push(dead.zone);
    }
}

/// Queue dead zones; erase them whole, blocking, when an allocation finds Z_free <= T_free.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OnDemand {
    pub pool: ZonePool,
}

impl EraseScheduler for OnDemand {
    fn on_dead(&mut self, now: Instant, dead: Dead, free: u32, out: &mut Disposal) {
        if self.pool.invalidate(now, dead.zone, dead.units, free) {
            out.freed.push(dead.zone);
        }
    }

    fn before_allocate(&mut self, now: Instant, free: u32, wear: &WearView) -> Vec<EraseOrder> {
        self.pool.full_erases_for_allocation(now, free, wear)
    }

    fn after_allocate(&mut self, now: Instant, free: u32) {
        self.pool.sample(now, free);
    }

    fn blocking_erases_end(&mut self, done: Instant, free: u32) {
        self.pool.end_blocking(done, free);
    }

    fn pending_zones(&self) -> u32 {
        self.pool.invalid_zones()
    }

    fn pending(&self) -> Vec<u32> {
        self.pool.invalid().collect()
    }

    fn report(&self, now: Instant, free: u32) -> Option<PoolReport> {
        Some(self.pool.report(now, free))
    }
}

/// Every row of a dead zone, only the blocks holding its `units` unless `erase_all_blocks`.
fn whole_zone(dead: Dead, rows_per_zone: u32, erase_all_blocks: bool) -> EraseOrder {
    EraseOrder {
        zone: dead.zone,
        rows: 0..rows_per_zone,
        programmed_only: (!erase_all_blocks).then_some(dead.units),
        frees_zone: true,
        kind: EraseKind::Full,
    }
}

/// A scheduler as a state file keeps it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum AnyScheduler {
    AtReset(AtReset),
    Background(Background),
    OnDemand(OnDemand),
    Preemptive(Preemptive),
}

impl AnyScheduler {
    pub fn get(&self) -> &dyn EraseScheduler {
        match self {
            AnyScheduler::AtReset(s) => s,
            AnyScheduler::Background(s) => s,
            AnyScheduler::OnDemand(s) => s,
            AnyScheduler::Preemptive(s) => s,
        }
    }

    pub fn get_mut(&mut self) -> &mut dyn EraseScheduler {
        match self {
            AnyScheduler::AtReset(s) => s,
            AnyScheduler::Background(s) => s,
            AnyScheduler::OnDemand(s) => s,
            AnyScheduler::Preemptive(s) => s,
        }
    }

    pub fn kind(&self) -> EraseTiming {
        match self {
            AnyScheduler::AtReset(_) => EraseTiming::AtReset,
            AnyScheduler::Background(_) => EraseTiming::Background,
            AnyScheduler::OnDemand(_) => EraseTiming::OnDemand,
            AnyScheduler::Preemptive(_) => EraseTiming::Preemptive,
        }
    }

    /// A restored scheduler fits a device of `zones` physical zones.
    pub fn check(&self, zones: u32) -> Result<(), String> {
        match self {
            AnyScheduler::AtReset(_) | AnyScheduler::Background(_) => Ok(()),
            AnyScheduler::OnDemand(s) => s.pool.check_restored(zones),
            AnyScheduler::Preemptive(s) => s.check(zones),
        }
    }
}

/// When dead zones are erased (the `erase` key of `[firmware]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EraseTiming {
    AtReset,
    Background,
    OnDemand,
    Preemptive,
}

impl EraseTiming {
    pub const ALL: [EraseTiming; 4] = [
        EraseTiming::AtReset,
        EraseTiming::Background,
        EraseTiming::OnDemand,
        EraseTiming::Preemptive,
    ];

    pub fn name(self) -> &'static str {
        match self {
            EraseTiming::AtReset => "at_reset",
            EraseTiming::Background => "background",
            EraseTiming::OnDemand => "on_demand",
            EraseTiming::Preemptive => "preemptive",
        }
    }
}
