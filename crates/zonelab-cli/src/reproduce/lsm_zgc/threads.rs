//! The multi-thread run (Choi et al., LSM-ZGC, HotStorage 2020, appendix, "Performance comparison using
//! multi-thread & Scalability": worker only 40, with LSM_ZGC 45, with Basic_ZGC 53, "Non-linear
//! Scalability"): the same updates by 1, 2, 4 and 8 worker threads on 8 modelled cores (the
//! slides' Intel Core i7, 8 cores), with no zone GC needed (worker only), with LSM_ZGC and with
//! Basic_ZGC collecting beside the workers, competing with them for the device and the CPU.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use zonelab::host::fs::FsReport;
use zonelab::workload::files::FileWorkloadReport;

use crate::reproduce::claims::Claim;
use crate::reproduce::plot::bar_chart;
use crate::reproduce::{Run, Scale};

/// Worker threads swept (CHOSEN: the slides do not say how many; 8 is the host's core count).
pub const THREADS: [u32; 4] = [1, 2, 4, 8];
/// What the slide lists, in its own units (not stated): worker only, LSM_ZGC, Basic_ZGC.
const PAPER: [f64; 3] = [40.0, 45.0, 53.0];
/// (label, GC policy, layer size): worker only runs on a layer three times as large, where the
/// same updates never need a zone collected; the others on the 32 zones of the other runs.
const CONFIGS: [(&str, &str, &str); 3] = [
    ("worker only", "none", "96GiB"),
    ("LSM_ZGC", "lsm_zgc", "32GiB"),
    ("Basic_ZGC", "basic_zgc", "32GiB"),
];
/// The data set in bytes (CHOSEN: 16 GiB, 0.6 of the 32-zone layer's user capacity, the
/// utilisation of the slides' other 70/30 runs), the same in every configuration.
pub const DATASET_GIB: u64 = 16;

/// The runs, by configuration then thread count (names start with `threads-`).
pub fn runs(text: &str, scale: Scale) -> Vec<Run> {
    let mut runs = Vec::new();
    for (label, policy, size) in CONFIGS {
        for t in THREADS {
            runs.push(
                Run::new(
                    format!("threads-{}-t{t}", label.replace(' ', "-")),
                    text,
                    vec![
                        format!("fs.gc.policy=\"{policy}\""),
                        format!("fs.size=\"{}\"", scale.text(size)),
                        format!("updates.0.dataset=\"{}GiB\"", scale.count(DATASET_GIB)),
                        format!("updates.0.threads={t}"),
                        "host.cores=8".into(),
                    ],
                )
                .scale_count(scale, "updates.0.updates", super::UPDATE_COUNT),
            );
        }
    }
    runs
}

/// One run's file layer and update workload reports.
pub type Measured = (FsReport, FileWorkloadReport);

fn secs(m: &Measured) -> f64 {
    m.1.elapsed_ns as f64 / 1e9
}

/// Draws the figures and returns the section of the summary, from the reports of [`runs`].
pub fn report(figures: &Path, m: &[Measured]) -> Result<String> {
    let scaled = draw(figures, m)?;
    Ok(section(m, &scaled))
}

/// A configuration's run at a thread count (by index into [`CONFIGS`] and [`THREADS`]).
fn at(m: &[Measured], c: usize, t: usize) -> &Measured {
    &m[c * THREADS.len() + t]
}

/// figures/threads-time.svg and threads-beside-paper.svg; returns the 8-thread times scaled
/// so worker only is the slide's 40.
fn draw(figures: &Path, m: &[Measured]) -> Result<Vec<f64>> {
    let groups: Vec<String> = THREADS.iter().map(|t| format!("{t} threads")).collect();
    let series: Vec<(String, Vec<f64>)> = CONFIGS
        .iter()
        .enumerate()
        .map(|(c, (label, ..))| {
            let v = (0..THREADS.len()).map(|t| secs(at(m, c, t))).collect();
            (label.to_string(), v)
        })
        .collect();
    bar_chart(
        &figures.join("threads-time.svg"),
        "Update phase time by worker threads (cf. appendix, multi-thread)",
        "s (simulated)",
        &groups,
        &series,
    )?;
    let last = THREADS.len() - 1;
    let scaled: Vec<f64> = (0..CONFIGS.len())
        .map(|c| secs(at(m, c, last)) / secs(at(m, 0, last)) * PAPER[0])
        .collect();
    bar_chart(
        &figures.join("threads-beside-paper.svg"),
        "8 threads, scaled so worker only = 40, beside the slide",
        "slide units",
        &CONFIGS.iter().map(|c| c.0.to_string()).collect::<Vec<_>>(),
        &[
            ("ZoneLab".into(), scaled.clone()),
            ("slide".into(), PAPER.to_vec()),
        ],
    )?;
    Ok(scaled)
}

/// The summary's multi-thread section: the table by thread count and the comparison with the
/// slide.
fn section(m: &[Measured], scaled: &[f64]) -> String {
    let last = THREADS.len() - 1;
    let mut s = format!(
        "## Multi-thread run (appendix)\n\n\
         The same 70/30 updates (6,000,000 of 4 KiB over a {DATASET_GIB} GiB data set) by 1, 2, 4 and 8 worker\n\
         threads on 8 modelled host cores (the slides' Core i7): worker only (no GC: the layer is\n\
         96 GiB, so the updates never need a zone collected), and LSM_ZGC or Basic_ZGC collecting\n\
         beside the workers on the 32-zone layer (utilisation 0.6). Time is the simulated time of the\n\
         update phase.\n\n\
         | threads | worker only s | LSM_ZGC s | Basic_ZGC s | LSM_ZGC / worker only | Basic_ZGC / worker only | zones collected LSM | Basic |\n\
         |---:|---:|---:|---:|---:|---:|---:|---:|\n"
    );
    for (t, n) in THREADS.iter().enumerate() {
        let (w, l, b) = (at(m, 0, t), at(m, 1, t), at(m, 2, t));
        let _ = writeln!(
            s,
            "| {n} | {:.1} | {:.1} | {:.1} | {:.2}x | {:.2}x | {} | {} |",
            secs(w),
            secs(l),
            secs(b),
            secs(l) / secs(w),
            secs(b) / secs(w),
            l.0.gc.zones_collected,
            b.0.gc.zones_collected,
        );
    }
    let worker_gc: u64 = (0..THREADS.len())
        .map(|t| at(m, 0, t).0.gc.zones_collected)
        .sum();
    let speedup = |c: usize| secs(at(m, c, 0)) / secs(at(m, c, last));
    let _ = write!(
        s,
        "\nWorker-only runs collected {worker_gc} zones. At 8 threads, scaled so worker only is 40 as on\n\
         the slide: LSM_ZGC {:.0}, Basic_ZGC {:.0} (slide: 45 and 53, units not stated; the slide's\n\
         ratios are 1.13x and 1.33x). From 1 to 8 threads the update phase got {:.2}x faster with\n\
         workers only, {:.2}x with LSM_ZGC and {:.2}x with Basic_ZGC (the slide: \"non-linear\n\
         scalability\", no numbers). The order is the slide's (Basic_ZGC costs more than LSM_ZGC);\n\
         the size of the cost is not: here the updates write {:.1}x the free space of the 32-zone\n\
         layer, so the collectors work through most of the run and the workers wait for free zones,\n\
         where the slides' run (its size not given) paid far less. The slides give neither the\n\
         workload, the thread count nor the units of this run: all three are chosen here.\n\n\
         Figures: figures/threads-time.svg, figures/threads-beside-paper.svg. Per-run results:\n\
         runs/threads-<config>-t<threads>/.\n\n",
        scaled[1],
        scaled[2],
        speedup(0),
        speedup(1),
        speedup(2),
        free_ratio(at(m, 1, last)),
    );
    s
}

/// The slide's two ratios (update time with a collector over worker only, 8 threads) beside
/// ZoneLab's.
pub fn claims(m: &[Measured]) -> Vec<Claim> {
    let t8 = |c: usize| secs(&m[c * THREADS.len() + THREADS.len() - 1]);
    [(1, "LSM_ZGC"), (2, "Basic_ZGC")]
        .map(|(c, name)| {
            Claim::ratio(
                format!("multi-thread, 8 threads: update time with {name} / worker only"),
                PAPER[c] / PAPER[0],
                t8(c) / t8(0),
            )
            .cause("experiments/lsm-zgc/README.md, \"Multi-thread cost by update count\"")
        })
        .to_vec()
}

/// Bytes the updates wrote over the free space the layer had after the fill.
fn free_ratio(m: &Measured) -> f64 {
    let free = m.0.capacity_bytes.saturating_sub(DATASET_GIB << 30).max(1);
    m.1.write_bytes as f64 / free as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use zonelab::config::ExperimentConfig;

    #[test]
    fn every_multi_thread_run_validates_with_its_threads_policy_and_size() {
        let text = include_str!("../../../../../experiments/lsm-zgc/updates.toml");
        let runs = runs(text, Scale::SHIPPED);
        assert_eq!(runs.len(), CONFIGS.len() * THREADS.len());
        for r in &runs {
            let cfg = ExperimentConfig::parse(&r.text, &r.overrides).unwrap();
            cfg.validate(&r.name)
                .unwrap_or_else(|e| panic!("{}: {e}", r.name));
            let t = r.name.rsplit("-t").next().unwrap();
            assert!(
                r.overrides.contains(&format!("updates.0.threads={t}")),
                "{}",
                r.name
            );
            assert_eq!(cfg.host.cores, 8);
        }
    }
}
