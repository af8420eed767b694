//! ZoneLab core: a deterministic, faster-than-real-time simulator of NVMe ZNS SSDs.
//!
//! This crate does no I/O and holds no global state: the CLI, the fio engine, the block-device
//! front end and Python drive it. Time is integer nanoseconds ([`time`]). The flow is
//! [`config::ExperimentConfig`] -> [`experiment::Experiment`] -> [`experiment::run`] (host work, then the
//! device seam [`device::DeviceModel`], the ZNS model [`zns`] with its [`firmware`] policy, and
//! the [`nand`] timelines) -> [`report::Summary`] and the files [`report::render`] makes.

mod bits;
pub mod config;
pub mod device;
pub mod divisor;
pub mod driver;
pub mod experiment;
pub mod firmware;
pub mod ftl;
pub mod host;
pub mod metrics;
pub mod nand;
mod prefetch;
pub mod record;
pub mod report;
pub mod seed;
pub mod sim;
mod sparse;
pub mod state;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod time;
pub mod trace;
pub mod units;
pub mod validation;
pub mod workload;
pub mod zns;

pub use config::{ConfigError, ExperimentConfig};
pub use experiment::{Experiment, Inputs, Progress, RunError, RunOutput, run};

/// Cases a fuzzing property test runs: `default` (bounded, as CI runs it), or
/// `ZONELAB_FUZZ_CASES` for a longer run.
#[cfg(test)]
pub(crate) fn test_cases(default: u32) -> u32 {
    std::env::var("ZONELAB_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
