//! `[fs]`: the host file layer (personality, zone GC, page cache, CPU costs), validated into the
//! [`FsSpec`] of `host::fs::spec`. Unset fields take that module's defaults; every check names the
//! field.

use serde::{Deserialize, Serialize};

use super::ConfigError;
use super::device::{MAX_LATENCY_NS, MAX_RATE_MB_S};
use super::region::zone_region;
use super::workload::MAX_PAUSE;
use crate::device::DeviceInfo;
use crate::host::fs::spec::f2fs_mkfs_space;
use crate::host::fs::{
    BLOCK_BYTES, CacheSpec, F2fsGcMode, F2fsSpec, FsSpec, GcPolicyKind, GcSpec, OnZoneError,
    Personality, Survivors, Victim, ZenfsSpec,
};
use crate::time::Duration;
use crate::units::{Bytes, Extent};

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

    fn validate_gc(
        &self,
        gc: &mut GcSpec,
        cap_bytes: u64,
        zone_count: u32,
    ) -> Result<(), ConfigError> {
        let c = &self.gc;
        gc.policy = match c.policy {
            None | Some(GcPolicyConfig::Native) => GcPolicyKind::Native,
            Some(GcPolicyConfig::None) => GcPolicyKind::None,
            Some(GcPolicyConfig::BasicZgc) => GcPolicyKind::BasicZgc,
            Some(GcPolicyConfig::LsmZgc) => GcPolicyKind::LsmZgc,
        };
        gc.victim = match c.victim {
            None | Some(VictimConfig::Greedy) => Victim::Greedy,
            Some(VictimConfig::CostBenefit) => Victim::CostBenefit,
        };
        if let Some(s) = c.segment {
            gc.segment_blocks = blocks_of("fs.gc.segment", s, cap_bytes)?;
        }
        if let Some(u) = c.io_unit {
            gc.io_blocks = blocks_of("fs.gc.io_unit", u, cap_bytes.min(16 << 20))?;
        }
        if let Some(t) = c.threshold_cold {
            if !(0.0..=1.0).contains(&t) {
                return Err(ConfigError::field(
                    "fs.gc.threshold_cold",
                    format!("{} must be between 0 and 1", super::ranges::number(t)),
                ));
            }
            gc.threshold_cold = t;
        }
        gc.separate = c.separate.unwrap_or(gc.separate);
        if let Some(v) = c.survivors {
            if v == SurvivorsConfig::UserLog
                && (gc.policy != GcPolicyKind::LsmZgc
                    || gc.separate
                    || self.personality != PersonalityConfig::F2fs)
            {
                return Err(ConfigError::field(
                    "fs.gc.survivors",
                    "\"user_log\" needs policy = \"lsm_zgc\", separate = false and the f2fs \
                     personality (it writes survivors into the file's data log)",
                ));
            }
            gc.survivors = match v {
                SurvivorsConfig::GcLog => Survivors::GcLog,
                SurvivorsConfig::UserLog => Survivors::UserLog,
            };
        }
        if let Some(d) = c.read_depth {
            if !(1..=1024).contains(&d) {
                return Err(ConfigError::field(
                    "fs.gc.read_depth",
                    format!("{d} must be between 1 and 1024"),
                ));
            }
            gc.read_depth = d;
        }
        self.validate_gc_free_zones(gc, zone_count)
    }

    /// `fs.gc.bg_free_zones` and `fg_free_zones`: within the layer, background above foreground.
    fn validate_gc_free_zones(&self, gc: &mut GcSpec, zone_count: u32) -> Result<(), ConfigError> {
        let c = &self.gc;
        gc.bg_free_zones = c.bg_free_zones.unwrap_or(gc.bg_free_zones);
        gc.fg_free_zones = c.fg_free_zones.unwrap_or(gc.fg_free_zones);
        if gc.bg_free_zones > zone_count {
            return Err(ConfigError::field(
                "fs.gc.bg_free_zones",
                format!(
                    "{} is above the file layer's {zone_count} zones",
                    gc.bg_free_zones
                ),
            ));
        }
        if gc.fg_free_zones > gc.bg_free_zones {
            return Err(ConfigError::field(
                "fs.gc.fg_free_zones",
                format!(
                    "{} is above bg_free_zones {}: writers would collect before the background collector starts",
                    gc.fg_free_zones, gc.bg_free_zones
                ),
            ));
        }
        Ok(())
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

    fn validate_f2fs(
        &self,
        f: &mut F2fsSpec,
        zone_count: u32,
        cap_blocks: u64,
        open_limit: Option<u32>,
    ) -> Result<(), ConfigError> {
        let c = &self.f2fs;
        if let Some(s) = c.segment {
            f.segment_blocks = blocks_of("fs.f2fs.segment", s, cap_blocks * BLOCK_BYTES)?;
        }
        if (f.segment_blocks as u64) > cap_blocks {
            return Err(ConfigError::field(
                "fs.f2fs.segment",
                format!(
                    "a {}-block segment does not fit a zone of {cap_blocks} blocks",
                    f.segment_blocks
                ),
            ));
        }
        if let Some(l) = c.active_logs {
            if ![2, 4, 6].contains(&l) {
                return Err(ConfigError::field(
                    "fs.f2fs.active_logs",
                    format!("{l}: F2FS takes 2, 4 or 6"),
                ));
            }
            f.active_logs = l;
        }
        let heads = f.active_logs + self.gc_streams();
        if let Some(limit) = open_limit
            && heads > limit
        {
            return Err(ConfigError::field(
                "fs.f2fs.active_logs",
                format!(
                    "F2FS keeps {} logs and GC {} more zones open; the device allows {limit} (mount fails)",
                    f.active_logs,
                    self.gc_streams()
                ),
            ));
        }
        f.reserved_sections = c.reserved_sections;
        f.overprovision_pct = c.overprovision;
        if let Some(p) = c.overprovision
            && !(0.0..100.0).contains(&p)
        {
            return Err(ConfigError::field(
                "fs.f2fs.overprovision",
                format!(
                    "{} must be a percentage below 100",
                    super::ranges::number(p)
                ),
            ));
        }
        let spz = cap_blocks / f.segment_blocks as u64;
        let main = zone_count as u64 * spz;
        let ok = match f.reserved_sections {
            Some(r) => (r as u64) < zone_count as u64,
            None => f2fs_mkfs_space(main, spz, f.overprovision_pct).is_some(),
        };
        if !ok {
            return Err(ConfigError::field(
                "fs.f2fs.reserved_sections",
                format!(
                    "mkfs.f2fs leaves no room in {zone_count} sections of {spz} segments; give reserved_sections (and overprovision) for so few, large zones"
                ),
            ));
        }
        f.cp_interval = c.cp_interval.unwrap_or(f.cp_interval);
        if let Some(m) = c.gc_mode {
            f.gc_mode = match m {
                F2fsGcModeConfig::Zoned => F2fsGcMode::Zoned,
                F2fsGcModeConfig::Classic => F2fsGcMode::Classic,
            };
        }
        let (min, max, nogc) = f.gc_mode.sleeps();
        f.bg_gc_min_sleep = c.bg_gc_min_sleep.unwrap_or(min);
        f.bg_gc_max_sleep = c.bg_gc_max_sleep.unwrap_or(max);
        f.bg_gc_nogc_sleep = c.bg_gc_nogc_sleep.unwrap_or(nogc);
        self.validate_f2fs_zoned_gc(f, spz)?;
        f.meta_latency = c.meta_latency.unwrap_or(f.meta_latency);
        f.meta_rate_mb_s = c.meta_rate_mb_s.unwrap_or(f.meta_rate_mb_s);
        for (name, d, zero_ok) in [
            ("fs.f2fs.cp_interval", f.cp_interval, false),
            ("fs.f2fs.bg_gc_min_sleep", f.bg_gc_min_sleep, false),
            ("fs.f2fs.bg_gc_max_sleep", f.bg_gc_max_sleep, true),
            ("fs.f2fs.bg_gc_nogc_sleep", f.bg_gc_nogc_sleep, true),
        ] {
            fs_time(name, d, zero_ok)?;
        }
        super::ranges::within(
            "fs.f2fs.meta_latency",
            f.meta_latency.ns(),
            0,
            MAX_LATENCY_NS,
        )?;
        super::ranges::within("fs.f2fs.meta_rate_mb_s", f.meta_rate_mb_s, 1, MAX_RATE_MB_S)?;
        Ok(())
    }

    /// The zoned cleaner's thresholds (sysfs takes 0-100 for the percents, and a window of 1
    /// to the segments in a section).
    fn validate_f2fs_zoned_gc(
        &self,
        f: &mut F2fsSpec,
        segs_per_sec: u64,
    ) -> Result<(), ConfigError> {
        let c = &self.f2fs;
        let classic = f.gc_mode == F2fsGcMode::Classic;
        let settings = [
            (
                "fs.f2fs.no_zoned_gc_percent",
                c.no_zoned_gc_percent,
                &mut f.no_zoned_gc_pct,
                0,
                100,
            ),
            (
                "fs.f2fs.boost_zoned_gc_percent",
                c.boost_zoned_gc_percent,
                &mut f.boost_zoned_gc_pct,
                0,
                100,
            ),
            (
                "fs.f2fs.valid_thresh_ratio",
                c.valid_thresh_ratio,
                &mut f.valid_thresh_pct,
                0,
                100,
            ),
            (
                "fs.f2fs.migration_window_granularity",
                c.migration_window_granularity,
                &mut f.migration_window_segments,
                1,
                segs_per_sec,
            ),
        ];
        for (name, given, field, lo, hi) in settings {
            let Some(v) = given else { continue };
            if classic {
                return Err(ConfigError::field(
                    name,
                    "applies to gc_mode = \"zoned\" only; the classic cleaner has no such setting",
                ));
            }
            super::ranges::within(name, v as u64, lo, hi)?;
            *field = v;
        }
        f.migration_window_segments = f.migration_window_segments.min(segs_per_sec as u32);
        Ok(())
    }

    fn validate_zenfs(
        &self,
        zs: &mut ZenfsSpec,
        zone_count: u32,
        open_limit: Option<u32>,
    ) -> Result<(), ConfigError> {
        let c = &self.zenfs;
        zs.meta_zones = c.meta_zones.unwrap_or(zs.meta_zones);
        if zs.meta_zones < 2 || zs.meta_zones + 1 >= zone_count {
            return Err(ConfigError::field(
                "fs.zenfs.meta_zones",
                format!(
                    "{} metadata zones of {zone_count}: ZenFS needs at least 2 and some zones for files",
                    zs.meta_zones
                ),
            ));
        }
        zs.reserved_zones = c.reserved_zones.unwrap_or(zs.reserved_zones);
        if zs.reserved_zones > zone_count - zs.meta_zones {
            return Err(ConfigError::field(
                "fs.zenfs.reserved_zones",
                format!(
                    "{} is above the {} zones left for files",
                    zs.reserved_zones,
                    zone_count - zs.meta_zones
                ),
            ));
        }
        // ZenFS (fs/zbd_zenfs.cc, ZonedBlockDevice::Open and WaitForOpenIOZoneToken) keeps
        // `reserved_zones` of the device's open and active zones for metadata and extent
        // migration, and lets files other than the WAL take all open I/O zones but one: the
        // WAL and another file need two more zones at once, or writers wait for each other
        // forever (issue 36, defect 6, as `fs.f2fs.active_logs` for F2FS).
        let needed = zs.reserved_zones + 2;
        if let Some(limit) = open_limit
            && limit < needed
        {
            return Err(ConfigError::field(
                "fs.zenfs.reserved_zones",
                format!(
                    "ZenFS keeps {} zones for metadata and extent migration and needs 2 more open at once (the WAL and another file): {needed} open and active zones, but the device allows {limit} (writers would wait for each other forever)",
                    zs.reserved_zones
                ),
            ));
        }
        if let Some(t) = c.finish_threshold {
            if t > 100 {
                return Err(ConfigError::field(
                    "fs.zenfs.finish_threshold",
                    format!("{t} is a percentage: at most 100"),
                ));
            }
            zs.finish_threshold_pct = t;
        }
        if let Some(b) = c.buffer {
            zs.buffer_blocks = blocks_of("fs.zenfs.buffer", b, 64 << 20)?;
        }
        zs.gc = c.gc.unwrap_or(zs.gc);
        if let Some(i) = c.gc_interval {
            fs_time("fs.zenfs.gc_interval", i, false)?;
            zs.gc_interval = i;
        }
        Ok(())
    }
}

/// The blocks users may fill in the file layer `spec` describes.
pub fn capacity_blocks(spec: &FsSpec, cap_blocks: u64) -> u64 {
    match &spec.personality {
        Personality::Zenfs(z) => (spec.zone_count - z.meta_zones) as u64 * cap_blocks,
        Personality::F2fs(f) => {
            let spz = cap_blocks / f.segment_blocks as u64;
            let main = spec.zone_count as u64 * spz;
            let ovp = match f.reserved_sections {
                Some(r) => {
                    let rsvd = r as u64 * spz;
                    rsvd + f
                        .overprovision_pct
                        .map_or(0.0, |p| main.saturating_sub(rsvd) as f64 * p / 100.0)
                        as u64
                }
                None => f2fs_mkfs_space(main, spz, f.overprovision_pct).map_or(main, |s| s.1),
            };
            main.saturating_sub(ovp) * f.segment_blocks as u64
        }
    }
}
