//! `[device.aging]`: NAND that ages and varies (page types, read retries, initial wear), validated
//! into an [`AgingSpec`].

use serde::{Deserialize, Serialize};

use super::{DeviceConfig, MAX_LATENCY_NS};
use crate::config::ConfigError;
use crate::config::ranges::{within, within_f64};
use crate::nand::{AgingSpec, CellType, InitialWear, NandGeometry, RetryModel};
use crate::time::Duration;

/// `[device.aging]`: page-type latencies and read retries (see `nand::aging`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AgingConfig {
    /// "slc", "mlc" or "tlc": per-page-type latencies (absent: every page takes tR and tPROG).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell: Option<CellConfig>,
    /// tR per page type, lower first (as many as the cell type has); absent with
    /// `read_4k_latency_ns` given: those scaled by the device's `read_latency_ns /
    /// read_4k_latency_ns`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_latency_ns: Vec<u64>,
    /// tR per page type of a partial-page read (at most 4 KiB); absent: each type's tR scaled
    /// by the device's `read_4k_latency_ns / read_latency_ns`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_4k_latency_ns: Vec<u64>,
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

/// The retry chance's weights: a chance saturates at `retry_max_probability`, so a weight
/// above 1 already makes every read retry; 1000 is far beyond use.
pub const MAX_RETRY_WEIGHT: f64 = 1000.0;
/// A data age the model can add the run's time to without overflow (chosen: 100 years).
pub const MAX_RETENTION: Duration = Duration::from_secs(100 * 365 * 86_400);
/// The largest initial erase count (chosen: ten times SLC's 100,000-cycle endurance; the
/// counters then never overflow however many erases a run adds).
pub const MAX_INITIAL_ERASES: u32 = 1_000_000;

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

impl DeviceConfig {
    pub(super) fn aging(
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
        let (read_latency, read_4k_latency) = self.read_latencies(&f, a, cell)?;
        let program_latency = self.program_latencies(&f, a, cell, geometry)?;
        check_retry_chance(&f, a)?;
        check_wear_and_retry_limits(&f, a)?;
        Ok(Some(AgingSpec {
            cell,
            read_latency,
            read_4k_latency,
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

    /// tR per page type, full-page and partial-page, each list given or derived from the other.
    fn read_latencies(
        &self,
        f: &dyn Fn(&str) -> String,
        a: &AgingConfig,
        cell: Option<CellType>,
    ) -> Result<(Vec<Duration>, Vec<Duration>), ConfigError> {
        // One list may be derived from the other by the device's ratio of partial-page to
        // full-page tR (its fields were range-checked before this).
        let t = &self.timing;
        let (full, small) = (
            t.read_latency_ns.max(1) as u128,
            t.read_4k_latency_ns.unwrap_or(t.read_latency_ns).max(1) as u128,
        );
        let scaled = |v: &[Duration], num: u128, den: u128| -> Vec<Duration> {
            v.iter()
                .map(|d| Duration::from_ns((d.ns() as u128 * num / den) as u64))
                .collect()
        };
        let lists = match (
            a.read_latency_ns.is_empty(),
            a.read_4k_latency_ns.is_empty(),
        ) {
            (true, false) if cell.is_some() => {
                let small_list = per_type(f, cell, "read_4k_latency_ns", &a.read_4k_latency_ns)?;
                (scaled(&small_list, full, small), small_list)
            }
            _ => {
                let full_list = per_type(f, cell, "read_latency_ns", &a.read_latency_ns)?;
                let small_list = if a.read_4k_latency_ns.is_empty() {
                    scaled(&full_list, small, full)
                } else {
                    per_type(f, cell, "read_4k_latency_ns", &a.read_4k_latency_ns)?
                };
                (full_list, small_list)
            }
        };
        Ok(lists)
    }

    /// tPROG per page type: given only for NAND that programs page by page.
    fn program_latencies(
        &self,
        f: &dyn Fn(&str) -> String,
        a: &AgingConfig,
        cell: Option<CellType>,
        geometry: &NandGeometry,
    ) -> Result<Vec<Duration>, ConfigError> {
        let types = cell.map_or(0, CellType::page_types);
        let program_latency = if cell.is_some() && a.program_latency_ns.is_empty() {
            vec![Duration::from_ns(self.timing.program_latency_ns); types]
        } else {
            per_type(f, cell, "program_latency_ns", &a.program_latency_ns)?
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
        Ok(program_latency)
    }
}

/// A latency per page type of the cell (none without a cell type), each in range.
fn per_type(
    f: &dyn Fn(&str) -> String,
    cell: Option<CellType>,
    name: &str,
    v: &[u64],
) -> Result<Vec<Duration>, ConfigError> {
    let types = cell.map_or(0, CellType::page_types);
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
        Some(_) => {
            for &ns in v {
                within(&f(name), ns, 0, MAX_LATENCY_NS)?;
            }
            Ok(v.iter().map(|&ns| Duration::from_ns(ns)).collect())
        }
    }
}

/// The retry chance's weights and ceiling, and the data ages, within their bounds.
fn check_retry_chance(f: &dyn Fn(&str) -> String, a: &AgingConfig) -> Result<(), ConfigError> {
    for (name, v) in [
        ("retry_base", a.retry_base),
        ("retry_wear_weight", a.retry_wear_weight),
        ("retry_retention_weight", a.retry_retention_weight),
    ] {
        within_f64(&f(name), v, 0.0, MAX_RETRY_WEIGHT)?;
    }
    if !(0.0..=1.0).contains(&a.retry_max_probability) {
        return Err(ConfigError::field(
            f("retry_max_probability"),
            format!("{} must be between 0 and 1", a.retry_max_probability),
        ));
    }
    for (name, d) in [
        ("retention_limit", a.retention_limit),
        ("initial_retention", a.initial_retention),
    ] {
        if d > MAX_RETENTION {
            return Err(ConfigError::field(
                f(name),
                format!("{d} must be at most {MAX_RETENTION} (100 years)"),
            ));
        }
    }
    Ok(())
}

/// The initial wear, the endurance, the retention limit and the retries per read, within
/// their bounds.
fn check_wear_and_retry_limits(
    f: &dyn Fn(&str) -> String,
    a: &AgingConfig,
) -> Result<(), ConfigError> {
    if let Some([_, max]) = a.initial_erase_counts
        && max > MAX_INITIAL_ERASES
    {
        return Err(ConfigError::field(
            f("initial_erase_counts"),
            format!("{max} must be at most {MAX_INITIAL_ERASES}"),
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
    Ok(())
}
