//! Greedy: collect the superblock with the fewest valid units, so each collection copies the
//! least. Ties go to the least-erased superblock, then the lowest index (deterministic).

use super::{Candidate, VictimPolicy};
use crate::time::Instant;

pub struct Greedy;

impl VictimPolicy for Greedy {
    fn name(&self) -> &'static str {
        "greedy"
    }

    fn choose(&mut self, _now: Instant, candidates: &[Candidate]) -> u32 {
        candidates
            .iter()
            .min_by_key(|c| (c.valid_units, c.erase_count, c.superblock))
            .expect("candidates")
            .superblock
    }
}
