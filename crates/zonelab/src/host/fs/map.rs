//! A file's block map: file block -> (zone, block in the zone). A run of consecutive blocks
//! never crosses a zone (an extent lives in one zone, as in ZenFS). A map starts as runs (one
//! per zone for a file written sequentially: memory follows the number of runs, not the file
//! size) and turns into a dense array of 8-byte slots once random writes have cut it into many
//! short runs, where the array is both smaller and faster than a tree of runs.

use std::collections::BTreeMap;

/// `len` blocks at `block..block + len` of fs zone `zone`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    pub zone: u32,
    pub block: u32,
    pub len: u32,
}

impl Run {
    pub fn new(zone: u32, block: u32, len: u32) -> Self {
        Run { zone, block, len }
    }
}

const NONE: u64 = u64::MAX;

fn pack(zone: u32, block: u32) -> u64 {
    ((zone as u64) << 32) | block as u64
}

fn unpack(v: u64) -> (u32, u32) {
    ((v >> 32) as u32, v as u32)
}

/// `b` continues `a` on the device (same zone, next block).
fn follows(a: u64, b: u64) -> bool {
    a != NONE && b != NONE && (a >> 32) == (b >> 32) && (a as u32).wrapping_add(1) == b as u32
}

#[derive(Clone, Debug)]
enum Repr {
    /// Keyed by the first file block of each run; runs do not overlap.
    Runs(BTreeMap<u64, Run>),
    /// One slot per file block from 0 (`NONE`: not mapped), the number of runs, and a bit per
    /// slot set when it is mapped (64 times denser than the slots: a writer asking whether a
    /// block is new finds the answer in the CPU cache where a slot would be a miss).
    Dense {
        slots: Vec<u64>,
        runs: usize,
        mapped: Vec<u64>,
    },
}

#[derive(Clone, Debug)]
pub struct BlockMap {
    repr: Repr,
    blocks: u64,
}

impl Default for BlockMap {
    fn default() -> Self {
        BlockMap {
            repr: Repr::Runs(BTreeMap::new()),
            blocks: 0,
        }
    }
}

/// A tree of runs turns dense past this many runs, if they are short on average.
const DENSE_AFTER_RUNS: usize = 64;
const DENSE_MAX_SPAN_PER_RUN: u64 = 16;

impl BlockMap {
    /// Blocks mapped to the device.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// Runs (extents) in the map.
    pub fn run_count(&self) -> usize {
        match &self.repr {
            Repr::Runs(r) => r.len(),
            Repr::Dense { runs, .. } => *runs,
        }
    }

    /// Bytes of memory the map holds (approximate for the tree).
    pub fn memory_bytes(&self) -> u64 {
        match &self.repr {
            Repr::Runs(r) => r.len() as u64 * 48,
            Repr::Dense { slots, mapped, .. } => (slots.capacity() + mapped.capacity()) as u64 * 8,
        }
    }

    /// Where file block `fb` lives.
    pub fn get(&self, fb: u64) -> Option<(u32, u32)> {
        match &self.repr {
            Repr::Runs(runs) => {
                let (&start, r) = runs.range(..=fb).next_back()?;
                let off = fb - start;
                (off < r.len as u64).then(|| (r.zone, r.block + off as u32))
            }
            Repr::Dense { slots, .. } => match slots.get(fb as usize) {
                Some(&v) if v != NONE => Some(unpack(v)),
                _ => None,
            },
        }
    }

    /// Whether file block `fb` is mapped (as `get(fb).is_some()`, cheaper on a large map).
    pub fn contains(&self, fb: u64) -> bool {
        match &self.repr {
            Repr::Runs(_) => self.get(fb).is_some(),
            Repr::Dense { mapped, .. } => mapped
                .get((fb / 64) as usize)
                .is_some_and(|w| w & (1 << (fb % 64)) != 0),
        }
    }

    /// Starts loading where block `fb` is mapped into the CPU cache (a hint: a writeback
    /// remaps dirty blocks spread over a large map, each a cache miss unless overlapped).
    pub fn prefetch(&self, fb: u64) {
        if let Repr::Dense { slots, .. } = &self.repr
            && let Some(slot) = slots.get(fb as usize)
        {
            crate::prefetch::prefetch(slot);
        }
    }

    /// Unmaps file blocks `fb..fb + len`; the device ranges they held go to `old`.
    pub fn remove_range(&mut self, fb: u64, len: u64, old: &mut Vec<Run>) {
        if len == 0 {
            return;
        }
        match &mut self.repr {
            Repr::Runs(runs) => {
                self.blocks -= remove_runs(runs, fb, len, old);
            }
            Repr::Dense {
                slots,
                runs,
                mapped,
            } => {
                let end = ((fb + len) as usize).min(slots.len());
                let mut b = fb as usize;
                while b < end {
                    if slots[b] == NONE {
                        b += 1;
                        continue;
                    }
                    let (zone, block) = unpack(slots[b]);
                    let mut n = 1;
                    while b + n < end && follows(slots[b + n - 1], slots[b + n]) {
                        n += 1;
                    }
                    for i in b..b + n {
                        set_slot(slots, runs, mapped, i, NONE);
                    }
                    old.push(Run::new(zone, block, n as u32));
                    self.blocks -= n as u64;
                    b += n;
                }
            }
        }
    }

    /// Unmaps every block from `fb` on (truncate).
    pub fn remove_from(&mut self, fb: u64, old: &mut Vec<Run>) {
        let last = match &self.repr {
            Repr::Runs(runs) => match runs.iter().next_back() {
                Some((&k, r)) => k + r.len as u64,
                None => return,
            },
            Repr::Dense { slots, .. } => slots.len() as u64,
        };
        if last > fb {
            self.remove_range(fb, last - fb, old);
        }
    }

    /// Maps file blocks `fb..fb + run.len` to `run`; the ranges they replace go to `old`.
    pub fn set(&mut self, fb: u64, run: Run, old: &mut Vec<Run>) {
        self.remove_range(fb, run.len as u64, old);
        self.blocks += run.len as u64;
        match &mut self.repr {
            Repr::Runs(runs) => {
                insert_run(runs, fb, run);
                if runs.len() > DENSE_AFTER_RUNS {
                    let span = runs
                        .iter()
                        .next_back()
                        .map_or(0, |(&k, r)| k + r.len as u64);
                    if span <= runs.len() as u64 * DENSE_MAX_SPAN_PER_RUN {
                        self.densify(span);
                    }
                }
            }
            Repr::Dense {
                slots,
                runs,
                mapped,
            } => {
                let end = (fb + run.len as u64) as usize;
                if end > slots.len() {
                    grow(slots, mapped, end);
                }
                for i in 0..run.len {
                    set_slot(
                        slots,
                        runs,
                        mapped,
                        fb as usize + i as usize,
                        pack(run.zone, run.block + i),
                    );
                }
            }
        }
    }

    fn densify(&mut self, span: u64) {
        let Repr::Runs(tree) = &self.repr else {
            return;
        };
        let (mut slots, mut mapped) = (Vec::new(), Vec::new());
        grow(&mut slots, &mut mapped, span as usize);
        for (&k, r) in tree {
            for i in 0..r.len {
                let b = (k + i as u64) as usize;
                slots[b] = pack(r.zone, r.block + i);
                mapped[b / 64] |= 1 << (b % 64);
            }
        }
        let runs = count_runs(&slots);
        self.repr = Repr::Dense {
            slots,
            runs,
            mapped,
        };
    }

    /// The runs covering file blocks `from..to`, clipped to that range: (file block, run).
    pub fn runs_in(&self, from: u64, to: u64) -> Vec<(u64, Run)> {
        let mut out = Vec::new();
        if from >= to {
            return out;
        }
        match &self.repr {
            Repr::Runs(runs) => {
                if let Some((&start, r)) = runs.range(..from).next_back()
                    && start + r.len as u64 > from
                {
                    let skip = (from - start) as u32;
                    let len = ((start + r.len as u64).min(to) - from) as u32;
                    out.push((from, Run::new(r.zone, r.block + skip, len)));
                }
                for (&start, r) in runs.range(from..to) {
                    let len = ((start + r.len as u64).min(to) - start) as u32;
                    out.push((start, Run::new(r.zone, r.block, len)));
                }
            }
            Repr::Dense { slots, .. } => {
                let end = (to as usize).min(slots.len());
                let mut b = from as usize;
                while b < end {
                    if slots[b] == NONE {
                        b += 1;
                        continue;
                    }
                    let (zone, block) = unpack(slots[b]);
                    let mut n = 1;
                    while b + n < end && follows(slots[b + n - 1], slots[b + n]) {
                        n += 1;
                    }
                    out.push((b as u64, Run::new(zone, block, n as u32)));
                    b += n;
                }
            }
        }
        out
    }

    /// Every run: (file block, run).
    pub fn iter(&self) -> Vec<(u64, Run)> {
        self.runs_in(0, u64::MAX)
    }

    /// Takes every run out (delete).
    pub fn clear(&mut self, old: &mut Vec<Run>) {
        old.extend(self.iter().into_iter().map(|(_, r)| r));
        *self = BlockMap::default();
    }
}

/// Extends `slots` to `len` unmapped slots (and `mapped` to their bits). A large file's slots
/// are read at random, one per write: new room asks for huge pages before it is first written,
/// or each read risks a TLB miss.
fn grow(slots: &mut Vec<u64>, mapped: &mut Vec<u64>, len: usize) {
    if len > slots.capacity() {
        slots.reserve(len - slots.len());
        crate::ftl::huge_pages(slots.spare_capacity_mut());
    }
    slots.resize(len, NONE);
    mapped.resize(len.div_ceil(64), 0);
}

/// Sets slot `i` and keeps the run count: a run starts at every mapped slot that does not
/// follow the one before it.
fn set_slot(slots: &mut [u64], runs: &mut usize, mapped: &mut [u64], i: usize, v: u64) {
    let starts = |s: &[u64], j: usize| -> usize {
        match s.get(j) {
            Some(&x) if x != NONE => usize::from(j == 0 || !follows(s[j - 1], x)),
            _ => 0,
        }
    };
    let before = starts(slots, i) + starts(slots, i + 1);
    slots[i] = v;
    if v == NONE {
        mapped[i / 64] &= !(1 << (i % 64));
    } else {
        mapped[i / 64] |= 1 << (i % 64);
    }
    let after = starts(slots, i) + starts(slots, i + 1);
    *runs = *runs + after - before;
}

fn count_runs(slots: &[u64]) -> usize {
    (0..slots.len())
        .filter(|&j| slots[j] != NONE && (j == 0 || !follows(slots[j - 1], slots[j])))
        .count()
}

/// Removes `fb..fb + len` from a tree of runs; returns the blocks removed.
fn remove_runs(runs: &mut BTreeMap<u64, Run>, fb: u64, len: u64, old: &mut Vec<Run>) -> u64 {
    let end = fb + len;
    let mut hit: Vec<u64> = Vec::new();
    if let Some((&start, r)) = runs.range(..fb).next_back()
        && start + r.len as u64 > fb
    {
        hit.push(start);
    }
    hit.extend(runs.range(fb..end).map(|(&k, _)| k));
    let mut removed = 0;
    for start in hit {
        let r = runs.remove(&start).expect("listed");
        let r_end = start + r.len as u64;
        let cut_from = fb.max(start);
        let cut_to = end.min(r_end);
        if start < cut_from {
            runs.insert(start, Run::new(r.zone, r.block, (cut_from - start) as u32));
        }
        if cut_to < r_end {
            let skip = (cut_to - start) as u32;
            runs.insert(
                cut_to,
                Run::new(r.zone, r.block + skip, (r_end - cut_to) as u32),
            );
        }
        let n = (cut_to - cut_from) as u32;
        old.push(Run::new(r.zone, r.block + (cut_from - start) as u32, n));
        removed += n as u64;
    }
    removed
}

/// Inserts a run into a tree (its range is free), merging with the runs it continues.
fn insert_run(runs: &mut BTreeMap<u64, Run>, fb: u64, run: Run) {
    let mut start = fb;
    let mut merged = run;
    if let Some((&k, r)) = runs.range(..fb).next_back()
        && k + r.len as u64 == fb
        && r.zone == run.zone
        && r.block + r.len == run.block
    {
        start = k;
        merged = Run::new(r.zone, r.block, r.len + run.len);
        runs.remove(&k);
    }
    let end = fb + run.len as u64;
    if let Some(r) = runs.get(&end).copied()
        && r.zone == run.zone
        && run.block + run.len == r.block
    {
        runs.remove(&end);
        merged.len += r.len;
    }
    runs.insert(start, merged);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The map as one entry per block, for comparison.
    fn dense(m: &BlockMap, n: u64) -> Vec<Option<(u32, u32)>> {
        (0..n).map(|b| m.get(b)).collect()
    }

    #[test]
    fn sequential_writes_stay_one_run_per_zone_and_overwrites_split() {
        let mut m = BlockMap::default();
        let mut old = Vec::new();
        m.set(0, Run::new(1, 0, 8), &mut old);
        m.set(8, Run::new(1, 8, 8), &mut old);
        assert_eq!(m.run_count(), 1, "contiguous runs merge");
        m.set(16, Run::new(2, 0, 4), &mut old);
        assert_eq!(m.run_count(), 2, "a run never crosses a zone");
        assert!(old.is_empty());
        m.set(5, Run::new(3, 100, 2), &mut old);
        assert_eq!(old, vec![Run::new(1, 5, 2)]);
        assert_eq!(m.get(4), Some((1, 4)));
        assert_eq!(m.get(5), Some((3, 100)));
        assert_eq!(m.get(7), Some((1, 7)));
        assert_eq!(m.blocks(), 20);
        old.clear();
        m.remove_from(6, &mut old);
        assert_eq!(m.blocks(), 6);
        let freed: u32 = old.iter().map(|r| r.len).sum();
        assert_eq!(freed, 14);
        assert_eq!(m.runs_in(0, 100).len(), 2);
    }

    /// Random sets and removes agree with a plain array, through the switch to slots.
    #[test]
    fn random_sets_agree_with_a_dense_array() {
        for span in [64u64, 2000] {
            let mut m = BlockMap::default();
            let mut d: Vec<Option<(u32, u32)>> = vec![None; span as usize];
            let mut x: u64 = 12345 + span;
            let mut next = || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            };
            let mut live = 0u64;
            for step in 0..4000u32 {
                let fb = next() % (span - 4);
                let len = next() % 4 + 1;
                let zone = (next() % 3) as u32;
                let block = (next() % 1000) as u32;
                let mut old = Vec::new();
                let before: u64 = d.iter().filter(|x| x.is_some()).count() as u64;
                if step % 7 == 0 {
                    m.remove_range(fb, len, &mut old);
                    for b in fb..fb + len {
                        d[b as usize] = None;
                    }
                } else {
                    m.set(fb, Run::new(zone, block, len as u32), &mut old);
                    for b in fb..fb + len {
                        d[b as usize] = Some((zone, block + (b - fb) as u32));
                    }
                }
                let freed: u64 = old.iter().map(|r| r.len as u64).sum();
                assert_eq!(dense(&m, span), d, "span {span} step {step}");
                for b in 0..span + 70 {
                    assert_eq!(m.contains(b), m.get(b).is_some(), "contains({b})");
                }
                live = d.iter().filter(|x| x.is_some()).count() as u64;
                assert_eq!(m.blocks(), live);
                let added = if step % 7 == 0 { 0 } else { len };
                assert_eq!(
                    before + added - freed,
                    live,
                    "old runs hold what was replaced"
                );
                let runs = m.runs_in(0, span);
                let covered: u64 = runs.iter().map(|r| r.1.len as u64).sum();
                assert_eq!(covered, live);
                assert_eq!(
                    runs.len(),
                    m.run_count(),
                    "span {span} step {step}: run count"
                );
            }
            assert!(live > 0);
            if span == 2000 {
                assert!(
                    matches!(m.repr, Repr::Dense { .. }),
                    "fragmented maps go dense"
                );
            }
        }
    }
}
