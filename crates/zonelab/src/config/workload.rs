//! fio-like job descriptions (`[[job]]` tables) and their validation against a device.

use serde::{Deserialize, Serialize};

use super::ConfigError;
use super::device::Geometry;
use crate::units::{Bytes, Duration, Extent};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Rw {
    Read,
    Write,
    Randread,
    Randwrite,
    Randrw,
}

impl Rw {
    pub fn writes(self) -> bool {
        matches!(self, Rw::Write | Rw::Randwrite | Rw::Randrw)
    }
    pub fn random(self) -> bool {
        matches!(self, Rw::Randread | Rw::Randwrite | Rw::Randrw)
    }
}

/// One `[[job]]` as written. Names follow fio's options.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct JobConfig {
    #[serde(default)]
    pub name: Option<String>,
    pub rw: Rw,
    pub bs: Bytes,
    #[serde(default = "super::one")]
    pub iodepth: u32,
    #[serde(default = "super::one")]
    pub numjobs: u32,
    #[serde(default = "zero_extent")]
    pub offset: Extent,
    /// Region the job works in; defaults to the rest of the namespace from `offset`.
    #[serde(default)]
    pub size: Option<Extent>,
    /// Bytes to transfer per loop; defaults to `size`.
    #[serde(default)]
    pub io_size: Option<Bytes>,
    #[serde(default = "super::one")]
    pub loops: u32,
    #[serde(default)]
    pub runtime: Option<Duration>,
    #[serde(default)]
    pub time_based: bool,
    /// Percentage of reads in `randrw`.
    #[serde(default = "fifty")]
    pub rwmixread: u32,
    /// Bandwidth cap in bytes per second.
    #[serde(default)]
    pub rate: Option<Bytes>,
    #[serde(default)]
    pub rate_iops: Option<u64>,
    /// Pause after each completion before the next issue.
    #[serde(default)]
    pub thinktime: Option<Duration>,
    /// Zones each clone of this job keeps open for writing (fio's job_max_open_zones);
    /// 0: an equal share of the device's open/active limit among all writers.
    #[serde(default)]
    pub max_open_zones: u32,
    /// Share of the job's region written before zone_reset_frequency applies (0..1).
    #[serde(default)]
    pub zone_reset_threshold: f64,
    /// Once past the threshold, reset the target zone every 1/frequency writes (0..1).
    #[serde(default)]
    pub zone_reset_frequency: f64,
    /// Issue writes as Zone Append commands.
    #[serde(default)]
    pub zone_append: bool,
    /// Sequential writers: after writing this much into a zone, leave it (see
    /// `zone_fill_action`) and go on in the next zone: a host that uses zones partly.
    #[serde(default)]
    pub zone_fill: Option<Bytes>,
    /// What a writer does with a zone it leaves at `zone_fill`: "reset" it (after draining its
    /// I/O, as fio does), or "abandon" it open, as an application that quit would.
    #[serde(default)]
    pub zone_fill_action: ZoneFillAction,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ZoneFillAction {
    #[default]
    Reset,
    Abandon,
}

fn fifty() -> u32 {
    50
}
fn zero_extent() -> Extent {
    Extent::Bytes(0)
}

/// A job resolved against the device: LBAs and zones instead of human units.
#[derive(Clone, Debug, PartialEq)]
pub struct JobSpec {
    pub name: String,
    pub rw: Rw,
    pub block_lbas: u64,
    pub iodepth: u32,
    pub numjobs: u32,
    pub first_zone: u32,
    pub zone_count: u32,
    /// LBAs per loop (per clone).
    pub io_lbas: u64,
    pub loops: u32,
    pub runtime_ns: Option<u64>,
    pub time_based: bool,
    pub read_percent: u32,
    pub rate_bytes_per_s: Option<u64>,
    pub rate_iops: Option<u64>,
    pub thinktime_ns: u64,
    pub max_open_zones: u32,
    pub zone_reset_threshold: f64,
    pub zone_reset_frequency: f64,
    pub zone_append: bool,
    pub zone_fill_lbas: Option<u64>,
    pub zone_fill_action: ZoneFillAction,
}

impl JobConfig {
    pub fn validate(&self, index: usize, geo: &Geometry) -> Result<JobSpec, ConfigError> {
        let f = |name: &str| format!("job[{index}].{name}");
        let lba = geo.lba_size_bytes;
        let zone_bytes = geo.zone_size_bytes;
        let ns_bytes = geo.namespace_lbas() * lba;
        let bs = self.bs.0;
        if bs == 0 || !bs.is_multiple_of(lba) {
            return Err(ConfigError::field(
                f("bs"),
                format!("{bs} must be a positive multiple of the LBA size {lba}"),
            ));
        }
        if bs > geo.zone_capacity_bytes {
            return Err(ConfigError::field(
                f("bs"),
                format!(
                    "{bs} is larger than the zone capacity {}",
                    geo.zone_capacity_bytes
                ),
            ));
        }
        for (name, v) in [
            ("iodepth", self.iodepth),
            ("numjobs", self.numjobs),
            ("loops", self.loops),
        ] {
            if v == 0 {
                return Err(ConfigError::field(f(name), "must be at least 1"));
            }
        }
        let offset = self.offset.to_bytes(zone_bytes, ns_bytes);
        if !offset.is_multiple_of(zone_bytes) {
            return Err(ConfigError::field(
                f("offset"),
                format!(
                    "{offset} is not on a zone boundary (zone size {zone_bytes}); zoned jobs start at a zone"
                ),
            ));
        }
        if offset >= ns_bytes {
            return Err(ConfigError::field(
                f("offset"),
                format!("{offset} is beyond the end of the device ({ns_bytes} bytes)"),
            ));
        }
        let size = match self.size {
            Some(s) => s.to_bytes(zone_bytes, ns_bytes),
            None => ns_bytes - offset,
        };
        if size == 0 {
            return Err(ConfigError::field(f("size"), "must be greater than 0"));
        }
        if offset + size > ns_bytes {
            return Err(ConfigError::field(
                f("size"),
                format!(
                    "offset {offset} + size {size} goes beyond the end of the device ({ns_bytes} bytes)"
                ),
            ));
        }
        let zone_count = size.div_ceil(zone_bytes);
        if self.numjobs as u64 > zone_count && self.rw.writes() {
            return Err(ConfigError::field(
                f("numjobs"),
                format!(
                    "{} writers need at least as many zones; the job covers {zone_count}",
                    self.numjobs
                ),
            ));
        }
        let io_bytes = self.io_size.map(|b| b.0).unwrap_or(size);
        if io_bytes == 0 {
            return Err(ConfigError::field(f("io_size"), "must be greater than 0"));
        }
        if self.rwmixread > 100 {
            return Err(ConfigError::field(
                f("rwmixread"),
                "must be between 0 and 100",
            ));
        }
        if self.time_based && self.runtime.is_none() {
            return Err(ConfigError::field(f("time_based"), "needs a runtime"));
        }
        if self.runtime.is_some_and(|r| r.ns() == 0) {
            return Err(ConfigError::field(f("runtime"), "must be greater than 0"));
        }
        if self.rate.is_some_and(|r| r.0 == 0) {
            return Err(ConfigError::field(f("rate"), "must be greater than 0"));
        }
        if self.rate_iops == Some(0) {
            return Err(ConfigError::field(f("rate_iops"), "must be greater than 0"));
        }
        for (name, v) in [
            ("zone_reset_threshold", self.zone_reset_threshold),
            ("zone_reset_frequency", self.zone_reset_frequency),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return Err(ConfigError::field(
                    f(name),
                    format!("{v} must be between 0 and 1"),
                ));
            }
        }
        if let Some(fill) = self.zone_fill {
            if self.rw != Rw::Write {
                return Err(ConfigError::field(
                    f("zone_fill"),
                    "applies to sequential writers (rw = \"write\")",
                ));
            }
            if fill.0 == 0 || fill.0 % lba != 0 || fill.0 > geo.zone_capacity_bytes {
                return Err(ConfigError::field(
                    f("zone_fill"),
                    format!(
                        "{} must be a positive multiple of the LBA size, at most the zone capacity {}",
                        fill.0, geo.zone_capacity_bytes
                    ),
                ));
            }
        }
        if self.zone_append && !self.rw.writes() {
            return Err(ConfigError::field(
                f("zone_append"),
                "only applies to jobs that write",
            ));
        }
        if let Some(zasl) = geo.zone_append_size_limit_bytes
            && self.zone_append
            && bs > zasl
        {
            return Err(ConfigError::field(
                f("bs"),
                format!("{bs} is above the device's zone append size limit {zasl}"),
            ));
        }
        if let Some(device_open) = geo.max_open_zones
            && self.max_open_zones > device_open
        {
            return Err(ConfigError::field(
                f("max_open_zones"),
                format!(
                    "{} is above the device's max_open_zones {device_open}",
                    self.max_open_zones
                ),
            ));
        }
        Ok(JobSpec {
            name: self.name.clone().unwrap_or_else(|| format!("job{index}")),
            rw: self.rw,
            block_lbas: bs / lba,
            iodepth: self.iodepth,
            numjobs: self.numjobs,
            first_zone: (offset / zone_bytes) as u32,
            zone_count: zone_count as u32,
            io_lbas: io_bytes.div_ceil(lba),
            loops: self.loops,
            runtime_ns: self.runtime.map(Duration::ns),
            time_based: self.time_based,
            read_percent: match self.rw {
                Rw::Read | Rw::Randread => 100,
                Rw::Write | Rw::Randwrite => 0,
                Rw::Randrw => self.rwmixread,
            },
            rate_bytes_per_s: self.rate.map(|b| b.0),
            rate_iops: self.rate_iops,
            thinktime_ns: self.thinktime.map(Duration::ns).unwrap_or(0),
            max_open_zones: self.max_open_zones,
            zone_reset_threshold: self.zone_reset_threshold,
            zone_reset_frequency: self.zone_reset_frequency,
            zone_append: self.zone_append,
            zone_fill_lbas: self.zone_fill.map(|b| b.0 / lba),
            zone_fill_action: self.zone_fill_action,
        })
    }
}

/// Writers of different jobs must not share zones: their write pointers would collide.
pub(super) fn check_writer_overlap(jobs: &[JobSpec]) -> Result<(), ConfigError> {
    let writers: Vec<(usize, &JobSpec)> = jobs
        .iter()
        .enumerate()
        .filter(|(_, j)| j.rw.writes())
        .collect();
    for (i, (ia, a)) in writers.iter().enumerate() {
        for (ib, b) in &writers[i + 1..] {
            let (a0, a1) = (a.first_zone, a.first_zone + a.zone_count);
            let (b0, b1) = (b.first_zone, b.first_zone + b.zone_count);
            if a0 < b1 && b0 < a1 {
                return Err(ConfigError::field(
                    format!("job[{ib}].offset"),
                    format!(
                        "writes zones {b0}..{b1}, which overlap job[{ia}]'s zones {a0}..{a1}; give writers separate regions"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Gives writers without `max_open_zones` an equal share of the device's open and active
/// limits, then checks that all writers together fit the active-zone limit.
pub(super) fn resolve_open_budget(jobs: &mut [JobSpec], geo: &Geometry) -> Result<(), ConfigError> {
    let clones: u64 = jobs
        .iter()
        .filter(|j| j.rw.writes())
        .map(|j| j.numjobs as u64)
        .sum();
    let device_limit = match (geo.max_open_zones, geo.max_active_zones) {
        (Some(o), Some(a)) => Some(o.min(a)),
        (o, a) => o.or(a),
    };
    for job in jobs.iter_mut().filter(|j| j.max_open_zones == 0) {
        let slice = (job.zone_count / job.numjobs).max(1);
        let share = device_limit.map_or(u32::MAX, |l| (l as u64 / clones.max(1)).max(1) as u32);
        job.max_open_zones = share.min(slice);
    }
    let Some(mar) = geo.max_active_zones else {
        return Ok(());
    };
    let wanted: u64 = jobs
        .iter()
        .filter(|j| j.rw.writes())
        .map(|j| j.max_open_zones as u64 * j.numjobs as u64)
        .sum();
    if wanted > mar as u64 {
        return Err(ConfigError::field(
            "job.max_open_zones",
            format!(
                "the writers keep up to {wanted} zones open in all, above the device's max_active_zones {mar}; lower max_open_zones or numjobs"
            ),
        ));
    }
    Ok(())
}
