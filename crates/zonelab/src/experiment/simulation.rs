//! The loop: the kernel's events in order, each runner pumped as its commands complete, host tasks
//! polled as they wake; then the reports gathered into the summary.

use std::rc::Rc;

use super::limits::Watch;
use super::runner::{RateLimit, Runner, Source, pump};
use super::{Experiment, Inputs, Progress, RunError, RunLimits, RunOutput};
use crate::device::{DeviceModel, LayerReport};
use crate::metrics::Metrics;
use crate::record::Recorder;
use crate::report::{EarlyStop, HostReport, JobReport, RunIdentity, summarize};
use crate::sim::cores::Cores;
use crate::sim::host::{Host, Tasks, poll_task};
use crate::sim::kernel::{self, EventKind, Kernel};
use crate::time::Instant;
use crate::trace::TraceSink;
use crate::trace::read::TraceReader;
use crate::workload::block::BlockGen;
use crate::workload::replay::ReplayGen;

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
            self.dispatch(&k, event.kind, now, &mut running)?;
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
        self.finish(running)
    }

    /// Handles one event at `now`: a runner's completion or wake-up, the device's timer, or a
    /// host task's wake-up. `running` counts the runners not done yet.
    #[inline]
    fn dispatch(
        &mut self,
        k: &Kernel,
        kind: EventKind,
        now: Instant,
        running: &mut usize,
    ) -> Result<(), RunError> {
        match kind {
            EventKind::RunnerComplete {
                runner,
                kind,
                submitted,
                bytes,
            } => {
                let run = &mut self.runners[runner as usize];
                let key = run.key(k, kind);
                k.metrics.with(|m| m.record(key, submitted, now, bytes));
                run.completed(kind, bytes, now);
                k.advance_device();
                pump(k, run, runner, self.lba_bytes);
                // It had a command in flight, so it was running.
                *running -= run.done() as usize;
            }
            EventKind::RunnerWake(runner) => {
                let run = &mut self.runners[runner as usize];
                let was_running = !run.done();
                run.wake_pending = false;
                k.advance_device();
                pump(k, run, runner, self.lba_bytes);
                *running -= (was_running && run.done()) as usize;
            }
            EventKind::DeviceWake => {
                k.device_woke(now);
                k.advance_device();
                // Host tasks all waiting on each other while the device's timers run on
                // would otherwise keep the run going forever in simulated time.
                if *running == 0 && self.tasks.live() > 0 && k.host_cannot_wake() {
                    return Err(RunError::Deadlock(self.tasks.stuck()));
                }
            }
            EventKind::TaskWake(task) => {
                k.advance_device();
                poll_task(k, &self.tasks, task);
            }
        }
        Ok(())
    }

    /// The end of a run no limit stopped: an error if host tasks are left waiting or a replay
    /// met a malformed trace.
    fn finish(&self, running: usize) -> Result<Option<EarlyStop>, RunError> {
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

/// As [`run_on`], with `setup` spawning more host tasks before the run starts (host layers
/// and tests bring their own). Crate-private: it is the one function that hands out a [`Host`],
/// and code outside the crate must not hold one (the kernel's cells rely on it: `sim/leaf.rs`).
pub(crate) fn run_with(
    experiment: &Experiment,
    device: Box<dyn DeviceModel>,
    mut inputs: Inputs,
    config_fingerprint: u64,
    progress: &mut dyn FnMut(Progress),
    setup: &dyn Fn(&Host),
) -> Result<RunOutput, RunError> {
    let prefill_bytes = experiment.prefill.lbas()
        * device.info().lba_size_bytes
        * experiment.prefill_namespaces.len().max(1) as u64;
    let info = device.info().clone();
    let lba_bytes = info.lba_size_bytes;
    let (kernel, start) = kernel_for(experiment, device, inputs.trace_sink.take());
    let tasks = Rc::new(Tasks::default());

    let (mut runners, mut reports) = job_runners(experiment, &kernel, info.zoned.is_some(), start);
    replay_runners(
        experiment,
        inputs.traces,
        &kernel,
        &info,
        start,
        &mut runners,
        &mut reports,
    )?;
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
    merge_reports(&sim.runners, &mut reports);
    drop(sim);
    let identity = RunIdentity {
        experiment: experiment.name.clone(),
        seed: experiment.seed,
        config_fingerprint,
        prefill_bytes,
    };
    finish(kernel, tasks, reports, &identity, stopped_early)
}

/// The kernel over `device` from the time its set-up ends, its counters reset there, tracing
/// into `sink` if the experiment traces.
fn kernel_for(
    experiment: &Experiment,
    mut device: Box<dyn DeviceModel>,
    sink: Option<Box<dyn TraceSink>>,
) -> (Rc<Kernel>, Instant) {
    let start = device.idle_at();
    device.reset_counters();
    let recorder = Recorder::new(sink.filter(|_| experiment.trace));
    device.set_tracing(recorder.is_tracing());
    let metrics = Metrics::new(start, experiment.sampling());
    let cores = Cores::new(experiment.cores);
    let kernel = Rc::new(Kernel::new(device, metrics, cores, start, recorder));
    (kernel, start)
}

/// A runner's tenant and trace source.
fn origin_of(kernel: &Kernel, tenant: &str, source: &str) -> kernel::Origin {
    kernel::Origin {
        tenant: kernel.metrics.with(|m| m.tenant(tenant)),
        source: kernel.source(source),
    }
}

/// A runner per `[[replay]]`, reading its trace, and a report per replay.
fn replay_runners(
    experiment: &Experiment,
    traces: Vec<Box<dyn std::io::BufRead>>,
    kernel: &Kernel,
    info: &crate::device::DeviceInfo,
    start: Instant,
    runners: &mut Vec<Runner>,
    reports: &mut Vec<JobReport>,
) -> Result<(), RunError> {
    let mut traces = traces.into_iter();
    for spec in &experiment.replays {
        let text = traces
            .next()
            .ok_or_else(|| RunError::MissingTrace(spec.name.clone()))?;
        let reader = TraceReader::new(text, spec.format, info.lba_size_bytes).map_err(|error| {
            RunError::Trace {
                replay: spec.name.clone(),
                error,
            }
        })?;
        reports.push(JobReport {
            name: spec.name.clone(),
            clones: 1,
            ..Default::default()
        });
        let source = Source::Replay(ReplayGen::new(reader, spec.mode, info.zoned.clone()));
        let origin = origin_of(kernel, &spec.name, &spec.name);
        runners.push(Runner::new(
            reports.len() - 1,
            0,
            origin,
            source,
            spec.iodepth,
            start,
        ));
    }
    Ok(())
}

/// A runner per clone of each `[[job]]`, and a report per job.
fn job_runners(
    experiment: &Experiment,
    kernel: &Kernel,
    zoned: bool,
    start: Instant,
) -> (Vec<Runner>, Vec<JobReport>) {
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
            let origin = origin_of(kernel, &job.tenant, &source_name);
            let generator = if zoned {
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
            let begin = start + job.startdelay;
            let mut run = Runner::new(j, job.nsid, origin, generator, job.iodepth, begin);
            if !job.time_based {
                run.target_lbas = job.io_lbas * job.loops as u64;
            }
            run.deadline = job.runtime.map_or(Instant::NEVER, |r| begin + r);
            run.thinktime = job.thinktime;
            run.host_overhead = job.host_overhead;
            run.rate = RateLimit::of(job.rate_bytes_per_s, job.rate_iops);
            runners.push(run);
        }
    }
    (runners, reports)
}

/// Adds each runner's counts into its job's report.
fn merge_reports(runners: &[Runner], reports: &mut [JobReport]) {
    for run in runners {
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
    for r in reports {
        r.stopped.sort_unstable();
    }
}

/// The run is over: the host's and the layers' reports, the trace flushed, and the summary.
fn finish(
    kernel: Rc<Kernel>,
    tasks: Rc<Tasks>,
    reports: Vec<JobReport>,
    identity: &RunIdentity,
    stopped_early: Option<EarlyStop>,
) -> Result<RunOutput, RunError> {
    let cores = kernel.cores.borrow().clone();
    let host_report = HostReport {
        cores: cores.count(),
        cpu_busy_ns: cores.busy().ns(),
        cpu_wait_ns: cores.waited().ns(),
        tasks: tasks.spawned(),
    };
    let errors = std::mem::take(kernel.recorder.borrow_mut().errors_mut());
    // Host layers' reports hold handles to the kernel too: make them, then drop them.
    let layer_fns = std::mem::take(&mut *kernel.reports.borrow_mut());
    let layers: std::collections::BTreeMap<String, LayerReport> =
        layer_fns.into_iter().map(|(name, f)| (name, f())).collect();
    // Daemon tasks still hold handles to the kernel: drop them.
    tasks.clear();
    drop(tasks);
    kernel
        .recorder
        .borrow_mut()
        .finish_trace()
        .map_err(|e| RunError::TraceWrite(e.to_string()))?;
    let kernel = Rc::try_unwrap(kernel)
        .ok()
        .expect("every task handle is gone once the run ends");
    let device = kernel.device.into_inner();
    let metrics = kernel.metrics.into_inner();
    let mut summary = summarize(identity, &*device, &metrics, host_report, reports, errors);
    summary.layers = layers;
    summary.stopped_early = stopped_early;
    Ok(RunOutput {
        summary,
        metrics,
        device,
    })
}
