//! What the models behind the seam report beside the device counters, as plain data: the models
//! fill it in and the summary serializes it, so neither the seam nor the report names a model.

pub mod elastic;
pub mod ftl;
pub mod pool;
pub mod renewable;

use serde::Serialize;

/// What a policy reports in the summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FirmwareReport {
    /// Mapping and preemptive: states, erases and queues.
    ZoneMapping(pool::PoolReport),
    /// ReZNS.
    Renewable(renewable::RenewableReport),
    /// The eZNS host layer (not a device policy, reported in the same place).
    Elastic(elastic::ElasticReport),
    /// The conventional SSD's FTL: garbage collection, WAF, free superblocks.
    Ftl(ftl::FtlReport),
}
