//! A file's block map: file block -> (zone, block in the zone), kept as runs of consecutive
//! blocks. A run never crosses a zone (an extent lives in one zone, as in ZenFS), so writing a
//! file sequentially into a zone keeps one run per zone, and random overwrites split runs. Memory
//! follows the number of runs, not the file size.

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

#[derive(Clone, Debug, Default)]
pub struct BlockMap {
    /// Keyed by the first file block of each run; runs do not overlap.
    runs: BTreeMap<u64, Run>,
    blocks: u64,
}

impl BlockMap {
    /// Blocks mapped to the device.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// Runs (extents) in the map.
    pub fn run_count(&self) -> usize {
        self.runs.len()
    }

    /// Where file block `fb` lives.
    pub fn get(&self, fb: u64) -> Option<(u32, u32)> {
        let (&start, r) = self.runs.range(..=fb).next_back()?;
        let off = fb - start;
        (off < r.len as u64).then(|| (r.zone, r.block + off as u32))
    }

    /// Unmaps file blocks `fb..fb + len`; the device ranges they held go to `old`.
    pub fn remove_range(&mut self, fb: u64, len: u64, old: &mut Vec<Run>) {
        if len == 0 {
            return;
        }
        let end = fb + len;
        let mut hit: Vec<u64> = Vec::new();
        if let Some((&start, r)) = self.runs.range(..fb).next_back()
            && start + r.len as u64 > fb
        {
            hit.push(start);
        }
        hit.extend(self.runs.range(fb..end).map(|(&k, _)| k));
        for start in hit {
            let r = self.runs.remove(&start).expect("listed");
            let r_end = start + r.len as u64;
            let cut_from = fb.max(start);
            let cut_to = end.min(r_end);
            if start < cut_from {
                self.runs
                    .insert(start, Run::new(r.zone, r.block, (cut_from - start) as u32));
            }
            if cut_to < r_end {
                let skip = (cut_to - start) as u32;
                self.runs.insert(
                    cut_to,
                    Run::new(r.zone, r.block + skip, (r_end - cut_to) as u32),
                );
            }
            let n = (cut_to - cut_from) as u32;
            old.push(Run::new(r.zone, r.block + (cut_from - start) as u32, n));
            self.blocks -= n as u64;
        }
    }

    /// Unmaps every block from `fb` on (truncate).
    pub fn remove_from(&mut self, fb: u64, old: &mut Vec<Run>) {
        let last = match self.runs.iter().next_back() {
            Some((&k, r)) => k + r.len as u64,
            None => return,
        };
        if last > fb {
            self.remove_range(fb, last - fb, old);
        }
    }

    /// Maps file blocks `fb..fb + run.len` to `run`; the ranges they replace go to `old`.
    pub fn set(&mut self, fb: u64, run: Run, old: &mut Vec<Run>) {
        self.remove_range(fb, run.len as u64, old);
        let mut start = fb;
        let mut merged = run;
        if let Some((&k, r)) = self.runs.range(..fb).next_back()
            && k + r.len as u64 == fb
            && r.zone == run.zone
            && r.block + r.len == run.block
        {
            start = k;
            merged = Run::new(r.zone, r.block, r.len + run.len);
            self.runs.remove(&k);
        }
        let end = fb + run.len as u64;
        if let Some(r) = self.runs.get(&end).copied()
            && r.zone == run.zone
            && run.block + run.len == r.block
        {
            self.runs.remove(&end);
            merged.len += r.len;
        }
        self.runs.insert(start, merged);
        self.blocks += run.len as u64;
    }

    /// The runs covering file blocks `from..to`, clipped to that range: (file block, run).
    pub fn runs_in(&self, from: u64, to: u64) -> Vec<(u64, Run)> {
        let mut out = Vec::new();
        if from >= to {
            return out;
        }
        if let Some((&start, r)) = self.runs.range(..from).next_back()
            && start + r.len as u64 > from
        {
            let skip = (from - start) as u32;
            let len = ((start + r.len as u64).min(to) - from) as u32;
            out.push((from, Run::new(r.zone, r.block + skip, len)));
        }
        for (&start, r) in self.runs.range(from..to) {
            let len = ((start + r.len as u64).min(to) - start) as u32;
            out.push((start, Run::new(r.zone, r.block, len)));
        }
        out
    }

    /// Every run: (file block, run).
    pub fn iter(&self) -> impl Iterator<Item = (u64, Run)> + '_ {
        self.runs.iter().map(|(&k, &r)| (k, r))
    }

    /// Takes every run out (delete).
    pub fn clear(&mut self, old: &mut Vec<Run>) {
        old.extend(self.runs.values().copied());
        self.runs.clear();
        self.blocks = 0;
    }
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

    #[test]
    fn random_sets_agree_with_a_dense_array() {
        let mut m = BlockMap::default();
        let mut d: Vec<Option<(u32, u32)>> = vec![None; 64];
        let mut x: u64 = 12345;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut live = 0u64;
        for step in 0..2000u32 {
            let fb = next() % 60;
            let len = (next() % 4 + 1).min(64 - fb);
            let zone = (next() % 3) as u32;
            let block = (next() % 1000) as u32;
            let mut old = Vec::new();
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
            assert_eq!(dense(&m, 64), d, "step {step}");
            live = d.iter().filter(|x| x.is_some()).count() as u64;
            assert_eq!(m.blocks(), live);
            let covered: u64 = m.runs_in(0, 64).iter().map(|r| r.1.len as u64).sum();
            assert_eq!(covered, live);
        }
        assert!(live > 0);
    }
}
