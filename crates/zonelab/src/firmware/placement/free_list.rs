//! Placements that hand out whole free zones: in the order they were freed (the paper's zone
//! mapping, Jung et al., Preemptive Zone Reset, Electronics 2023, 2.2.2), or the least worn.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::{Grant, Placement};
use crate::firmware::{Dead, DeathCause, ResetView, WearView};
use crate::time::Instant;

/// Which free zone a new logical zone gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Pick {
    /// The zone freed first (`queue`).
    Oldest,
    /// The zone whose most-worn block has the fewest erases, lowest zone on a tie (`least_worn`).
    LeastWorn,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FreeList {
    free: VecDeque<u32>,
    pick: Pick,
}

impl FreeList {
    /// `zones` physical zones, all free.
    pub fn new(zones: u32, pick: Pick) -> Self {
        FreeList {
            free: (0..zones).collect(),
            pick,
        }
    }

    pub fn pick(&self) -> Pick {
        self.pick
    }

    pub(in crate::firmware) fn check(&self, zones: u32) -> Result<(), String> {
        let mut seen = vec![false; zones as usize];
        for &z in &self.free {
            match seen.get_mut(z as usize) {
                Some(s) if !*s => *s = true,
                Some(_) => return Err(format!("placement: physical zone {z} is free twice")),
                None => return Err(format!("placement: physical zone {z} does not exist")),
            }
        }
        Ok(())
    }
}

impl Placement for FreeList {
    fn free_zones(&self) -> u32 {
        self.free.len() as u32
    }

    fn allocate(&mut self, _now: Instant, need_units: u64, wear: &WearView) -> Grant {
        let at = match self.pick {
            Pick::Oldest => 0,
            // O(free zones) per allocation, one allocation per zone written: cheap.
            Pick::LeastWorn => (0..self.free.len())
                .min_by_key(|&i| (wear.zone_erases(self.free[i]), self.free[i]))
                .unwrap_or(0),
        };
        let zone = self
            .free
            .remove(at)
            .expect("a free zone: Z_alloc < Z_total whenever a logical zone is unmapped");
        Grant {
            zone,
            start_unit: 0,
            units: need_units,
        }
    }

    /// The logical zone's one physical zone dies.
    fn release(&mut self, _now: Instant, zone: &ResetView) -> Vec<Dead> {
        vec![Dead {
            zone: zone.physical_zone,
            units: zone.programmed_units,
            cause: DeathCause::HostReset,
        }]
    }

    fn erased(&mut self, zone: u32) {
        self.free.push_back(zone);
    }

    fn free_list(&self) -> Vec<u32> {
        self.free.iter().copied().collect()
    }
}
