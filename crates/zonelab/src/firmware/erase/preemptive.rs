//! Preemptive Zone Reset's erase scheduling (Jung et al., Preemptive Zone Reset, Electronics
//! 2023, section 3.2): the invalid-zone queue of on-demand erasing plus three states.
//!
//! - S0: serve foreground I/O only.
//! - S1 (Z_invalid >= T_invalid): when no foreground request is queued or running, erase one row
//!   of the head invalid zone (a Partial Zone Erase). A request that arrives meanwhile waits for
//!   that row only; the next row starts only at the next idle moment, so foreground I/O has
//!   priority between rows.
//! - S2 (a free zone is needed and Z_free <= T_free): foreground I/O waits while Full Zone Erases
//!   run until Z_free > T_free; then S1 or S0 as Z_invalid says.
//!
//! "Idle" is the whole device by default (the prototype checks the DMA and flash queues of the
//! whole device); `idle = "zone_dies"` asks only that the dies of the zone to erase be free.

use serde::{Deserialize, Serialize};

use super::{Disposal, EraseScheduler, PoolState, ZonePool};
use crate::device::report::pool::PoolReport;
use crate::firmware::{Dead, EraseOrder, IdleView, WearView};
use crate::time::Instant;

/// What must be idle before a Partial Zone Erase starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IdleScope {
    /// No foreground command queued or running anywhere (the paper's prototype).
    #[default]
    Device,
    /// Nothing pending on the dies of the zone being erased.
    ZoneDies,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Preemptive {
    pool: ZonePool,
    t_invalid: u32,
    idle: IdleScope,
}

impl Preemptive {
    pub fn new(pool: ZonePool, t_invalid: u32, idle: IdleScope) -> Self {
        Preemptive {
            pool,
            t_invalid,
            idle,
        }
    }

    pub fn state(&self) -> PoolState {
        self.pool.state()
    }

    /// A restored state fits a device of `zones` physical zones.
    pub(in crate::firmware) fn check(&self, zones: u32) -> Result<(), String> {
        if self.t_invalid == 0 {
            return Err("preemptive: t_invalid is 0".into());
        }
        self.pool.check_restored(zones)
    }

    /// S0 or S1 as Z_invalid says; S2 is left only when its erases end.
    fn settle(&mut self, now: Instant, free: u32) {
        if self.pool.state() == PoolState::S2 {
            return;
        }
        let state = if self.pool.invalid_zones() >= self.t_invalid {
            PoolState::S1
        } else {
            PoolState::S0
        };
        if state != self.pool.state() {
            self.pool.set_state(now, state, free);
        }
    }
}

impl EraseScheduler for Preemptive {
    fn on_dead(&mut self, now: Instant, dead: Dead, free: u32, out: &mut Disposal) {
        let freed = self.pool.invalidate(now, dead.zone, dead.units, free);
        if freed {
            out.freed.push(dead.zone);
        }
        self.settle(now, free + freed as u32);
    }

    fn before_allocate(&mut self, now: Instant, free: u32, wear: &WearView) -> Vec<EraseOrder> {
        self.pool.full_erases_for_allocation(now, free, wear)
    }

    fn after_allocate(&mut self, now: Instant, free: u32) {
        self.pool.sample(now, free);
        self.settle(now, free);
    }

    fn blocking_erases_end(&mut self, done: Instant, free: u32) {
        if self.pool.end_blocking(done, free) {
            self.settle(done, free);
        }
    }

    fn on_idle(&mut self, view: &IdleView, free: u32) -> Option<EraseOrder> {
        if self.pool.state() != PoolState::S1 {
            return None;
        }
        let head = self.pool.head_invalid_zone(&view.wear())?;
        let idle = match self.idle {
            IdleScope::Device => view.device_idle,
            IdleScope::ZoneDies => view.zone_dies_idle(head),
        };
        if !idle {
            return None;
        }
        let order = self.pool.partial_step(view.now, free)?;
        self.settle(view.now, free + order.frees_zone as u32);
        Some(order)
    }

    fn has_idle_work(&self) -> bool {
        true
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
