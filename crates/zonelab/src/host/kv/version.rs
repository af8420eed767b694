//! The tree of SST files: L0 (overlapping files, newest first, as RocksDB orders them by
//! sequence number) and L1..Ln (files sorted by key, disjoint within a level). Overlap queries
//! and compaction scores follow RocksDB 7.8.3's db/version_set.cc.

use std::rc::Rc;

use super::options::KvOptions;
use super::sst::Table;

#[derive(Clone, Debug)]
pub struct Version {
    pub levels: Vec<Vec<Rc<Table>>>,
}

impl Version {
    pub fn new(num_levels: usize) -> Self {
        Version {
            levels: vec![Vec::new(); num_levels],
        }
    }

    pub fn num_levels(&self) -> usize {
        self.levels.len()
    }

    pub fn level_bytes(&self, level: usize) -> u64 {
        self.levels[level].iter().map(|t| t.file_size()).sum()
    }

    pub fn files_per_level(&self) -> Vec<usize> {
        self.levels.iter().map(Vec::len).collect()
    }

    pub fn bytes_per_level(&self) -> Vec<u64> {
        (0..self.levels.len())
            .map(|l| self.level_bytes(l))
            .collect()
    }

    /// Levels up to the last that holds a file.
    pub fn num_non_empty_levels(&self) -> usize {
        self.levels
            .iter()
            .rposition(|l| !l.is_empty())
            .map_or(0, |i| i + 1)
    }

    /// Adds a table to `level` in its place.
    pub fn add(&mut self, level: usize, t: Rc<Table>) {
        let files = &mut self.levels[level];
        if level == 0 {
            let at = files.partition_point(|f| f.max_seq > t.max_seq);
            files.insert(at, t);
        } else {
            let at = files.partition_point(|f| f.smallest < t.smallest);
            files.insert(at, t);
        }
    }

    /// Removes the table numbered `number` from `level`.
    pub fn remove(&mut self, level: usize, number: u64) -> Option<Rc<Table>> {
        let files = &mut self.levels[level];
        let i = files.iter().position(|f| f.number == number)?;
        Some(files.remove(i))
    }

    /// Files of `level` that overlap [lo, hi]. In L0 the range grows with every file taken,
    /// until no other file overlaps it (version_set.cc `GetOverlappingInputs`, expand_range).
    pub fn overlapping(&self, level: usize, lo: u64, hi: u64) -> Vec<Rc<Table>> {
        let files = &self.levels[level];
        if level > 0 {
            let (a, b) = self.overlap_span(level, lo, hi);
            return files[a..b].to_vec();
        }
        let (mut lo, mut hi) = (lo, hi);
        let mut taken = vec![false; files.len()];
        let mut out = Vec::new();
        loop {
            let mut found = false;
            for (i, f) in files.iter().enumerate() {
                if !taken[i] && f.overlaps(lo, hi) {
                    taken[i] = true;
                    found = true;
                    lo = lo.min(f.smallest);
                    hi = hi.max(f.largest);
                }
            }
            if !found {
                break;
            }
        }
        for (i, f) in files.iter().enumerate() {
            if taken[i] {
                out.push(f.clone());
            }
        }
        out
    }

    /// Index range of the files of a sorted level that overlap [lo, hi].
    pub fn overlap_span(&self, level: usize, lo: u64, hi: u64) -> (usize, usize) {
        let files = &self.levels[level];
        let a = files.partition_point(|f| f.largest < lo);
        let b = files.partition_point(|f| f.smallest <= hi);
        (a, b.max(a))
    }

    /// Files of a sorted level lying wholly inside [lo, hi] (`GetCleanInputsWithinInterval`;
    /// not for L0).
    pub fn within(&self, level: usize, lo: u64, hi: u64) -> Vec<Rc<Table>> {
        if level == 0 {
            return Vec::new();
        }
        self.levels[level]
            .iter()
            .filter(|f| f.smallest >= lo && f.largest <= hi)
            .cloned()
            .collect()
    }

    /// The file of sorted `level` whose range holds `key`.
    pub fn file_for(&self, level: usize, key: u64) -> Option<&Rc<Table>> {
        let files = &self.levels[level];
        let i = files.partition_point(|f| f.largest < key);
        files.get(i).filter(|f| f.smallest <= key)
    }

    /// Compaction score of every level that can be compacted (0..num_levels-1), highest
    /// first, ties in level order (version_set.cc `ComputeCompactionScore`, level style,
    /// `level_compaction_dynamic_level_bytes` false).
    pub fn scores(&self, opts: &KvOptions) -> Vec<(usize, f64)> {
        let mut out = Vec::with_capacity(self.levels.len());
        for level in 0..self.levels.len() - 1 {
            let score = if level == 0 {
                let (mut n, mut bytes) = (0u64, 0u64);
                for f in self.levels[0].iter().filter(|f| !f.being_compacted.get()) {
                    n += 1;
                    bytes += f.file_size();
                }
                let by_files = n as f64 / opts.level0_file_num_compaction_trigger as f64;
                by_files.max(bytes as f64 / opts.max_bytes_for_level_base as f64)
            } else {
                let bytes: u64 = self.levels[level]
                    .iter()
                    .filter(|f| !f.being_compacted.get())
                    .map(|f| f.file_size())
                    .sum();
                bytes as f64 / opts.max_bytes_for_level(level) as f64
            };
            out.push((level, score));
        }
        out.sort_by(|a, b| b.1.total_cmp(&a.1));
        out
    }

    /// Compaction debt (version_set.cc `EstimateCompactionBytesNeeded`).
    pub fn estimated_compaction_bytes(&self, opts: &KvOptions) -> u64 {
        let n = self.levels.len();
        let mut needed = 0u64;
        let l0 = self.level_bytes(0);
        let mut to_next = 0u64;
        let l0_triggered = self.levels[0].len() as u64
            >= opts.level0_file_num_compaction_trigger as u64
            || l0 >= opts.max_bytes_for_level_base;
        if l0_triggered {
            needed = l0;
            to_next = l0;
        }
        for level in 1..n - 1 {
            let mut size = self.level_bytes(level);
            if level == 1 && l0_triggered {
                needed += size;
            }
            size += to_next;
            to_next = 0;
            let target = opts.max_bytes_for_level(level);
            if size > target {
                to_next = size - target;
                let next = self.level_bytes(level + 1);
                if next > 0 {
                    let ratio = next as f64 / size as f64 + 1.0;
                    needed = needed.saturating_add((to_next as f64 * ratio) as u64);
                }
            }
        }
        needed
    }

    /// Every level above L0 sorted and disjoint; L0 ordered newest first.
    pub fn check(&self) -> Result<(), String> {
        for w in self.levels[0].windows(2) {
            if w[0].max_seq < w[1].max_seq {
                return Err(format!(
                    "L0 files {} and {} out of order",
                    w[0].number, w[1].number
                ));
            }
        }
        for (l, files) in self.levels.iter().enumerate().skip(1) {
            for w in files.windows(2) {
                if w[0].largest >= w[1].smallest {
                    return Err(format!(
                        "L{l}: files {} [{}, {}] and {} [{}, {}] overlap",
                        w[0].number,
                        w[0].smallest,
                        w[0].largest,
                        w[1].number,
                        w[1].smallest,
                        w[1].largest
                    ));
                }
            }
        }
        Ok(())
    }
}
