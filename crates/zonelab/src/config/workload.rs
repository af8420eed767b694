//! fio-like `[[job]]`s, validated against the device into the workload module's specs (regions
//! and zone budgets are in `region.rs`, `[[replay]]` in `replay.rs`, `[[threads]]` in
//! `threads.rs`).

use serde::{Deserialize, Serialize};

use super::ConfigError;
use super::region::zone_region;
use crate::device::{DeviceInfo, ZonedInfo};
use crate::time::Duration;
use crate::units::{Bytes, Extent};
use crate::workload::{JobSpec, Rw, ZoneFillAction};

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
    /// Conventional devices, sequential writers: write the region as ranges of this size, each
    /// in turn a random range of the clone's part, trimmed and then written from its start (a
    /// block SSD used as a ZNS SSD is: Bjorling et al., ATC 2021, section 5.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim_ranges: Option<Bytes>,
    /// What the host's I/O stack adds to every command's latency (submission and completion
    /// paths beyond the device: fio's `lat` includes it). 0 by default: the device's latency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_overhead: Option<Duration>,
}

/// Ranges of the job fields (chosen: fio's own limits where it has them, else far beyond use;
/// docs/config.md lists them).
pub const MAX_IODEPTH: u32 = 65_536;
/// fio's default `--max-jobs`.
pub const MAX_NUMJOBS: u32 = 4_096;
pub const MAX_LOOPS: u32 = 1_000_000;
/// io_size: one PiB per loop.
pub const MAX_IO_BYTES: u64 = 1 << 50;
/// runtime and startdelay: a year of simulated time.
pub const MAX_RUNTIME: Duration = Duration::from_secs(365 * 86_400);
/// A host stack's time per command (chosen: a second, far beyond any I/O stack's).
pub const MAX_HOST_OVERHEAD: Duration = Duration::from_secs(1);
/// thinktime and a host thread's CPU per operation: one hour.
pub const MAX_PAUSE: Duration = Duration::from_secs(3_600);
pub const MAX_RATE_IOPS: u64 = 1_000_000_000;

fn fifty() -> u32 {
    50
}

impl JobConfig {
    /// The ranges of the fields jobs on both kinds of device share (counts, times, rates), so
    /// that neither kind takes a value the other refuses; checked before anything uses them.
    fn check_ranges(&self, index: usize) -> Result<(), ConfigError> {
        let f = |name: &str| format!("job[{index}].{name}");
        for (name, v, max) in [
            ("iodepth", self.iodepth, MAX_IODEPTH),
            ("numjobs", self.numjobs, MAX_NUMJOBS),
            ("loops", self.loops, MAX_LOOPS),
        ] {
            super::ranges::within(&f(name), v as u64, 1, max as u64)?;
        }
        if self.runtime.is_some_and(|r| r.ns() == 0) {
            return Err(ConfigError::field(f("runtime"), "must be greater than 0"));
        }
        for (name, d, max) in [
            ("runtime", self.runtime, MAX_RUNTIME),
            ("startdelay", self.startdelay, MAX_RUNTIME),
            ("thinktime", self.thinktime, MAX_PAUSE),
            ("host_overhead", self.host_overhead, MAX_HOST_OVERHEAD),
        ] {
            super::ranges::at_most(&f(name), d, max)?;
        }
        if let Some(r) = self.rate {
            super::ranges::within(&f("rate"), r.0, 1, MAX_IO_BYTES)?;
        }
        if let Some(r) = self.rate_iops {
            super::ranges::within(&f("rate_iops"), r, 1, MAX_RATE_IOPS)?;
        }
        super::ranges::within(&f("rwmixread"), self.rwmixread as u64, 0, 100)?;
        if self.time_based && self.runtime.is_none() {
            return Err(ConfigError::field(f("time_based"), "needs a runtime"));
        }
        Ok(())
    }

    /// `io_bytes`, the resolved `io_size` (default the region), is in range.
    fn check_io_size(&self, index: usize, io_bytes: u64) -> Result<(), ConfigError> {
        let field = format!("job[{index}].io_size");
        if io_bytes == 0 {
            return Err(ConfigError::field(field, "must be greater than 0"));
        }
        if io_bytes > MAX_IO_BYTES {
            return Err(ConfigError::field(
                field,
                format!("{io_bytes} must be at most {MAX_IO_BYTES} (1 PiB per loop)"),
            ));
        }
        Ok(())
    }
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
        self.check_namespace(index, info)?;
        self.check_ranges(index)?;
        self.check_zoned_bs(index, lba, zone_capacity_bytes)?;
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
        self.check_io_size(index, io_bytes)?;
        self.check_zone_reset_and_fill(index, lba, zone_capacity_bytes)?;
        self.check_zone_append_and_open(index, lba, z)?;
        let name = self.name.clone().unwrap_or_else(|| format!("job{index}"));
        let tenant = self.tenant.clone().unwrap_or_else(|| {
            if info.namespaces > 1 {
                format!("ns{}", self.namespace)
            } else {
                name.clone()
            }
        });
        Ok(JobSpec {
            first_zone,
            zone_count,
            max_open_zones: self.max_open_zones,
            zone_reset_threshold: self.zone_reset_threshold,
            zone_reset_frequency: self.zone_reset_frequency,
            zone_append: self.zone_append,
            zone_fill_lbas: self.zone_fill.map(|b| b.0 / lba),
            zone_fill_action: self.zone_fill_action,
            ..self.job_spec(
                name,
                tenant,
                lba,
                first_zone as u64 * z.zone_size_lbas,
                zone_count as u64 * z.zone_size_lbas,
                io_bytes,
            )
        })
    }

    /// The namespace exists on the device.
    fn check_namespace(&self, index: usize, info: &DeviceInfo) -> Result<(), ConfigError> {
        if self.namespace >= info.namespaces {
            return Err(ConfigError::field(
                format!("job[{index}].namespace"),
                format!(
                    "{} does not exist; the device has {} namespace(s), numbered from 0",
                    self.namespace, info.namespaces
                ),
            ));
        }
        Ok(())
    }

    /// The block size on a zoned device: whole LBAs, at most a zone's capacity.
    fn check_zoned_bs(
        &self,
        index: usize,
        lba: u64,
        zone_capacity_bytes: u64,
    ) -> Result<(), ConfigError> {
        let f = |name: &str| format!("job[{index}].{name}");
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
        Ok(())
    }

    /// The zone reset shares, and a zone fill only for sequential writers, within a zone.
    fn check_zone_reset_and_fill(
        &self,
        index: usize,
        lba: u64,
        zone_capacity_bytes: u64,
    ) -> Result<(), ConfigError> {
        let f = |name: &str| format!("job[{index}].{name}");
        for (name, v) in [
            ("zone_reset_threshold", self.zone_reset_threshold),
            ("zone_reset_frequency", self.zone_reset_frequency),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return Err(ConfigError::field(
                    f(name),
                    format!("{} must be between 0 and 1", super::ranges::number(v)),
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
        Ok(())
    }

    /// Zone append only for writers and within the device's append limit, and the job's open
    /// zones within the device's.
    fn check_zone_append_and_open(
        &self,
        index: usize,
        lba: u64,
        z: &ZonedInfo,
    ) -> Result<(), ConfigError> {
        let f = |name: &str| format!("job[{index}].{name}");
        let bs = self.bs.0;
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
        super::ranges::within(
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
        Ok(())
    }

    /// The spec of a job over LBAs `first_lba..+region_lbas`, with none of the zone settings
    /// (a zoned job sets them over this).
    fn job_spec(
        &self,
        name: String,
        tenant: String,
        lba: u64,
        first_lba: u64,
        region_lbas: u64,
        io_bytes: u64,
    ) -> JobSpec {
        JobSpec {
            name,
            nsid: self.namespace,
            tenant,
            rw: self.rw,
            block_lbas: self.bs.0 / lba,
            iodepth: self.iodepth,
            numjobs: self.numjobs,
            first_zone: 0,
            zone_count: 0,
            first_lba,
            region_lbas,
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
            trim_range_lbas: None,
            host_overhead: self.host_overhead.unwrap_or(Duration::ZERO),
        }
    }
}

impl JobConfig {
    /// A job on a conventional device: fio without zonemode.
    fn validate_block(&self, index: usize, info: &DeviceInfo) -> Result<JobSpec, ConfigError> {
        let f = |name: &str| format!("job[{index}].{name}");
        let lba = info.lba_size_bytes;
        let ns = info.namespace_bytes();
        self.check_namespace(index, info)?;
        self.check_no_zone_settings(index)?;
        self.check_ranges(index)?;
        let bs = self.bs.0;
        if bs == 0 || !bs.is_multiple_of(lba) || bs > ns {
            return Err(ConfigError::field(
                f("bs"),
                format!(
                    "{bs} must be a positive multiple of the LBA size {lba}, at most the device's {ns} bytes"
                ),
            ));
        }
        let (offset, size) = self.block_region(index, lba, ns)?;
        self.check_block_clones(index, size)?;
        let io_bytes = self.io_size.map(|b| b.0).unwrap_or(size);
        self.check_io_size(index, io_bytes)?;
        let name = self.name.clone().unwrap_or_else(|| format!("job{index}"));
        let tenant = self.tenant.clone().unwrap_or_else(|| name.clone());
        Ok(JobSpec {
            trim_range_lbas: self.trim_ranges.map(|b| b.0 / lba),
            ..self.job_spec(
                name,
                tenant,
                lba,
                offset / lba,
                size / bs * bs / lba,
                io_bytes,
            )
        })
    }

    /// No zone settings on a conventional device, and trim ranges whole blocks of a writer.
    fn check_no_zone_settings(&self, index: usize) -> Result<(), ConfigError> {
        let f = |name: &str| format!("job[{index}].{name}");
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
        if let Some(r) = self.trim_ranges
            && (r.0 == 0 || !r.0.is_multiple_of(self.bs.0) || self.rw != Rw::Write)
        {
            return Err(ConfigError::field(
                f("trim_ranges"),
                format!(
                    "{} must be a positive multiple of bs ({}), for rw = \"write\"",
                    r.0, self.bs.0
                ),
            ));
        }
        Ok(())
    }

    /// The offset and size on a conventional device, in bytes (zone counts refused), within
    /// its `ns` bytes.
    fn block_region(&self, index: usize, lba: u64, ns: u64) -> Result<(u64, u64), ConfigError> {
        let f = |name: &str| format!("job[{index}].{name}");
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
        Ok((offset, size))
    }

    /// The region holds a block per writer clone, and a trim range fits each clone's part.
    fn check_block_clones(&self, index: usize, size: u64) -> Result<(), ConfigError> {
        let f = |name: &str| format!("job[{index}].{name}");
        let bs = self.bs.0;
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
        if let Some(r) = self.trim_ranges
            && size / per_clone < r.0
        {
            return Err(ConfigError::field(
                f("trim_ranges"),
                format!(
                    "{} is more than each writer clone's part of the region ({} bytes)",
                    r.0,
                    size / per_clone
                ),
            ));
        }
        Ok(())
    }
}
