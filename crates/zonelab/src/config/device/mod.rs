//! The device description a preset gives and an experiment may override, and its validation into
//! the typed [`DeviceSpec`] the simulator runs on: a ZNS device (`[device.zones]`) or a
//! conventional SSD (`kind = "conventional"`, `[device.ftl]`), either with optional NAND aging
//! (`[device.aging]`).

mod aging;
mod ftl;
mod zns;

use serde::{Deserialize, Serialize};

pub use aging::{AgingConfig, CellConfig};
pub use ftl::{FtlConfig, VictimConfig};

use super::ConfigError;
use super::ranges::{within, within_f64};
use crate::experiment::DeviceSpec;
use crate::nand::{ControllerSpec, Energy, EraseSuspend, NandGeometry, NandSpec, NandTiming};
use crate::time::Duration;
use crate::units::Bytes;

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
    /// Finish programs the zone's unwritten space with filler (as the ZN540 does); off: finish
    /// programs only the staged partial unit.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub finish_pads_zone: bool,
}

fn zero_bytes() -> Bytes {
    Bytes(0)
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TimingConfig {
    /// tR: array to page register.
    pub read_latency_ns: u64,
    /// tR of a read of at most 4 KiB of a page (partial-page read); absent: `read_latency_ns`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_4k_latency_ns: Option<u64>,
    /// tPROG for one program unit (`pages_per_program` pages).
    pub program_latency_ns: u64,
    /// tBERS for one block on one die.
    pub erase_latency_ns: u64,
    /// NAND channel (die to controller) rate, MB/s (10^6 B).
    pub channel_rate_mb_s: u64,
    /// Host interface (PCIe) rate per direction, MB/s (10^6 B).
    pub host_rate_mb_s: u64,
    /// Channel time of every NAND operation beyond its data (command and address cycles,
    /// status polls, data-out turnaround).
    #[serde(default)]
    pub channel_op_overhead_ns: u64,
    /// Commands' worth of firmware work the controller holds at once: `controller_parallelism
    /// / overhead` caps a kind of command's rate (0: no cap, the overheads are pure latencies).
    #[serde(default)]
    pub controller_parallelism: f64,
    /// Mean of the exponentially distributed extra firmware time of every command (0: none).
    #[serde(default)]
    pub firmware_jitter_mean_ns: u64,
    /// Firmware time added to every read command.
    #[serde(default)]
    pub read_overhead_ns: u64,
    /// Firmware time added to every write or append command.
    #[serde(default)]
    pub write_overhead_ns: u64,
    /// Firmware time of a zone management command that touches no NAND.
    #[serde(default)]
    pub zone_mgmt_overhead_ns: u64,
    /// Firmware time of a Zone Append (absent: `write_overhead_ns`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub append_overhead_ns: Option<u64>,
    /// Firmware time of a zone reset before its erases (absent: `zone_mgmt_overhead_ns`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reset_overhead_ns: Option<u64>,
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
    /// A die serves queued reads before queued programs (off by default).
    #[serde(default)]
    pub read_priority: bool,
    /// A die senses its next page while the last one leaves over the channel (ONFI cache
    /// read; default true); false holds the die until its page has left.
    #[serde(default = "super::yes", skip_serializing_if = "super::is_true")]
    pub cache_read: bool,
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
/// shipping SSDs; docs/config.md lists them).
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
/// Controller parallelism (chosen: far beyond any controller's firmware).
pub const MAX_CONTROLLER_PARALLELISM: f64 = 1_024.0;
/// Channel and host link rates: 1 TB/s.
pub const MAX_RATE_MB_S: u64 = 1_000_000;
/// Energy of one operation: one joule (totals then stay finite for any count of operations).
pub const MAX_ENERGY_NJ: f64 = 1e9;

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
                spec.nand.controller.seed = seed;
                Ok(DeviceSpec::Zns(spec))
            }
            DeviceKind::Conventional => {
                let mut spec = self.validate_conventional(prefix)?;
                spec.nand.aging = self.aging(prefix, &spec.nand.geometry, seed)?;
                spec.nand.controller.seed = seed;
                Ok(DeviceSpec::Conventional(spec))
            }
        }
    }

    /// The NAND geometry's ranges, checked before anything multiplies its fields (every
    /// product of them then fits in 64 bits).
    pub(super) fn check_geometry(&self, prefix: &str) -> Result<(), ConfigError> {
        let f = |name: &str| format!("{prefix}{name}");
        let g = &self.geometry;
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
        Ok(())
    }

    /// The checks both kinds share, before anything multiplies or adds their fields: the
    /// NAND geometry, the LBA size, and every time and rate in `[device.timing]` within its
    /// range (a time past [`MAX_LATENCY_NS`] would overflow the device's u64 clock). Errors
    /// name the field.
    pub(super) fn check_nand(&self, prefix: &str) -> Result<(), ConfigError> {
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
            ("timing.channel_rate_mb_s", t.channel_rate_mb_s),
            ("timing.host_rate_mb_s", t.host_rate_mb_s),
        ] {
            positive(&f(name), value)?;
        }
        self.check_geometry(prefix)?;
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
        self.check_timing_ranges(prefix)?;
        self.check_timing_consistency(prefix)?;
        Ok(())
    }

    /// Every time in `[device.timing]` within [`MAX_LATENCY_NS`], and every rate within
    /// [`MAX_RATE_MB_S`].
    fn check_timing_ranges(&self, prefix: &str) -> Result<(), ConfigError> {
        let f = |name: &str| format!("{prefix}{name}");
        let t = &self.timing;
        let suspend = t.erase_suspend.as_ref();
        for (name, v) in [
            ("timing.read_latency_ns", Some(t.read_latency_ns)),
            ("timing.read_4k_latency_ns", t.read_4k_latency_ns),
            (
                "timing.channel_op_overhead_ns",
                Some(t.channel_op_overhead_ns),
            ),
            (
                "timing.firmware_jitter_mean_ns",
                Some(t.firmware_jitter_mean_ns),
            ),
            ("timing.program_latency_ns", Some(t.program_latency_ns)),
            ("timing.erase_latency_ns", Some(t.erase_latency_ns)),
            ("timing.read_overhead_ns", Some(t.read_overhead_ns)),
            ("timing.write_overhead_ns", Some(t.write_overhead_ns)),
            (
                "timing.zone_mgmt_overhead_ns",
                Some(t.zone_mgmt_overhead_ns),
            ),
            ("timing.append_overhead_ns", t.append_overhead_ns),
            ("timing.reset_overhead_ns", t.reset_overhead_ns),
            (
                "timing.erase_suspend.suspend_ns",
                suspend.map(|s| s.suspend_ns),
            ),
            (
                "timing.erase_suspend.resume_ns",
                suspend.map(|s| s.resume_ns),
            ),
        ] {
            if let Some(v) = v {
                within(&f(name), v, 0, MAX_LATENCY_NS)?;
            }
        }
        for (name, v) in [
            ("timing.channel_rate_mb_s", t.channel_rate_mb_s),
            ("timing.host_rate_mb_s", t.host_rate_mb_s),
        ] {
            within(&f(name), v, 1, MAX_RATE_MB_S)?;
        }
        Ok(())
    }

    /// A partial-page read no slower than a full one, the controller's parallelism in range,
    /// and a NAND that costs some time.
    fn check_timing_consistency(&self, prefix: &str) -> Result<(), ConfigError> {
        let f = |name: &str| format!("{prefix}{name}");
        let t = &self.timing;
        if let Some(small) = t.read_4k_latency_ns
            && small > t.read_latency_ns
        {
            return Err(ConfigError::field(
                f("timing.read_4k_latency_ns"),
                format!(
                    "{small} is above read_latency_ns {}: a partial-page read senses no longer than a full one",
                    t.read_latency_ns
                ),
            ));
        }
        within_f64(
            &f("timing.controller_parallelism"),
            t.controller_parallelism,
            0.0,
            MAX_CONTROLLER_PARALLELISM,
        )?;
        if t.read_latency_ns == 0 && t.program_latency_ns == 0 {
            return Err(ConfigError::field(
                f("timing"),
                "read_latency_ns and program_latency_ns are both 0; give the NAND a cost",
            ));
        }
        Ok(())
    }

    /// The NAND both kinds share, once [`Self::check_nand`] passed; `blocks_per_zone` converts a
    /// per-zone erase energy. Energies are checked here (for both kinds).
    fn nand_spec(
        &self,
        prefix: &str,
        blocks_per_zone: Option<u64>,
    ) -> Result<NandSpec, ConfigError> {
        let g = &self.geometry;
        let t = &self.timing;
        let e = &self.energy;
        let erase_nj_per_block = self.erase_energy(prefix, blocks_per_zone)?;
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
                read_4k_latency: Duration::from_ns(
                    t.read_4k_latency_ns.unwrap_or(t.read_latency_ns),
                ),
                channel_op: Duration::from_ns(t.channel_op_overhead_ns),
                program_latency: Duration::from_ns(t.program_latency_ns),
                erase_latency: Duration::from_ns(t.erase_latency_ns),
                channel_rate_mb_s: t.channel_rate_mb_s,
                host_rate_mb_s: t.host_rate_mb_s,
                erase_suspend: suspend,
                read_priority: t.read_priority,
                cache_read: t.cache_read,
            },
            energy: Energy {
                read_nj_per_page: e.read_nj_per_page,
                program_nj_per_page: e.program_nj_per_page,
                erase_nj_per_block,
            },
            aging: None,
            controller: ControllerSpec {
                parallelism: t.controller_parallelism,
                jitter_mean: Duration::from_ns(t.firmware_jitter_mean_ns),
                seed: 0,
            },
        })
    }

    /// The erase energy per block (from `energy.erase_nj_per_block`, or the zone's spread over
    /// its blocks), after checking every energy of `[energy]`.
    fn erase_energy(&self, prefix: &str, blocks_per_zone: Option<u64>) -> Result<f64, ConfigError> {
        let f = |name: &str| format!("{prefix}{name}");
        let e = &self.energy;
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
            within_f64(&f(name), v, 0.0, MAX_ENERGY_NJ)?;
        }
        Ok(erase_nj_per_block)
    }
}
