//! Zone ballooning's two overdrives (ezns.md, "Zone ballooning").
//!
//! **Local overdrive**, when a stripe group opens: the namespace estimates how many v-zones it
//! keeps active as an EWMA (the authors' code: weight 1/32, initial value the namespace's
//! active limit, floor 1) and gives the new group `pow2floor((essentials + spares) / estimate)`
//! physical zones, capped by its free spares plus the base width; the stripe size starts at the
//! largest stripe at the base width and halves each time the width doubles.
//!
//! **Global overdrive**, driven by the device's write intensity: the allocator remembers which
//! namespace made each of the last `history` physical-zone allocations; every `every`
//! allocations (a cycle) a namespace with none in the window is inactive and its unused spares
//! are lent in equal shares to the active namespaces. A lender that allocates again recalls its
//! loans ([`super::resources::Resources::recall_all`]).

use std::collections::VecDeque;

use super::resources::Resources;

/// An exponentially weighted moving average of the active v-zones.
#[derive(Clone, Copy, Debug)]
pub struct Ewma {
    avg: f64,
    alpha: f64,
}

impl Ewma {
    pub fn new(initial: f64, weight: u32) -> Self {
        Ewma {
            avg: initial.max(1.0),
            alpha: 1.0 / weight as f64,
        }
    }

    pub fn sample(&mut self, x: u32) {
        self.avg = (self.avg + self.alpha * (x as f64 - self.avg)).max(1.0);
    }

    pub fn value(&self) -> f64 {
        self.avg
    }
}

pub fn pow2_floor(x: u32) -> u32 {
    if x == 0 {
        0
    } else {
        1 << (31 - x.leading_zeros())
    }
}

/// The width of a new group: `base` at least (or what the v-zone has left), at most `max`.
#[allow(clippy::too_many_arguments)]
pub fn local_width(
    essentials: u32,
    pool: u32,
    estimate: f64,
    base: u32,
    free_spares: u32,
    remaining: u32,
    max: u32,
) -> u32 {
    let want = pow2_floor(((essentials + pool) as f64 / estimate.max(1.0)) as u32);
    let w = want.min(base + free_spares).min(max).min(remaining);
    pow2_floor(w).max(base).min(remaining)
}

/// The stripe size of a group `width` wide: the largest at the base width, halved per doubling,
/// never below one LBA.
pub fn stripe_lbas(width: u32, base: u32, max_stripe_lbas: u64) -> u64 {
    let doublings = (width / base.max(1)).max(1).ilog2();
    (max_stripe_lbas >> doublings).max(1)
}

/// The global-overdrive history and cycle.
pub struct Global {
    history: VecDeque<u32>,
    len: usize,
    every: u32,
    since: u32,
    pub cycle: u64,
    pub redistributions: u64,
}

impl Global {
    pub fn new(len: u32, every: u32) -> Self {
        Global {
            history: VecDeque::with_capacity(len as usize),
            len: len.max(1) as usize,
            every: every.max(1),
            since: 0,
            cycle: 0,
            redistributions: 0,
        }
    }

    /// Namespace `ns` allocated `count` physical zones. Returns whether a cycle ended.
    pub fn record(&mut self, ns: u32, count: u32) -> bool {
        for _ in 0..count {
            if self.history.len() == self.len {
                self.history.pop_front();
            }
            self.history.push_back(ns);
        }
        self.since += count;
        if self.since >= self.every {
            self.since = 0;
            self.cycle += 1;
            return true;
        }
        false
    }

    /// Whether each of `n` namespaces allocated within the window.
    pub fn active(&self, n: usize) -> Vec<bool> {
        let mut a = vec![false; n];
        for &ns in &self.history {
            a[ns as usize] = true;
        }
        a
    }
}

/// Lends the unused spares of inactive namespaces in equal shares to the active ones. Returns
/// how many spares changed hands.
pub fn redistribute(res: &mut Resources, active: &[bool]) -> u32 {
    let takers: Vec<usize> = (0..active.len()).filter(|&j| active[j]).collect();
    if takers.is_empty() || takers.len() == active.len() {
        return 0;
    }
    let mut moved = 0;
    for i in (0..active.len()).filter(|&i| !active[i]) {
        res.cancel_recall(i);
        res.return_unused(i);
        let share = res.lendable(i) / takers.len() as u32;
        if share == 0 {
            continue;
        }
        for &j in &takers {
            res.lend(i, j, share);
            moved += share;
        }
    }
    moved
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn width_follows_the_estimate_rounded_down_to_a_power_of_two() {
        // 32 essentials + 32 spares, base 2, 16 zones per v-zone.
        assert_eq!(local_width(32, 32, 4.0, 2, 32, 16, 16), 16);
        assert_eq!(local_width(32, 32, 5.0, 2, 32, 16, 16), 8);
        assert_eq!(local_width(32, 32, 8.0, 2, 32, 16, 16), 8);
        assert_eq!(local_width(32, 32, 16.0, 2, 32, 16, 16), 4);
        assert_eq!(local_width(32, 32, 16.0, 2, 32, 16, 16), 4);
        // Capped by free spares plus the base, then rounded down.
        assert_eq!(local_width(32, 32, 1.0, 2, 5, 16, 16), 4);
        assert_eq!(local_width(32, 32, 1.0, 2, 0, 16, 16), 2);
        // Never past what the v-zone has left.
        assert_eq!(local_width(32, 32, 1.0, 2, 32, 6, 16), 4);
        assert_eq!(local_width(32, 32, 1.0, 2, 32, 2, 16), 2);
        assert_eq!(stripe_lbas(2, 2, 8), 8);
        assert_eq!(stripe_lbas(4, 2, 8), 4);
        assert_eq!(stripe_lbas(16, 2, 8), 1);
        assert_eq!(stripe_lbas(32, 2, 8), 1);
    }

    #[test]
    fn ewma_moves_by_its_weight_and_stays_above_one() {
        let mut e = Ewma::new(16.0, 32);
        e.sample(0);
        assert_eq!(e.value(), 15.5);
        for _ in 0..1000 {
            e.sample(0);
        }
        assert_eq!(e.value(), 1.0);
    }

    #[test]
    fn inactive_namespaces_lend_their_unused_spares_and_recall_them() {
        let mut r = Resources::new(128, 128, 4);
        r.take(0, 2, 10);
        assert_eq!(redistribute(&mut r, &[true, false, false, true]), 2 * 32);
        r.check();
        assert_eq!(r.pool(0), 32 + 32);
        assert_eq!(r.pool(3), 32 + 32);
        r.take(3, 2, 60);
        r.check();
        // Namespace 1 writes again: namespace 0 gives back its 16 at once, namespace 3 the 4
        // it does not use.
        assert!(r.recall_all(1));
        r.check();
        assert_eq!(r.pool(1), 20);
        assert_eq!(r.pool(3), 60);
        // When namespace 3's group releases its spares, the rest goes back.
        r.release(3, 2, 60);
        r.check();
        assert_eq!(r.pool(1), 32);
        assert_eq!(r.pool(3), 48);
    }
}
