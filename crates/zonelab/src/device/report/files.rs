//! What file workloads report (`layers.files` in summary.json): per workload its operations,
//! bytes and rates in the measured phase. Plain data here so the kernel can carry it
//! (`workload/files` fills it in).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What one file workload did in the measured phase.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FileWorkloadReport {
    pub name: String,
    pub kind: String,
    /// Operations done (Filebench flowops, fio writes and fsyncs, updates).
    pub ops: u64,
    pub elapsed_ns: u64,
    pub ops_per_s: f64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub mib_per_s: f64,
    /// Simulated time the set-up took (not measured).
    pub setup_ns: u64,
    /// Filebench: each flowop's count.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub flowops: BTreeMap<String, u64>,
    /// fio: each loop (consecutive run) on its own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loops: Vec<LoopReport>,
    /// Calls the file layer refused (no space), by operation.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub failures: BTreeMap<String, u64>,
    /// Why the workload did not run: its set-up (the files it starts from) did not fit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LoopReport {
    pub elapsed_ns: u64,
    pub write_bytes: u64,
    pub mib_per_s: f64,
}

impl FileWorkloadReport {
    /// Rates from the counts and the elapsed time.
    pub fn finish(&mut self) {
        let s = self.elapsed_ns.max(1) as f64 / 1e9;
        self.ops_per_s = self.ops as f64 / s;
        self.mib_per_s = (self.read_bytes + self.write_bytes) as f64 / (1u64 << 20) as f64 / s;
    }

    pub fn fail(&mut self, op: &str) {
        *self.failures.entry(op.to_string()).or_default() += 1;
    }
}
