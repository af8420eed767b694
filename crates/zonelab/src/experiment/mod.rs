//! An experiment and its run: the validated experiment (the device, its firmware, the host layer,
//! the workloads), the device it builds, and the loop that runs fio-like jobs and trace replay
//! (`runner`) beside host tasks on the kernel ([`crate::sim`]) until the work is done or a limit
//! (`limits`) stops it, then summarises.

mod limits;
pub(crate) mod runner;
mod simulation;

pub use limits::{MAX_EVENTS_AT_ONE_INSTANT, RunLimits, STOP_CHECK_EVENTS};
pub(crate) use simulation::run_with;

use std::io::BufRead;

use crate::device::{DeviceModel, ZoneState};
use crate::firmware::PolicySpec;
use crate::ftl::{Ftl, FtlSpec, PreconditionPlan};
use crate::metrics::Metrics;
use crate::metrics::series::Sampling;
use crate::nand::NandSpec;
use crate::report::Summary;
use crate::time::{Duration, Instant};
use crate::trace::TraceSink;
use crate::trace::read::TraceError;
use crate::workload::HostWorkload;
use crate::workload::JobSpec;
use crate::workload::replay::ReplaySpec;
use crate::zns::{Device, PrefillPlan, ZnsSpec};

/// Which device model an experiment runs.
#[derive(Clone, Debug, PartialEq)]
pub enum DeviceSpec {
    Zns(ZnsSpec),
    /// A conventional (block-interface) SSD with a page-mapped FTL.
    Conventional(FtlSpec),
}

impl DeviceSpec {
    pub fn name(&self) -> &str {
        match self {
            DeviceSpec::Zns(s) => &s.name,
            DeviceSpec::Conventional(s) => &s.name,
        }
    }
    pub fn info(&self) -> crate::device::DeviceInfo {
        match self {
            DeviceSpec::Zns(s) => s.info(),
            DeviceSpec::Conventional(s) => s.info(),
        }
    }
    /// The NAND either kind is built on.
    pub fn nand(&self) -> &NandSpec {
        match self {
            DeviceSpec::Zns(s) => &s.nand,
            DeviceSpec::Conventional(s) => &s.nand,
        }
    }
}

/// A validated experiment: the simulator takes this and nothing else.
#[derive(Clone, Debug)]
pub struct Experiment {
    pub name: String,
    pub seed: u64,
    pub device: DeviceSpec,
    /// A host-side layer over the device (static zones, eZNS).
    pub layer: Option<crate::host::LayerSpec>,
    /// The namespaces `prefill` applies to, in order.
    pub prefill_namespaces: Vec<u32>,
    pub firmware: PolicySpec,
    pub retain_data: bool,
    pub interval: Duration,
    pub max_intervals: usize,
    pub prefill: PrefillPlan,
    /// A conventional device's preconditioning.
    pub precondition: Option<PreconditionPlan>,
    pub read_only_zones: Vec<u32>,
    pub offline_zones: Vec<u32>,
    /// Faults at run time: the device is wrapped in them ([`crate::device::faults::Faulty`]).
    pub faults: crate::device::faults::FaultPlan,
    pub jobs: Vec<JobSpec>,
    pub replays: Vec<ReplaySpec>,
    /// Workloads that run as host tasks.
    pub host: Vec<HostWorkload>,
    /// Modelled host cores.
    pub cores: u32,
    /// Write the per-command trace.
    pub trace: bool,
}

/// Reported to the caller every so often during a run.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub simulated: Instant,
    /// Share of the work done, 0..1.
    pub fraction: f64,
}

/// What a front end hands a run besides the experiment.
#[derive(Default)]
pub struct Inputs {
    /// The trace of each `[[replay]]`, in order.
    pub traces: Vec<Box<dyn BufRead>>,
    /// Where the per-command trace goes (with `[trace] enabled`).
    pub trace_sink: Option<Box<dyn TraceSink>>,
    /// When to stop early.
    pub limits: RunLimits,
}

/// Why a run could not finish.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("replay `{replay}`: {error}")]
    Trace { replay: String, error: TraceError },
    #[error("replay `{0}`: no trace was given to the run")]
    MissingTrace(String),
    #[error("host tasks wait for each other forever (deadlock): {}", .0.join(", "))]
    Deadlock(Vec<String>),
    #[error("cannot write the trace: {0}")]
    TraceWrite(String),
    #[error(
        "the run cannot progress: {events} events at simulated time {at} without the clock moving (host tasks or the device wake each other forever)"
    )]
    NoProgress { at: Instant, events: u64 },
}

/// The outcome of a run: the summary and the state it came from.
pub struct RunOutput {
    pub summary: Summary,
    pub metrics: Metrics,
    pub device: Box<dyn DeviceModel>,
}

impl RunOutput {
    /// The results files (name, contents) `zonelab run` writes, with `config_toml` as the
    /// resolved configuration.
    pub fn files(&self, config_toml: &str) -> Vec<(String, String)> {
        crate::report::render(&self.summary, &self.metrics, &*self.device, config_toml)
    }
}

/// The ZNS device an experiment describes, faults injected and prefilled.
pub fn build_zns(experiment: &Experiment) -> Device {
    let DeviceSpec::Zns(spec) = &experiment.device else {
        panic!("build_zns needs a ZNS device");
    };
    let mut device = Device::build(
        spec,
        &experiment.firmware,
        experiment.retain_data,
        experiment.sampling(),
    );
    device.prefill(&experiment.prefill);
    for &z in &experiment.read_only_zones {
        device.inject_fault(z, ZoneState::ReadOnly);
    }
    for &z in &experiment.offline_zones {
        device.inject_fault(z, ZoneState::Offline);
    }
    device
}

/// The device an experiment describes, set up and ready for its workload (behind its host
/// layer, if it has one).
pub fn build_device(experiment: &Experiment) -> Box<dyn DeviceModel> {
    let device = build_model(experiment);
    if experiment.faults.is_empty() {
        return device;
    }
    // Fault times count from the start of the workload, after the set-up's NAND work.
    let plan = experiment.faults.after(device.idle_at());
    Box::new(crate::device::faults::Faulty::new(device, plan))
}

/// The device model an experiment describes, without its run-time faults.
fn build_model(experiment: &Experiment) -> Box<dyn DeviceModel> {
    match (&experiment.device, &experiment.layer) {
        (DeviceSpec::Zns(_), None) => Box::new(build_zns(experiment)),
        (DeviceSpec::Zns(spec), Some(layer)) => {
            let mut make = || {
                Device::build(
                    spec,
                    &experiment.firmware,
                    experiment.retain_data,
                    experiment.sampling(),
                )
            };
            let plan: Vec<(u32, Vec<(u32, u64)>)> = experiment
                .prefill_namespaces
                .iter()
                .map(|&ns| (ns, experiment.prefill.zones.clone()))
                .collect();
            let mut device = layer.build(&mut make, &plan, experiment.sampling());
            for (zones, state) in [
                (&experiment.read_only_zones, ZoneState::ReadOnly),
                (&experiment.offline_zones, ZoneState::Offline),
            ] {
                for &z in zones {
                    device
                        .inject_fault(z, state)
                        .expect("config lets only an array, which takes them, have zone faults");
                }
            }
            device
        }
        (DeviceSpec::Conventional(spec), layer) => {
            let mut ftl = Ftl::new(spec, experiment.retain_data, experiment.sampling());
            if let Some(plan) = &experiment.precondition {
                ftl.precondition(plan);
            }
            match layer {
                Some(layer) => layer.build_over_block(Box::new(ftl), experiment.sampling()),
                None => Box::new(ftl),
            }
        }
    }
}

impl Experiment {
    /// How its time series sample (`[metrics]`): every series of the run takes it.
    pub fn sampling(&self) -> Sampling {
        Sampling {
            interval: self.interval,
            max_points: self.max_intervals,
        }
    }

    /// What the host sees: the device, or the layer over it.
    pub fn info(&self) -> crate::device::DeviceInfo {
        match (&self.device, &self.layer) {
            (DeviceSpec::Zns(spec), Some(layer)) => layer.info(spec),
            (d @ DeviceSpec::Conventional(_), Some(layer)) => layer.info_over_block(&d.info()),
            (d, None) => d.info(),
        }
    }
}

/// Runs an experiment: build the device, prefill, run the workload, summarise.
pub fn run(
    experiment: &Experiment,
    inputs: Inputs,
    config_fingerprint: u64,
    progress: &mut dyn FnMut(Progress),
) -> Result<RunOutput, RunError> {
    let device = build_device(experiment);
    run_on(experiment, device, inputs, config_fingerprint, progress)
}

/// Runs an experiment's workload on a device [`build_device`] set up.
pub fn run_on(
    experiment: &Experiment,
    device: Box<dyn DeviceModel>,
    inputs: Inputs,
    config_fingerprint: u64,
    progress: &mut dyn FnMut(Progress),
) -> Result<RunOutput, RunError> {
    run_with(
        experiment,
        device,
        inputs,
        config_fingerprint,
        progress,
        &|_| {},
    )
}

#[cfg(test)]
mod host_tests;
#[cfg(test)]
mod physics_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod trace_tests;
