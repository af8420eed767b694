//! `[device.zones]`: the ZNS device's zones, limits and firmware overheads, validated into a
//! [`ZnsSpec`].

use super::{DeviceConfig, MAX_ZONES, ZonesConfig, limit, positive};
use crate::config::ConfigError;
use crate::config::ranges::within;
use crate::time::Duration;
use crate::zns::{Overheads, ZnsSpec, ZoneGeometry};

impl DeviceConfig {
    pub(super) fn validate_zns(
        &self,
        prefix: &str,
        z: &ZonesConfig,
    ) -> Result<ZnsSpec, ConfigError> {
        let t = &self.timing;
        self.check_nand(prefix)?;
        let (blocks_per_zone, blocks_per_zone_per_die) = self.zone_blocks(prefix, z)?;
        self.check_zone_capacity(prefix, z)?;
        let zone_count = self.zone_count(prefix, z, blocks_per_zone_per_die)?;
        self.check_zone_limits(prefix, z, zone_count)?;
        self.check_write_cache(prefix, z)?;
        let nand = self.nand_spec(prefix, Some(blocks_per_zone))?;
        let zasl = z.zone_append_size_limit_bytes.0;
        Ok(ZnsSpec {
            name: self.name.clone(),
            nand,
            zones: ZoneGeometry {
                lba_size_bytes: self.geometry.lba_size_bytes.0,
                dies_per_zone: z.dies_per_zone,
                zone_size_bytes: z.zone_size_bytes.0,
                zone_capacity_bytes: z.zone_capacity_bytes.0,
                zone_count,
                max_open_zones: limit(z.max_open_zones),
                max_active_zones: limit(z.max_active_zones),
                zone_append_size_limit_bytes: (zasl != 0).then_some(zasl),
            },
            overheads: Overheads {
                read: Duration::from_ns(t.read_overhead_ns),
                write: Duration::from_ns(t.write_overhead_ns),
                zone_mgmt: Duration::from_ns(t.zone_mgmt_overhead_ns),
                append: Duration::from_ns(t.append_overhead_ns.unwrap_or(t.write_overhead_ns)),
                reset: Duration::from_ns(t.reset_overhead_ns.unwrap_or(t.zone_mgmt_overhead_ns)),
            },
            write_buffer_units_per_zone: t.write_buffer_units_per_zone,
            write_cache_units: t.write_cache_units,
            finish_pads_zone: z.finish_pads_zone,
        })
    }

    /// A zone's dies and size fit the NAND's dies and blocks; returns the zone's blocks, in all
    /// and on each of its dies.
    fn zone_blocks(&self, prefix: &str, z: &ZonesConfig) -> Result<(u64, u64), ConfigError> {
        let f = |name: &str| format!("{prefix}{name}");
        let g = &self.geometry;
        for (name, value) in [
            ("zones.dies_per_zone", z.dies_per_zone as u64),
            ("zones.zone_size_bytes", z.zone_size_bytes.0),
            ("zones.zone_capacity_bytes", z.zone_capacity_bytes.0),
        ] {
            positive(&f(name), value)?;
        }
        let dies = g.channels as u64 * g.dies_per_channel as u64;
        if z.dies_per_zone as u64 > dies || !dies.is_multiple_of(z.dies_per_zone as u64) {
            return Err(ConfigError::field(
                f("zones.dies_per_zone"),
                format!("{} must divide the {dies} dies", z.dies_per_zone),
            ));
        }
        let block = g.page_size_bytes.0 * g.pages_per_block as u64;
        let zone = z.zone_size_bytes.0;
        if !zone.is_multiple_of(block) {
            return Err(ConfigError::field(
                f("zones.zone_size_bytes"),
                format!(
                    "{zone} is not a multiple of the block size {block} (page_size_bytes x pages_per_block)"
                ),
            ));
        }
        let blocks_per_zone = zone / block;
        if !blocks_per_zone.is_multiple_of(z.dies_per_zone as u64) {
            return Err(ConfigError::field(
                f("zones.zone_size_bytes"),
                format!(
                    "{zone} gives {blocks_per_zone} blocks, not a multiple of dies_per_zone {}",
                    z.dies_per_zone
                ),
            ));
        }
        let blocks_per_zone_per_die = blocks_per_zone / z.dies_per_zone as u64;
        if blocks_per_zone_per_die > g.blocks_per_die as u64 {
            return Err(ConfigError::field(
                f("zones.zone_size_bytes"),
                format!(
                    "{zone} needs {blocks_per_zone_per_die} blocks on each die but a die has {}",
                    g.blocks_per_die
                ),
            ));
        }
        Ok((blocks_per_zone, blocks_per_zone_per_die))
    }

    /// The zone capacity fits the zone, and it and the append limit are whole LBAs.
    fn check_zone_capacity(&self, prefix: &str, z: &ZonesConfig) -> Result<(), ConfigError> {
        let f = |name: &str| format!("{prefix}{name}");
        let lba = self.geometry.lba_size_bytes.0;
        let (zone, cap) = (z.zone_size_bytes.0, z.zone_capacity_bytes.0);
        if cap > zone {
            return Err(ConfigError::field(
                f("zones.zone_capacity_bytes"),
                format!("{cap} is above the zone size {zone}"),
            ));
        }
        if !cap.is_multiple_of(lba) {
            return Err(ConfigError::field(
                f("zones.zone_capacity_bytes"),
                format!("{cap} is not a multiple of the LBA size {lba}"),
            ));
        }
        let zasl = z.zone_append_size_limit_bytes.0;
        if !zasl.is_multiple_of(lba) {
            return Err(ConfigError::field(
                f("zones.zone_append_size_limit_bytes"),
                format!("{zasl} is not a multiple of the LBA size {lba}"),
            ));
        }
        Ok(())
    }

    /// The zones: as many as the blocks hold unless set, and at most that many.
    fn zone_count(
        &self,
        prefix: &str,
        z: &ZonesConfig,
        blocks_per_zone_per_die: u64,
    ) -> Result<u32, ConfigError> {
        let f = |name: &str| format!("{prefix}{name}");
        let g = &self.geometry;
        let dies = g.channels as u64 * g.dies_per_channel as u64;
        let max_zones =
            (dies / z.dies_per_zone as u64) * (g.blocks_per_die as u64 / blocks_per_zone_per_die);
        let zone_count = match z.zone_count {
            Some(0) => {
                return Err(ConfigError::field(
                    f("zones.zone_count"),
                    "must be greater than 0",
                ));
            }
            Some(n) if n as u64 > max_zones => {
                return Err(ConfigError::field(
                    f("zones.zone_count"),
                    format!("{n} zones do not fit; the blocks hold at most {max_zones}"),
                ));
            }
            Some(n) => n,
            None => u32::try_from(max_zones).map_err(|_| {
                ConfigError::field(
                    f("zones.zone_count"),
                    format!("{max_zones} zones is too many"),
                )
            })?,
        };
        within(&f("zones.zone_count"), zone_count as u64, 1, MAX_ZONES)?;
        Ok(zone_count)
    }

    /// The open and active limits, the append limit and the per-zone write buffer, each within
    /// what the zones allow.
    fn check_zone_limits(
        &self,
        prefix: &str,
        z: &ZonesConfig,
        zone_count: u32,
    ) -> Result<(), ConfigError> {
        let f = |name: &str| format!("{prefix}{name}");
        let g = &self.geometry;
        for (name, v) in [
            ("zones.max_open_zones", z.max_open_zones),
            ("zones.max_active_zones", z.max_active_zones),
        ] {
            within(&f(name), v as u64, 0, zone_count as u64)?;
        }
        let (zasl, cap) = (z.zone_append_size_limit_bytes.0, z.zone_capacity_bytes.0);
        if zasl > cap {
            return Err(ConfigError::field(
                f("zones.zone_append_size_limit_bytes"),
                format!("{zasl} is above the zone capacity {cap}"),
            ));
        }
        let unit = g.page_size_bytes.0 * g.pages_per_program as u64;
        within(
            &f("timing.write_buffer_units_per_zone"),
            self.timing.write_buffer_units_per_zone as u64,
            0,
            cap.div_ceil(unit),
        )?;
        let (mor, mar) = (limit(z.max_open_zones), limit(z.max_active_zones));
        if let (Some(open), Some(active)) = (mor, mar)
            && open > active
        {
            return Err(ConfigError::field(
                f("zones.max_open_zones"),
                format!("{open} is above max_active_zones {active}"),
            ));
        }
        Ok(())
    }

    /// A shared write cache: within the NAND's program units, not beside per-zone buffers, and
    /// at least one unit per active zone.
    fn check_write_cache(&self, prefix: &str, z: &ZonesConfig) -> Result<(), ConfigError> {
        let f = |name: &str| format!("{prefix}{name}");
        let t = &self.timing;
        // A cache larger than the NAND's program units is never needed (one slot each).
        let program_units = self.geometry.channels as u64
            * self.geometry.dies_per_channel as u64
            * self.geometry.blocks_per_die as u64
            * (self.geometry.pages_per_block / self.geometry.pages_per_program) as u64;
        within(
            &f("timing.write_cache_units"),
            t.write_cache_units as u64,
            0,
            program_units,
        )?;
        if t.write_cache_units > 0 {
            if t.write_buffer_units_per_zone > 0 {
                return Err(ConfigError::field(
                    f("timing.write_cache_units"),
                    "give a per-zone write buffer (write_buffer_units_per_zone) or a shared write cache, not both",
                ));
            }
            match limit(z.max_active_zones) {
                Some(m) if t.write_cache_units >= m => {}
                Some(m) => {
                    return Err(ConfigError::field(
                        f("timing.write_cache_units"),
                        format!(
                            "{} is below max_active_zones {m}: the cache holds at least one program unit per active zone",
                            t.write_cache_units
                        ),
                    ));
                }
                None => {
                    return Err(ConfigError::field(
                        f("timing.write_cache_units"),
                        "a shared write cache needs a max_active_zones limit (at least one cache unit per active zone)",
                    ));
                }
            }
        }
        Ok(())
    }
}
