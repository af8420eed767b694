//! Synchronous zone reset (Jung et al., Preemptive Zone Reset, Electronics 2023, section 2.2.1): the blocks of the zone are
//! erased as soon as the host asks, holding the dies involved until the erases finish. Logical and
//! physical zones map one to one, so no mapping table is needed.

use super::{Allocation, EraseScope, ResetDecision, ResetPolicy, ResetView};
use crate::time::Instant;

#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Synchronous {
    /// Erase every block of the zone, not only the programmed ones.
    pub erase_all_blocks: bool,
}

impl ResetPolicy for Synchronous {
    fn name(&self) -> &'static str {
        "synchronous"
    }

    fn static_mapping(&self) -> bool {
        true
    }

    fn on_host_reset(&mut self, _now: Instant, _zone: &ResetView) -> ResetDecision {
        ResetDecision::EraseNow(if self.erase_all_blocks {
            EraseScope::AllBlocks
        } else {
            EraseScope::ProgrammedBlocks
        })
    }

    fn allocate(&mut self, _now: Instant, _need_units: u64) -> Allocation {
        unreachable!("a static mapping never unmaps a zone, so it never allocates")
    }

    fn save(&self) -> super::PolicyState {
        super::PolicyState::Synchronous(*self)
    }
}
