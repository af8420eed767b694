//! Preconditioning: putting a conventional SSD into the state a used drive is in, before the
//! measured run, without spending simulated time (as the ZNS prefill does). The FTL does exactly
//! what the writes would make it do (placement, garbage collection, wear), with NAND work counted
//! but not timed; the run then starts on an idle device at time zero, its counters reset.
//!
//! 1. **Fill**: the first `fill` share of the logical space is written sequentially.
//! 2. **Random overwrite**, in rounds: each round writes `round` of the filled space at random
//!    `bs`-aligned offsets in it (uniform, with replacement, as fio's `norandommap`). After each
//!    round the round's write amplification (NAND units written / host units) is noted.
//! 3. **Steady state** is decided as the SNIA Solid State Storage Performance Test Specification
//!    (PTS, Enterprise 1.1, "steady state") decides it for IOPS, applied to the round WAF: over a
//!    window of the last `window` rounds, the range (max - min) is at most `tolerance` of their
//!    mean and the excursion of their least-squares line (slope x (window - 1)) at most
//!    `slope_tolerance` of the mean. The PTS uses 5 rounds, 20% and 10%; the defaults here are 5
//!    rounds, 5% and 5% (chosen: WAF moves slowly, and 20% would call a still-climbing WAF
//!    steady). It stops after `max_rounds` either way and reports whether steady state was met.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::device::Ftl;
use crate::device::report::ftl::PreconditionReport;
use crate::seed::mix_seed;
use crate::time::Instant;

/// A validated `[precondition]` table, in mapping units.
#[derive(Clone, Debug, PartialEq)]
pub struct PreconditionPlan {
    /// Logical units written sequentially first, from unit 0.
    pub fill_units: u64,
    /// Then random overwrite of the filled units until steady state.
    pub random_overwrite: bool,
    /// Units per random write (its `bs`).
    pub block_units: u64,
    /// Overwrite as (range units, streams) sequential range writers instead of at random.
    pub ranges: Option<(u64, u32)>,
    /// Units written per round.
    pub round_units: u64,
    pub window: u32,
    pub tolerance: f64,
    pub slope_tolerance: f64,
    pub max_rounds: u32,
    pub seed: u64,
}

/// The overwrite pattern: random writes, or sequential writers of trimmed ranges.
struct Overwriter {
    rng: Pcg64Mcg,
    /// Per stream: next unit to write and units left in its range.
    streams: Vec<(u64, u64)>,
    next_stream: usize,
}

impl Overwriter {
    /// The next write's first unit; for a range writer starting a range, the range to trim
    /// first.
    fn next(&mut self, plan: &PreconditionPlan) -> (u64, Option<(u64, u64)>) {
        let blocks = plan.fill_units / plan.block_units.max(1);
        let Some((range, n)) = plan.ranges else {
            return (self.rng.random_range(0..blocks) * plan.block_units, None);
        };
        let s = self.next_stream;
        self.next_stream = (s + 1) % n as usize;
        let share = plan.fill_units / n as u64;
        let mut trim = None;
        if self.streams[s].1 == 0 {
            let first = s as u64 * share + self.rng.random_range(0..share / range) * range;
            self.streams[s] = (first, range);
            trim = Some((first, range));
        }
        let (at, left) = self.streams[s];
        self.streams[s] = (at + plan.block_units, left.saturating_sub(plan.block_units));
        (at, trim)
    }
}

/// The SNIA PTS steady-state test on the last `window` round WAFs, once garbage collection
/// has started: every round of the window copied something (WAF above 1), the range is within
/// `tolerance` of the mean, and WAF has stopped rising (the fitted line's rise over the window
/// within `slope_tolerance` of the mean; a falling WAF passes the range test or fails it). A
/// device whose WAF is still 1 has not met the garbage collection it will meet: not steady.
pub fn is_steady(values: &[f64], window: usize, tolerance: f64, slope_tolerance: f64) -> bool {
    if window < 2 || values.len() < window {
        return false;
    }
    let y = &values[values.len() - window..];
    if y.iter().any(|&w| w <= 1.0) {
        return false;
    }
    let n = window as f64;
    let mean = y.iter().sum::<f64>() / n;
    let (min, max) = y
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    let xm = (n - 1.0) / 2.0;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, &v) in y.iter().enumerate() {
        let dx = i as f64 - xm;
        sxy += dx * (v - mean);
        sxx += dx * dx;
    }
    let rise = (sxy / sxx).max(0.0) * (n - 1.0);
    max - min <= tolerance * mean && rise <= slope_tolerance * mean
}

/// Overwrites drawn ahead of placing them, so their forward entries load together (chosen: as
/// the collection's `COPY_AHEAD_UNITS`).
const PREFETCH_BATCH: u64 = 32;

impl Ftl {
    /// Runs `plan` on a fresh device (nothing written yet).
    pub fn precondition(&mut self, plan: &PreconditionPlan) {
        assert!(
            self.ftl.host_units == 0 && plan.fill_units <= self.spec.logical_units,
            "preconditioning runs once, on a fresh device, within its logical space"
        );
        self.timed = false;
        let t0 = Instant::ZERO;
        for lpn in 0..plan.fill_units {
            self.place_host(t0, lpn as u32, t0);
        }
        let mut report = PreconditionReport {
            filled_bytes: plan.fill_units * self.spec.mapping_unit_bytes,
            overwritten_bytes: 0,
            rounds: 0,
            round_waf: Vec::new(),
            steady_state: false,
        };
        let blocks = plan.fill_units / plan.block_units.max(1);
        if plan.random_overwrite && blocks > 0 {
            let mut writer = Overwriter {
                rng: Pcg64Mcg::seed_from_u64(mix_seed(plan.seed, 0x5052_4543_4f4e)), // "PRECON"
                streams: vec![(0, 0); plan.ranges.map_or(0, |(_, n)| n as usize)],
                next_stream: 0,
            };
            let per_round = plan.round_units.div_ceil(plan.block_units).max(1);
            let mut batch = Vec::with_capacity(PREFETCH_BATCH as usize);
            while report.rounds < plan.max_rounds {
                let (placed, copied) = (self.ftl.host_units_placed, self.ftl.gc_copied_units);
                let host = self.ftl.host_units;
                let mut left = per_round;
                while left > 0 {
                    // Draw a batch of writes, load their forward entries, then place them in
                    // order: the random entries' cache misses overlap (the same writes, in the
                    // same order, as one at a time).
                    batch.clear();
                    batch.extend((0..left.min(PREFETCH_BATCH)).map(|_| writer.next(plan)));
                    left -= batch.len() as u64;
                    for &(first, _) in &batch {
                        self.map.prefetch(first as u32);
                    }
                    for &(first, trim) in &batch {
                        if let Some((from, units)) = trim {
                            self.deallocate(from, from + units);
                        }
                        for lpn in first..first + plan.block_units {
                            self.place_host(t0, lpn as u32, t0);
                        }
                    }
                }
                let written = self.ftl.host_units - host;
                let nand = self.ftl.host_units_placed - placed + self.ftl.gc_copied_units - copied;
                report.round_waf.push(nand as f64 / written as f64);
                report.overwritten_bytes += written * self.spec.mapping_unit_bytes;
                report.rounds += 1;
                if is_steady(
                    &report.round_waf,
                    plan.window as usize,
                    plan.tolerance,
                    plan.slope_tolerance,
                ) {
                    report.steady_state = true;
                    break;
                }
            }
        }
        self.timed = true;
        self.precondition = Some(report);
    }
}

#[cfg(test)]
mod tests {
    use super::is_steady;

    #[test]
    fn steady_state_needs_a_flat_window() {
        let flat = [3.0, 3.05, 2.98, 3.02, 3.0];
        assert!(is_steady(&flat, 5, 0.05, 0.05));
        let climbing = [2.6, 2.7, 2.8, 2.9, 3.0];
        assert!(
            !is_steady(&climbing, 5, 0.2, 0.1),
            "slope excursion 0.4 is above 10% of 2.8"
        );
        assert!(!is_steady(&flat[..4], 5, 0.05, 0.05), "too few rounds");
        // SNIA's looser limits accept a modest climb.
        assert!(is_steady(&[2.8, 2.85, 2.9, 2.92, 2.95], 5, 0.2, 0.1));
        // Before garbage collection starts, WAF is flat at 1: not steady.
        assert!(!is_steady(&[1.0; 8], 5, 0.05, 0.05));
        assert!(!is_steady(&[1.0, 1.0, 1.0, 1.2, 1.3], 5, 0.5, 0.5));
        // A WAF settling down from a peak is steady once the window is flat enough.
        assert!(is_steady(&[3.1, 3.05, 3.0, 3.0, 2.98], 5, 0.05, 0.05));
    }
}
