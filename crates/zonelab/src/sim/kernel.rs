//! The simulation kernel's shared state: the clock, the event queue ordered by (time, sequence),
//! the device behind the seam, the metrics and the command record. The fio fast path and host
//! tasks both go through [`Kernel::submit`], and it through [`Recorder::submit`] as every front
//! end does, so every command is measured, traced and logged the same way.

use rustc_hash::FxHashMap;
use std::cell::{Cell, RefCell};

use crate::device::{Command, Completed, DeviceModel, LayerReport, Status};
use crate::metrics::{Layer, MetricKey, Metrics, OpKind, TenantId};
use crate::record::{Recorder, send};
use crate::time::{Duration, Instant};

use super::cores::Cores;
use super::leaf::LeafCell;
use super::queue::EventQueue;

/// A host task's index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TaskId(pub u32);

/// What happens at an event.
#[derive(Clone, Copy, Debug)]
pub(crate) enum EventKind {
    /// A fio runner's command completed.
    RunnerComplete {
        runner: u32,
        kind: OpKind,
        submitted: Instant,
        bytes: u64,
    },
    /// A fio runner may issue again (think time, rate limit, trace timestamp).
    RunnerWake(u32),
    /// The device asked to be advanced now.
    DeviceWake,
    /// A host task is to be polled.
    TaskWake(TaskId),
}

/// Who waits for a completion the device reports later.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Waiter {
    Runner {
        runner: u32,
        kind: OpKind,
        submitted: Instant,
        bytes: u64,
        /// The host stack's time after the device completes (`host_overhead`).
        host: Duration,
    },
    Task(TaskId),
}

/// A command sent through the kernel: who sent it and how it is measured.
#[derive(Clone, Copy, Debug)]
pub struct Origin {
    pub tenant: TenantId,
    /// Trace source index ([`Recorder::source`]).
    pub source: u32,
}

/// The accepted side of a submission through the kernel.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Submitted {
    /// Known completion, or None when the device reports it later (under `tag`).
    pub done: Option<Instant>,
    pub lba: u64,
    pub tag: u64,
}

pub struct Kernel {
    pub(crate) now: Cell<Instant>,
    // The three every command touches, each borrowed for one call without a borrow flag.
    pub(crate) queue: LeafCell<EventQueue>,
    pub(crate) device: LeafCell<Box<dyn DeviceModel>>,
    pub(crate) metrics: LeafCell<Metrics>,
    pub(crate) cores: RefCell<Cores>,
    /// The trace and the log of rejected commands (with the trace sink, not `Send`, so it
    /// cannot live in a [`LeafCell`]).
    pub(crate) recorder: RefCell<Recorder>,
    /// The recorder traces: fixed for the run, so completions ask this and not the cell.
    tracing: bool,
    next_tag: Cell<u64>,
    pub(crate) waiters: RefCell<FxHashMap<u64, Waiter>>,
    /// Completions of tagged commands that arrived (for tasks to pick up).
    pub(crate) arrived: RefCell<FxHashMap<u64, Instant>>,
    /// The pending DeviceWake, so there is at most one.
    device_wake: Cell<Option<Instant>>,
    /// The device can do background work (else `advance` is never called).
    background: bool,
    /// The task being polled.
    pub(crate) current: Cell<Option<TaskId>>,
    /// Share of the host workload done, reported by host workloads (0..1).
    pub(crate) progress: Cell<f64>,
    /// Device-layer metric keys, cached per (tenant, op): `tenant * OpKind::ALL.len() + op`.
    device_keys: RefCell<Vec<Option<MetricKey>>>,
    scratch: RefCell<Vec<Completed>>,
    /// Host layers' reports (file layer, key-value store), made when the run ends.
    pub(crate) reports: RefCell<Vec<(String, LayerReportFn)>>,
}

/// Makes a host layer's report at the end of a run.
pub(crate) type LayerReportFn = Box<dyn Fn() -> LayerReport>;

impl Kernel {
    pub(crate) fn new(
        device: Box<dyn DeviceModel>,
        metrics: Metrics,
        cores: Cores,
        start: Instant,
        recorder: Recorder,
    ) -> Self {
        let background = device.has_background_work();
        Kernel {
            background,
            tracing: recorder.is_tracing(),
            now: Cell::new(start),
            queue: LeafCell::new(EventQueue::default()),
            device: LeafCell::new(device),
            metrics: LeafCell::new(metrics),
            cores: RefCell::new(cores),
            recorder: RefCell::new(recorder),
            next_tag: Cell::new(1),
            waiters: RefCell::default(),
            arrived: RefCell::default(),
            device_wake: Cell::new(None),
            current: Cell::new(None),
            progress: Cell::new(0.0),
            device_keys: RefCell::new(Vec::new()),
            scratch: RefCell::new(Vec::new()),
            reports: RefCell::new(Vec::new()),
        }
    }

    pub fn now(&self) -> Instant {
        self.now.get()
    }

    pub(crate) fn push(&self, time: Instant, kind: EventKind) {
        assert!(
            time >= self.now.get(),
            "an event at {time}, before the clock's {}: simulated time runs forwards only",
            self.now.get()
        );
        self.queue.with(|q| q.push(time, kind));
    }

    /// A trace source name's index.
    pub(crate) fn source(&self, name: &str) -> u32 {
        self.recorder.borrow_mut().source(name)
    }

    #[inline]
    pub(crate) fn device_key(&self, op: OpKind, tenant: TenantId) -> MetricKey {
        let i = tenant.0 as usize * OpKind::ALL.len() + op as usize;
        let mut keys = self.device_keys.borrow_mut();
        if i >= keys.len() {
            keys.resize(i + 1, None);
        }
        *keys[i].get_or_insert_with(|| self.metrics.with(|m| m.key(Layer::Device, op, tenant)))
    }

    /// Submits `cmd` at the current time for `origin`. On success the caller schedules its
    /// completion (known now, or later under the returned tag); a rejection is recorded in the
    /// run's errors and traced.
    pub(crate) fn submit(
        &self,
        cmd: Command<'_>,
        origin: Origin,
        waiter: impl FnOnce() -> Waiter,
    ) -> Result<Submitted, Status> {
        let now = self.now.get();
        let tag = self.next_tag.get();
        self.next_tag.set(tag + 1);
        let cmd = cmd.tagged(tag);
        let device = &self.device;
        let a = self
            .recorder
            .borrow_mut()
            .submit(now, cmd, origin.source, |cmd, seen| {
                device.with(|d| send(&mut **d, now, cmd, seen))
            })?;
        if a.done.is_none() {
            self.waiters.borrow_mut().insert(tag, waiter());
            // A layer that queued the command says when to look again.
            self.advance_now();
        }
        Ok(Submitted {
            done: a.done,
            lba: a.lba,
            tag,
        })
    }

    /// Advances the device to now and routes the completions it reports.
    #[inline]
    pub(crate) fn advance_device(&self) {
        if self.background {
            self.advance_now();
        }
    }

    fn advance_now(&self) {
        let now = self.now.get();
        let mut done = self.scratch.borrow_mut();
        done.clear();
        // (The vector itself goes into the cell's closure: a `RefMut` is not `Send`.)
        let out: &mut Vec<Completed> = &mut done;
        let wake = self.device.with(|d| d.advance(now, out));
        for c in done.drain(..) {
            if self.tracing {
                self.recorder.borrow_mut().completed(c.tag, c.done);
            }
            match self.waiters.borrow_mut().remove(&c.tag) {
                Some(Waiter::Runner {
                    runner,
                    kind,
                    submitted,
                    bytes,
                    host,
                }) => self.push(
                    c.done + host,
                    EventKind::RunnerComplete {
                        runner,
                        kind,
                        submitted,
                        bytes,
                    },
                ),
                Some(Waiter::Task(task)) => {
                    self.arrived.borrow_mut().insert(c.tag, c.done);
                    self.push(c.done, EventKind::TaskWake(task));
                }
                None => panic!(
                    "the device reported a completion for tag {} that no command waits for",
                    c.tag
                ),
            }
        }
        if let Some(t) = wake
            && self.device_wake.get().is_none_or(|w| w > t || w < now)
        {
            self.device_wake.set(Some(t));
            self.push(t, EventKind::DeviceWake);
        }
    }

    /// A DeviceWake event at `now` fired.
    /// Nothing can wake a host task any more: no event is queued but the device's own next
    /// wake-up (a firmware timer keeps coming back forever), and no command waits for a
    /// completion the device reports later.
    pub(crate) fn host_cannot_wake(&self) -> bool {
        let queued = self.queue.with(|q| q.len());
        queued <= self.device_wake.get().is_some() as usize && self.waiters.borrow().is_empty()
    }

    pub(crate) fn device_woke(&self, now: Instant) {
        if self.device_wake.get() == Some(now) {
            self.device_wake.set(None);
        }
    }

    /// Simulated CPU time: `duration` on the first modelled host core free, FIFO. Returns when
    /// the work is done.
    pub(crate) fn cpu(&self, duration: Duration) -> Instant {
        self.cores.borrow_mut().run(self.now.get(), duration)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::series::Sampling;
    use crate::testing::fixtures::{tiny_device, validated};

    /// An event dated before the clock (a completion reported in the past, say) would run
    /// simulated time backwards; the kernel refuses it where it is queued.
    #[test]
    #[should_panic(expected = "simulated time runs forwards only")]
    fn an_event_before_the_clock_is_a_bug() {
        let experiment = validated(&tiny_device(), &[]).unwrap();
        let device = crate::experiment::build_device(&experiment);
        let start = Instant::from_ns(1_000);
        let metrics = Metrics::new(start, Sampling::every(Duration::from_ns(1_000_000)));
        let k = Kernel::new(device, metrics, Cores::new(1), start, Recorder::new(None));
        k.push(start, EventKind::RunnerWake(0));
        k.push(Instant::from_ns(999), EventKind::RunnerWake(1));
    }
}
