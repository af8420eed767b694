//! Host code on simulated time: a deterministic, single-threaded executor where file layers,
//! key-value stores, GC threads and workloads run as async tasks, as SimPy runs processes.
//!
//! A task is an `async` block. It reads like the thread it models: submit a command and wait
//! for it ([`Host::io`]), sleep ([`Host::sleep`]), use CPU on a modelled core ([`Host::cpu`]),
//! wait on a [`super::sync`] primitive, spawn and join other tasks. Only this module's futures
//! (and the sync primitives) suspend a task; each registers the task to be polled again at a
//! simulated time, as an event ordered by (time, sequence), so a run is reproducible. No waker
//! is used: the kernel knows which task is being polled. Async/await was chosen over explicit
//! state machines because host layers (a file system's fsync, a KV store's compaction) have deep
//! call chains that would otherwise be hand-written continuations (docs/model.md).

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use super::kernel::{EventKind, Kernel, Origin, TaskId, Waiter};
use crate::device::{Command, LayerReport, Op, Status};
use crate::metrics::{Layer, MetricKey, OpKind, TenantId};
use crate::time::{Duration, Instant};

pub(crate) type TaskFuture = Pin<Box<dyn Future<Output = ()>>>;

pub(crate) struct TaskSlot {
    future: Option<TaskFuture>,
    done: bool,
    /// Daemons (GC threads, flushers) do not keep a run going.
    daemon: bool,
    name: String,
    joiners: Vec<(TaskId, Rc<Cell<bool>>)>,
}

/// The executor's task table, kept beside the kernel.
#[derive(Default)]
pub(crate) struct Tasks {
    slots: RefCell<Vec<TaskSlot>>,
    /// Tasks not done and not daemons.
    live: Cell<u32>,
}

impl Tasks {
    /// Tasks spawned so far.
    pub(crate) fn spawned(&self) -> u32 {
        self.slots.borrow().len() as u32
    }

    pub(crate) fn live(&self) -> u32 {
        self.live.get()
    }

    /// Drops every task's future (the run is over; daemons hold kernel handles).
    pub(crate) fn clear(&self) {
        let slots = std::mem::take(&mut *self.slots.borrow_mut());
        drop(slots);
    }

    /// Names of tasks that never finished (for a deadlock report).
    pub(crate) fn stuck(&self) -> Vec<String> {
        self.slots
            .borrow()
            .iter()
            .filter(|s| !s.done && !s.daemon)
            .map(|s| s.name.clone())
            .collect()
    }
}

/// What a host task holds: the kernel, who it works for (metrics tenant, trace source) and the
/// namespace its commands go to.
#[derive(Clone)]
pub struct Host {
    pub(crate) kernel: Rc<Kernel>,
    pub(crate) tasks: Rc<Tasks>,
    origin: Origin,
    nsid: u32,
}

/// A completed command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoDone {
    /// Zone Append: where the data went; otherwise the command's LBA.
    pub lba: u64,
    pub done: Instant,
}

impl Host {
    pub(crate) fn new(kernel: Rc<Kernel>, tasks: Rc<Tasks>, tenant: &str, source: &str) -> Self {
        let tenant = kernel.metrics.with(|m| m.tenant(tenant));
        let source = kernel.source(source);
        Host {
            kernel,
            tasks,
            origin: Origin { tenant, source },
            nsid: 0,
        }
    }

    /// The same kernel and namespace, working for another tenant and trace source.
    pub fn for_tenant(&self, tenant: &str, source: &str) -> Host {
        Host {
            nsid: self.nsid,
            ..Host::new(self.kernel.clone(), self.tasks.clone(), tenant, source)
        }
    }

    /// The same, sending its commands to namespace `nsid` (namespace 0 unless set).
    pub fn on_namespace(&self, nsid: u32) -> Host {
        Host {
            nsid,
            ..self.clone()
        }
    }

    /// This host's layer took in a command the device rejected and went on (the run's error log
    /// counts it apart: see [`crate::report::Summary::errors_ridden_through`]).
    pub fn rode_through(&self) {
        self.kernel
            .recorder
            .borrow_mut()
            .errors_mut()
            .ride_through();
    }

    /// The namespace this host's commands go to.
    pub fn nsid(&self) -> u32 {
        self.nsid
    }

    pub fn now(&self) -> Instant {
        self.kernel.now()
    }

    pub fn tenant(&self) -> TenantId {
        self.origin.tenant
    }

    /// The device's description.
    pub fn device_info(&self) -> crate::device::DeviceInfo {
        self.kernel.device.with(|d| d.info().clone())
    }

    /// Looks at the device without sending it a command (zone states for a host that caches
    /// them, for instance).
    pub fn with_device<R>(&self, f: impl FnOnce(&dyn crate::device::DeviceModel) -> R + Send) -> R {
        self.kernel.device.with(|d| f(&**d))
    }

    fn current(&self) -> TaskId {
        self.kernel
            .current
            .get()
            .expect("host futures are awaited inside a task")
    }

    /// Starts `future` as a new task now. A daemon does not keep the run going.
    pub fn spawn(
        &self,
        name: &str,
        daemon: bool,
        future: impl Future<Output = ()> + 'static,
    ) -> TaskId {
        let mut slots = self.tasks.slots.borrow_mut();
        let id = TaskId(slots.len() as u32);
        slots.push(TaskSlot {
            future: Some(Box::pin(future)),
            done: false,
            daemon,
            name: name.to_string(),
            joiners: Vec::new(),
        });
        if !daemon {
            self.tasks.live.set(self.tasks.live.get() + 1);
        }
        self.kernel.push(self.now(), EventKind::TaskWake(id));
        id
    }

    /// Waits until task `id` has finished.
    pub fn join(&self, id: TaskId) -> impl Future<Output = ()> + '_ {
        let flag = Rc::new(Cell::new(false));
        let mut registered = false;
        std::future::poll_fn(move |_| {
            let mut slots = self.tasks.slots.borrow_mut();
            if slots[id.0 as usize].done || flag.get() {
                return Poll::Ready(());
            }
            if !registered {
                registered = true;
                let me = self.current();
                slots[id.0 as usize].joiners.push((me, flag.clone()));
            }
            Poll::Pending
        })
    }

    /// Wakes task `task` now (sync primitives use this).
    pub(crate) fn wake(&self, task: TaskId) {
        self.kernel.push(self.now(), EventKind::TaskWake(task));
    }

    /// Sleeps until `until` (at once if it has passed).
    pub fn sleep_until(&self, until: Instant) -> impl Future<Output = ()> + '_ {
        let mut armed = false;
        std::future::poll_fn(move |_| {
            if self.now() >= until {
                return Poll::Ready(());
            }
            if !armed {
                armed = true;
                self.kernel.push(until, EventKind::TaskWake(self.current()));
            }
            Poll::Pending
        })
    }

    pub fn sleep(&self, d: Duration) -> impl Future<Output = ()> + '_ {
        self.sleep_until(self.now() + d)
    }

    /// Uses `d` of CPU on a modelled host core, waiting for a core if all are busy.
    pub async fn cpu(&self, d: Duration) {
        if d.is_zero() {
            return;
        }
        let end = self.kernel.cpu(d);
        self.sleep_until(end).await;
    }

    /// Sends `cmd` to the device and waits for it to complete. Measured as a device-layer
    /// operation of this host's tenant, and traced.
    pub async fn io(&self, mut cmd: Command<'_>) -> Result<IoDone, Status> {
        cmd.nsid = self.nsid;
        let submitted = self.now();
        let kind = op_kind(cmd.op);
        let lba_bytes = self.kernel.device.with(|d| d.info().lba_size_bytes);
        let bytes = if matches!(cmd.op, Op::Read | Op::Write | Op::Append) {
            cmd.nlb * lba_bytes
        } else {
            0
        };
        let me = self.current();
        let s = self.kernel.submit(cmd, self.origin, || Waiter::Task(me))?;
        let done = match s.done {
            Some(t) => {
                self.sleep_until(t).await;
                t
            }
            None => self.arrival(s.tag).await,
        };
        let key = self.kernel.device_key(kind, self.origin.tenant);
        self.kernel
            .metrics
            .with(|m| m.record(key, submitted, done, bytes));
        Ok(IoDone { lba: s.lba, done })
    }

    /// Waits for a tagged completion the device reports later.
    fn arrival(&self, tag: u64) -> impl Future<Output = Instant> + '_ {
        std::future::poll_fn(move |_| {
            let t = self.kernel.arrived.borrow().get(&tag).copied();
            match t {
                Some(t) if self.now() >= t => {
                    self.kernel.arrived.borrow_mut().remove(&tag);
                    Poll::Ready(t)
                }
                _ => Poll::Pending,
            }
        })
    }

    /// The metric slot for an operation of `layer` measured by this host's tenant.
    pub fn metric(&self, layer: Layer, op: OpKind) -> MetricKey {
        let tenant = self.origin.tenant;
        self.kernel.metrics.with(|m| m.key(layer, op, tenant))
    }

    /// Records one operation of a host layer (file, key-value) that ran from `submitted` to now.
    pub fn record(&self, key: MetricKey, submitted: Instant, bytes: u64) {
        let now = self.now();
        self.kernel
            .metrics
            .with(|m| m.record(key, submitted, now, bytes));
    }

    /// Starts the measured phase now, after a host workload's own set-up (a file set created
    /// before a benchmark runs, as Filebench's pre-allocation or fio's ramp): device counters,
    /// energy, latency histograms, time series and CPU accounting start again from zero.
    /// Firmware reports and wear keep counting from the start of the run.
    pub fn start_measurement(&self) {
        let now = self.now();
        self.kernel.device.with(|d| d.reset_counters());
        self.kernel.metrics.with(|m| m.restart(now));
        self.kernel.cores.borrow_mut().restart();
    }

    /// Registers a host layer's report, made when the run ends and written to the summary's
    /// `layers` under `name` (a file layer's write amplification and GC counters, say).
    pub fn add_report(&self, name: &str, report: impl Fn() -> LayerReport + 'static) {
        self.kernel
            .reports
            .borrow_mut()
            .push((name.to_string(), Box::new(report)));
    }

    /// Host workloads report how far along they are (0..1) for the progress bar.
    pub fn set_progress(&self, fraction: f64) {
        self.kernel.progress.set(fraction.clamp(0.0, 1.0));
    }
}

/// The metric kind of a device command.
pub fn op_kind(op: Op) -> OpKind {
    use crate::device::ZoneAction::*;
    match op {
        Op::Read => OpKind::Read,
        Op::Write => OpKind::Write,
        Op::Append => OpKind::Append,
        Op::ZoneMgmt(Reset) | Op::ZoneMgmtAll(Reset) => OpKind::Reset,
        Op::ZoneMgmt(Finish) | Op::ZoneMgmtAll(Finish) => OpKind::Finish,
        Op::ZoneMgmt(Open) | Op::ZoneMgmtAll(Open) => OpKind::Open,
        Op::ZoneMgmt(Close) | Op::ZoneMgmtAll(Close) => OpKind::Close,
        Op::ZoneMgmt(Offline) | Op::ZoneMgmtAll(Offline) => OpKind::Other,
        Op::Trim => OpKind::Trim,
        Op::Flush => OpKind::Flush,
    }
}

/// Polls task `id` (a TaskWake fired). A finished task's later wakes are ignored.
pub(crate) fn poll_task(kernel: &Kernel, tasks: &Tasks, id: TaskId) {
    let future = tasks.slots.borrow_mut()[id.0 as usize].future.take();
    let Some(mut future) = future else {
        return;
    };
    kernel.current.set(Some(id));
    let mut cx = Context::from_waker(Waker::noop());
    let poll = future.as_mut().poll(&mut cx);
    kernel.current.set(None);
    let mut slots = tasks.slots.borrow_mut();
    let slot = &mut slots[id.0 as usize];
    match poll {
        Poll::Pending => slot.future = Some(future),
        Poll::Ready(()) => {
            slot.done = true;
            if !slot.daemon {
                tasks.live.set(tasks.live.get() - 1);
            }
            for (joiner, flag) in std::mem::take(&mut slot.joiners) {
                flag.set(true);
                kernel.push(kernel.now(), EventKind::TaskWake(joiner));
            }
        }
    }
}
