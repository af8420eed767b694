//! The invalid-zone queue the on-demand and preemptive erase schedulers keep (Jung et al.,
//! Preemptive Zone Reset, Electronics 2023, sections 2.2.2 and 3.2.3), with the next row to erase
//! tracked for the zone at the head. The free zones are the placement's; every call that changes
//! or samples Z_free is told how many there are.
//!
//! A Full Zone Erase runs when a free zone is needed and Z_free <= T_free: invalid zones are erased
//! whole, blocking foreground I/O, until Z_free > T_free (the paper's state S2), or one per
//! allocation ([`S2Erases`]). The check happens as the allocation is asked for, before the free
//! zone is taken.

use std::collections::VecDeque;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use super::super::{EraseKind, EraseOrder, WearView};

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

/// Which invalid zone a scheduler erases next.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InvalidOrder {
    /// The zone invalidated first (the paper's queue).
    #[default]
    Fifo,
    /// The least-worn invalid zone (as the NAND counts its erases): a worn zone rests in the
    /// queue while others take the erases (chosen: a reset policy that weighs wear, the future
    /// work ReZNS and Preemptive Zone Reset both leave open).
    LeastWorn,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ZonePool {
    invalid: VecDeque<Invalid>,
    total: u32,
    t_free: u32,
    s2_erases: S2Erases,
    wp_optimisation: bool,
    order: InvalidOrder,
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
    /// For `total` physical zones, all free at first.
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
            invalid: VecDeque::new(),
            total,
            t_free,
            s2_erases: S2Erases::default(),
            wp_optimisation,
            order: InvalidOrder::default(),
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

    /// The pool erasing invalid zones in `order`.
    pub fn with_order(mut self, order: InvalidOrder) -> Self {
        self.order = order;
        self
    }

    pub fn invalid_zones(&self) -> u32 {
        self.invalid.len() as u32
    }
    pub fn state(&self) -> PoolState {
        self.state
    }

    /// The zones waiting to be erased.
    pub fn invalid(&self) -> impl Iterator<Item = u32> + '_ {
        self.invalid.iter().map(|i| i.zone)
    }

    /// A pool read from a state file describes `zones` physical zones, rows in range.
    pub fn check_restored(&self, zones: u32) -> Result<(), String> {
        if self.total != zones {
            return Err(format!(
                "zone pool: state for {} zones, the device has {zones}",
                self.total
            ));
        }
        for i in &self.invalid {
            if i.zone >= zones {
                return Err(format!(
                    "zone pool: physical zone {} does not exist",
                    i.zone
                ));
            }
            if i.next_row >= i.end_row || i.end_row > self.rows_per_zone {
                return Err(format!(
                    "zone pool: invalid zone {} has rows out of range",
                    i.zone
                ));
            }
        }
        Ok(())
    }

    /// Moves to `state` at `now`, accounting the time spent in the old one.
    pub fn set_state(&mut self, now: Instant, state: PoolState, free: u32) {
        let since = self.state_since.min(now);
        self.time_in_state[self.state as usize] += now - since;
        self.state_since = now.max(self.state_since);
        self.state = state;
        self.sample(now, free);
    }

    /// Records Z_free and Z_invalid if they changed; `free` is the placement's count.
    pub fn sample(&mut self, now: Instant, free: u32) {
        debug_assert!(
            free + self.invalid_zones() <= self.total,
            "Z_free + Z_invalid <= Z_total"
        );
        let point = (free, self.invalid_zones(), self.state as u8);
        if self.samples.last() != Some(point) {
            self.samples.record(now, point);
        }
    }

    /// Physical zone `zone`, with `programmed_units` programmed, holds nothing live. Returns
    /// whether it is free at once (nothing to erase).
    pub fn invalidate(
        &mut self,
        now: Instant,
        zone: u32,
        programmed_units: u64,
        free: u32,
    ) -> bool {
        let end_row = if self.wp_optimisation {
            programmed_units.div_ceil(self.units_per_row) as u32
        } else {
            self.rows_per_zone
        };
        let freed = end_row == 0;
        if freed {
            self.zones_freed += 1;
        } else {
            self.invalid.push_back(Invalid {
                zone,
                programmed_units,
                next_row: 0,
                end_row,
            });
        }
        self.sample(now, free + freed as u32);
        freed
    }

    fn order(
        &self,
        head: &Invalid,
        rows: Range<u32>,
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

    /// Under [`InvalidOrder::LeastWorn`], brings the least-worn zone not yet started to the head
    /// (a zone whose rows are partly erased stays there).
    fn choose_head(&mut self, wear: &WearView) {
        if self.order == InvalidOrder::Fifo || self.invalid.front().is_none_or(|h| h.next_row > 0) {
            return;
        }
        let best = self
            .invalid
            .iter()
            .enumerate()
            .min_by_key(|(_, i)| (wear.zone_erases(i.zone), i.zone))
            .map(|(k, _)| k);
        if let Some(k) = best.filter(|&k| k > 0) {
            let chosen = self.invalid.remove(k).expect("an index from the queue");
            self.invalid.push_front(chosen);
        }
    }

    /// Full Zone Erases, head of the invalid queue first, until Z_free > T_free (or nothing is
    /// left to erase), or only the first under [`S2Erases::OnePerAllocation`]. Every order frees
    /// its zone. The pool enters S2 if there are any; [`ZonePool::end_blocking`] leaves it.
    pub fn full_erases_for_allocation(
        &mut self,
        now: Instant,
        mut free: u32,
        wear: &WearView,
    ) -> Vec<EraseOrder> {
        let mut orders = Vec::new();
        while free <= self.t_free {
            self.choose_head(wear);
            let Some(head) = self.invalid.pop_front() else {
                break;
            };
            orders.push(self.order(&head, head.next_row..head.end_row, true, EraseKind::Full));
            free += 1;
            self.full_erases += 1;
            self.zones_freed += 1;
            if self.s2_erases == S2Erases::OnePerAllocation {
                break;
            }
        }
        self.sample(now, free);
        if !orders.is_empty() {
            self.set_state(now, PoolState::S2, free);
        }
        orders
    }

    /// The blocking erases of the last allocation end at `done`: S2 is over (to S0; callers
    /// with more states settle from there). Returns whether S2 was on.
    pub fn end_blocking(&mut self, done: Instant, free: u32) -> bool {
        let in_s2 = self.state == PoolState::S2;
        if in_s2 {
            self.set_state(done, PoolState::S0, free);
        }
        in_s2
    }

    /// The head invalid zone, once chosen.
    pub fn head_invalid_zone(&mut self, wear: &WearView) -> Option<u32> {
        self.choose_head(wear);
        self.invalid.front().map(|i| i.zone)
    }

    /// One row of the head invalid zone (a Partial Zone Erase step); the order frees the zone
    /// with its last row.
    pub fn partial_step(&mut self, now: Instant, free: u32) -> Option<EraseOrder> {
        let head = self.invalid.front_mut()?;
        let row = head.next_row;
        head.next_row += 1;
        let done = head.next_row == head.end_row;
        let head = *head;
        let order = self.order(&head, row..row + 1, done, EraseKind::Partial);
        self.partial_erases += 1;
        if done {
            self.invalid.pop_front();
            self.zones_freed += 1;
        }
        self.sample(now, free + done as u32);
        Some(order)
    }

    pub fn report(&self, now: Instant, free: u32) -> PoolReport {
        let mut time = self.time_in_state;
        time[self.state as usize] += now.since(self.state_since);
        PoolReport {
            time_in_s0_ns: time[0].ns(),
            time_in_s1_ns: time[1].ns(),
            time_in_s2_ns: time[2].ns(),
            partial_zone_erases: self.partial_erases,
            full_zone_erases: self.full_erases,
            zones_freed: self.zones_freed,
            free_zones: free,
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
