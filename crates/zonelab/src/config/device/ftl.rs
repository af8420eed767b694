//! `[device.ftl]`: the conventional SSD's flash translation layer, validated into an [`FtlSpec`].

use serde::{Deserialize, Serialize};

use super::{DeviceConfig, zero_bytes};
use crate::config::ConfigError;
use crate::config::ranges::within;
use crate::ftl::{FtlOverheads, FtlSpec, VictimChoice};
use crate::time::Duration;
use crate::units::Bytes;

/// `[device.ftl]`: the conventional SSD's flash translation layer.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FtlConfig {
    /// Bytes one map entry covers (4 bytes each); default 4 KiB.
    #[serde(default = "four_kib")]
    pub mapping_unit_bytes: Bytes,
    /// (physical - logical) / logical in percent; default 7 (MQSim's default, and the 7% of
    /// drives sold in GB with GiB of NAND).
    #[serde(default = "seven")]
    pub over_provisioning_percent: f64,
    /// DRAM write buffer: writes complete once their data is in it. 0: none.
    #[serde(default = "zero_bytes")]
    pub write_buffer_bytes: Bytes,
    /// GC victim choice: "greedy" (default) or "cost_benefit".
    #[serde(default)]
    pub gc_policy: VictimConfig,
    /// Below this many free superblocks GC runs, paced with host writes (at least 3).
    #[serde(default = "three")]
    pub gc_free_superblocks: u32,
    /// Background GC in idle time keeps this many free (0: no background GC).
    #[serde(default = "four")]
    pub background_gc_free_superblocks: u32,
    /// Static wear levelling when erase counts spread this far (0: dynamic only).
    #[serde(default)]
    pub wear_leveling_threshold: u32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VictimConfig {
    #[default]
    Greedy,
    CostBenefit,
}

/// The largest DRAM write buffer (chosen: 64 GiB, far beyond drives' buffers of megabytes to a
/// few GiB; the model keeps one timestamp per program unit of it).
pub const MAX_WRITE_BUFFER_BYTES: u64 = 64 << 30;

fn four_kib() -> Bytes {
    Bytes(4096)
}
fn seven() -> f64 {
    7.0
}
fn three() -> u32 {
    3
}
fn four() -> u32 {
    4
}

impl DeviceConfig {
    pub(super) fn validate_conventional(&self, prefix: &str) -> Result<FtlSpec, ConfigError> {
        let f = |name: &str| format!("{prefix}{name}");
        let c = self.ftl_without_zone_settings(&f)?;
        let t = &self.timing;
        self.check_nand(prefix)?;
        let nand = self.nand_spec(prefix, None)?;
        let geo = &nand.geometry;
        let lba = self.geometry.lba_size_bytes.0;
        let unit = c.mapping_unit_bytes.0;
        let op = c.over_provisioning_percent;
        check_mapping_unit_and_op(&f, c, lba, geo.page_size_bytes)?;
        check_gc_superblocks(&f, c, geo.blocks_per_die as u64)?;
        let logical_units = FtlSpec::logical_units_for(&nand, unit, op, c.gc_free_superblocks)
            .map_err(|m| ConfigError::field(f("ftl.over_provisioning_percent"), m))?;
        let buffer_units = write_buffer_units(&f, c, geo.program_unit_bytes())?;
        Ok(FtlSpec {
            name: self.name.clone(),
            lba_size_bytes: lba,
            mapping_unit_bytes: unit,
            over_provisioning_percent: op,
            logical_units,
            write_buffer_units: buffer_units,
            victim: match c.gc_policy {
                VictimConfig::Greedy => VictimChoice::Greedy,
                VictimConfig::CostBenefit => VictimChoice::CostBenefit,
            },
            gc_free_superblocks: c.gc_free_superblocks,
            background_gc_free_superblocks: c.background_gc_free_superblocks,
            wear_leveling_threshold: c.wear_leveling_threshold,
            overheads: FtlOverheads {
                read: Duration::from_ns(t.read_overhead_ns),
                write: Duration::from_ns(t.write_overhead_ns),
            },
            nand,
        })
    }

    /// The `[device.ftl]` a conventional device needs, with none of the zone settings it lacks.
    fn ftl_without_zone_settings(
        &self,
        f: &dyn Fn(&str) -> String,
    ) -> Result<&FtlConfig, ConfigError> {
        if self.zones.is_some() {
            return Err(ConfigError::field(
                f("zones"),
                "a conventional device has no zones; remove [device.zones] or set kind = \"zns\"",
            ));
        }
        let Some(c) = &self.ftl else {
            return Err(ConfigError::field(
                f("ftl"),
                "missing: a conventional device needs [device.ftl] (its fields have defaults: `[device.ftl]` alone will do)",
            ));
        };
        let t = &self.timing;
        if t.write_buffer_units_per_zone != 0 {
            return Err(ConfigError::field(
                f("timing.write_buffer_units_per_zone"),
                "is a zone buffer; a conventional device's buffer is ftl.write_buffer_bytes",
            ));
        }
        if t.write_cache_units != 0 {
            return Err(ConfigError::field(
                f("timing.write_cache_units"),
                "is the small-zone SSD's shared cache; a conventional device's buffer is ftl.write_buffer_bytes",
            ));
        }
        for (name, given) in [
            ("timing.append_overhead_ns", t.append_overhead_ns.is_some()),
            ("timing.reset_overhead_ns", t.reset_overhead_ns.is_some()),
        ] {
            if given {
                return Err(ConfigError::field(
                    f(name),
                    "a conventional device has no zone commands",
                ));
            }
        }
        if t.zone_mgmt_overhead_ns != 0 {
            return Err(ConfigError::field(
                f("timing.zone_mgmt_overhead_ns"),
                "a conventional device has no zone management (trims and flushes cost write_overhead_ns)",
            ));
        }
        Ok(c)
    }
}

/// The mapping unit is whole LBAs within a page, and the over-provisioning within bounds.
fn check_mapping_unit_and_op(
    f: &dyn Fn(&str) -> String,
    c: &FtlConfig,
    lba: u64,
    page_size_bytes: u64,
) -> Result<(), ConfigError> {
    let unit = c.mapping_unit_bytes.0;
    if unit == 0 || !unit.is_multiple_of(lba) || !page_size_bytes.is_multiple_of(unit) {
        return Err(ConfigError::field(
            f("ftl.mapping_unit_bytes"),
            format!(
                "{unit} must be a multiple of the LBA size {lba} that divides the page size {page_size_bytes}"
            ),
        ));
    }
    let op = c.over_provisioning_percent;
    if !(op.is_finite() && op > 0.0 && op <= 1000.0) {
        return Err(ConfigError::field(
            f("ftl.over_provisioning_percent"),
            format!(
                "{} must be above 0 and at most 1000",
                crate::config::ranges::number(op)
            ),
        ));
    }
    Ok(())
}

/// GC's free-superblock thresholds fit the device's superblocks (one block of every die each).
fn check_gc_superblocks(
    f: &dyn Fn(&str) -> String,
    c: &FtlConfig,
    superblocks: u64,
) -> Result<(), ConfigError> {
    within(
        &f("ftl.background_gc_free_superblocks"),
        c.background_gc_free_superblocks as u64,
        0,
        superblocks,
    )?;
    if c.gc_free_superblocks as u64 > superblocks {
        return Err(ConfigError::field(
            f("ftl.gc_free_superblocks"),
            format!(
                "{} is above the device's {superblocks} superblocks",
                c.gc_free_superblocks
            ),
        ));
    }
    if c.gc_free_superblocks < 3 {
        return Err(ConfigError::field(
            f("ftl.gc_free_superblocks"),
            format!(
                "{} must be at least 3 (two stay free, for GC's stream and the host's next superblock; paced GC starts above them)",
                c.gc_free_superblocks
            ),
        ));
    }
    Ok(())
}

/// The DRAM write buffer in whole program units of `pu` bytes, within its bound.
fn write_buffer_units(
    f: &dyn Fn(&str) -> String,
    c: &FtlConfig,
    pu: u64,
) -> Result<u32, ConfigError> {
    let wb = c.write_buffer_bytes.0;
    within(&f("ftl.write_buffer_bytes"), wb, 0, MAX_WRITE_BUFFER_BYTES)?;
    if !wb.is_multiple_of(pu) {
        return Err(ConfigError::field(
            f("ftl.write_buffer_bytes"),
            format!("{wb} is not a whole number of program units of {pu} bytes"),
        ));
    }
    u32::try_from(wb / pu)
        .map_err(|_| ConfigError::field(f("ftl.write_buffer_bytes"), format!("{wb} is too large")))
}
