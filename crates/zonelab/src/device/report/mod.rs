//! What the models behind the seam report beside the device counters, and what host layers
//! report, as plain data: the models and layers fill it in, the kernel carries the layers'
//! reports and the summary serializes both, so neither the seam, the kernel nor the report names
//! a model or a layer.

pub mod elastic;
pub mod files;
pub mod fs;
pub mod ftl;
pub mod kv;
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

/// A host layer's report, made when the run ends (`layers.<name>` in the summary). Untagged: each
/// serializes as its report alone, since the layer's name already says which it is.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum LayerReport {
    /// The file workloads on the file layer, in the experiment's order (`layers.files`).
    FileWorkloads(Vec<files::FileWorkloadReport>),
    /// A key-value workload (db_bench, YCSB) and its store.
    KvStore(kv::KvReport),
    /// The zoned file layer (`layers.fs`).
    FileLayer(fs::FsReport),
}

impl LayerReport {
    pub fn file_workloads(&self) -> Option<&[files::FileWorkloadReport]> {
        match self {
            LayerReport::FileWorkloads(r) => Some(r),
            _ => None,
        }
    }

    pub fn kv_store(&self) -> Option<&kv::KvReport> {
        match self {
            LayerReport::KvStore(r) => Some(r),
            _ => None,
        }
    }

    pub fn file_layer(&self) -> Option<&fs::FsReport> {
        match self {
            LayerReport::FileLayer(r) => Some(r),
            _ => None,
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A layer's report serializes as that report alone (no tag), as it did when layers handed
    /// the kernel JSON.
    #[test]
    fn a_layer_report_serializes_as_its_report() {
        fn value(v: &impl Serialize) -> serde_json::Value {
            serde_json::to_value(v).expect("serializes")
        }
        let fs = fs::FsReport {
            personality: "zenfs".into(),
            ..Default::default()
        };
        let workloads = vec![files::FileWorkloadReport::default()];
        let kv = kv::KvReport::default();
        assert_eq!(value(&LayerReport::FileLayer(fs.clone())), value(&fs));
        assert_eq!(
            value(&LayerReport::FileWorkloads(workloads.clone())),
            value(&workloads)
        );
        assert_eq!(value(&LayerReport::KvStore(kv.clone())), value(&kv));
    }
}
