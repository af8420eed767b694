//! `[[dbbench]]`: db_bench's flags by their names, validated into a [`DbBenchSpec`].

use serde::{Deserialize, Serialize};

use super::{
    KvOptionsConfig, MAX_KV_KEYS, MAX_KV_OPERATIONS, MAX_SCAN_LENGTH, files_choice, namespace,
};
use crate::config::ConfigError;
use crate::config::ranges::{within, within_f64};
use crate::config::workload::MAX_IO_BYTES;
use crate::host::kv::KvOptions;
use crate::units::Bytes;
use crate::workload::kv::dbbench::{Benchmark, DbBenchSpec, MixGraph};

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
    #[serde(default = "super::super::one")]
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
pub(super) fn hundred() -> u32 {
    100
}

/// The largest value (`value_size`, `mix_max_value_size`): 64 MiB.
pub const MAX_VALUE_SIZE: u64 = 64 << 20;
/// mixgraph's distribution parameters and ratios, in absolute value (chosen: 10^6; the
/// published fits are below 100, and larger ones only overflow the key-range model's sums).
pub const MAX_MIX_PARAMETER: f64 = 1e6;
/// mixgraph's key ranges (`keyrange_num`): the model keeps two 8-byte numbers per range
/// (chosen: 2^20, 16 MiB).
pub const MAX_KEY_RANGES: u64 = 1 << 20;

/// Block size factor of db_bench's values under snappy (see `compression_type`).
pub const DB_BENCH_COMPRESSED_BLOCK_RATIO: f64 = 0.56;

impl DbBenchConfig {
    pub fn validate(&self, index: usize, seed: u64) -> Result<DbBenchSpec, ConfigError> {
        let f = |name: &str| format!("dbbench[{index}].{name}");
        let benchmarks = self.parse_benchmarks(&f)?;
        within(&f("num"), self.num, 1, MAX_KV_KEYS)?;
        if let Some(r) = self.reads {
            within(&f("reads"), r, 0, MAX_KV_OPERATIONS)?;
        }
        if let Some(r) = self.benchmark_write_rate_limit {
            within(&f("benchmark_write_rate_limit"), r.0, 0, MAX_IO_BYTES)?;
        }
        if !(8..=1024).contains(&self.key_size) {
            return Err(ConfigError::field(
                f("key_size"),
                format!("{} must be between 8 and 1024 bytes", self.key_size),
            ));
        }
        if !(1..=MAX_VALUE_SIZE).contains(&(self.value_size as u64)) {
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
        let mix = self.mixgraph(&f)?;
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

    /// The comma-separated benchmarks, each one db_bench knows, at least one.
    fn parse_benchmarks(&self, f: &dyn Fn(&str) -> String) -> Result<Vec<Benchmark>, ConfigError> {
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
        Ok(benchmarks)
    }

    /// mixgraph's ratios and distributions, db_bench's defaults where the file gives none, each
    /// in range and the ratios not all zero.
    fn mixgraph(&self, f: &dyn Fn(&str) -> String) -> Result<MixGraph, ConfigError> {
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
            within_f64(&f(name), v, 0.0, MAX_MIX_PARAMETER)?;
        }
        for (name, v) in [
            ("key_dist_a", mix.key_dist_a),
            ("key_dist_b", mix.key_dist_b),
            ("keyrange_dist_a", mix.keyrange_dist_a),
            ("keyrange_dist_b", mix.keyrange_dist_b),
            ("keyrange_dist_c", mix.keyrange_dist_c),
            ("keyrange_dist_d", mix.keyrange_dist_d),
            ("value_theta", mix.value_theta),
            ("value_k", mix.value_k),
            ("value_sigma", mix.value_sigma),
            ("iter_theta", mix.iter_theta),
            ("iter_k", mix.iter_k),
            ("iter_sigma", mix.iter_sigma),
        ] {
            within_f64(&f(name), v, -MAX_MIX_PARAMETER, MAX_MIX_PARAMETER)?;
        }
        within(&f("keyrange_num"), mix.keyrange_num, 1, MAX_KEY_RANGES)?;
        within(
            &f("mix_max_value_size"),
            mix.max_value_size,
            1,
            MAX_VALUE_SIZE,
        )?;
        within(&f("mix_max_scan_len"), mix.max_scan_len, 1, MAX_SCAN_LENGTH)?;
        if mix.get_ratio + mix.put_ratio + mix.seek_ratio <= 0.0 {
            return Err(ConfigError::field(
                f("mix_get_ratio"),
                "the mix ratios add up to 0",
            ));
        }
        Ok(mix)
    }
}
