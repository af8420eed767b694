//! Leveled compaction as RocksDB 7.8.3 picks and runs it (db/compaction/
//! compaction_picker_level.cc, compaction_picker.cc, compaction.cc, compaction_outputs.cc):
//!
//! - the level with the highest score >= 1 goes first (L0: files over the trigger, or bytes
//!   over L1's target; Ln: bytes over its target); an L0 -> L1 compaction that cannot run
//!   (another L0 compaction is running) lets L1 wait and may compact within L0 instead;
//! - in a level, files are tried in `kMinOverlappingRatio` order: overlapping bytes in the
//!   next level x 1024 / file size, smallest first, ties by smallest key;
//! - an L0 pick takes every L0 file overlapping it; the output level's overlapping files join,
//!   and the input level grows if that takes in no more output files (`SetupOtherInputs`);
//! - trivial moves: a pick with nothing below it moves by a MANIFEST edit alone, extended to
//!   up to four adjacent files (`TryExtendNonL0TrivialMove`); from L0, the oldest files that
//!   overlap neither each other nor L1 (`TryPickL0TrivialMove`);
//! - outputs are cut at the target file size and, with `level_compaction_dynamic_file_size`,
//!   at grandparent boundaries (`CompactionOutputs::ShouldStopBefore`).
//!
//! The merge keeps the newest version of each key and drops deletions when nothing below the
//! output level can hold the key.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::rc::Rc;

use super::format::{KeyFormat, TOMBSTONE};
use super::options::KvOptions;
use super::sst::{Entry, Table, TableBuilder};
use super::version::Version;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// L0 file count (or size) over the trigger (RocksDB `kLevelL0FilesNum`).
    L0FilesNum,
    /// A level over its target size (`kLevelMaxLevelSize`).
    MaxLevelSize,
}

#[derive(Clone, Debug)]
pub struct Compaction {
    pub start_level: usize,
    pub output_level: usize,
    pub inputs: Vec<Rc<Table>>,
    pub output_inputs: Vec<Rc<Table>>,
    pub grandparents: Vec<Rc<Table>>,
    pub trivial_move: bool,
    pub reason: Reason,
    pub smallest: u64,
    pub largest: u64,
}

impl Compaction {
    pub fn all_inputs(&self) -> impl Iterator<Item = &Rc<Table>> {
        self.inputs.iter().chain(&self.output_inputs)
    }

    pub fn input_bytes(&self) -> u64 {
        self.all_inputs().map(|t| t.file_size()).sum()
    }
}

/// A compaction in progress, as the picker must see it.
#[derive(Clone, Copy, Debug)]
pub struct Running {
    pub start_level: usize,
    pub output_level: usize,
    pub smallest: u64,
    pub largest: u64,
}

fn range(files: &[Rc<Table>]) -> (u64, u64) {
    let lo = files.iter().map(|f| f.smallest).min().unwrap_or(0);
    let hi = files.iter().map(|f| f.largest).max().unwrap_or(0);
    (lo, hi)
}

fn total(files: &[Rc<Table>]) -> u64 {
    files.iter().map(|f| f.file_size()).sum()
}

fn compacting(files: &[Rc<Table>]) -> bool {
    files.iter().any(|f| f.being_compacted.get())
}

pub struct Picker<'a> {
    pub v: &'a Version,
    pub opts: &'a KvOptions,
    pub running: &'a [Running],
}

struct Initial {
    start: usize,
    output: usize,
    inputs: Vec<Rc<Table>>,
    l0_trivial: bool,
    reason: Reason,
}

impl Picker<'_> {
    fn l0_in_progress(&self) -> bool {
        self.running.iter().any(|r| r.start_level == 0)
    }

    fn overlaps_running(&self, lo: u64, hi: u64, level: usize) -> bool {
        self.running
            .iter()
            .any(|r| r.output_level == level && lo <= r.largest && hi >= r.smallest)
    }

    /// Whether any level needs compacting.
    pub fn needs_compaction(&self) -> bool {
        self.v.scores(self.opts).first().is_some_and(|s| s.1 >= 1.0)
    }

    pub fn pick(&self) -> Option<Compaction> {
        let v = self.v;
        let mut chosen = None;
        let mut skipped_l0 = false;
        for (level, score) in v.scores(self.opts) {
            if score < 1.0 {
                break;
            }
            if skipped_l0 && level == 1 {
                continue;
            }
            let reason = if level == 0 {
                Reason::L0FilesNum
            } else {
                Reason::MaxLevelSize
            };
            if let Some((inputs, l0_trivial)) = self.pick_file(level, level + 1) {
                chosen = Some(Initial {
                    start: level,
                    output: level + 1,
                    inputs,
                    l0_trivial,
                    reason,
                });
                break;
            }
            if level == 0 {
                skipped_l0 = true;
                if let Some(inputs) = self.pick_intra_l0() {
                    chosen = Some(Initial {
                        start: 0,
                        output: 0,
                        inputs,
                        l0_trivial: false,
                        reason,
                    });
                    break;
                }
            }
        }
        let Initial {
            start,
            output,
            mut inputs,
            l0_trivial,
            reason,
        } = chosen?;
        // SetupOtherL0FilesIfNeeded.
        if start == 0 && output != 0 && !l0_trivial {
            let (lo, hi) = range(&inputs);
            inputs = v.overlapping(0, lo, hi);
            let (lo, hi) = range(&inputs);
            if compacting(&v.overlapping(output, lo, hi)) {
                return None;
            }
        }
        let mut output_inputs = Vec::new();
        let mut grandparents = Vec::new();
        if output != 0 && !l0_trivial {
            let (lo, hi) = range(&inputs);
            output_inputs = v.overlapping(output, lo, hi);
            if compacting(&output_inputs) {
                return None;
            }
            if !output_inputs.is_empty() {
                self.expand_inputs(start, output, &mut inputs, &output_inputs);
            }
            let mut all = inputs.clone();
            all.extend(output_inputs.iter().cloned());
            let (lo, hi) = range(&all);
            if self.overlaps_running(lo, hi, output) {
                return None;
            }
            for level in output + 1..v.num_levels() {
                grandparents = v.overlapping(level, lo, hi);
                if !grandparents.is_empty() {
                    break;
                }
            }
        }
        let mut all = inputs.clone();
        all.extend(output_inputs.iter().cloned());
        let (smallest, largest) = range(&all);
        let trivial_move =
            l0_trivial || self.is_trivial_move(start, output, &inputs, output_inputs.is_empty());
        Some(Compaction {
            start_level: start,
            output_level: output,
            inputs,
            output_inputs,
            grandparents,
            trivial_move,
            reason,
            smallest,
            largest,
        })
    }

    /// `SetupOtherInputs`: grow the input level within the range the output files cover, if
    /// that adds no output file and stays under max_compaction_bytes.
    fn expand_inputs(
        &self,
        start: usize,
        output: usize,
        inputs: &mut Vec<Rc<Table>>,
        output_inputs: &[Rc<Table>],
    ) {
        let v = self.v;
        let limit = self.opts.max_compaction();
        let out_size = total(output_inputs);
        let mut all = inputs.clone();
        all.extend(output_inputs.iter().cloned());
        let (lo, hi) = range(&all);
        let expanded = v.overlapping(start, lo, hi);
        let mut expand = None;
        if expanded.len() > inputs.len()
            && out_size + total(&expanded) < limit
            && !compacting(&expanded)
        {
            let (nlo, nhi) = range(&expanded);
            let out2 = v.overlapping(output, nlo, nhi);
            if !compacting(&out2) && out2.len() == output_inputs.len() {
                expand = Some(expanded);
            }
        }
        if expand.is_none() {
            let clean = v.within(start, lo, hi);
            if clean.len() > inputs.len() && out_size + total(&clean) < limit && !compacting(&clean)
            {
                expand = Some(clean);
            }
        }
        if let Some(e) = expand {
            *inputs = e;
        }
    }

    fn is_trivial_move(
        &self,
        start: usize,
        output: usize,
        inputs: &[Rc<Table>],
        one_input_level: bool,
    ) -> bool {
        if start == output || !one_input_level {
            return false;
        }
        if start == 0 && !self.l0_non_overlapping() {
            return false;
        }
        if self.opts.level_compression(start) != self.opts.level_compression(output) {
            return false;
        }
        if output + 1 < self.v.num_levels() {
            let limit = self.opts.max_compaction();
            for f in inputs {
                let gp = total(&self.v.overlapping(output + 1, f.smallest, f.largest));
                if f.file_size() + gp > limit {
                    return false;
                }
            }
        }
        true
    }

    fn l0_non_overlapping(&self) -> bool {
        let mut files: Vec<&Rc<Table>> = self.v.levels[0].iter().collect();
        files.sort_by_key(|f| f.smallest);
        files.windows(2).all(|w| w[0].largest < w[1].smallest)
    }

    /// `PickFileToCompact`: the first file in compaction-priority order that can go. Returns
    /// the inputs and whether they are an L0 trivial move.
    fn pick_file(&self, level: usize, output: usize) -> Option<(Vec<Rc<Table>>, bool)> {
        if level == 0 && self.l0_in_progress() {
            return None;
        }
        if level == 0
            && let Some(files) = self.try_l0_trivial_move(output)
        {
            return Some((files, true));
        }
        let files = &self.v.levels[level];
        for idx in self.by_compaction_pri(level) {
            let f = &files[idx];
            if f.being_compacted.get() {
                continue;
            }
            if self.overlaps_running(f.smallest, f.largest, output) {
                continue;
            }
            let below = self.v.overlapping(output, f.smallest, f.largest);
            if below.is_empty() {
                if level > 0
                    && let Some(ext) = self.try_extend_trivial_move(level, output, idx)
                {
                    return Some((ext, false));
                }
            } else if compacting(&below) {
                continue;
            }
            return Some((vec![f.clone()], false));
        }
        None
    }

    /// Files of `level` in kMinOverlappingRatio order (version_set.cc
    /// `SortFileByOverlappingRatio`).
    fn by_compaction_pri(&self, level: usize) -> Vec<usize> {
        let files = &self.v.levels[level];
        let mut order: Vec<(u64, u64, usize)> = files
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let overlap = if level + 1 < self.v.num_levels() {
                    let (a, b) = self.v.overlap_span(level + 1, f.smallest, f.largest);
                    total(&self.v.levels[level + 1][a..b])
                } else {
                    0
                };
                (overlap * 1024 / f.file_size().max(1), f.smallest, i)
            })
            .collect();
        order.sort_unstable();
        order.into_iter().map(|(_, _, i)| i).collect()
    }

    /// `TryPickL0TrivialMove`: the oldest L0 files, as long as they overlap neither each other
    /// nor the output level (which must hold files).
    fn try_l0_trivial_move(&self, output: usize) -> Option<Vec<Rc<Table>>> {
        if !self.opts.compression_per_level.is_empty() || self.v.levels[output].is_empty() {
            return None;
        }
        let mut picked = Vec::new();
        let (mut lo, mut hi) = (0, 0);
        for (n, f) in self.v.levels[0].iter().rev().enumerate() {
            if n == 0 {
                (lo, hi) = (f.smallest, f.largest);
            } else if f.largest < lo {
                lo = f.smallest;
            } else if f.smallest > hi {
                hi = f.largest;
            } else {
                break;
            }
            if self.v.overlapping(output, lo, hi).is_empty() {
                picked.push(f.clone());
            } else {
                break;
            }
        }
        if picked.is_empty() {
            return None;
        }
        picked.sort_by_key(|f| f.smallest);
        Some(picked)
    }

    /// `TryExtendNonL0TrivialMove`: up to four adjacent files with nothing below them.
    fn try_extend_trivial_move(
        &self,
        level: usize,
        output: usize,
        start: usize,
    ) -> Option<Vec<Rc<Table>>> {
        if !self.opts.compression_per_level.is_empty() {
            return None;
        }
        const MAX_MULTI_TRIVIAL_MOVE: usize = 4;
        let files = &self.v.levels[level];
        let first = &files[start];
        let mut picked = vec![first.clone()];
        let mut size = first.file_size();
        for next in &files[start + 1..] {
            if picked.len() >= MAX_MULTI_TRIVIAL_MOVE || next.being_compacted.get() {
                break;
            }
            if !self
                .v
                .overlapping(output, first.smallest, next.largest)
                .is_empty()
            {
                break;
            }
            size += next.file_size();
            if size > self.opts.max_compaction() {
                break;
            }
            picked.push(next.clone());
        }
        (picked.len() > 1).then_some(picked)
    }

    /// `PickIntraL0Compaction` / `FindIntraL0Compaction`: when L0 -> L1 cannot run and L0 holds
    /// at least trigger + 2 files, merge the newest span of L0 files whose cost per file
    /// removed keeps falling.
    fn pick_intra_l0(&self) -> Option<Vec<Rc<Table>>> {
        let files = &self.v.levels[0];
        if files.len() < self.opts.level0_file_num_compaction_trigger as usize + 2
            || files[0].being_compacted.get()
        {
            return None;
        }
        const MIN_FILES: usize = 4;
        let mut bytes = files[0].file_size();
        let mut per_deleted = u64::MAX;
        let mut span = 1;
        while span < files.len() {
            let f = &files[span];
            if f.being_compacted.get() {
                break;
            }
            bytes += f.file_size();
            let new_per = bytes / span as u64;
            if new_per > per_deleted || bytes > self.opts.max_compaction() {
                break;
            }
            per_deleted = new_per;
            span += 1;
        }
        (span >= MIN_FILES).then(|| files[..span].to_vec())
    }
}

/// What a compaction (or flush) produced.
pub struct MergeOutput {
    pub tables: Vec<TableBuilder>,
    pub input_entries: u64,
    pub output_entries: u64,
}

/// Grandparent boundary tracking for output cuts (compaction_outputs.cc).
struct Cutter<'a> {
    gp: &'a [Rc<Table>],
    index: usize,
    in_gap: bool,
    seen_key: bool,
    overlapped: u64,
    switched: u64,
}

impl Cutter<'_> {
    fn update(&mut self, key: u64) -> u64 {
        let mut crossed = 0;
        while self.index < self.gp.len() {
            let g = &self.gp[self.index];
            if self.in_gap {
                if key < g.smallest {
                    break;
                }
                if self.seen_key {
                    crossed += 1;
                    self.overlapped += g.file_size();
                    self.switched += 1;
                }
                self.in_gap = false;
            } else {
                if key <= g.largest {
                    break;
                }
                if self.seen_key {
                    crossed += 1;
                    self.switched += 1;
                }
                self.in_gap = true;
                self.index += 1;
            }
        }
        if !self.seen_key && !self.in_gap {
            self.overlapped = self.current_overlap();
        }
        self.seen_key = true;
        crossed
    }

    fn current_overlap(&self) -> u64 {
        if self.in_gap || self.index >= self.gp.len() {
            0
        } else {
            self.gp[self.index].file_size()
        }
    }
}

/// One sorted run of a merge: a table, or a sorted level's tables in key order.
struct Run<'a> {
    tables: Vec<&'a Table>,
    t: usize,
    e: usize,
}

impl Run<'_> {
    fn head(&self) -> Option<(u64, &Table, usize)> {
        let table = self.tables.get(self.t)?;
        Some((table.entries[self.e].key, table, self.e))
    }
    fn advance(&mut self) {
        self.e += 1;
        if self.e >= self.tables[self.t].entries.len() {
            self.t += 1;
            self.e = 0;
        }
    }
}

/// Runs the merge of compaction `c`: the output tables (unnamed builders) in key order.
pub fn merge(c: &Compaction, v: &Version, opts: &KvOptions, key: KeyFormat) -> MergeOutput {
    let mut runs: Vec<Run> = Vec::new();
    if c.start_level == 0 {
        // Newest first, as L0 is ordered.
        let mut l0: Vec<&Table> = c.inputs.iter().map(|t| &**t).collect();
        l0.sort_by_key(|t| Reverse(t.max_seq));
        for t in l0 {
            runs.push(Run {
                tables: vec![t],
                t: 0,
                e: 0,
            });
        }
    } else {
        let mut lv: Vec<&Table> = c.inputs.iter().map(|t| &**t).collect();
        lv.sort_by_key(|t| t.smallest);
        runs.push(Run {
            tables: lv,
            t: 0,
            e: 0,
        });
    }
    if !c.output_inputs.is_empty() {
        let mut lv: Vec<&Table> = c.output_inputs.iter().map(|t| &**t).collect();
        lv.sort_by_key(|t| t.smallest);
        runs.push(Run {
            tables: lv,
            t: 0,
            e: 0,
        });
    }
    // Deletions can go if no level below the output holds the range.
    let deeper_overlap = (c.output_level + 1..v.num_levels())
        .any(|l| !v.overlapping(l, c.smallest, c.largest).is_empty());
    let retain = opts.retain_values;
    let target = opts.target_file_size(c.output_level);
    // Above the bottommost level, with grandparent cuts on, a file may grow to twice the
    // target before it must be cut (compaction.cc: "It could be 2x the size of the target").
    let max_output =
        if !deeper_overlap || c.grandparents.is_empty() || !opts.level_compaction_dynamic_file_size
        {
            target
        } else {
            2 * target
        };
    let max_compaction = opts.max_compaction();
    let mut cutter = Cutter {
        gp: &c.grandparents,
        index: 0,
        in_gap: true,
        seen_key: false,
        overlapped: 0,
        switched: 0,
    };
    let mut heap: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
    for (i, r) in runs.iter().enumerate() {
        if let Some((k, _, _)) = r.head() {
            heap.push(Reverse((k, i)));
        }
    }
    let mut out = MergeOutput {
        tables: Vec::new(),
        input_entries: 0,
        output_entries: 0,
    };
    let mut builder: Option<TableBuilder> = None;
    while let Some(Reverse((k, i))) = heap.pop() {
        let (_, table, e) = runs[i].head().expect("a run in the heap has a head");
        let entry = table.entries[e];
        let payload = if retain { table.payload(e) } else { None };
        let (seq_lo, seq_hi) = (table.min_seq, table.max_seq);
        out.input_entries += 1;
        runs[i].advance();
        if let Some((nk, _, _)) = runs[i].head() {
            heap.push(Reverse((nk, i)));
        }
        // Older versions of the same key.
        while let Some(&Reverse((k2, j))) = heap.peek() {
            if k2 != k {
                break;
            }
            heap.pop();
            out.input_entries += 1;
            runs[j].advance();
            if let Some((nk, _, _)) = runs[j].head() {
                heap.push(Reverse((nk, j)));
            }
        }
        if entry.vlen == TOMBSTONE
            && c.output_level > 0
            && (!deeper_overlap
                || !(c.output_level + 1..v.num_levels()).any(|l| v.file_for(l, k).is_some()))
        {
            continue;
        }
        // ShouldStopBefore.
        let prev = cutter.overlapped;
        let crossed = cutter.update(k);
        if let Some(b) = &builder
            && !b.is_empty()
            && c.output_level > 0
        {
            let size = b.file_size();
            let mut stop = size >= max_output;
            if !stop && crossed > 0 {
                if cutter.overlapped + size > max_compaction {
                    stop = true;
                } else if opts.level_compaction_dynamic_file_size {
                    let skippable = if cutter.in_gap { 2 } else { 3 };
                    stop = (crossed >= skippable && cutter.overlapped - prev > target / 8)
                        || size >= target.div_ceil(100) * (50 + (cutter.switched * 5).min(40));
                }
            }
            if stop {
                out.tables.push(builder.take().expect("open output"));
                cutter.switched = 0;
                cutter.overlapped = cutter.current_overlap();
            }
        }
        let b = builder.get_or_insert_with(|| TableBuilder::new(opts, key, c.output_level, retain));
        b.add(entry, payload, seq_lo, seq_hi);
        out.output_entries += 1;
    }
    if let Some(b) = builder
        && !b.is_empty()
    {
        out.tables.push(b);
    }
    out
}

/// Merges memtable contents (newest first in `sources`) into one L0 table.
pub fn flush_entries(
    sources: &[&super::memtable::Memtable],
    opts: &KvOptions,
    key: KeyFormat,
) -> Option<TableBuilder> {
    let retain = opts.retain_values;
    let mut b = TableBuilder::new(opts, key, 0, retain);
    if sources.len() == 1 {
        for (&k, ver) in &sources[0].map {
            b.add(
                Entry {
                    key: k,
                    vlen: ver.vlen,
                },
                ver.payload.clone(),
                ver.seq,
                ver.seq,
            );
        }
    } else {
        let mut merged: std::collections::BTreeMap<u64, &super::memtable::Version> =
            std::collections::BTreeMap::new();
        for m in sources.iter().rev() {
            for (&k, ver) in &m.map {
                merged.insert(k, ver);
            }
        }
        for (k, ver) in merged {
            b.add(
                Entry {
                    key: k,
                    vlen: ver.vlen,
                },
                ver.payload.clone(),
                ver.seq,
                ver.seq,
            );
        }
    }
    (!b.is_empty()).then_some(b)
}
