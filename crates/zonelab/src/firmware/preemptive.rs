//! Preemptive Zone Reset (Jung et al., Preemptive Zone Reset, Electronics 2023, section 3.2): the zone mapping of
//! [`super::Mapping`] plus three states.
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

use super::{
    Allocation, EraseOrder, FirmwareReport, IdleView, PoolState, ResetDecision, ResetPolicy,
    ResetView, ZonePool,
};
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
    pub(super) fn check(&self, zones: u32) -> Result<(), String> {
        if self.t_invalid == 0 {
            return Err("preemptive: t_invalid is 0".into());
        }
        self.pool.check_restored(zones)
    }

    /// S0 or S1 as Z_invalid says; S2 is left only when its erases end.
    fn settle(&mut self, now: Instant) {
        if self.pool.state() == PoolState::S2 {
            return;
        }
        let state = if self.pool.invalid_zones() >= self.t_invalid {
            PoolState::S1
        } else {
            PoolState::S0
        };
        if state != self.pool.state() {
            self.pool.set_state(now, state);
        }
    }
}

impl ResetPolicy for Preemptive {
    fn name(&self) -> &'static str {
        "preemptive"
    }

    fn on_host_reset(&mut self, now: Instant, zone: &ResetView) -> ResetDecision {
        self.pool
            .invalidate(now, zone.physical_zone, zone.programmed_units);
        self.settle(now);
        ResetDecision::unlink()
    }

    fn allocate(&mut self, now: Instant, need_units: u64) -> Allocation {
        let allocation = self.pool.allocate(now, need_units);
        self.settle(now);
        allocation
    }

    fn blocking_erases_end(&mut self, done: Instant) {
        if self.pool.end_blocking(done) {
            self.settle(done);
        }
    }

    fn on_idle(&mut self, view: &IdleView) -> Option<EraseOrder> {
        if self.pool.state() != PoolState::S1 {
            return None;
        }
        let head = self.pool.head_invalid_zone()?;
        let idle = match self.idle {
            IdleScope::Device => view.device_idle,
            IdleScope::ZoneDies => view.zone_dies_idle(head),
        };
        if !idle {
            return None;
        }
        let order = self.pool.partial_step(view.now);
        self.settle(view.now);
        order
    }

    fn has_background_work(&self) -> bool {
        true
    }

    fn report(&self, now: Instant) -> Option<FirmwareReport> {
        Some(FirmwareReport::ZoneMapping(self.pool.report(now)))
    }

    fn save(&self) -> super::PolicyState {
        super::PolicyState::Preemptive(self.clone())
    }
}
