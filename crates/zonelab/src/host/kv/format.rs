//! Byte sizes of what RocksDB writes, computed from keys and value sizes: WAL records, memtable
//! entries, SST data, index and filter blocks. Sources: RocksDB v7.8.3 db/write_batch.cc,
//! db/log_writer.cc, db/memtable.cc, table/block_based/block_builder.cc and
//! block_based_table_builder.cc, and the sizes Debian's db_bench 7.8.3 wrote
//! (docs/rocksdb-reference.md, "Sizes of the SST files").
//!
//! Keys are 64-bit ids. A user key is `prefix_len` constant bytes (YCSB's "user"), then the
//! id's 8 bytes big-endian, padded to `key_size` (db_bench's `GenerateKeyFromInt`), so keys
//! sort as their ids and the prefix two neighbours share follows from the ids.

/// A value length that marks a deletion (a tombstone).
pub const TOMBSTONE: u32 = u32::MAX;

/// WAL log block (db/log_format.h `kBlockSize`).
pub const LOG_BLOCK: u64 = 32 * 1024;
/// WAL record fragment header: CRC 4, length 2, type 1 (`kHeaderSize`).
pub const LOG_HEADER: u64 = 7;
/// Write batch header: sequence 8, count 4 (write_batch.cc `WriteBatchInternal::kHeader`).
pub const BATCH_HEADER: u64 = 12;
/// Memtable bytes per entry beyond its encoding: skip-list node and arena alignment. Measured:
/// 145.1 B of memtable memory per 126-B entry (docs/rocksdb-reference.md, "Memtables").
pub const MEMTABLE_ENTRY_OVERHEAD: u64 = 19;
/// Block trailer: compression type 1, checksum 4 (`kBlockTrailerSize`).
pub const BLOCK_TRAILER: u64 = 5;
/// Properties, meta-index and footer of an SST file: ~972 B measured
/// (docs/rocksdb-reference.md).
pub const FILE_OVERHEAD: u64 = 972;
/// Bytes of an index entry besides its separator key: varints, the block handle (delta
/// encoded in format_version 5) and its restart point. Chosen so that dense 16-byte keys give
/// the 0.58 B of index per entry db_bench's flushes wrote (574,723 B for 986,023 entries in
/// 36 files): 13 + a 7-byte separator = 20 B per ~34-entry block.
pub const INDEX_ENTRY_OVERHEAD: u64 = 13;
/// RocksDB's block size deviation (`block_size_deviation` 10%).
const BLOCK_SIZE_DEVIATION_PCT: u64 = 10;

pub fn varint_len(v: u64) -> u64 {
    let bits = 64 - (v | 1).leading_zeros() as u64;
    bits.div_ceil(7)
}

/// The shape of user keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyFormat {
    pub key_size: u32,
    pub prefix_len: u32,
}

impl KeyFormat {
    /// Bytes two different keys share at the start.
    #[inline]
    pub fn shared(&self, a: u64, b: u64) -> u64 {
        let same = ((a ^ b).leading_zeros() / 8) as u64;
        (self.prefix_len as u64 + same).min(self.key_size as u64)
    }

    /// Internal key: user key + 8-byte (sequence, type).
    #[inline]
    pub fn internal_len(&self) -> u64 {
        self.key_size as u64 + 8
    }
}

/// Value bytes of an entry as written (a tombstone has none).
#[inline]
pub fn value_bytes(vlen: u32) -> u64 {
    if vlen == TOMBSTONE { 0 } else { vlen as u64 }
}

/// Logical WAL bytes of a one-operation write batch: header, type, key and value with their
/// varint lengths (131 B for a Put of 16 + 100 B, as db_bench's `wal.bytes` counted).
pub fn batch_bytes(key: &KeyFormat, vlen: u32) -> u64 {
    let k = key.key_size as u64;
    let mut b = BATCH_HEADER + 1 + varint_len(k) + k;
    if vlen != TOMBSTONE {
        b += varint_len(vlen as u64) + vlen as u64;
    }
    b
}

/// Memtable memory of an entry: varint, internal key, varint, value, plus node overhead
/// (126 + 19 B for 16 + 100 B).
pub fn memtable_entry_bytes(key: &KeyFormat, vlen: u32) -> u64 {
    let ik = key.internal_len();
    let v = value_bytes(vlen);
    varint_len(ik) + ik + varint_len(v) + v + MEMTABLE_ENTRY_OVERHEAD
}

/// Whether a memtable with `used` bytes should be switched (memtable.cc `ShouldFlushNow`:
/// arena blocks of `block` bytes, over-allocation ratio 0.6, last block 3/4 full).
pub fn memtable_full(used: u64, write_buffer_size: u64, block: u64) -> bool {
    let allocated = used.div_ceil(block) * block;
    let slack = block as f64 * 0.6;
    if ((allocated + block) as f64) < write_buffer_size as f64 + slack {
        return false;
    }
    if allocated as f64 > write_buffer_size as f64 + slack {
        return true;
    }
    allocated - used < block / 4
}

/// Builds a WAL file's physical size from its records: 32 KiB blocks, a 7-byte header per
/// fragment, block tails shorter than a header zero-filled (log_writer.cc `AddRecord`).
#[derive(Clone, Copy, Debug, Default)]
pub struct LogSize {
    /// Bytes used in the current block.
    pub block_offset: u64,
    pub file_bytes: u64,
}

impl LogSize {
    /// Adds a record of `len` bytes; returns the physical bytes it took.
    pub fn add(&mut self, mut len: u64) -> u64 {
        let before = self.file_bytes;
        loop {
            let left = LOG_BLOCK - self.block_offset;
            if left < LOG_HEADER {
                self.file_bytes += left;
                self.block_offset = 0;
                continue;
            }
            let room = left - LOG_HEADER;
            let frag = len.min(room);
            self.file_bytes += LOG_HEADER + frag;
            self.block_offset += LOG_HEADER + frag;
            len -= frag;
            if len == 0 {
                break;
            }
        }
        self.file_bytes - before
    }
}

/// Block and file sizes of an SST file as it is built, entry by entry, in key order.
#[derive(Clone, Debug)]
pub struct SstSizer {
    key: KeyFormat,
    block_size: u64,
    restart_interval: u32,
    compression: Option<f64>,
    bloom_bits: u32,
    /// The current data block: raw bytes of entries, entries since a restart, restarts.
    block_raw: u64,
    block_entries: u32,
    since_restart: u32,
    restarts: u64,
    prev_key: Option<u64>,
    /// Last key of the block closed last, waiting for the next key to form its separator.
    pending_index: Option<u64>,
    pub data_bytes: u64,
    pub index_bytes: u64,
    pub entries: u64,
    pub blocks: u64,
}

impl SstSizer {
    pub fn new(
        key: KeyFormat,
        block_size: u64,
        restart_interval: u32,
        compression: Option<f64>,
        bloom_bits: u32,
    ) -> Self {
        SstSizer {
            key,
            block_size,
            restart_interval,
            compression,
            bloom_bits,
            block_raw: 0,
            block_entries: 0,
            since_restart: 0,
            restarts: 0,
            prev_key: None,
            pending_index: None,
            data_bytes: 0,
            index_bytes: 0,
            entries: 0,
            blocks: 0,
        }
    }

    fn block_estimate(&self) -> u64 {
        self.block_raw + 4 * self.restarts + 4
    }

    /// Whether the current block is closed before adding an entry of `vlen` (block_based
    /// `FlushBlockBySizePolicy`: full, or the entry would overflow it and it is at least 90%
    /// full).
    pub fn block_full_before(&self, vlen: u32) -> bool {
        if self.block_entries == 0 {
            return false;
        }
        let cur = self.block_estimate();
        if cur >= self.block_size {
            return true;
        }
        let ik = self.key.internal_len();
        let v = value_bytes(vlen);
        let mut after = cur + ik + v + 4 + varint_len(ik) + varint_len(v);
        if self.since_restart >= self.restart_interval {
            after += 4;
        }
        after > self.block_size && cur >= self.block_size * (100 - BLOCK_SIZE_DEVIATION_PCT) / 100
    }

    /// Closes the current block; returns its size on disk (trailer included).
    pub fn finish_block(&mut self) -> u64 {
        if self.block_entries == 0 {
            return 0;
        }
        let raw = self.block_estimate();
        let stored = match self.compression {
            Some(r) => {
                let c = (raw as f64 * r).ceil() as u64;
                if c < raw - raw / 8 { c } else { raw }
            }
            None => raw,
        };
        let on_disk = stored + BLOCK_TRAILER;
        self.data_bytes += on_disk;
        self.blocks += 1;
        self.block_raw = 0;
        self.block_entries = 0;
        self.since_restart = 0;
        self.restarts = 0;
        self.pending_index = self.prev_key;
        on_disk
    }

    /// Adds an entry (keys strictly increasing). Returns the on-disk size of a block it
    /// closed first, if any.
    pub fn add(&mut self, key: u64, vlen: u32) -> u64 {
        let mut closed = 0;
        if self.block_full_before(vlen) {
            closed = self.finish_block();
        }
        if let Some(last) = self.pending_index.take() {
            // Separator between the closed block's last key and this one: their shared
            // prefix and one byte.
            let sep = (self.key.shared(last, key) + 1).min(self.key.key_size as u64);
            self.index_bytes += INDEX_ENTRY_OVERHEAD + sep;
        }
        let ik = self.key.internal_len();
        let restart = self.since_restart == 0 || self.since_restart >= self.restart_interval;
        let shared = match (restart, self.prev_key) {
            (false, Some(p)) => self.key.shared(p, key),
            _ => 0,
        };
        if restart {
            self.restarts += 1;
            self.since_restart = 0;
        }
        let v = value_bytes(vlen);
        let non_shared = ik - shared;
        self.block_raw +=
            varint_len(shared) + varint_len(non_shared) + varint_len(v) + non_shared + v;
        self.since_restart += 1;
        self.block_entries += 1;
        self.entries += 1;
        self.prev_key = Some(key);
        closed
    }

    /// File bytes so far (closed blocks plus the open one), as a compaction's output cut sees
    /// them.
    pub fn estimated_file_size(&self) -> u64 {
        self.data_bytes + self.block_raw
    }

    fn filter_bytes(&self) -> u64 {
        if self.bloom_bits == 0 || self.entries == 0 {
            return 0;
        }
        // FastLocalBloom: whole 64-byte cache lines, 5 bytes of metadata, a block trailer.
        let bits = self.entries * self.bloom_bits as u64;
        bits.div_ceil(512) * 64 + 5 + BLOCK_TRAILER
    }

    /// Closes the last block and the file: (data, index, filter, total) bytes.
    pub fn finish(&mut self) -> SstSizes {
        self.finish_block();
        if self.pending_index.take().is_some() {
            // The last block's separator: the shortest successor of its last key.
            self.index_bytes += INDEX_ENTRY_OVERHEAD + 1;
        }
        let index = self.index_bytes + 4 + BLOCK_TRAILER;
        let filter = self.filter_bytes();
        SstSizes {
            data: self.data_bytes,
            index,
            filter,
            file: self.data_bytes + index + filter + FILE_OVERHEAD,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SstSizes {
    pub data: u64,
    pub index: u64,
    pub filter: u64,
    pub file: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    const DB_BENCH: KeyFormat = KeyFormat {
        key_size: 16,
        prefix_len: 0,
    };

    #[test]
    fn wal_and_memtable_sizes_match_db_bench() {
        assert_eq!(batch_bytes(&DB_BENCH, 100), 131);
        assert_eq!(batch_bytes(&DB_BENCH, 1000), 1032);
        assert_eq!(memtable_entry_bytes(&DB_BENCH, 100), 126 + 19);
        // 4 MiB memtables switch at ~28,016 entries (docs/rocksdb-reference.md).
        let per = memtable_entry_bytes(&DB_BENCH, 100);
        let block = 512 << 10;
        let n = (1..)
            .find(|&n| memtable_full(n * per, 4 << 20, block))
            .unwrap();
        assert!((27_950..=28_050).contains(&n), "{n}");
        // 1,000,000 records of 131 B: 138.029 B per record in the file.
        let mut log = LogSize::default();
        let mut total = 0;
        for _ in 0..1_000_000 {
            total += log.add(131);
        }
        let per = total as f64 / 1e6;
        assert!((138.02..138.04).contains(&per), "{per}");
    }

    #[test]
    fn sst_entries_take_what_db_bench_wrote() {
        // Keys as a 4 MiB flush of 1,000,000 random keys holds them: every ~36th key.
        let mut s = SstSizer::new(DB_BENCH, 4096, 16, None, 0);
        let mut k = 0u64;
        let mut x = 12345u64;
        for _ in 0..27_400 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            k += 1 + (x >> 33) % 71;
            s.add(k, 100);
        }
        let sizes = s.finish();
        let per_entry = sizes.data as f64 / 27_400.0;
        assert!((121.0..121.8).contains(&per_entry), "{per_entry}");
        let index = sizes.index as f64 / 27_400.0;
        assert!((0.5..0.7).contains(&index), "{index}");
    }

    #[test]
    fn varints() {
        assert_eq!(varint_len(0), 1);
        assert_eq!(varint_len(127), 1);
        assert_eq!(varint_len(128), 2);
        assert_eq!(varint_len(u64::MAX), 10);
    }
}
