//! What the zone-mapping policies (mapping, preemptive) report: time in each pool state, the
//! erases of each kind, and the pool over time.

use serde::Serialize;

use crate::time::Instant;

/// Z_free, Z_invalid and the state after a change, at time `t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PoolSample {
    pub t: Instant,
    pub free: u32,
    pub invalid: u32,
    /// 0, 1 or 2: S0, S1, S2 (mapping: 0 or 2).
    pub state: u8,
}

/// What the zone-mapping policies report in the summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PoolReport {
    pub time_in_s0_ns: u64,
    pub time_in_s1_ns: u64,
    pub time_in_s2_ns: u64,
    /// Rows erased one at a time in idle time.
    pub partial_zone_erases: u64,
    /// Zones erased whole while foreground I/O waited.
    pub full_zone_erases: u64,
    /// Zones that became free again.
    pub zones_freed: u64,
    pub free_zones: u32,
    pub invalid_zones: u32,
    /// The last sample of each interval (the interval doubles past a bound).
    #[serde(skip)]
    pub samples: Vec<PoolSample>,
    /// The interval of `samples` (the one asked for, doubled past the bound).
    pub series_interval_ns: u64,
}
