//! `[[threads]]`: host threads that append and flush, validated into the workload's spec.

use serde::{Deserialize, Serialize};

use super::ConfigError;
use super::region::zone_region;
use super::workload::MAX_PAUSE;
use crate::device::DeviceInfo;
use crate::time::Duration;
use crate::units::{Bytes, Extent};
use crate::workload::threads::ThreadsSpec;

pub const MAX_THREAD_OPS: u64 = 1_000_000_000;

/// One `[[threads]]`: host threads that append and flush (see `workload::threads`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadsConfig {
    #[serde(default)]
    pub name: Option<String>,
    /// How many threads.
    pub count: u32,
    /// Bytes per append.
    pub bs: Bytes,
    /// Appends per thread.
    pub ops: u64,
    /// Flush after each append.
    #[serde(default = "yes")]
    pub fsync: bool,
    /// CPU time per operation, on the modelled host cores.
    #[serde(default)]
    pub cpu: Option<Duration>,
    #[serde(default)]
    pub offset: Option<Extent>,
    #[serde(default)]
    pub size: Option<Extent>,
}

fn yes() -> bool {
    true
}

impl ThreadsConfig {
    pub fn validate(&self, index: usize, info: &DeviceInfo) -> Result<ThreadsSpec, ConfigError> {
        let f = |name: &str| format!("threads[{index}].{name}");
        let z = info.zoned.as_ref().ok_or_else(|| {
            ConfigError::field(f("count"), "host threads append to zones: a zoned device")
        })?;
        let lba = info.lba_size_bytes;
        if !(1..=1_000_000).contains(&self.count) {
            return Err(ConfigError::field(
                f("count"),
                format!("{} must be between 1 and 1000000", self.count),
            ));
        }
        let bs = self.bs.0;
        let cap = z.zone_capacity_lbas * lba;
        if bs == 0 || !bs.is_multiple_of(lba) || bs > cap {
            return Err(ConfigError::field(
                f("bs"),
                format!(
                    "{bs} must be a positive multiple of the LBA size {lba}, at most the zone capacity {cap}"
                ),
            ));
        }
        if let Some(zasl) = z.zone_append_size_limit_lbas
            && bs / lba > zasl
        {
            return Err(ConfigError::field(
                f("bs"),
                format!(
                    "{bs} is above the device's zone append size limit {}",
                    zasl * lba
                ),
            ));
        }
        super::ranges::within(&f("ops"), self.ops, 1, MAX_THREAD_OPS)?;
        if self.cpu.is_some_and(|c| c > MAX_PAUSE) {
            return Err(ConfigError::field(
                f("cpu"),
                format!("must be at most {MAX_PAUSE}"),
            ));
        }
        let (first_zone, zone_count, _) = zone_region(&f(""), self.offset, self.size, lba, z)?;
        Ok(ThreadsSpec {
            name: self
                .name
                .clone()
                .unwrap_or_else(|| format!("threads{index}")),
            threads: self.count,
            block_lbas: bs / lba,
            ops_per_thread: self.ops,
            fsync: self.fsync,
            cpu_per_op: self.cpu.unwrap_or(Duration::ZERO),
            first_zone,
            zone_count,
        })
    }
}
