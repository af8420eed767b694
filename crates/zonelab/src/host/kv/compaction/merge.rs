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
