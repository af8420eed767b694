//! The reproduction's figures: Figure 3's relative times, Figure 4's isolation bars, Figures 5
//! and 6's bandwidth over time (and the block SSD's GC meanwhile), Figure 7's aged zones.

use std::path::Path;

use anyhow::Result;

use super::super::plot::{Scale, bar_chart, line_chart};
use super::{AGED_ZONES, Dev, ISOLATION_KIB, Measured, Rw, SIZES_KIB, TABLE_II, UTILISATIONS, ftl};

/// Draws every figure into `figures`, in the order the reproduction always drew them.
pub(super) fn draw(figures: &Path, m: &Measured) -> Result<()> {
    fig3(figures, &m.secs)?;
    fig4(figures, &m.iops)?;
    fig5_6(figures, &m.bw)?;
    fig5_gc(figures, m)?;
    fig7(figures, &m.zone_mib_s)
}

/// Figure 3: ZoneLab's and the paper's time per GiB relative to 4 KiB, for writes and reads.
fn fig3(figures: &Path, secs: &super::Secs) -> Result<()> {
    for (r, rw) in Rw::BOTH.iter().enumerate() {
        let paper_rows = [(0, r * 2), (1, r * 2 + 1)];
        let mut series = Vec::new();
        for (d, dev) in Dev::BOTH.iter().enumerate() {
            let base = secs[d][r][0];
            series.push((
                format!("{} (ZoneLab)", dev.label()),
                SIZES_KIB
                    .iter()
                    .zip(secs[d][r])
                    .map(|(&k, s)| (k as f64, s / base))
                    .collect(),
            ));
        }
        for (d, row) in paper_rows {
            let paper = TABLE_II[row];
            series.push((
                format!("{} (paper)", Dev::BOTH[d].label()),
                SIZES_KIB
                    .iter()
                    .zip(paper)
                    .map(|(&k, s)| (k as f64, s / paper[0]))
                    .collect(),
            ));
        }
        line_chart(
            &figures.join(format!("fig3-{}.svg", rw.key())),
            &format!("{} latency relative to 4 KiB (cf. Figure 3)", rw.key()),
            ("request size (KiB)", Scale::Log2),
            "time for 1 GiB / time at 4 KiB",
            &series,
        )?;
    }
    Ok(())
}

/// Figure 4: a thread's IOPS beside others as % of alone, at 4 and 128 KiB.
fn fig4(figures: &Path, iops: &super::Iops) -> Result<()> {
    let groups: Vec<String> = ["alone", "1 other", "2 others"].map(String::from).to_vec();
    for (k, kib) in ISOLATION_KIB.iter().enumerate() {
        let mut bars = Vec::new();
        for (d, dev) in Dev::BOTH.iter().enumerate() {
            for (r, rw) in Rw::BOTH.iter().enumerate() {
                let alone = iops[k][d][r][0];
                bars.push((
                    format!("{} {}", dev.label(), rw.key()),
                    iops[k][d][r].iter().map(|v| v / alone * 100.0).collect(),
                ));
            }
        }
        bar_chart(
            &figures.join(format!("fig4-isolation-{kib}k.svg")),
            &format!("Worker IOPS beside other threads, {kib} KiB (cf. Figure 4)"),
            "% of the worker alone",
            &groups,
            &bars,
        )?;
    }
    Ok(())
}

/// Figures 5 and 6: write bandwidth over time from 60% and 90%, one chart per device.
fn fig5_6(figures: &Path, bw: &[Vec<(f64, f64)>]) -> Result<()> {
    for (d, dev) in Dev::BOTH.iter().enumerate() {
        let series: Vec<(String, Vec<(f64, f64)>)> = UTILISATIONS
            .iter()
            .enumerate()
            .map(|(u, util)| (format!("from {:.0}%", util * 100.0), bw[d * 2 + u].clone()))
            .collect();
        let (fig, what) = match dev {
            Dev::Conv => ("fig5-conventional.svg", "Figure 5: block SSD"),
            Dev::Zns => ("fig6-zns.svg", "Figure 6: ZNS SSD"),
        };
        line_chart(
            &figures.join(fig),
            &format!("Writing 10 GiB ({what})"),
            ("time (s)", Scale::Linear),
            "write MiB/s (0.5 s intervals)",
            &series,
        )?;
    }
    Ok(())
}

/// Figure 5's companion: what the block SSD's GC copied in each interval.
fn fig5_gc(figures: &Path, m: &Measured) -> Result<()> {
    let predictability = &m.predictability;
    let gc_series: Vec<(String, Vec<(f64, f64)>)> = UTILISATIONS
        .iter()
        .enumerate()
        .filter_map(|(u, util)| {
            let f = ftl(&predictability[2 + u].summary)?;
            let start = predictability[2 + u].summary.start_ns as f64 / 1e9;
            let secs = f.series_interval_ns as f64 / 1e9;
            Some((
                format!("GC copies, from {:.0}%", util * 100.0),
                f.samples
                    .iter()
                    .map(|s| {
                        (
                            s.t.secs_f64() - start,
                            s.gc_copied_bytes as f64 / (1u64 << 20) as f64 / secs,
                        )
                    })
                    .collect(),
            ))
        })
        .collect();
    line_chart(
        &figures.join("fig5-conventional-gc.svg"),
        "What the block SSD's GC copied meanwhile (Figure 5)",
        ("time (s)", Scale::Linear),
        "GC copy MiB/s",
        &gc_series,
    )?;
    Ok(())
}

/// Figure 7: read throughput of each zone of the aged device.
fn fig7(figures: &Path, zone_mib_s: &[f64]) -> Result<()> {
    bar_chart(
        &figures.join("fig7-aged-zones.svg"),
        "Reading 1 GiB from each zone of an aged device (cf. Figure 7)",
        "MiB/s",
        &(0..AGED_ZONES).map(|z| format!("{z}")).collect::<Vec<_>>(),
        &[("aged".to_string(), zone_mib_s.to_vec())],
    )
}
