//! The commands the device rejected during a run, as the kernel and the driver log them: the
//! first few in full, all of them counted.

use serde::Serialize;

use crate::device::{Op, Status};
use crate::trace::TraceOp;

/// A command the device rejected during the run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ErrorReport {
    /// The job, clone or task that sent it.
    pub source: String,
    pub command: &'static str,
    pub lba: u64,
    pub status: String,
    /// The trace line of a replayed command.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace_line: Option<u64>,
}

impl ErrorReport {
    pub fn new(source: &str, op: Op, lba: u64, status: Status) -> Self {
        ErrorReport {
            source: source.into(),
            command: TraceOp::of(op).name(),
            lba,
            status: status.to_string(),
            trace_line: None,
        }
    }
}

/// Commands the device rejected: the first [`ErrorLog::KEPT`] in full and the count of all of
/// them, so a host that fails commands in a loop cannot grow memory with the run.
#[derive(Clone, Debug, Default)]
pub struct ErrorLog {
    kept: Vec<ErrorReport>,
    total: u64,
    /// Rejections a host layer took in and went on from (`[fs] on_zone_error = "relocate"`).
    ridden_through: u64,
}

impl ErrorLog {
    /// Reports kept in full (chosen: enough to see every distinct failure of a run).
    pub const KEPT: usize = 1000;

    /// Counts a rejected command; unless the log is full, makes its report with `report` and
    /// returns it, kept (a full log builds no report: no strings per failed command).
    pub fn push(&mut self, report: impl FnOnce() -> ErrorReport) -> Option<&mut ErrorReport> {
        self.total += 1;
        if self.kept.len() >= Self::KEPT {
            return None;
        }
        self.kept.push(report());
        self.kept.last_mut()
    }

    /// The report of the command rejected last, if it was kept.
    pub fn latest_mut(&mut self) -> Option<&mut ErrorReport> {
        if self.kept.len() as u64 == self.total {
            self.kept.last_mut()
        } else {
            None
        }
    }

    /// Every rejected command, kept or not.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// A host layer took in one rejected command and went on.
    pub fn ride_through(&mut self) {
        self.ridden_through += 1;
        debug_assert!(
            self.ridden_through <= self.total,
            "more ridden through than rejected"
        );
    }

    /// Rejected commands a host layer took in and went on from.
    pub fn ridden_through(&self) -> u64 {
        self.ridden_through
    }

    pub fn kept(&self) -> &[ErrorReport] {
        &self.kept
    }

    /// The reports kept, for the summary.
    pub fn into_kept(self) -> Vec<ErrorReport> {
        self.kept
    }
}
