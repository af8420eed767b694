//! The small-zone SSD's zone placement, as eZNS relies on it (docs/reference/ezns.md,
//! "Device assumptions eZNS relies on"; eZNS OSDI'23 section 2): a physical zone is blocks of
//! one die; an open does not bind a die, the first write does: the next physical zone goes to
//! the next die in a fixed round-robin order, and inside that die to its least-worn free zone.
//! A reset completes once the mapping is invalidated; the erase is lazy (the `background` erase
//! scheduler: "lazy" is left open by the paper, ezns.md "What the text leaves open"; chosen: the
//! erase of the programmed blocks is booked on the die at once, the zone is free again for the
//! next allocation, and work that reaches the die after the reset waits behind the erase).
//! Wear is the NAND's erase count of the zone's most-worn block.

use serde::{Deserialize, Serialize};

use super::{Grant, Placement};
use crate::firmware::{Dead, DeathCause, ResetView, WearView};
use crate::nand::Layout;
use crate::time::Instant;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RoundRobin {
    groups: u32,
    zones: u32,
    /// Per die group (one die for one-die zones): its free physical zones.
    free: Vec<Vec<u32>>,
    /// The die group the next allocation goes to.
    next: u32,
}

impl RoundRobin {
    /// For `zone_count` physical zones laid out as `layout`.
    pub fn new(layout: &Layout, zone_count: u32) -> Self {
        let groups = layout.groups();
        let mut free = vec![Vec::new(); groups as usize];
        for pz in (0..zone_count).rev() {
            free[(pz % groups) as usize].push(pz);
        }
        RoundRobin {
            groups,
            zones: zone_count,
            free,
            next: 0,
        }
    }

    /// Checks a restored state against the device (a state file's zone count and groups).
    pub fn check(&self, zone_count: u32) -> Result<(), String> {
        if self.zones != zone_count
            || self.free.len() != self.groups as usize
            || (self.groups > 0 && self.next >= self.groups)
            || self.free.iter().flatten().any(|&z| z >= zone_count)
        {
            return Err(format!(
                "round-robin state for {} zones in {} groups does not fit {zone_count} zones",
                self.zones, self.groups
            ));
        }
        Ok(())
    }

    /// The die group the next physical zone goes to.
    pub fn next_group(&self) -> u32 {
        self.next
    }
}

impl Placement for RoundRobin {
    fn free_zones(&self) -> u32 {
        self.free.iter().map(|f| f.len() as u32).sum()
    }

    fn allocate(&mut self, _now: Instant, need_units: u64, wear: &WearView) -> Grant {
        for k in 0..self.groups {
            let g = (self.next + k) % self.groups;
            let free = &mut self.free[g as usize];
            let Some((i, _)) = free
                .iter()
                .enumerate()
                .min_by_key(|&(_, &pz)| (wear.zone_erases(pz), pz))
            else {
                continue;
            };
            let zone = free.swap_remove(i);
            self.next = (g + 1) % self.groups;
            return Grant {
                zone,
                start_unit: 0,
                units: need_units,
            };
        }
        unreachable!("a free physical zone: logical zones never outnumber physical ones")
    }

    fn release(&mut self, _now: Instant, zone: &ResetView) -> Vec<Dead> {
        vec![Dead {
            zone: zone.physical_zone,
            units: zone.programmed_units,
            cause: DeathCause::HostReset,
        }]
    }

    fn erased(&mut self, zone: u32) {
        self.free[(zone % self.groups) as usize].push(zone);
    }

    fn free_list(&self) -> Vec<u32> {
        self.free.iter().flatten().copied().collect()
    }
}
