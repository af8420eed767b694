//! The zone pool both zone-mapping policies keep (Jung et al., Preemptive Zone Reset, Electronics 2023, sections 2.2.2 and
//! 3.2.3): a queue of free physical zones and a queue of invalid ones, with the next row to erase
//! tracked for the zone at the head. Z_total = Z_alloc + Z_invalid + Z_free holds at all times.
//!
//! A Full Zone Erase runs when a free zone is needed and Z_free <= T_free: invalid zones are erased
//! whole, blocking foreground I/O, until Z_free > T_free (the paper's state S2), or one per
//! allocation ([`S2Erases`]). The check happens as the allocation is asked for, before the free
//! zone is taken.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::{Allocation, EraseKind, EraseOrder};

/// How many invalid zones a Full Zone Erase (S2) erases when an allocation finds
/// Z_free <= T_free. The paper (Jung et al., Electronics 2023, section 3.2.1) says S2 "performs
/// all necessary block erase operations in order to provide a free zone, namely a Full Zone Erase
/// on an invalid zone", and that the device leaves S2 "when Z_free exceeds T_free": the two
/// readings differ only when several zones were invalidated at once (a host that resets zones in
/// bursts, as ZenFS does after a compaction).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum S2Erases {
    /// Erase invalid zones until Z_free > T_free, all while foreground I/O waits.
    UntilAboveTFree,
    /// Erase one invalid zone, the free zone the allocation needs ("a Full Zone Erase on an
    /// invalid zone"); the rest wait for the next allocations (or for partial erases). The
    /// default: the paper's words, and its db_bench tails (one erase, not a burst, per put).
    #[default]
    OnePerAllocation,
}
use crate::device::report::pool::{PoolReport, PoolSample};
use crate::metrics::series::{Sampling, StepSeries};
use crate::time::{Duration, Instant};

/// The paper's states: S0 foreground only, S1 partial erases in idle time, S2 blocking Full Zone
/// Erases. The mapping policy uses S0 and S2 only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PoolState {
    S0 = 0,
    S1 = 1,
    S2 = 2,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Invalid {
    zone: u32,
    programmed_units: u64,
    next_row: u32,
    end_row: u32,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ZonePool {
    free: VecDeque<u32>,
    invalid: VecDeque<Invalid>,
    allocated: u32,
    total: u32,
    t_free: u32,
    s2_erases: S2Erases,
    wp_optimisation: bool,
    rows_per_zone: u32,
    units_per_row: u64,
    state: PoolState,
    state_since: Instant,
    time_in_state: [Duration; 3],
    partial_erases: u64,
    full_erases: u64,
    zones_freed: u64,
    samples: StepSeries<(u32, u32, u8)>,
}

impl ZonePool {
    pub fn new(
        total: u32,
        t_free: u32,
        wp_optimisation: bool,
        rows_per_zone: u32,
        units_per_row: u64,
        sampling: Sampling,
    ) -> Self {
        let mut samples = sampling.step_series();
        samples.record(Instant::ZERO, (total, 0, 0));
        ZonePool {
            free: (0..total).collect(),
            invalid: VecDeque::new(),
            allocated: 0,
            total,
            t_free,
            s2_erases: S2Erases::default(),
            wp_optimisation,
            rows_per_zone,
            units_per_row,
            state: PoolState::S0,
            state_since: Instant::ZERO,
            time_in_state: [Duration::ZERO; 3],
            partial_erases: 0,
            full_erases: 0,
            zones_freed: 0,
            samples,
        }
    }

    /// The pool with `s2_erases` for its Full Zone Erases.
    pub fn with_s2_erases(mut self, s2_erases: S2Erases) -> Self {
        self.s2_erases = s2_erases;
        self
    }

    pub fn free_zones(&self) -> u32 {
        self.free.len() as u32
    }
    pub fn invalid_zones(&self) -> u32 {
        self.invalid.len() as u32
    }
    pub fn state(&self) -> PoolState {
        self.state
    }

    /// A pool read from a state file describes `zones` physical zones, each in exactly one of
    /// the allocated, invalid and free sets, with rows in range.
    pub fn check_restored(&self, zones: u32) -> Result<(), String> {
        let mut seen = vec![false; zones as usize];
        let mut mark = |z: u32| -> Result<(), String> {
            match seen.get_mut(z as usize) {
                Some(s) if !*s => {
                    *s = true;
                    Ok(())
                }
                Some(_) => Err(format!("zone pool: physical zone {z} is queued twice")),
                None => Err(format!("zone pool: physical zone {z} does not exist")),
            }
        };
        for &z in &self.free {
            mark(z)?;
        }
        for i in &self.invalid {
            mark(i.zone)?;
            if i.next_row >= i.end_row || i.end_row > self.rows_per_zone {
                return Err(format!(
                    "zone pool: invalid zone {} has rows out of range",
                    i.zone
                ));
            }
        }
        let queued = self.free.len() as u64 + self.invalid.len() as u64;
        if self.total != zones || queued + self.allocated as u64 != zones as u64 {
            return Err(format!(
                "zone pool: {} free + {} invalid + {} allocated is not the device's {zones} zones",
                self.free.len(),
                self.invalid.len(),
                self.allocated
            ));
        }
        Ok(())
    }

    fn check(&self) {
        assert_eq!(
            self.allocated as usize + self.invalid.len() + self.free.len(),
            self.total as usize,
            "Z_total = Z_alloc + Z_invalid + Z_free"
        );
    }

    /// Moves to `state` at `now`, accounting the time spent in the old one.
    pub fn set_state(&mut self, now: Instant, state: PoolState) {
        let since = self.state_since.min(now);
        self.time_in_state[self.state as usize] += now - since;
        self.state_since = now.max(self.state_since);
        self.state = state;
        self.sample(now);
    }

    fn sample(&mut self, now: Instant) {
        let point = (self.free_zones(), self.invalid_zones(), self.state as u8);
        if self.samples.last() != Some(point) {
            self.samples.record(now, point);
        }
    }

    /// The host reset the logical zone on physical zone `zone`.
    pub fn invalidate(&mut self, now: Instant, zone: u32, programmed_units: u64) {
        let end_row = if self.wp_optimisation {
            programmed_units.div_ceil(self.units_per_row) as u32
        } else {
            self.rows_per_zone
        };
        self.allocated -= 1;
        if end_row == 0 {
            // Nothing was programmed: nothing to erase.
            self.free.push_back(zone);
            self.zones_freed += 1;
        } else {
            self.invalid.push_back(Invalid {
                zone,
                programmed_units,
                next_row: 0,
                end_row,
            });
        }
        self.check();
        self.sample(now);
    }

    fn order(
        &self,
        head: &Invalid,
        rows: std::ops::Range<u32>,
        frees_zone: bool,
        kind: EraseKind,
    ) -> EraseOrder {
        EraseOrder {
            zone: head.zone,
            rows,
            programmed_only: self.wp_optimisation.then_some(head.programmed_units),
            frees_zone,
            kind,
        }
    }

    /// Full Zone Erases, head of the invalid queue first, until Z_free > T_free (or nothing is
    /// left to erase), or only the first under [`S2Erases::OnePerAllocation`].
    pub fn full_erases_for_allocation(&mut self, now: Instant) -> Vec<EraseOrder> {
        let mut orders = Vec::new();
        while self.free.len() as u32 <= self.t_free {
            let Some(head) = self.invalid.pop_front() else {
                break;
            };
            orders.push(self.order(&head, head.next_row..head.end_row, true, EraseKind::Full));
            self.free.push_back(head.zone);
            self.full_erases += 1;
            self.zones_freed += 1;
            if self.s2_erases == S2Erases::OnePerAllocation {
                break;
            }
        }
        self.check();
        self.sample(now);
        orders
    }

    /// A free zone for a logical zone that needs one, after the Full Zone Erases it takes (the
    /// pool enters S2 if there are any; [`ZonePool::end_blocking`] leaves it).
    pub fn allocate(&mut self, now: Instant, need_units: u64) -> Allocation {
        let erase_first = self.full_erases_for_allocation(now);
        if !erase_first.is_empty() {
            self.set_state(now, PoolState::S2);
        }
        Allocation {
            zone: self.take_free(now),
            start_unit: 0,
            units: need_units,
            erase_first,
        }
    }

    /// The blocking erases of the last allocation end at `done_ns`: S2 is over (to S0; callers
    /// with more states settle from there). Returns whether S2 was on.
    pub fn end_blocking(&mut self, done: Instant) -> bool {
        let in_s2 = self.state == PoolState::S2;
        if in_s2 {
            self.set_state(done, PoolState::S0);
        }
        in_s2
    }

    /// Takes the zone at the head of the free queue.
    pub fn take_free(&mut self, now: Instant) -> u32 {
        let zone = self
            .free
            .pop_front()
            .expect("a free zone: Z_alloc < Z_total whenever a logical zone is unmapped");
        self.allocated += 1;
        self.check();
        self.sample(now);
        zone
    }

    /// The head invalid zone, if any.
    pub fn head_invalid_zone(&self) -> Option<u32> {
        self.invalid.front().map(|i| i.zone)
    }

    /// One row of the head invalid zone (a Partial Zone Erase step).
    pub fn partial_step(&mut self, now: Instant) -> Option<EraseOrder> {
        let head = self.invalid.front_mut()?;
        let row = head.next_row;
        head.next_row += 1;
        let done = head.next_row == head.end_row;
        let head = *head;
        let order = self.order(&head, row..row + 1, done, EraseKind::Partial);
        self.partial_erases += 1;
        if done {
            self.invalid.pop_front();
            self.free.push_back(head.zone);
            self.zones_freed += 1;
        }
        self.check();
        self.sample(now);
        Some(order)
    }

    pub fn report(&self, now: Instant) -> PoolReport {
        let mut time = self.time_in_state;
        time[self.state as usize] += now.since(self.state_since);
        PoolReport {
            time_in_s0_ns: time[0].ns(),
            time_in_s1_ns: time[1].ns(),
            time_in_s2_ns: time[2].ns(),
            partial_zone_erases: self.partial_erases,
            full_zone_erases: self.full_erases,
            zones_freed: self.zones_freed,
            free_zones: self.free_zones(),
            invalid_zones: self.invalid_zones(),
            series_interval_ns: self.samples.interval().ns(),
            samples: self
                .samples
                .points()
                .map(|(t, (free, invalid, state))| PoolSample {
                    t,
                    free,
                    invalid,
                    state,
                })
                .collect(),
        }
    }
}
