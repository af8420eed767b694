//! SST files: the sorted entries a flush or compaction wrote, where each data block starts,
//! and the sizes RocksDB's block-based table would have (format.rs). A table is immutable
//! once built; gets find a key's block by binary search, as RocksDB's index does.

use std::cell::Cell;

use super::files::FileHandle;
use super::format::{KeyFormat, SstSizer, SstSizes};
use super::memtable::Payload;
use super::options::KvOptions;

/// One key's newest version in a table: its id and value length ([`super::format::TOMBSTONE`]
/// for a deletion).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub key: u64,
    pub vlen: u32,
}

#[derive(Debug)]
pub struct Table {
    pub number: u64,
    pub path: String,
    /// Level the table was written for (its lifetime hint).
    pub written_level: usize,
    pub entries: Vec<Entry>,
    /// With data retention: each entry's value.
    pub payloads: Option<Vec<Option<Payload>>>,
    /// First entry of each data block.
    pub block_first: Vec<u32>,
    /// First key of each data block (the index a get searches first, as RocksDB's index block
    /// leads to one data block: small, so the search stays in the CPU caches).
    pub block_keys: Vec<u64>,
    /// Offset of each data block, and the end of the data as the last element.
    pub block_offset: Vec<u64>,
    pub sizes: SstSizes,
    pub smallest: u64,
    pub largest: u64,
    pub min_seq: u64,
    pub max_seq: u64,
    pub being_compacted: Cell<bool>,
    /// The handle a table reader reads through, once the file is opened.
    pub reader: Cell<Option<FileHandle>>,
}

impl Table {
    pub fn file_size(&self) -> u64 {
        self.sizes.file
    }

    pub fn blocks(&self) -> usize {
        self.block_first.len()
    }

    /// Index, filter, properties and footer: what opening a table reader reads.
    pub fn tail_bytes(&self) -> u64 {
        self.sizes.file - self.sizes.data
    }

    pub fn overlaps(&self, lo: u64, hi: u64) -> bool {
        self.smallest <= hi && self.largest >= lo
    }

    pub fn covers(&self, key: u64) -> bool {
        self.smallest <= key && key <= self.largest
    }

    /// The data block that would hold `key` (the last whose first key is at most `key`), and
    /// the entry of `key` or where it would be.
    pub fn locate(&self, key: u64) -> (usize, Result<usize, usize>) {
        let b = self
            .block_keys
            .partition_point(|&k| k <= key)
            .saturating_sub(1);
        let lo = self.block_first[b] as usize;
        let hi = self
            .block_first
            .get(b + 1)
            .map_or(self.entries.len(), |&f| f as usize);
        let r = match self.entries[lo..hi].binary_search_by_key(&key, |e| e.key) {
            Ok(i) => Ok(lo + i),
            Err(i) => Err(lo + i),
        };
        (b, r)
    }

    /// The entry of `key`, or where it would be.
    pub fn find(&self, key: u64) -> Result<usize, usize> {
        self.locate(key).1
    }

    /// The data block holding entry position `idx`.
    pub fn block_of(&self, idx: usize) -> usize {
        let idx = idx.min(self.entries.len() - 1) as u32;
        self.block_first.partition_point(|&f| f <= idx) - 1
    }

    /// (offset, length) of data block `b`.
    pub fn block_range(&self, b: usize) -> (u64, u64) {
        (
            self.block_offset[b],
            self.block_offset[b + 1] - self.block_offset[b],
        )
    }

    pub fn payload(&self, idx: usize) -> Option<Payload> {
        self.payloads.as_ref().and_then(|p| p[idx].clone())
    }
}

/// Builds one table entry by entry, in key order.
pub struct TableBuilder {
    sizer: SstSizer,
    entries: Vec<Entry>,
    payloads: Option<Vec<Option<Payload>>>,
    block_first: Vec<u32>,
    block_keys: Vec<u64>,
    block_offset: Vec<u64>,
    min_seq: u64,
    max_seq: u64,
}

impl TableBuilder {
    pub fn new(opts: &KvOptions, key: KeyFormat, level: usize, retain: bool) -> Self {
        let compression = opts.compresses(level).then_some(opts.compression_ratio);
        TableBuilder {
            sizer: SstSizer::new(
                key,
                opts.block_size,
                opts.block_restart_interval,
                compression,
                opts.bloom_bits,
            ),
            entries: Vec::new(),
            payloads: retain.then(Vec::new),
            block_first: vec![0],
            block_keys: Vec::new(),
            block_offset: vec![0],
            min_seq: u64::MAX,
            max_seq: 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// File bytes written so far (closed data blocks), as RocksDB's `FileSize()` counts them
    /// for cutting compaction outputs.
    pub fn file_size(&self) -> u64 {
        self.sizer.data_bytes
    }

    pub fn add(&mut self, e: Entry, payload: Option<Payload>, seq_lo: u64, seq_hi: u64) {
        if self.sizer.add(e.key, e.vlen) > 0 {
            self.block_first.push(self.entries.len() as u32);
            self.block_offset.push(self.sizer.data_bytes);
        }
        if self.block_keys.len() < self.block_first.len() {
            self.block_keys.push(e.key);
        }
        self.entries.push(e);
        if let Some(p) = &mut self.payloads {
            p.push(payload);
        }
        self.min_seq = self.min_seq.min(seq_lo);
        self.max_seq = self.max_seq.max(seq_hi);
    }

    pub fn finish(mut self, number: u64, path: String, level: usize) -> Table {
        assert!(!self.entries.is_empty(), "a table has at least one entry");
        let sizes = self.sizer.finish();
        self.block_offset.push(sizes.data);
        let smallest = self.entries[0].key;
        let largest = self.entries[self.entries.len() - 1].key;
        self.entries.shrink_to_fit();
        Table {
            number,
            path,
            written_level: level,
            entries: self.entries,
            payloads: self.payloads,
            block_first: self.block_first,
            block_keys: self.block_keys,
            block_offset: self.block_offset,
            sizes,
            smallest,
            largest,
            min_seq: self.min_seq,
            max_seq: self.max_seq,
            being_compacted: Cell::new(false),
            reader: Cell::new(None),
        }
    }
}
