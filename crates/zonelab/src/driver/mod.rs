//! One command at a time: the path every front end that drives a device itself sends its
//! commands down (the fio engine, the block device, the device manager, the seed swarm). It
//! offers the device its background work up to a time, sends a command, waits out a completion
//! the device reports later, and keeps what a run keeps of each command: its trace record, its
//! latency at the device layer, and the log of rejected commands. The simulation loop sends
//! its commands through the kernel ([`crate::sim`]) instead, which builds its trace records
//! with the same [`TraceRecord::of_command`] and counts them the same way ([`op_kind`]).

use std::sync::Arc;

use crate::device::{Command, Completed, DeviceModel, Op, Status, catch_up};
use crate::metrics::series::Sampling;
use crate::metrics::{Layer, MetricKey, Metrics, OpKind, TenantId};
use crate::report::{ErrorLog, ErrorReport, HostReport, RunIdentity, Summary, summarize};
use crate::sim::host::op_kind;
use crate::time::{Duration, Instant};
use crate::trace::{TraceRecord, TraceSink};

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
    errors: ErrorLog,
    trace: Option<Box<dyn TraceSink + Send>>,
    /// Who sends the commands: the trace's and the error log's source name.
    source: Arc<str>,
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
        Driver {
            device,
            wake: Some(start),
            completions: Vec::new(),
            metrics,
            tenant,
            keys: [None; OpKind::ALL.len()],
            errors: ErrorLog::default(),
            trace: None,
            source: source.into(),
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
        &self.errors
    }

    /// Records every command from now on into `sink`.
    pub fn set_trace(&mut self, sink: Box<dyn TraceSink + Send>) {
        self.device.set_tracing(true);
        self.trace = Some(sink);
    }

    /// Whether commands are being traced ([`Driver::set_trace`]).
    pub fn is_tracing(&self) -> bool {
        self.trace.is_some()
    }

    /// Flushes the trace, if there is one; says if any of it could not be written.
    pub fn finish_trace(&mut self) -> std::io::Result<()> {
        match &mut self.trace {
            Some(t) => t.finish(),
            None => Ok(()),
        }
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
        self.completions.clear();
        self.wake.filter(|&t| t > now)
    }

    /// Sends `cmd` at `now` and returns when it completes. The command is traced, and counted
    /// at the device layer (its latency) or in the error log (a rejection, with the NVMe
    /// status). Background work due before `now` is the caller's to offer first ([`advance`]):
    /// a front end that turns one request into several commands offers it once.
    ///
    /// [`advance`]: Driver::advance
    pub fn submit(&mut self, now: Instant, cmd: Command<'_>) -> Result<Served, Status> {
        let (op, nsid, slba, nlb) = (cmd.op, cmd.nsid, cmd.slba, cmd.nlb);
        if self.trace.is_some() {
            // Dies touched by background work since the last command are not this command's.
            self.device.take_touched();
        }
        let result = self.device.submit(now, cmd);
        let served = match &result {
            Ok(a) => Ok(Served {
                done: a.done.unwrap_or_else(|| self.completion_of(now)),
                lba: a.lba,
            }),
            Err(s) => Err(*s),
        };
        if let Some(sink) = &mut self.trace {
            let zone_lbas = self.device.info().zoned().map(|z| z.zone_size_lbas);
            let dies = self.device.take_touched().unwrap_or_default();
            let mut record = TraceRecord::of_command(
                now,
                (op, nsid, slba, nlb),
                zone_lbas,
                dies,
                self.source.clone(),
                &result,
            );
            if let Ok(s) = served {
                record.done = s.done;
            }
            sink.record(&record);
        }
        match served {
            Ok(s) => {
                let lba_bytes = self.device.info().lba_size_bytes;
                let bytes = if matches!(op, Op::Read | Op::Write | Op::Append) {
                    nlb * lba_bytes
                } else {
                    0
                };
                let key = self.key(op_kind(op));
                self.metrics.record(key, now, s.done, bytes);
            }
            Err(status) => {
                let source = &self.source;
                self.errors
                    .push(|| ErrorReport::new(source, op, slba, status));
            }
        }
        served
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
                let done = c.done;
                self.completions.clear();
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
            self.errors.clone(),
        )
    }
}

#[cfg(test)]
mod tests;
