//! What a host did to a zoned device, read from its command trace: how often it reset zones and
//! how full they were when it did, how many zones it opened and finished, the sizes of its
//! writes, how often it flushed, and how much it read back. The same statistics of a real file
//! system's trace (captured on `zonelab ublk`) and of a host layer's (a run with `[trace]`) put
//! the two side by side (ReZNS, section 4: whether resets come before zones are full decides
//! what renewable zones can gain).

use std::cell::RefCell;
use std::rc::Rc;

use super::read::{ReplayRecord, TraceError};
use super::{TraceOp, TraceRecord, TraceSink};

/// How full a zone was (its write pointer over its capacity) when the host reset it.
pub const FILL_BUCKETS: [&str; 6] = ["empty", "1-25%", "26-50%", "51-75%", "76-99%", "full"];

/// Write sizes: at most 4 KiB, 16 KiB, 64 KiB, 256 KiB, 1 MiB, and more.
pub const WRITE_BUCKETS: [&str; 6] = ["4K", "8-16K", "20-64K", "68-256K", "260K-1M", ">1M"];

/// The statistics of one trace.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct TraceStats {
    pub commands: u64,
    /// From the first command's submission to the last one's, device time.
    pub span_ns: u64,
    pub writes: u64,
    pub write_bytes: u64,
    /// Writes by size ([`WRITE_BUCKETS`]).
    pub write_sizes: [u64; 6],
    pub reads: u64,
    /// What the host read back: on a log-structured file system whose data the page cache holds,
    /// mostly the live blocks its cleaner moves.
    pub read_bytes: u64,
    pub flushes: u64,
    /// Zone resets (one per zone; a reset-all counts each zone it empties).
    pub resets: u64,
    /// Resets by how full the zone was ([`FILL_BUCKETS`]).
    pub reset_fill: [u64; 6],
    /// Zones that went from empty to written (implicitly or explicitly opened).
    pub zones_opened: u64,
    /// Explicit finish commands.
    pub finishes: u64,
    /// Zones written to their capacity.
    pub zones_filled: u64,
}

impl TraceStats {
    /// Resets per GiB the host wrote.
    pub fn resets_per_gib(&self) -> f64 {
        per_gib(self.resets, self.write_bytes)
    }

    /// Resets of zones that still had room (neither empty nor full), as a share of the resets of
    /// written zones.
    pub fn partial_reset_share(&self) -> f64 {
        let written = self.resets - self.reset_fill[0];
        let partial: u64 = self.reset_fill[1..5].iter().sum();
        ratio(partial, written)
    }

    /// Mean bytes per write.
    pub fn mean_write_bytes(&self) -> f64 {
        ratio(self.write_bytes, self.writes)
    }

    /// Bytes written between two flushes (all of them if there is none).
    pub fn bytes_per_flush(&self) -> f64 {
        ratio(self.write_bytes, self.flushes.max(1))
    }

    /// Bytes read back per byte written.
    pub fn read_per_write(&self) -> f64 {
        ratio(self.read_bytes, self.write_bytes)
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

fn per_gib(n: u64, bytes: u64) -> f64 {
    ratio(n, bytes) * (1u64 << 30) as f64
}

/// The zone layout the statistics need, in LBAs.
#[derive(Clone, Copy, Debug)]
pub struct ZoneLayout {
    pub zone_lbas: u64,
    pub capacity_lbas: u64,
    pub zone_count: u32,
    pub lba_bytes: u64,
}

impl ZoneLayout {
    /// The layout of a device's zones; None for a conventional device.
    pub fn of(info: &crate::device::DeviceInfo) -> Option<ZoneLayout> {
        let zoned = info.zoned()?;
        Some(ZoneLayout {
            zone_lbas: zoned.zone_size_lbas,
            capacity_lbas: zoned.zone_capacity_lbas,
            zone_count: zoned.zone_count,
            lba_bytes: info.lba_size_bytes,
        })
    }
}

/// The marker's length: one read of this many bytes ending at an empty zone's end.
pub const MARKER_BYTES: u64 = 12 * 1024;

/// Which commands of a trace count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    All,
    /// Those after the marker a capture puts between its set-up (mkfs, prefill) and its
    /// workload ([`MARKER_BYTES`] read at the end of an empty zone, which a file system, reading
    /// only blocks it wrote, never sends). The set-up's writes still move the write pointers.
    AfterMarker,
}

/// Reads a whole trace (the reader's records, which skip commands the device rejected) and
/// returns the statistics of `phase`. The device starts empty.
pub fn collect(
    records: impl Iterator<Item = Result<ReplayRecord, TraceError>>,
    layout: ZoneLayout,
    phase: Phase,
) -> Result<TraceStats, TraceError> {
    let mut b = Collector::new(layout, phase);
    for r in records {
        b.push(&r?)?;
    }
    b.finish()
}

/// The statistics of a trace, one command at a time (a run's own trace sink feeds it as the run
/// goes; [`collect`] reads a file).
#[derive(Clone, Debug)]
pub struct Collector {
    layout: ZoneLayout,
    wp: Vec<u64>,
    counting: bool,
    first_ns: Option<u64>,
    last_ns: u64,
    s: TraceStats,
}

impl Collector {
    pub fn new(layout: ZoneLayout, phase: Phase) -> Self {
        Collector {
            layout,
            wp: vec![0; layout.zone_count as usize],
            counting: phase == Phase::All,
            first_ns: None,
            last_ns: 0,
            s: TraceStats::default(),
        }
    }

    /// One command the device accepted (`r.at`: its submission, from any fixed origin).
    pub fn push(&mut self, r: &ReplayRecord) -> Result<(), TraceError> {
        if !self.counting {
            // The set-up: only the write pointers move.
            self.counting = is_marker(r, &self.wp, self.layout);
            if !self.counting {
                track(&mut TraceStats::default(), &mut self.wp, r, self.layout)?;
            }
            return Ok(());
        }
        self.s.commands += 1;
        let at = r.at.map_or(0, |t| t.ns());
        self.first_ns.get_or_insert(at);
        self.last_ns = self.last_ns.max(at);
        track(&mut self.s, &mut self.wp, r, self.layout)
    }

    /// The statistics; an error if the phase after a marker was asked for and none came.
    pub fn finish(mut self) -> Result<TraceStats, TraceError> {
        if !self.counting {
            return Err(TraceError {
                line: 0,
                message: format!(
                    "no marker (a {MARKER_BYTES}-byte read at the end of an empty zone) between \
                     the set-up and the workload"
                ),
            });
        }
        self.s.span_ns = self.last_ns - self.first_ns.unwrap_or(0);
        Ok(self.s)
    }
}

/// A run's trace sink that feeds a [`Collector`]; the handle [`CollectorSink::new`] returns
/// gives the statistics once the run is over.
pub struct CollectorSink {
    shared: Rc<RefCell<Result<Collector, TraceError>>>,
    line: u64,
}

/// The statistics a [`CollectorSink`] gathered.
pub struct CollectorHandle(Rc<RefCell<Result<Collector, TraceError>>>);

impl CollectorSink {
    pub fn new(c: Collector) -> (CollectorSink, CollectorHandle) {
        let shared = Rc::new(RefCell::new(Ok(c)));
        let sink = CollectorSink {
            shared: shared.clone(),
            line: 0,
        };
        (sink, CollectorHandle(shared))
    }
}

impl TraceSink for CollectorSink {
    fn record(&mut self, r: &TraceRecord) {
        self.line += 1;
        if r.status.is_some() {
            return;
        }
        let mut shared = self.shared.borrow_mut();
        let Ok(c) = shared.as_mut() else { return };
        let pushed = c.push(&ReplayRecord {
            line: self.line,
            at: Some(crate::time::Duration::from_ns(r.submit.ns())),
            op: r.op,
            nsid: r.nsid,
            slba: r.lba,
            nlb: r.nlb,
        });
        if let Err(e) = pushed {
            *shared = Err(e);
        }
    }
}

impl CollectorHandle {
    /// The statistics (the run must be over: its sink dropped or done).
    pub fn finish(self) -> Result<TraceStats, TraceError> {
        let c = std::mem::replace(
            &mut *self.0.borrow_mut(),
            Err(TraceError {
                line: 0,
                message: "statistics taken twice".into(),
            }),
        );
        c?.finish()
    }
}

fn is_marker(r: &ReplayRecord, wp: &[u64], layout: ZoneLayout) -> bool {
    let zone = (r.slba / layout.zone_lbas) as usize;
    r.op == TraceOp::Read
        && r.nlb * layout.lba_bytes == MARKER_BYTES
        && (r.slba % layout.zone_lbas) + r.nlb == layout.zone_lbas
        && wp.get(zone) == Some(&0)
}

/// One command: counted into `s`, write pointers moved.
fn track(
    s: &mut TraceStats,
    wp: &mut [u64],
    r: &ReplayRecord,
    layout: ZoneLayout,
) -> Result<(), TraceError> {
    let zones = wp.len();
    let zone = (r.slba / layout.zone_lbas) as usize;
    let bad = |what: &str| TraceError {
        line: r.line,
        message: format!("{what} at LBA {} is outside the {zones} zones", r.slba),
    };
    let bytes = r.nlb * layout.lba_bytes;
    match r.op {
        TraceOp::Write | TraceOp::Append => {
            let w = wp.get_mut(zone).ok_or_else(|| bad("a write"))?;
            if *w == 0 {
                s.zones_opened += 1;
            }
            let before = *w;
            *w = (r.slba % layout.zone_lbas + r.nlb).max(*w);
            if before < layout.capacity_lbas && *w >= layout.capacity_lbas {
                s.zones_filled += 1;
            }
            s.writes += 1;
            s.write_bytes += bytes;
            s.write_sizes[write_bucket(bytes)] += 1;
        }
        TraceOp::Read => {
            s.reads += 1;
            s.read_bytes += bytes;
        }
        TraceOp::Flush => s.flushes += 1,
        TraceOp::Finish => {
            let w = wp.get_mut(zone).ok_or_else(|| bad("a finish"))?;
            s.finishes += 1;
            *w = layout.capacity_lbas;
        }
        TraceOp::Reset => {
            let w = wp.get_mut(zone).ok_or_else(|| bad("a reset"))?;
            reset(s, w, layout.capacity_lbas);
        }
        TraceOp::ResetAll => {
            for w in wp.iter_mut().filter(|w| **w > 0) {
                reset(s, w, layout.capacity_lbas);
            }
        }
        TraceOp::FinishAll => {
            for w in wp.iter_mut().filter(|w| **w > 0) {
                s.finishes += 1;
                *w = layout.capacity_lbas;
            }
        }
        _ => {}
    }
    Ok(())
}

fn reset(s: &mut TraceStats, wp: &mut u64, capacity_lbas: u64) {
    s.resets += 1;
    s.reset_fill[fill_bucket(*wp, capacity_lbas)] += 1;
    *wp = 0;
}

fn fill_bucket(wp: u64, capacity: u64) -> usize {
    if wp == 0 {
        0
    } else if wp >= capacity {
        5
    } else {
        // 1-25% -> 1, ..., 76-99% -> 4.
        (1 + (wp * 4 - 1) / capacity) as usize
    }
}

fn write_bucket(bytes: u64) -> usize {
    const KIB: u64 = 1024;
    match bytes {
        0..=4096 => 0,
        b if b <= 16 * KIB => 1,
        b if b <= 64 * KIB => 2,
        b if b <= 256 * KIB => 3,
        b if b <= 1024 * KIB => 4,
        _ => 5,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::read::TraceReader;

    const LAYOUT: ZoneLayout = ZoneLayout {
        zone_lbas: 100,
        capacity_lbas: 80,
        zone_count: 3,
        lba_bytes: 4096,
    };

    fn stats(lines: &[&str]) -> Result<TraceStats, TraceError> {
        stats_of(lines, Phase::All)
    }

    fn stats_of(lines: &[&str], phase: Phase) -> Result<TraceStats, TraceError> {
        let mut text = String::from(crate::trace::CSV_HEADER);
        text.push('\n');
        for (i, l) in lines.iter().enumerate() {
            let (op, lba, nlb) = {
                let f: Vec<&str> = l.split(' ').collect();
                (f[0], f[1], f[2])
            };
            text.push_str(&format!("{i}000,0,0,{op},0,0,{lba},{nlb},,,0,t,\n"));
        }
        let reader = TraceReader::new(Box::new(std::io::Cursor::new(text)), None, 4096).unwrap();
        collect(reader, LAYOUT, phase)
    }

    #[test]
    fn resets_are_binned_by_how_full_the_zone_was() {
        let s = stats(&[
            "write 0 20",    // zone 0: 25% of 80
            "reset 0 0",     // -> 1-25%
            "write 100 80",  // zone 1 full
            "reset 100 0",   // -> full
            "write 200 60",  // zone 2: 75%
            "reset 200 0",   // -> 51-75%
            "reset 200 0",   // empty
            "write 0 4",     // zone 0 again
            "finish 0 0",    // finished: full
            "reset 0 0",     // -> full
            "write 0 1",     // zone 0: 1 of 80
            "reset_all 0 0", // -> 1-25%
            "flush 0 0",
            "read 100 8",
        ])
        .unwrap();
        assert_eq!(s.resets, 6);
        assert_eq!(s.reset_fill, [1, 2, 0, 1, 0, 2]);
        assert_eq!(s.zones_opened, 5);
        assert_eq!(s.zones_filled, 1);
        assert_eq!(s.finishes, 1);
        assert_eq!(s.writes, 5);
        assert_eq!(s.write_bytes, 165 * 4096);
        assert_eq!(s.write_sizes, [1, 1, 0, 2, 1, 0]);
        assert_eq!(s.flushes, 1);
        assert_eq!(s.read_bytes, 8 * 4096);
        assert_eq!(s.span_ns, 13000);
        assert!((s.partial_reset_share() - 3.0 / 5.0).abs() < 1e-12);
    }

    #[test]
    fn after_the_marker_only_the_workload_counts_but_the_set_up_fills_zones() {
        let lines = [
            "write 0 40",  // set-up: zone 0 half full
            "reset 100 0", // set-up
            "read 97 3",   // 12 KiB at the end of zone 0: not empty, not the marker
            "read 296 3",  // 12 KiB but not at the end of zone 2
            "read 297 3",  // the marker
            "write 40 20", // zone 0 at 60 of 80: not newly opened
            "reset 0 0",   // -> 51-75%
        ];
        let s = stats_of(&lines, Phase::AfterMarker).unwrap();
        assert_eq!((s.commands, s.writes, s.resets), (2, 1, 1));
        assert_eq!(s.reset_fill, [0, 0, 0, 1, 0, 0]);
        assert_eq!(s.zones_opened, 0);
        assert_eq!(stats_of(&lines, Phase::All).unwrap().resets, 2);
        let e = stats_of(&lines[..4], Phase::AfterMarker).unwrap_err();
        assert!(e.message.contains("no marker"), "{e}");
    }

    #[test]
    fn a_command_outside_the_zones_is_an_error_naming_its_line() {
        let e = stats(&["write 0 1", "write 300 1"]).unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("outside the 3 zones"), "{e}");
    }

    #[test]
    fn buckets_edges() {
        assert_eq!(fill_bucket(1, 80), 1);
        assert_eq!(fill_bucket(20, 80), 1);
        assert_eq!(fill_bucket(21, 80), 2);
        assert_eq!(fill_bucket(79, 80), 4);
        assert_eq!(write_bucket(4096), 0);
        assert_eq!(write_bucket(8192), 1);
        assert_eq!(write_bucket(1 << 20), 4);
        assert_eq!(write_bucket((1 << 20) + 4096), 5);
    }
}
