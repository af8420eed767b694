//! Key-value workloads: `[[dbbench]]` (db_bench's flags by their names) and `[[ycsb]]` (YCSB's
//! properties by theirs), each with an `options` table of RocksDB options by RocksDB's names
//! and an `options.cpu` table of CPU costs. Unset options keep RocksDB 7.8.3's defaults
//! (db_bench's where db_bench sets its own: an 8 MiB delayed write rate), or for YCSB those
//! of its RocksDB binding (`workload::kv::ycsb::binding_options`).

use serde::{Deserialize, Serialize};

use super::ConfigError;
use crate::host::kv::{CpuCosts, KvOptions};
use crate::units::Bytes;
use crate::workload::HostWorkload;
use crate::workload::kv::FilesChoice;
use crate::workload::kv::dbbench::{Benchmark, DbBenchSpec, MixGraph};
use crate::workload::kv::ycsb::{Distribution, YcsbSpec, binding_options};

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
        let c = &self.cpu;
        let cpu: &mut CpuCosts = &mut o.cpu;
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
            ("put_per_byte_ns", cpu.put_per_byte_ns),
            ("put_per_doubling_ns", cpu.put_per_doubling_ns),
            ("flush_per_entry_ns", cpu.flush_per_entry_ns),
            ("flush_per_byte_ns", cpu.flush_per_byte_ns),
            ("compaction_per_entry_ns", cpu.compaction_per_entry_ns),
            ("compaction_per_byte_ns", cpu.compaction_per_byte_ns),
            ("scale", cpu.scale),
        ] {
            if !(v.is_finite() && (0.0..=1e9).contains(&v)) {
                return Err(ConfigError::field(
                    format!("{prefix}cpu.{name}"),
                    format!("{v} must be between 0 and 1e9"),
                ));
            }
        }
        o.check()
            .map_err(|(name, msg)| ConfigError::field(format!("{prefix}{name}"), msg))?;
        Ok(o)
    }
}

fn files_choice(text: &Option<String>, field: String) -> Result<FilesChoice, ConfigError> {
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
fn namespace(files: &Option<String>, ns: Option<u32>, field: String) -> Result<u32, ConfigError> {
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

/// One `[[dbbench]]`: db_bench's flags.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DbBenchConfig {
    #[serde(default)]
    pub name: Option<String>,
    /// Comma-separated, run in order: fillrandom, fillseq, overwrite, readrandom,
    /// readwhilewriting, mixgraph, flush, waitforcompaction.
    pub benchmarks: String,
    #[serde(default = "million")]
    pub num: u64,
    /// Gets per thread (readrandom, readwhilewriting) or operations (mixgraph); default num.
    #[serde(default)]
    pub reads: Option<u64>,
    #[serde(default = "sixteen")]
    pub key_size: u32,
    #[serde(default = "hundred")]
    pub value_size: u32,
    #[serde(default = "super::one")]
    pub threads: u32,
    /// db_bench's `--seed`; default the experiment's seed.
    #[serde(default)]
    pub seed: Option<u64>,
    /// "none" (default, as the validation ran) or a compressor: db_bench's values compress
    /// to half (`--compression_ratio=0.5`), which made data blocks 0.56 of their raw size with
    /// snappy (docs/rocksdb-reference.md: 68.4 against 121.4 B per entry).
    #[serde(default)]
    pub compression_type: Option<String>,
    #[serde(default)]
    pub benchmark_write_rate_limit: Option<Bytes>,
    /// Where the store's files live: "memory" (no device I/O) or "fs" (the experiment's zoned
    /// file layer, `[fs]`, over the device).
    #[serde(default)]
    pub files: Option<String>,
    /// With files = "fs": the namespace whose file layer holds them (default 0; each namespace
    /// a store uses gets its own layer, as `[fs]` describes).
    #[serde(default)]
    pub namespace: Option<u32>,
    pub mix_get_ratio: Option<f64>,
    pub mix_put_ratio: Option<f64>,
    pub mix_seek_ratio: Option<f64>,
    pub key_dist_a: Option<f64>,
    pub key_dist_b: Option<f64>,
    pub keyrange_dist_a: Option<f64>,
    pub keyrange_dist_b: Option<f64>,
    pub keyrange_dist_c: Option<f64>,
    pub keyrange_dist_d: Option<f64>,
    pub keyrange_num: Option<u64>,
    pub value_theta: Option<f64>,
    pub value_k: Option<f64>,
    pub value_sigma: Option<f64>,
    pub iter_theta: Option<f64>,
    pub iter_k: Option<f64>,
    pub iter_sigma: Option<f64>,
    pub mix_max_value_size: Option<u64>,
    pub mix_max_scan_len: Option<u64>,
    #[serde(default)]
    pub options: KvOptionsConfig,
}

fn million() -> u64 {
    1_000_000
}
fn sixteen() -> u32 {
    16
}
fn hundred() -> u32 {
    100
}

/// Block size factor of db_bench's values under snappy (see `compression_type`).
pub const DB_BENCH_COMPRESSED_BLOCK_RATIO: f64 = 0.56;

impl DbBenchConfig {
    pub fn validate(&self, index: usize, seed: u64) -> Result<DbBenchSpec, ConfigError> {
        let f = |name: &str| format!("dbbench[{index}].{name}");
        let mut benchmarks = Vec::new();
        for b in self
            .benchmarks
            .split(',')
            .map(str::trim)
            .filter(|b| !b.is_empty())
        {
            let known: Vec<&str> = Benchmark::ALL.iter().map(|(n, _)| *n).collect();
            benchmarks.push(Benchmark::parse(b).ok_or_else(|| {
                ConfigError::field(
                    f("benchmarks"),
                    format!("`{b}` is not a benchmark; known: {}", known.join(", ")),
                )
            })?);
        }
        if benchmarks.is_empty() {
            return Err(ConfigError::field(f("benchmarks"), "names no benchmark"));
        }
        if self.num == 0 {
            return Err(ConfigError::field(f("num"), "must be at least 1"));
        }
        if !(8..=1024).contains(&self.key_size) {
            return Err(ConfigError::field(
                f("key_size"),
                format!("{} must be between 8 and 1024 bytes", self.key_size),
            ));
        }
        if !(1..=(64 << 20)).contains(&self.value_size) {
            return Err(ConfigError::field(
                f("value_size"),
                format!("{} must be between 1 B and 64 MiB", self.value_size),
            ));
        }
        if !(1..=4096).contains(&self.threads) {
            return Err(ConfigError::field(
                f("threads"),
                format!("{} must be between 1 and 4096", self.threads),
            ));
        }
        let mut base = KvOptions {
            delayed_write_rate: 8 << 20,
            ..KvOptions::default()
        };
        match self.compression_type.as_deref() {
            None | Some("none") => {}
            Some("snappy" | "lz4" | "zstd" | "zlib" | "lz4hc" | "bzip2" | "xpress") => {
                base.compression_ratio = DB_BENCH_COMPRESSED_BLOCK_RATIO;
            }
            Some(other) => {
                return Err(ConfigError::field(
                    f("compression_type"),
                    format!("`{other}` is not a compression type (none, snappy, lz4, zstd...)"),
                ));
            }
        }
        let options = self.options.apply(base, &f("options."))?;
        let d = MixGraph::default();
        let mix = MixGraph {
            get_ratio: self.mix_get_ratio.unwrap_or(d.get_ratio),
            put_ratio: self.mix_put_ratio.unwrap_or(d.put_ratio),
            seek_ratio: self.mix_seek_ratio.unwrap_or(d.seek_ratio),
            key_dist_a: self.key_dist_a.unwrap_or(d.key_dist_a),
            key_dist_b: self.key_dist_b.unwrap_or(d.key_dist_b),
            keyrange_dist_a: self.keyrange_dist_a.unwrap_or(d.keyrange_dist_a),
            keyrange_dist_b: self.keyrange_dist_b.unwrap_or(d.keyrange_dist_b),
            keyrange_dist_c: self.keyrange_dist_c.unwrap_or(d.keyrange_dist_c),
            keyrange_dist_d: self.keyrange_dist_d.unwrap_or(d.keyrange_dist_d),
            keyrange_num: self.keyrange_num.unwrap_or(d.keyrange_num),
            value_theta: self.value_theta.unwrap_or(d.value_theta),
            value_k: self.value_k.unwrap_or(d.value_k),
            value_sigma: self.value_sigma.unwrap_or(d.value_sigma),
            iter_theta: self.iter_theta.unwrap_or(d.iter_theta),
            iter_k: self.iter_k.unwrap_or(d.iter_k),
            iter_sigma: self.iter_sigma.unwrap_or(d.iter_sigma),
            max_value_size: self.mix_max_value_size.unwrap_or(d.max_value_size),
            max_scan_len: self.mix_max_scan_len.unwrap_or(d.max_scan_len),
        };
        for (name, v) in [
            ("mix_get_ratio", mix.get_ratio),
            ("mix_put_ratio", mix.put_ratio),
            ("mix_seek_ratio", mix.seek_ratio),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(ConfigError::field(f(name), "must be 0 or more"));
            }
        }
        if mix.get_ratio + mix.put_ratio + mix.seek_ratio <= 0.0 {
            return Err(ConfigError::field(
                f("mix_get_ratio"),
                "the mix ratios add up to 0",
            ));
        }
        if mix.max_value_size == 0 {
            return Err(ConfigError::field(
                f("mix_max_value_size"),
                "must be at least 1",
            ));
        }
        Ok(DbBenchSpec {
            name: self
                .name
                .clone()
                .unwrap_or_else(|| format!("dbbench{index}")),
            benchmarks,
            num: self.num,
            reads: self.reads.unwrap_or(self.num),
            key_size: self.key_size,
            value_size: self.value_size,
            threads: self.threads,
            seed: self.seed.unwrap_or(seed),
            benchmark_write_rate_limit: self.benchmark_write_rate_limit.map_or(0, |b| b.0),
            mix,
            options,
            files: files_choice(&self.files, f("files"))?,
            namespace: namespace(&self.files, self.namespace, f("namespace"))?,
        })
    }
}

/// One `[[ycsb]]`: YCSB's properties.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct YcsbConfig {
    #[serde(default)]
    pub name: Option<String>,
    /// The core workload: "a" to "f" (workloads/workload[a-f]).
    pub workload: String,
    #[serde(default = "thousand")]
    pub recordcount: u64,
    #[serde(default = "thousand")]
    pub operationcount: u64,
    #[serde(default = "ten")]
    pub fieldcount: u32,
    #[serde(default = "hundred")]
    pub fieldlength: u32,
    #[serde(default = "super::one")]
    pub threadcount: u32,
    /// "zipfian", "latest" or "uniform"; default the core workload's.
    #[serde(default)]
    pub requestdistribution: Option<String>,
    pub readproportion: Option<f64>,
    pub updateproportion: Option<f64>,
    pub insertproportion: Option<f64>,
    pub scanproportion: Option<f64>,
    pub readmodifywriteproportion: Option<f64>,
    #[serde(default = "hundred")]
    pub maxscanlength: u32,
    /// Run the load phase first.
    #[serde(default = "yes")]
    pub load: bool,
    #[serde(default)]
    pub seed: Option<u64>,
    /// Where the store's files live: "memory" or "fs", and on which namespace (as
    /// `[[dbbench]]`).
    #[serde(default)]
    pub files: Option<String>,
    #[serde(default)]
    pub namespace: Option<u32>,
    #[serde(default)]
    pub options: KvOptionsConfig,
}

fn thousand() -> u64 {
    1000
}
fn ten() -> u32 {
    10
}
fn yes() -> bool {
    true
}

impl YcsbConfig {
    pub fn validate(&self, index: usize, seed: u64, cores: u32) -> Result<YcsbSpec, ConfigError> {
        let f = |name: &str| format!("ycsb[{index}].{name}");
        let letter = self
            .workload
            .trim()
            .chars()
            .next()
            .filter(|_| self.workload.trim().len() == 1);
        let mut spec = letter.and_then(YcsbSpec::core).ok_or_else(|| {
            ConfigError::field(
                f("workload"),
                format!(
                    "`{}` is not a core workload; write \"a\" to \"f\"",
                    self.workload
                ),
            )
        })?;
        if let Some(name) = &self.name {
            spec.name = name.clone();
        } else {
            spec.name = format!("ycsb{index}");
        }
        if let Some(d) = &self.requestdistribution {
            spec.distribution = match d.as_str() {
                "zipfian" => Distribution::Zipfian,
                "latest" => Distribution::Latest,
                "uniform" => Distribution::Uniform,
                other => {
                    return Err(ConfigError::field(
                        f("requestdistribution"),
                        format!("`{other}` is not zipfian, latest or uniform"),
                    ));
                }
            };
        }
        for (name, v, dst) in [
            ("readproportion", self.readproportion, &mut spec.read),
            ("updateproportion", self.updateproportion, &mut spec.update),
            ("insertproportion", self.insertproportion, &mut spec.insert),
            ("scanproportion", self.scanproportion, &mut spec.scan),
            (
                "readmodifywriteproportion",
                self.readmodifywriteproportion,
                &mut spec.read_modify_write,
            ),
        ] {
            if let Some(v) = v {
                if !(0.0..=1.0).contains(&v) {
                    return Err(ConfigError::field(
                        f(name),
                        format!("{v} must be between 0 and 1"),
                    ));
                }
                *dst = v;
            }
        }
        if spec.read + spec.update + spec.insert + spec.scan + spec.read_modify_write <= 0.0 {
            return Err(ConfigError::field(
                f("readproportion"),
                "the operation proportions add up to 0",
            ));
        }
        if self.recordcount == 0 {
            return Err(ConfigError::field(f("recordcount"), "must be at least 1"));
        }
        if !(1..=1000).contains(&self.fieldcount) {
            return Err(ConfigError::field(
                f("fieldcount"),
                "must be between 1 and 1000",
            ));
        }
        if !(1..=(1 << 20)).contains(&self.fieldlength) {
            return Err(ConfigError::field(
                f("fieldlength"),
                "must be between 1 B and 1 MiB",
            ));
        }
        if !(1..=4096).contains(&self.threadcount) {
            return Err(ConfigError::field(
                f("threadcount"),
                "must be between 1 and 4096",
            ));
        }
        if self.maxscanlength == 0 {
            return Err(ConfigError::field(f("maxscanlength"), "must be at least 1"));
        }
        spec.record_count = self.recordcount;
        spec.operation_count = self.operationcount;
        spec.field_count = self.fieldcount;
        spec.field_length = self.fieldlength;
        spec.threads = self.threadcount;
        spec.max_scan_length = self.maxscanlength;
        spec.load = self.load;
        spec.seed = self.seed.unwrap_or(seed);
        spec.files = files_choice(&self.files, f("files"))?;
        spec.namespace = namespace(&self.files, self.namespace, f("namespace"))?;
        spec.options = self.options.apply(binding_options(cores), &f("options."))?;
        Ok(spec)
    }
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
