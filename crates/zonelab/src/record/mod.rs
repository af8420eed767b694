//! The one path a command takes to the device, whoever sends it: the simulation kernel (fio
//! jobs, replay, host tasks) and [`crate::driver::Driver`] (the fio engine, the block device,
//! the device manager, Python, the swarm) both submit through [`Recorder::submit`]. It traces
//! the command (at once, or when a completion the device reports later arrives:
//! [`Recorder::completed`]) and logs a rejection with its NVMe status. The two differ only in
//! how they wait for a completion: the kernel on its event queue, the driver one command at a
//! time. So the same command leaves the same trace record and error-log entry on every front end.
//!
//! - `errors`: the commands the device rejected.

pub mod errors;

use rustc_hash::FxHashMap;
use std::sync::Arc;

use crate::device::{Accepted, Command, DeviceModel, Status};
use crate::nand::DieSet;
use crate::time::Instant;
use crate::trace::{TraceRecord, TraceSink};
pub use errors::{ErrorLog, ErrorReport};

/// What a traced command's record needs to know of the device, beyond the command's result.
#[derive(Default)]
pub struct Seen {
    pub zone_size_lbas: Option<u64>,
    pub dies: DieSet,
}

/// Submits `cmd` to `device` at `now`; given `seen`, also notes there the dies the command used
/// and the zone size (for its trace record). The device's half of [`Recorder::submit`], apart so
/// a caller can run it where the device is kept (the kernel's cell).
#[inline]
pub fn send(
    device: &mut dyn DeviceModel,
    now: Instant,
    cmd: Command<'_>,
    seen: Option<&mut Seen>,
) -> Result<Accepted, Status> {
    let Some(seen) = seen else {
        return device.submit(now, cmd);
    };
    // Dies touched by background work since the last command are not this command's.
    device.take_touched();
    let result = device.submit(now, cmd);
    seen.zone_size_lbas = device.info().zoned().map(|z| z.zone_size_lbas);
    seen.dies = device.take_touched().unwrap_or_default();
    result
}

/// What a run keeps of the commands sent to its device: their trace (`S` is the sink's type,
/// `dyn TraceSink + Send` for a driver that crosses threads) and the log of rejected commands,
/// each under the name of the source that sent it.
pub struct Recorder<S: TraceSink + ?Sized = dyn TraceSink> {
    sources: Vec<Arc<str>>,
    trace: Option<Box<S>>,
    /// Records waiting for a completion the device reports later, by the command's tag.
    pending: FxHashMap<u64, TraceRecord>,
    errors: ErrorLog,
}

impl<S: TraceSink + ?Sized> Recorder<S> {
    /// Records into `trace`, if given.
    pub fn new(trace: Option<Box<S>>) -> Self {
        Recorder {
            sources: Vec::new(),
            trace,
            pending: FxHashMap::default(),
            errors: ErrorLog::default(),
        }
    }

    /// A source name's index, for [`Recorder::submit`].
    pub fn source(&mut self, name: &str) -> u32 {
        if let Some(i) = self.sources.iter().position(|n| **n == *name) {
            return i as u32;
        }
        self.sources.push(name.into());
        self.sources.len() as u32 - 1
    }

    /// Records every command from now on into `sink`.
    pub fn set_trace(&mut self, sink: Box<S>) {
        self.trace = Some(sink);
    }

    pub fn is_tracing(&self) -> bool {
        self.trace.is_some()
    }

    /// Sends `cmd` at `now` for `source` through `send` (which passes it to the device: see
    /// [`send`]; it is given a [`Seen`] to fill when the command is traced). Traces the command,
    /// now or, when the device reports its completion later, at [`Recorder::completed`] for its
    /// tag; logs a rejection.
    #[inline]
    pub fn submit(
        &mut self,
        now: Instant,
        cmd: Command<'_>,
        source: u32,
        send: impl FnOnce(Command<'_>, Option<&mut Seen>) -> Result<Accepted, Status>,
    ) -> Result<Accepted, Status> {
        let (op, nsid, slba, nlb, tag) = (cmd.op, cmd.nsid, cmd.slba, cmd.nlb, cmd.tag);
        let result = match &mut self.trace {
            None => send(cmd, None),
            Some(sink) => {
                let mut seen = Seen::default();
                let result = send(cmd, Some(&mut seen));
                let record = TraceRecord::of_command(
                    now,
                    (op, nsid, slba, nlb),
                    seen.zone_size_lbas,
                    seen.dies,
                    self.sources[source as usize].clone(),
                    &result,
                );
                match &result {
                    Ok(Accepted { done: None, .. }) => {
                        self.pending.insert(tag, record);
                    }
                    _ => sink.record(&record),
                }
                result
            }
        };
        if let Ok(a) = &result {
            // Every front end schedules from these times: one in the past would run the
            // simulated clock backwards.
            assert!(
                a.start >= now && a.done.is_none_or(|d| d >= a.start),
                "a {op:?} accepted at {now} starts at {} and completes at {:?}: a device \
                 model never answers before it is asked",
                a.start,
                a.done.map(|d| d.to_string())
            );
        }
        if let Err(status) = result {
            let name = &self.sources[source as usize];
            self.errors
                .push(|| ErrorReport::new(name, op, slba, status));
        }
        result
    }

    /// The command under `tag` completed at `done`: writes its trace record. With a trace, a
    /// completion for a command it does not hold (never sent, or completed twice) is a bug of
    /// the device model.
    #[inline]
    pub fn completed(&mut self, tag: u64, done: Instant) {
        if let Some(sink) = &mut self.trace {
            let Some(mut r) = self.pending.remove(&tag) else {
                panic!("a completion for tag {tag}, which no traced command waits for");
            };
            assert!(
                done >= r.submit,
                "tag {tag} completed at {done}, before it was submitted at {}",
                r.submit
            );
            r.done = done;
            sink.record(&r);
        }
    }

    pub fn errors(&self) -> &ErrorLog {
        &self.errors
    }

    pub fn errors_mut(&mut self) -> &mut ErrorLog {
        &mut self.errors
    }

    /// Flushes the trace, if there is one; says if any of it could not be written.
    pub fn finish_trace(&mut self) -> std::io::Result<()> {
        match &mut self.trace {
            Some(t) => t.finish(),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests;
