//! Workload tables: fio-like `[[job]]`s, `[[replay]]`s of traces, and `[[threads]]` of host
//! threads, validated against the device into the workload module's specs.

use serde::{Deserialize, Serialize};

use super::ConfigError;
use crate::device::{DeviceInfo, ZonedInfo};
use crate::time::Duration;
use crate::trace::read::TraceFormat;
use crate::units::{Bytes, Extent};
use crate::workload::replay::{ReplayMode, ReplaySpec};
use crate::workload::threads::ThreadsSpec;
use crate::workload::{HostWorkload, JobSpec, Rw, ZoneFillAction};

/// One `[[job]]` as written. Names follow fio's options.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct JobConfig {
    #[serde(default)]
    pub name: Option<String>,
    /// The namespace the job works in (0-based; a [layer] may have several).
    #[serde(default)]
    pub namespace: u32,
    /// Whose metrics its commands are: default the namespace ("ns1") when the device has
    /// several namespaces, else the job's name.
    #[serde(default)]
    pub tenant: Option<String>,
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
    /// Wait this long after the run starts before the first I/O (fio's startdelay; the
    /// runtime counts from then).
    #[serde(default)]
    pub startdelay: Option<Duration>,
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

/// Ranges of the job fields (chosen: fio's own limits where it has them, else far beyond use;
/// docs/model.md lists them).
pub const MAX_IODEPTH: u32 = 65_536;
/// fio's default `--max-jobs`.
pub const MAX_NUMJOBS: u32 = 4_096;
pub const MAX_LOOPS: u32 = 1_000_000;
/// io_size: one PiB per loop.
pub const MAX_IO_BYTES: u64 = 1 << 50;
/// runtime: a year of simulated time.
pub const MAX_RUNTIME: Duration = Duration::from_secs(365 * 86_400);
/// thinktime and a host thread's CPU per operation: one hour.
pub const MAX_PAUSE: Duration = Duration::from_secs(3_600);
pub const MAX_RATE_IOPS: u64 = 1_000_000_000;
pub const MAX_THREAD_OPS: u64 = 1_000_000_000;

fn fifty() -> u32 {
    50
}
fn zero_extent() -> Extent {
    Extent::Bytes(0)
}

impl JobConfig {
    pub fn validate(&self, index: usize, info: &DeviceInfo) -> Result<JobSpec, ConfigError> {
        let f = |name: &str| format!("job[{index}].{name}");
        let Some(z) = info.zoned.as_ref() else {
            return self.validate_block(index, info);
        };
        let lba = info.lba_size_bytes;
        let zone_capacity_bytes = z.zone_capacity_lbas * lba;
        if self.namespace >= info.namespaces {
            return Err(ConfigError::field(
                f("namespace"),
                format!(
                    "{} does not exist; the device has {} namespace(s), numbered from 0",
                    self.namespace, info.namespaces
                ),
            ));
        }
        let bs = self.bs.0;
        if bs == 0 || !bs.is_multiple_of(lba) {
            return Err(ConfigError::field(
                f("bs"),
                format!("{bs} must be a positive multiple of the LBA size {lba}"),
            ));
        }
        if bs > zone_capacity_bytes {
            return Err(ConfigError::field(
                f("bs"),
                format!(
                    "{bs} is larger than the zone capacity {}",
                    zone_capacity_bytes
                ),
            ));
        }
        for (name, v, max) in [
            ("iodepth", self.iodepth, MAX_IODEPTH),
            ("numjobs", self.numjobs, MAX_NUMJOBS),
            ("loops", self.loops, MAX_LOOPS),
        ] {
            super::device::within(&f(name), v as u64, 1, max as u64)?;
        }
        let (first_zone, zone_count, size) =
            zone_region(&f(""), Some(self.offset), self.size, lba, z)?;
        if self.numjobs > zone_count && self.rw.writes() {
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
        if io_bytes > MAX_IO_BYTES {
            return Err(ConfigError::field(
                f("io_size"),
                format!("{io_bytes} must be at most {MAX_IO_BYTES} (1 PiB per loop)"),
            ));
        }
        if self.runtime.is_some_and(|r| r > MAX_RUNTIME) {
            return Err(ConfigError::field(
                f("runtime"),
                format!("must be at most {MAX_RUNTIME}"),
            ));
        }
        if self.thinktime.is_some_and(|t| t > MAX_PAUSE) {
            return Err(ConfigError::field(
                f("thinktime"),
                format!("must be at most {MAX_PAUSE}"),
            ));
        }
        if let Some(r) = self.rate {
            super::device::within(&f("rate"), r.0, 1, MAX_IO_BYTES)?;
        }
        if let Some(r) = self.rate_iops {
            super::device::within(&f("rate_iops"), r, 1, MAX_RATE_IOPS)?;
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
            if fill.0 == 0 || fill.0 % lba != 0 || fill.0 > zone_capacity_bytes {
                return Err(ConfigError::field(
                    f("zone_fill"),
                    format!(
                        "{} must be a positive multiple of the LBA size, at most the zone capacity {}",
                        fill.0, zone_capacity_bytes
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
        if let Some(zasl) = z.zone_append_size_limit_lbas.map(|l| l * lba)
            && self.zone_append
            && bs > zasl
        {
            return Err(ConfigError::field(
                f("bs"),
                format!("{bs} is above the device's zone append size limit {zasl}"),
            ));
        }
        super::device::within(
            &f("max_open_zones"),
            self.max_open_zones as u64,
            0,
            z.zone_count as u64,
        )?;
        if let Some(device_open) = z.max_open_zones
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
        let name = self.name.clone().unwrap_or_else(|| format!("job{index}"));
        let tenant = self.tenant.clone().unwrap_or_else(|| {
            if info.namespaces > 1 {
                format!("ns{}", self.namespace)
            } else {
                name.clone()
            }
        });
        Ok(JobSpec {
            name,
            nsid: self.namespace,
            tenant,
            rw: self.rw,
            block_lbas: bs / lba,
            iodepth: self.iodepth,
            numjobs: self.numjobs,
            first_zone,
            zone_count,
            first_lba: first_zone as u64 * z.zone_size_lbas,
            region_lbas: zone_count as u64 * z.zone_size_lbas,
            io_lbas: io_bytes.div_ceil(lba),
            loops: self.loops,
            runtime: self.runtime,
            startdelay: self.startdelay.unwrap_or(Duration::ZERO),
            time_based: self.time_based,
            read_percent: match self.rw {
                Rw::Read | Rw::Randread => 100,
                Rw::Write | Rw::Randwrite => 0,
                Rw::Randrw => self.rwmixread,
            },
            rate_bytes_per_s: self.rate.map(|b| b.0),
            rate_iops: self.rate_iops,
            thinktime: self.thinktime.unwrap_or(Duration::ZERO),
            max_open_zones: self.max_open_zones,
            zone_reset_threshold: self.zone_reset_threshold,
            zone_reset_frequency: self.zone_reset_frequency,
            zone_append: self.zone_append,
            zone_fill_lbas: self.zone_fill.map(|b| b.0 / lba),
            zone_fill_action: self.zone_fill_action,
        })
    }
}

impl JobConfig {
    /// A job on a conventional device: fio without zonemode.
    fn validate_block(&self, index: usize, info: &DeviceInfo) -> Result<JobSpec, ConfigError> {
        let f = |name: &str| format!("job[{index}].{name}");
        let lba = info.lba_size_bytes;
        let ns = info.namespace_bytes();
        if self.namespace >= info.namespaces {
            return Err(ConfigError::field(
                f("namespace"),
                format!(
                    "{} does not exist; the device has {} namespace(s), numbered from 0",
                    self.namespace, info.namespaces
                ),
            ));
        }
        let zoned_only = [
            ("max_open_zones", self.max_open_zones != 0),
            ("zone_reset_threshold", self.zone_reset_threshold != 0.0),
            ("zone_reset_frequency", self.zone_reset_frequency != 0.0),
            ("zone_append", self.zone_append),
            ("zone_fill", self.zone_fill.is_some()),
            (
                "zone_fill_action",
                self.zone_fill_action != ZoneFillAction::default(),
            ),
        ];
        if let Some((name, _)) = zoned_only.iter().find(|(_, set)| *set) {
            return Err(ConfigError::field(
                f(name),
                "applies to zoned devices; this device is conventional (fio without zonemode)",
            ));
        }
        let bs = self.bs.0;
        if bs == 0 || !bs.is_multiple_of(lba) || bs > ns {
            return Err(ConfigError::field(
                f("bs"),
                format!(
                    "{bs} must be a positive multiple of the LBA size {lba}, at most the device's {ns} bytes"
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
        let bytes = |name: &str, e: Extent| -> Result<u64, ConfigError> {
            match e {
                Extent::Zones(n) => Err(ConfigError::field(
                    f(name),
                    format!(
                        "`{n}z` counts zones; a conventional device has none: give bytes or a percentage"
                    ),
                )),
                e => Ok(e.to_bytes(0, ns)),
            }
        };
        let offset = bytes("offset", self.offset)?;
        if !offset.is_multiple_of(lba) || offset >= ns {
            return Err(ConfigError::field(
                f("offset"),
                format!(
                    "{offset} must be a multiple of the LBA size {lba} below the device's {ns} bytes"
                ),
            ));
        }
        let size = match self.size {
            Some(s) => bytes("size", s)?,
            None => ns - offset,
        };
        if size > ns - offset {
            return Err(ConfigError::field(
                f("size"),
                format!(
                    "offset {offset} + size {size} goes beyond the end of the device ({ns} bytes)"
                ),
            ));
        }
        let per_clone = if self.rw.writes() {
            self.numjobs as u64
        } else {
            1
        };
        if size / bs < per_clone {
            return Err(ConfigError::field(
                f("size"),
                format!("{size} holds fewer than one bs of {bs} per writer clone"),
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
        let name = self.name.clone().unwrap_or_else(|| format!("job{index}"));
        Ok(JobSpec {
            tenant: self.tenant.clone().unwrap_or_else(|| name.clone()),
            name,
            nsid: self.namespace,
            rw: self.rw,
            block_lbas: bs / lba,
            iodepth: self.iodepth,
            numjobs: self.numjobs,
            first_zone: 0,
            zone_count: 0,
            first_lba: offset / lba,
            region_lbas: size / bs * bs / lba,
            io_lbas: io_bytes.div_ceil(lba),
            loops: self.loops,
            runtime: self.runtime,
            startdelay: self.startdelay.unwrap_or(Duration::ZERO),
            time_based: self.time_based,
            read_percent: match self.rw {
                Rw::Read | Rw::Randread => 100,
                Rw::Write | Rw::Randwrite => 0,
                Rw::Randrw => self.rwmixread,
            },
            rate_bytes_per_s: self.rate.map(|b| b.0),
            rate_iops: self.rate_iops,
            thinktime: self.thinktime.unwrap_or(Duration::ZERO),
            max_open_zones: 0,
            zone_reset_threshold: 0.0,
            zone_reset_frequency: 0.0,
            zone_append: false,
            zone_fill_lbas: None,
            zone_fill_action: ZoneFillAction::default(),
        })
    }
}

/// A region of zones given by `offset` and `size` (bytes, "16z" or "50%"): its first zone, its
/// zone count, and its size in bytes. `prefix` names the fields in errors.
pub(super) fn zone_region(
    prefix: &str,
    offset: Option<Extent>,
    size: Option<Extent>,
    lba: u64,
    z: &ZonedInfo,
) -> Result<(u32, u32, u64), ConfigError> {
    let f = |name: &str| format!("{prefix}{name}");
    let zone_bytes = z.zone_size_lbas * lba;
    let ns_bytes = zone_bytes * z.zone_count as u64;
    let offset = offset.map_or(0, |o| o.to_bytes(zone_bytes, ns_bytes));
    if !offset.is_multiple_of(zone_bytes) {
        return Err(ConfigError::field(
            f("offset"),
            format!(
                "{offset} is not on a zone boundary (zone size {zone_bytes}); zoned work starts at a zone"
            ),
        ));
    }
    if offset >= ns_bytes {
        return Err(ConfigError::field(
            f("offset"),
            format!("{offset} is beyond the end of the device ({ns_bytes} bytes)"),
        ));
    }
    let size = match size {
        Some(s) => s.to_bytes(zone_bytes, ns_bytes),
        None => ns_bytes - offset,
    };
    if size == 0 {
        return Err(ConfigError::field(f("size"), "must be greater than 0"));
    }
    if size > ns_bytes - offset {
        return Err(ConfigError::field(
            f("size"),
            format!(
                "offset {offset} + size {size} goes beyond the end of the device ({ns_bytes} bytes)"
            ),
        ));
    }
    let first = (offset / zone_bytes) as u32;
    let count = size.div_ceil(zone_bytes) as u32;
    Ok((first, count, size))
}

/// Writers of different jobs (and host threads) must not share zones: their write pointers
/// would collide.
pub(super) fn check_writer_overlap(
    jobs: &[JobSpec],
    host: &[HostWorkload],
) -> Result<(), ConfigError> {
    let writers: Vec<(String, u32, u32, u32)> = jobs
        .iter()
        .enumerate()
        .filter(|(_, j)| j.rw.writes())
        .map(|(i, j)| (format!("job[{i}]"), j.first_zone, j.zone_count, j.nsid))
        .chain(host.iter().filter_map(|w| {
            let z = w.zones()?;
            Some((w.name().to_string(), z.first_zone, z.zone_count, 0))
        }))
        .collect();
    for (i, (na, a0, an, ans)) in writers.iter().enumerate() {
        for (nb, b0, bn, bns) in &writers[i + 1..] {
            let (a1, b1) = (a0 + an, b0 + bn);
            if ans == bns && a0 < &b1 && b0 < &a1 {
                return Err(ConfigError::field(
                    format!("{nb}.offset"),
                    format!(
                        "writes zones {b0}..{b1}, which overlap {na}'s zones {a0}..{a1}; give writers separate regions"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Gives writers without `max_open_zones` an equal share of the device's open and active
/// limits left after the prefill's partly written zones (each holds an active resource), then
/// checks that all writers together fit.
pub(super) fn resolve_open_budget(
    jobs: &mut [JobSpec],
    host: &[HostWorkload],
    z: &ZonedInfo,
    prefill_active: u32,
) -> Result<(), ConfigError> {
    // Each namespace has its own limits; host threads and the prefill's count work in
    // namespace 0 (a layer's prefill of other namespaces leaves them as full as namespace 0's).
    let mut namespaces: Vec<u32> = jobs.iter().map(|j| j.nsid).collect();
    namespaces.push(0);
    namespaces.sort_unstable();
    namespaces.dedup();
    for ns in namespaces {
        let mut mine: Vec<JobSpec> = jobs.iter().filter(|j| j.nsid == ns).cloned().collect();
        let no_host: &[HostWorkload] = &[];
        let host = if ns == 0 { host } else { no_host };
        resolve_namespace_budget(&mut mine, host, z, prefill_active)?;
        let mut resolved = mine.into_iter();
        for j in jobs.iter_mut().filter(|j| j.nsid == ns) {
            *j = resolved.next().expect("one resolved job per job");
        }
    }
    Ok(())
}

fn resolve_namespace_budget(
    jobs: &mut [JobSpec],
    host: &[HostWorkload],
    z: &ZonedInfo,
    prefill_active: u32,
) -> Result<(), ConfigError> {
    let clones: u64 = jobs
        .iter()
        .filter(|j| j.rw.writes())
        .map(|j| j.numjobs as u64)
        .sum();
    let thread_zones: u64 = host
        .iter()
        .filter_map(|w| w.zones())
        .map(|z| z.open_zones as u64)
        .sum();
    let open = z.max_open_zones;
    let active = z.max_active_zones.map(|a| a.saturating_sub(prefill_active));
    let device_limit = match (open, active) {
        (Some(o), Some(a)) => Some(o.min(a)),
        (o, a) => o.or(a),
    };
    let budget = device_limit.map(|l| (l as u64).saturating_sub(thread_zones));
    for job in jobs.iter_mut().filter(|j| j.max_open_zones == 0) {
        let slice = (job.zone_count / job.numjobs).max(1);
        let share = budget.map_or(u32::MAX, |l| (l / clones.max(1)).max(1) as u32);
        job.max_open_zones = share.min(slice);
    }
    let Some(limit) = device_limit else {
        return Ok(());
    };
    let wanted: u64 = jobs
        .iter()
        .filter(|j| j.rw.writes())
        .map(|j| j.max_open_zones as u64 * j.numjobs as u64)
        .sum::<u64>()
        + thread_zones;
    if wanted > limit as u64 {
        let why = if prefill_active > 0 {
            format!(
                " ({prefill_active} of the device's active zones are the prefill's partly written zones)"
            )
        } else {
            String::new()
        };
        return Err(ConfigError::field(
            "job.max_open_zones",
            format!(
                "the writers keep up to {wanted} zones open in all, above the {limit} the device allows{why}; lower max_open_zones or numjobs"
            ),
        ));
    }
    Ok(())
}

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

/// One `[[threads]]`: host threads that append and flush (see `workload::threads`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadsConfig {
    #[serde(default)]
    pub name: Option<String>,
    /// How many threads.
    pub count: u32,
    /// Bytes per append.
    pub bs: Bytes,
    /// Appends per thread.
    pub ops: u64,
    /// Flush after each append.
    #[serde(default = "yes")]
    pub fsync: bool,
    /// CPU time per operation, on the modelled host cores.
    #[serde(default)]
    pub cpu: Option<Duration>,
    #[serde(default)]
    pub offset: Option<Extent>,
    #[serde(default)]
    pub size: Option<Extent>,
}

fn yes() -> bool {
    true
}

impl ThreadsConfig {
    pub fn validate(&self, index: usize, info: &DeviceInfo) -> Result<ThreadsSpec, ConfigError> {
        let f = |name: &str| format!("threads[{index}].{name}");
        let z = info.zoned.as_ref().ok_or_else(|| {
            ConfigError::field(f("count"), "host threads append to zones: a zoned device")
        })?;
        let lba = info.lba_size_bytes;
        if !(1..=1_000_000).contains(&self.count) {
            return Err(ConfigError::field(
                f("count"),
                format!("{} must be between 1 and 1000000", self.count),
            ));
        }
        let bs = self.bs.0;
        let cap = z.zone_capacity_lbas * lba;
        if bs == 0 || !bs.is_multiple_of(lba) || bs > cap {
            return Err(ConfigError::field(
                f("bs"),
                format!(
                    "{bs} must be a positive multiple of the LBA size {lba}, at most the zone capacity {cap}"
                ),
            ));
        }
        if let Some(zasl) = z.zone_append_size_limit_lbas
            && bs / lba > zasl
        {
            return Err(ConfigError::field(
                f("bs"),
                format!(
                    "{bs} is above the device's zone append size limit {}",
                    zasl * lba
                ),
            ));
        }
        super::device::within(&f("ops"), self.ops, 1, MAX_THREAD_OPS)?;
        if self.cpu.is_some_and(|c| c > MAX_PAUSE) {
            return Err(ConfigError::field(
                f("cpu"),
                format!("must be at most {MAX_PAUSE}"),
            ));
        }
        let (first_zone, zone_count, _) = zone_region(&f(""), self.offset, self.size, lba, z)?;
        Ok(ThreadsSpec {
            name: self
                .name
                .clone()
                .unwrap_or_else(|| format!("threads{index}")),
            threads: self.count,
            block_lbas: bs / lba,
            ops_per_thread: self.ops,
            fsync: self.fsync,
            cpu_per_op: self.cpu.unwrap_or(Duration::ZERO),
            first_zone,
            zone_count,
        })
    }
}
