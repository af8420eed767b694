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

mod merge;
mod picker;

pub use merge::{MergeOutput, flush_entries, merge};
pub use picker::Picker;

use std::rc::Rc;

use super::sst::Table;

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
