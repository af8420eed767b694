//! `[faults]`: zones in Read Only or Offline from the start, and faults at run time (a zone that
//! changes condition at a time, commands that fail with a status at a rate), as a
//! [`FaultPlan`] the device is wrapped in ([`crate::device::faults::Faulty`]).

use serde::{Deserialize, Serialize};

use super::ConfigError;
use crate::device::faults::{CommandFault, DieFault, FaultOps, FaultPlan, ZoneFault};
use crate::device::{DeviceInfo, Status, ZoneState};
use crate::seed::mix_seed;
use crate::time::{Duration, Instant};

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FaultsConfig {
    /// Zones the device puts in Read Only at start (a media fault model).
    #[serde(default)]
    pub read_only_zones: Vec<u32>,
    /// Zones the device puts in Offline at start.
    #[serde(default)]
    pub offline_zones: Vec<u32>,
    /// Zones that go Read Only or Offline during the run. (Left out of a resolved
    /// configuration when empty, so that configurations without them keep their fingerprint.)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zones: Vec<ZoneFaultConfig>,
    /// NAND dies that run slower for a while.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dies: Vec<DieFaultConfig>,
    /// Commands that fail with an NVMe status at a rate.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<CommandFaultConfig>,
}

/// `[[faults.dies]]`: operations booked on NAND die `die` from `from` until `until` (from the
/// start of the workload) take `factor` times their sensing, program and erase times.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DieFaultConfig {
    #[serde(default)]
    pub from: Duration,
    /// None: to the end of the run.
    #[serde(default)]
    pub until: Option<Duration>,
    pub die: u32,
    pub factor: f64,
}

/// `[[faults.zones]]`: `zone` goes to `state` at `at` (from the start of the workload).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ZoneFaultConfig {
    pub at: Duration,
    pub zone: u32,
    pub state: FaultZoneState,
    /// With an array layer: only this drive's zone (default: the zone on every drive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drive: Option<u32>,
}

/// `[[faults.commands]]`: each command of `ops` from `from` until `until` (from the start of
/// the workload) fails with `status` with probability `rate`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CommandFaultConfig {
    #[serde(default)]
    pub from: Duration,
    /// None: to the end of the run.
    #[serde(default)]
    pub until: Option<Duration>,
    /// Reads, writes (writes and appends) or data (both; the default).
    #[serde(default = "data")]
    pub ops: FaultOps,
    pub status: FaultStatus,
    pub rate: f64,
}

fn data() -> FaultOps {
    FaultOps::Data
}

/// What a zone fault puts the zone in.
#[derive(Clone, Copy, Debug, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultZoneState {
    ReadOnly,
    Offline,
}

/// The statuses a command fault returns (NVMe base 2.0: Internal Error 00h/06h, Write Fault
/// 02h/80h, Unrecovered Read Error 02h/81h).
#[derive(Clone, Copy, Debug, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultStatus {
    InternalError,
    WriteFault,
    UnrecoveredReadError,
}

impl FaultZoneState {
    fn state(self) -> ZoneState {
        match self {
            FaultZoneState::ReadOnly => ZoneState::ReadOnly,
            FaultZoneState::Offline => ZoneState::Offline,
        }
    }
}

impl FaultStatus {
    fn status(self) -> Status {
        match self {
            FaultStatus::InternalError => Status::InternalError,
            FaultStatus::WriteFault => Status::WriteFault,
            FaultStatus::UnrecoveredReadError => Status::UnrecoveredReadError,
        }
    }
}

impl FaultsConfig {
    /// Checks the zones against the device's (`info`, of `drives` drives for an array) and
    /// every fault's fields; `layer`: a layer hides the device's zones and dies.
    pub(super) fn validate(
        &self,
        info: &DeviceInfo,
        dies: u32,
        drives: Option<u32>,
        layer: bool,
    ) -> Result<(), ConfigError> {
        let zone_count = info.zoned.as_ref().map_or(0, |z| z.zone_count);
        let at_start = [
            ("faults.read_only_zones", &self.read_only_zones),
            ("faults.offline_zones", &self.offline_zones),
        ];
        for (name, zones) in at_start {
            if let Some(z) = zones.iter().find(|&&z| z >= zone_count) {
                return Err(ConfigError::field(
                    name,
                    format!("zone {z} does not exist; the device has {zone_count} zones"),
                ));
            }
        }
        let zoned_faults = !(self.read_only_zones.is_empty()
            && self.offline_zones.is_empty()
            && self.zones.is_empty());
        if layer && zoned_faults {
            return Err(ConfigError::field(
                "faults",
                "faults put the device's own zones in Read Only or Offline; they do not combine with a static or eZNS [layer]",
            ));
        }
        self.validate_zones(info, zone_count, drives)?;
        self.validate_dies(dies, layer)?;
        self.validate_commands()
    }

    fn validate_zones(
        &self,
        info: &DeviceInfo,
        zone_count: u32,
        drives: Option<u32>,
    ) -> Result<(), ConfigError> {
        for (i, f) in self.zones.iter().enumerate() {
            let field = |k: &str| format!("faults.zones[{i}].{k}");
            if info.zoned.is_none() {
                return Err(ConfigError::field(
                    field("zone"),
                    "a conventional device has no zones to fail",
                ));
            }
            if f.zone >= zone_count {
                return Err(ConfigError::field(
                    field("zone"),
                    format!(
                        "zone {} does not exist; the device has {zone_count} zones",
                        f.zone
                    ),
                ));
            }
            match (f.drive, drives) {
                (Some(_), None) => {
                    return Err(ConfigError::field(
                        field("drive"),
                        "names a drive of an array ([layer] kind = \"array\"); this device is one drive",
                    ));
                }
                (Some(d), Some(n)) if d >= n => {
                    return Err(ConfigError::field(
                        field("drive"),
                        format!("drive {d} does not exist; the array has {n} drives"),
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn validate_dies(&self, dies: u32, layer: bool) -> Result<(), ConfigError> {
        for (i, f) in self.dies.iter().enumerate() {
            let field = |k: &str| format!("faults.dies[{i}].{k}");
            if layer {
                return Err(ConfigError::field(
                    field("die"),
                    "slows a die of the device itself; it does not combine with a static or eZNS [layer]",
                ));
            }
            if f.die >= dies {
                return Err(ConfigError::field(
                    field("die"),
                    format!("die {} does not exist; the device has {dies} dies", f.die),
                ));
            }
            if !(1.0..=1000.0).contains(&f.factor) {
                return Err(ConfigError::field(
                    field("factor"),
                    format!("{} must be between 1 and 1000", f.factor),
                ));
            }
            if f.until.is_some_and(|u| u <= f.from) {
                return Err(ConfigError::field(field("until"), "must be after `from`"));
            }
        }
        Ok(())
    }

    fn validate_commands(&self) -> Result<(), ConfigError> {
        for (i, f) in self.commands.iter().enumerate() {
            let field = |k: &str| format!("faults.commands[{i}].{k}");
            if !(f.rate > 0.0 && f.rate <= 1.0) {
                return Err(ConfigError::field(
                    field("rate"),
                    format!("{} must be above 0 and at most 1", f.rate),
                ));
            }
            if f.until.is_some_and(|u| u <= f.from) {
                return Err(ConfigError::field(field("until"), "must be after `from`"));
            }
        }
        Ok(())
    }

    /// The run-time faults, with times from the start of the workload (the device is set up
    /// first), drawing from the run's `seed`. Call after [`FaultsConfig::validate`].
    pub fn plan(&self, seed: u64) -> FaultPlan {
        let t = |d: Duration| Instant::ZERO + d;
        FaultPlan {
            zones: self
                .zones
                .iter()
                .map(|f| ZoneFault {
                    at: t(f.at),
                    zone: f.zone,
                    state: f.state.state(),
                    drive: f.drive,
                })
                .collect(),
            dies: self
                .dies
                .iter()
                .map(|f| DieFault {
                    from: t(f.from),
                    until: f.until.map_or(Instant::NEVER, t),
                    die: f.die,
                    permille: (f.factor * 1000.0).round() as u32,
                })
                .collect(),
            commands: self
                .commands
                .iter()
                .map(|f| CommandFault {
                    from: t(f.from),
                    until: f.until.map_or(Instant::NEVER, t),
                    ops: f.ops,
                    status: f.status.status(),
                    rate: f.rate,
                })
                .collect(),
            seed: mix_seed(seed, 0x4641_554c_5453), // "FAULTS"
        }
    }
}
