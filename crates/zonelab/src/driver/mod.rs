//! One command at a time: how a front end that drives a device itself sends its commands (the
//! fio engine, the block device, the device manager, Python, the seed swarm). It offers the
//! device its background work up to a time, sends a command through the same
//! [`Recorder::submit`] the simulation kernel uses (so it is traced and its rejection logged as
//! in a run), waits out a completion the device reports later, and counts the command's latency
//! at the device layer as a run does ([`op_kind`]).

use crate::device::{Command, Completed, DeviceModel, Op, Status, catch_up};
use crate::metrics::series::Sampling;
use crate::metrics::{Layer, MetricKey, Metrics, OpKind, TenantId};
use crate::record::{ErrorLog, Recorder, send};
use crate::report::{HostReport, RunIdentity, Summary, summarize};
use crate::sim::host::op_kind;
use crate::time::{Duration, Instant};
use crate::trace::TraceSink;

/// What the device did with a command it took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Served {
    pub done: Instant,
    /// Zone Append: the LBA written. Otherwise the command's `slba`.
    pub lba: u64,
}

/// A device, driven one command at a time, and what was recorded of its commands.
pub struct Driver {
    device: Box<dyn DeviceModel>,
    /// When the device next wants to be offered time (background work).
    wake: Option<Instant>,
    completions: Vec<Completed>,
    metrics: Metrics,
    tenant: TenantId,
    keys: [Option<MetricKey>; OpKind::ALL.len()],
    /// Its one source (index 0) names the front end in the trace and the error log.
    recorder: Recorder<dyn TraceSink + Send>,
}

impl Driver {
    /// Drives `device` from time `start` on (its metrics start there; its counters are the
    /// caller's to reset: a device loaded from a state file keeps its own); `source` names the
    /// front end in the trace, the error log and the metrics' tenant.
    pub fn new(
        device: Box<dyn DeviceModel>,
        start: Instant,
        sampling: Sampling,
        source: &str,
    ) -> Self {
        let mut metrics = Metrics::new(start, sampling);
        let tenant = metrics.tenant(source);
        let mut recorder = Recorder::new(None);
        recorder.source(source);
        Driver {
            device,
            wake: Some(start),
            completions: Vec::new(),
            metrics,
            tenant,
            keys: [None; OpKind::ALL.len()],
            recorder,
        }
    }

    pub fn device(&self) -> &dyn DeviceModel {
        &*self.device
    }

    /// The device, to hand to a run ([`crate::experiment::run_on`]) or to save.
    pub fn into_device(self) -> Box<dyn DeviceModel> {
        self.device
    }

    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    pub fn errors(&self) -> &ErrorLog {
        self.recorder.errors()
    }

    /// Records every command from now on into `sink`.
    pub fn set_trace(&mut self, sink: Box<dyn TraceSink + Send>) {
        self.device.set_tracing(true);
        self.recorder.set_trace(sink);
    }

    /// Whether commands are being traced ([`Driver::set_trace`]).
    pub fn is_tracing(&self) -> bool {
        self.recorder.is_tracing()
    }

    /// Flushes the trace, if there is one; says if any of it could not be written.
    pub fn finish_trace(&mut self) -> std::io::Result<()> {
        self.recorder.finish_trace()
    }

    /// Offers the device its background work (idle-time erases, timers) at every time it
    /// asked for up to `now`, then at `now`, as the simulation loop does. Returns when it wants
    /// to be offered time again, if later than `now`.
    pub fn advance(&mut self, now: Instant) -> Option<Instant> {
        catch_up(
            &mut *self.device,
            &mut self.wake,
            now,
            &mut self.completions,
        );
        // Every command is waited out in `submit`: none is left to complete here.
        assert!(
            self.completions.is_empty(),
            "a completion with no command in flight"
        );
        self.wake.filter(|&t| t > now)
    }

    /// Sends `cmd` at `now` and returns when it completes. The command is traced, and counted
    /// at the device layer (its latency) or in the error log (a rejection, with the NVMe
    /// status). Background work due before `now` is the caller's to offer first ([`advance`]):
    /// a front end that turns one request into several commands offers it once.
    ///
    /// [`advance`]: Driver::advance
    pub fn submit(&mut self, now: Instant, cmd: Command<'_>) -> Result<Served, Status> {
        let (op, nlb) = (cmd.op, cmd.nlb);
        let device = &mut *self.device;
        let accepted = self
            .recorder
            .submit(now, cmd, 0, |cmd, seen| send(device, now, cmd, seen))?;
        let done = match accepted.done {
            Some(done) => done,
            None => self.completion_of(now),
        };
        let lba_bytes = self.device.info().lba_size_bytes;
        let bytes = if matches!(op, Op::Read | Op::Write | Op::Append) {
            nlb * lba_bytes
        } else {
            0
        };
        let key = self.key(op_kind(op));
        self.metrics.record(key, now, done, bytes);
        Ok(Served {
            done,
            lba: accepted.lba,
        })
    }

    /// A completion the device reports later (a host layer that queues commands): offers it
    /// time until it reports one. One command is in flight at a time, so it is this one.
    fn completion_of(&mut self, now: Instant) -> Instant {
        let mut t = now;
        loop {
            self.completions.clear();
            let wake = self.device.advance(t, &mut self.completions);
            self.wake = wake;
            if let Some(c) = self.completions.first() {
                assert_eq!(self.completions.len(), 1, "one command is in flight");
                let (tag, done) = (c.tag, c.done);
                self.completions.clear();
                self.recorder.completed(tag, done);
                return done;
            }
            t = wake.unwrap_or(t + Duration::from_us(1));
        }
    }

    fn key(&mut self, kind: OpKind) -> MetricKey {
        let (metrics, tenant) = (&mut self.metrics, self.tenant);
        *self.keys[kind as usize].get_or_insert_with(|| metrics.key(Layer::Device, kind, tenant))
    }

    /// The run's summary so far, in the form `zonelab run` writes.
    pub fn summary(&self, identity: &RunIdentity) -> Summary {
        summarize(
            identity,
            &*self.device,
            &self.metrics,
            HostReport::default(),
            Vec::new(),
            self.recorder.errors().clone(),
        )
    }
}

#[cfg(test)]
mod tests;
