//! `[layer] kind = "ezns"`: eZNS's options (Min et al., eZNS, OSDI 2023), each with the
//! default the paper or the authors' code gives or a CHOSEN one, their limits, and their
//! validation into the [`ElasticSpec`] the elastic layer runs.

use serde::{Deserialize, Serialize};

use super::err;
use crate::config::ConfigError;
use crate::device::DeviceInfo;
use crate::host::elastic::sched::admission::AdmissionParams;
use crate::host::elastic::sched::read_cc::CcParams;
use crate::host::elastic::{ElasticSpec, EwmaSample, Hal, SchedSpec};
use crate::time::Duration;
use crate::units::Bytes;

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EznsConfig {
    /// Namespaces (tenants), each with an equal share of the resources (paper: 4).
    #[serde(default = "super::four")]
    pub namespaces: u32,
    /// V-zones per namespace; default as many as the physical zones allow.
    #[serde(default)]
    pub vzones_per_namespace: Option<u32>,
    /// Physical zones per v-zone (paper: 16).
    #[serde(default = "super::sixteen")]
    pub zones_per_vzone: u32,
    /// Active v-zones per namespace (paper: 16).
    #[serde(default = "super::sixteen")]
    pub max_active_vzones: u32,
    /// Essential active resources, all namespaces together (paper: 4 x 32 = 128; default:
    /// half the device's active limit).
    #[serde(default)]
    pub essentials: Option<u32>,
    /// Spare active resources, all namespaces together (paper: 4 x 32 = 128; default: the
    /// rest of the active limit).
    #[serde(default)]
    pub spares: Option<u32>,
    /// The stripe size at the minimum width; it halves as the width doubles (paper: 32 KiB).
    #[serde(default = "kib32")]
    pub max_stripe_size: Bytes,
    /// Physical zones reserved ahead by the allocator (the authors' code: up to 32; they hold
    /// active resources). CHOSEN default 0: zones are reserved when a group opens.
    #[serde(default)]
    pub reserve_pool: u32,
    /// The local-overdrive EWMA weight is 1 / this (the authors' code: 32).
    #[serde(default = "thirty_two")]
    pub ewma_weight: u32,
    /// When the EWMA samples the active v-zones: "group_open" (CHOSEN default: the paper runs
    /// local overdrive whenever a group opens) or "first_group" (the authors' code).
    #[serde(default)]
    pub ewma_sample: EwmaSampleConfig,
    #[serde(default = "yes")]
    pub local_overdrive: bool,
    #[serde(default = "yes")]
    pub global_overdrive: bool,
    #[serde(default = "yes")]
    pub reclaim: bool,
    /// With local_overdrive off: each namespace's group width (default the minimum width).
    #[serde(default)]
    pub fixed_width: Vec<u32>,
    /// A global-overdrive cycle every this many physical-zone allocations (code: 32).
    #[serde(default = "thirty_two")]
    pub redistribute_every: u32,
    /// Allocations looked at to tell active namespaces (paper: the essentials, N_essential).
    #[serde(default)]
    pub history: Option<u32>,
    /// Reclaim after this many cycles without writes (paper: 2) ...
    #[serde(default = "two")]
    pub reclaim_cycles: u32,
    /// ... and this long without writes (unstated; CHOSEN: 1 s).
    #[serde(default = "one_second")]
    pub reclaim_wait: Duration,
    /// The I/O scheduler (false: both controls off).
    #[serde(default = "yes")]
    pub scheduler: bool,
    #[serde(default = "yes")]
    pub read_cc: bool,
    #[serde(default = "yes")]
    pub write_admission: bool,
    /// Weighted round-robin weights per namespace (unstated; CHOSEN default: all 1).
    #[serde(default)]
    pub weights: Vec<u32>,
    /// Read congestion threshold (paper: 500 us).
    #[serde(default = "us500")]
    pub latency_threshold: Duration,
    /// The window grows by one after this many x cwnd uncongested completions (code: 8).
    #[serde(default = "eight")]
    pub cwnd_increase_every: u32,
    /// The window grows up to this many x the stripe width (paper: 4).
    #[serde(default = "super::four")]
    pub cwnd_max_factor: u32,
    /// Token refresh period (paper: 1 ms).
    #[serde(default = "ms1")]
    pub token_refresh: Duration,
    /// Write latency monitor period (paper: 10 ms).
    #[serde(default = "ms10")]
    pub monitor_period: Duration,
    /// Admission delay per block before the first reading (code: 100 us).
    #[serde(default = "us100")]
    pub initial_delay: Duration,
    /// Token bucket size per unit of stripe width (code: 128 KiB).
    #[serde(default = "kib128")]
    pub bucket_per_width: Bytes,
    /// The layer the v-zones are built over (`[layer.over]`: an array, static zones, or zones
    /// emulated over a conventional device); default the device.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over: Option<Box<super::LayerConfig>>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EwmaSampleConfig {
    #[default]
    GroupOpen,
    FirstGroup,
}

fn two() -> u32 {
    2
}
fn eight() -> u32 {
    8
}
fn thirty_two() -> u32 {
    32
}
fn yes() -> bool {
    true
}
fn kib32() -> Bytes {
    Bytes(32 << 10)
}
fn kib128() -> Bytes {
    Bytes(128 << 10)
}
fn us100() -> Duration {
    Duration::from_us(100)
}
fn us500() -> Duration {
    Duration::from_us(500)
}
fn ms1() -> Duration {
    Duration::from_ms(1)
}
fn ms10() -> Duration {
    Duration::from_ms(10)
}
fn one_second() -> Duration {
    Duration::from_secs(1)
}

/// eZNS's counts (EWMA weight, cycles and intervals counted in allocations or completions;
/// chosen: far beyond the paper's 2 to 32).
pub const MAX_COUNT: u32 = 1_000_000;
/// The congestion window grows to at most this many times the stripe width (paper: 4).
pub const MAX_CWND_FACTOR: u32 = 1024;
/// Weighted round-robin weights (their sum stays far below 2^32 for 64 namespaces).
pub const MAX_WEIGHT: u32 = 1_000_000;
/// eZNS's periods and thresholds (paper: 500 us to 1 s; chosen: one hour).
pub const MAX_TIME: Duration = Duration::from_secs(3_600);
/// The token bucket per unit of stripe width (code: 128 KiB; chosen: 1 GiB).
pub const MAX_BUCKET_BYTES: u64 = 1 << 30;

impl EznsConfig {
    /// eZNS over `device` (a ZNS drive or the zoned layer under it) with `dies` NAND dies below.
    pub fn validate(&self, device: &DeviceInfo, dies: u32) -> Result<ElasticSpec, ConfigError> {
        let lba = device.lba_size_bytes;
        let n = self.namespaces;
        if !(1..=64).contains(&n) {
            return Err(err("namespaces", format!("{n} must be between 1 and 64")));
        }
        let Some(zones) = device.zoned() else {
            return Err(err(
                "kind",
                "eZNS builds v-zones from zones: it needs a zoned device",
            ));
        };
        let Some(mar) = zones.max_active_zones else {
            return Err(err(
                "kind",
                "eZNS splits the device's active limit: the device needs max_active_zones",
            ));
        };
        let zone_count = zones.zone_count;
        let per = self.zones_per_vzone;
        if per == 0 || !per.is_power_of_two() || per > dies {
            return Err(err(
                "zones_per_vzone",
                format!("{per} must be a power of two, at most the {dies} dies"),
            ));
        }
        let (essentials, spares) = self.split_active(mar, n, per)?;
        let (hal, vzones) = self.layout(device, dies, n, per)?;
        let weights = self.check_scheduling(n, zone_count, lba)?;
        Ok(ElasticSpec {
            namespaces: n,
            vzones_per_namespace: vzones,
            zones_per_vzone: per,
            max_active_vzones: self.max_active_vzones,
            essentials,
            spares,
            max_stripe_lbas: self.max_stripe_size.0 / lba,
            reserve_pool: self.reserve_pool,
            ewma_weight: self.ewma_weight,
            ewma_sample: match self.ewma_sample {
                EwmaSampleConfig::GroupOpen => EwmaSample::GroupOpen,
                EwmaSampleConfig::FirstGroup => EwmaSample::FirstGroup,
            },
            local_overdrive: self.local_overdrive,
            global_overdrive: self.global_overdrive,
            reclaim: self.reclaim,
            fixed_width: self.fixed_width.clone(),
            hal,
            redistribute_every: self.redistribute_every,
            history: self.history.unwrap_or(essentials),
            reclaim_cycles: self.reclaim_cycles,
            reclaim_wait: self.reclaim_wait,
            sched: SchedSpec {
                weights,
                read_cc: self.scheduler && self.read_cc,
                write_admission: self.scheduler && self.write_admission,
                cc: CcParams {
                    threshold: self.latency_threshold,
                    ai_every: self.cwnd_increase_every,
                    max_factor: self.cwnd_max_factor,
                },
                admission: AdmissionParams {
                    refresh: self.token_refresh,
                    monitor: self.monitor_period,
                    initial_delay: self.initial_delay,
                    bucket_lbas_per_width: self.bucket_per_width.0 / lba,
                },
            },
        })
    }

    /// The device's active limit split: v-zones, reserve pool, essentials and spares, the
    /// minimum stripe width they give.
    fn split_active(&self, mar: u32, n: u32, per: u32) -> Result<(u32, u32), ConfigError> {
        if self.max_active_vzones == 0 {
            return Err(err("max_active_vzones", "must be at least 1"));
        }
        if self.max_active_vzones > mar {
            return Err(err(
                "max_active_vzones",
                format!(
                    "{} is above the device's active limit {mar}",
                    self.max_active_vzones
                ),
            ));
        }
        if self.reserve_pool >= mar {
            return Err(err(
                "reserve_pool",
                format!(
                    "{} must be below the device's active limit {mar}",
                    self.reserve_pool
                ),
            ));
        }
        let essentials = self.essentials.unwrap_or(mar / 2);
        let spares = self
            .spares
            .unwrap_or(mar.saturating_sub(essentials + self.reserve_pool));
        if essentials + spares + self.reserve_pool > mar {
            return Err(err(
                "spares",
                format!(
                    "essentials {essentials} + spares {spares} + reserve_pool {} exceed the device's active limit {mar}",
                    self.reserve_pool
                ),
            ));
        }
        if !essentials.is_multiple_of(n) || !spares.is_multiple_of(n) {
            return Err(err(
                "essentials",
                format!(
                    "essentials {essentials} and spares {spares} must split evenly over {n} namespaces"
                ),
            ));
        }
        let base = essentials / (n * self.max_active_vzones);
        if base == 0 || !base.is_power_of_two() || !per.is_multiple_of(base) {
            return Err(err(
                "essentials",
                format!(
                    "{essentials} / ({n} namespaces x {} active v-zones) = {base} is the minimum stripe width: it must be a power of two of at least 1 that divides zones_per_vzone {per}",
                    self.max_active_vzones
                ),
            ));
        }
        Ok((essentials, spares))
    }

    /// The largest stripe, the physical zone's room for it and the v-zones that fit, the fixed
    /// widths.
    fn layout(
        &self,
        device: &DeviceInfo,
        dies: u32,
        n: u32,
        per: u32,
    ) -> Result<(Hal, u32), ConfigError> {
        let lba = device.lba_size_bytes;
        let zone_count = device.zoned().map_or(0, |z| z.zone_count);
        let stripe = self.max_stripe_size.0;
        if stripe < lba || !stripe.is_multiple_of(lba) || !(stripe / lba).is_power_of_two() {
            return Err(err(
                "max_stripe_size",
                format!("{stripe} must be a power-of-two multiple of the LBA size {lba}"),
            ));
        }
        let hal = Hal::probe(device, dies, stripe / lba).expect("a zoned device");
        if hal.usable_lbas == 0 {
            return Err(err(
                "max_stripe_size",
                format!("{stripe} leaves no room in a physical zone after its header"),
            ));
        }
        let spare_zones = self.reserve_pool + per;
        let most = zone_count.saturating_sub(spare_zones) / per / n;
        let vzones = self.vzones_per_namespace.unwrap_or(most);
        if vzones == 0 || vzones > most {
            return Err(err(
                "vzones_per_namespace",
                format!(
                    "{vzones} must be between 1 and {most}: {n} namespaces of v-zones of {per} physical zones, leaving {spare_zones} for reclaim and reservations, on a device of {zone_count} zones"
                ),
            ));
        }
        for (i, &w) in self.fixed_width.iter().enumerate() {
            if w == 0 || !w.is_power_of_two() || w > per {
                return Err(err(
                    &format!("fixed_width[{i}]"),
                    format!("{w} must be a power of two, at most zones_per_vzone {per}"),
                ));
            }
        }
        if self.fixed_width.len() > n as usize {
            return Err(err(
                "fixed_width",
                format!("gives {} widths for {n} namespaces", self.fixed_width.len()),
            ));
        }
        Ok((hal, vzones))
    }

    /// The scheduler's weights (returned, one per namespace), counts, periods and bucket.
    fn check_scheduling(&self, n: u32, zone_count: u32, lba: u64) -> Result<Vec<u32>, ConfigError> {
        let weights = if self.weights.is_empty() {
            vec![1; n as usize]
        } else {
            self.weights.clone()
        };
        if weights.len() != n as usize || weights.iter().any(|w| !(1..=MAX_WEIGHT).contains(w)) {
            return Err(err(
                "weights",
                format!("needs {n} weights between 1 and {MAX_WEIGHT} (one per namespace)"),
            ));
        }
        for (name, v, max) in [
            ("ewma_weight", self.ewma_weight, MAX_COUNT),
            ("redistribute_every", self.redistribute_every, MAX_COUNT),
            ("cwnd_increase_every", self.cwnd_increase_every, MAX_COUNT),
            ("cwnd_max_factor", self.cwnd_max_factor, MAX_CWND_FACTOR),
        ] {
            if !(1..=max).contains(&v) {
                return Err(err(name, format!("{v} must be between 1 and {max}")));
            }
        }
        if self.reclaim_cycles > MAX_COUNT {
            return Err(err(
                "reclaim_cycles",
                format!("{} must be at most {MAX_COUNT}", self.reclaim_cycles),
            ));
        }
        // The history is a queue of that many allocations.
        if self.history.is_some_and(|h| !(1..=zone_count).contains(&h)) {
            return Err(err(
                "history",
                format!("must be between 1 and the device's {zone_count} zones"),
            ));
        }
        for (name, d) in [
            ("latency_threshold", self.latency_threshold),
            ("token_refresh", self.token_refresh),
            ("monitor_period", self.monitor_period),
            ("initial_delay", self.initial_delay),
        ] {
            if d.is_zero() || d > MAX_TIME {
                return Err(err(
                    name,
                    format!("{d} must be above 0 and at most {MAX_TIME}"),
                ));
            }
        }
        if self.reclaim_wait > MAX_TIME {
            return Err(err(
                "reclaim_wait",
                format!("{} must be at most {MAX_TIME}", self.reclaim_wait),
            ));
        }
        let bucket = self.bucket_per_width.0;
        if bucket < lba || !bucket.is_multiple_of(lba) || bucket > MAX_BUCKET_BYTES {
            return Err(err(
                "bucket_per_width",
                format!(
                    "{bucket} must be a positive multiple of the LBA size {lba}, at most {MAX_BUCKET_BYTES}"
                ),
            ));
        }
        Ok(weights)
    }
}
