//! Garbage-collection victim policies: which closed superblock to collect next. A policy sees
//! the candidates and answers; the FTL does the copying and erasing. One file per policy.
//!
//! - [`Greedy`]: the fewest valid units (the least copying now).
//! - [`CostBenefit`]: the best ratio of space freed times age to copying cost (the log-structured
//!   file system's cleaner, Rosenblum and Ousterhout, SOSP 1991; for flash, Kawaguchi et al.,
//!   USENIX 1995), which lets cold superblocks fill up with invalid data before they are taken.

mod cost_benefit;
mod greedy;

pub use cost_benefit::CostBenefit;
pub use greedy::Greedy;

use crate::time::Instant;

/// A closed superblock as a policy sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub superblock: u32,
    pub valid_units: u32,
    pub capacity_units: u32,
    /// When it was filled (the age of its youngest data).
    pub closed_at: Instant,
    pub erase_count: u32,
}

pub trait VictimPolicy: Send {
    fn name(&self) -> &'static str;
    /// The superblock to collect, among `candidates` (never empty).
    fn choose(&mut self, now: Instant, candidates: &[Candidate]) -> u32;
}

/// A validated choice of victim policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VictimChoice {
    Greedy,
    CostBenefit,
}

impl VictimChoice {
    pub fn name(self) -> &'static str {
        match self {
            VictimChoice::Greedy => "greedy",
            VictimChoice::CostBenefit => "cost_benefit",
        }
    }

    pub fn build(self) -> Box<dyn VictimPolicy> {
        match self {
            VictimChoice::Greedy => Box::new(Greedy),
            VictimChoice::CostBenefit => Box::new(CostBenefit),
        }
    }
}
