//! The simulation kernel: an event queue ordered by (time, sequence) so every run is
//! reproducible, the device behind the seam, fio-like jobs and trace replay on a fast path, and
//! host tasks on a deterministic executor with modelled CPU cores.
//!
//! - `kernel`: the clock, the queue, and the one path every command takes to the device;
//! - `runner`: fio jobs and trace replay as small state machines;
//! - `host`: host tasks (async) and what they can wait on: I/O, sleep, CPU;
//! - `sync`: semaphores, mutexes and condition variables between tasks;
//! - `cores`: the modelled host cores.

pub mod cores;
pub mod host;
pub(crate) mod kernel;
mod leaf;
mod limits;
mod queue;
pub(crate) mod runner;
pub mod sync;

use limits::Watch;
pub use limits::{MAX_EVENTS_AT_ONE_INSTANT, RunLimits, STOP_CHECK_EVENTS};

use std::io::BufRead;
use std::rc::Rc;

pub use kernel::TaskId;

use crate::device::{DeviceModel, ZoneState};
use crate::firmware::PolicySpec;
use crate::ftl::{Ftl, FtlSpec, PreconditionPlan};
use crate::metrics::Metrics;
use crate::metrics::series::Sampling;
use crate::nand::NandSpec;
use crate::report::{EarlyStop, HostReport, JobReport, RunIdentity, Summary, summarize};
use crate::time::{Duration, Instant};
use crate::trace::TraceSink;
use crate::trace::read::{TraceError, TraceReader};
use crate::workload::HostWorkload;
use crate::workload::JobSpec;
use crate::workload::block::BlockGen;
use crate::workload::replay::{ReplayGen, ReplaySpec};
use crate::zns::{Device, PrefillPlan, ZnsSpec};
use cores::Cores;
use host::{Host, Tasks, poll_task};
use kernel::{EventKind, Kernel, Tracer};
use runner::{RateLimit, Runner, Source, pump};

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
    match (&experiment.device, &experiment.layer) {
        (DeviceSpec::Zns(_), None) => Box::new(build_zns(experiment)),
        (DeviceSpec::Zns(spec), Some(layer)) => {
            let device = Device::build(
                spec,
                &experiment.firmware,
                experiment.retain_data,
                experiment.sampling(),
            );
            let plan: Vec<(u32, Vec<(u32, u64)>)> = experiment
                .prefill_namespaces
                .iter()
                .map(|&ns| (ns, experiment.prefill.zones.clone()))
                .collect();
            layer.build(device, &plan, experiment.sampling())
        }
        (DeviceSpec::Conventional(spec), _) => {
            let mut ftl = Ftl::new(spec, experiment.retain_data, experiment.sampling());
            if let Some(plan) = &experiment.precondition {
                ftl.precondition(plan);
            }
            Box::new(ftl)
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
            (d, _) => d.info(),
        }
    }
}

struct Simulation<'a> {
    experiment: &'a Experiment,
    limits: RunLimits,
    kernel: Rc<Kernel>,
    tasks: Rc<Tasks>,
    runners: Vec<Runner>,
    lba_bytes: u64,
}

impl Simulation<'_> {
    fn fraction_done(&self, now: Instant) -> f64 {
        let per_runner = self.runners.iter().map(|run| {
            if run.stopped.is_some() {
                return 1.0;
            }
            let by_io = (run.target_lbas != u64::MAX)
                .then(|| run.issued_lbas as f64 / run.target_lbas as f64);
            let by_time = (run.deadline != Instant::NEVER).then(|| {
                let d = run.deadline;
                now.since(run.started).ns() as f64 / d.since(run.started).ns().max(1) as f64
            });
            match (by_io, by_time) {
                (Some(a), Some(b)) => a.max(b),
                (a, b) => a.or(b).unwrap_or(0.0),
            }
        });
        let host = (self.tasks.live() > 0 || !self.experiment.host.is_empty())
            .then(|| self.kernel.progress.get());
        let parts: Vec<f64> = per_runner.chain(host).collect();
        (parts.iter().sum::<f64>() / parts.len().max(1) as f64).min(1.0)
    }

    /// Runs to the end, or until a limit stops it (then: why).
    fn run(&mut self, progress: &mut dyn FnMut(Progress)) -> Result<Option<EarlyStop>, RunError> {
        let k = self.kernel.clone();
        k.advance_device();
        for r in 0..self.runners.len() {
            pump(&k, &mut self.runners[r], r as u32, self.lba_bytes);
        }
        let mut events = 0u64;
        // Runners not done yet (a runner once done stays done), kept per event instead of
        // asking every runner at every event.
        let mut running = self.runners.iter().filter(|r| !r.done()).count();
        let mut watch = Watch::new(&self.limits, k.now.get());
        let mut stopped = None;
        loop {
            if running == 0 && self.tasks.live() == 0 {
                break;
            }
            let Some(event) = k.queue.with(|q| q.next()) else {
                break;
            };
            let now = event.time;
            if let Some(why) = watch.before(now)? {
                stopped = Some(why);
                break;
            }
            k.now.set(now);
            match event.kind {
                EventKind::RunnerComplete {
                    runner,
                    kind,
                    submitted,
                    bytes,
                } => {
                    let run = &mut self.runners[runner as usize];
                    let key = run.key(&k, kind);
                    k.metrics.with(|m| m.record(key, submitted, now, bytes));
                    run.completed(kind, bytes, now);
                    k.advance_device();
                    pump(&k, run, runner, self.lba_bytes);
                    // It had a command in flight, so it was running.
                    running -= run.done() as usize;
                }
                EventKind::RunnerWake(runner) => {
                    let run = &mut self.runners[runner as usize];
                    let was_running = !run.done();
                    run.wake_pending = false;
                    k.advance_device();
                    pump(&k, run, runner, self.lba_bytes);
                    running -= (was_running && run.done()) as usize;
                }
                EventKind::DeviceWake => {
                    k.device_woke(now);
                    k.advance_device();
                    // Host tasks all waiting on each other while the device's timers run on
                    // would otherwise keep the run going forever in simulated time.
                    if running == 0 && self.tasks.live() > 0 && k.host_cannot_wake() {
                        return Err(RunError::Deadlock(self.tasks.stuck()));
                    }
                }
                EventKind::TaskWake(task) => {
                    k.advance_device();
                    poll_task(&k, &self.tasks, task);
                }
            }
            events += 1;
            if events.is_multiple_of(1 << 16) {
                progress(Progress {
                    simulated: now,
                    fraction: self.fraction_done(now),
                });
            }
            if let Some(why) = watch.after(events) {
                stopped = Some(why);
                break;
            }
        }
        if let Some(why) = stopped {
            return Ok(Some(why));
        }
        debug_assert_eq!(
            running,
            self.runners.iter().filter(|r| !r.done()).count(),
            "the count of running runners"
        );
        if self.tasks.live() > 0 {
            return Err(RunError::Deadlock(self.tasks.stuck()));
        }
        for (i, r) in self.runners.iter().enumerate() {
            if let Source::Replay(g) = &r.source
                && let Some(e) = &g.error
            {
                let spec = &self.experiment.replays[i - self.fio_runner_count()];
                return Err(RunError::Trace {
                    replay: spec.name.clone(),
                    error: e.clone(),
                });
            }
        }
        Ok(None)
    }

    fn fio_runner_count(&self) -> usize {
        self.runners
            .iter()
            .filter(|r| matches!(r.source, Source::Fio(_) | Source::Block(_)))
            .count()
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

/// As [`run_on`], with `setup` spawning more host tasks before the run starts (host layers
/// and tests bring their own). Crate-private: it is the one function that hands out a [`Host`],
/// and code outside the crate must not hold one (the kernel's cells rely on it: `sim/leaf.rs`).
pub(crate) fn run_with(
    experiment: &Experiment,
    mut device: Box<dyn DeviceModel>,
    mut inputs: Inputs,
    config_fingerprint: u64,
    progress: &mut dyn FnMut(Progress),
    setup: &dyn Fn(&Host),
) -> Result<RunOutput, RunError> {
    let prefill_bytes = experiment.prefill.lbas()
        * device.info().lba_size_bytes
        * experiment.prefill_namespaces.len().max(1) as u64;
    let start = device.idle_at();
    device.reset_counters();
    let info = device.info().clone();
    let lba_bytes = info.lba_size_bytes;
    let tracer = inputs
        .trace_sink
        .take()
        .filter(|_| experiment.trace)
        .map(|sink| Tracer {
            sink,
            pending: Default::default(),
        });
    device.set_tracing(tracer.is_some());
    let metrics = Metrics::new(start, experiment.sampling());
    let kernel = Rc::new(Kernel::new(
        device,
        metrics,
        Cores::new(experiment.cores),
        start,
        tracer,
    ));
    let tasks = Rc::new(Tasks::default());

    let mut runners = Vec::new();
    let mut reports = Vec::new();
    for (j, job) in experiment.jobs.iter().enumerate() {
        reports.push(JobReport {
            name: job.name.clone(),
            clones: job.numjobs,
            ..Default::default()
        });
        for clone in 0..job.numjobs {
            let stream = runners.len() as u64;
            let source_name = if job.numjobs > 1 {
                format!("{}.{clone}", job.name)
            } else {
                job.name.clone()
            };
            let tenant = kernel.metrics.with(|m| m.tenant(&job.tenant));
            let generator = if info.zoned.is_some() {
                let g = kernel.device.with(|device| {
                    crate::workload::fio::JobGen::new(
                        job,
                        clone,
                        experiment.seed,
                        stream,
                        &**device,
                    )
                });
                Source::Fio(g)
            } else {
                Source::Block(BlockGen::new(job, clone, experiment.seed, stream))
            };
            runners.push(Runner {
                job: j,
                nsid: job.nsid,
                origin: kernel::Origin {
                    tenant,
                    source: kernel.source(&source_name),
                },
                source: generator,
                inflight: 0,
                iodepth: job.iodepth,
                issued_lbas: 0,
                issued_ios: 0,
                target_lbas: if job.time_based {
                    u64::MAX
                } else {
                    job.io_lbas * job.loops as u64
                },
                deadline: job
                    .runtime
                    .map_or(Instant::NEVER, |r| start + job.startdelay + r),
                started: start + job.startdelay,
                next_issue: start + job.startdelay,
                thinktime: job.thinktime,
                host_overhead: job.host_overhead,
                rate: RateLimit::of(job.rate_bytes_per_s, job.rate_iops),
                wake_pending: false,
                resetting: false,
                stopped: None,
                report: JobReport::default(),
                keys: [None; crate::metrics::OpKind::ALL.len()],
            });
        }
    }
    let mut traces = inputs.traces.into_iter();
    for spec in &experiment.replays {
        let text = traces
            .next()
            .ok_or_else(|| RunError::MissingTrace(spec.name.clone()))?;
        let reader =
            TraceReader::new(text, spec.format, lba_bytes).map_err(|error| RunError::Trace {
                replay: spec.name.clone(),
                error,
            })?;
        reports.push(JobReport {
            name: spec.name.clone(),
            clones: 1,
            ..Default::default()
        });
        let tenant = kernel.metrics.with(|m| m.tenant(&spec.name));
        runners.push(Runner {
            job: reports.len() - 1,
            nsid: 0,
            origin: kernel::Origin {
                tenant,
                source: kernel.source(&spec.name),
            },
            source: Source::Replay(ReplayGen::new(reader, spec.mode, info.zoned.clone())),
            inflight: 0,
            iodepth: spec.iodepth,
            issued_lbas: 0,
            issued_ios: 0,
            target_lbas: u64::MAX,
            deadline: Instant::NEVER,
            started: start,
            next_issue: start,
            thinktime: Duration::ZERO,
            host_overhead: Duration::ZERO,
            rate: None,
            wake_pending: false,
            resetting: false,
            stopped: None,
            report: JobReport::default(),
            keys: [None; crate::metrics::OpKind::ALL.len()],
        });
    }
    let mut layers = crate::workload::FileLayers::default();
    for w in &experiment.host {
        let host = Host::new(kernel.clone(), tasks.clone(), w.name(), w.name());
        w.spawn(&host, &mut layers);
    }
    // The stores hold their layers now; the run must end with no handle left here.
    drop(layers);
    setup(&Host::new(kernel.clone(), tasks.clone(), "host", "host"));

    let mut sim = Simulation {
        experiment,
        limits: inputs.limits.clone(),
        kernel: kernel.clone(),
        tasks: tasks.clone(),
        runners,
        lba_bytes,
    };
    let stopped_early = sim.run(progress)?;
    let last = kernel.metrics.with(|m| m.last_done());
    progress(Progress {
        simulated: last,
        fraction: 1.0,
    });

    for run in &sim.runners {
        let r = &mut reports[run.job];
        let own = &run.report;
        r.reads += own.reads;
        r.writes += own.writes;
        r.resets += own.resets;
        r.finishes += own.finishes;
        r.read_bytes += own.read_bytes;
        r.write_bytes += own.write_bytes;
        if let Some(why) = run.stopped
            && !r.stopped.contains(&why)
        {
            r.stopped.push(why);
        }
    }
    for r in &mut reports {
        r.stopped.sort_unstable();
    }
    drop(sim);
    let cores = kernel.cores.borrow().clone();
    let host_report = HostReport {
        cores: cores.count(),
        cpu_busy_ns: cores.busy().ns(),
        cpu_wait_ns: cores.waited().ns(),
        tasks: tasks.spawned(),
    };
    let errors = std::mem::take(&mut *kernel.errors.borrow_mut());
    // Host layers' reports hold handles to the kernel too: make them, then drop them.
    let layer_fns = std::mem::take(&mut *kernel.reports.borrow_mut());
    let layers: std::collections::BTreeMap<String, serde_json::Value> =
        layer_fns.into_iter().map(|(name, f)| (name, f())).collect();
    // Daemon tasks still hold handles to the kernel: drop them.
    tasks.clear();
    drop(tasks);
    if let Some(mut tracer) = kernel.tracer.borrow_mut().take() {
        tracer
            .sink
            .finish()
            .map_err(|e| RunError::TraceWrite(e.to_string()))?;
    }
    let kernel = Rc::try_unwrap(kernel)
        .ok()
        .expect("every task handle is gone once the run ends");
    let device = kernel.device.into_inner();
    let metrics = kernel.metrics.into_inner();
    let identity = RunIdentity {
        experiment: experiment.name.clone(),
        seed: experiment.seed,
        config_fingerprint,
        prefill_bytes,
    };
    let mut summary = summarize(&identity, &*device, &metrics, host_report, reports, errors);
    summary.layers = layers;
    summary.stopped_early = stopped_early;
    Ok(RunOutput {
        summary,
        metrics,
        device,
    })
}

#[cfg(test)]
mod host_tests;
#[cfg(test)]
mod physics_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod trace_tests;
