//! Trace replay: reissues a recorded command stream (ZoneLab's trace, fio's iolog, MSR
//! Cambridge) either open-loop at its timestamps (scaled by `speed`) or closed-loop as fast as
//! the device allows (fio's `replay_no_stall`), with at most `iodepth` commands in flight. On a
//! zoned device a trim that covers whole zones becomes zone resets, as under fio's
//! `zonemode=zbd`. A command that breaks the zone rules stops the replay with the device's
//! status and the trace line.

use std::collections::VecDeque;

use super::{Next, Request, StopReason};
use crate::device::{Op, ZoneAction, ZonedInfo};
use crate::time::Duration;
use crate::trace::read::{ReplayRecord, TraceError, TraceFormat, TraceReader};

/// How a trace is replayed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ReplayMode {
    /// Each command at its timestamp divided by `speed` (1.0: as recorded).
    Timed { speed: f64 },
    /// As fast as the device allows.
    NoStall,
}

/// A `[[replay]]` resolved: the trace itself comes from the front end at run time.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplaySpec {
    pub name: String,
    /// The trace file as the experiment names it (the front end opens it).
    pub trace: String,
    pub format: Option<TraceFormat>,
    pub mode: ReplayMode,
    pub iodepth: u32,
}

pub struct ReplayGen {
    reader: TraceReader,
    mode: ReplayMode,
    zoned: Option<ZonedInfo>,
    /// Commands of the current record still to issue (a trim split into zone resets).
    queue: VecDeque<(u64, Request)>,
    /// When the current record is due, from the start of the replay.
    due: Option<Duration>,
    /// The trace line of the last command handed out.
    pub line: u64,
    /// A line that could not be read: the replay stops and the run reports it.
    pub error: Option<TraceError>,
    done: bool,
}

impl ReplayGen {
    pub fn new(reader: TraceReader, mode: ReplayMode, zoned: Option<ZonedInfo>) -> Self {
        ReplayGen {
            reader,
            mode,
            zoned,
            queue: VecDeque::new(),
            due: None,
            line: 0,
            error: None,
            done: false,
        }
    }

    pub fn format(&self) -> TraceFormat {
        self.reader.format()
    }

    /// Makes sure the next record is loaded; false at the end (or on an error).
    fn fill(&mut self) -> bool {
        if !self.queue.is_empty() {
            return true;
        }
        if self.done {
            return false;
        }
        match self.reader.next() {
            None => {
                self.done = true;
                false
            }
            Some(Err(e)) => {
                self.error = Some(e);
                self.done = true;
                false
            }
            Some(Ok(r)) => {
                self.due = match self.mode {
                    ReplayMode::Timed { speed } => {
                        r.at.map(|at| Duration::from_ns((at.ns() as f64 / speed) as u64))
                    }
                    ReplayMode::NoStall => None,
                };
                self.expand(r);
                true
            }
        }
    }

    fn expand(&mut self, r: ReplayRecord) {
        let op = r.op.op();
        if let (Op::Trim, Some(z)) = (op, &self.zoned)
            && r.slba.is_multiple_of(z.zone_size_lbas)
            && r.nlb.is_multiple_of(z.zone_size_lbas)
        {
            let zones = r.nlb / z.zone_size_lbas;
            for k in 0..zones {
                let zslba = r.slba + k * z.zone_size_lbas;
                self.queue
                    .push_back((r.line, Request::zone(ZoneAction::Reset, zslba)));
            }
            return;
        }
        self.queue
            .push_back((r.line, Request::new(op, r.slba, r.nlb)));
    }

    /// When the next command is due, from the start (timed replay); None: now.
    pub fn next_due(&mut self) -> Option<Duration> {
        if self.fill() { self.due } else { None }
    }

    pub fn next_request(&mut self) -> Next {
        if !self.fill() {
            return Next::Done(if self.error.is_some() {
                StopReason::TraceError
            } else {
                StopReason::TraceEnd
            });
        }
        let (line, request) = self.queue.pop_front().expect("filled");
        self.line = line;
        Next::Issue(request)
    }
}
