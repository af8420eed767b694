//! What the eZNS layer reports: per namespace its resources, the widths its groups got and the
//! spares it held over time; allocations, global-overdrive cycles, loans and reclaims; and the
//! scheduler's congestion windows, queued commands and admission delay.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::time::Instant;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NamespaceReport {
    pub namespace: u32,
    pub essentials: u32,
    pub own_spares: u32,
    /// Spares it may use at the end (own, less lent, plus borrowed).
    pub spare_pool: u32,
    pub spares_used_max: u32,
    pub groups_opened: u64,
    /// Stripe-group width -> groups opened that wide.
    pub widths: BTreeMap<u32, u64>,
    /// The local-overdrive estimate of active v-zones at the end.
    pub active_estimate: f64,
}

/// Spares one namespace held (in its open groups) and could use, at time `t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SpareSample {
    pub t: Instant,
    pub namespace: u32,
    pub spares_used: u32,
    pub spare_pool: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ElasticReport {
    pub namespaces: Vec<NamespaceReport>,
    /// Physical zones allocated (each group's zones, reservations included).
    pub allocations: u64,
    pub overdrive_cycles: u64,
    pub spares_lent: u64,
    pub spares_returned: u64,
    /// Overdriven groups compacted into narrower ones, and the LBAs copied.
    pub reclaims: u64,
    pub reclaimed_lbas: u64,
    pub read_cc_decreases: u64,
    pub read_cc_increases: u64,
    /// Stripe reads that waited for their group's window.
    pub reads_queued: u64,
    /// Writes (and zone management behind them) that waited in a v-zone's queue.
    pub writes_queued: u64,
    /// The write admission delay per block at the end (ns).
    pub admission_delay_ns: u64,
    /// The last sample of each interval, per namespace.
    #[serde(skip)]
    pub spare_samples: Vec<SpareSample>,
    /// The interval of `spare_samples` (the one asked for, doubled past the bound).
    pub series_interval_ns: u64,
}
