//! The per-command trace (the time-and-space trace of Shin et al., NVMSA 2020's analysis tool):
//! one record per device command with when it was submitted, started and completed, what it
//! was, where it went (zone, LBA, length, the dies and channels it used), how long it waited on
//! an erase, and who sent it. Records go to a [`TraceSink`] the front end provides, so memory
//! does not grow with the trace. The CSV form is also a replay input (see [`read`]).

pub mod read;
pub mod stats;

use std::fmt::Write as _;
use std::sync::Arc;

use crate::device::{Op, Status, ZoneAction};
use crate::nand::DieSet;
use crate::time::{Duration, Instant};

/// What a traced command did (NVMe names, zone management spelled out).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TraceOp {
    Read,
    Write,
    Append,
    Open,
    Close,
    Finish,
    Reset,
    Offline,
    OpenAll,
    CloseAll,
    FinishAll,
    ResetAll,
    OfflineAll,
    Trim,
    Flush,
}

impl TraceOp {
    pub const ALL: [TraceOp; 15] = [
        TraceOp::Read,
        TraceOp::Write,
        TraceOp::Append,
        TraceOp::Open,
        TraceOp::Close,
        TraceOp::Finish,
        TraceOp::Reset,
        TraceOp::Offline,
        TraceOp::OpenAll,
        TraceOp::CloseAll,
        TraceOp::FinishAll,
        TraceOp::ResetAll,
        TraceOp::OfflineAll,
        TraceOp::Trim,
        TraceOp::Flush,
    ];

    pub fn of(op: Op) -> TraceOp {
        use ZoneAction::*;
        match op {
            Op::Read => TraceOp::Read,
            Op::Write => TraceOp::Write,
            Op::Append => TraceOp::Append,
            Op::ZoneMgmt(Open) => TraceOp::Open,
            Op::ZoneMgmt(Close) => TraceOp::Close,
            Op::ZoneMgmt(Finish) => TraceOp::Finish,
            Op::ZoneMgmt(Reset) => TraceOp::Reset,
            Op::ZoneMgmt(Offline) => TraceOp::Offline,
            Op::ZoneMgmtAll(Open) => TraceOp::OpenAll,
            Op::ZoneMgmtAll(Close) => TraceOp::CloseAll,
            Op::ZoneMgmtAll(Finish) => TraceOp::FinishAll,
            Op::ZoneMgmtAll(Reset) => TraceOp::ResetAll,
            Op::ZoneMgmtAll(Offline) => TraceOp::OfflineAll,
            Op::Trim => TraceOp::Trim,
            Op::Flush => TraceOp::Flush,
        }
    }

    pub fn op(self) -> Op {
        use ZoneAction::*;
        match self {
            TraceOp::Read => Op::Read,
            TraceOp::Write => Op::Write,
            TraceOp::Append => Op::Append,
            TraceOp::Open => Op::ZoneMgmt(Open),
            TraceOp::Close => Op::ZoneMgmt(Close),
            TraceOp::Finish => Op::ZoneMgmt(Finish),
            TraceOp::Reset => Op::ZoneMgmt(Reset),
            TraceOp::Offline => Op::ZoneMgmt(Offline),
            TraceOp::OpenAll => Op::ZoneMgmtAll(Open),
            TraceOp::CloseAll => Op::ZoneMgmtAll(Close),
            TraceOp::FinishAll => Op::ZoneMgmtAll(Finish),
            TraceOp::ResetAll => Op::ZoneMgmtAll(Reset),
            TraceOp::OfflineAll => Op::ZoneMgmtAll(Offline),
            TraceOp::Trim => Op::Trim,
            TraceOp::Flush => Op::Flush,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            TraceOp::Read => "read",
            TraceOp::Write => "write",
            TraceOp::Append => "append",
            TraceOp::Open => "open",
            TraceOp::Close => "close",
            TraceOp::Finish => "finish",
            TraceOp::Reset => "reset",
            TraceOp::Offline => "offline",
            TraceOp::OpenAll => "open_all",
            TraceOp::CloseAll => "close_all",
            TraceOp::FinishAll => "finish_all",
            TraceOp::ResetAll => "reset_all",
            TraceOp::OfflineAll => "offline_all",
            TraceOp::Trim => "trim",
            TraceOp::Flush => "flush",
        }
    }

    pub fn parse(name: &str) -> Option<TraceOp> {
        TraceOp::ALL.into_iter().find(|o| o.name() == name)
    }
}

/// One device command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    pub submit: Instant,
    /// When the device started on it (after blocking erases); equal to `submit` if rejected.
    pub start: Instant,
    /// Completion (or `submit` if the device rejected it).
    pub done: Instant,
    pub op: TraceOp,
    pub nsid: u32,
    /// The zone of `lba` on a zoned device.
    pub zone: Option<u32>,
    pub lba: u64,
    pub nlb: u64,
    pub dies: DieSet,
    pub erase_wait: Duration,
    /// Who sent it: a job, clone or host task name (shared: a record per command clones it).
    pub source: Arc<str>,
    /// None: success.
    pub status: Option<Status>,
}

impl TraceRecord {
    /// The record of command (`op`, `nsid`, `slba`, `nlb`) submitted at `now` by `source`, as
    /// the device answered it: every front end writes its records through here, so a command
    /// traces the same whichever one sent it. `zone_size_lbas` is the device's (zoned devices);
    /// a completion the device reports later is filled in by the caller (`done` is `now` until
    /// then).
    #[allow(clippy::too_many_arguments)]
    pub fn of_command(
        now: Instant,
        (op, nsid, slba, nlb): (Op, u32, u64, u64),
        zone_size_lbas: Option<u64>,
        dies: DieSet,
        source: Arc<str>,
        result: &Result<crate::device::Accepted, Status>,
    ) -> TraceRecord {
        let zone = zone_size_lbas
            .map(|z| (slba / z) as u32)
            .filter(|_| !matches!(op, Op::ZoneMgmtAll(_) | Op::Flush));
        let (start, done, erase_wait, status) = match result {
            Ok(a) => (a.start, a.done.unwrap_or(now), a.erase_wait, None),
            Err(s) => (now, now, Duration::ZERO, Some(*s)),
        };
        TraceRecord {
            submit: now,
            start,
            done,
            op: TraceOp::of(op),
            nsid,
            zone,
            lba: slba,
            nlb,
            dies,
            erase_wait,
            source,
            status,
        }
    }
}

/// Where trace records go.
pub trait TraceSink {
    fn record(&mut self, r: &TraceRecord);
    /// The run is over: flush, and say if anything could not be written.
    fn finish(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The CSV header of ZoneLab's trace.
pub const CSV_HEADER: &str =
    "submit_ns,start_ns,done_ns,op,nsid,zone,lba,nlb,dies,channels,erase_wait_ns,source,status";

/// One record as a CSV line (no newline). Dies and channels are ranges such as "0-3;8"; a
/// die's channel is the die number modulo `channels`. Written straight into `out`, numbers
/// with `itoa`: through `write!` and a string per field, a traced run spent longer writing its
/// trace than simulating (BENCHMARKS.md, "What the hot path does").
pub fn csv_line(r: &TraceRecord, channels: u32, out: &mut String) {
    let mut ch = DieSet::default();
    for d in r.dies.iter() {
        ch.insert(d % channels.max(1));
    }
    let mut digits = itoa::Buffer::new();
    for ns in [r.submit.ns(), r.start.ns(), r.done.ns()] {
        out.push_str(digits.format(ns));
        out.push(',');
    }
    out.push_str(r.op.name());
    out.push(',');
    out.push_str(digits.format(r.nsid));
    out.push(',');
    if let Some(zone) = r.zone {
        out.push_str(digits.format(zone));
    }
    out.push(',');
    out.push_str(digits.format(r.lba));
    out.push(',');
    out.push_str(digits.format(r.nlb));
    out.push(',');
    r.dies.write_ranges(out);
    out.push(',');
    ch.write_ranges(out);
    out.push(',');
    out.push_str(digits.format(r.erase_wait.ns()));
    out.push(',');
    push_sanitized(&r.source, out);
    out.push(',');
    if let Some(status) = r.status {
        let (sct, sc) = status.code();
        let _ = write!(out, "{sct:X}h/{sc:02X}h");
    }
}

/// Source names go into CSV unquoted: commas, quotes and line breaks become '_'.
pub fn sanitize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    push_sanitized(name, &mut out);
    out
}

fn push_sanitized(name: &str, out: &mut String) {
    let bad = |c: char| c == ',' || c == '"' || c.is_control();
    if !name.contains(bad) {
        out.push_str(name);
        return;
    }
    out.extend(name.chars().map(|c| if bad(c) { '_' } else { c }));
}

/// A sink that keeps CSV text in memory (tests, small runs).
#[derive(Default)]
pub struct CsvBuffer {
    pub channels: u32,
    pub text: String,
}

impl TraceSink for CsvBuffer {
    fn record(&mut self, r: &TraceRecord) {
        if self.text.is_empty() {
            self.text.push_str(CSV_HEADER);
            self.text.push('\n');
        }
        csv_line(r, self.channels, &mut self.text);
        self.text.push('\n');
    }
}

/// A sink that streams CSV to a writer (a front end's `trace.csv`); the first write error is
/// kept and reported by `finish`, and nothing more is written after it.
pub struct CsvWriter<W: std::io::Write> {
    out: W,
    channels: u32,
    line: String,
    header: bool,
    error: Option<std::io::Error>,
}

impl<W: std::io::Write> CsvWriter<W> {
    /// `channels`: the device's, to list the channels each command used.
    pub fn new(out: W, channels: u32) -> Self {
        CsvWriter {
            out,
            channels,
            line: String::new(),
            header: false,
            error: None,
        }
    }

    fn write_line(&mut self) {
        if self.error.is_none()
            && let Err(e) = self.out.write_all(self.line.as_bytes())
        {
            self.error = Some(e);
        }
    }

    /// Writes the header now (a trace with no record still has one).
    pub fn header(&mut self) {
        if !self.header {
            self.header = true;
            self.line.clear();
            self.line.push_str(CSV_HEADER);
            self.line.push('\n');
            self.write_line();
        }
    }
}

impl<W: std::io::Write> TraceSink for CsvWriter<W> {
    fn record(&mut self, r: &TraceRecord) {
        self.header();
        self.line.clear();
        csv_line(r, self.channels, &mut self.line);
        self.line.push('\n');
        self.write_line();
    }

    fn finish(&mut self) -> std::io::Result<()> {
        self.header();
        match self.error.take() {
            Some(e) => Err(e),
            None => self.out.flush(),
        }
    }
}

#[cfg(test)]
mod tests;
