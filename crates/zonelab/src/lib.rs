//! ZoneLab core: a deterministic, faster-than-real-time simulator of NVMe ZNS SSDs.
//!
//! This crate does no I/O and holds no global state: the CLI, the fio engine and tests drive it.
//! Time is integer nanoseconds throughout. The flow is
//! [`config::ExperimentConfig`] -> [`config::Experiment`] -> [`sim::run`] -> [`metrics::Summary`].

pub mod config;
pub mod firmware;
pub mod metrics;
pub mod nand;
pub mod sim;
pub mod units;
pub mod workload;
pub mod zns;

pub use config::{ConfigError, Experiment, ExperimentConfig};
pub use sim::{Progress, RunOutput, run};
