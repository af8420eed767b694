//! The device description a preset gives and an experiment may override, and its validation into
//! the typed [`DeviceSpec`] the simulator runs on.

use serde::{Deserialize, Serialize};

use super::ConfigError;
use crate::nand::{Energy, EraseSuspend, NandGeometry, NandSpec, NandTiming};
use crate::time::Duration;
use crate::units::Bytes;
use crate::zns::{Overheads, ZnsSpec, ZoneGeometry};

/// A device as written in a preset file (`presets/*.toml`) or an experiment's `[device]` table.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceConfig {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Where the numbers come from (paper and table, or datasheet).
    pub source: String,
    pub geometry: GeometryConfig,
    pub zones: ZonesConfig,
    pub timing: TimingConfig,
    pub energy: EnergyConfig,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GeometryConfig {
    pub channels: u32,
    pub dies_per_channel: u32,
    pub blocks_per_die: u32,
    pub pages_per_block: u32,
    pub page_size_bytes: Bytes,
    /// Pages programmed together on one die (one-shot TLC programming); also the striping unit.
    #[serde(default = "super::one")]
    pub pages_per_program: u32,
    pub lba_size_bytes: Bytes,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ZonesConfig {
    /// Stripe width: how many dies one zone's program units are interleaved over.
    pub dies_per_zone: u32,
    pub zone_size_bytes: Bytes,
    pub zone_capacity_bytes: Bytes,
    /// Zones exposed; defaults to as many as the blocks allow.
    #[serde(default)]
    pub zone_count: Option<u32>,
    /// Max Open Resources; 0 means no limit.
    #[serde(default)]
    pub max_open_zones: u32,
    /// Max Active Resources; 0 means no limit.
    #[serde(default)]
    pub max_active_zones: u32,
    /// Zone Append Size Limit; 0 means no limit.
    #[serde(default = "zero_bytes")]
    pub zone_append_size_limit_bytes: Bytes,
}

fn zero_bytes() -> Bytes {
    Bytes(0)
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TimingConfig {
    /// tR: array to page register.
    pub read_latency_ns: u64,
    /// tPROG for one program unit (`pages_per_program` pages).
    pub program_latency_ns: u64,
    /// tBERS for one block on one die.
    pub erase_latency_ns: u64,
    /// NAND channel (die to controller) rate, MB/s (10^6 B).
    pub channel_rate_mb_s: u64,
    /// Host interface (PCIe) rate per direction, MB/s (10^6 B).
    pub host_rate_mb_s: u64,
    /// Firmware time added to every read command.
    #[serde(default)]
    pub read_overhead_ns: u64,
    /// Firmware time added to every write or append command.
    #[serde(default)]
    pub write_overhead_ns: u64,
    /// Firmware time of a zone management command that touches no NAND.
    #[serde(default)]
    pub zone_mgmt_overhead_ns: u64,
    /// Per-zone write buffer in program units; with it, writes complete early once buffered.
    /// 0: no buffer, a write completes when its full program units are programmed.
    #[serde(default)]
    pub write_buffer_units_per_zone: u32,
    /// A power-loss-protected write cache shared by all dies, in program units (0: none):
    /// writes complete once cached and drain to NAND in the background; a full cache makes
    /// writes wait. At least one unit per active zone.
    #[serde(default)]
    pub write_cache_units: u32,
    /// Erase suspend for reads (off when absent): a read reaching a die mid-erase suspends it.
    #[serde(default)]
    pub erase_suspend: Option<EraseSuspendConfig>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EraseSuspendConfig {
    /// Time to suspend an erase before the read starts.
    pub suspend_ns: u64,
    /// Time to resume the erase after the suspended reads.
    pub resume_ns: u64,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EnergyConfig {
    pub read_nj_per_page: f64,
    pub program_nj_per_page: f64,
    /// Erase energy per block on one die; give this or `erase_nj_per_zone`.
    #[serde(default)]
    pub erase_nj_per_block: Option<f64>,
    /// Erase energy for all blocks of one zone (as ReZNS's Table 1 gives it).
    #[serde(default)]
    pub erase_nj_per_zone: Option<f64>,
}

fn positive(field: &str, value: u64) -> Result<(), ConfigError> {
    if value == 0 {
        Err(ConfigError::field(field, "must be greater than 0"))
    } else {
        Ok(())
    }
}

fn limit(value: u32) -> Option<u32> {
    (value != 0).then_some(value)
}

impl DeviceConfig {
    /// Checks every rule the device relies on; errors name the field (prefixed with `prefix`).
    pub fn validate(&self, prefix: &str) -> Result<ZnsSpec, ConfigError> {
        let f = |name: &str| format!("{prefix}{name}");
        let g = &self.geometry;
        let z = &self.zones;
        let t = &self.timing;
        let e = &self.energy;
        for (name, value) in [
            ("geometry.channels", g.channels as u64),
            ("geometry.dies_per_channel", g.dies_per_channel as u64),
            ("geometry.blocks_per_die", g.blocks_per_die as u64),
            ("geometry.pages_per_block", g.pages_per_block as u64),
            ("geometry.page_size_bytes", g.page_size_bytes.0),
            ("geometry.pages_per_program", g.pages_per_program as u64),
            ("geometry.lba_size_bytes", g.lba_size_bytes.0),
            ("zones.dies_per_zone", z.dies_per_zone as u64),
            ("zones.zone_size_bytes", z.zone_size_bytes.0),
            ("zones.zone_capacity_bytes", z.zone_capacity_bytes.0),
            ("timing.channel_rate_mb_s", t.channel_rate_mb_s),
            ("timing.host_rate_mb_s", t.host_rate_mb_s),
        ] {
            positive(&f(name), value)?;
        }
        let lba = g.lba_size_bytes.0;
        if lba != 512 && lba != 4096 {
            return Err(ConfigError::field(
                f("geometry.lba_size_bytes"),
                format!("is {lba}; ZoneLab supports 512 and 4096"),
            ));
        }
        if !g.page_size_bytes.0.is_multiple_of(lba) {
            return Err(ConfigError::field(
                f("geometry.page_size_bytes"),
                format!(
                    "{} is not a multiple of the LBA size {lba}",
                    g.page_size_bytes.0
                ),
            ));
        }
        if !g.pages_per_block.is_multiple_of(g.pages_per_program) {
            return Err(ConfigError::field(
                f("geometry.pages_per_program"),
                format!(
                    "{} does not divide pages_per_block {}",
                    g.pages_per_program, g.pages_per_block
                ),
            ));
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
        let cap = z.zone_capacity_bytes.0;
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
        let (mor, mar) = (limit(z.max_open_zones), limit(z.max_active_zones));
        if let (Some(open), Some(active)) = (mor, mar)
            && open > active
        {
            return Err(ConfigError::field(
                f("zones.max_open_zones"),
                format!("{open} is above max_active_zones {active}"),
            ));
        }
        if t.write_cache_units > 0 {
            if t.write_buffer_units_per_zone > 0 {
                return Err(ConfigError::field(
                    f("timing.write_cache_units"),
                    "give a per-zone write buffer (write_buffer_units_per_zone) or a shared write cache, not both",
                ));
            }
            match mar {
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
        if t.read_latency_ns == 0 && t.program_latency_ns == 0 {
            return Err(ConfigError::field(
                f("timing"),
                "read_latency_ns and program_latency_ns are both 0; give the NAND a cost",
            ));
        }
        let erase_nj_per_block = match (e.erase_nj_per_block, e.erase_nj_per_zone) {
            (Some(b), None) => b,
            (None, Some(zone_nj)) => zone_nj / blocks_per_zone as f64,
            _ => {
                return Err(ConfigError::field(
                    f("energy"),
                    "give exactly one of erase_nj_per_block and erase_nj_per_zone",
                ));
            }
        };
        for (name, v) in [
            ("energy.read_nj_per_page", e.read_nj_per_page),
            ("energy.program_nj_per_page", e.program_nj_per_page),
            ("energy.erase_nj_per_block", erase_nj_per_block),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(ConfigError::field(
                    f(name),
                    format!("{v} must be a finite number >= 0"),
                ));
            }
        }
        let suspend = t.erase_suspend.as_ref().map(|s| EraseSuspend {
            suspend: Duration::from_ns(s.suspend_ns),
            resume: Duration::from_ns(s.resume_ns),
        });
        Ok(ZnsSpec {
            name: self.name.clone(),
            nand: NandSpec {
                geometry: NandGeometry {
                    channels: g.channels,
                    dies_per_channel: g.dies_per_channel,
                    blocks_per_die: g.blocks_per_die,
                    pages_per_block: g.pages_per_block,
                    page_size_bytes: g.page_size_bytes.0,
                    pages_per_program: g.pages_per_program,
                },
                timing: NandTiming {
                    read_latency: Duration::from_ns(t.read_latency_ns),
                    program_latency: Duration::from_ns(t.program_latency_ns),
                    erase_latency: Duration::from_ns(t.erase_latency_ns),
                    channel_rate_mb_s: t.channel_rate_mb_s,
                    host_rate_mb_s: t.host_rate_mb_s,
                    erase_suspend: suspend,
                },
                energy: Energy {
                    read_nj_per_page: e.read_nj_per_page,
                    program_nj_per_page: e.program_nj_per_page,
                    erase_nj_per_block,
                },
            },
            zones: ZoneGeometry {
                lba_size_bytes: lba,
                dies_per_zone: z.dies_per_zone,
                zone_size_bytes: zone,
                zone_capacity_bytes: cap,
                zone_count,
                max_open_zones: mor,
                max_active_zones: mar,
                zone_append_size_limit_bytes: (zasl != 0).then_some(zasl),
            },
            overheads: Overheads {
                read: Duration::from_ns(t.read_overhead_ns),
                write: Duration::from_ns(t.write_overhead_ns),
                zone_mgmt: Duration::from_ns(t.zone_mgmt_overhead_ns),
            },
            write_buffer_units_per_zone: t.write_buffer_units_per_zone,
            write_cache_units: t.write_cache_units,
        })
    }
}
