//! The memtable: the newest version of each key written since the last switch, with the
//! memory RocksDB's skip list would use for every version (memtable.cc). A flush writes the
//! newest version of each key, so keys put twice into one memtable are dropped there, as
//! db_bench's flushes show (1.4% of entries for fillrandom at the validation scale).

use std::collections::BTreeMap;
use std::rc::Rc;

use super::format::{KeyFormat, memtable_entry_bytes, memtable_full};

/// A value's bytes, kept only with data retention.
pub type Payload = Rc<[u8]>;

#[derive(Clone, Debug)]
pub struct Version {
    pub seq: u64,
    pub vlen: u32,
    pub payload: Option<Payload>,
}

#[derive(Debug)]
pub struct Memtable {
    /// Newest version per key.
    pub map: BTreeMap<u64, Version>,
    /// Versions inserted (every put counts).
    pub entries: u64,
    /// Bytes of encoded entries (RocksDB's `total_data_size` counts the encoding only).
    pub data_bytes: u64,
    /// Memory used, node overhead included.
    pub memory: u64,
    /// The WAL file holding its records.
    pub log_number: u64,
    /// Set once it is full (RocksDB's flush request): the next write switches it.
    pub full: bool,
    pub first_seq: u64,
    pub last_seq: u64,
}

impl Memtable {
    pub fn new(log_number: u64) -> Self {
        Memtable {
            map: BTreeMap::new(),
            entries: 0,
            data_bytes: 0,
            memory: 0,
            log_number,
            full: false,
            first_seq: 0,
            last_seq: 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// Inserts a version and updates the flush request.
    pub fn insert(
        &mut self,
        key: u64,
        v: Version,
        format: &KeyFormat,
        write_buffer_size: u64,
        arena_block: u64,
    ) {
        let bytes = memtable_entry_bytes(format, v.vlen);
        if self.entries == 0 {
            self.first_seq = v.seq;
        }
        self.last_seq = v.seq;
        self.entries += 1;
        self.data_bytes += bytes - super::format::MEMTABLE_ENTRY_OVERHEAD;
        self.memory += bytes;
        self.map.insert(key, v);
        if !self.full && memtable_full(self.memory, write_buffer_size, arena_block) {
            self.full = true;
        }
    }

    pub fn get(&self, key: u64) -> Option<&Version> {
        self.map.get(&key)
    }
}
