//! The `[firmware]` table: which reset and zone-mapping policy the device runs, validated into
//! the [`PolicySpec`] the firmware module builds policies from.

use serde::{Deserialize, Serialize};

use super::ConfigError;
use crate::firmware::{
    EraseTiming, IdleScope, InvalidOrder, PairSpec, PlacementKind, PolicySpec, RenewableSettings,
    S2Erases,
};
use crate::time::Duration;

/// What the firmware does on a host zone reset.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "policy", rename_all = "lowercase", deny_unknown_fields)]
pub enum FirmwareConfig {
    /// Erase at once, holding the dies involved (Jung et al., Preemptive Zone Reset, Electronics 2023, section 2.2.1).
    Synchronous {
        /// Erase every block of the zone rather than only the programmed ones.
        #[serde(default)]
        erase_all_blocks: bool,
    },
    /// Logical-to-physical zone table; Full Zone Erases when free zones run down to `t_free`
    /// (Jung et al., Preemptive Zone Reset, Electronics 2023, section 2.2.2).
    Mapping {
        /// Full Zone Erases start when free zones fall to this many (default 1: only when the
        /// device is about to run out; the paper's Table 2 sets zone_count - 33 to force them).
        #[serde(default = "super::one")]
        t_free: u32,
        /// How many invalid zones an allocation that finds Z_free <= T_free erases (S2).
        #[serde(default)]
        s2_erases: S2Erases,
        /// Erase only programmed blocks (off: the paper's mapping erases every block).
        #[serde(default)]
        wp_optimisation: bool,
    },
    /// Preemptive Zone Reset (Jung et al., Preemptive Zone Reset, Electronics 2023, section 3.2).
    Preemptive {
        /// As for `mapping` (default 1).
        #[serde(default = "super::one")]
        t_free: u32,
        /// As for `mapping`.
        #[serde(default)]
        s2_erases: S2Erases,
        /// Partial Zone Erases start when this many zones are invalid.
        #[serde(default = "super::one")]
        t_invalid: u32,
        /// Erase only programmed blocks (on in the paper's design).
        #[serde(default = "yes")]
        wp_optimisation: bool,
        /// What must be idle before a partial erase: "device" or "zone_dies".
        #[serde(default)]
        idle: IdleScope,
    },
    /// ReZNS renewable zones (Lee et al., ReZNS, Appl. Sci. 2024, section 3).
    Renewable {
        /// A reset zone with more than this share unwritten becomes an Rzone (paper: 0.25).
        #[serde(default = "quarter")]
        threshold: f64,
        /// ReGC runs when the spare-list holds more than this share of all zones (paper: 0.5).
        #[serde(default = "half")]
        regc_fraction: f64,
        /// How often the zombie-zone daemon scans; "0s": never.
        #[serde(default = "hour")]
        zombie_scan_period: Duration,
        /// An active zone not written for this long is a zombie (paper: 1 hour).
        #[serde(default = "hour")]
        zombie_idle: Duration,
        /// Erase whole zones (ReZNS's NVMeVirt charges erases per zone) or programmed blocks.
        #[serde(default = "yes")]
        erase_all_blocks: bool,
    },
    /// The small-zone SSD eZNS runs on (docs/reference/ezns.md): each newly written zone
    /// on the next die in a fixed round-robin order, least-worn zone of that die, lazy erase.
    #[serde(rename = "round_robin")]
    RoundRobin {},
    /// Any valid placement with any erase scheduler (docs/config.md, "Firmware pairs"); a setting
    /// is accepted only where the pair uses it.
    Pair(PairConfig),
}

/// `policy = "pair"`: a placement, an erase scheduler and the settings they use.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PairConfig {
    pub placement: PlacementKind,
    pub erase: EraseTiming,
    /// Renewable placement: as for `renewable`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regc_fraction: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zombie_scan_period: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zombie_idle: Option<Duration>,
    /// On-demand and preemptive erasing: as for `mapping` and `preemptive`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_free: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub s2_erases: Option<S2Erases>,
    /// Which invalid zone to erase next: "fifo" (default) or "least_worn".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid_order: Option<InvalidOrder>,
    /// Preemptive erasing: as for `preemptive`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_invalid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle: Option<IdleScope>,
    /// Erase every block of a dead zone (default: only those holding its data).
    #[serde(default)]
    pub erase_all_blocks: bool,
}

/// The zombie daemon scans every zone each period: at least this long between scans (chosen:
/// the scan then costs less than the I/O in between).
pub const MIN_SCAN_PERIOD: Duration = Duration::from_ms(1);
/// The longest zombie scan period or idle time: 30 days.
pub const MAX_DAEMON_TIME: Duration = Duration::from_secs(30 * 86_400);

fn quarter() -> f64 {
    0.25
}

fn half() -> f64 {
    0.5
}

fn hour() -> Duration {
    Duration::from_secs(3_600)
}

fn yes() -> bool {
    true
}

impl Default for FirmwareConfig {
    fn default() -> Self {
        FirmwareConfig::Synchronous {
            erase_all_blocks: false,
        }
    }
}

impl FirmwareConfig {
    /// Checks the policy's settings for a device of `zone_count` zones.
    pub fn validate(&self, zone_count: u32) -> Result<PolicySpec, ConfigError> {
        Ok(match *self {
            FirmwareConfig::Synchronous { erase_all_blocks } => {
                PolicySpec::Synchronous { erase_all_blocks }
            }
            FirmwareConfig::Mapping {
                t_free,
                s2_erases,
                wp_optimisation,
            } => PolicySpec::Mapping {
                t_free: check_t_free(t_free, zone_count)?,
                s2_erases,
                wp_optimisation,
            },
            FirmwareConfig::Preemptive {
                t_free,
                s2_erases,
                t_invalid,
                wp_optimisation,
                idle,
            } => PolicySpec::Preemptive {
                t_free: check_t_free(t_free, zone_count)?,
                s2_erases,
                t_invalid: check_t_invalid(t_invalid, zone_count)?,
                wp_optimisation,
                idle,
            },
            FirmwareConfig::Renewable {
                threshold,
                regc_fraction,
                zombie_scan_period,
                zombie_idle,
                erase_all_blocks,
            } => PolicySpec::Renewable {
                settings: renewable_settings(
                    threshold,
                    regc_fraction,
                    zombie_scan_period,
                    zombie_idle,
                )?,
                erase_all_blocks,
            },
            FirmwareConfig::RoundRobin {} => PolicySpec::RoundRobin,
            FirmwareConfig::Pair(ref pair) => PolicySpec::Pair(pair.validate(zone_count)?),
        })
    }
}

impl PairConfig {
    fn validate(&self, zone_count: u32) -> Result<PairSpec, ConfigError> {
        let mut spec = PairSpec::new(self.placement, self.erase);
        if !spec.is_valid() {
            return Err(ConfigError::field(
                "firmware.erase",
                format!(
                    "a static placement erases in place when the host resets a zone, so it pairs \
                     only with erase = \"at_reset\", not \"{}\"",
                    self.erase.name()
                ),
            ));
        }
        self.check_unused()?;
        let d = RenewableSettings::default();
        spec.renewable = renewable_settings(
            self.threshold.unwrap_or(d.threshold),
            self.regc_fraction.unwrap_or(d.regc_fraction),
            self.zombie_scan_period.unwrap_or(d.zombie_scan_period),
            self.zombie_idle.unwrap_or(d.zombie_idle),
        )?;
        spec.t_free = check_t_free(self.t_free.unwrap_or(spec.t_free), zone_count)?;
        spec.t_invalid = check_t_invalid(self.t_invalid.unwrap_or(spec.t_invalid), zone_count)?;
        spec.s2_erases = self.s2_erases.unwrap_or_default();
        spec.invalid_order = self.invalid_order.unwrap_or_default();
        spec.idle = self.idle.unwrap_or_default();
        spec.erase_all_blocks = self.erase_all_blocks;
        Ok(spec)
    }

    /// A setting given for a part of the pair that does not use it is an error naming it.
    fn check_unused(&self) -> Result<(), ConfigError> {
        let renewable = self.placement == PlacementKind::Renewable;
        let pooled = matches!(self.erase, EraseTiming::OnDemand | EraseTiming::Preemptive);
        let preemptive = self.erase == EraseTiming::Preemptive;
        let unused = [
            (
                "threshold",
                self.threshold.is_some(),
                renewable,
                "placement = \"renewable\"",
            ),
            (
                "regc_fraction",
                self.regc_fraction.is_some(),
                renewable,
                "placement = \"renewable\"",
            ),
            (
                "zombie_scan_period",
                self.zombie_scan_period.is_some(),
                renewable,
                "placement = \"renewable\"",
            ),
            (
                "zombie_idle",
                self.zombie_idle.is_some(),
                renewable,
                "placement = \"renewable\"",
            ),
            (
                "t_free",
                self.t_free.is_some(),
                pooled,
                "erase = \"on_demand\" or \"preemptive\"",
            ),
            (
                "s2_erases",
                self.s2_erases.is_some(),
                pooled,
                "erase = \"on_demand\" or \"preemptive\"",
            ),
            (
                "invalid_order",
                self.invalid_order.is_some(),
                pooled,
                "erase = \"on_demand\" or \"preemptive\"",
            ),
            (
                "t_invalid",
                self.t_invalid.is_some(),
                preemptive,
                "erase = \"preemptive\"",
            ),
            (
                "idle",
                self.idle.is_some(),
                preemptive,
                "erase = \"preemptive\"",
            ),
        ];
        match unused.iter().find(|(_, set, used, _)| *set && !*used) {
            Some((key, _, _, wants)) => Err(ConfigError::field(
                format!("firmware.{key}"),
                format!("applies only with {wants}; this pair does not use it"),
            )),
            None => Ok(()),
        }
    }
}

/// The renewable placement's settings, each in range.
fn renewable_settings(
    threshold: f64,
    regc_fraction: f64,
    zombie_scan_period: Duration,
    zombie_idle: Duration,
) -> Result<RenewableSettings, ConfigError> {
    for (name, v) in [
        ("firmware.threshold", threshold),
        ("firmware.regc_fraction", regc_fraction),
    ] {
        if !(0.0..=1.0).contains(&v) {
            return Err(ConfigError::field(
                name,
                format!("{} must be between 0 and 1", super::ranges::number(v)),
            ));
        }
    }
    if !zombie_scan_period.is_zero()
        && !(MIN_SCAN_PERIOD..=MAX_DAEMON_TIME).contains(&zombie_scan_period)
    {
        return Err(ConfigError::field(
            "firmware.zombie_scan_period",
            format!(
                "{zombie_scan_period} must be 0s (never) or between {MIN_SCAN_PERIOD} and {MAX_DAEMON_TIME}"
            ),
        ));
    }
    if zombie_idle > MAX_DAEMON_TIME {
        return Err(ConfigError::field(
            "firmware.zombie_idle",
            format!("{zombie_idle} must be at most {MAX_DAEMON_TIME}"),
        ));
    }
    Ok(RenewableSettings {
        threshold,
        regc_fraction,
        zombie_scan_period,
        zombie_idle,
    })
}

fn check_t_invalid(t_invalid: u32, zone_count: u32) -> Result<u32, ConfigError> {
    if t_invalid == 0 || t_invalid > zone_count {
        return Err(ConfigError::field(
            "firmware.t_invalid",
            format!("{t_invalid} must be between 1 and the {zone_count} zones"),
        ));
    }
    Ok(t_invalid)
}

fn check_t_free(t_free: u32, zone_count: u32) -> Result<u32, ConfigError> {
    if t_free >= zone_count {
        return Err(ConfigError::field(
            "firmware.t_free",
            format!("{t_free} must be below the {zone_count} zones of the device"),
        ));
    }
    Ok(t_free)
}
