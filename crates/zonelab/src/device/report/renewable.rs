//! What ReZNS reports: resets by kind, what the spare-list recycled, and the spare-list over
//! time.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::time::Instant;

/// Spare-list length after a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpareSample {
    pub t: Instant,
    pub spare_zones: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RenewableReport {
    pub host_resets: u64,
    /// Resets whose physical zone became an Rzone (kept, remainder on the spare-list).
    pub rzone_resets: u64,
    /// Resets handled as the baseline (Nzone).
    pub nzone_resets: u64,
    pub zombie_reclaims: u64,
    pub regc_releases: u64,
    /// Physical zones erased (the erases the baseline would do at each reset).
    pub zones_erased: u64,
    /// Program units handed out of Rzones instead of fresh zones.
    pub units_recycled: u64,
    /// Times every physical zone was pinned by live pieces and one was compacted in place.
    pub compactions: u64,
    pub spare_zones: u32,
    pub spare_zones_max: u32,
    /// Pieces per logical zone, counted at each reset: pieces -> resets.
    pub pieces_per_zone: BTreeMap<u32, u64>,
    /// The last spare-list length of each interval (the interval doubles past a bound).
    #[serde(skip)]
    pub spare_samples: Vec<SpareSample>,
    /// The interval of `spare_samples` (the one asked for, doubled past the bound).
    pub series_interval_ns: u64,
    /// The spare-list at the end, most remaining capacity first: (physical zone, units left).
    #[serde(skip)]
    pub spare_list: Vec<(u32, u64)>,
}
