//! The paper's stack (Lee et al., ReZNS, Appl. Sci. 2024, sections 4.2 and 4.3): the F2FS-like file layer
//! over `rezns-40g` filled 50%, running fio on files (fsync every 16, 64, 128 writes, three
//! consecutive runs; Figures 3 and 4) and Filebench varmail and fileserver for one minute
//! (Figures 5 and 6), baseline (synchronous, whole-zone erases) against ReZNS (renewable), with
//! the energy of every run (Figures 11-14).

use std::path::Path;

use anyhow::{Context, Result};
use zonelab::device::LayerReport;
use zonelab::host::fs::FsReport;
use zonelab::report::Summary;
use zonelab::workload::files::FileWorkloadReport;

use crate::reproduce::claims::{Claim, Stated};

use super::standin::{baseline, renewable};
use crate::reproduce::Run;
use crate::reproduce::plot::bar_chart;

const FIO: &str = include_str!("../../../../../experiments/rezns/fio-files.toml");
const VARMAIL: &str = include_str!("../../../../../experiments/rezns/varmail.toml");
const FILESERVER: &str = include_str!("../../../../../experiments/rezns/fileserver.toml");
/// 000 section 4.2: fsync every 16, 64 or 128 writes.
pub const FSYNC: [u32; 3] = [16, 64, 128];
/// The paper's throughput gains of ReZNS over the baseline, in percent, per workload in the
/// order of [`WORKLOADS`]: FIO +9, +6, +1 (section 4.2, Figure 3); varmail +60, fileserver +13
/// (section 4.3, Figure 5).
pub const PAPER_GAIN: [f64; 5] = [9.0, 6.0, 1.0, 60.0, 13.0];
/// The paper's zone-reset reductions for varmail and fileserver, in percent (section 4.3,
/// Figure 6: "by up to 29% and 20%"); for FIO it gives only the direction (Figure 4).
pub const PAPER_FEWER_RESETS: [f64; 2] = [29.0, 20.0];
/// Workloads, in the order the runs come back.
pub const WORKLOADS: [&str; 5] = [
    "fio fsync 16",
    "fio fsync 64",
    "fio fsync 128",
    "varmail",
    "fileserver",
];

/// How large the runs are: [`PAPER`] as the paper ran them, or smaller (tests).
#[derive(Clone, Copy, Debug)]
pub struct Scale {
    pub fio_threads: u32,
    pub fio_file: &'static str,
    pub filebench_run: &'static str,
}

/// 000 sections 4.2 and 4.3: 1000 threads of 15 MB, Filebench for one minute.
pub const PAPER: Scale = Scale {
    fio_threads: 1000,
    fio_file: "15MB",
    filebench_run: "60s",
};

/// `text` with the literal `from` (which it must hold) replaced by `to`.
fn swap(text: &str, from: &str, to: &str) -> String {
    assert!(
        text.contains(from),
        "the experiment file holds `{from}` (edited together with this reproduction)"
    );
    text.replace(from, to)
}

fn scaled(text: &str, scale: Scale) -> String {
    if text.contains("[[fio_files]]") {
        let t = swap(
            text,
            "threads = 1000 ",
            &format!("threads = {} ", scale.fio_threads),
        );
        swap(
            &t,
            "size = \"15MB\"",
            &format!("size = \"{}\"", scale.fio_file),
        )
    } else {
        swap(
            text,
            "run = \"60s\"",
            &format!("run = \"{}\"", scale.filebench_run),
        )
    }
}

/// The runs, baseline then ReZNS for each of [`WORKLOADS`] (names start with `f2fs-`).
pub fn runs(scale: Scale) -> Vec<Run> {
    let mut texts: Vec<(String, String)> = FSYNC
        .iter()
        .map(|f| {
            let t = swap(FIO, "fsync = 16 ", &format!("fsync = {f} "));
            (format!("fio-fsync{f}"), scaled(&t, scale))
        })
        .collect();
    texts.push(("varmail".into(), scaled(VARMAIL, scale)));
    texts.push(("fileserver".into(), scaled(FILESERVER, scale)));
    let mut runs = Vec::new();
    for (name, text) in texts {
        runs.push(Run::new(
            format!("f2fs-{name}-baseline"),
            text.clone(),
            baseline(),
        ));
        runs.push(Run::new(
            format!("f2fs-{name}-rezns"),
            text,
            renewable(0.25, 3_600_000),
        ));
    }
    runs
}

/// What one run measured.
pub struct Measured {
    pub summary: Summary,
    pub files: FileWorkloadReport,
    pub fs: FsReport,
}

impl Measured {
    pub fn new(summary: Summary) -> Result<Measured> {
        let files = summary
            .layers
            .get("files")
            .and_then(LayerReport::file_workloads)
            .context("a file-workload run reports layers.files")?
            .first()
            .cloned()
            .context("one file workload")?;
        let fs = summary
            .layers
            .get("fs")
            .and_then(LayerReport::file_layer)
            .cloned()
            .context("a run of the file layer reports layers.fs")?;
        Ok(Measured { summary, files, fs })
    }

    /// fio: write MiB/s over its three runs; Filebench: operations (flowops) per second.
    pub fn perf(&self) -> f64 {
        if self.files.kind == "fio" {
            self.files.mib_per_s
        } else {
            self.files.ops_per_s
        }
    }

    pub fn resets(&self) -> f64 {
        self.summary.device_counters.counters.zone_resets_executed as f64
    }
}

/// Baseline and ReZNS on one workload.
pub struct Pair {
    pub workload: &'static str,
    pub base: Measured,
    pub rezns: Measured,
}

impl Pair {
    pub fn gain(&self) -> f64 {
        let b = self.base.perf();
        if b == 0.0 {
            0.0
        } else {
            (self.rezns.perf() / b - 1.0) * 100.0
        }
    }
}

/// Why the F2FS-like layer shows no ReZNS gain: the count of resets of partly written zones.
pub const WHY: &str =
    "summary.md, \"What this shows\" (resets that found a zone a quarter unwritten: the count)";

/// Sections 4.2 and 4.3's numbers (Figures 3-6) beside the F2FS-like layer's.
pub fn claims(pairs: &[Pair]) -> Vec<Claim> {
    let mut claims = Vec::new();
    for (i, p) in pairs.iter().enumerate() {
        let w = p.workload;
        claims.push(
            Claim::change(
                format!("{w}: throughput, ReZNS against baseline"),
                PAPER_GAIN[i],
                p.gain(),
            )
            .cause(WHY),
        );
        let (b, r) = (p.base.resets(), p.rezns.resets());
        let fewer = if b > 0.0 { (r / b - 1.0) * 100.0 } else { 0.0 };
        let what = format!("{w}: zone resets, ReZNS against baseline");
        let c = match i.checked_sub(FSYNC.len()) {
            Some(k) => Claim::change(what, -PAPER_FEWER_RESETS[k], fewer),
            None => Claim::direction(what, Stated::Lower, fewer),
        };
        claims.push(c.cause(WHY));
    }
    claims
}

/// Pairs the summaries of [`runs`], in their order.
pub fn pairs(summaries: Vec<Summary>) -> Result<Vec<Pair>> {
    let mut it = summaries.into_iter();
    WORKLOADS
        .iter()
        .map(|&workload| {
            let mut next =
                || -> Result<Measured> { Measured::new(it.next().context("one summary per run")?) };
            Ok(Pair {
                workload,
                base: next()?,
                rezns: next()?,
            })
        })
        .collect()
}

type Get = dyn Fn(&Measured) -> f64;

fn both(pairs: &[&Pair], get: &Get) -> Vec<(String, Vec<f64>)> {
    vec![
        (
            "baseline".into(),
            pairs.iter().map(|p| get(&p.base)).collect(),
        ),
        (
            "ReZNS".into(),
            pairs.iter().map(|p| get(&p.rezns)).collect(),
        ),
    ]
}

/// Share of a run's energy that went to reads, programs and erases, in percent.
pub fn breakdown(s: &Summary) -> [f64; 3] {
    let e = &s.energy;
    let t = e.total_mj.max(f64::MIN_POSITIVE);
    [
        e.read_mj / t * 100.0,
        e.program_mj / t * 100.0,
        e.erase_mj / t * 100.0,
    ]
}

/// Draws Figures 3-6 and 11-14 (and the gains beside the paper's) into `figures`.
pub fn figures(figures: &Path, pairs: &[Pair]) -> Result<()> {
    let all: Vec<&Pair> = pairs.iter().collect();
    let (fio, fb) = all.split_at(FSYNC.len());
    performance_figures(figures, fio, fb)?;
    beside_paper_figures(figures, &all, fb)?;
    energy_figures(figures, &all)
}

/// The workloads' names, the figures' groups.
fn names(ps: &[&Pair]) -> Vec<String> {
    ps.iter().map(|p| p.workload.to_string()).collect()
}

/// Figures 3-6: fio's throughput and zone resets, then Filebench's.
fn performance_figures(figures: &Path, fio: &[&Pair], fb: &[&Pair]) -> Result<()> {
    bar_chart(
        &figures.join("fig3-fio-throughput.svg"),
        "fio on F2FS-like layer: write throughput (cf. Figure 3)",
        "MiB/s",
        &names(fio),
        &both(fio, &|m| m.perf()),
    )?;
    bar_chart(
        &figures.join("fig4-fio-zone-resets.svg"),
        "fio on F2FS-like layer: zone resets (cf. Figure 4)",
        "zones erased",
        &names(fio),
        &both(fio, &|m| m.resets()),
    )?;
    bar_chart(
        &figures.join("fig5-filebench-ops.svg"),
        "Filebench on F2FS-like layer: operations (cf. Figure 5)",
        "ops/s",
        &names(fb),
        &both(fb, &|m| m.perf()),
    )?;
    bar_chart(
        &figures.join("fig6-filebench-zone-resets.svg"),
        "Filebench on F2FS-like layer: zone resets (cf. Figure 6)",
        "zones erased",
        &names(fb),
        &both(fb, &|m| m.resets()),
    )?;
    Ok(())
}

/// ZoneLab's throughput gains and fewer resets beside the paper's.
fn beside_paper_figures(figures: &Path, all: &[&Pair], fb: &[&Pair]) -> Result<()> {
    bar_chart(
        &figures.join("gain-beside-paper.svg"),
        "ReZNS throughput gain over baseline: ZoneLab beside the paper",
        "% gain",
        &names(all),
        &[
            ("ZoneLab".into(), all.iter().map(|p| p.gain()).collect()),
            ("paper".into(), PAPER_GAIN.to_vec()),
        ],
    )?;
    bar_chart(
        &figures.join("fewer-resets-beside-paper.svg"),
        "ReZNS: fewer zone resets than baseline, ZoneLab beside the paper (Figure 6)",
        "% fewer",
        &names(fb),
        &[
            (
                "ZoneLab".into(),
                fb.iter()
                    .map(|p| super::standin::less(p.rezns.resets(), p.base.resets()))
                    .collect(),
            ),
            ("paper".into(), PAPER_FEWER_RESETS.to_vec()),
        ],
    )?;
    Ok(())
}

/// Figures 11-14: total energy, its breakdown with and without ReZNS, the erase energy.
fn energy_figures(figures: &Path, all: &[&Pair]) -> Result<()> {
    bar_chart(
        &figures.join("fig11-energy.svg"),
        "Total energy (cf. Figure 11)",
        "mJ",
        &names(all),
        &both(all, &|m| m.summary.energy.total_mj),
    )?;
    for (file, title, rezns) in [
        (
            "fig12-breakdown-rezns.svg",
            "Energy breakdown, ReZNS (cf. Figure 12)",
            true,
        ),
        (
            "fig13-breakdown-baseline.svg",
            "Energy breakdown, baseline (cf. Figure 13)",
            false,
        ),
    ] {
        let series: Vec<(String, Vec<f64>)> = ["read", "program", "erase"]
            .iter()
            .enumerate()
            .map(|(k, what)| {
                let v = all
                    .iter()
                    .map(|p| breakdown(&if rezns { &p.rezns } else { &p.base }.summary)[k])
                    .collect();
                (what.to_string(), v)
            })
            .collect();
        bar_chart(
            &figures.join(file),
            title,
            "% of energy",
            &names(all),
            &series,
        )?;
    }
    bar_chart(
        &figures.join("fig14-reset-energy.svg"),
        "Zone-reset (erase) energy (cf. Figure 14)",
        "mJ",
        &names(all),
        &both(all, &|m| m.summary.energy.erase_mj),
    )
}
