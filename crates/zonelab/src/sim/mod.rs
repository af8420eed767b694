//! The simulation loop: closed-loop jobs that keep `iodepth` commands in flight, an event queue
//! ordered by (time, sequence) so every run is reproducible, the prefill step, and the summary.
//!
//! The device computes completion times at submission from its timelines; the queue only holds
//! what must be decided at a point in time: completions (which free a queue slot) and wake-ups
//! (think time and rate limits).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::config::Experiment;
use crate::firmware;
use crate::metrics::{
    DeviceSummary, ErrorReport, JobReport, LatencySummary, Metrics, OpKind, Summary,
};
use crate::units::NS_PER_S;
use crate::workload::{JobGen, Next, Request};
use crate::zns::{Device, Status, ZoneAction, ZoneState};

/// Reported to the caller every so often during a run.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub simulated_ns: u64,
    /// Share of the work done, 0..1.
    pub fraction: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum EventKind {
    Complete {
        kind: OpKind,
        submitted_ns: u64,
        bytes: u64,
    },
    /// A job may issue again (think time, rate limit).
    Wake,
    /// A background erase ended: the firmware may go on if the device is still idle.
    DeviceWake,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Event {
    time_ns: u64,
    sequence: u64,
    runner: u32,
    kind: EventKind,
}

/// One clone of one job, with its queue-depth and stop bookkeeping.
struct Runner {
    job: usize,
    generator: JobGen,
    inflight: u32,
    iodepth: u32,
    issued_lbas: u64,
    issued_ios: u64,
    target_lbas: Option<u64>,
    deadline_ns: Option<u64>,
    started_ns: u64,
    next_issue_ns: u64,
    wake_pending: bool,
    /// A reset is in flight: like fio, issue nothing until it completes.
    resetting: bool,
    stopped: Option<String>,
    counts: [u64; 6],
    bytes: [u64; 6],
}

/// The outcome of a run: the summary and the state it came from.
pub struct RunOutput {
    pub summary: Summary,
    pub metrics: Metrics,
    pub device: Device,
}

/// Fills `fraction` of the namespace capacity sequentially from zone 0 (skipping zones that
/// cannot be written). Returns the bytes written.
pub fn prefill(device: &mut Device, fraction: f64) -> u64 {
    let cap = device.zone_capacity_lbas();
    let lba = device.geometry().lba_size_bytes;
    let chunk = ((1 << 20) / lba).min(cap);
    let mut remaining = (fraction * cap as f64 * device.zone_count() as f64) as u64;
    let mut written = 0;
    for zone in 0..device.zone_count() {
        if remaining == 0 {
            break;
        }
        let d = device.zone(zone);
        if !matches!(d.state, ZoneState::Empty) {
            continue;
        }
        let mut left = remaining.min(cap);
        remaining -= left;
        while left > 0 {
            let n = left.min(chunk);
            let wp = device.zone(zone).wp;
            device
                .write(0, wp, n, None)
                .expect("prefill writes sequentially into empty zones");
            left -= n;
            written += n * lba;
        }
    }
    written
}

struct Simulation<'a> {
    experiment: &'a Experiment,
    device: Device,
    runners: Vec<Runner>,
    queue: BinaryHeap<Reverse<Event>>,
    /// The pending DeviceWake, so there is at most one.
    device_wake_ns: Option<u64>,
    sequence: u64,
    metrics: Metrics,
    errors: Vec<ErrorReport>,
}

impl Simulation<'_> {
    fn push(&mut self, time_ns: u64, runner: usize, kind: EventKind) {
        self.sequence += 1;
        self.queue.push(Reverse(Event {
            time_ns,
            sequence: self.sequence,
            runner: runner as u32,
            kind,
        }));
    }

    /// Issues commands for runner `r` until its queue is full or something makes it wait.
    fn pump(&mut self, r: usize, now_ns: u64) {
        loop {
            let run = &mut self.runners[r];
            if run.stopped.is_some() || run.resetting || run.inflight >= run.iodepth {
                return;
            }
            if run.deadline_ns.is_some_and(|d| now_ns >= d) {
                run.stopped = Some("runtime".into());
                return;
            }
            if run.target_lbas.is_some_and(|t| run.issued_lbas >= t) {
                run.stopped = Some("io_size".into());
                return;
            }
            let earliest = self.earliest_issue_ns(r);
            let run = &mut self.runners[r];
            if earliest > now_ns {
                if !run.wake_pending && earliest != u64::MAX {
                    run.wake_pending = true;
                    self.push(earliest, r, EventKind::Wake);
                }
                return;
            }
            let request = match run.generator.next(&self.device, run.inflight) {
                Next::Drain => return,
                Next::Done(why) => {
                    run.stopped = Some(why.into());
                    return;
                }
                Next::Issue(request) => request,
            };
            match self.submit(now_ns, request) {
                Ok((kind, done_ns, bytes)) => {
                    let spec_think = self.experiment.jobs[self.runners[r].job].thinktime_ns;
                    let run = &mut self.runners[r];
                    run.generator.issued(&self.device, request);
                    run.inflight += 1;
                    run.issued_lbas += bytes / self.device.geometry().lba_size_bytes;
                    if kind == OpKind::Read || kind == OpKind::Write || kind == OpKind::Append {
                        run.issued_ios += 1;
                    }
                    run.counts[kind as usize] += 1;
                    run.bytes[kind as usize] += bytes;
                    if kind == OpKind::Reset {
                        run.resetting = true;
                    }
                    if spec_think > 0 {
                        // fio's thinktime_blocks=1: one I/O, its completion, the think, the next.
                        run.next_issue_ns = u64::MAX;
                    }
                    self.push(
                        done_ns,
                        r,
                        EventKind::Complete {
                            kind,
                            submitted_ns: now_ns,
                            bytes,
                        },
                    );
                }
                Err(status) => {
                    let run = &mut self.runners[r];
                    let job = &self.experiment.jobs[run.job];
                    let (command, lba) = describe(request, self.device.zone_size_lbas());
                    self.errors
                        .push(ErrorReport::new(&job.name, command, lba, status));
                    run.stopped = Some(status.to_string());
                    return;
                }
            }
        }
    }

    /// The first time runner `r` may issue, given think time and rate limits.
    fn earliest_issue_ns(&self, r: usize) -> u64 {
        let run = &self.runners[r];
        let job = &self.experiment.jobs[run.job];
        let mut t = run.next_issue_ns;
        let lba = self.device.geometry().lba_size_bytes;
        if let Some(rate) = job.rate_bytes_per_s {
            let bytes = run.issued_lbas as u128 * lba as u128;
            t = t.max(run.started_ns + (bytes * NS_PER_S as u128 / rate as u128) as u64);
        }
        if let Some(iops) = job.rate_iops {
            t = t.max(
                run.started_ns + (run.issued_ios as u128 * NS_PER_S as u128 / iops as u128) as u64,
            );
        }
        t
    }

    fn submit(&mut self, now_ns: u64, request: Request) -> Result<(OpKind, u64, u64), Status> {
        let lba = self.device.geometry().lba_size_bytes;
        let zone_lbas = self.device.zone_size_lbas();
        let d = &mut self.device;
        Ok(match request {
            Request::Read { slba, nlb } => (
                OpKind::Read,
                d.read(now_ns, slba, nlb, None)?.done_ns,
                nlb * lba,
            ),
            Request::Write { slba, nlb } => (
                OpKind::Write,
                d.write(now_ns, slba, nlb, None)?.done_ns,
                nlb * lba,
            ),
            Request::Append { zslba, nlb } => (
                OpKind::Append,
                d.append(now_ns, zslba, nlb, None)?.1.done_ns,
                nlb * lba,
            ),
            Request::Reset { zone } => {
                let c =
                    d.zone_mgmt_send(now_ns, zone as u64 * zone_lbas, ZoneAction::Reset, false)?;
                (OpKind::Reset, c.done_ns, 0)
            }
            Request::Finish { zone } => {
                let c =
                    d.zone_mgmt_send(now_ns, zone as u64 * zone_lbas, ZoneAction::Finish, false)?;
                (OpKind::Finish, c.done_ns, 0)
            }
        })
    }

    fn fraction_done(&self, now_ns: u64) -> f64 {
        let per_runner = self.runners.iter().map(|run| {
            if run.stopped.is_some() {
                return 1.0;
            }
            let by_io = run.target_lbas.map(|t| run.issued_lbas as f64 / t as f64);
            let by_time = run
                .deadline_ns
                .map(|d| (now_ns - run.started_ns) as f64 / (d - run.started_ns).max(1) as f64);
            match (by_io, by_time) {
                (Some(a), Some(b)) => a.max(b),
                (a, b) => a.or(b).unwrap_or(0.0),
            }
        });
        let n = self.runners.len().max(1) as f64;
        (per_runner.sum::<f64>() / n).min(1.0)
    }

    /// Offers the firmware idle time (before jobs issue at `now_ns`, so a request arriving at
    /// the moment an erase starts waits for it, as in the paper's Figure 4).
    fn offer_idle(&mut self, now_ns: u64) {
        if let Some(t) = self.device.background(now_ns)
            && self.device_wake_ns.is_none_or(|w| w > t || w < now_ns)
        {
            self.device_wake_ns = Some(t);
            self.push(t, 0, EventKind::DeviceWake);
        }
    }

    /// No job can issue anything any more.
    fn all_jobs_done(&self) -> bool {
        self.runners
            .iter()
            .all(|r| r.stopped.is_some() && r.inflight == 0)
    }

    fn run(&mut self, start_ns: u64, progress: &mut dyn FnMut(Progress)) {
        self.offer_idle(start_ns);
        for r in 0..self.runners.len() {
            self.pump(r, start_ns);
        }
        let mut events = 0u64;
        while let Some(Reverse(event)) = self.queue.pop() {
            let now = event.time_ns;
            let r = event.runner as usize;
            match event.kind {
                EventKind::Complete {
                    kind,
                    submitted_ns,
                    bytes,
                } => {
                    self.metrics.record(kind, submitted_ns, now, bytes);
                    let think = self.experiment.jobs[self.runners[r].job].thinktime_ns;
                    let run = &mut self.runners[r];
                    run.inflight -= 1;
                    if kind == OpKind::Reset {
                        run.resetting = false;
                    }
                    if think > 0 {
                        run.next_issue_ns = now + think;
                    }
                }
                EventKind::Wake => self.runners[r].wake_pending = false,
                EventKind::DeviceWake => {
                    if self.device_wake_ns == Some(now) {
                        self.device_wake_ns = None;
                    }
                    // Background work stops with the workload: erases after it would change the
                    // counts the experiment reports.
                    if !self.all_jobs_done() {
                        self.offer_idle(now);
                    }
                    continue;
                }
            }
            self.offer_idle(now);
            self.pump(r, now);
            events += 1;
            if events.is_multiple_of(1 << 16) {
                progress(Progress {
                    simulated_ns: now,
                    fraction: self.fraction_done(now),
                });
            }
        }
    }
}

fn describe(request: Request, zone_lbas: u64) -> (&'static str, u64) {
    match request {
        Request::Read { slba, .. } => ("read", slba),
        Request::Write { slba, .. } => ("write", slba),
        Request::Append { zslba, .. } => ("append", zslba),
        Request::Reset { zone } => ("reset", zone as u64 * zone_lbas),
        Request::Finish { zone } => ("finish", zone as u64 * zone_lbas),
    }
}

/// What names a run in its summary.
pub struct RunIdentity {
    pub experiment: String,
    pub seed: u64,
    pub config_fingerprint: u64,
    pub prefill_bytes: u64,
    /// When the measured phase started (the end of the prefill).
    pub start_ns: u64,
}

/// The summary of a run of `device` measured by `metrics` (shared by `run` and the fio engine).
pub fn summarize(
    id: &RunIdentity,
    device: &Device,
    metrics: &Metrics,
    jobs: Vec<JobReport>,
    errors: Vec<ErrorReport>,
) -> Summary {
    Summary {
        zonelab_version: env!("CARGO_PKG_VERSION").to_string(),
        experiment: id.experiment.clone(),
        seed: id.seed,
        config_fingerprint: format!("{:016x}", id.config_fingerprint),
        device: device.spec().name.clone(),
        firmware_policy: device.policy_name().to_string(),
        prefill_bytes: id.prefill_bytes,
        prefill_time_ns: id.start_ns,
        simulated_time_ns: metrics.elapsed_ns(),
        ops: metrics.op_summaries(),
        device_counters: DeviceSummary::new(
            device.counters(),
            device.nand_counters(),
            device.geometry().page_size_bytes,
        ),
        energy: device.energy().into(),
        wear: device.wear().into(),
        jobs,
        errors,
        erase_wait_ns: LatencySummary::of(device.erase_wait_histogram()),
        firmware: device.firmware_report(id.start_ns + metrics.elapsed_ns()),
    }
}

/// Builds the device an experiment describes, faults injected, not yet prefilled.
pub fn build_device(experiment: &Experiment) -> Device {
    let policy = firmware::build(&experiment.firmware, &experiment.device.geometry);
    let mut device = Device::new(&experiment.device, policy, experiment.retain_data);
    for &z in &experiment.read_only_zones {
        device.inject_fault(z, ZoneState::ReadOnly);
    }
    for &z in &experiment.offline_zones {
        device.inject_fault(z, ZoneState::Offline);
    }
    device
}

/// A device set up for an experiment (faults injected, prefilled), ready for its jobs.
pub struct Prepared {
    pub device: Device,
    pub prefill_bytes: u64,
}

pub fn prepare(experiment: &Experiment) -> Prepared {
    let mut device = build_device(experiment);
    let prefill_bytes = prefill(&mut device, experiment.prefill_fraction);
    Prepared {
        device,
        prefill_bytes,
    }
}

/// Runs an experiment: build the device, prefill, run the jobs, summarise.
pub fn run(
    experiment: &Experiment,
    config_fingerprint: u64,
    progress: &mut dyn FnMut(Progress),
) -> RunOutput {
    run_prepared(
        experiment,
        prepare(experiment),
        config_fingerprint,
        progress,
    )
}

/// Runs an experiment's jobs on a device [`prepare`] set up.
pub fn run_prepared(
    experiment: &Experiment,
    prepared: Prepared,
    config_fingerprint: u64,
    progress: &mut dyn FnMut(Progress),
) -> RunOutput {
    let Prepared {
        mut device,
        prefill_bytes,
    } = prepared;
    let start_ns = device.idle_at_ns();
    device.reset_counters();

    let mut runners = Vec::new();
    for (j, job) in experiment.jobs.iter().enumerate() {
        for clone in 0..job.numjobs {
            let stream = runners.len() as u64;
            runners.push(Runner {
                job: j,
                generator: JobGen::new(job, clone, experiment.seed, stream, &device),
                inflight: 0,
                iodepth: job.iodepth,
                issued_lbas: 0,
                issued_ios: 0,
                target_lbas: (!job.time_based).then(|| job.io_lbas * job.loops as u64),
                deadline_ns: job.runtime_ns.map(|r| start_ns + r),
                started_ns: start_ns,
                next_issue_ns: start_ns,
                wake_pending: false,
                resetting: false,
                stopped: None,
                counts: [0; 6],
                bytes: [0; 6],
            });
        }
    }
    let mut sim = Simulation {
        experiment,
        device,
        runners,
        queue: BinaryHeap::new(),
        device_wake_ns: None,
        sequence: 0,
        metrics: Metrics::new(start_ns, experiment.interval_ns),
        errors: Vec::new(),
    };
    sim.run(start_ns, progress);
    progress(Progress {
        simulated_ns: start_ns + sim.metrics.elapsed_ns(),
        fraction: 1.0,
    });

    let jobs = experiment
        .jobs
        .iter()
        .enumerate()
        .map(|(j, job)| {
            let mine: Vec<&Runner> = sim.runners.iter().filter(|r| r.job == j).collect();
            let sum = |kinds: &[OpKind], bytes: bool| -> u64 {
                mine.iter()
                    .map(|r| {
                        kinds
                            .iter()
                            .map(|&k| {
                                if bytes {
                                    r.bytes[k as usize]
                                } else {
                                    r.counts[k as usize]
                                }
                            })
                            .sum::<u64>()
                    })
                    .sum()
            };
            let mut stopped: Vec<&str> = mine.iter().filter_map(|r| r.stopped.as_deref()).collect();
            stopped.sort_unstable();
            stopped.dedup();
            JobReport {
                name: job.name.clone(),
                clones: job.numjobs,
                reads: sum(&[OpKind::Read], false),
                writes: sum(&[OpKind::Write, OpKind::Append], false),
                resets: sum(&[OpKind::Reset], false),
                finishes: sum(&[OpKind::Finish], false),
                read_bytes: sum(&[OpKind::Read], true),
                write_bytes: sum(&[OpKind::Write, OpKind::Append], true),
                stopped: stopped.join(", "),
            }
        })
        .collect();
    let device = sim.device;
    let identity = RunIdentity {
        experiment: experiment.name.clone(),
        seed: experiment.seed,
        config_fingerprint,
        prefill_bytes,
        start_ns,
    };
    let summary = summarize(&identity, &device, &sim.metrics, jobs, sim.errors);
    RunOutput {
        summary,
        metrics: sim.metrics,
        device,
    }
}

#[cfg(test)]
mod tests;
