//! What the conventional SSD reports beside the device counters: garbage collection's work, the
//! FTL's write amplification, free superblocks over time, and what preconditioning did.

use serde::Serialize;

use crate::time::Instant;

/// One interval of the FTL's series.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FtlSample {
    /// End of the interval.
    pub t: Instant,
    pub host_bytes: u64,
    pub gc_copied_bytes: u64,
    pub superblocks_erased: u64,
    /// Free superblocks at the end of the interval.
    pub free_superblocks: u32,
}

impl FtlSample {
    /// (host + GC) / host bytes programmed in the interval.
    pub fn waf(&self) -> Option<f64> {
        (self.host_bytes > 0)
            .then(|| (self.host_bytes + self.gc_copied_bytes) as f64 / self.host_bytes as f64)
    }
}

/// The conventional SSD's own report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FtlReport {
    pub victim_policy: String,
    pub mapping_unit_bytes: u64,
    pub over_provisioning_percent: f64,
    pub logical_bytes: u64,
    pub physical_bytes: u64,
    pub superblocks: u32,
    pub superblock_bytes: u64,
    /// Both mapping tables when every unit is mapped: 4 bytes per logical unit and per slot.
    pub map_bytes: u64,
    pub write_buffer_bytes: u64,
    pub host_units: u64,
    pub gc_copied_units: u64,
    pub gc_copied_bytes: u64,
    pub gc_erased_superblocks: u64,
    /// Blocks (one per die) erased by garbage collection and wear levelling.
    pub gc_erased_blocks: u64,
    pub foreground_collections: u64,
    pub background_collections: u64,
    pub wear_leveling_moves: u64,
    pub rmw_reads: u64,
    /// Host superblocks opened only after a collection finished at once (pacing fell behind).
    pub gc_stalls: u64,
    /// FTL write amplification: (units the host stream placed + units GC copied) / host units.
    pub waf: Option<f64>,
    pub free_superblocks: u32,
    /// The interval of the series.
    pub series_interval_ns: u64,
    #[serde(skip)]
    pub samples: Vec<FtlSample>,
    pub precondition: Option<PreconditionReport>,
}

/// What preconditioning did.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct PreconditionReport {
    pub filled_bytes: u64,
    pub overwritten_bytes: u64,
    pub rounds: u32,
    /// Write amplification of each round of random overwrite.
    pub round_waf: Vec<f64>,
    pub steady_state: bool,
}
