//! Running a compaction or a flush: the merge of its inputs, newest version of each key first,
//! cut into output tables at the target size and grandparent boundaries
//! (compaction_outputs.cc).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::rc::Rc;

use super::Compaction;
use crate::host::kv::format::{KeyFormat, TOMBSTONE};
use crate::host::kv::options::KvOptions;
use crate::host::kv::sst::{Entry, Table, TableBuilder};
use crate::host::kv::version::Version;

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

impl<'a> Cutter<'a> {
    fn new(gp: &'a [Rc<Table>]) -> Self {
        Cutter {
            gp,
            index: 0,
            in_gap: true,
            seen_key: false,
            overlapped: 0,
            switched: 0,
        }
    }

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

/// The sorted runs of compaction `c`'s inputs, newest first: each L0 table (newest first, as L0
/// is ordered) or the start level's tables, then the output level's.
fn input_runs(c: &Compaction) -> Vec<Run<'_>> {
    let mut runs: Vec<Run> = Vec::new();
    if c.start_level == 0 {
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
        runs.push(sorted_run(&c.inputs));
    }
    if !c.output_inputs.is_empty() {
        runs.push(sorted_run(&c.output_inputs));
    }
    runs
}

/// A level's tables as one run, in key order.
fn sorted_run(tables: &[Rc<Table>]) -> Run<'_> {
    let mut lv: Vec<&Table> = tables.iter().map(|t| &**t).collect();
    lv.sort_by_key(|t| t.smallest);
    Run {
        tables: lv,
        t: 0,
        e: 0,
    }
}

/// The sizes at which an output table is cut (compaction_outputs.cc, ShouldStopBefore).
struct CutSizes {
    target: u64,
    /// Above the bottommost level, with grandparent cuts on, a file may grow to twice the
    /// target before it must be cut (compaction.cc: "It could be 2x the size of the target").
    max_output: u64,
    max_compaction: u64,
    dynamic: bool,
}

impl CutSizes {
    /// Whether an output table of `size` bytes ends before the key that crossed `crossed`
    /// grandparent boundaries, moving the overlap from `prev` to `cutter.overlapped`.
    fn stop_before(&self, cutter: &Cutter, size: u64, crossed: u64, prev: u64) -> bool {
        let mut stop = size >= self.max_output;
        if !stop && crossed > 0 {
            if cutter.overlapped + size > self.max_compaction {
                stop = true;
            } else if self.dynamic {
                let skippable = if cutter.in_gap { 2 } else { 3 };
                stop = (crossed >= skippable && cutter.overlapped - prev > self.target / 8)
                    || size >= self.target.div_ceil(100) * (50 + (cutter.switched * 5).min(40));
            }
        }
        stop
    }
}

/// Runs the merge of compaction `c`: the output tables (unnamed builders) in key order.
pub fn merge(c: &Compaction, v: &Version, opts: &KvOptions, key: KeyFormat) -> MergeOutput {
    let mut runs = input_runs(c);
    // Deletions can go if no level below the output holds the range.
    let deeper_overlap = (c.output_level + 1..v.num_levels())
        .any(|l| !v.overlapping(l, c.smallest, c.largest).is_empty());
    let retain = opts.retain_values;
    let target = opts.target_file_size(c.output_level);
    let dynamic = opts.level_compaction_dynamic_file_size;
    let sizes = CutSizes {
        target,
        max_output: if !deeper_overlap || c.grandparents.is_empty() || !dynamic {
            target
        } else {
            2 * target
        },
        max_compaction: opts.max_compaction(),
        dynamic,
    };
    let mut cutter = Cutter::new(&c.grandparents);
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
        out.input_entries += 1 + skip_versions(&mut runs, &mut heap, i, k);
        if entry.vlen == TOMBSTONE
            && c.output_level > 0
            && (!deeper_overlap
                || !(c.output_level + 1..v.num_levels()).any(|l| v.file_for(l, k).is_some()))
        {
            continue;
        }
        let prev = cutter.overlapped;
        let crossed = cutter.update(k);
        if let Some(b) = &builder
            && !b.is_empty()
            && c.output_level > 0
            && sizes.stop_before(&cutter, b.file_size(), crossed, prev)
        {
            out.tables.push(builder.take().expect("open output"));
            cutter.switched = 0;
            cutter.overlapped = cutter.current_overlap();
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

/// Advances run `i` past key `k`, just taken from it, and every run holding an older version
/// of `k`; returns how many older versions were dropped.
fn skip_versions(
    runs: &mut [Run],
    heap: &mut BinaryHeap<Reverse<(u64, usize)>>,
    i: usize,
    k: u64,
) -> u64 {
    runs[i].advance();
    if let Some((nk, _, _)) = runs[i].head() {
        heap.push(Reverse((nk, i)));
    }
    let mut older = 0;
    while let Some(&Reverse((k2, j))) = heap.peek() {
        if k2 != k {
            break;
        }
        heap.pop();
        older += 1;
        runs[j].advance();
        if let Some((nk, _, _)) = runs[j].head() {
            heap.push(Reverse((nk, j)));
        }
    }
    older
}

/// Merges memtable contents (newest first in `sources`) into one L0 table.
pub fn flush_entries(
    sources: &[&crate::host::kv::memtable::Memtable],
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
        let mut merged: std::collections::BTreeMap<u64, &crate::host::kv::memtable::Version> =
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
