//! `[fs.f2fs]` and `[fs.zenfs]`: each personality's own fields, and the space users may fill.

use super::{F2fsGcModeConfig, FsConfig, blocks_of, fs_time};
use crate::config::ConfigError;
use crate::config::device::{MAX_LATENCY_NS, MAX_RATE_MB_S};
use crate::host::fs::spec::f2fs_mkfs_space;
use crate::host::fs::{BLOCK_BYTES, F2fsGcMode, F2fsSpec, FsSpec, Personality, ZenfsSpec};

impl FsConfig {
    pub(super) fn validate_f2fs(
        &self,
        f: &mut F2fsSpec,
        zone_count: u32,
        cap_blocks: u64,
        open_limit: Option<u32>,
    ) -> Result<(), ConfigError> {
        let c = &self.f2fs;
        self.apply_f2fs_segment_and_logs(f, cap_blocks, open_limit)?;
        let spz = self.apply_f2fs_reserved_space(f, zone_count, cap_blocks)?;
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
        f.dirty_sections = c.dirty_sections.unwrap_or(f.dirty_sections);
        check_f2fs_times(f)
    }

    /// The segment size, which must fit a zone, and the active logs, which with GC's streams
    /// must fit the device's open-zone limit.
    fn apply_f2fs_segment_and_logs(
        &self,
        f: &mut F2fsSpec,
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
        Ok(())
    }

    /// The reserved sections and over-provisioning, which must leave mkfs.f2fs room; returns
    /// the segments per section.
    fn apply_f2fs_reserved_space(
        &self,
        f: &mut F2fsSpec,
        zone_count: u32,
        cap_blocks: u64,
    ) -> Result<u64, ConfigError> {
        let c = &self.f2fs;
        f.reserved_sections = c.reserved_sections;
        f.overprovision_pct = c.overprovision;
        if let Some(p) = c.overprovision
            && !(0.0..100.0).contains(&p)
        {
            return Err(ConfigError::field(
                "fs.f2fs.overprovision",
                format!(
                    "{} must be a percentage below 100",
                    crate::config::ranges::number(p)
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
        Ok(spz)
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
            crate::config::ranges::within(name, v as u64, lo, hi)?;
            *field = v;
        }
        f.migration_window_segments = f.migration_window_segments.min(segs_per_sec as u32);
        Ok(())
    }

    pub(super) fn validate_zenfs(
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

/// The checkpoint interval and GC sleeps, and the metadata latency and rate, within range.
fn check_f2fs_times(f: &F2fsSpec) -> Result<(), ConfigError> {
    for (name, d, zero_ok) in [
        ("fs.f2fs.cp_interval", f.cp_interval, false),
        ("fs.f2fs.bg_gc_min_sleep", f.bg_gc_min_sleep, false),
        ("fs.f2fs.bg_gc_max_sleep", f.bg_gc_max_sleep, true),
        ("fs.f2fs.bg_gc_nogc_sleep", f.bg_gc_nogc_sleep, true),
    ] {
        fs_time(name, d, zero_ok)?;
    }
    crate::config::ranges::within(
        "fs.f2fs.meta_latency",
        f.meta_latency.ns(),
        0,
        MAX_LATENCY_NS,
    )?;
    crate::config::ranges::within("fs.f2fs.meta_rate_mb_s", f.meta_rate_mb_s, 1, MAX_RATE_MB_S)?;
    Ok(())
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
