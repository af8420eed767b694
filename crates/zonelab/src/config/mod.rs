//! Experiment files: strict parsing, preset merging, overrides, and validation into the typed
//! [`Experiment`] the simulator runs. Every error names the field and the broken rule. This
//! module holds the serde input only; the validated specs belong to the modules that use them.

mod assemble;
pub mod device;
pub mod faults;
pub mod files;
pub mod firmware;
pub mod fs;
pub mod kv;
pub mod layer;
mod overrides;
pub mod presets;
pub(crate) mod ranges;
mod region;
pub mod replay;
mod setup;
pub mod threads;
pub mod workload;

use serde::{Deserialize, Serialize};

pub use device::DeviceConfig;
pub use faults::FaultsConfig;
pub use firmware::FirmwareConfig;
pub use kv::{DbBenchConfig, YcsbConfig};
pub use layer::LayerConfig;
pub use overrides::{Blame, apply_override, blame};
pub use replay::ReplayConfig;
pub use setup::{FillConfig, PatternConfig, PreconditionConfig, PrefillConfig};
pub use threads::ThreadsConfig;
pub use workload::JobConfig;

use crate::experiment::Experiment;
use crate::metrics::series::DEFAULT_MAX_BUCKETS;
use crate::time::Duration;

/// A configuration problem, with the dotted path of the offending field.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    #[error("the experiment file is not valid TOML: {0}")]
    Syntax(String),
    #[error("{path}: {message}")]
    Field { path: String, message: String },
    #[error("unknown preset `{0}`; `zonelab presets list` shows the available ones")]
    UnknownPreset(String),
}

impl ConfigError {
    pub fn field(path: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError::Field {
            path: path.into(),
            message: message.into(),
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DataConfig {
    /// Keep written bytes so reads return them (sparse); off by default for speed.
    #[serde(default)]
    pub retention: bool,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsConfig {
    /// Width of one time-series interval (the papers plot 0.5 s).
    #[serde(default = "half_second")]
    pub interval: Duration,
    /// The most intervals a series keeps; past it the interval doubles (the summary says so).
    #[serde(default = "default_max_intervals")]
    pub max_intervals: usize,
}

/// The shortest time-series interval (chosen: below any NAND operation; shorter intervals only
/// make series coarsen at once).
pub const MIN_INTERVAL: Duration = Duration::from_us(1);
/// The longest: one day.
pub const MAX_INTERVAL: Duration = Duration::from_secs(86_400);
/// The most intervals a series keeps (each series holds a few counters per interval).
pub const MAX_INTERVALS: usize = 1_000_000;

fn half_second() -> Duration {
    Duration::from_ms(500)
}

fn default_max_intervals() -> usize {
    DEFAULT_MAX_BUCKETS
}

impl Default for MetricsConfig {
    fn default() -> Self {
        MetricsConfig {
            interval: half_second(),
            max_intervals: default_max_intervals(),
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    /// Modelled host CPU cores that host tasks' CPU work queues on (chosen default: 4).
    #[serde(default = "four")]
    pub cores: u32,
}

fn four() -> u32 {
    4
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig { cores: four() }
    }
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TraceConfig {
    /// Write one record per device command (trace.csv in the results).
    #[serde(default)]
    pub enabled: bool,
}

/// An experiment file after preset merging, before validation. Serialized, it is the resolved
/// configuration written beside the results.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentConfig {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default = "default_seed")]
    pub seed: u64,
    #[serde(default)]
    pub preset: Option<String>,
    pub device: DeviceConfig,
    #[serde(default)]
    pub firmware: FirmwareConfig,
    /// A host-side layer between the workload and the device (static zones or eZNS).
    #[serde(default)]
    pub layer: Option<LayerConfig>,
    #[serde(default)]
    pub data: DataConfig,
    #[serde(default)]
    pub metrics: MetricsConfig,
    #[serde(default)]
    pub prefill: Option<PrefillConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precondition: Option<PreconditionConfig>,
    #[serde(default)]
    pub faults: FaultsConfig,
    #[serde(default)]
    pub host: HostConfig,
    #[serde(default)]
    pub trace: TraceConfig,
    #[serde(default, rename = "job")]
    pub jobs: Vec<JobConfig>,
    #[serde(default, rename = "replay")]
    pub replays: Vec<ReplayConfig>,
    #[serde(default)]
    pub threads: Vec<ThreadsConfig>,
    /// The host file layer (`[fs]`) and the file workloads on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fs: Option<fs::FsConfig>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filebench: Vec<files::FilebenchConfig>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fio_files: Vec<files::FioFilesConfig>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub updates: Vec<files::UpdatesConfig>,
    /// db_bench on the key-value store model.
    #[serde(default)]
    pub dbbench: Vec<DbBenchConfig>,
    /// YCSB core workloads on the key-value store model.
    #[serde(default)]
    pub ycsb: Vec<YcsbConfig>,
}

fn default_seed() -> u64 {
    1
}

/// Serde default shared by the config modules.
fn yes() -> bool {
    true
}
fn is_true(b: &bool) -> bool {
    *b
}
fn one() -> u32 {
    1
}

/// An experiment file naming only the preset `name`, quoted as TOML whatever it holds (a name
/// is never pasted into TOML text).
pub fn preset_file(name: &str) -> String {
    let mut t = toml::Table::new();
    t.insert("preset".into(), toml::Value::String(name.into()));
    toml::to_string(&t).expect("a table of one string serializes")
}

/// Overlays `top` on `base`, table by table.
fn merge(base: &mut toml::Table, top: toml::Table) {
    for (key, value) in top {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(b)), toml::Value::Table(t)) => merge(b, t),
            (_, v) => {
                base.insert(key, v);
            }
        }
    }
}

fn deserialize<T: serde::de::DeserializeOwned>(
    table: toml::Table,
    prefix: &str,
) -> Result<T, ConfigError> {
    serde_path_to_error::deserialize(toml::Value::Table(table)).map_err(|e| {
        let path = e.path().to_string();
        let path = match (prefix.is_empty(), path == ".") {
            (true, _) => path,
            (false, true) => prefix.trim_end_matches('.').to_string(),
            (false, false) => format!("{prefix}{path}"),
        };
        ConfigError::field(path, plain(e.into_inner().message()))
    })
}

/// The first place where `input` gives an array and the resolved configuration has a table:
/// serde reads a struct from an array of its fields in order, so `prefill = []` would silently
/// be a `[prefill]` of defaults (the whole device filled).
fn table_given_as_array(input: &toml::Value, resolved: &toml::Value, path: &str) -> Option<String> {
    use toml::Value::{Array, Table};
    match (input, resolved) {
        (Array(_), Table(_)) => Some(path.to_string()),
        (Table(a), Table(b)) => a.iter().find_map(|(k, v)| {
            let p = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            b.get(k).and_then(|w| table_given_as_array(v, w, &p))
        }),
        (Array(a), Array(b)) => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (v, w))| table_given_as_array(v, w, &format!("{path}[{i}]"))),
        _ => None,
    }
}

/// serde's type errors in the words of the experiment file: `invalid value: integer `-4`,
/// expected u32` becomes "-4 is not a whole number from 0 to 4294967295". Other messages pass.
fn plain(message: &str) -> String {
    let Some((what, expected)) = message.rsplit_once(", expected ") else {
        return message.to_string();
    };
    let wanted = match expected {
        "u8" => format!("a whole number from 0 to {}", u8::MAX),
        "u16" => format!("a whole number from 0 to {}", u16::MAX),
        "u32" => format!("a whole number from 0 to {}", u32::MAX),
        "u64" | "usize" => format!("a whole number from 0 to {}", u64::MAX),
        "i64" => "a whole number".to_string(),
        "f64" | "f32" => "a number".to_string(),
        "a boolean" => "true or false".to_string(),
        _ => return message.to_string(),
    };
    // "invalid value: integer `-4`" or "invalid type: string \"x\"": the value as written.
    let value = what
        .split_once(": ")
        .map_or(what, |(_, v)| v)
        .split_once(' ')
        .map_or(what, |(_, v)| v)
        .trim_matches('`');
    format!("{value} is not {wanted}")
}

/// Whether `t` reads as a `T`.
fn reads_as<T: serde::de::DeserializeOwned>(t: &toml::Table) -> bool {
    T::deserialize(toml::Value::Table(t.clone())).is_ok()
}

/// Tables whose tag field picks what the other fields are: (table, tag, whether a table reads).
type Tagged = (&'static str, &'static str, fn(&toml::Table) -> bool);
const TAGGED: [Tagged; 2] = [
    ("firmware", "policy", reads_as::<FirmwareConfig>),
    ("layer", "kind", reads_as::<LayerConfig>),
];

/// An error inside `[firmware]` or `[layer]` (`tables`: those two as written, in [`TAGGED`]'s
/// order) names the table: serde reads such a table whole before its fields, so the field's
/// path is lost. This finds the field (the one whose removal lets the table read, else the first
/// that fails alone beside the tag, else a required one whose value serde's message quotes) and
/// names it.
fn pinpoint(tables: &[Option<toml::Value>; 2], e: ConfigError) -> ConfigError {
    let ConfigError::Field { path, message } = &e else {
        return e;
    };
    let Some(i) = TAGGED.iter().position(|t| t.0 == path) else {
        return e;
    };
    let (_, tag, reads) = TAGGED[i];
    let Some(toml::Value::Table(t)) = &tables[i] else {
        return e;
    };
    let Some(tag_value) = t.get(tag) else {
        return e;
    };
    let without = |field: &String| {
        let mut rest = t.clone();
        rest.remove(field);
        reads(&rest)
    };
    if let Some(k) = t.keys().find(|k| *k != tag && without(k)) {
        return ConfigError::field(format!("{path}.{k}"), message.clone());
    }
    let alone = |field: Option<(&String, &toml::Value)>| {
        let mut one = toml::Table::new();
        one.insert(tag.to_string(), tag_value.clone());
        if let Some((k, v)) = field {
            one.insert(k.clone(), v.clone());
        }
        reads(&one)
    };
    // A required field with a bad value (the others need it to read at all): serde names
    // the value, in backticks.
    let named = |v: &toml::Value| {
        v.as_str()
            .is_some_and(|v| message.contains(&format!("`{v}`")))
    };
    let quoted = || t.iter().find(|(k, v)| *k != tag && named(v));
    let found = if alone(None) {
        t.iter()
            .find(|(k, v)| *k != tag && !alone(Some((k, v))))
            .or_else(quoted)
    } else {
        quoted()
    };
    match found {
        Some((k, _)) => ConfigError::field(format!("{path}.{k}"), message.clone()),
        None => e,
    }
}

impl ExperimentConfig {
    /// Parses an experiment file, applies `--set` overrides, and merges the named preset under the
    /// file's `[device]` table.
    pub fn parse(text: &str, overrides: &[String]) -> Result<Self, ConfigError> {
        Self::parse_on(text, overrides, None)
    }

    /// As [`Self::parse`], with `device` (a device table, such as a calibrated preset's) in
    /// place of the preset the text names: the text's `[device]` tables override its fields.
    pub fn parse_on_device(text: &str, device: &toml::Table) -> Result<Self, ConfigError> {
        Self::parse_on(text, &[], Some(device))
    }

    fn parse_on(
        text: &str,
        overrides: &[String],
        base: Option<&toml::Table>,
    ) -> Result<Self, ConfigError> {
        let mut table: toml::Table =
            toml::from_str(text).map_err(|e| ConfigError::Syntax(e.to_string()))?;
        for o in overrides {
            apply_override(&mut table, o)?;
        }
        let preset =
            match table.get("preset") {
                Some(p) => Some(p.as_str().ok_or_else(|| {
                    ConfigError::field("preset", "must be a preset name (a string)")
                })?),
                None => None,
            };
        let base = match (base, preset) {
            (Some(b), _) => Some(b.clone()),
            (None, Some(name)) => Some(presets::table(name)?),
            (None, None) => None,
        };
        if let Some(mut device) = base {
            if let Some(over) = table.remove("device") {
                let over = match over {
                    toml::Value::Table(t) => t,
                    _ => return Err(ConfigError::field("device", "must be a table")),
                };
                merge(&mut device, over);
            }
            table.insert("device".into(), toml::Value::Table(device));
        } else if !table.contains_key("device") {
            return Err(ConfigError::field(
                "preset",
                "missing: name a preset (`zonelab presets list`) or give a full [device] table",
            ));
        }
        let tagged = TAGGED.map(|(name, _, _)| table.get(name).cloned());
        let input = toml::Value::Table(table.clone());
        let cfg: Self = deserialize(table, "").map_err(|e| pinpoint(&tagged, e))?;
        let resolved = toml::Value::try_from(&cfg).expect("an ExperimentConfig always serializes");
        if let Some(path) = table_given_as_array(&input, &resolved, "") {
            return Err(ConfigError::field(
                path,
                "must be a table ([name] or name = { ... }), not an array",
            ));
        }
        Ok(cfg)
    }

    /// The resolved configuration as TOML, as written beside the results.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("an ExperimentConfig always serializes")
    }

    /// The fingerprint of the resolved configuration ([`fingerprint`] of [`Self::to_toml`]),
    /// printed first by a run and stored with its results.
    pub fn fingerprint(&self) -> u64 {
        fingerprint(&self.to_toml())
    }

    pub fn validate(&self, default_name: &str) -> Result<Experiment, ConfigError> {
        self.validate_with(default_name, true)
    }

    /// As [`ExperimentConfig::validate`], but a file without a workload is fine: for front
    /// ends that bring their own (the fio engine, the block device).
    pub fn validate_device(&self, default_name: &str) -> Result<Experiment, ConfigError> {
        self.validate_with(default_name, false)
    }

    fn validate_with(
        &self,
        default_name: &str,
        need_workload: bool,
    ) -> Result<Experiment, ConfigError> {
        let (device, layer, info) = self.device_and_layer()?;
        let mut jobs = self.validate_jobs(&info)?;
        let replays = self
            .replays
            .iter()
            .enumerate()
            .map(|(i, r)| r.validate(i))
            .collect::<Result<Vec<_>, _>>()?;
        let (host, file_layer) = self.host_workloads(&info)?;
        if need_workload && jobs.is_empty() && replays.is_empty() && host.is_empty() {
            return Err(ConfigError::field(
                "job",
                "the experiment has no workload: add a [[job]], [[replay]], [[threads]], [[dbbench]], [[ycsb]] or a file workload ([[filebench]], [[fio_files]], [[updates]])",
            ));
        }
        let firmware = self.run_settings(&info, &device, layer.as_ref())?;
        let (prefill, precondition, prefill_namespaces) =
            self.set_up(&info, &device, &mut jobs, &host)?;
        assemble::check_prefill_spares_zenfs_meta(file_layer.as_ref(), &prefill)?;
        Ok(Experiment {
            name: self
                .name
                .clone()
                .unwrap_or_else(|| default_name.to_string()),
            seed: self.seed,
            device,
            layer,
            prefill_namespaces,
            firmware,
            retain_data: self.data.retention,
            interval: self.metrics.interval,
            max_intervals: self.metrics.max_intervals,
            prefill,
            precondition,
            read_only_zones: self.faults.read_only_zones.clone(),
            offline_zones: self.faults.offline_zones.clone(),
            faults: self.faults.plan(self.seed),
            jobs,
            replays,
            host,
            cores: self.host.cores,
            trace: self.trace.enabled,
        })
    }
}

impl ExperimentConfig {
    /// The namespaces `[prefill]` fills, in order: as listed, or all `namespaces` of them.
    fn prefill_namespaces(&self, namespaces: u32) -> Result<Vec<u32>, ConfigError> {
        let Some(list) = self.prefill.as_ref().and_then(|p| p.namespaces.clone()) else {
            return Ok((0..namespaces).collect());
        };
        let mut seen = vec![false; namespaces as usize];
        for &ns in &list {
            if ns >= namespaces || std::mem::replace(&mut seen[ns as usize], true) {
                return Err(ConfigError::field(
                    "prefill.namespaces",
                    format!(
                        "namespace {ns} is not one of the {namespaces} namespaces, or is named twice"
                    ),
                ));
            }
        }
        Ok(list)
    }
}

/// A stable 64-bit FNV-1a hash, for printing a config fingerprint that never changes between
/// Rust releases (unlike `DefaultHasher`).
pub fn fingerprint(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

#[cfg(test)]
mod doc_tests;
#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
mod limits_tests;
#[cfg(test)]
mod shape_tests;
#[cfg(test)]
mod tests;
