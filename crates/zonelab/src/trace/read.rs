//! Reading traces to replay: ZoneLab's own CSV trace, fio's iolog (versions 2 and 3), and the
//! MSR Cambridge block traces common in SSD research. The front end hands over the text; each
//! line becomes a [`ReplayRecord`] or an error naming the line.

use std::io::BufRead;

use super::{CSV_HEADER, TraceOp};
use crate::time::Duration;

/// A trace's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    /// ZoneLab's CSV trace ([`super::CSV_HEADER`]).
    ZoneLab,
    /// fio's `write_iolog` output, version 2 or 3.
    Iolog,
    /// MSR Cambridge: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`, timestamps in
    /// Windows filetime (100 ns) units, offsets and sizes in bytes.
    Msr,
}

impl TraceFormat {
    /// The format a trace's first line announces.
    pub fn detect(first_line: &str) -> Option<TraceFormat> {
        let l = first_line.trim();
        if l == CSV_HEADER {
            Some(TraceFormat::ZoneLab)
        } else if l.starts_with("fio version 2 iolog") || l.starts_with("fio version 3 iolog") {
            Some(TraceFormat::Iolog)
        } else {
            let fields: Vec<&str> = l.split(',').collect();
            let msr = fields.len() == 7
                && fields[0].trim().parse::<u64>().is_ok()
                && ["read", "write"].contains(&fields[3].trim().to_ascii_lowercase().as_str());
            msr.then_some(TraceFormat::Msr)
        }
    }
}

/// One command to replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplayRecord {
    /// Line number in the trace (from 1).
    pub line: u64,
    /// When to issue it, from the start of the trace; None if the trace gives no time.
    pub at: Option<Duration>,
    pub op: TraceOp,
    pub nsid: u32,
    pub slba: u64,
    pub nlb: u64,
}

/// A trace line that cannot be replayed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("trace line {line}: {message}")]
pub struct TraceError {
    pub line: u64,
    pub message: String,
}

/// Reads records from a trace, one line at a time.
pub struct TraceReader {
    lines: Box<dyn BufRead>,
    format: TraceFormat,
    lba_bytes: u64,
    line: u64,
    iolog_version: u8,
    /// First timestamp seen, in the trace's units.
    origin: Option<u64>,
    /// iolog v2: the time the `wait` actions add up to.
    waited: Duration,
    /// A line read while detecting the format that is data, not a header (MSR).
    pending: Option<String>,
}

impl TraceReader {
    /// Reads the first line to tell the format (or checks it against `format`).
    pub fn new(
        mut lines: Box<dyn BufRead>,
        format: Option<TraceFormat>,
        lba_bytes: u64,
    ) -> Result<Self, TraceError> {
        let mut first = String::new();
        lines.read_line(&mut first).map_err(|e| TraceError {
            line: 1,
            message: format!("cannot read the trace: {e}"),
        })?;
        let detected = TraceFormat::detect(&first);
        let format = match (format, detected) {
            (Some(f), Some(d)) if f != d => {
                return Err(TraceError {
                    line: 1,
                    message: format!("the trace looks like {d:?}, not {f:?}"),
                });
            }
            (Some(f), _) | (None, Some(f)) => f,
            (None, None) => {
                return Err(TraceError {
                    line: 1,
                    message: format!(
                        "unknown trace format (first line `{}`): expected ZoneLab's CSV header, \
                         `fio version 2 iolog`, `fio version 3 iolog` or an MSR Cambridge line",
                        first.trim()
                    ),
                });
            }
        };
        let iolog_version = if first.starts_with("fio version 3") {
            3
        } else {
            2
        };
        Ok(TraceReader {
            lines,
            format,
            lba_bytes,
            line: 1,
            iolog_version,
            origin: None,
            waited: Duration::ZERO,
            pending: (format == TraceFormat::Msr).then_some(first),
        })
    }

    pub fn format(&self) -> TraceFormat {
        self.format
    }

    fn err(&self, message: impl Into<String>) -> TraceError {
        TraceError {
            line: self.line,
            message: message.into(),
        }
    }

    fn number(&self, field: &str, what: &str) -> Result<u64, TraceError> {
        field
            .trim()
            .parse()
            .map_err(|_| self.err(format!("{what} `{}` is not a whole number", field.trim())))
    }

    fn since_origin(&mut self, t: u64) -> Result<u64, TraceError> {
        let origin = *self.origin.get_or_insert(t);
        t.checked_sub(origin)
            .ok_or_else(|| self.err(format!("timestamp {t} is before the first one ({origin})")))
    }

    /// Byte offset and length to LBAs, refusing misaligned ones.
    fn lbas(&self, offset: u64, len: u64) -> Result<(u64, u64), TraceError> {
        if !offset.is_multiple_of(self.lba_bytes) || !len.is_multiple_of(self.lba_bytes) {
            return Err(self.err(format!(
                "offset {offset} and length {len} must be multiples of the LBA size {}",
                self.lba_bytes
            )));
        }
        Ok((offset / self.lba_bytes, len / self.lba_bytes))
    }

    fn parse(&mut self, text: &str) -> Result<Option<ReplayRecord>, TraceError> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(None);
        }
        match self.format {
            TraceFormat::ZoneLab => self.parse_zonelab(text),
            TraceFormat::Iolog => self.parse_iolog(text),
            TraceFormat::Msr => self.parse_msr(text).map(Some),
        }
    }

    fn parse_zonelab(&mut self, text: &str) -> Result<Option<ReplayRecord>, TraceError> {
        let f: Vec<&str> = text.split(',').collect();
        if f.len() != 13 {
            return Err(self.err(format!("expected 13 fields, found {}", f.len())));
        }
        if !f[12].trim().is_empty() {
            // The device rejected it when the trace was recorded: not a command to replay.
            return Ok(None);
        }
        let submit = self.number(f[0], "submit_ns")?;
        let op = TraceOp::parse(f[3]).ok_or_else(|| self.err(format!("unknown op `{}`", f[3])))?;
        let nsid = self.number(f[4], "nsid")? as u32;
        let slba = self.number(f[6], "lba")?;
        let nlb = self.number(f[7], "nlb")?;
        let at = Duration::from_ns(self.since_origin(submit)?);
        Ok(Some(ReplayRecord {
            line: self.line,
            at: Some(at),
            op,
            nsid,
            slba,
            nlb,
        }))
    }

    fn parse_iolog(&mut self, text: &str) -> Result<Option<ReplayRecord>, TraceError> {
        let f: Vec<&str> = text.split_whitespace().collect();
        let (stamp, rest) = if self.iolog_version == 3 {
            let (t, rest) = f
                .split_first()
                .ok_or_else(|| self.err("an empty v3 line"))?;
            (Some(self.number(t, "timestamp")?), rest)
        } else {
            (None, &f[..])
        };
        let action = rest.get(1).copied().unwrap_or("");
        let at = match stamp {
            Some(t) => Some(Duration::from_us(self.since_origin(t)?)),
            None => Some(self.waited),
        };
        let io = |op: TraceOp, r: &mut Self| -> Result<Option<ReplayRecord>, TraceError> {
            if rest.len() != 4 {
                return Err(r.err(format!("`{action}` needs an offset and a length")));
            }
            let offset = r.number(rest[2], "offset")?;
            let len = r.number(rest[3], "length")?;
            let (slba, nlb) = r.lbas(offset, len)?;
            Ok(Some(ReplayRecord {
                line: r.line,
                at,
                op,
                nsid: 0,
                slba,
                nlb,
            }))
        };
        match action {
            "add" | "open" | "close" => Ok(None),
            "wait" if self.iolog_version == 2 => {
                let us = self.number(rest.get(2).copied().unwrap_or(""), "wait")?;
                self.waited += Duration::from_us(us);
                Ok(None)
            }
            "read" => io(TraceOp::Read, self),
            "write" => io(TraceOp::Write, self),
            "trim" => io(TraceOp::Trim, self),
            "sync" | "datasync" => Ok(Some(ReplayRecord {
                line: self.line,
                at,
                op: TraceOp::Flush,
                nsid: 0,
                slba: 0,
                nlb: 0,
            })),
            other => Err(self.err(format!("unknown iolog action `{other}`"))),
        }
    }

    fn parse_msr(&mut self, text: &str) -> Result<ReplayRecord, TraceError> {
        let f: Vec<&str> = text.split(',').collect();
        if f.len() != 7 {
            return Err(self.err(format!(
                "expected 7 fields (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime), found {}",
                f.len()
            )));
        }
        let stamp = self.number(f[0], "Timestamp")?;
        let op = match f[3].trim().to_ascii_lowercase().as_str() {
            "read" => TraceOp::Read,
            "write" => TraceOp::Write,
            other => return Err(self.err(format!("unknown Type `{other}`"))),
        };
        let offset = self.number(f[4], "Offset")?;
        let size = self.number(f[5], "Size")?;
        let (slba, nlb) = self.lbas(offset, size)?;
        let ticks = self.since_origin(stamp)?;
        Ok(ReplayRecord {
            line: self.line,
            at: Some(Duration::from_ns(ticks.saturating_mul(100))),
            op,
            nsid: 0,
            slba,
            nlb,
        })
    }
}

impl Iterator for TraceReader {
    type Item = Result<ReplayRecord, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let text = match self.pending.take() {
                Some(t) => t,
                None => {
                    let mut t = String::new();
                    match self.lines.read_line(&mut t) {
                        Ok(0) => return None,
                        Ok(_) => {
                            self.line += 1;
                            t
                        }
                        Err(e) => return Some(Err(self.err(format!("cannot read: {e}")))),
                    }
                }
            };
            match self.parse(&text) {
                Ok(Some(r)) => return Some(Ok(r)),
                Ok(None) => continue,
                Err(e) => return Some(Err(e)),
            }
        }
    }
}
