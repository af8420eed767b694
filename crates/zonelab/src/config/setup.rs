//! How a device starts: `[prefill]` (zones filled before the measured phase, set directly in
//! O(zones)) for a ZNS device and `[precondition]` (fill, then random overwrite until the WAF is
//! steady) for a conventional SSD.

use serde::{Deserialize, Serialize};

use super::{ConfigError, region};
use crate::ftl::{FtlSpec, PreconditionPlan};
use crate::units::{Bytes, Extent};
use crate::zns::{PrefillPattern, PrefillPlan};

/// How prefill chooses zones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PatternConfig {
    #[default]
    Sequential,
    Random,
}

/// A zone's fill level: one share of its capacity, or a range drawn from per zone.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum FillConfig {
    Level(f64),
    Range([f64; 2]),
}

impl<'de> Deserialize<'de> for FillConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = FillConfig;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a fill level such as 0.5, or a range such as [0.2, 0.8]")
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<FillConfig, E> {
                Ok(FillConfig::Level(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<FillConfig, E> {
                Ok(FillConfig::Level(v as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<FillConfig, E> {
                Ok(FillConfig::Level(v as f64))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<FillConfig, A::Error> {
                let bad = || serde::de::Error::custom("a range is two levels: [low, high]");
                let low: f64 = seq.next_element()?.ok_or_else(bad)?;
                let high: f64 = seq.next_element()?.ok_or_else(bad)?;
                if seq.next_element::<f64>()?.is_some() {
                    return Err(bad());
                }
                Ok(FillConfig::Range([low, high]))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PrefillConfig {
    /// Share of the region's capacity written before the workload runs.
    #[serde(default = "one_f64")]
    pub fraction: f64,
    /// Where the region starts (bytes, "16z" or "50%"), zone-aligned; default the first zone.
    #[serde(default)]
    pub offset: Option<Extent>,
    /// How much the region covers; default the rest of the device.
    #[serde(default)]
    pub size: Option<Extent>,
    /// With a [layer] of several namespaces: the namespaces to fill the region of, in this
    /// order (the order the layer places their zones in); default all of them.
    #[serde(default)]
    pub namespaces: Option<Vec<u32>>,
    /// How full each written zone is: 1.0 (default), 0.5, or a range [0.2, 0.8] drawn per zone.
    #[serde(default)]
    pub fill: Option<FillConfig>,
    /// Zones in order ("sequential", default) or in a random order from the seed ("random").
    #[serde(default)]
    pub pattern: PatternConfig,
}

fn one_f64() -> f64 {
    1.0
}

/// `[precondition]`: put a conventional SSD in a used state before the run, taking no simulated
/// time (see `ftl::precondition` for how steady state is decided).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PreconditionConfig {
    /// Share of the logical space written sequentially first (from LBA 0); default 1.
    #[serde(default = "one_f64")]
    pub fill: f64,
    /// Then overwrite the filled space at random until steady state (default true).
    #[serde(default = "yes")]
    pub random_overwrite: bool,
    /// Size of each random write (default 4 KiB; a multiple of the mapping unit).
    #[serde(default = "four_kib")]
    pub bs: Bytes,
    /// Each round writes this share of the filled space (default 0.1).
    #[serde(default = "tenth")]
    pub round: f64,
    /// Rounds the steady-state test looks at (SNIA PTS: 5).
    #[serde(default = "five")]
    pub window: u32,
    /// Range of the round WAF within the window, as a share of its mean (SNIA PTS: 0.2; default 0.05).
    #[serde(default = "five_percent")]
    pub tolerance: f64,
    /// Excursion of its fitted line, as a share of its mean (SNIA PTS: 0.1; default 0.05).
    #[serde(default = "five_percent")]
    pub slope_tolerance: f64,
    /// Rounds at most (default 100).
    #[serde(default = "hundred")]
    pub max_rounds: u32,
    /// Overwrite as `streams` sequential writers instead of at random: each writes a random
    /// range of this size of its share of the filled space, trimmed first, then the next (a
    /// block SSD used as a ZNS SSD is: Bjorling et al., ATC 2021, section 5.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim_ranges: Option<Bytes>,
    /// Writers of `trim_ranges` (default 4, as that section's).
    #[serde(default = "four")]
    pub streams: u32,
}

/// Preconditioning rounds at most (`max_rounds`, and the steady-state `window`).
pub const MAX_ROUNDS: u32 = 10_000;
/// The steady-state tolerances, as shares of the mean WAF (SNIA PTS: 0.2 and 0.1; chosen: 100,
/// where every window is steady).
pub const MAX_TOLERANCE: f64 = 100.0;

fn yes() -> bool {
    true
}
fn four_kib() -> Bytes {
    Bytes(4096)
}
fn tenth() -> f64 {
    0.1
}
fn five() -> u32 {
    5
}
fn five_percent() -> f64 {
    0.05
}
fn hundred() -> u32 {
    100
}
fn four() -> u32 {
    4
}

impl PreconditionConfig {
    /// The plan for `spec`, in mapping units.
    pub(super) fn plan(&self, spec: &FtlSpec, seed: u64) -> Result<PreconditionPlan, ConfigError> {
        let f = |name: &str| format!("precondition.{name}");
        if !(self.fill > 0.0 && self.fill <= 1.0) {
            return Err(ConfigError::field(
                f("fill"),
                format!("{} must be above 0 and at most 1", self.fill),
            ));
        }
        let unit = spec.mapping_unit_bytes;
        let bs = self.bs.0;
        if bs == 0 || !bs.is_multiple_of(unit) {
            return Err(ConfigError::field(
                f("bs"),
                format!("{bs} must be a positive multiple of the mapping unit {unit}"),
            ));
        }
        let fill_units = (spec.logical_units as f64 * self.fill) as u64;
        if fill_units < bs / unit {
            return Err(ConfigError::field(
                f("fill"),
                format!("{} of the device is less than one bs of {bs}", self.fill),
            ));
        }
        self.check_rounds()?;
        if !(1..=1024).contains(&self.streams) {
            return Err(ConfigError::field(
                f("streams"),
                format!("{} must be between 1 and 1024", self.streams),
            ));
        }
        let ranges = match self.trim_ranges {
            None => None,
            Some(r) => {
                let per_stream = fill_units / self.streams as u64 * unit;
                if r.0 == 0 || !r.0.is_multiple_of(bs) || r.0 > per_stream {
                    return Err(ConfigError::field(
                        f("trim_ranges"),
                        format!(
                            "{} must be a positive multiple of bs ({bs}), at most each stream's share of the filled space ({per_stream} bytes)",
                            r.0
                        ),
                    ));
                }
                Some((r.0 / unit, self.streams))
            }
        };
        Ok(PreconditionPlan {
            fill_units,
            random_overwrite: self.random_overwrite,
            ranges,
            block_units: bs / unit,
            round_units: ((fill_units as f64 * self.round) as u64).max(bs / unit),
            window: self.window,
            tolerance: self.tolerance,
            slope_tolerance: self.slope_tolerance,
            max_rounds: self.max_rounds,
            seed,
        })
    }

    /// How the rounds run and when they stop: `round`, `window`, `max_rounds`, `tolerance`,
    /// `slope_tolerance`.
    fn check_rounds(&self) -> Result<(), ConfigError> {
        let f = |name: &str| format!("precondition.{name}");
        if !(self.round > 0.0 && self.round <= 10.0) {
            return Err(ConfigError::field(
                f("round"),
                format!(
                    "{} must be above 0 and at most 10 (times the filled space)",
                    self.round
                ),
            ));
        }
        for (name, v, lo) in [
            ("window", self.window, 2),
            ("max_rounds", self.max_rounds, 1),
        ] {
            if !(lo..=MAX_ROUNDS).contains(&v) {
                return Err(ConfigError::field(
                    f(name),
                    format!("{v} must be between {lo} and {MAX_ROUNDS} rounds"),
                ));
            }
        }
        for (name, v) in [
            ("tolerance", self.tolerance),
            ("slope_tolerance", self.slope_tolerance),
        ] {
            super::ranges::within_f64(&f(name), v, 0.0, MAX_TOLERANCE)?;
        }
        Ok(())
    }
}

impl PrefillConfig {
    /// The zones to fill, checked against the device.
    pub(super) fn plan(
        &self,
        info: &crate::device::DeviceInfo,
        skip: &[u32],
        seed: u64,
    ) -> Result<PrefillPlan, ConfigError> {
        let z = info.zoned.as_ref().expect("zoned");
        if !(0.0..=1.0).contains(&self.fraction) {
            return Err(ConfigError::field(
                "prefill.fraction",
                format!(
                    "{} must be between 0 and 1",
                    super::ranges::number(self.fraction)
                ),
            ));
        }
        let (first, count, _) =
            region::zone_region("prefill.", self.offset, self.size, info.lba_size_bytes, z)?;
        let fill = match self.fill.unwrap_or(FillConfig::Level(1.0)) {
            FillConfig::Level(l) => (l, l),
            FillConfig::Range([a, b]) => (a, b),
        };
        if !(fill.0 > 0.0 && fill.0 <= fill.1 && fill.1 <= 1.0) {
            return Err(ConfigError::field(
                "prefill.fill",
                format!(
                    "{fill:?} must be a level in (0, 1] or a range [low, high] with 0 < low <= high <= 1"
                ),
            ));
        }
        let pattern = match self.pattern {
            PatternConfig::Sequential => PrefillPattern::Sequential,
            PatternConfig::Random => PrefillPattern::Random,
        };
        let plan = PrefillPlan::build(
            pattern,
            first,
            count,
            z.zone_capacity_lbas,
            self.fraction,
            fill,
            1,
            skip,
            seed,
        );
        let partial = plan.partial_zones(z.zone_capacity_lbas);
        if let Some(mar) = z.max_active_zones
            && partial > mar
        {
            return Err(ConfigError::field(
                "prefill.fill",
                format!(
                    "leaves {partial} zones partly written, each holding an active resource; the device allows {mar} active zones"
                ),
            ));
        }
        Ok(plan)
    }
}
