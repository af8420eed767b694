//! Experiment files: strict parsing, preset merging, overrides, and validation into the typed
//! [`Experiment`] the simulator runs. Every error names the field and the broken rule. This
//! module holds the serde input only; the validated specs belong to the modules that use them.

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

use crate::experiment::{DeviceSpec, Experiment};
use crate::metrics::series::DEFAULT_MAX_BUCKETS;
use crate::time::Duration;
use crate::workload::HostWorkload;
use crate::zns::PrefillPlan;

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
        let device = self.device.validate("device.", self.seed)?;
        let layer = match (&self.layer, &device) {
            (None, _) => None,
            (Some(l), DeviceSpec::Zns(spec)) => Some(l.validate(spec)?),
            (Some(l), d) => Some(l.validate_over_block(&d.info(), d.nand().geometry.dies())?),
        };
        let info = match (&layer, &device) {
            (Some(l), DeviceSpec::Zns(spec)) => l.info(spec),
            (Some(l), d) => l.info_over_block(&d.info()),
            (None, d) => d.info(),
        };
        let mut jobs = self
            .jobs
            .iter()
            .enumerate()
            .map(|(i, j)| j.validate(i, &info))
            .collect::<Result<Vec<_>, _>>()?;
        // `--set job.NAME.key=value` reaches a job by its name: two jobs of one name would leave
        // the second out of reach (and the reports could not tell them apart).
        for (i, name) in self
            .jobs
            .iter()
            .enumerate()
            .filter_map(|(i, j)| Some((i, j.name.as_deref()?)))
        {
            if let Some(k) = self.jobs[..i]
                .iter()
                .position(|j| j.name.as_deref() == Some(name))
            {
                return Err(ConfigError::field(
                    format!("job[{i}].name"),
                    format!("`{name}` is also job[{k}]'s name: give each job its own"),
                ));
            }
        }
        let replays = self
            .replays
            .iter()
            .enumerate()
            .map(|(i, r)| r.validate(i))
            .collect::<Result<Vec<_>, _>>()?;
        let mut host = Vec::new();
        for (i, t) in self.threads.iter().enumerate() {
            host.push(HostWorkload::Threads(t.validate(i, &info)?));
        }
        let mut stores = Vec::new();
        for (i, d) in self.dbbench.iter().enumerate() {
            stores.push(HostWorkload::DbBench(d.validate(i, self.seed)?));
        }
        for (i, y) in self.ycsb.iter().enumerate() {
            stores.push(HostWorkload::Ycsb(y.validate(
                i,
                self.seed,
                self.host.cores,
            )?));
        }
        kv::check_namespaces(&stores, info.namespaces)?;
        let file_layer = files::validate(self, kv::store_on_fs(&stores).as_deref(), &info)?;
        // The file layer first: it mounts before the stores that keep their files on it.
        if let Some(f) = &file_layer {
            host.push(HostWorkload::Files(f.clone()));
        }
        host.extend(stores);
        kv::check_names(&host)?;
        if need_workload && jobs.is_empty() && replays.is_empty() && host.is_empty() {
            return Err(ConfigError::field(
                "job",
                "the experiment has no workload: add a [[job]], [[replay]], [[threads]], [[dbbench]], [[ycsb]] or a file workload ([[filebench]], [[fio_files]], [[updates]])",
            ));
        }
        let firmware = match &info.zoned {
            Some(z) => self.firmware.validate(z.zone_count)?,
            None if self.firmware != FirmwareConfig::default() => {
                return Err(ConfigError::field(
                    "firmware.policy",
                    "zone reset policies apply to ZNS devices; a conventional device's FTL is set in [device.ftl]",
                ));
            }
            None => self.firmware.validate(1)?,
        };
        if !(MIN_INTERVAL..=MAX_INTERVAL).contains(&self.metrics.interval) {
            return Err(ConfigError::field(
                "metrics.interval",
                format!(
                    "{} must be between {MIN_INTERVAL} and {MAX_INTERVAL}",
                    self.metrics.interval
                ),
            ));
        }
        ranges::within(
            "metrics.max_intervals",
            self.metrics.max_intervals as u64,
            16,
            MAX_INTERVALS as u64,
        )?;
        if self.seed > i64::MAX as u64 {
            return Err(ConfigError::field(
                "seed",
                format!("{} must be at most {}", self.seed, i64::MAX),
            ));
        }
        // An array's dies count across its drives, and its zones take faults on every drive;
        // the other layers hide the device's zones and dies.
        let dies = device.nand().geometry.dies();
        let (dies, drives, hides_device) = match &layer {
            Some(l @ crate::host::LayerSpec::Array(a)) => (l.dies(dies), Some(a.drives), false),
            Some(_) => (dies, None, true),
            None => (dies, None, false),
        };
        self.faults.validate(&info, dies, drives, hides_device)?;
        if !(1..=4096).contains(&self.host.cores) {
            return Err(ConfigError::field(
                "host.cores",
                format!("{} must be between 1 and 4096", self.host.cores),
            ));
        }
        let (prefill, precondition, prefill_namespaces) = match (&info.zoned, &device) {
            // Zones emulated over a conventional SSD start empty; the SSD under them may be
            // preconditioned (its FTL then holds data the zones do not show until a reset trims it).
            (Some(zoned), DeviceSpec::Conventional(spec)) => {
                if self.prefill.is_some() {
                    return Err(ConfigError::field(
                        "prefill",
                        "emulated zones start empty; set the conventional SSD under them up with [precondition]",
                    ));
                }
                let plan = match &self.precondition {
                    Some(p) => Some(p.plan(spec, self.seed)?),
                    None => None,
                };
                region::check_writer_overlap(&jobs, &host)?;
                region::resolve_open_budget(&mut jobs, &host, zoned, 0)?;
                (PrefillPlan::default(), plan, Vec::new())
            }
            (Some(zoned), _) => {
                if self.precondition.is_some() {
                    return Err(ConfigError::field(
                        "precondition",
                        "applies to conventional devices; a ZNS device is set up with [prefill]",
                    ));
                }
                let mut faulty: Vec<u32> = self.faults.read_only_zones.clone();
                faulty.extend(&self.faults.offline_zones);
                let prefill = match &self.prefill {
                    None => PrefillPlan::default(),
                    Some(p) => p.plan(&info, &faulty, self.seed)?,
                };
                let prefill_namespaces = self.prefill_namespaces(info.namespaces)?;
                let active_after_prefill = prefill.partial_zones(zoned.zone_capacity_lbas);
                region::check_writer_overlap(&jobs, &host)?;
                region::resolve_open_budget(&mut jobs, &host, zoned, active_after_prefill)?;
                (prefill, None, prefill_namespaces)
            }
            (None, _) => {
                if self.prefill.is_some() {
                    return Err(ConfigError::field(
                        "prefill",
                        "fills zones; a conventional device is set up with [precondition]",
                    ));
                }
                let plan = match (&self.precondition, &device) {
                    (Some(p), DeviceSpec::Conventional(spec)) => Some(p.plan(spec, self.seed)?),
                    _ => None,
                };
                (PrefillPlan::default(), plan, Vec::new())
            }
        };
        if let Some(f) = &file_layer
            && let crate::host::fs::Personality::Zenfs(z) = &f.fs.personality
        {
            let meta = f.fs.first_zone..f.fs.first_zone + z.meta_zones;
            if let Some((zone, _)) = prefill.zones.iter().find(|(zone, _)| meta.contains(zone)) {
                return Err(ConfigError::field(
                    "prefill.offset",
                    format!(
                        "zone {zone} is one of ZenFS's metadata zones {}..{}; start the prefill after them",
                        meta.start, meta.end
                    ),
                ));
            }
        }
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
