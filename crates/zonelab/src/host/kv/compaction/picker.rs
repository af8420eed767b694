//! Picking a compaction: which level and files go next, and the trivial moves (RocksDB's
//! compaction_picker_level.cc and compaction_picker.cc).

use std::rc::Rc;

use super::{Compaction, Reason, Running, compacting, range, total};
use crate::host::kv::options::KvOptions;
use crate::host::kv::sst::Table;
use crate::host::kv::version::Version;

/// Some of a level's files.
type Files = Vec<Rc<Table>>;

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
        let chosen = self.pick_initial();
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
        let (output_inputs, grandparents) = if output != 0 && !l0_trivial {
            self.setup_other_inputs(start, output, &mut inputs)?
        } else {
            (Vec::new(), Vec::new())
        };
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

    /// The level and first files to compact: the highest-scoring level with a file to pick
    /// (compaction_picker_level.cc, SetupInitialFiles), or an intra-L0 compaction when L0
    /// cannot go to L1.
    fn pick_initial(&self) -> Option<Initial> {
        let mut chosen = None;
        let mut skipped_l0 = false;
        for (level, score) in self.v.scores(self.opts) {
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
        chosen
    }

    /// The output level's overlapping files and the grandparents for a compaction from `start`
    /// to `output` (after growing `inputs` within them); None if a file it needs is being
    /// compacted or the range overlaps a running compaction into `output`.
    fn setup_other_inputs(
        &self,
        start: usize,
        output: usize,
        inputs: &mut Vec<Rc<Table>>,
    ) -> Option<(Files, Files)> {
        let v = self.v;
        let (lo, hi) = range(inputs);
        let output_inputs = v.overlapping(output, lo, hi);
        if compacting(&output_inputs) {
            return None;
        }
        if !output_inputs.is_empty() {
            self.expand_inputs(start, output, inputs, &output_inputs);
        }
        let mut all = inputs.clone();
        all.extend(output_inputs.iter().cloned());
        let (lo, hi) = range(&all);
        if self.overlaps_running(lo, hi, output) {
            return None;
        }
        let mut grandparents = Vec::new();
        for level in output + 1..v.num_levels() {
            grandparents = v.overlapping(level, lo, hi);
            if !grandparents.is_empty() {
                break;
            }
        }
        Some((output_inputs, grandparents))
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
