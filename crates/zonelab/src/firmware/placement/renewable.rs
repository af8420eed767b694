//! ReZNS renewable zones (Lee et al., ReZNS, Appl. Sci. 2024, section 3, Algorithm 1, Figure 2), invisible
//! to the host.
//!
//! - A host reset of a logical zone whose physical zone still has more than `threshold` (25%) of
//!   its capacity unwritten makes that physical zone an Rzone: nothing is erased, and its unwritten
//!   remainder goes on the spare-list, kept sorted by remaining capacity, largest first. Otherwise
//!   (an Nzone) the reset is the baseline one: the zone's blocks are erased now.
//! - When a logical zone needs space (its first write, or writes past the space it holds), the
//!   Rzone with the most remaining capacity is used before a fresh zone; the logical zone takes only
//!   what it still needs, rounded up to whole erase rows, so the rest of the Rzone stays on the
//!   spare-list (rows keep two writers of one physical zone out of each other's blocks).
//! - A written piece dies only when nothing maps to it any more and its zone is no longer on the
//!   spare-list; the erase scheduler erases it (ReZNS: at once, the `at_reset` scheduler).
//! - The zombie-zone daemon runs every `zombie_scan_period`: an active zone the host has not
//!   written for `zombie_idle` gives its unwritten remainder to the spare-list. The zone keeps its
//!   data, its write pointer and its state (the host sees nothing); a partial unit waiting in the
//!   controller stays there and the zone keeps that unit (padding it would cost the zone a unit
//!   its capacity never counted, and enough such units over-commit the device: issue 36). If
//!   the host writes the zone again, it fills that unit, then gets new space like any zone that
//!   outgrew its piece, so nothing is lost or misread.
//! - ReGC: when the spare-list holds more than `regc_fraction` of all zones, the Rzone with the
//!   *least* remaining capacity (the least useful) is released: dead at once if nothing maps to
//!   it, otherwise when its last piece is released.

use std::cmp::Reverse;
use std::collections::{BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};

use super::{Grant, Placement, Reclaimed};
use crate::device::report::renewable::{RenewableReport, SpareSample};
use crate::firmware::{Dead, DeathCause, ResetView, WearView, ZombieCandidate};
use crate::metrics::series::{Sampling, StepSeries};
use crate::time::{Duration, Instant};

/// The renewable policy's settings, validated.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RenewableSettings {
    /// A reset zone whose unwritten share is above this becomes an Rzone.
    pub threshold: f64,
    /// ReGC runs when the spare-list holds more than this share of all zones.
    pub regc_fraction: f64,
    /// How often the zombie daemon scans; zero: never.
    pub zombie_scan_period: Duration,
    /// An active zone unwritten for this long is a zombie.
    pub zombie_idle: Duration,
}

impl Default for RenewableSettings {
    /// The paper's 25% threshold, ReGC at half the zones and one-hour zombie idle time (Lee et
    /// al., ReZNS, Appl. Sci. 2024, section 3); the one-hour scan period is chosen.
    fn default() -> Self {
        RenewableSettings {
            threshold: 0.25,
            regc_fraction: 0.5,
            zombie_scan_period: Duration::from_secs(3_600),
            zombie_idle: Duration::from_secs(3_600),
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Phys {
    /// First unit not yet handed out.
    next: u64,
    /// Logical zones with a piece here.
    live: u32,
    spare: bool,
    /// In the free queue (erased, nothing handed out).
    free: bool,
    /// Nothing maps to it and it is not spare: it waits for the erase scheduler.
    dead: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Renewable {
    settings: RenewableSettings,
    cap_units: u64,
    units_per_row: u64,
    rows_per_zone: u32,
    phys: Vec<Phys>,
    free: VecDeque<u32>,
    /// (remaining units, zone), largest remaining first, then lowest zone.
    spare: BTreeSet<(Reverse<u64>, u32)>,
    next_scan: Instant,
    spare_samples: StepSeries<u32>,
    report: RenewableReport,
}

impl Renewable {
    pub fn new(
        settings: RenewableSettings,
        zones: u32,
        cap_units: u64,
        units_per_row: u64,
        rows_per_zone: u32,
        sampling: Sampling,
    ) -> Self {
        let mut spare_samples = sampling.step_series();
        spare_samples.record(Instant::ZERO, 0);
        Renewable {
            settings,
            cap_units,
            units_per_row,
            rows_per_zone,
            phys: vec![
                Phys {
                    free: true,
                    ..Phys::default()
                };
                zones as usize
            ],
            free: (0..zones).collect(),
            spare: BTreeSet::new(),
            next_scan: Instant::ZERO + settings.zombie_scan_period,
            spare_samples,
            report: RenewableReport::default(),
        }
    }

    /// A restored state fits a device of `zones` physical zones of `cap_units` units.
    pub(super) fn check(&self, zones: u32, cap_units: u64) -> Result<(), String> {
        if self.phys.len() != zones as usize || self.cap_units != cap_units {
            return Err(format!(
                "renewable: state for {} zones of {} units, the device has {zones} of {cap_units}",
                self.phys.len(),
                self.cap_units
            ));
        }
        if let Some((z, p)) = self
            .phys
            .iter()
            .enumerate()
            .find(|(_, p)| p.next > cap_units || (p.dead && (p.free || p.spare || p.live > 0)))
        {
            return Err(format!(
                "renewable: physical zone {z} hands out unit {} past its capacity, or is dead and in use",
                p.next
            ));
        }
        let known = |z: u32| (z as usize) < self.phys.len();
        if !self.free.iter().all(|&z| known(z)) || !self.spare.iter().all(|&(_, z)| known(z)) {
            return Err("renewable: a queue names a zone that does not exist".into());
        }
        if self.units_per_row == 0 || self.rows_per_zone == 0 {
            return Err("renewable: empty rows".into());
        }
        Ok(())
    }

    fn remaining(&self, zone: u32) -> u64 {
        self.cap_units - self.phys[zone as usize].next
    }

    /// The last resort when no zone is free and the spare-list is empty: the mapped zone with the
    /// most unreserved units left, even below the threshold (those remainders are otherwise
    /// idle until the zone is erased, and every zone may be pinned by live pieces).
    fn last_resort(&self) -> Option<u32> {
        (0..self.phys.len() as u32)
            .filter(|&z| {
                let p = &self.phys[z as usize];
                !p.free && !p.spare && self.remaining(z) > 0
            })
            .max_by_key(|&z| (self.remaining(z), Reverse(z)))
    }

    /// More than `threshold` of the zone is unwritten: it is worth keeping as an Rzone.
    fn worth_keeping(&self, zone: u32) -> bool {
        self.remaining(zone) as f64 > self.settings.threshold * self.cap_units as f64
    }

    fn sample(&mut self, now: Instant) {
        let n = self.spare.len() as u32;
        self.report.spare_zones_max = self.report.spare_zones_max.max(n);
        if self.spare_samples.last() != Some(n) {
            self.spare_samples.record(now, n);
        }
    }

    /// Nothing maps to `zone` and it is not spare: it dies, for the erase scheduler.
    fn kill(&mut self, zone: u32, cause: DeathCause) -> Dead {
        let p = &mut self.phys[zone as usize];
        assert_eq!(p.live, 0, "zone {zone} dies while mapped");
        let dead = Dead {
            zone,
            units: p.next,
            cause,
        };
        *p = Phys {
            dead: true,
            next: self.cap_units,
            ..Phys::default()
        };
        self.report.zones_erased += 1;
        dead
    }

    fn put_spare(&mut self, zone: u32) {
        let r = self.remaining(zone);
        let p = &mut self.phys[zone as usize];
        if p.spare {
            return;
        }
        p.spare = true;
        self.spare.insert((Reverse(r), zone));
    }

    fn take_spare(&mut self, zone: u32) {
        let r = self.remaining(zone);
        self.phys[zone as usize].spare = false;
        self.spare.remove(&(Reverse(r), zone));
    }

    /// ReGC: while the spare-list is too long, release the Rzone with the least remaining
    /// capacity. Returns the zones that die now.
    fn regc(&mut self) -> Vec<Dead> {
        let limit = (self.settings.regc_fraction * self.phys.len() as f64) as usize;
        let mut orders = Vec::new();
        while self.spare.len() > limit {
            let &(Reverse(_), zone) = self.spare.last().expect("a spare zone");
            self.take_spare(zone);
            self.report.regc_releases += 1;
            if self.phys[zone as usize].live == 0 {
                orders.push(self.kill(zone, DeathCause::Released));
            }
        }
        orders
    }

    /// Units from `start` to the end of the row holding `start + need - 1`, within the zone.
    fn rows_up_to(&self, start: u64, need: u64) -> u64 {
        let end = (start + need).div_ceil(self.units_per_row) * self.units_per_row;
        end.min(self.cap_units) - start
    }
}

impl Placement for Renewable {
    fn release(&mut self, now: Instant, zone: &ResetView) -> Vec<Dead> {
        self.report.host_resets += 1;
        *self
            .report
            .pieces_per_zone
            .entry(zone.pieces.len() as u32)
            .or_default() += 1;
        for piece in zone.pieces {
            self.phys[piece.zone as usize].live -= 1;
        }
        let last = *zone.pieces.last().expect("a reset zone with pieces");
        let p = self.phys[last.zone as usize];
        // The logical zone's unwritten units come back if its piece was the zone's tail.
        if last.reserved_end_unit == p.next && !p.spare {
            self.phys[last.zone as usize].next = last.end_unit;
        }
        let mut dead = Vec::new();
        if self.worth_keeping(last.zone) {
            self.report.rzone_resets += 1;
            self.put_spare(last.zone);
            dead = self.regc();
        } else {
            self.report.nzone_resets += 1;
        }
        // Every zone the logical zone touched that nothing maps to any more, and that is not an
        // Rzone, dies now, as the baseline reset would erase it.
        let mut touched: Vec<u32> = zone.pieces.iter().map(|p| p.zone).collect();
        touched.sort_unstable();
        touched.dedup();
        for z in touched {
            let p = self.phys[z as usize];
            if p.live == 0 && !p.spare && !p.free && !p.dead {
                dead.push(self.kill(z, DeathCause::HostReset));
            }
        }
        self.sample(now);
        dead
    }

    fn erased(&mut self, zone: u32) {
        let p = &mut self.phys[zone as usize];
        assert!(p.dead, "zone {zone} erased while not dead");
        *p = Phys {
            free: true,
            ..Phys::default()
        };
        self.free.push_back(zone);
    }

    fn allocate(&mut self, now: Instant, need_units: u64, _wear: &WearView) -> Grant {
        let (zone, recycled) = match self.spare.first() {
            Some(&(Reverse(_), zone)) => {
                self.take_spare(zone);
                (zone, true)
            }
            None => match self.free.pop_front() {
                Some(zone) => {
                    self.phys[zone as usize].free = false;
                    (zone, false)
                }
                None => (
                    self.last_resort()
                        .expect("allocate is called only when has_space says so"),
                    true,
                ),
            },
        };
        let start = self.phys[zone as usize].next;
        let units = self.rows_up_to(start, need_units);
        let p = &mut self.phys[zone as usize];
        p.next = start + units;
        p.live += 1;
        if recycled {
            self.report.units_recycled += units;
        }
        // What the logical zone does not need stays available if it is worth keeping.
        if self.worth_keeping(zone) {
            self.put_spare(zone);
        }
        self.sample(now);
        Grant {
            zone,
            start_unit: start,
            units,
        }
    }

    fn allocates_on_open(&self) -> bool {
        true
    }

    fn free_zones(&self) -> u32 {
        self.free.len() as u32
    }

    fn needs_free_zone(&self) -> bool {
        self.spare.is_empty()
    }

    fn has_space_without_free(&self) -> bool {
        !self.spare.is_empty() || self.last_resort().is_some()
    }

    fn compacted(&mut self, zone: u32, packed_units: u64) {
        let p = &mut self.phys[zone as usize];
        assert!(
            !p.spare && !p.free && !p.dead,
            "only pinned zones are compacted"
        );
        p.next = packed_units;
        self.report.compactions += 1;
        self.put_spare(zone);
    }

    fn next_timer(&self) -> Option<Instant> {
        (!self.settings.zombie_scan_period.is_zero()).then_some(self.next_scan)
    }

    fn on_timer(&mut self, now: Instant, open: &[ZombieCandidate]) -> Reclaimed {
        let period = self.settings.zombie_scan_period;
        while self.next_scan <= now {
            self.next_scan += period;
        }
        let mut reclaimed = Reclaimed::default();
        for c in open {
            if now.since(c.idle_since) < self.settings.zombie_idle {
                continue;
            }
            let p = self.phys[c.piece.zone as usize];
            if c.piece.reserved_end_unit != p.next || p.spare {
                // Not the tail of its zone: its space is not contiguous with anything to give.
                continue;
            }
            // The zone keeps what it wrote, and the unit a staged partial unit will fill.
            self.phys[c.piece.zone as usize].next = c.piece.end_unit + c.staged as u64;
            if self.remaining(c.piece.zone) > 0 {
                self.put_spare(c.piece.zone);
            }
            reclaimed.zones.push(c.logical_zone);
            self.report.zombie_reclaims += 1;
        }
        reclaimed.dead = self.regc();
        self.sample(now);
        reclaimed
    }

    fn report(&self, _now: Instant) -> Option<RenewableReport> {
        let mut r = self.report.clone();
        r.spare_samples = self
            .spare_samples
            .points()
            .map(|(t, spare_zones)| SpareSample { t, spare_zones })
            .collect();
        r.series_interval_ns = self.spare_samples.interval().ns();
        r.spare_zones = self.spare.len() as u32;
        r.spare_list = self
            .spare
            .iter()
            .map(|&(Reverse(left), z)| (z, left))
            .collect();
        Some(r)
    }

    fn free_list(&self) -> Vec<u32> {
        self.free.iter().copied().collect()
    }
}
