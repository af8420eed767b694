//! Key-value workloads: `[[dbbench]]` (db_bench's flags by their names) and `[[ycsb]]` (YCSB's
//! properties by theirs), each with an `options` table of RocksDB options by RocksDB's names
//! and an `options.cpu` table of CPU costs. Unset options keep RocksDB 7.8.3's defaults
//! (db_bench's where db_bench sets its own: an 8 MiB delayed write rate), or for YCSB those
//! of its RocksDB binding (`workload::kv::ycsb::binding_options`).

use serde::{Deserialize, Serialize};

use super::ConfigError;
use super::ranges::{within, within_f64};
use crate::host::kv::{CpuCosts, KvOptions};
use crate::units::Bytes;
use crate::workload::HostWorkload;
use crate::workload::kv::FilesChoice;

mod dbbench;
mod ycsb;

pub use dbbench::DbBenchConfig;
pub use ycsb::YcsbConfig;

/// Keys one store holds at most (`recordcount` plus YCSB's inserts, db_bench's `num`). The model
/// keeps every live key (a 16-byte `sst::Entry` in each table holding it, plus the memtables'
/// nodes): 28 bytes per key measured with db_bench fillrandom, so 2^30 keys are about 30 GiB of
/// model state, as much as a large workstation holds; more could never finish.
pub const MAX_KV_KEYS: u64 = 1 << 30;
/// Operations of one YCSB run phase (`operationcount`) or db_bench read benchmark (`reads` per
/// thread): 2^36 take hours at the model's few million operations per second (chosen: far
/// beyond a useful run, and their byte totals stay far below 2^64).
pub const MAX_KV_OPERATIONS: u64 = 1 << 36;
/// The longest scan (YCSB `maxscanlength`, db_bench `mix_max_scan_len`): each scan visits that
/// many keys (chosen: 2^20).
pub const MAX_SCAN_LENGTH: u64 = 1 << 20;
/// Per-operation CPU costs given in whole nanoseconds (chosen: one second, as device times).
pub const MAX_CPU_NS: u64 = 1_000_000_000;

/// RocksDB options; every field is optional and named as RocksDB names it.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct KvOptionsConfig {
    pub write_buffer_size: Option<Bytes>,
    pub max_write_buffer_number: Option<u32>,
    pub min_write_buffer_number_to_merge: Option<u32>,
    pub arena_block_size: Option<Bytes>,
    pub num_levels: Option<u32>,
    pub level0_file_num_compaction_trigger: Option<u32>,
    pub level0_slowdown_writes_trigger: Option<u32>,
    pub level0_stop_writes_trigger: Option<u32>,
    pub target_file_size_base: Option<Bytes>,
    pub target_file_size_multiplier: Option<u32>,
    pub max_bytes_for_level_base: Option<Bytes>,
    pub max_bytes_for_level_multiplier: Option<f64>,
    pub max_compaction_bytes: Option<Bytes>,
    pub level_compaction_dynamic_file_size: Option<bool>,
    pub max_background_jobs: Option<u32>,
    pub max_background_flushes: Option<i32>,
    pub max_background_compactions: Option<i32>,
    pub soft_pending_compaction_bytes_limit: Option<Bytes>,
    pub hard_pending_compaction_bytes_limit: Option<Bytes>,
    pub delayed_write_rate: Option<Bytes>,
    pub block_size: Option<Bytes>,
    pub block_restart_interval: Option<u32>,
    /// Bloom filter bits per key (0 or absent: no filter).
    pub bloom_bits: Option<u32>,
    /// Block cache capacity.
    pub cache_size: Option<Bytes>,
    pub cache_index_and_filter_blocks: Option<bool>,
    /// Compressed over raw size of a data block where a level compresses (1 = none).
    pub compression_ratio: Option<f64>,
    /// Per level: "none" or a compressor ("snappy", "lz4", "zstd"...).
    pub compression_per_level: Option<Vec<String>>,
    pub disable_wal: Option<bool>,
    /// fdatasync the WAL after every write.
    pub sync: Option<bool>,
    pub wal_write_chunk: Option<Bytes>,
    pub writable_file_max_buffer_size: Option<Bytes>,
    pub compaction_readahead_size: Option<Bytes>,
    #[serde(default)]
    pub cpu: CpuConfig,
}

/// CPU costs (host::kv::options::CpuCosts); absent fields keep the measured defaults.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CpuConfig {
    pub put_per_byte_ns: Option<f64>,
    pub put_per_doubling_ns: Option<f64>,
    pub get_base_ns: Option<u64>,
    pub get_per_probe_ns: Option<u64>,
    pub block_miss_ns: Option<u64>,
    pub filter_probe_ns: Option<u64>,
    pub next_ns: Option<u64>,
    pub flush_per_entry_ns: Option<f64>,
    pub flush_per_byte_ns: Option<f64>,
    pub compaction_per_entry_ns: Option<f64>,
    pub compaction_per_byte_ns: Option<f64>,
    /// Multiplies every cost (0: no CPU cost).
    pub scale: Option<f64>,
}

macro_rules! set {
    ($dst:expr, $src:expr) => {
        if let Some(v) = $src {
            $dst = v;
        }
    };
    ($dst:expr, $src:expr, bytes) => {
        if let Some(v) = $src {
            $dst = v.0;
        }
    };
}

impl KvOptionsConfig {
    /// These options over `base`, checked; errors name `prefix` + the option.
    pub fn apply(&self, mut o: KvOptions, prefix: &str) -> Result<KvOptions, ConfigError> {
        set!(o.write_buffer_size, self.write_buffer_size, bytes);
        set!(o.max_write_buffer_number, self.max_write_buffer_number);
        set!(
            o.min_write_buffer_number_to_merge,
            self.min_write_buffer_number_to_merge
        );
        set!(o.arena_block_size, self.arena_block_size, bytes);
        set!(o.num_levels, self.num_levels);
        set!(
            o.level0_file_num_compaction_trigger,
            self.level0_file_num_compaction_trigger
        );
        set!(
            o.level0_slowdown_writes_trigger,
            self.level0_slowdown_writes_trigger
        );
        set!(
            o.level0_stop_writes_trigger,
            self.level0_stop_writes_trigger
        );
        set!(o.target_file_size_base, self.target_file_size_base, bytes);
        set!(
            o.target_file_size_multiplier,
            self.target_file_size_multiplier
        );
        set!(
            o.max_bytes_for_level_base,
            self.max_bytes_for_level_base,
            bytes
        );
        set!(
            o.max_bytes_for_level_multiplier,
            self.max_bytes_for_level_multiplier
        );
        set!(o.max_compaction_bytes, self.max_compaction_bytes, bytes);
        set!(
            o.level_compaction_dynamic_file_size,
            self.level_compaction_dynamic_file_size
        );
        set!(o.max_background_jobs, self.max_background_jobs);
        set!(o.max_background_flushes, self.max_background_flushes);
        set!(
            o.max_background_compactions,
            self.max_background_compactions
        );
        set!(
            o.soft_pending_compaction_bytes_limit,
            self.soft_pending_compaction_bytes_limit,
            bytes
        );
        set!(
            o.hard_pending_compaction_bytes_limit,
            self.hard_pending_compaction_bytes_limit,
            bytes
        );
        set!(o.delayed_write_rate, self.delayed_write_rate, bytes);
        self.apply_tables_and_wal(&mut o);
        self.apply_cpu(&mut o.cpu, prefix)?;
        o.check()
            .map_err(|(name, msg)| ConfigError::field(format!("{prefix}{name}"), msg))?;
        Ok(o)
    }

    /// The table, cache, compression, WAL and file-buffer options over `o`.
    fn apply_tables_and_wal(&self, o: &mut KvOptions) {
        set!(o.block_size, self.block_size, bytes);
        set!(o.block_restart_interval, self.block_restart_interval);
        set!(o.bloom_bits, self.bloom_bits);
        set!(o.cache_size, self.cache_size, bytes);
        set!(
            o.cache_index_and_filter_blocks,
            self.cache_index_and_filter_blocks
        );
        set!(o.compression_ratio, self.compression_ratio);
        if let Some(list) = &self.compression_per_level {
            o.compression_per_level = list
                .iter()
                .map(|c| !c.eq_ignore_ascii_case("none"))
                .collect();
        }
        if let Some(d) = self.disable_wal {
            o.wal = !d;
        }
        set!(o.sync, self.sync);
        set!(o.wal_write_chunk, self.wal_write_chunk, bytes);
        set!(
            o.writable_file_max_buffer_size,
            self.writable_file_max_buffer_size,
            bytes
        );
        set!(
            o.compaction_readahead_size,
            self.compaction_readahead_size,
            bytes
        );
    }

    /// The CPU costs (`[...options.cpu]`) over `cpu`, each in range.
    fn apply_cpu(&self, cpu: &mut CpuCosts, prefix: &str) -> Result<(), ConfigError> {
        let c = &self.cpu;
        set!(cpu.put_per_byte_ns, c.put_per_byte_ns);
        set!(cpu.put_per_doubling_ns, c.put_per_doubling_ns);
        set!(cpu.get_base_ns, c.get_base_ns);
        set!(cpu.get_per_probe_ns, c.get_per_probe_ns);
        set!(cpu.block_miss_ns, c.block_miss_ns);
        set!(cpu.filter_probe_ns, c.filter_probe_ns);
        set!(cpu.next_ns, c.next_ns);
        set!(cpu.flush_per_entry_ns, c.flush_per_entry_ns);
        set!(cpu.flush_per_byte_ns, c.flush_per_byte_ns);
        set!(cpu.compaction_per_entry_ns, c.compaction_per_entry_ns);
        set!(cpu.compaction_per_byte_ns, c.compaction_per_byte_ns);
        set!(cpu.scale, c.scale);
        for (name, v) in [
            ("get_base_ns", cpu.get_base_ns),
            ("get_per_probe_ns", cpu.get_per_probe_ns),
            ("block_miss_ns", cpu.block_miss_ns),
            ("filter_probe_ns", cpu.filter_probe_ns),
            ("next_ns", cpu.next_ns),
        ] {
            within(&format!("{prefix}cpu.{name}"), v, 0, MAX_CPU_NS)?;
        }
        for (name, v) in [
            ("put_per_byte_ns", cpu.put_per_byte_ns),
            ("put_per_doubling_ns", cpu.put_per_doubling_ns),
            ("flush_per_entry_ns", cpu.flush_per_entry_ns),
            ("flush_per_byte_ns", cpu.flush_per_byte_ns),
            ("compaction_per_entry_ns", cpu.compaction_per_entry_ns),
            ("compaction_per_byte_ns", cpu.compaction_per_byte_ns),
            ("scale", cpu.scale),
        ] {
            within_f64(&format!("{prefix}cpu.{name}"), v, 0.0, 1e9)?;
        }
        Ok(())
    }
}

pub(super) fn files_choice(
    text: &Option<String>,
    field: String,
) -> Result<FilesChoice, ConfigError> {
    match text.as_deref() {
        None | Some("memory") => Ok(FilesChoice::Memory),
        Some("fs") => Ok(FilesChoice::Fs),
        Some(other) => Err(ConfigError::field(
            field,
            format!(
                "`{other}` is not a file layer; \"memory\" (files in memory, no device I/O) or \"fs\" (the experiment's zoned file layer, [fs])"
            ),
        )),
    }
}

/// The namespace of a store's file layer: only a store on the file layer sends commands.
pub(super) fn namespace(
    files: &Option<String>,
    ns: Option<u32>,
    field: String,
) -> Result<u32, ConfigError> {
    match (files.as_deref(), ns) {
        (_, None) => Ok(0),
        (Some("fs"), Some(n)) => Ok(n),
        (_, Some(_)) => Err(ConfigError::field(
            field,
            "a store in memory sends no commands: set files = \"fs\" to put it on a namespace",
        )),
    }
}

/// Stores on the file layer use namespaces the device (or its `[layer]`) has.
pub fn check_namespaces(stores: &[HostWorkload], namespaces: u32) -> Result<(), ConfigError> {
    let (mut d, mut y) = (0, 0);
    for w in stores {
        let (ns, field) = match w {
            HostWorkload::DbBench(s) => (s.namespace, format!("dbbench[{d}].namespace")),
            HostWorkload::Ycsb(s) => (s.namespace, format!("ycsb[{y}].namespace")),
            _ => continue,
        };
        match w {
            HostWorkload::DbBench(_) => d += 1,
            _ => y += 1,
        }
        if ns >= namespaces.max(1) {
            return Err(ConfigError::field(
                field,
                format!(
                    "namespace {ns} does not exist: the device has {}",
                    namespaces.max(1)
                ),
            ));
        }
    }
    Ok(())
}

/// The field of the first store that keeps its files on the file layer (`dbbench[0].files`),
/// which then has to be mounted.
pub fn store_on_fs(stores: &[HostWorkload]) -> Option<String> {
    let (mut d, mut y) = (0, 0);
    for w in stores {
        let (files, field) = match w {
            HostWorkload::DbBench(s) => (s.files, format!("dbbench[{d}].files")),
            HostWorkload::Ycsb(s) => (s.files, format!("ycsb[{y}].files")),
            _ => continue,
        };
        match w {
            HostWorkload::DbBench(_) => d += 1,
            _ => y += 1,
        }
        if files == FilesChoice::Fs {
            return Some(field);
        }
    }
    None
}

/// Key-value workloads name their store, tenants and report: names must differ.
pub fn check_names(host: &[HostWorkload]) -> Result<(), ConfigError> {
    let (mut d, mut y) = (0, 0);
    let mut seen: Vec<&str> = Vec::new();
    for w in host {
        let path = match w {
            HostWorkload::DbBench(_) => {
                d += 1;
                format!("dbbench[{}].name", d - 1)
            }
            HostWorkload::Ycsb(_) => {
                y += 1;
                format!("ycsb[{}].name", y - 1)
            }
            _ => continue,
        };
        if seen.contains(&w.name()) {
            return Err(ConfigError::field(
                path,
                format!(
                    "`{}` is the name of another workload; give each its own",
                    w.name()
                ),
            ));
        }
        seen.push(w.name());
    }
    Ok(())
}
