//! NAND that ages and varies (optional; off unless a device has an `[device.aging]` table, so
//! runs without it are unchanged). Two effects, both on the die timeline:
//!
//! - **Page types.** In MLC and TLC NAND the pages of a word line are read and programmed with
//!   different latencies (lower, centre, upper page). The page type of page `p` of a block follows
//!   MQSim's rule (`Flash_Chip::Get_command_execution_latency`, after Yaakobi et al., ICNC 2012):
//!   MLC `p % 2`; TLC pages 0-5 lower, 6-7 centre, then pairs cycling lower, centre, upper. FEMU
//!   (hw/femu/nand/nand.h) gives the latencies the presets use: MLC (Micron L95B) read 48/64 us,
//!   program 850/2300 us; TLC read 56.5/77.5/106 us, program 820.5/2225/5734 us. A program unit of
//!   several pages (one-shot TLC) programs all its page types at once and keeps the device's tPROG.
//! - **Read retries.** A read that the ECC cannot correct is sensed again with shifted reference
//!   voltages; each retry costs one more tR of that page. Raw bit errors grow with the block's
//!   program/erase cycles and with how long the data has been stored (Cai et al., "Error
//!   Characterization, Mitigation, and Recovery in Flash-Memory-Based Solid-State Drives",
//!   Proc. IEEE 2017), so the chance `p` that a read needs a retry grows with both:
//!   `p = min(max, base + wear_weight * erases / endurance + retention_weight * min(1, age / retention_limit))`.
//!   Each further retry is needed with the same chance, so a read makes `k` retries with
//!   probability `p^k (1 - p)`, up to `max_retries`. The weights are chosen (no source gives a
//!   closed form); they are inputs, stated in the preset or experiment that uses them.
//!
//! Randomness comes from a counter hashed with the run's seed (SplitMix64), so a run is
//! reproducible and the aging draws take nothing from any workload's random stream.
//!
//! The age of data is tracked per block: the time its first page was programmed since its last
//! erase. Data the run did not program (a prefill, a preconditioning phase) is `initial_retention`
//! old at time zero. A device can start worn: `initial_wear` sets each block's erase count, one
//! draw per group of blocks that are erased together (a zone's blocks on the dies of its stripe,
//! or a superblock's block on every die), as they would have been worn together.

use super::NandGeometry;
use crate::time::{Duration, Instant};

/// Bits per cell: how many page types a word line has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellType {
    Slc,
    Mlc,
    Tlc,
}

impl CellType {
    pub fn page_types(self) -> usize {
        match self {
            CellType::Slc => 1,
            CellType::Mlc => 2,
            CellType::Tlc => 3,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            CellType::Slc => "slc",
            CellType::Mlc => "mlc",
            CellType::Tlc => "tlc",
        }
    }

    /// The page type (0 lower, 1 centre or upper, 2 upper) of page `page` of a block, as MQSim
    /// assigns it.
    #[inline]
    pub fn page_type(self, page: u32) -> usize {
        match self {
            CellType::Slc => 0,
            CellType::Mlc => (page % 2) as usize,
            CellType::Tlc => match page {
                0..=5 => 0,
                6 | 7 => 1,
                p => (((p - 8) >> 1) % 3) as usize,
            },
        }
    }
}

/// How a device starts worn: erase counts drawn uniformly from `min..=max`, one draw per group
/// of `group_blocks` consecutive blocks on each of `group_dies` consecutive dies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InitialWear {
    pub min: u32,
    pub max: u32,
    pub group_dies: u32,
    pub group_blocks: u32,
}

/// The chance that a read needs a retry (see the module documentation for the formula).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetryModel {
    pub base: f64,
    pub wear_weight: f64,
    pub endurance_erases: u32,
    pub retention_weight: f64,
    pub retention_limit: Duration,
    pub max_probability: f64,
    pub max_retries: u32,
}

impl RetryModel {
    /// No retries ever.
    pub const NONE: RetryModel = RetryModel {
        base: 0.0,
        wear_weight: 0.0,
        endurance_erases: 1,
        retention_weight: 0.0,
        retention_limit: Duration::from_secs(1),
        max_probability: 0.0,
        max_retries: 0,
    };

    /// The chance a read of a block erased `erases` times, holding data `age` old, needs a retry.
    pub fn probability(&self, erases: u32, age: Duration) -> f64 {
        let wear = erases as f64 / self.endurance_erases.max(1) as f64;
        let retention = (age.ns() as f64 / self.retention_limit.ns().max(1) as f64).min(1.0);
        (self.base + self.wear_weight * wear + self.retention_weight * retention)
            .clamp(0.0, self.max_probability)
    }
}

/// A validated `[device.aging]` table.
#[derive(Clone, Debug, PartialEq)]
pub struct AgingSpec {
    /// Per-page-type latencies; None: every page takes the device's tR and tPROG.
    pub cell: Option<CellType>,
    /// tR per page type (as many as the cell type has).
    pub read_latency: Vec<Duration>,
    /// tR per page type of a partial-page read (at most 4 KiB; as many as `read_latency`).
    pub read_4k_latency: Vec<Duration>,
    /// tPROG per page type, for devices that program page by page.
    pub program_latency: Vec<Duration>,
    pub retry: RetryModel,
    /// How old data the run did not write itself is at time zero.
    pub initial_retention: Duration,
    pub initial_wear: Option<InitialWear>,
    /// The run's seed.
    pub seed: u64,
}

/// SplitMix64: a counter turned into a uniform 64-bit value.
#[inline]
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Uniform in (0, 1].
#[inline]
fn unit_interval(x: u64) -> f64 {
    ((x >> 11) + 1) as f64 / (1u64 << 53) as f64
}

/// Sentinel: the block holds data the run did not program (or none).
const BEFORE_RUN: u64 = u64::MAX;

/// The aging state a [`super::Nand`] carries when aging is on.
#[derive(Clone, Debug)]
pub(super) struct Aging {
    spec: AgingSpec,
    /// Per block (die-major, as the erase counts): when its data was first programmed since its
    /// last erase, in ns; `BEFORE_RUN` if the run has not programmed it.
    programmed_at: Vec<u64>,
    /// Reads drawn so far (the hash counter).
    draws: u64,
}

impl Aging {
    /// The aging state for `geometry`, applying the initial wear to `erase_counts`.
    pub fn new(spec: &AgingSpec, geometry: &NandGeometry, erase_counts: &mut [u32]) -> Self {
        if let Some(w) = spec.initial_wear {
            let span = (w.max - w.min) as u64 + 1;
            let per_die = geometry.blocks_per_die as u64;
            for (i, count) in erase_counts.iter_mut().enumerate() {
                let (die, block) = (i as u64 / per_die, i as u64 % per_die);
                let key = ((die / w.group_dies.max(1) as u64) << 32)
                    | (block / w.group_blocks.max(1) as u64);
                let draw = mix(spec.seed ^ mix(key ^ 0x5745_4152)); // "WEAR"
                *count += w.min + (draw % span) as u32;
            }
        }
        Aging {
            programmed_at: vec![BEFORE_RUN; erase_counts.len()],
            draws: 0,
            spec: spec.clone(),
        }
    }

    /// tR of page `page` of block `block` (index into the erase counts), read at `now`, with
    /// its retries; returns (sensing time, retries).
    #[inline]
    pub fn read(
        &mut self,
        block: usize,
        page: u32,
        erases: u32,
        now: Instant,
        base_tr: Duration,
        small: bool,
    ) -> (Duration, u32) {
        let tr = match (self.spec.cell, small) {
            (Some(c), false) => self.spec.read_latency[c.page_type(page)],
            (Some(c), true) => self.spec.read_4k_latency[c.page_type(page)],
            (None, _) => base_tr,
        };
        let r = &self.spec.retry;
        if r.max_retries == 0 {
            return (tr, 0);
        }
        let at = self.programmed_at[block];
        let age = if at == BEFORE_RUN {
            self.spec.initial_retention + now.since(Instant::ZERO)
        } else {
            now.since(Instant::from_ns(at))
        };
        let p = r.probability(erases, age);
        self.draws += 1;
        if p <= 0.0 {
            return (tr, 0);
        }
        let u = unit_interval(mix(self.spec.seed ^ mix(self.draws)));
        // P(retries >= k) = p^k: retries = floor(ln u / ln p).
        let retries = if p >= 1.0 {
            r.max_retries
        } else {
            ((u.ln() / p.ln()).floor() as u64).min(r.max_retries as u64) as u32
        };
        (Duration::from_ns(tr.ns() * (1 + retries as u64)), retries)
    }

    /// tPROG of a single-page program unit whose page is `page` of its block.
    #[inline]
    pub fn program_time(&self, page: u32, base: Duration) -> Duration {
        match self.spec.cell {
            Some(c) => self.spec.program_latency[c.page_type(page)],
            None => base,
        }
    }

    /// Block `block` received a program that completes at `done`.
    #[inline]
    pub fn programmed(&mut self, block: usize, done: Instant) {
        let at = &mut self.programmed_at[block];
        if *at == BEFORE_RUN {
            *at = done.ns();
        }
    }

    /// Block `block` was erased: it holds no data.
    #[inline]
    pub fn erased(&mut self, block: usize) {
        self.programmed_at[block] = BEFORE_RUN;
    }

    pub fn save(&self) -> AgingState {
        AgingState {
            programmed_at: self.programmed_at.clone(),
            draws: self.draws,
        }
    }

    /// Takes a saved state for the same geometry; on error nothing has changed.
    pub fn restore(&mut self, s: AgingState) -> Result<(), String> {
        if s.programmed_at.len() != self.programmed_at.len() {
            return Err(format!(
                "NAND aging state for {} blocks; the device has {}",
                s.programmed_at.len(),
                self.programmed_at.len()
            ));
        }
        self.programmed_at = s.programmed_at;
        self.draws = s.draws;
        Ok(())
    }
}

/// What a state file keeps of [`Aging`]: the data ages and the draw counter (the spec comes
/// from the device's configuration).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) struct AgingState {
    programmed_at: Vec<u64>,
    draws: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_types_follow_mqsim() {
        let tlc: Vec<usize> = (0..16).map(|p| CellType::Tlc.page_type(p)).collect();
        assert_eq!(tlc, [0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 0, 0]);
        let mlc: Vec<usize> = (0..4).map(|p| CellType::Mlc.page_type(p)).collect();
        assert_eq!(mlc, [0, 1, 0, 1]);
        assert_eq!(CellType::Slc.page_type(7), 0);
    }

    #[test]
    fn retry_probability_grows_with_wear_and_age_and_is_capped() {
        let r = RetryModel {
            base: 0.01,
            wear_weight: 0.4,
            endurance_erases: 1000,
            retention_weight: 0.2,
            retention_limit: Duration::from_secs(100),
            max_probability: 0.5,
            max_retries: 4,
        };
        let fresh = r.probability(0, Duration::ZERO);
        let worn = r.probability(500, Duration::ZERO);
        let old = r.probability(0, Duration::from_secs(50));
        assert!((fresh - 0.01).abs() < 1e-12);
        assert!((worn - 0.21).abs() < 1e-12);
        assert!((old - 0.11).abs() < 1e-12);
        assert_eq!(r.probability(10_000, Duration::from_secs(1000)), 0.5);
    }

    #[test]
    fn retries_are_geometric_and_repeatable() {
        let spec = AgingSpec {
            cell: None,
            read_latency: vec![],
            read_4k_latency: vec![],
            program_latency: vec![],
            retry: RetryModel {
                base: 0.5,
                max_probability: 0.5,
                max_retries: 30,
                ..RetryModel::NONE
            },
            initial_retention: Duration::ZERO,
            initial_wear: None,
            seed: 9,
        };
        let geo = NandGeometry {
            channels: 1,
            dies_per_channel: 1,
            blocks_per_die: 4,
            pages_per_block: 4,
            page_size_bytes: 4096,
            pages_per_program: 1,
        };
        let draw = || {
            let mut a = Aging::new(&spec, &geo, &mut [0; 4]);
            (0..20_000)
                .map(|_| a.read(0, 0, 0, Instant::ZERO, Duration::from_ns(10), false).1)
                .collect::<Vec<u32>>()
        };
        let first = draw();
        assert_eq!(first, draw(), "same seed, same retries");
        // With p = 1/2 the mean number of retries is p / (1 - p) = 1.
        let mean = first.iter().map(|&k| k as f64).sum::<f64>() / first.len() as f64;
        assert!((mean - 1.0).abs() < 0.05, "mean retries {mean}");
        let none = first.iter().filter(|&&k| k == 0).count() as f64 / first.len() as f64;
        assert!((none - 0.5).abs() < 0.02, "share without retry {none}");
    }

    #[test]
    fn initial_wear_groups_share_a_count() {
        let spec = AgingSpec {
            cell: None,
            read_latency: vec![],
            read_4k_latency: vec![],
            program_latency: vec![],
            retry: RetryModel::NONE,
            initial_retention: Duration::ZERO,
            initial_wear: Some(InitialWear {
                min: 100,
                max: 200,
                group_dies: 2,
                group_blocks: 2,
            }),
            seed: 3,
        };
        let geo = NandGeometry {
            channels: 2,
            dies_per_channel: 1,
            blocks_per_die: 8,
            pages_per_block: 4,
            page_size_bytes: 4096,
            pages_per_program: 1,
        };
        let mut counts = vec![0u32; 16];
        Aging::new(&spec, &geo, &mut counts);
        assert_eq!(
            counts[..8],
            counts[8..],
            "block b is as worn on die 0 as on die 1"
        );
        assert!(counts.iter().all(|&c| (100..=200).contains(&c)));
        assert!(
            counts[..8].chunks(2).all(|p| p[0] == p[1]),
            "pairs of blocks share a draw"
        );
        assert!(
            counts[..8].windows(2).any(|w| w[0] != w[1]),
            "groups differ"
        );
    }
}
