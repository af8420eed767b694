//! `[fs.gc]`: which zone GC runs, what it collects and when.

use super::{
    FsConfig, GcPolicyConfig, PersonalityConfig, SurvivorsConfig, VictimConfig, blocks_of,
};
use crate::config::ConfigError;
use crate::host::fs::{GcPolicyKind, GcSpec, Survivors, Victim};

impl FsConfig {
    pub(super) fn validate_gc(
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
                    format!(
                        "{} must be between 0 and 1",
                        crate::config::ranges::number(t)
                    ),
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
}
