//! The device description a preset gives and an experiment may override, and its validation into
//! the typed [`DeviceSpec`] the simulator runs on: a ZNS device (`[device.zones]`) or a
//! conventional SSD (`kind = "conventional"`, `[device.ftl]`), either with optional NAND aging
//! (`[device.aging]`).

use serde::{Deserialize, Serialize};

use super::ConfigError;
use crate::ftl::{FtlOverheads, FtlSpec, VictimChoice};
use crate::nand::{
    AgingSpec, CellType, Energy, EraseSuspend, InitialWear, NandGeometry, NandSpec, NandTiming,
    RetryModel,
};
use crate::sim::DeviceSpec;
use crate::time::Duration;
use crate::units::Bytes;
use crate::zns::{Overheads, ZnsSpec, ZoneGeometry};

/// Which interface the device offers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceKind {
    /// A Zoned Namespace SSD (`[device.zones]`).
    #[default]
    Zns,
    /// A block-interface SSD with a page-mapped FTL (`[device.ftl]`).
    Conventional,
}

impl DeviceKind {
    fn is_zns(&self) -> bool {
        *self == DeviceKind::Zns
    }
}

/// A device as written in a preset file (`presets/*.toml`) or an experiment's `[device]` table.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceConfig {
    /// "zns" (default) or "conventional".
    #[serde(default, skip_serializing_if = "DeviceKind::is_zns")]
    pub kind: DeviceKind,
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Where the numbers come from (paper and table, or datasheet).
    pub source: String,
    pub geometry: GeometryConfig,
    /// The zones of a ZNS device.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zones: Option<ZonesConfig>,
    pub timing: TimingConfig,
    pub energy: EnergyConfig,
    /// The FTL of a conventional device.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ftl: Option<FtlConfig>,
    /// NAND that ages and varies (off when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aging: Option<AgingConfig>,
}

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
    /// Foreground GC keeps at least this many superblocks free (at least 2).
    #[serde(default = "two")]
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

fn four_kib() -> Bytes {
    Bytes(4096)
}
fn seven() -> f64 {
    7.0
}
fn two() -> u32 {
    2
}
fn four() -> u32 {
    4
}

/// `[device.aging]`: page-type latencies and read retries (see `nand::aging`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AgingConfig {
    /// "slc", "mlc" or "tlc": per-page-type latencies (absent: every page takes tR and tPROG).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell: Option<CellConfig>,
    /// tR per page type, lower first (as many as the cell type has).
    #[serde(default)]
    pub read_latency_ns: Vec<u64>,
    /// tPROG per page type, for devices that program page by page (pages_per_program = 1).
    #[serde(default)]
    pub program_latency_ns: Vec<u64>,
    /// Chance of a retry at zero wear and zero retention.
    #[serde(default)]
    pub retry_base: f64,
    /// Added to the chance per `endurance_erases` erases of the block.
    #[serde(default)]
    pub retry_wear_weight: f64,
    #[serde(default = "three_thousand")]
    pub endurance_erases: u32,
    /// Added to the chance as data ages to `retention_limit` (and no more past it).
    #[serde(default)]
    pub retry_retention_weight: f64,
    #[serde(default = "year")]
    pub retention_limit: Duration,
    /// The chance never goes above this.
    #[serde(default = "one_f64")]
    pub retry_max_probability: f64,
    /// Retries per read at most.
    #[serde(default = "eight")]
    pub max_retries: u32,
    /// Age at time zero of data the run did not write (prefill, preconditioning).
    #[serde(default = "zero_duration")]
    pub initial_retention: Duration,
    /// Each block's erase count at the start, drawn from [min, max].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_erase_counts: Option<[u32; 2]>,
    /// Blocks that share one draw of the initial erase count: [dies, blocks], consecutive
    /// blocks on consecutive dies (a zone: [dies_per_zone, its blocks per die]; a superblock:
    /// [all dies, 1]). Default [1, 1]: every block drawn on its own.
    #[serde(default = "one_by_one")]
    pub initial_wear_group: [u32; 2],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CellConfig {
    Slc,
    Mlc,
    Tlc,
}

fn one_by_one() -> [u32; 2] {
    [1, 1]
}
fn three_thousand() -> u32 {
    3000
}
fn year() -> Duration {
    Duration::from_secs(365 * 24 * 3600)
}
fn one_f64() -> f64 {
    1.0
}
fn eight() -> u32 {
    8
}
fn zero_duration() -> Duration {
    Duration::ZERO
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

/// The largest device ZoneLab builds, so that no value can overflow the model's arithmetic or
/// ask for more memory than a real device's state needs (chosen: each bound is far beyond
/// shipping SSDs; docs/model.md lists them).
pub const MAX_CHANNELS: u32 = 4_096;
pub const MAX_DIES_PER_CHANNEL: u32 = 4_096;
/// Dies in all (a 4 TB small-zone SSD has 128).
pub const MAX_DIES: u64 = 65_536;
/// Blocks in all: one erase counter each (128 MiB of them; a 64 TiB device of 2 MiB blocks).
pub const MAX_BLOCKS: u64 = 1 << 25;
pub const MAX_PAGES_PER_BLOCK: u32 = 65_536;
pub const MAX_PAGE_BYTES: u64 = 1 << 20;
/// Zones: the model keeps about 100 bytes per zone (smallzone-4t has 40,704).
pub const MAX_ZONES: u64 = 1 << 20;
/// Any one NAND or firmware time (tR, tPROG, tBERS, overheads, erase suspend): one second.
pub const MAX_LATENCY_NS: u64 = 1_000_000_000;
/// Channel and host link rates: 1 TB/s.
pub const MAX_RATE_MB_S: u64 = 1_000_000;
/// Energy of one operation: one joule (totals then stay finite for any count of operations).
pub const MAX_ENERGY_NJ: f64 = 1e9;

/// `value` lies in `lo..=hi`, or an error naming the field and the range.
pub(super) fn within(field: &str, value: u64, lo: u64, hi: u64) -> Result<(), ConfigError> {
    if (lo..=hi).contains(&value) {
        Ok(())
    } else {
        Err(ConfigError::field(
            field,
            format!("{value} must be between {lo} and {hi}"),
        ))
    }
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
    /// `seed` is the run's (NAND aging draws from it).
    pub fn validate(&self, prefix: &str, seed: u64) -> Result<DeviceSpec, ConfigError> {
        let f = |name: &str| format!("{prefix}{name}");
        if self.aging.is_some()
            && self
                .aging
                .as_ref()
                .is_some_and(|a| a.initial_erase_counts.is_some_and(|[a, b]| a > b))
        {
            return Err(ConfigError::field(
                f("aging.initial_erase_counts"),
                "must be [min, max] with min <= max",
            ));
        }
        match self.kind {
            DeviceKind::Zns => {
                if self.ftl.is_some() {
                    return Err(ConfigError::field(
                        f("ftl"),
                        "applies to kind = \"conventional\"; a ZNS device has no FTL",
                    ));
                }
                let Some(z) = &self.zones else {
                    return Err(ConfigError::field(
                        f("zones"),
                        "missing: a ZNS device needs [device.zones] (or set kind = \"conventional\")",
                    ));
                };
                let mut spec = self.validate_zns(prefix, z)?;
                spec.nand.aging = self.aging(prefix, &spec.nand.geometry, seed)?;
                Ok(DeviceSpec::Zns(spec))
            }
            DeviceKind::Conventional => {
                let mut spec = self.validate_conventional(prefix)?;
                spec.nand.aging = self.aging(prefix, &spec.nand.geometry, seed)?;
                Ok(DeviceSpec::Conventional(spec))
            }
        }
    }

    /// The NAND both kinds share; `blocks_per_zone` converts a per-zone erase energy.
    fn validate_nand(
        &self,
        prefix: &str,
        blocks_per_zone: Option<u64>,
    ) -> Result<NandSpec, ConfigError> {
        let f = |name: &str| format!("{prefix}{name}");
        let g = &self.geometry;
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
        if t.read_latency_ns == 0 && t.program_latency_ns == 0 {
            return Err(ConfigError::field(
                f("timing"),
                "read_latency_ns and program_latency_ns are both 0; give the NAND a cost",
            ));
        }
        let erase_nj_per_block = match (e.erase_nj_per_block, e.erase_nj_per_zone, blocks_per_zone)
        {
            (Some(b), None, _) => b,
            (None, Some(zone_nj), Some(blocks)) => zone_nj / blocks as f64,
            (None, Some(_), None) => {
                return Err(ConfigError::field(
                    f("energy.erase_nj_per_zone"),
                    "a conventional device has no zones: give erase_nj_per_block",
                ));
            }
            _ => {
                return Err(ConfigError::field(
                    f("energy"),
                    "give exactly one of erase_nj_per_block and erase_nj_per_zone",
                ));
            }
        };
        let erase_field = if e.erase_nj_per_zone.is_some() {
            "energy.erase_nj_per_zone"
        } else {
            "energy.erase_nj_per_block"
        };
        for (name, v) in [
            ("energy.read_nj_per_page", e.read_nj_per_page),
            ("energy.program_nj_per_page", e.program_nj_per_page),
            (erase_field, erase_nj_per_block),
        ] {
            if !(v.is_finite() && (0.0..=MAX_ENERGY_NJ).contains(&v)) {
                return Err(ConfigError::field(
                    f(name),
                    format!("{v} must be a number between 0 and {MAX_ENERGY_NJ:e}"),
                ));
            }
        }
        let suspend = t.erase_suspend.as_ref().map(|s| EraseSuspend {
            suspend: Duration::from_ns(s.suspend_ns),
            resume: Duration::from_ns(s.resume_ns),
        });
        Ok(NandSpec {
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
            aging: None,
        })
    }

    fn validate_conventional(&self, prefix: &str) -> Result<FtlSpec, ConfigError> {
        let f = |name: &str| format!("{prefix}{name}");
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
        if t.zone_mgmt_overhead_ns != 0 {
            return Err(ConfigError::field(
                f("timing.zone_mgmt_overhead_ns"),
                "a conventional device has no zone management (trims and flushes cost write_overhead_ns)",
            ));
        }
        let nand = self.validate_nand(prefix, None)?;
        let geo = &nand.geometry;
        let lba = self.geometry.lba_size_bytes.0;
        let unit = c.mapping_unit_bytes.0;
        if unit == 0 || !unit.is_multiple_of(lba) || !geo.page_size_bytes.is_multiple_of(unit) {
            return Err(ConfigError::field(
                f("ftl.mapping_unit_bytes"),
                format!(
                    "{unit} must be a multiple of the LBA size {lba} that divides the page size {}",
                    geo.page_size_bytes
                ),
            ));
        }
        let op = c.over_provisioning_percent;
        if !(op.is_finite() && op > 0.0 && op <= 1000.0) {
            return Err(ConfigError::field(
                f("ftl.over_provisioning_percent"),
                format!("{op} must be above 0 and at most 1000"),
            ));
        }
        if c.gc_free_superblocks < 2 {
            return Err(ConfigError::field(
                f("ftl.gc_free_superblocks"),
                format!(
                    "{} must be at least 2 (one for the host stream, one for GC's)",
                    c.gc_free_superblocks
                ),
            ));
        }
        let logical_units = FtlSpec::logical_units_for(&nand, unit, op, c.gc_free_superblocks)
            .map_err(|m| ConfigError::field(f("ftl.over_provisioning_percent"), m))?;
        let pu = geo.program_unit_bytes();
        let wb = c.write_buffer_bytes.0;
        if !wb.is_multiple_of(pu) {
            return Err(ConfigError::field(
                f("ftl.write_buffer_bytes"),
                format!("{wb} is not a whole number of program units of {pu} bytes"),
            ));
        }
        let buffer_units = u32::try_from(wb / pu).map_err(|_| {
            ConfigError::field(f("ftl.write_buffer_bytes"), format!("{wb} is too large"))
        })?;
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

    fn aging(
        &self,
        prefix: &str,
        geometry: &NandGeometry,
        seed: u64,
    ) -> Result<Option<AgingSpec>, ConfigError> {
        let Some(a) = &self.aging else {
            return Ok(None);
        };
        let f = |name: &str| format!("{prefix}aging.{name}");
        let cell = a.cell.map(|c| match c {
            CellConfig::Slc => CellType::Slc,
            CellConfig::Mlc => CellType::Mlc,
            CellConfig::Tlc => CellType::Tlc,
        });
        let types = cell.map_or(0, CellType::page_types);
        let per_type = |name: &str, v: &[u64]| -> Result<Vec<Duration>, ConfigError> {
            match cell {
                None if v.is_empty() => Ok(Vec::new()),
                None => Err(ConfigError::field(
                    f(name),
                    "needs `cell` (\"slc\", \"mlc\" or \"tlc\")",
                )),
                Some(c) if v.len() != types => Err(ConfigError::field(
                    f(name),
                    format!(
                        "gives {} values; {} cells have {types} page types",
                        v.len(),
                        c.name()
                    ),
                )),
                Some(_) => Ok(v.iter().map(|&ns| Duration::from_ns(ns)).collect()),
            }
        };
        let read_latency = per_type("read_latency_ns", &a.read_latency_ns)?;
        let program_latency = if cell.is_some() && a.program_latency_ns.is_empty() {
            vec![Duration::from_ns(self.timing.program_latency_ns); types]
        } else {
            per_type("program_latency_ns", &a.program_latency_ns)?
        };
        if !a.program_latency_ns.is_empty() && geometry.pages_per_program != 1 {
            return Err(ConfigError::field(
                f("program_latency_ns"),
                format!(
                    "applies to page-by-page programming; this NAND programs {} pages at once (its tPROG stays)",
                    geometry.pages_per_program
                ),
            ));
        }
        for (name, v) in [
            ("retry_base", a.retry_base),
            ("retry_wear_weight", a.retry_wear_weight),
            ("retry_retention_weight", a.retry_retention_weight),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(ConfigError::field(
                    f(name),
                    format!("{v} must be a finite number >= 0"),
                ));
            }
        }
        if !(0.0..1.0).contains(&a.retry_max_probability)
            && a.max_retries > 0
            && a.retry_max_probability != 1.0
        {
            return Err(ConfigError::field(
                f("retry_max_probability"),
                format!("{} must be between 0 and 1", a.retry_max_probability),
            ));
        }
        if a.endurance_erases == 0 {
            return Err(ConfigError::field(
                f("endurance_erases"),
                "must be greater than 0",
            ));
        }
        if a.retention_limit.is_zero() {
            return Err(ConfigError::field(
                f("retention_limit"),
                "must be greater than 0",
            ));
        }
        if a.initial_wear_group.contains(&0) {
            return Err(ConfigError::field(
                f("initial_wear_group"),
                "must be [dies, blocks], both at least 1",
            ));
        }
        if a.max_retries > 64 {
            return Err(ConfigError::field(
                f("max_retries"),
                format!("{} is above 64", a.max_retries),
            ));
        }
        Ok(Some(AgingSpec {
            cell,
            read_latency,
            program_latency,
            retry: RetryModel {
                base: a.retry_base,
                wear_weight: a.retry_wear_weight,
                endurance_erases: a.endurance_erases,
                retention_weight: a.retry_retention_weight,
                retention_limit: a.retention_limit,
                max_probability: a.retry_max_probability,
                max_retries: a.max_retries,
            },
            initial_retention: a.initial_retention,
            initial_wear: a.initial_erase_counts.map(|[min, max]| InitialWear {
                min,
                max,
                group_dies: a.initial_wear_group[0],
                group_blocks: a.initial_wear_group[1],
            }),
            seed,
        }))
    }

    fn validate_zns(&self, prefix: &str, z: &ZonesConfig) -> Result<ZnsSpec, ConfigError> {
        let f = |name: &str| format!("{prefix}{name}");
        let g = &self.geometry;
        let t = &self.timing;
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
        within(
            &f("geometry.channels"),
            g.channels as u64,
            1,
            MAX_CHANNELS as u64,
        )?;
        within(
            &f("geometry.dies_per_channel"),
            g.dies_per_channel as u64,
            1,
            MAX_DIES_PER_CHANNEL as u64,
        )?;
        let dies = g.channels as u64 * g.dies_per_channel as u64;
        if dies > MAX_DIES {
            return Err(ConfigError::field(
                f("geometry.dies_per_channel"),
                format!(
                    "{} channels x {} dies per channel is {dies} dies; at most {MAX_DIES}",
                    g.channels, g.dies_per_channel
                ),
            ));
        }
        if dies * g.blocks_per_die as u64 > MAX_BLOCKS {
            return Err(ConfigError::field(
                f("geometry.blocks_per_die"),
                format!(
                    "{} blocks on each of {dies} dies is {} blocks; at most {MAX_BLOCKS}",
                    g.blocks_per_die,
                    dies * g.blocks_per_die as u64
                ),
            ));
        }
        within(
            &f("geometry.pages_per_block"),
            g.pages_per_block as u64,
            1,
            MAX_PAGES_PER_BLOCK as u64,
        )?;
        within(
            &f("geometry.page_size_bytes"),
            g.page_size_bytes.0,
            1,
            MAX_PAGE_BYTES,
        )?;
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
        within(&f("zones.zone_count"), zone_count as u64, 1, MAX_ZONES)?;
        for (name, v) in [
            ("zones.max_open_zones", z.max_open_zones),
            ("zones.max_active_zones", z.max_active_zones),
        ] {
            within(&f(name), v as u64, 0, zone_count as u64)?;
        }
        if zasl > cap {
            return Err(ConfigError::field(
                f("zones.zone_append_size_limit_bytes"),
                format!("{zasl} is above the zone capacity {cap}"),
            ));
        }
        for (name, v) in [
            ("timing.read_latency_ns", t.read_latency_ns),
            ("timing.program_latency_ns", t.program_latency_ns),
            ("timing.erase_latency_ns", t.erase_latency_ns),
            ("timing.read_overhead_ns", t.read_overhead_ns),
            ("timing.write_overhead_ns", t.write_overhead_ns),
            ("timing.zone_mgmt_overhead_ns", t.zone_mgmt_overhead_ns),
        ] {
            within(&f(name), v, 0, MAX_LATENCY_NS)?;
        }
        if let Some(s) = &t.erase_suspend {
            within(
                &f("timing.erase_suspend.suspend_ns"),
                s.suspend_ns,
                0,
                MAX_LATENCY_NS,
            )?;
            within(
                &f("timing.erase_suspend.resume_ns"),
                s.resume_ns,
                0,
                MAX_LATENCY_NS,
            )?;
        }
        within(
            &f("timing.channel_rate_mb_s"),
            t.channel_rate_mb_s,
            1,
            MAX_RATE_MB_S,
        )?;
        within(
            &f("timing.host_rate_mb_s"),
            t.host_rate_mb_s,
            1,
            MAX_RATE_MB_S,
        )?;
        let unit = g.page_size_bytes.0 * g.pages_per_program as u64;
        within(
            &f("timing.write_buffer_units_per_zone"),
            t.write_buffer_units_per_zone as u64,
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
        let nand = self.validate_nand(prefix, Some(blocks_per_zone))?;
        Ok(ZnsSpec {
            name: self.name.clone(),
            nand,
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
