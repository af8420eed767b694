//! Cost-benefit: collect the superblock with the highest `(1 - u) * age / (2u)`, where `u` is
//! the share of its units still valid and `age` the time since it was filled (Rosenblum and
//! Ousterhout's cleaner for LFS, SOSP 1991, used for flash by Kawaguchi et al., USENIX 1995).
//! Reading the superblock costs 1 and writing back its valid data `u`, so cost is `1 + u`; LFS
//! writes it `2u` counting the read of valid data only, as here (an empty superblock has no cost
//! and is always taken first). Ages are simulated time, so the choice is deterministic; ties go
//! to the lowest index.

use super::{Candidate, VictimPolicy};
use crate::time::Instant;

pub struct CostBenefit;

impl CostBenefit {
    fn score(now: Instant, c: &Candidate) -> f64 {
        if c.valid_units == 0 {
            return f64::INFINITY;
        }
        let u = c.valid_units as f64 / c.capacity_units as f64;
        // One nanosecond at least, so superblocks filled just now still rank by utilisation.
        let age = now.since(c.closed_at).ns().max(1) as f64;
        (1.0 - u) * age / (2.0 * u)
    }
}

impl VictimPolicy for CostBenefit {
    fn name(&self) -> &'static str {
        "cost_benefit"
    }

    fn choose(&mut self, now: Instant, candidates: &[Candidate]) -> u32 {
        let mut best = candidates[0];
        let mut best_score = Self::score(now, &best);
        for c in &candidates[1..] {
            let s = Self::score(now, c);
            if s > best_score || (s == best_score && c.superblock < best.superblock) {
                best = *c;
                best_score = s;
            }
        }
        best.superblock
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::victim::Greedy;

    fn c(superblock: u32, valid_units: u32, closed_at: u64) -> Candidate {
        Candidate {
            superblock,
            valid_units,
            capacity_units: 100,
            closed_at: Instant::from_ns(closed_at),
            erase_count: 0,
        }
    }

    #[test]
    fn cost_benefit_prefers_old_data_that_greedy_would_leave() {
        let now = Instant::from_ns(1_000_000);
        // A young superblock at 40% valid against an old one at 50% valid.
        let cands = [c(0, 40, 990_000), c(1, 50, 0)];
        assert_eq!(Greedy.choose(now, &cands), 0);
        assert_eq!(CostBenefit.choose(now, &cands), 1);
        // An empty superblock always wins.
        let cands = [c(3, 10, 0), c(4, 0, 999_999)];
        assert_eq!(CostBenefit.choose(now, &cands), 4);
        assert_eq!(Greedy.choose(now, &cands), 4);
    }
}
