//! eZNS's scheduler fairness: read-read with read congestion control, write-write with write
//! admission control, read-write with the whole scheduler, off and on.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use zonelab::metrics::{OpKind, Percentile};
use zonelab::report::Summary;

use super::super::claims::{Claim, Stated};
use super::super::plot::bar_chart;
use super::super::{Done, take};
use super::{elastic, tenant_mib_s, tenant_us};

/// "Fairness of the scheduler": read-read, write-write and read-write mixes with the
/// scheduler's controls off and on; returns the first two's claims.
pub(super) fn fairness(done: &mut Done, figures: &Path, s: &mut String) -> Result<Vec<Claim>> {
    let read_off = take(done, "fair-read-off").summary;
    let read_on = take(done, "fair-read-on").summary;
    let write_off = take(done, "fair-write-off").summary;
    let write_on = take(done, "fair-write-on").summary;
    let rw_off = take(done, "fair-rw-off").summary;
    let rw_on = take(done, "fair-rw-on").summary;
    let rw_priority = [
        take(done, "fair-rw-off-priority").summary,
        take(done, "fair-rw-on-priority").summary,
    ];
    fairness_figures(figures, [&read_off, &read_on], [&write_off, &write_on])?;
    read_read_section(s, &read_off, &read_on)?;
    write_write_section(s, &write_off, &write_on)?;
    read_write(&rw_off, &rw_on, &rw_priority, figures, s)?;
    Ok(fairness_claims(
        [&read_off, &read_on],
        [&write_off, &write_on],
    ))
}

/// figures/fairness-read.svg and fairness-write.svg: each mix's MiB/s, control off and on.
fn fairness_figures(
    figures: &Path,
    [read_off, read_on]: [&Summary; 2],
    [write_off, write_on]: [&Summary; 2],
) -> Result<()> {
    let groups = vec!["narrow reader".to_string(), "wide reader".to_string()];
    let reads = |x: &Summary| {
        vec![
            tenant_mib_s(x, "ns0", OpKind::Read),
            tenant_mib_s(x, "ns1", OpKind::Read),
        ]
    };
    bar_chart(
        &figures.join("fairness-read.svg"),
        "Read-read fairness",
        "read MiB/s",
        &groups,
        &[
            ("no congestion control".into(), reads(read_off)),
            ("congestion control".into(), reads(read_on)),
        ],
    )?;
    let writes = |x: &Summary| {
        vec![
            tenant_mib_s(x, "ns0", OpKind::Write),
            tenant_mib_s(x, "ns1", OpKind::Write),
        ]
    };
    bar_chart(
        &figures.join("fairness-write.svg"),
        "Write-write fairness",
        "write MiB/s",
        &["regular writers".to_string(), "busy writer".to_string()],
        &[
            ("no admission control".into(), writes(write_off)),
            ("admission control".into(), writes(write_on)),
        ],
    )?;
    Ok(())
}

/// The section's opening and the read-read table, congestion control off and on.
fn read_read_section(s: &mut String, read_off: &Summary, read_on: &Summary) -> Result<()> {
    *s += "## Fairness of the scheduler (ballooning off)\n\n\
           Read-read (experiments/ezns/fair-read.toml): a narrow reader (width 2, 32 KiB at QD1)\n\
           beside a wide one (width 16, 512 KiB at QD32) on shared dies.\n\n\
           | read congestion control | narrow MiB/s | narrow P99 us | wide MiB/s | wide P99 us | window cuts |\n\
           |---|---:|---:|---:|---:|---:|\n";
    for (label, x) in [("off", read_off), ("on", read_on)] {
        let _ = writeln!(
            s,
            "| {label} | {:.0} | {:.0} | {:.0} | {:.0} | {} |",
            tenant_mib_s(x, "ns0", OpKind::Read),
            tenant_us(x, "ns0", OpKind::Read, Percentile::P99),
            tenant_mib_s(x, "ns1", OpKind::Read),
            tenant_us(x, "ns1", OpKind::Read, Percentile::P99),
            elastic(x)?.read_cc_decreases,
        );
    }
    Ok(())
}

/// The write-write table, admission control off and on, and the paper's view of both mixes.
fn write_write_section(s: &mut String, write_off: &Summary, write_on: &Summary) -> Result<()> {
    *s += "\nWrite-write (experiments/ezns/fair-write.toml): four regular writers (width 2, 128 KiB\n\
           at QD1, 16 MiB/s each) beside one busy writer (width 2, 512 KiB at QD32).\n\n\
           | write admission control | regular MiB/s | regular P99 us | busy MiB/s | busy P99 us | admission delay us/block |\n\
           |---|---:|---:|---:|---:|---:|\n";
    for (label, x) in [("off", write_off), ("on", write_on)] {
        let _ = writeln!(
            s,
            "| {label} | {:.0} | {:.0} | {:.0} | {:.0} | {:.1} |",
            tenant_mib_s(x, "ns0", OpKind::Write),
            tenant_us(x, "ns0", OpKind::Write, Percentile::P99),
            tenant_mib_s(x, "ns1", OpKind::Write),
            tenant_us(x, "ns1", OpKind::Write, Percentile::P99),
            elastic(x)?.admission_delay_ns as f64 / 1e3,
        );
    }
    *s += "\nPaper: without congestion control the wide reader starves the narrow one, with it both\n\
           get similar bandwidth; admission control restores the regular writers' share.\n\
           **Where ZoneLab differs:** the narrow reader runs at QD1, so with its latency restored it\n\
           is bound by one 32 KiB read per round trip and cannot match the wide reader's bandwidth;\n\
           what congestion control gives it back is its latency (P99 above). Without admission\n\
           control the busy writer's queue fills the shared write cache and the regular writers\n\
           wait behind it; with it their tail falls and they get closer to the 64 MiB/s they ask.\n\
           Figures: figures/fairness-read.svg, fairness-write.svg.\n";
    Ok(())
}

/// The narrow reader's and regular writers' MiB/s with the control on against off.
fn fairness_claims(
    [read_off, read_on]: [&Summary; 2],
    [write_off, write_on]: [&Summary; 2],
) -> Vec<Claim> {
    // ns0 is the narrow reader and the regular writers: their MiB/s with the control on.
    [
        (
            "read-read: the narrow reader's MiB/s with congestion control, against without",
            read_off,
            read_on,
            OpKind::Read,
        ),
        (
            "write-write: the regular writers' MiB/s with admission control, against without",
            write_off,
            write_on,
            OpKind::Write,
        ),
    ]
    .map(|(what, off, on, op)| {
        let (off, on) = (tenant_mib_s(off, "ns0", op), tenant_mib_s(on, "ns0", op));
        Claim::direction(what, Stated::Higher, (on / off.max(1e-9) - 1.0) * 100.0)
    })
    .to_vec()
}

/// The read-write mix, scheduler off and on, and both again with the device's read priority.
fn read_write(
    off: &Summary,
    on: &Summary,
    priority: &[Summary; 2],
    figures: &Path,
    s: &mut String,
) -> Result<()> {
    let both = |x: &Summary| {
        vec![
            tenant_mib_s(x, "ns0", OpKind::Read),
            tenant_mib_s(x, "ns1", OpKind::Write),
        ]
    };
    bar_chart(
        &figures.join("fairness-read-write.svg"),
        "Read-write fairness",
        "MiB/s",
        &["narrow reader".to_string(), "busy writer".to_string()],
        &[
            ("no scheduler".into(), both(off)),
            ("scheduler".into(), both(on)),
            ("read priority".into(), both(&priority[0])),
            ("scheduler + read priority".into(), both(&priority[1])),
        ],
    )?;
    *s += "\nRead-write (experiments/ezns/fair-rw.toml): a narrow reader (width 2, 32 KiB at QD1, its\n\
           data on every die) beside a busy writer (width 16, 512 KiB at QD32) that fills the shared\n\
           write cache; the scheduler (read congestion control and write admission control) off and on,\n\
           and both again with the device's read priority on (`device.timing.read_priority`: a die\n\
           serves a read before the programs queued on it, after the one in progress).\n\n\
           | scheduler | read priority | reader MiB/s | reader P50 us | reader P99 us | writer MiB/s | writer P99 us |\n\
           |---|---|---:|---:|---:|---:|---:|\n";
    for (label, x) in [
        ("off | off", off),
        ("on | off", on),
        ("off | on", &priority[0]),
        ("on | on", &priority[1]),
    ] {
        let _ = writeln!(
            s,
            "| {label} | {:.1} | {:.0} | {:.0} | {:.0} | {:.0} |",
            tenant_mib_s(x, "ns0", OpKind::Read),
            tenant_us(x, "ns0", OpKind::Read, Percentile::P50),
            tenant_us(x, "ns0", OpKind::Read, Percentile::P99),
            tenant_mib_s(x, "ns1", OpKind::Write),
            tenant_us(x, "ns1", OpKind::Write, Percentile::P99),
        );
    }
    *s += "\nPaper (ezns.md): the scheduler restores fairness in read-write mixes as in the two\n\
           above (the reference gives no numbers for this mix). **Where ZoneLab differs:** the\n\
           reader's median read is not slowed at all (two 16 KiB page reads); its mean is set by\n\
           the reads that land on one of the writer's 16 dies, which wait behind every program\n\
           booked on that die. A die is served in order and the cache drain is booked on it when a\n\
           write is accepted, so such a read waits for the writer's share of the cache (512 units\n\
           / 16 dies x 1.23 ms = 39 ms; units of 48 KiB, each 1.23 ms of die time) plus the\n\
           units of writes still waiting for a cache slot (up to 32 x 512 KiB / 48 KiB / 16 dies x\n\
           1.23 ms = 26 ms): 65 ms, the P99 without the scheduler. Admission control holds some\n\
           of the writer's queue in the layer, which shortens the second part; congestion control\n\
           cannot help a QD1 reader (its window is never full). With read priority the reader's\n\
           reads wait only for the program in progress on their die, which is what a controller\n\
           that lets reads pass queued programs gives; the writer's completions were fixed when\n\
           its programs were booked, so its rows do not show the die time the reads took from it\n\
           (the run's summary counts the pushed programs: `device_counters.programs_pushed`).\n\
           Figure: figures/fairness-read-write.svg.\n";
    Ok(())
}
