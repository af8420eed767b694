//! Experiment files: strict parsing, preset merging, overrides, and validation into the typed
//! [`Experiment`] the simulator runs. Every error names the field and the broken rule.

pub mod device;
pub mod presets;
pub mod workload;

use serde::{Deserialize, Serialize};

pub use device::{DeviceConfig, DeviceSpec, Energy, Geometry, Timing};
pub use workload::{JobConfig, JobSpec, Rw, ZoneFillAction};

use crate::firmware::IdleScope;
use crate::units::{Duration, NS_PER_MS};

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
}

fn half_second() -> Duration {
    Duration(500 * NS_PER_MS)
}

impl Default for MetricsConfig {
    fn default() -> Self {
        MetricsConfig {
            interval: half_second(),
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PrefillConfig {
    /// Share of the namespace capacity written sequentially from zone 0 before the jobs run.
    pub fraction: f64,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FaultsConfig {
    /// Zones the device puts in Read Only at start (a media fault model).
    #[serde(default)]
    pub read_only_zones: Vec<u32>,
    /// Zones the device puts in Offline at start.
    #[serde(default)]
    pub offline_zones: Vec<u32>,
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
    #[serde(default)]
    pub data: DataConfig,
    #[serde(default)]
    pub metrics: MetricsConfig,
    #[serde(default)]
    pub prefill: Option<PrefillConfig>,
    #[serde(default)]
    pub faults: FaultsConfig,
    #[serde(default, rename = "job")]
    pub jobs: Vec<JobConfig>,
}

fn default_seed() -> u64 {
    1
}

/// A validated experiment: the simulator takes this and nothing else.
#[derive(Clone, Debug)]
pub struct Experiment {
    pub name: String,
    pub seed: u64,
    pub device: DeviceSpec,
    pub firmware: FirmwareConfig,
    pub retain_data: bool,
    pub interval_ns: u64,
    pub prefill_fraction: f64,
    pub read_only_zones: Vec<u32>,
    pub offline_zones: Vec<u32>,
    pub jobs: Vec<JobSpec>,
}

/// Sets `a.b.c = value` in a TOML table, creating tables on the way. The value is read as a TOML
/// literal when it parses as one, else as a string.
pub fn apply_override(root: &mut toml::Table, assignment: &str) -> Result<(), ConfigError> {
    let (path, raw) = assignment
        .split_once('=')
        .ok_or_else(|| ConfigError::field(assignment, "an override is written key.path=value"))?;
    let path = path.trim();
    let value = toml::from_str::<toml::Table>(&format!("v = {}", raw.trim()))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.trim().to_string()));
    let mut keys = path.split('.').peekable();
    let mut table = root;
    while let Some(key) = keys.next() {
        if key.is_empty() {
            return Err(ConfigError::field(path, "has an empty key"));
        }
        if keys.peek().is_none() {
            table.insert(key.to_string(), value);
            return Ok(());
        }
        let entry = table
            .entry(key.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        table = entry.as_table_mut().ok_or_else(|| {
            ConfigError::field(path, format!("`{key}` is not a table, so it has no fields"))
        })?;
    }
    Ok(())
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
        ConfigError::field(path, e.into_inner().message().to_string())
    })
}

impl ExperimentConfig {
    /// Parses an experiment file, applies `--set` overrides, and merges the named preset under the
    /// file's `[device]` table.
    pub fn parse(text: &str, overrides: &[String]) -> Result<Self, ConfigError> {
        let mut table: toml::Table =
            toml::from_str(text).map_err(|e| ConfigError::Syntax(e.to_string()))?;
        for o in overrides {
            apply_override(&mut table, o)?;
        }
        if let Some(preset) = table.get("preset") {
            let name = preset
                .as_str()
                .ok_or_else(|| ConfigError::field("preset", "must be a preset name (a string)"))?;
            let mut device = presets::table(name)?;
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
        deserialize(table, "")
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

    /// As [`ExperimentConfig::validate`], but a file without `[[job]]` is fine: for front ends
    /// that bring their own workload (the fio engine).
    pub fn validate_device(&self, default_name: &str) -> Result<Experiment, ConfigError> {
        self.validate_with(default_name, false)
    }

    fn validate_with(
        &self,
        default_name: &str,
        need_jobs: bool,
    ) -> Result<Experiment, ConfigError> {
        let device = self.device.validate("device.")?;
        let geo = &device.geometry;
        let mut jobs = self
            .jobs
            .iter()
            .enumerate()
            .map(|(i, j)| j.validate(i, geo))
            .collect::<Result<Vec<_>, _>>()?;
        if need_jobs && jobs.is_empty() {
            return Err(ConfigError::field("job", "the experiment has no [[job]]"));
        }
        workload::check_writer_overlap(&jobs)?;
        workload::resolve_open_budget(&mut jobs, geo)?;
        let prefill_fraction = self.prefill.as_ref().map_or(0.0, |p| p.fraction);
        if !(0.0..=1.0).contains(&prefill_fraction) {
            return Err(ConfigError::field(
                "prefill.fraction",
                format!("{prefill_fraction} must be between 0 and 1"),
            ));
        }
        if let FirmwareConfig::Mapping { t_free, .. } | FirmwareConfig::Preemptive { t_free, .. } =
            self.firmware
            && t_free >= geo.zone_count
        {
            return Err(ConfigError::field(
                "firmware.t_free",
                format!(
                    "{t_free} must be below the {} zones of the device",
                    geo.zone_count
                ),
            ));
        }
        if let FirmwareConfig::Preemptive { t_invalid: 0, .. } = self.firmware {
            return Err(ConfigError::field(
                "firmware.t_invalid",
                "must be at least 1",
            ));
        }
        if let FirmwareConfig::Renewable {
            threshold,
            regc_fraction,
            ..
        } = self.firmware
        {
            for (name, v) in [
                ("firmware.threshold", threshold),
                ("firmware.regc_fraction", regc_fraction),
            ] {
                if !(0.0..=1.0).contains(&v) {
                    return Err(ConfigError::field(
                        name,
                        format!("{v} must be between 0 and 1"),
                    ));
                }
            }
        }
        if self.metrics.interval.ns() == 0 {
            return Err(ConfigError::field(
                "metrics.interval",
                "must be greater than 0",
            ));
        }
        for (name, zones) in [
            ("faults.read_only_zones", &self.faults.read_only_zones),
            ("faults.offline_zones", &self.faults.offline_zones),
        ] {
            if let Some(z) = zones.iter().find(|&&z| z >= geo.zone_count) {
                return Err(ConfigError::field(
                    name,
                    format!(
                        "zone {z} does not exist; the device has {} zones",
                        geo.zone_count
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
            firmware: self.firmware.clone(),
            retain_data: self.data.retention,
            interval_ns: self.metrics.interval.ns(),
            prefill_fraction,
            read_only_zones: self.faults.read_only_zones.clone(),
            offline_zones: self.faults.offline_zones.clone(),
            jobs,
            device,
        })
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
mod tests;
