//! `[[ycsb]]`: YCSB's properties by their names, validated into a [`YcsbSpec`].

use serde::{Deserialize, Serialize};

use super::{
    KvOptionsConfig, MAX_KV_KEYS, MAX_KV_OPERATIONS, MAX_SCAN_LENGTH, files_choice, namespace,
};
use crate::config::ConfigError;
use crate::config::ranges::within;

use crate::workload::kv::ycsb::{Distribution, YcsbSpec, binding_options};

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
    #[serde(default = "super::dbbench::hundred")]
    pub fieldlength: u32,
    #[serde(default = "super::super::one")]
    pub threadcount: u32,
    /// "zipfian", "latest" or "uniform"; default the core workload's.
    #[serde(default)]
    pub requestdistribution: Option<String>,
    pub readproportion: Option<f64>,
    pub updateproportion: Option<f64>,
    pub insertproportion: Option<f64>,
    pub scanproportion: Option<f64>,
    pub readmodifywriteproportion: Option<f64>,
    #[serde(default = "super::dbbench::hundred")]
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
        self.operation_mix(&mut spec, &f)?;
        within(&f("recordcount"), self.recordcount, 1, MAX_KV_KEYS)?;
        within(
            &f("operationcount"),
            self.operationcount,
            0,
            MAX_KV_OPERATIONS,
        )?;
        // Inserts add keys: the store must hold the records and what the run inserts.
        let inserts = (self.operationcount as f64 * spec.insert
            / (spec.read + spec.update + spec.insert + spec.scan + spec.read_modify_write))
            .ceil() as u64;
        if self.recordcount + inserts > MAX_KV_KEYS {
            return Err(ConfigError::field(
                f("operationcount"),
                format!(
                    "inserts about {inserts} keys beside recordcount {}: a store holds at most {MAX_KV_KEYS} keys",
                    self.recordcount
                ),
            ));
        }
        self.check_sizes(&f)?;
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

    /// The request distribution and the operation proportions the file sets over the core
    /// workload's, each in range and not all zero.
    fn operation_mix(
        &self,
        spec: &mut YcsbSpec,
        f: &dyn Fn(&str) -> String,
    ) -> Result<(), ConfigError> {
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
                        format!(
                            "{} must be between 0 and 1",
                            crate::config::ranges::number(v)
                        ),
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
        Ok(())
    }

    /// Fields, field length, threads and scan length in range.
    fn check_sizes(&self, f: &dyn Fn(&str) -> String) -> Result<(), ConfigError> {
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
        within(
            &f("maxscanlength"),
            self.maxscanlength as u64,
            1,
            MAX_SCAN_LENGTH,
        )?;
        Ok(())
    }
}
