//! Logical-to-physical zone mapping (Jung et al., Preemptive Zone Reset, Electronics 2023, section 2.2.2; ZNS+ style), the
//! paper's baseline: a host reset unlinks the physical zone and the logical zone is Empty at once;
//! the first write to an empty logical zone takes a free physical zone; when free zones run down
//! to T_free, invalid zones are erased whole while foreground I/O waits.

use super::{Allocation, FirmwareReport, ResetDecision, ResetPolicy, ResetView, ZonePool};
use crate::time::Instant;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Mapping {
    pool: ZonePool,
}

impl Mapping {
    pub fn new(pool: ZonePool) -> Self {
        Mapping { pool }
    }

    /// A restored state fits a device of `zones` physical zones.
    pub(super) fn check(&self, zones: u32) -> Result<(), String> {
        self.pool.check_restored(zones)
    }
}

impl ResetPolicy for Mapping {
    fn name(&self) -> &'static str {
        "mapping"
    }

    fn on_host_reset(&mut self, now: Instant, zone: &ResetView) -> ResetDecision {
        self.pool
            .invalidate(now, zone.physical_zone, zone.programmed_units);
        ResetDecision::unlink()
    }

    fn allocate(&mut self, now: Instant, need_units: u64) -> Allocation {
        self.pool.allocate(now, need_units)
    }

    fn blocking_erases_end(&mut self, done: Instant) {
        self.pool.end_blocking(done);
    }

    fn report(&self, now: Instant) -> Option<FirmwareReport> {
        Some(FirmwareReport::ZoneMapping(self.pool.report(now)))
    }

    fn save(&self) -> super::PolicyState {
        super::PolicyState::Mapping(self.clone())
    }
}
