//! The store's validated options, named as RocksDB names them, with RocksDB 7.8.3's defaults
//! (include/rocksdb/options.h, advanced_options.h, table.h at tag v7.8.3; the values are also in
//! docs/reference/host-stack.md (f)), and the CPU costs of its operations on the modelled
//! host cores, measured with Debian's db_bench 7.8.3 on this project's machine
//! (docs/rocksdb-reference.md).

use crate::time::Duration;

/// RocksDB's options that shape what the store writes, reads and waits for.
/// A memtable, an arena block or a target SST file: 64 GiB at most (RocksDB's own limit for
/// `write_buffer_size` on 64-bit hosts).
pub const MAX_MEMTABLE: u64 = 64 << 30;
/// Level sizes, compaction limits, cache and rates (bytes, or bytes per second): 1 PiB.
pub const MAX_KV_BYTES: u64 = 1 << 50;
/// One write or read of the store's files (WAL chunks, file buffers, readahead): 1 GiB.
pub const MAX_KV_IO: u64 = 1 << 30;
/// Memtables (`max_write_buffer_number`).
pub const MAX_MEMTABLES: u32 = 1024;
/// L0 files (the compaction, slowdown and stop triggers).
pub const MAX_L0_FILES: u32 = 1 << 20;

#[derive(Clone, Debug, PartialEq)]
pub struct KvOptions {
    /// Bytes of a memtable before it is switched (RocksDB `write_buffer_size`, 64 MiB).
    pub write_buffer_size: u64,
    /// Memtables kept in memory, the active one included (`max_write_buffer_number`, 2).
    pub max_write_buffer_number: u32,
    /// Immutable memtables merged into one flush (`min_write_buffer_number_to_merge`, 1).
    pub min_write_buffer_number_to_merge: u32,
    /// Memtable arena block; 0: min(1 MiB, write_buffer_size / 8) rounded up to 4 KiB
    /// (column_family.cc `SanitizeOptions`).
    pub arena_block_size: u64,
    /// Levels L0..L(n-1) (`num_levels`, 7).
    pub num_levels: u32,
    /// L0 files that trigger a compaction (`level0_file_num_compaction_trigger`, 4).
    pub level0_file_num_compaction_trigger: u32,
    /// L0 files at which writes are delayed (`level0_slowdown_writes_trigger`, 20).
    pub level0_slowdown_writes_trigger: u32,
    /// L0 files at which writes stop (`level0_stop_writes_trigger`, 36).
    pub level0_stop_writes_trigger: u32,
    /// SST size in L1 (`target_file_size_base`, 64 MiB); Ln: base x multiplier^(n-1).
    pub target_file_size_base: u64,
    pub target_file_size_multiplier: u32,
    /// L1's target size (`max_bytes_for_level_base`, 256 MiB); Ln: base x multiplier^(n-1).
    pub max_bytes_for_level_base: u64,
    pub max_bytes_for_level_multiplier: f64,
    /// Largest compaction (`max_compaction_bytes`; 0: 25 x target_file_size_base).
    pub max_compaction_bytes: u64,
    /// Cut compaction outputs at grandparent boundaries (`level_compaction_dynamic_file_size`,
    /// true in 7.8).
    pub level_compaction_dynamic_file_size: bool,
    /// Background threads (`max_background_jobs`, 2): a quarter (at least one) flush, the rest
    /// compaction, unless the two limits below are set (db_impl.cc `GetBGJobLimits`).
    pub max_background_jobs: u32,
    /// -1: derived from `max_background_jobs`.
    pub max_background_flushes: i32,
    pub max_background_compactions: i32,
    /// Estimated compaction debt that delays (64 GiB) and stops (256 GiB) writes.
    pub soft_pending_compaction_bytes_limit: u64,
    pub hard_pending_compaction_bytes_limit: u64,
    /// Write rate while writes are delayed (`delayed_write_rate`; 0 sanitizes to 16 MiB/s;
    /// db_bench sets 8 MiB/s).
    pub delayed_write_rate: u64,
    /// Data block size before compression (`block_size`, 4 KiB).
    pub block_size: u64,
    /// Keys between restart points in a data block (`block_restart_interval`, 16).
    pub block_restart_interval: u32,
    /// Bloom filter bits per key; 0 = no filter (RocksDB's default: no filter policy; db_bench
    /// `--bloom_bits=-1`).
    pub bloom_bits: u32,
    /// Block cache capacity (RocksDB's default LRU cache: 8 MiB; db_bench `--cache_size` 8 MiB).
    pub cache_size: u64,
    /// Index and filter blocks in the block cache (`cache_index_and_filter_blocks`, false: they
    /// are read once when a table is opened and kept with the table reader).
    pub cache_index_and_filter_blocks: bool,
    /// Compressed size over raw size of a data block, for levels that compress (1.0: no
    /// compression, RocksDB's `kNoCompression`). RocksDB keeps a block raw when compression
    /// saves less than 1/8 (`GetCompressedBlockSize` ... `compressed < raw - raw/8`).
    pub compression_ratio: f64,
    /// Per level: whether it compresses (`compression_per_level`); empty: every level does
    /// when `compression_ratio` < 1. A non-empty list disables L0 and multi-file trivial
    /// moves, as in RocksDB.
    pub compression_per_level: Vec<bool>,
    /// Write the WAL (`disable_wal` false).
    pub wal: bool,
    /// fdatasync the WAL after every write (`WriteOptions::sync`, false).
    pub sync: bool,
    /// WAL bytes handed to the file layer at once (chosen 64 KiB): RocksDB writes every
    /// record to the file at once (`manual_wal_flush` false); the file layer (ZenFS's 1 MiB
    /// buffer, F2FS's page cache) buffers them, so handing them over in 64 KiB pieces changes
    /// when the device sees them by less than one buffer. A sync hands over what is pending.
    pub wal_write_chunk: u64,
    /// SST bytes written per file-layer append (`writable_file_max_buffer_size`, 1 MiB).
    pub writable_file_max_buffer_size: u64,
    /// Bytes a compaction reads from an input file at once: `compaction_readahead_size`
    /// (RocksDB 0 = none) or, when 0, 128 KiB (chosen: Linux's default readahead window).
    pub compaction_readahead_size: u64,
    /// Keep value payloads (with data retention), so gets return the bytes put.
    pub retain_values: bool,
    pub cpu: CpuCosts,
}

impl Default for KvOptions {
    fn default() -> Self {
        KvOptions {
            write_buffer_size: 64 << 20,
            max_write_buffer_number: 2,
            min_write_buffer_number_to_merge: 1,
            arena_block_size: 0,
            num_levels: 7,
            level0_file_num_compaction_trigger: 4,
            level0_slowdown_writes_trigger: 20,
            level0_stop_writes_trigger: 36,
            target_file_size_base: 64 << 20,
            target_file_size_multiplier: 1,
            max_bytes_for_level_base: 256 << 20,
            max_bytes_for_level_multiplier: 10.0,
            max_compaction_bytes: 0,
            level_compaction_dynamic_file_size: true,
            max_background_jobs: 2,
            max_background_flushes: -1,
            max_background_compactions: -1,
            soft_pending_compaction_bytes_limit: 64 << 30,
            hard_pending_compaction_bytes_limit: 256 << 30,
            delayed_write_rate: 0,
            block_size: 4096,
            block_restart_interval: 16,
            bloom_bits: 0,
            cache_size: 8 << 20,
            cache_index_and_filter_blocks: false,
            compression_ratio: 1.0,
            compression_per_level: Vec::new(),
            wal: true,
            sync: false,
            wal_write_chunk: 64 << 10,
            writable_file_max_buffer_size: 1 << 20,
            compaction_readahead_size: 0,
            retain_values: false,
            cpu: CpuCosts::default(),
        }
    }
}

impl KvOptions {
    /// The arena block size RocksDB derives.
    pub fn arena_block(&self) -> u64 {
        if self.arena_block_size > 0 {
            return self.arena_block_size;
        }
        let b = (1u64 << 20).min(self.write_buffer_size / 8);
        b.div_ceil(4096) * 4096
    }

    pub fn max_compaction(&self) -> u64 {
        if self.max_compaction_bytes > 0 {
            self.max_compaction_bytes
        } else {
            self.target_file_size_base.saturating_mul(25)
        }
    }

    /// (flush threads, compaction threads) as db_impl.cc `GetBGJobLimits` computes them.
    pub fn job_limits(&self) -> (u32, u32) {
        if self.max_background_flushes == -1 && self.max_background_compactions == -1 {
            let flushes = (self.max_background_jobs / 4).max(1);
            let compactions = self.max_background_jobs.saturating_sub(flushes).max(1);
            (flushes, compactions)
        } else {
            (
                self.max_background_flushes.max(1) as u32,
                self.max_background_compactions.max(1) as u32,
            )
        }
    }

    pub fn write_rate(&self) -> u64 {
        if self.delayed_write_rate == 0 {
            16 << 20
        } else {
            self.delayed_write_rate
        }
    }

    /// Target SST size for files written to `level` (L0 outputs are never cut).
    pub fn target_file_size(&self, level: usize) -> u64 {
        let mut t = self.target_file_size_base;
        for _ in 1..level.max(1) {
            t = t.saturating_mul(self.target_file_size_multiplier as u64);
        }
        t
    }

    /// Target bytes of level `level` >= 1 (non-dynamic level sizes,
    /// `level_compaction_dynamic_level_bytes` false as in 7.8.3).
    pub fn max_bytes_for_level(&self, level: usize) -> u64 {
        let mut t = self.max_bytes_for_level_base as f64;
        for _ in 1..level.max(1) {
            t *= self.max_bytes_for_level_multiplier;
        }
        t.min(u64::MAX as f64) as u64
    }

    /// Whether data blocks of files written to `level` are compressed.
    pub fn compresses(&self, level: usize) -> bool {
        if self.compression_ratio >= 1.0 {
            return false;
        }
        if self.compression_per_level.is_empty() {
            return true;
        }
        let i = level.min(self.compression_per_level.len() - 1);
        self.compression_per_level[i]
    }

    /// The compression a level is configured with, whatever the data does with it (what
    /// RocksDB compares for a trivial move, `InputCompressionMatchesOutput`).
    pub fn level_compression(&self, level: usize) -> bool {
        if self.compression_per_level.is_empty() {
            return self.compression_ratio < 1.0;
        }
        self.compression_per_level[level.min(self.compression_per_level.len() - 1)]
    }

    /// L0 files at which compactions may run in parallel (column_family.cc
    /// `GetL0ThresholdSpeedupCompaction`).
    pub fn l0_speedup_threshold(&self) -> u32 {
        let t = self.level0_file_num_compaction_trigger;
        let twice = t * 2;
        let quarter = t + (self.level0_slowdown_writes_trigger.saturating_sub(t)) / 4;
        twice.min(quarter)
    }

    /// Checks the combination; the error names the option.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        let bad = |name: &'static str, msg: String| Err((name, msg));
        self.check_sizes()?;
        self.check_counts()?;
        if self.min_write_buffer_number_to_merge == 0
            || self.min_write_buffer_number_to_merge >= self.max_write_buffer_number
        {
            return bad(
                "min_write_buffer_number_to_merge",
                "must be at least 1 and below max_write_buffer_number".into(),
            );
        }
        if !(2..=64).contains(&self.num_levels) {
            return bad("num_levels", "must be between 2 and 64".into());
        }
        if self.level0_slowdown_writes_trigger < self.level0_file_num_compaction_trigger {
            return bad(
                "level0_slowdown_writes_trigger",
                "must be at least level0_file_num_compaction_trigger".into(),
            );
        }
        if self.level0_stop_writes_trigger < self.level0_slowdown_writes_trigger {
            return bad(
                "level0_stop_writes_trigger",
                "must be at least level0_slowdown_writes_trigger".into(),
            );
        }
        if !(self.max_bytes_for_level_multiplier >= 1.0
            && self.max_bytes_for_level_multiplier <= 1000.0)
        {
            return bad(
                "max_bytes_for_level_multiplier",
                "must be between 1 and 1000".into(),
            );
        }
        if self.max_background_jobs == 0 || self.max_background_jobs > 256 {
            return bad("max_background_jobs", "must be between 1 and 256".into());
        }
        for (name, v) in [
            ("max_background_flushes", self.max_background_flushes),
            (
                "max_background_compactions",
                self.max_background_compactions,
            ),
        ] {
            if v < -1 || v == 0 || v > 256 {
                return bad(name, "must be -1 (derived) or between 1 and 256".into());
            }
        }
        if !(256..=(1 << 20)).contains(&self.block_size) {
            return bad("block_size", "must be between 256 B and 1 MiB".into());
        }
        if self.bloom_bits > 64 {
            return bad("bloom_bits", "must be between 0 (no filter) and 64".into());
        }
        if !(self.compression_ratio > 0.0 && self.compression_ratio <= 1.0) {
            return bad(
                "compression_ratio",
                "must be above 0 and at most 1 (1 = no compression)".into(),
            );
        }
        Ok(())
    }

    /// Byte sizes and rates in range (their upper bounds, chosen far beyond RocksDB
    /// deployments, keep every product and sum from overflowing).
    fn check_sizes(&self) -> Result<(), (&'static str, String)> {
        let bad = |name: &'static str, msg: String| Err((name, msg));
        // Nothing the model allocates grows past what a run can hold.
        for (name, v, lo, hi) in [
            (
                "write_buffer_size",
                self.write_buffer_size,
                64 << 10,
                MAX_MEMTABLE,
            ),
            ("arena_block_size", self.arena_block_size, 0, MAX_MEMTABLE),
            (
                "target_file_size_base",
                self.target_file_size_base,
                64 << 10,
                MAX_MEMTABLE,
            ),
            (
                "max_bytes_for_level_base",
                self.max_bytes_for_level_base,
                64 << 10,
                MAX_KV_BYTES,
            ),
            (
                "max_compaction_bytes",
                self.max_compaction_bytes,
                0,
                MAX_KV_BYTES,
            ),
            (
                "soft_pending_compaction_bytes_limit",
                self.soft_pending_compaction_bytes_limit,
                0,
                MAX_KV_BYTES,
            ),
            (
                "hard_pending_compaction_bytes_limit",
                self.hard_pending_compaction_bytes_limit,
                0,
                MAX_KV_BYTES,
            ),
            (
                "delayed_write_rate",
                self.delayed_write_rate,
                0,
                MAX_KV_BYTES,
            ),
            ("cache_size", self.cache_size, 0, MAX_KV_BYTES),
            ("wal_write_chunk", self.wal_write_chunk, 1, MAX_KV_IO),
            (
                "writable_file_max_buffer_size",
                self.writable_file_max_buffer_size,
                4096,
                MAX_KV_IO,
            ),
            (
                "compaction_readahead_size",
                self.compaction_readahead_size,
                0,
                MAX_KV_IO,
            ),
        ] {
            if !(lo..=hi).contains(&v) {
                return bad(name, format!("{v} must be between {lo} and {hi} bytes"));
            }
        }
        Ok(())
    }

    /// Counts (memtables, multipliers, restart interval, L0 triggers) in range.
    fn check_counts(&self) -> Result<(), (&'static str, String)> {
        let bad = |name: &'static str, msg: String| Err((name, msg));
        for (name, v, lo, hi) in [
            (
                "max_write_buffer_number",
                self.max_write_buffer_number,
                2,
                MAX_MEMTABLES,
            ),
            (
                "target_file_size_multiplier",
                self.target_file_size_multiplier,
                1,
                1000,
            ),
            (
                "block_restart_interval",
                self.block_restart_interval,
                1,
                1 << 16,
            ),
            (
                "level0_file_num_compaction_trigger",
                self.level0_file_num_compaction_trigger,
                1,
                MAX_L0_FILES,
            ),
            (
                "level0_slowdown_writes_trigger",
                self.level0_slowdown_writes_trigger,
                1,
                MAX_L0_FILES,
            ),
            (
                "level0_stop_writes_trigger",
                self.level0_stop_writes_trigger,
                1,
                MAX_L0_FILES,
            ),
        ] {
            if !(lo..=hi).contains(&v) {
                return bad(name, format!("{v} must be between {lo} and {hi}"));
            }
        }
        Ok(())
    }
}

/// CPU time of the store's work on the modelled host cores. Defaults from Debian's db_bench
/// 7.8.3 on this project's machine (docs/rocksdb-reference.md, "CPU per operation"; the model's
/// form is chosen, its constants fitted to those tables):
///
/// - Put: `put_per_byte_ns` x (key + value) + `put_per_doubling_ns` x log2(1 + n / 1024), n
///   the entries in the active memtable (the skip-list insert slows as the memtable grows out
///   of the CPU caches). Least squares over six measured points (4 MiB and 64 MiB memtables,
///   100 and 1000-byte values): 3.4 ns/B and 683 ns, within 12% of each (2.94-7.32 us).
/// - Get: `get_base_ns` + `get_per_probe_ns` per SST file probed (a warm block cache: 3.6-4.6
///   us per probe in DBs of 100 MB and more) + `block_miss_ns` per data block not in the
///   block cache (the pread and checksum: +0.3-1.3 us per probe without a block cache). A
///   probe a bloom filter rejects costs `filter_probe_ns` (chosen).
/// - Scans: a seek costs a get's probes over every sorted run; each next `next_ns` (chosen).
/// - Flush: `flush_per_entry_ns` per entry + `flush_per_byte_ns` per SST byte (the flush
///   thread: 0.4 us/entry at 100 B values, 1.5 us/entry at 1000 B, fitted).
/// - Compaction: `compaction_per_entry_ns` per output entry + `compaction_per_byte_ns` per
///   byte written (4.0-4.6 ns/B written at 100 B values, 2.0-2.4 at 1000 B, fitted).
#[derive(Clone, Debug, PartialEq)]
pub struct CpuCosts {
    pub put_per_byte_ns: f64,
    pub put_per_doubling_ns: f64,
    pub get_base_ns: u64,
    pub get_per_probe_ns: u64,
    pub block_miss_ns: u64,
    pub filter_probe_ns: u64,
    pub next_ns: u64,
    pub flush_per_entry_ns: f64,
    pub flush_per_byte_ns: f64,
    pub compaction_per_entry_ns: f64,
    pub compaction_per_byte_ns: f64,
    /// Multiplies every cost (0 = a host without CPU cost).
    pub scale: f64,
}

impl Default for CpuCosts {
    fn default() -> Self {
        CpuCosts {
            put_per_byte_ns: 3.4,
            put_per_doubling_ns: 683.0,
            get_base_ns: 500,
            get_per_probe_ns: 3_900,
            block_miss_ns: 1_000,
            filter_probe_ns: 150,
            next_ns: 150,
            flush_per_entry_ns: 280.0,
            flush_per_byte_ns: 1.23,
            compaction_per_entry_ns: 290.0,
            compaction_per_byte_ns: 1.92,
            scale: 1.0,
        }
    }
}

impl CpuCosts {
    fn ns(&self, v: f64) -> Duration {
        Duration::from_ns((v * self.scale).max(0.0) as u64)
    }

    pub fn put(&self, bytes: u64, memtable_entries: u64) -> Duration {
        let n = memtable_entries as f64;
        self.ns(self.put_per_byte_ns * bytes as f64
            + self.put_per_doubling_ns * (1.0 + n / 1024.0).log2())
    }

    pub fn get(&self, probes: u32, misses: u32, filtered: u32) -> Duration {
        self.ns((self.get_base_ns
            + self.get_per_probe_ns * probes as u64
            + self.block_miss_ns * misses as u64
            + self.filter_probe_ns * filtered as u64) as f64)
    }

    pub fn nexts(&self, n: u64) -> Duration {
        self.ns((self.next_ns * n) as f64)
    }

    pub fn flush(&self, entries: u64, bytes: u64) -> Duration {
        self.ns(self.flush_per_entry_ns * entries as f64 + self.flush_per_byte_ns * bytes as f64)
    }

    pub fn compaction(&self, entries: u64, bytes: u64) -> Duration {
        self.ns(self.compaction_per_entry_ns * entries as f64
            + self.compaction_per_byte_ns * bytes as f64)
    }
}
