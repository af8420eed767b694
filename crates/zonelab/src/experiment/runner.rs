//! The fast path for fio-like jobs and trace replay: each clone is a small state machine that
//! keeps up to `iodepth` commands in flight, without a task or a future per command. A runner
//! issues at an event (a completion or a wake-up), so issuing is in simulated-time order.

use crate::device::{Command, Op, ZoneAction};
use crate::metrics::{MetricKey, OpKind};
use crate::report::JobReport;
use crate::sim::kernel::{EventKind, Kernel, Origin, Waiter};
use crate::time::{Duration, Instant, NS_PER_S};
use crate::workload::block::BlockGen;
use crate::workload::fio::JobGen;
use crate::workload::replay::ReplayGen;
use crate::workload::{Next, Request, StopReason};

// One per clone, so the size does not matter; a box would add a pointer chase per request.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Source {
    Fio(JobGen),
    /// A fio-like job on a conventional (block) device.
    Block(BlockGen),
    Replay(ReplayGen),
}

/// fio's `rate` and `rate_iops` for one job; made only when at least one is set, so a job
/// without a limit skips the arithmetic with one check.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RateLimit {
    bytes_per_s: Option<u64>,
    iops: Option<u64>,
}

impl RateLimit {
    pub fn of(bytes_per_s: Option<u64>, iops: Option<u64>) -> Option<Self> {
        (bytes_per_s.is_some() || iops.is_some()).then_some(RateLimit { bytes_per_s, iops })
    }
}

/// One clone of one job, with its queue-depth and stop bookkeeping.
pub(crate) struct Runner {
    /// Index of the job (or replay) it belongs to, in the run's job reports.
    pub job: usize,
    /// The namespace it works in.
    pub nsid: u32,
    pub origin: Origin,
    pub source: Source,
    pub inflight: u32,
    pub iodepth: u32,
    pub issued_lbas: u64,
    pub issued_ios: u64,
    /// LBAs to issue (`u64::MAX`: no size limit).
    pub target_lbas: u64,
    /// When it stops issuing (`Instant::NEVER`: no time limit).
    pub deadline: Instant,
    pub started: Instant,
    pub next_issue: Instant,
    pub thinktime: Duration,
    /// What the host's I/O stack adds to each command: its completion reaches the job this
    /// long after the device completes it.
    pub host_overhead: Duration,
    pub rate: Option<RateLimit>,
    pub wake_pending: bool,
    /// A reset is in flight: like fio, issue nothing until it completes.
    pub resetting: bool,
    pub stopped: Option<StopReason>,
    pub report: JobReport,
    /// Device-layer metric keys by operation kind, looked up once.
    pub keys: [Option<MetricKey>; OpKind::ALL.len()],
}

pub(crate) fn kind_of(op: Op) -> OpKind {
    crate::sim::host::op_kind(op)
}

impl Runner {
    /// A runner of report `job` in namespace `nsid` that may issue from `start`, `iodepth`
    /// commands at a time, with no size or time limit, think time or rate yet.
    pub fn new(
        job: usize,
        nsid: u32,
        origin: Origin,
        source: Source,
        iodepth: u32,
        start: Instant,
    ) -> Self {
        Runner {
            job,
            nsid,
            origin,
            source,
            inflight: 0,
            iodepth,
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
            keys: [None; OpKind::ALL.len()],
        }
    }

    #[inline]
    pub fn key(&mut self, k: &Kernel, kind: OpKind) -> MetricKey {
        *self.keys[kind as usize].get_or_insert_with(|| k.device_key(kind, self.origin.tenant))
    }

    pub fn done(&self) -> bool {
        self.stopped.is_some() && self.inflight == 0
    }

    /// The first time it may issue, given think time, rate limits and trace timestamps.
    fn earliest_issue(&mut self, lba_bytes: u64) -> Instant {
        let mut t = self.next_issue;
        if let Some(limit) = self.rate {
            if let Some(rate) = limit.bytes_per_s {
                let bytes = self.issued_lbas as u128 * lba_bytes as u128;
                t = t.max(
                    self.started
                        + Duration::from_ns((bytes * NS_PER_S as u128 / rate as u128) as u64),
                );
            }
            if let Some(iops) = limit.iops {
                let ns = self.issued_ios as u128 * NS_PER_S as u128 / iops as u128;
                t = t.max(self.started + Duration::from_ns(ns as u64));
            }
        }
        if let Source::Replay(g) = &mut self.source
            && let Some(due) = g.next_due()
        {
            t = t.max(self.started + due);
        }
        t
    }

    /// A command of this runner completed at `now`.
    pub fn completed(&mut self, kind: OpKind, bytes: u64, now: Instant) {
        self.inflight -= 1;
        self.report.count(kind, bytes);
        if kind == OpKind::Reset {
            self.resetting = false;
        }
        if !self.thinktime.is_zero() {
            self.next_issue = now + self.thinktime;
        }
    }
}

/// Issues commands for runner `r` until its queue is full or something makes it wait.
pub(crate) fn pump(k: &Kernel, run: &mut Runner, r: u32, lba_bytes: u64) {
    let now = k.now();
    while may_issue(k, run, r, now, lba_bytes) {
        let request = match next_request(k, run) {
            Next::Drain => return,
            Next::Done(why) => {
                run.stopped = Some(why);
                return;
            }
            Next::Issue(request) => request,
        };
        if !issue(k, run, r, request, now, lba_bytes) {
            return;
        }
    }
}

/// Whether runner `r` may issue a command at `now`: its queue has room and nothing stopped it
/// or makes it wait (a wake-up is booked for the time it may).
fn may_issue(k: &Kernel, run: &mut Runner, r: u32, now: Instant, lba_bytes: u64) -> bool {
    // (A full queue first: it ends most calls, after the command that filled it.)
    if run.inflight >= run.iodepth || run.stopped.is_some() || run.resetting {
        return false;
    }
    if now >= run.deadline {
        run.stopped = Some(StopReason::Runtime);
        return false;
    }
    if run.issued_lbas >= run.target_lbas {
        run.stopped = Some(StopReason::IoSize);
        return false;
    }
    let earliest = run.earliest_issue(lba_bytes);
    if earliest > now {
        if !run.wake_pending && earliest != Instant::NEVER {
            run.wake_pending = true;
            k.push(earliest, EventKind::RunnerWake(r));
        }
        return false;
    }
    true
}

/// The runner's next request from its source.
fn next_request(k: &Kernel, run: &mut Runner) -> Next {
    match &mut run.source {
        Source::Fio(g) => {
            let inflight = run.inflight;
            k.device.with(|d| g.next(&**d, inflight))
        }
        Source::Block(g) => {
            let next = g.next_request();
            if let Some(lba) = g.next_lba_hint() {
                k.device.with(|d| d.prefetch_lba(run.nsid, lba));
            }
            next
        }
        Source::Replay(g) => g.next_request(),
    }
}

/// Submits `request` for runner `r` at `now`; false when the device refused it (the runner
/// stops).
fn issue(
    k: &Kernel,
    run: &mut Runner,
    r: u32,
    request: Request,
    now: Instant,
    lba_bytes: u64,
) -> bool {
    let Request { op, slba, nlb } = request;
    let kind = kind_of(op);
    let bytes = if matches!(op, Op::Read | Op::Write | Op::Append) {
        nlb * lba_bytes
    } else {
        0
    };
    let host = run.host_overhead;
    let waiter = || Waiter::Runner {
        runner: r,
        kind,
        submitted: now,
        bytes,
        host,
    };
    match k.submit(Command::new(op, slba, nlb).on(run.nsid), run.origin, waiter) {
        Ok(s) => {
            if let Source::Fio(g) = &mut run.source {
                k.device.with(|d| g.issued(&**d, request));
            }
            run.inflight += 1;
            if bytes > 0 {
                run.issued_lbas += nlb;
                run.issued_ios += 1;
            }
            if op == Op::ZoneMgmt(ZoneAction::Reset) {
                run.resetting = true;
            }
            if !run.thinktime.is_zero() {
                // fio's thinktime_blocks=1: one I/O, its completion, the think, the next.
                run.next_issue = Instant::NEVER;
            }
            if let Some(done) = s.done {
                k.push(
                    done + host,
                    EventKind::RunnerComplete {
                        runner: r,
                        kind,
                        submitted: now,
                        bytes,
                    },
                );
            }
            true
        }
        Err(status) => {
            if let Source::Replay(g) = &run.source
                && let Some(e) = k.recorder.borrow_mut().errors_mut().latest_mut()
            {
                e.trace_line = Some(g.line);
            }
            run.stopped = Some(StopReason::Device(status));
            false
        }
    }
}
