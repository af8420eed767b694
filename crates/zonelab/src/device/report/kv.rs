//! A key-value workload's report (`layers.<name>` in summary.json): per phase its operations,
//! simulated time, throughput and what the device did meanwhile, and the store's counters,
//! defined as docs/rocksdb-reference.md defines db_bench's so a run can be set beside real
//! RocksDB's numbers. Plain data here so the kernel can carry it (`workload/kv` and `host/kv`
//! fill it in).

use serde::{Deserialize, Serialize};

/// Where a store's files live.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FilesChoice {
    /// In memory, at no device cost (the LSM logic alone).
    #[default]
    Memory,
    /// On the experiment's zoned file layer (`[fs]`), over the device.
    Fs,
}

impl std::fmt::Display for FilesChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FilesChoice::Memory => "in memory (no device I/O)",
            FilesChoice::Fs => "on the zoned file layer",
        })
    }
}

/// What the device did in a phase (differences of its counters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct DeviceDelta {
    pub host_read_bytes: u64,
    pub host_write_bytes: u64,
    pub zone_resets_requested: u64,
    pub zone_resets_executed: u64,
    pub block_erases: u64,
    pub page_programs: u64,
    pub page_reads: u64,
    pub energy_read_nj: f64,
    pub energy_program_nj: f64,
    pub energy_erase_nj: f64,
}

/// One phase of a workload (a db_bench benchmark, YCSB's load or run).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PhaseReport {
    pub name: String,
    pub ops: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    pub ops_per_s: f64,
    pub device: DeviceDelta,
    /// The store's counters at the end of the phase (cumulative).
    pub store: KvStats,
}

/// A workload's report, shared by its tasks and read when the run ends.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct KvReport {
    pub workload: String,
    pub files: FilesChoice,
    pub phases: Vec<PhaseReport>,
    /// The store's counters when the run ended.
    pub store: Option<KvStats>,
    pub error: Option<String>,
}

/// Per output level of compactions.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LevelCompactions {
    pub compactions: u64,
    pub output_files: u64,
    pub output_bytes: u64,
}

/// The store's counters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KvStats {
    /// Puts and deletes issued.
    pub writes: u64,
    /// Key + value bytes of those writes.
    pub user_bytes: u64,
    pub gets: u64,
    pub gets_found: u64,
    pub scans: u64,
    /// Logical WAL bytes: write batches (RocksDB ticker `wal.bytes`).
    pub wal_bytes: u64,
    /// Physical WAL bytes: records with their headers in 32 KiB blocks.
    pub wal_file_bytes: u64,
    pub wal_files: u64,
    pub wal_syncs: u64,
    /// Memtable flushes, the final manual one included.
    pub flushes: u64,
    /// Bytes of the SST files flushes wrote (whole files).
    pub flush_bytes: u64,
    pub flush_entries_in: u64,
    pub flush_entries_out: u64,
    /// Compactions that read and rewrote files (trivial moves excluded).
    pub compactions: u64,
    /// Sizes of their input files.
    pub compaction_read_bytes: u64,
    /// Sizes of their output files.
    pub compaction_write_bytes: u64,
    pub compaction_output_files: u64,
    pub compaction_input_records: u64,
    pub compaction_output_records: u64,
    pub trivial_moves: u64,
    pub trivial_move_files: u64,
    pub trivial_move_bytes: u64,
    pub intra_l0_compactions: u64,
    /// Index = output level.
    pub compactions_by_output_level: Vec<LevelCompactions>,
    /// Time writes were delayed or stopped (RocksDB `stall.micros`, here in ns).
    pub stall_ns: u64,
    pub stall_stops: u64,
    pub stall_delays: u64,
    /// Data blocks a get or scan looked for.
    pub block_cache_hits: u64,
    pub block_cache_misses: u64,
    /// Bytes read from files by gets and scans (data, index, filter blocks).
    pub read_bytes: u64,
    /// Table readers opened: index, filter and footer read.
    pub table_opens: u64,
    pub table_open_read_bytes: u64,
    /// SST files probed by gets, and probes a bloom filter ended.
    pub get_probes: u64,
    pub filter_skips: u64,
    /// File bytes written, by RocksDB write hint (NotSet, None, Short, Medium, Long, Extreme).
    pub bytes_by_hint: [u64; 6],
    pub files_deleted: u64,
    /// CPU time of flushes and compactions.
    pub flush_cpu_ns: u64,
    pub compaction_cpu_ns: u64,
    /// The tree when the report was made.
    pub files_per_level: Vec<usize>,
    pub bytes_per_level: Vec<u64>,
}

impl KvStats {
    /// Write amplification to SST files: flush and compaction bytes over user bytes.
    pub fn sst_write_amplification(&self) -> f64 {
        (self.flush_bytes + self.compaction_write_bytes) as f64 / self.user_bytes.max(1) as f64
    }
}
