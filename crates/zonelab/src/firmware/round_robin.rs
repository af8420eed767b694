//! The small-zone SSD's zone placement, as eZNS relies on it (docs/reference/ezns.md,
//! "Device assumptions eZNS relies on"; eZNS OSDI'23 section 2): a physical zone is blocks of
//! one die; an open does not bind a die, the first write does: the next physical zone goes to
//! the next die in a fixed round-robin order, and inside that die to its least-worn free zone.
//! A reset completes once the mapping is invalidated; the erase is lazy.
//!
//! "Lazy" is left open by the paper (ezns.md, "What the text leaves open": erase timing on the
//! test device). Chosen: the reset unlinks the physical zone at once and books the erase of its
//! programmed blocks on its die in the background; the zone is free again (with one more erase)
//! for the next allocation, and work that reaches the die after the reset waits behind the erase.

use super::{Allocation, EraseKind, EraseOrder, ResetDecision, ResetPolicy, ResetView};
use crate::nand::Layout;
use crate::time::Instant;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct RoundRobin {
    groups: u32,
    /// Per die group (one die for one-die zones): its free physical zones.
    free: Vec<Vec<u32>>,
    /// Per physical zone: how often it was erased (its wear, as the firmware counts it).
    erases: Vec<u32>,
    /// The die group the next allocation goes to.
    next: u32,
    rows_per_zone: u32,
}

impl RoundRobin {
    /// For `zone_count` physical zones laid out as `layout`.
    pub fn new(layout: &Layout, zone_count: u32) -> Self {
        let groups = layout.groups();
        let mut free = vec![Vec::new(); groups as usize];
        // Highest first, so that among equally worn zones the lowest is found first.
        for pz in (0..zone_count).rev() {
            free[(pz % groups) as usize].push(pz);
        }
        RoundRobin {
            groups,
            free,
            erases: vec![0; zone_count as usize],
            next: 0,
            rows_per_zone: layout.rows_per_zone(),
        }
    }

    /// The die group the next physical zone goes to.
    /// Checks a restored state against the device (a state file's zone count and groups).
    pub fn check(&self, zone_count: u32) -> Result<(), String> {
        if self.erases.len() != zone_count as usize
            || self.free.len() != self.groups as usize
            || (self.groups > 0 && self.next >= self.groups)
        {
            return Err(format!(
                "round-robin state for {} zones in {} groups does not fit {zone_count} zones",
                self.erases.len(),
                self.groups
            ));
        }
        Ok(())
    }

    pub fn next_group(&self) -> u32 {
        self.next
    }
}

impl ResetPolicy for RoundRobin {
    fn name(&self) -> &'static str {
        "round_robin"
    }

    fn on_host_reset(&mut self, _now: Instant, zone: &ResetView) -> ResetDecision {
        let pz = zone.physical_zone;
        let mut background = Vec::new();
        if zone.programmed_units > 0 {
            background.push(EraseOrder {
                zone: pz,
                rows: 0..self.rows_per_zone,
                programmed_only: Some(zone.programmed_units),
                frees_zone: true,
                kind: EraseKind::Full,
            });
            self.erases[pz as usize] += 1;
        }
        self.free[(pz % self.groups) as usize].push(pz);
        ResetDecision::Unlink {
            erase_now: Vec::new(),
            erase_background: background,
        }
    }

    fn allocate(&mut self, _now: Instant, need_units: u64) -> Allocation {
        for k in 0..self.groups {
            let g = (self.next + k) % self.groups;
            let free = &mut self.free[g as usize];
            let Some((i, _)) = free
                .iter()
                .enumerate()
                .min_by_key(|&(_, &pz)| (self.erases[pz as usize], pz))
            else {
                continue;
            };
            let zone = free.swap_remove(i);
            self.next = (g + 1) % self.groups;
            return Allocation {
                zone,
                start_unit: 0,
                units: need_units,
                erase_first: Vec::new(),
            };
        }
        unreachable!("a free physical zone: logical zones never outnumber physical ones")
    }

    fn save(&self) -> super::PolicyState {
        super::PolicyState::RoundRobin(self.clone())
    }
}
