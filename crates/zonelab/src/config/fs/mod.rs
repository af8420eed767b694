//! `[fs]`: the host file layer (personality, zone GC, page cache, CPU costs), validated into the
//! [`FsSpec`] of `host::fs::spec`. Unset fields take that module's defaults; every check names the
//! field.

mod gc;
mod personality;

use serde::{Deserialize, Serialize};

use super::ConfigError;
use super::region::zone_region;
use super::workload::MAX_PAUSE;
use crate::device::DeviceInfo;
use crate::host::fs::{BLOCK_BYTES, CacheSpec, FsSpec, OnZoneError, Personality};
use crate::time::Duration;
use crate::units::{Bytes, Extent};

pub use personality::capacity_blocks;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PersonalityConfig {
    #[default]
    F2fs,
    Zenfs,
}

/// `[fs] on_zone_error`: "stop" (default) or "relocate" (see [`OnZoneError`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OnZoneErrorConfig {
    Stop,
    Relocate,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GcPolicyConfig {
    Native,
    None,
    BasicZgc,
    LsmZgc,
}

/// `[fs.f2fs] gc_mode`: which kernel's background cleaner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum F2fsGcModeConfig {
    Zoned,
    Classic,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VictimConfig {
    Greedy,
    CostBenefit,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SurvivorsConfig {
    GcLog,
    UserLog,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GcConfig {
    /// "native" (default: the personality's own), "none", "basic_zgc", "lsm_zgc".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<GcPolicyConfig>,
    /// Basic_ZGC and LSM_ZGC victims: "greedy" (default) or "cost_benefit".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub victim: Option<VictimConfig>,
    /// LSM_ZGC segment (default 2 MiB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segment: Option<Bytes>,
    /// LSM_ZGC threshold_cold (default 0.8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_cold: Option<f64>,
    /// LSM_ZGC hot/cold separation (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub separate: Option<bool>,
    /// LSM_ZGC with `separate = false`: survivors to "gc_log" (default, a log of their own) or
    /// "user_log" (the file's data log, mixed with user writes; F2FS-like layer only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub survivors: Option<SurvivorsConfig>,
    /// GC read and write unit (default 128 KiB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_unit: Option<Bytes>,
    /// GC reads in flight (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_depth: Option<u32>,
    /// Basic_ZGC and LSM_ZGC: collect in the background at this many free zones (default 4),
    /// in the writer at this many (default 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bg_free_zones: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fg_free_zones: Option<u32>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CacheConfig {
    /// Page cache (F2FS default 4 GiB; ZenFS has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_cache: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dirty_background: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dirty_limit: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dirty_expire: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writeback_interval: Option<Duration>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CpuConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Duration>,
    /// Per KiB copied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_per_kib: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submit: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_per_block: Option<Duration>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct F2fsConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segment: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_logs: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserved_sections: Option<u32>,
    /// Percent of the main area.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overprovision: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cp_interval: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_mode: Option<F2fsGcModeConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bg_gc_min_sleep: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bg_gc_max_sleep: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bg_gc_nogc_sleep: Option<Duration>,
    /// Percent of all sections (zoned mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_zoned_gc_percent: Option<u32>,
    /// Percent of all sections (zoned mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boost_zoned_gc_percent: Option<u32>,
    /// Percent of a section's blocks (zoned mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_thresh_ratio: Option<u32>,
    /// Segments (zoned mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub migration_window_granularity: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta_latency: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta_rate_mb_s: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dirty_sections: Option<bool>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ZenfsConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta_zones: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserved_zones: Option<u32>,
    /// Percent of a zone's capacity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_threshold: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_interval: Option<Duration>,
}

/// `[fs]`: the host file layer over a region of zones.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FsConfig {
    /// "f2fs" (default) or "zenfs".
    #[serde(default)]
    pub personality: PersonalityConfig,
    /// The region the layer owns (default: the whole device).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<Extent>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Extent>,
    /// Largest device command (default 1 MiB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_io: Option<Bytes>,
    /// The block layer's zone write plugging: one write in flight per zone, the writes
    /// queued behind it merged (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone_write_plug: Option<bool>,
    /// Unmount once the file workloads end: write back every dirty page and checkpoint, as
    /// `umount` does (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unmount: Option<bool>,
    /// A write the device refuses: "stop" (default) or "relocate".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_zone_error: Option<OnZoneErrorConfig>,
    #[serde(default)]
    pub gc: GcConfig,
    #[serde(default)]
    pub cache: CacheConfig,
    #[serde(default)]
    pub cpu: CpuConfig,
    #[serde(default)]
    pub f2fs: F2fsConfig,
    #[serde(default)]
    pub zenfs: ZenfsConfig,
}

/// The file layer's periods (writeback, checkpoints, GC sleeps; Linux's are seconds; chosen:
/// one day).
pub const MAX_FS_TIME: Duration = Duration::from_secs(86_400);
/// Page cache and dirty limits (chosen: 1 PiB; the cache only holds pages written or read).
pub const MAX_CACHE_BYTES: u64 = 1 << 50;

/// `d` is at most [`MAX_FS_TIME`] (and above 0 unless `zero_ok`).
fn fs_time(field: &str, d: Duration, zero_ok: bool) -> Result<(), ConfigError> {
    if (d.is_zero() && !zero_ok) || d > MAX_FS_TIME {
        let lo = if zero_ok { "at least 0" } else { "above 0" };
        return Err(ConfigError::field(
            field,
            format!("{d} must be {lo} and at most {MAX_FS_TIME}"),
        ));
    }
    Ok(())
}

fn blocks_of(field: &str, b: Bytes, max: u64) -> Result<u32, ConfigError> {
    if b.0 == 0 || !b.0.is_multiple_of(BLOCK_BYTES) || b.0 > max {
        return Err(ConfigError::field(
            field,
            format!(
                "{} must be a positive multiple of 4096 bytes, at most {max}",
                b.0
            ),
        ));
    }
    Ok((b.0 / BLOCK_BYTES) as u32)
}

impl FsConfig {
    /// GC streams the policy appends to (each an open zone).
    fn gc_streams(&self) -> u32 {
        match self.gc.policy {
            Some(GcPolicyConfig::BasicZgc) => 1,
            Some(GcPolicyConfig::LsmZgc) if self.gc.separate != Some(false) => 3,
            // Survivors share the user data logs: no open zone of their own.
            Some(GcPolicyConfig::LsmZgc) if self.gc.survivors == Some(SurvivorsConfig::UserLog) => {
                0
            }
            Some(GcPolicyConfig::LsmZgc) => 1,
            _ => 0,
        }
    }

    pub fn validate(&self, info: &DeviceInfo, data: bool) -> Result<FsSpec, ConfigError> {
        let z = info.zoned.as_ref().expect("zoned");
        let lba = info.lba_size_bytes;
        if !BLOCK_BYTES.is_multiple_of(lba) {
            return Err(ConfigError::field(
                "fs",
                format!(
                    "the file layer uses 4096-byte blocks; the device's LBA size {lba} does not divide them"
                ),
            ));
        }
        let (first_zone, zone_count, _) = zone_region("fs.", self.offset, self.size, lba, z)?;
        let cap_bytes = z.zone_capacity_lbas * lba;
        let cap_blocks = cap_bytes / BLOCK_BYTES;
        let mut spec = match self.personality {
            PersonalityConfig::F2fs => FsSpec::f2fs(first_zone, zone_count),
            PersonalityConfig::Zenfs => FsSpec::zenfs(first_zone, zone_count),
        };
        spec.data = data;
        spec.on_zone_error = match self.on_zone_error {
            None | Some(OnZoneErrorConfig::Stop) => OnZoneError::Stop,
            Some(OnZoneErrorConfig::Relocate) => OnZoneError::Relocate,
        };
        if let Some(m) = self.max_io {
            spec.max_io_blocks = blocks_of("fs.max_io", m, 16 << 20)?;
        }
        spec.zone_write_plug = self.zone_write_plug.unwrap_or(spec.zone_write_plug);
        spec.unmount = self.unmount.unwrap_or(spec.unmount);
        self.validate_gc(&mut spec.gc, cap_bytes, zone_count)?;
        self.validate_cache(&mut spec.cache)?;
        let c = &self.cpu;
        for (name, d) in [
            ("fs.cpu.call", c.call),
            ("fs.cpu.metadata", c.metadata),
            ("fs.cpu.copy_per_kib", c.copy_per_kib),
            ("fs.cpu.submit", c.submit),
            ("fs.cpu.gc_per_block", c.gc_per_block),
        ] {
            super::ranges::at_most(name, d, MAX_PAUSE)?;
        }
        let cpu = &mut spec.cpu;
        cpu.call = c.call.unwrap_or(cpu.call);
        cpu.metadata = c.metadata.unwrap_or(cpu.metadata);
        cpu.submit = c.submit.unwrap_or(cpu.submit);
        cpu.copy_per_kib_ns = c.copy_per_kib.map_or(cpu.copy_per_kib_ns, |d| d.ns());
        cpu.gc_per_block_ns = c.gc_per_block.map_or(cpu.gc_per_block_ns, |d| d.ns());
        let limit = z.open_limit();
        match &mut spec.personality {
            Personality::F2fs(f) => {
                self.validate_f2fs(f, zone_count, cap_blocks, limit)?;
            }
            Personality::Zenfs(zs) => {
                self.validate_zenfs(zs, zone_count, limit)?;
            }
        }
        Ok(spec)
    }

    fn validate_cache(&self, cache: &mut CacheSpec) -> Result<(), ConfigError> {
        let c = &self.cache;
        if let Some(p) = c.page_cache {
            cache.page_cache_bytes = p.0;
            if self.personality == PersonalityConfig::F2fs && cache.dirty_limit_bytes > p.0 {
                // A smaller cache keeps Linux's ratios unless the limits are given.
                cache.dirty_background_bytes = p.0 / 10;
                cache.dirty_limit_bytes = p.0 / 5;
            }
        }
        if let Some(b) = c.dirty_background {
            cache.dirty_background_bytes = b.0;
        }
        if let Some(l) = c.dirty_limit {
            cache.dirty_limit_bytes = l.0;
        }
        if let Some(e) = c.dirty_expire {
            cache.dirty_expire = e;
        }
        for (name, b) in [
            ("fs.cache.page_cache", c.page_cache),
            ("fs.cache.dirty_background", c.dirty_background),
            ("fs.cache.dirty_limit", c.dirty_limit),
        ] {
            if let Some(b) = b {
                super::ranges::within(name, b.0, 0, MAX_CACHE_BYTES)?;
            }
        }
        if let Some(e) = c.dirty_expire {
            fs_time("fs.cache.dirty_expire", e, true)?;
        }
        if let Some(w) = c.writeback_interval {
            fs_time("fs.cache.writeback_interval", w, false)?;
            cache.writeback_interval = w;
        }
        if cache.page_cache_bytes > 0 && cache.writeback_interval.is_zero() {
            cache.writeback_interval = CacheSpec::linux().writeback_interval;
            cache.dirty_expire = CacheSpec::linux().dirty_expire;
        }
        if cache.dirty_background_bytes > cache.dirty_limit_bytes {
            return Err(ConfigError::field(
                "fs.cache.dirty_background",
                format!(
                    "{} is above dirty_limit {}",
                    cache.dirty_background_bytes, cache.dirty_limit_bytes
                ),
            ));
        }
        Ok(())
    }
}
