//! `zonelab trace-stats`: what a host did to a zoned device, from its command trace (a real file
//! system's, captured on `zonelab ublk`, or a run's `trace.csv`): resets and how full the reset
//! zones were, zones opened and filled, write sizes, flushes, reads.

use std::io::BufRead;
use std::path::Path;

use anyhow::{Context, Result};
use zonelab::trace::read::{TraceFormat, TraceReader};
use zonelab::trace::stats::{self, FILL_BUCKETS, Phase, TraceStats, WRITE_BUCKETS, ZoneLayout};

/// The statistics of the ZoneLab CSV trace at `trace` (gzipped if it ends in `.gz`) on the
/// device of `exp`.
pub fn of(trace: &Path, exp: &zonelab::Experiment, phase: Phase) -> Result<TraceStats> {
    let text = zonelab_io::open_trace(trace)
        .with_context(|| format!("cannot open {}", trace.display()))?;
    of_text(text, exp, phase).with_context(|| format!("{}", trace.display()))
}

/// The statistics of a ZoneLab CSV trace read from `text` on the device of `exp`.
pub fn of_text(
    text: Box<dyn BufRead>,
    exp: &zonelab::Experiment,
    phase: Phase,
) -> Result<TraceStats> {
    let info = exp.info();
    let layout = ZoneLayout::of(&info).with_context(|| {
        format!(
            "device `{}` is not zoned: trace-stats reads zone resets",
            exp.device.name()
        )
    })?;
    let reader = TraceReader::new(text, Some(TraceFormat::ZoneLab), layout.lba_bytes)?;
    Ok(stats::collect(reader, layout, phase)?)
}

/// The table `zonelab trace-stats` prints.
pub fn table(s: &TraceStats) -> String {
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    let mut rows = vec![
        ("commands".to_string(), s.commands.to_string()),
        (
            "device time".into(),
            format!("{:.3} s", s.span_ns as f64 / 1e9),
        ),
        (
            "writes".into(),
            format!(
                "{} ({:.1} MiB, mean {:.1} KiB)",
                s.writes,
                mib(s.write_bytes),
                s.mean_write_bytes() / 1024.0
            ),
        ),
    ];
    for (name, n) in WRITE_BUCKETS.iter().zip(s.write_sizes) {
        rows.push((format!("  writes of {name}"), n.to_string()));
    }
    rows.push((
        "reads".into(),
        format!(
            "{} ({:.1} MiB, {:.3} per byte written)",
            s.reads,
            mib(s.read_bytes),
            s.read_per_write()
        ),
    ));
    rows.push((
        "flushes".into(),
        format!(
            "{} ({:.1} KiB written per flush)",
            s.flushes,
            s.bytes_per_flush() / 1024.0
        ),
    ));
    rows.push(("zones opened".into(), s.zones_opened.to_string()));
    rows.push((
        "zones written to capacity".into(),
        s.zones_filled.to_string(),
    ));
    rows.push(("finish commands".into(), s.finishes.to_string()));
    rows.push((
        "zone resets".into(),
        format!(
            "{} ({:.2} per GiB written; {:.0}% of written zones reset before full)",
            s.resets,
            s.resets_per_gib(),
            100.0 * s.partial_reset_share()
        ),
    ));
    for (name, n) in FILL_BUCKETS.iter().zip(s.reset_fill) {
        rows.push((format!("  resets of zones {name}"), n.to_string()));
    }
    let w = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    rows.iter()
        .map(|(k, v)| format!("{k:<w$}  {v}\n"))
        .collect()
}
