//! `[[replay]]`: reissue a recorded trace (ZoneLab's own, fio's iolog or MSR Cambridge CSV).

use serde::{Deserialize, Serialize};

use super::ConfigError;
use crate::trace::read::TraceFormat;
use crate::workload::replay::{ReplayMode, ReplaySpec};

/// How a `[[replay]]` paces its commands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplayModeConfig {
    /// At the trace's timestamps (divided by `speed`).
    #[default]
    Timed,
    /// As fast as the device allows (fio's replay_no_stall).
    NoStall,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TraceFormatConfig {
    Zonelab,
    Iolog,
    Msr,
}

/// One `[[replay]]`: reissue a recorded trace.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ReplayConfig {
    #[serde(default)]
    pub name: Option<String>,
    /// The trace file (relative to the experiment file).
    pub trace: String,
    /// "zonelab", "iolog" or "msr"; default: told from the first line.
    #[serde(default)]
    pub format: Option<TraceFormatConfig>,
    #[serde(default)]
    pub mode: ReplayModeConfig,
    /// Timed mode: how much faster than recorded (2.0: twice as fast).
    #[serde(default = "one_f64")]
    pub speed: f64,
    /// Commands in flight at most.
    #[serde(default = "thirty_two")]
    pub iodepth: u32,
}

fn one_f64() -> f64 {
    1.0
}

fn thirty_two() -> u32 {
    32
}

impl ReplayConfig {
    pub fn validate(&self, index: usize) -> Result<ReplaySpec, ConfigError> {
        let f = |name: &str| format!("replay[{index}].{name}");
        if self.trace.trim().is_empty() {
            return Err(ConfigError::field(f("trace"), "names no file"));
        }
        if !(self.speed.is_finite() && self.speed > 0.0 && self.speed <= 1e9) {
            return Err(ConfigError::field(
                f("speed"),
                format!("{} must be above 0 (and at most 1e9)", self.speed),
            ));
        }
        if !(1..=65_536).contains(&self.iodepth) {
            return Err(ConfigError::field(
                f("iodepth"),
                format!("{} must be between 1 and 65536", self.iodepth),
            ));
        }
        Ok(ReplaySpec {
            name: self
                .name
                .clone()
                .unwrap_or_else(|| format!("replay{index}")),
            trace: self.trace.clone(),
            format: self.format.map(|f| match f {
                TraceFormatConfig::Zonelab => TraceFormat::ZoneLab,
                TraceFormatConfig::Iolog => TraceFormat::Iolog,
                TraceFormatConfig::Msr => TraceFormat::Msr,
            }),
            mode: match self.mode {
                ReplayModeConfig::Timed => ReplayMode::Timed { speed: self.speed },
                ReplayModeConfig::NoStall => ReplayMode::NoStall,
            },
            iodepth: self.iodepth,
        })
    }
}
