//! ReZNS's YCSB runs (Lee et al., ReZNS, Appl. Sci. 2024, section 4.4; Figures 7-14): YCSB A, B and F on
//! the RocksDB-like store over the F2FS-like layer on `rezns-40g`, with 64 MiB and 1 GiB zones,
//! baseline (synchronous reset) against ReZNS (renewable): throughput, zone resets and energy,
//! beside the paper's.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use zonelab::firmware::FirmwareReport;
use zonelab::report::Summary;

use super::f2fs::WHY;
use crate::reproduce::claims::Claim;
use crate::reproduce::plot::bar_chart;
use crate::reproduce::{Done, Run, Scale, take};

const YCSB: &str = include_str!("../../../../../experiments/rezns/ycsb.toml");
const WORKLOADS: [char; 3] = ['a', 'b', 'f'];
/// Zone sizes: the preset's 64 MiB, and 1 GiB (40 zones of 16 blocks on each of the 32 dies).
const ZONES: [(&str, &[&str]); 2] = [
    ("64MiB", &[]),
    (
        "1GiB",
        &[
            "device.zones.zone_size_bytes=\"1GiB\"",
            "device.zones.zone_capacity_bytes=\"1GiB\"",
            "device.zones.zone_count=40",
        ],
    ),
];
/// (label, overrides): the paper's baseline and ReZNS at its defaults (threshold 25%).
const POLICIES: [(&str, &[&str]); 2] = [
    ("baseline", &[]),
    ("ReZNS", &["firmware.policy=\"renewable\""]),
];
/// The paper's claims per workload, 64 MiB zones: throughput gain, fewer resets.
const PAPER: [(char, &str); 3] = [
    ('a', "+35% throughput, 52% fewer resets"),
    (
        'b',
        "+19% throughput, 61% fewer resets, 64% less reset energy",
    ),
    ('f', "+16% throughput, 54% fewer resets, 3% less energy"),
];

type PaperNumbers = (char, f64, f64, Option<f64>, Option<f64>);

/// The same, as numbers: (workload, throughput %, resets %, reset (erase) energy %, total
/// energy %), from section 4.4 and Figures 7, 9, 11 and 12.
const PAPER_NUMBERS: [PaperNumbers; 3] = [
    ('a', 35.0, -52.0, None, None),
    ('b', 19.0, -61.0, Some(-64.0), None),
    ('f', 16.0, -54.0, None, Some(-3.0)),
];

fn name(workload: char, zones: &str, policy: &str) -> String {
    format!("ycsb-{workload}-{zones}-{}", policy.to_lowercase())
}

/// The runs, independent of each other and of the rest of `reproduce rezns`.
/// experiments/rezns/ycsb.toml's record and operation counts, which `--scale N` multiplies.
pub const RECORDS: u64 = 500_000;
pub const OPERATIONS: u64 = 1_000_000;
/// The largest `--scale` (CHOSEN): 8 million records of 1 KB, a fifth of the 40 GB drive, so
/// the store's levels and the file layer's free sections fit beside them.
pub const MAX_SCALE: u32 = 16;

pub fn runs(scale: Scale) -> Vec<Run> {
    let mut runs = Vec::new();
    for w in WORKLOADS {
        for (zones, zone_sets) in ZONES {
            for (policy, policy_sets) in POLICIES {
                let mut sets: Vec<String> = vec![format!("ycsb.0.workload=\"{w}\"")];
                sets.extend(zone_sets.iter().chain(policy_sets).map(|s| s.to_string()));
                runs.push(
                    Run::new(name(w, zones, policy), YCSB, sets)
                        .scale_count(scale, "ycsb.0.recordcount", RECORDS)
                        .scale_count(scale, "ycsb.0.operationcount", OPERATIONS),
                );
            }
        }
    }
    runs
}

/// What a run gave: run-phase throughput, resets the host asked for and the device executed,
/// energy by kind (mJ, the whole run: load and run).
struct Row {
    ops_per_s: f64,
    resets_requested: u64,
    resets_executed: u64,
    /// ReZNS: resets of under-used zones, turned into renewable zones (no erase).
    rzone_resets: u64,
    read_mj: f64,
    program_mj: f64,
    erase_mj: f64,
}

impl Row {
    fn of(s: &Summary) -> Result<Row> {
        let layer = s.layers["ycsb"]
            .kv_store()
            .with_context(|| format!("run `{}`: ycsb is not a store", s.experiment))?;
        if let Some(e) = &layer.error {
            anyhow::bail!("run `{}`: the store stopped: {e}", s.experiment);
        }
        let ops_per_s = layer
            .phases
            .iter()
            .find(|p| p.name == "run")
            .map(|p| p.ops_per_s)
            .with_context(|| format!("run `{}` has no YCSB run phase", s.experiment))?;
        let e = &s.energy;
        Ok(Row {
            ops_per_s,
            resets_requested: s.device_counters.counters.zone_resets_requested,
            resets_executed: s.device_counters.counters.zone_resets_executed,
            rzone_resets: match &s.firmware {
                Some(FirmwareReport::Renewable(r)) => r.rzone_resets,
                _ => 0,
            },
            read_mj: e.read_mj,
            program_mj: e.program_mj,
            erase_mj: e.erase_mj,
        })
    }

    fn total_mj(&self) -> f64 {
        self.read_mj + self.program_mj + self.erase_mj
    }
}

fn change_pct(from: f64, to: f64) -> String {
    if from > 0.0 {
        format!("{:+.0}%", (to / from - 1.0) * 100.0)
    } else if to > 0.0 {
        "new".into()
    } else {
        "0".into()
    }
}

/// The paper's numbers (64 MiB zones) beside ZoneLab's.
fn claims(rows: &[(char, Row, Row)]) -> Vec<Claim> {
    let pct = |a: f64, b: f64| if a > 0.0 { (b / a - 1.0) * 100.0 } else { 0.0 };
    let mut claims = Vec::new();
    for (w, base, rezns) in rows {
        let Some(&(_, gain, resets, erase, total)) = PAPER_NUMBERS.iter().find(|p| p.0 == *w)
        else {
            continue;
        };
        let y = format!("YCSB-{}", w.to_ascii_uppercase());
        claims.push(Claim::change(
            format!("{y}: throughput, ReZNS against baseline"),
            gain,
            pct(base.ops_per_s, rezns.ops_per_s),
        ));
        claims.push(Claim::change(
            format!("{y}: zone resets executed, ReZNS against baseline"),
            resets,
            pct(base.resets_executed as f64, rezns.resets_executed as f64),
        ));
        if let Some(e) = erase {
            claims.push(Claim::change(
                format!("{y}: zone-reset (erase) energy, ReZNS against baseline"),
                e,
                pct(base.erase_mj, rezns.erase_mj),
            ));
        }
        if let Some(e) = total {
            claims.push(Claim::change(
                format!("{y}: total energy, ReZNS against baseline"),
                e,
                pct(base.total_mj(), rezns.total_mj()),
            ));
        }
    }
    claims.into_iter().map(|c| c.cause(WHY)).collect()
}

/// Tables, figures (the paper's 7-14) and the summary section for the runs of [`runs`];
/// returns the rows of the paper's numbers (64 MiB zones).
pub fn report(done: &mut Done, figures: &Path, s: &mut String) -> Result<Vec<Claim>> {
    let mut paper_rows = Vec::new();
    *s += "\n## YCSB on RocksDB over F2FS (section 4.4, Figures 7-14)\n\n\
           YCSB A, B and F on the RocksDB-like store (YCSB's RocksDB binding options) over the\n\
           F2FS-like layer on `rezns-40g` (experiments/rezns/ycsb.toml: 500,000 records, 1,000,000\n\
           operations, checkpoints every 5 s; scaled down, the file says how). Throughput is the run\n\
           phase's operations per simulated second; resets and energy cover load and run.\n";
    for (zones, _) in ZONES {
        let mut rows = Vec::new();
        for w in WORKLOADS {
            let base = Row::of(&take(done, &name(w, zones, "baseline")).summary)?;
            let rezns = Row::of(&take(done, &name(w, zones, "ReZNS")).summary)?;
            rows.push((w, base, rezns));
        }
        zone_size_table(s, zones, &rows);
        if zones == ZONES[0].0 {
            paper_rows = claims(&rows);
        }
        zone_size_figures(figures, zones, &rows)?;
    }
    *s += "\n**Where ZoneLab differs, and why.** The F2FS-like layer resets a zone only when a\n\
           checkpoint discards a section with no valid block left (as F2FS does on a zoned device),\n\
           so every reset it sends is of a fully written zone. ReZNS turns resets of zones that\n\
           were written below its threshold into renewable-zone recycling; a fully written zone\n\
           is a normal zone to it, reset as the baseline resets it. Where the tables show resets\n\
           executed equal for both policies, the column of resets of under-used zones (ReZNS's\n\
           Rzones, from its firmware report) says why: none was. The paper's\n\
           gains need resets of partly written zones; its text does not say which part of its\n\
           stack issued them, and ZoneLab's F2FS-like layer, built from F2FS's documented\n\
           behaviour, does not. Figures: figures/ycsb-{throughput,\n\
           resets,energy,erase-energy}-{64MiB,1GiB}.svg (the paper's 7-10, 11 and 14; the energy\n\
           breakdown of Figures 12-13 is the table's read / program / erase columns).\n";
    Ok(paper_rows)
}

/// One zone size's table: each workload's baseline and ReZNS rows, and the change between them.
fn zone_size_table(s: &mut String, zones: &str, rows: &[(char, Row, Row)]) {
    let _ = write!(
        s,
        "\n### Zones of {zones}\n\n\
         | workload | policy | ops/s | resets requested | resets executed | of under-used zones | energy mJ (read / program / erase) | erase share | paper (64 MiB) |\n\
         |---|---|---:|---:|---:|---:|---|---:|---|\n"
    );
    for (w, base, rezns) in rows {
        let paper = PAPER.iter().find(|p| p.0 == *w).map_or("", |p| p.1);
        for (policy, r) in [("baseline", base), ("ReZNS", rezns)] {
            let _ = writeln!(
                s,
                "| YCSB-{} | {policy} | {:.0} | {} | {} | {} | {:.1} ({:.1} / {:.1} / {:.1}) | {:.1}% | {} |",
                w.to_ascii_uppercase(),
                r.ops_per_s,
                r.resets_requested,
                r.resets_executed,
                r.rzone_resets,
                r.total_mj(),
                r.read_mj,
                r.program_mj,
                r.erase_mj,
                100.0 * r.erase_mj / r.total_mj().max(f64::MIN_POSITIVE),
                if policy == "ReZNS" { paper } else { "" },
            );
        }
        let _ = writeln!(
            s,
            "| | ReZNS against baseline | {} | | {} | | {} total, {} erase | | |",
            change_pct(base.ops_per_s, rezns.ops_per_s),
            change_pct(base.resets_executed as f64, rezns.resets_executed as f64),
            change_pct(base.total_mj(), rezns.total_mj()),
            change_pct(base.erase_mj, rezns.erase_mj),
        );
    }
}

/// figures/ycsb-{throughput,resets,energy,erase-energy}-<zones>.svg (the paper's 7-11 and 14).
fn zone_size_figures(figures: &Path, zones: &str, rows: &[(char, Row, Row)]) -> Result<()> {
    let groups: Vec<String> = rows
        .iter()
        .map(|(w, ..)| format!("YCSB-{}", w.to_ascii_uppercase()))
        .collect();
    for (file, title, axis, metric) in [
        (
            "throughput",
            "throughput",
            "operations / s",
            (|r: &Row| r.ops_per_s) as fn(&Row) -> f64,
        ),
        ("resets", "zone resets executed", "resets", |r: &Row| {
            r.resets_executed as f64
        }),
        ("energy", "total energy", "mJ", |r: &Row| r.total_mj()),
        (
            "erase-energy",
            "zone-reset (erase) energy",
            "mJ",
            |r: &Row| r.erase_mj,
        ),
    ] {
        bar_chart(
            &figures.join(format!("ycsb-{file}-{zones}.svg")),
            &format!("YCSB {title}, {zones} zones"),
            axis,
            &groups,
            &[
                (
                    "baseline".into(),
                    rows.iter().map(|r| metric(&r.1)).collect(),
                ),
                ("ReZNS".into(), rows.iter().map(|r| metric(&r.2)).collect()),
            ],
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::run_parallel;

    /// `--scale N` multiplies the file's records and operations (the constants are the file's),
    /// and the largest N still validates.
    #[test]
    fn a_scale_multiplies_records_and_operations() {
        assert!(YCSB.contains(&format!("recordcount = {RECORDS}\n")));
        assert!(YCSB.contains(&format!("operationcount = {OPERATIONS}\n")));
        let shipped = runs(Scale::SHIPPED);
        let counts = |r: &Run| {
            let scaled = ["ycsb.0.recordcount=", "ycsb.0.operationcount="];
            r.overrides
                .iter()
                .any(|o| scaled.iter().any(|k| o.starts_with(k)))
        };
        assert!(!shipped.iter().any(counts), "shipped runs as the file says");
        let max = Scale::new(MAX_SCALE).unwrap();
        for (one, big) in shipped.iter().zip(runs(max)) {
            let added = &big.overrides[one.overrides.len()..];
            assert_eq!(
                added,
                [
                    format!("ycsb.0.recordcount={}", max.count(RECORDS)),
                    format!("ycsb.0.operationcount={}", max.count(OPERATIONS)),
                ]
            );
            let cfg = zonelab::config::ExperimentConfig::parse(&big.text, &big.overrides).unwrap();
            cfg.validate(&big.name).unwrap();
        }
    }

    /// Every run, shrunk, gives its row, and the figures are drawn.
    #[test]
    fn every_workload_zone_size_and_policy_is_reported() {
        let mut runs = runs(Scale::SHIPPED);
        for r in &mut runs {
            r.overrides.push("ycsb.0.recordcount=2000".into());
            r.overrides.push("ycsb.0.operationcount=2000".into());
        }
        let names: Vec<String> = runs.iter().map(|r| r.name.clone()).collect();
        assert_eq!(names.len(), 12);
        // Removed when dropped, whether the test passes or fails.
        let tmp = tempfile::Builder::new()
            .prefix("zonelab-rezns-kv-")
            .tempdir()
            .expect("a temporary directory");
        let dir = tmp.path().to_path_buf();
        let outputs = run_parallel(&dir, runs, 2, |o| o).expect("runs");
        let mut done: Done = names.into_iter().zip(outputs).collect();
        let figures = dir.join("figures");
        std::fs::create_dir_all(&figures).unwrap();
        let mut s = String::new();
        report(&mut done, &figures, &mut s).unwrap();
        let drawn = std::fs::read_dir(&figures).unwrap().count();
        assert_eq!(drawn, 8, "four figures per zone size");
        assert!(done.is_empty(), "every run is reported");
        let rows = s.lines().filter(|l| l.starts_with("| YCSB-")).count();
        assert_eq!(rows, 12, "{s}");
        for l in s.lines().filter(|l| l.starts_with("| YCSB-")) {
            let ops: f64 = l.split('|').nth(3).unwrap().trim().parse().unwrap();
            assert!(ops > 0.0, "{l}");
        }
    }
}
