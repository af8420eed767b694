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
    /// ReZNS placement with on-demand or preemptive erasing: both reports.
    Combined(CombinedReport),
    /// The eZNS host layer (not a device policy, reported in the same place).
    Elastic(elastic::ElasticReport),
    /// The conventional SSD's FTL: garbage collection, WAF, free superblocks.
    Ftl(ftl::FtlReport),
}

/// The renewable placement's and the erase scheduler's reports side by side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CombinedReport {
    pub renewable: renewable::RenewableReport,
    pub zone_mapping: pool::PoolReport,
}

/// One row of [`CombinedReport::rows`]: the values current at `t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CombinedRow {
    pub t: crate::time::Instant,
    pub free: u32,
    pub invalid: u32,
    pub state: u8,
    pub spare_zones: u32,
}

impl CombinedReport {
    /// Both step series on one time axis: a row at every time either changed.
    pub fn rows(&self) -> Vec<CombinedRow> {
        let (pool, spare) = (&self.zone_mapping.samples, &self.renewable.spare_samples);
        let mut times: Vec<_> = pool.iter().map(|p| p.t).collect();
        times.extend(spare.iter().map(|s| s.t));
        times.sort_unstable();
        times.dedup();
        let (mut i, mut j) = (0, 0);
        times
            .into_iter()
            .map(|t| {
                while pool.get(i).is_some_and(|p| p.t <= t) {
                    i += 1;
                }
                while spare.get(j).is_some_and(|s| s.t <= t) {
                    j += 1;
                }
                let (free, invalid, state) = i.checked_sub(1).map_or((0, 0, 0), |k| {
                    (pool[k].free, pool[k].invalid, pool[k].state)
                });
                CombinedRow {
                    t,
                    free,
                    invalid,
                    state,
                    spare_zones: j.checked_sub(1).map_or(0, |k| spare[k].spare_zones),
                }
            })
            .collect()
    }
}
