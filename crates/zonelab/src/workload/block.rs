//! fio-like jobs on a conventional (block) device, fio without `zonemode`: sequential or random
//! reads and writes of `bs` at `bs`-aligned offsets of the job's region (fio's default
//! `blockalign = bs`). Random offsets are uniform with replacement, as fio's `norandommap`
//! (fio's default random map, which visits each block once per pass, is not modelled). A
//! sequential job wraps to the start of its region. As for zoned jobs, the clones of a writing
//! job split its region evenly; readers share it.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::{JobSpec, Next, Request, mix_seed};
use crate::device::Op;

/// The generator state of one clone of a block job.
pub struct BlockGen {
    rng: Pcg64Mcg,
    /// First LBA of this clone's part of the region.
    first: u64,
    /// Blocks of `bs` in it.
    blocks: u64,
    bs: u64,
    /// Sequential position, in blocks.
    next_block: u64,
    read_percent: u32,
    random: bool,
    /// With `trim_ranges`: blocks per range, and blocks left in the range being written
    /// (0: choose and trim the next).
    range_blocks: u64,
    range_left: u64,
    /// Random jobs over enough blocks that the device's per-address state misses the CPU cache
    /// ask the device to prefetch the next address's (see [`BlockGen::next_lba_hint`]).
    prefetch: bool,
}

/// Blocks a random job spans before it asks for prefetches (chosen: a conventional SSD's map
/// entries for 2^20 units are 4 MiB, beyond what a core's L2 cache holds).
const PREFETCH_MIN_BLOCKS: u64 = 1 << 20;

impl BlockGen {
    pub fn new(spec: &JobSpec, clone: u32, seed: u64, stream: u64) -> Self {
        let bs = spec.block_lbas;
        let total = spec.region_lbas / bs;
        let (first_block, blocks) = if spec.rw.writes() {
            let per = total / spec.numjobs as u64;
            let first = clone as u64 * per;
            let count = if clone + 1 == spec.numjobs {
                total - first
            } else {
                per
            };
            (first, count)
        } else {
            (0, total)
        };
        assert!(
            blocks > 0,
            "a block job's region holds at least one bs per clone (checked by config)"
        );
        BlockGen {
            rng: Pcg64Mcg::seed_from_u64(mix_seed(seed, stream)),
            first: spec.first_lba + first_block * bs,
            blocks,
            bs,
            next_block: 0,
            read_percent: spec.read_percent,
            random: spec.rw.random(),
            range_blocks: spec.trim_range_lbas.map_or(0, |r| r / bs),
            range_left: 0,
            prefetch: spec.rw.random()
                && spec.trim_range_lbas.is_none()
                && matches!(spec.read_percent, 0 | 100)
                && blocks >= PREFETCH_MIN_BLOCKS,
        }
    }

    /// The LBA of the command after the one just returned, for a random job whose next draw is
    /// only its address (no read/write draw, no ranges) over enough blocks to be worth a
    /// prefetch: the generator's next draw, from a copy of it (the generator is untouched).
    #[inline]
    pub fn next_lba_hint(&self) -> Option<u64> {
        self.prefetch
            .then(|| self.first + self.rng.clone().random_range(0..self.blocks) * self.bs)
    }

    /// The next command.
    pub fn next_request(&mut self) -> Next {
        if self.range_blocks > 0 {
            return self.next_in_ranges();
        }
        let read = match self.read_percent {
            100 => true,
            0 => false,
            p => self.rng.random_range(0..100) < p,
        };
        let block = if self.random {
            self.rng.random_range(0..self.blocks)
        } else {
            let b = self.next_block;
            self.next_block = if b + 1 == self.blocks { 0 } else { b + 1 };
            b
        };
        let op = if read { Op::Read } else { Op::Write };
        Next::Issue(Request::new(op, self.first + block * self.bs, self.bs))
    }

    /// A sequential writer over ranges: a random range of the clone's part is trimmed, then
    /// written from its start; then the next.
    fn next_in_ranges(&mut self) -> Next {
        let r = self.range_blocks;
        if self.range_left == 0 {
            let range = self.rng.random_range(0..self.blocks / r);
            self.next_block = range * r;
            self.range_left = r;
            return Next::Issue(Request::new(
                Op::Trim,
                self.first + self.next_block * self.bs,
                r * self.bs,
            ));
        }
        let b = self.next_block;
        self.next_block += 1;
        self.range_left -= 1;
        Next::Issue(Request::new(Op::Write, self.first + b * self.bs, self.bs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Duration;
    use crate::workload::{Rw, ZoneFillAction};

    fn spec(rw: Rw, numjobs: u32) -> JobSpec {
        JobSpec {
            name: "j".into(),
            nsid: 0,
            tenant: "j".into(),
            rw,
            block_lbas: 4,
            iodepth: 1,
            numjobs,
            first_zone: 0,
            zone_count: 0,
            first_lba: 100,
            region_lbas: 40,
            io_lbas: 40,
            startdelay: Duration::ZERO,
            loops: 1,
            runtime: None,
            time_based: false,
            read_percent: if rw.writes() { 0 } else { 100 },
            rate_bytes_per_s: None,
            rate_iops: None,
            thinktime: Duration::ZERO,
            max_open_zones: 0,
            zone_reset_threshold: 0.0,
            zone_reset_frequency: 0.0,
            zone_append: false,
            zone_fill_lbas: None,
            zone_fill_action: ZoneFillAction::Reset,
            trim_range_lbas: None,
            host_overhead: Duration::ZERO,
        }
    }

    fn lbas(g: &mut BlockGen, n: usize) -> Vec<u64> {
        (0..n)
            .map(|_| match g.next_request() {
                Next::Issue(r) => r.slba,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn sequential_writers_split_the_region_and_wrap() {
        let mut a = BlockGen::new(&spec(Rw::Write, 2), 0, 1, 0);
        let mut b = BlockGen::new(&spec(Rw::Write, 2), 1, 1, 1);
        assert_eq!(lbas(&mut a, 6), [100, 104, 108, 112, 116, 100]);
        assert_eq!(lbas(&mut b, 6), [120, 124, 128, 132, 136, 120]);
    }

    #[test]
    fn range_writers_trim_a_random_range_then_write_it_in_order() {
        let mut s = spec(Rw::Write, 1);
        s.trim_range_lbas = Some(12);
        let mut g = BlockGen::new(&s, 0, 3, 0);
        let mut ranges = std::collections::BTreeSet::new();
        for _ in 0..20 {
            let trim = match g.next_request() {
                Next::Issue(r) => r,
                other => panic!("{other:?}"),
            };
            assert_eq!((trim.op, trim.nlb), (Op::Trim, 12));
            assert!((trim.slba - 100).is_multiple_of(12) && trim.slba + 12 <= 140);
            ranges.insert(trim.slba);
            let writes: Vec<_> = (0..3)
                .map(|_| match g.next_request() {
                    Next::Issue(r) => (r.op, r.slba),
                    other => panic!("{other:?}"),
                })
                .collect();
            assert_eq!(
                writes,
                [
                    (Op::Write, trim.slba),
                    (Op::Write, trim.slba + 4),
                    (Op::Write, trim.slba + 8)
                ]
            );
        }
        assert_eq!(ranges.len(), 3, "the three whole ranges, in random order");
    }

    #[test]
    fn the_prefetch_hint_is_the_next_address_and_changes_nothing() {
        let mut big = spec(Rw::Randwrite, 1);
        big.region_lbas = 4 * PREFETCH_MIN_BLOCKS;
        big.io_lbas = big.region_lbas;
        let mut hinted = BlockGen::new(&big, 0, 9, 1);
        let (mut seen, mut hints) = (Vec::new(), Vec::new());
        for _ in 0..100 {
            seen.extend(lbas(&mut hinted, 1));
            hints.push(
                hinted
                    .next_lba_hint()
                    .expect("a random writer over 2^20 blocks hints"),
            );
        }
        let mut plain = BlockGen::new(&big, 0, 9, 1);
        assert_eq!(
            seen,
            lbas(&mut plain, 100),
            "asking for hints moves no address"
        );
        assert_eq!(hints[..99], seen[1..], "each hint is the next address");
        // Small regions and jobs whose next draw is not only the address do not hint.
        let small = BlockGen::new(&spec(Rw::Randwrite, 1), 0, 9, 1);
        assert_eq!(small.next_lba_hint(), None);
        let mut mixed = big.clone();
        (mixed.rw, mixed.read_percent) = (Rw::Randrw, 70);
        assert_eq!(BlockGen::new(&mixed, 0, 9, 1).next_lba_hint(), None);
    }

    #[test]
    fn random_offsets_are_bs_aligned_inside_the_region() {
        let mut g = BlockGen::new(&spec(Rw::Randread, 3), 2, 7, 5);
        let seen = lbas(&mut g, 500);
        assert!(
            seen.iter()
                .all(|&l| (100..140).contains(&l) && (l - 100) % 4 == 0)
        );
        assert_eq!(
            seen.iter().collect::<std::collections::BTreeSet<_>>().len(),
            10,
            "readers share the whole region"
        );
    }
}
