//! Preemptive Zone Reset's RocksDB runs (Jung et al., Preemptive Zone Reset, Electronics 2023, section 4.2, Figures 8-10):
//! db_bench fillrandom, overwrite and mixgraph (nine puts per get) on the RocksDB-like store over
//! the ZenFS-like layer on `cosmos-zns`, 512 MiB and 1 GiB zones, Table 2 thresholds, mapping
//! against preemptive: write latency CDFs to P100, block erases, mixgraph read latency CDFs.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use zonelab::experiment::RunOutput;
use zonelab::metrics::{Layer, Metrics, OpKind, Percentile, cdf};
use zonelab::report::Summary;

use super::{SIZES, overrides};
use crate::reproduce::claims::Claim;
use crate::reproduce::plot::cdf_figure;
use crate::reproduce::{Done, Run, take};

const ROCKSDB: &str = include_str!("../../../../../experiments/preemptive-reset/rocksdb.toml");
const POLICIES: [&str; 2] = ["mapping", "preemptive"];
/// (name, db_bench benchmarks): Figures 8 and 9, then Figure 10.
const BENCHES: [(&str, &str); 2] = [
    ("fill", "fillrandom,overwrite"),
    ("mixgraph", "fillrandom,mixgraph"),
];

/// The paper's section 4.2 numbers, in ms (and block erases), per zone size.
struct Paper {
    zone_mib: u64,
    fill_p100_ms: [f64; 2],
    mixgraph_get_p100_ms: [f64; 2],
    erases: &'static str,
    /// Figure 9's block erases in fillrandom (mapping "over", preemptive "slightly under").
    erase_blocks: [f64; 2],
}

const PAPER: [Paper; 2] = [
    Paper {
        zone_mib: 512,
        fill_p100_ms: [41.5, 31.0],
        mixgraph_get_p100_ms: [84.6, 48.0],
        erases: "over 2,000 vs slightly under 900",
        erase_blocks: [2000.0, 900.0],
    },
    Paper {
        zone_mib: 1024,
        fill_p100_ms: [71.0, 51.0],
        mixgraph_get_p100_ms: [117.0, 67.0],
        erases: "over 4,000 vs slightly under 900",
        erase_blocks: [4000.0, 900.0],
    },
];

fn name(bench: &str, zone_mib: u64, policy: &str) -> String {
    format!("rocksdb-{bench}-{zone_mib}mib-{policy}")
}

/// rocksdb.toml's pairs (`num`, and `reads` as many), scaled down from the paper's 50,000,000.
pub(super) const NUM: u64 = 3_000_000;
/// cosmos-zns's capacity (256 GiB) and a pair's bytes (48 B key, 464 B value).
const DEVICE_BYTES: u64 = 256 << 30;
const PAIR_BYTES: u64 = 48 + 464;

/// The largest scale whose store fits the device twice over (overwrite's new pairs beside the
/// old ones until compaction drops them): 89.
fn max_scale() -> u64 {
    DEVICE_BYTES / (2 * NUM * PAIR_BYTES)
}

/// Fails when `--scale` would grow the store past what the device holds.
pub fn check(scale: crate::reproduce::Scale) -> Result<()> {
    if scale.factor() as u64 > max_scale() {
        anyhow::bail!(
            "preemptive-reset: --scale {} would grow the RocksDB store to {} pairs, more than \
             cosmos-zns's 256 GiB holds twice over; the largest scale is {}",
            scale.factor(),
            scale.count(NUM),
            max_scale()
        );
    }
    Ok(())
}

/// The runs, independent of each other and of section 4.1's, at `scale` (num and reads times
/// the scale: the store grows towards the paper's 50,000,000 pairs).
pub fn runs(scale: crate::reproduce::Scale) -> Vec<Run> {
    let mut runs = Vec::new();
    let scaled = |run: Run| {
        run.scale_count(scale, "dbbench.db.num", NUM)
            .scale_count(scale, "dbbench.db.reads", NUM)
    };
    for (bench, benchmarks) in BENCHES {
        for (zone_mib, t_invalid, t_free) in SIZES {
            for policy in POLICIES {
                let mut o = overrides(zone_mib, t_invalid, t_free, policy);
                o.push(format!("dbbench.db.benchmarks=\"{benchmarks}\""));
                runs.push(scaled(Run::new(name(bench, zone_mib, policy), ROCKSDB, o)));
            }
        }
        // The other reading of S2 (all invalid zones until Z_free > T_free), where ZenFS's
        // burst resets make it differ: mapping, 1 GiB zones.
        let (zone_mib, t_invalid, t_free) = SIZES[SIZES.len() - 1];
        let mut o = overrides(zone_mib, t_invalid, t_free, "mapping");
        o.push(format!("dbbench.db.benchmarks=\"{benchmarks}\""));
        o.push(format!("firmware.s2_erases=\"{UNTIL}\""));
        runs.push(scaled(Run::new(name(bench, zone_mib, UNTIL), ROCKSDB, o)));
    }
    runs
}

/// The S2 reading run beside the default (see [`runs`]).
const UNTIL: &str = "until_above_t_free";

/// What the section on S2 compares: fillrandom put P100 ms, mixgraph get P100 ms, the longest
/// erase wait of a device command (ms), Full Zone Erases in the fill run.
type S2Row = (f64, f64, f64, u64);

fn s2_row(fill: &Summary, mix: &Summary) -> Result<S2Row> {
    let wait_ms = |x: &Summary| x.erase_wait_ns.percentiles[&Percentile::P100] as f64 / 1e6;
    let full = match &fill.firmware {
        Some(zonelab::firmware::FirmwareReport::ZoneMapping(p)) => p.full_zone_erases,
        _ => 0,
    };
    Ok((
        kv_ms(fill, "db.fillrandom", OpKind::Put, Percentile::P100)?,
        kv_ms(mix, "db.mixgraph", OpKind::Get, Percentile::P100)?,
        wait_ms(fill).max(wait_ms(mix)),
        full,
    ))
}

/// The section that runs both readings of S2 and says what the slowest commands waited for.
fn s2_readings(done: &mut Done, default: S2Row, s: &mut String) -> Result<()> {
    let z = SIZES[SIZES.len() - 1].0;
    let until = s2_row(
        &take(done, &name("fill", z, UNTIL)).summary,
        &take(done, &name("mixgraph", z, UNTIL)).summary,
    )?;
    let _ = write!(
        s,
        "\n### Which erases the slowest commands waited for\n\n\
         A Full Zone Erase of a {z} MiB zone on `cosmos-zns` is {} rows of 5 ms on every die, {} ms.\n\
         ZenFS resets zones in bursts (a compaction deletes several files at once), and the paper's\n\
         S2 can be read two ways: \"a Full Zone Erase on an invalid zone\" to provide the free zone\n\
         an allocation needs (ZoneLab's default, `firmware.s2_erases = \"one_per_allocation\"`), or\n\
         erasing until Z_free exceeds T_free (`\"{UNTIL}\"`), which after a burst erases every\n\
         invalid zone while one write waits. Mapping, {z} MiB zones:\n\n\
         | S2 erases | fillrandom put P100 ms | mixgraph get P100 ms | longest erase wait of a device command ms | Full Zone Erases (fillrandom + overwrite) |\n\
         |---|---:|---:|---:|---:|\n\
         | one per allocation (default) | {:.1} | {:.1} | {:.1} | {} |\n\
         | {UNTIL} | {:.1} | {:.1} | {:.1} | {} |\n\n\
         The second reading puts up to {:.0} ms of erases in front of one write (the paper: 71 ms\n\
         for a put, 117 for a get); the first leaves one zone's erase, as the paper's tails suggest.\n\
         The paper's tails are still longer than ZoneLab's at 512 MiB and for preemptive (which\n\
         erases in idle time and rarely blocks), where ZoneLab's longest erase wait is one zone or\n\
         one row: the device's erases alone do not account for them. The paper does not say what\n\
         else its puts and gets waited for; the model's run also has 3 M pairs against 50 M, so\n\
         fewer samples in its tail.\n",
        z / 128,
        z / 128 * 5,
        default.0,
        default.1,
        default.2,
        default.3,
        until.0,
        until.1,
        until.2,
        until.3,
        until.2,
    );
    Ok(())
}

/// The key-value latency histogram of `op` in tenant `tenant` (`db.fillrandom`), as CDF points
/// in ms, and its percentiles.
fn kv_cdf(m: &Metrics, tenant: &str, op: OpKind) -> Result<Vec<(f64, f64)>> {
    let slot = m
        .slots()
        .iter()
        .find(|s| s.layer == Layer::Kv && s.op == op && m.tenant_name(s.tenant) == tenant)
        .with_context(|| format!("no {op:?} in {tenant}"))?;
    Ok(cdf(&slot.histogram())
        .into_iter()
        .map(|(ns, p)| (ns as f64 / 1e6, p))
        .collect())
}

fn kv_ms(s: &Summary, tenant: &str, op: OpKind, p: Percentile) -> Result<f64> {
    s.table
        .iter()
        .find(|r| r.layer == Layer::Kv && r.op == op && r.tenant == tenant)
        .map(|r| r.summary.latency_ns.percentiles[&p] as f64 / 1e6)
        .with_context(|| format!("run `{}`: no {op:?} in {tenant}", s.experiment))
}

/// Block erases during `phase` of the store's run.
fn phase_erases(s: &Summary, phase: &str) -> Result<u64> {
    let layer = s.layers["db"]
        .kv_store()
        .with_context(|| format!("run `{}`: db is not a store", s.experiment))?;
    if let Some(e) = &layer.error {
        anyhow::bail!("run `{}`: the store stopped: {e}", s.experiment);
    }
    layer
        .phases
        .iter()
        .find(|p| p.name == phase)
        .map(|p| p.device.block_erases)
        .with_context(|| format!("run `{}` has no phase {phase}", s.experiment))
}

/// Tables, figures and the summary section for the runs of [`runs`]; returns the rows of the
/// paper's numbers.
pub fn report(done: &mut Done, figures: &Path, s: &mut String) -> Result<Vec<Claim>> {
    let mut claims = Vec::new();
    let mut default_s2 = None;
    *s += "\n## Section 4.2: RocksDB on ZenFS (Figures 8-10)\n\n\
           db_bench on the RocksDB-like store over the ZenFS-like layer on `cosmos-zns`\n\
           (experiments/preemptive-reset/rocksdb.toml): fillrandom then overwrite, and fillrandom\n\
           then mixgraph with nine puts per get; 48 B keys, 464 B values; Table 2 thresholds.\n\
           Scaled down to 3,000,000 pairs (the paper: 50,000,000); the file says why that still\n\
           runs the firmware short of free zones.\n\n\
           | zone | policy | fillrandom put P99.99 ms | P100 ms | overwrite put P100 ms | block erases in fillrandom | in overwrite | mixgraph get P99.99 ms | P100 ms | paper: fillrandom P100, mixgraph get P100 ms |\n\
           |---|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
    for (zone_mib, ..) in SIZES {
        if let Some(row) = zone_size_rows(done, figures, s, zone_mib, &mut claims)? {
            default_s2 = Some(row);
        }
    }
    *s += "\n**Where ZoneLab differs:** the store is the RocksDB-like model, not RocksDB, on the\n\
           ZenFS-like layer (its lifetime-based zone allocation and resets of zones whose files\n\
           are all deleted, whether or not the zone is full, as the paper observes of ZenFS); 3 M\n\
           pairs instead of 50 M, so fewer resets in all and tails of fewer samples; only the\n\
           464 B values (the paper shows only those too). Block erases are counted per phase\n\
           (fillrandom, overwrite) from the device's counters; mapping leaves zones it has not yet\n\
           needed unerased at the end. The tails' direction is the paper's; their size is not:\n\
           the next section shows which erases the slowest commands waited for. Figures: figures/rocksdb-fillrandom-{512,1024}mib-put.svg\n\
           (Figure 8), rocksdb-mixgraph-{512,1024}mib-get.svg (Figure 10); the erases are the\n\
           table's columns (Figure 9).\n";
    s2_readings(done, default_s2.context("the 1 GiB mapping runs")?, s)?;
    Ok(claims)
}

/// One zone size's table rows (a row per policy, then the paper's erases) and its two CDF
/// figures; adds the policies' claims, and returns the 1 GiB mapping runs' S2 row.
fn zone_size_rows(
    done: &mut Done,
    figures: &Path,
    s: &mut String,
    zone_mib: u64,
    claims: &mut Vec<Claim>,
) -> Result<Option<S2Row>> {
    let mut default_s2 = None;
    let paper = PAPER
        .iter()
        .find(|p| p.zone_mib == zone_mib)
        .expect("a paper row per size");
    let mut fill_curves = Vec::new();
    let mut get_curves = Vec::new();
    for (i, policy) in POLICIES.into_iter().enumerate() {
        let fill: RunOutput = take(done, &name("fill", zone_mib, policy));
        let mix: RunOutput = take(done, &name("mixgraph", zone_mib, policy));
        let (f, m) = (&fill.summary, &mix.summary);
        if zone_mib == SIZES[SIZES.len() - 1].0 && policy == "mapping" {
            default_s2 = Some(s2_row(f, m)?);
        }
        claims.extend(paper_claims(paper, policy, i, f, m)?);
        let _ = writeln!(
            s,
            "| {zone_mib} MiB | {policy} | {:.2} | {:.2} | {:.2} | {} | {} | {:.2} | {:.2} | {:.1}, {:.1} |",
            kv_ms(f, "db.fillrandom", OpKind::Put, Percentile::P9999)?,
            kv_ms(f, "db.fillrandom", OpKind::Put, Percentile::P100)?,
            kv_ms(f, "db.overwrite", OpKind::Put, Percentile::P100)?,
            phase_erases(f, "fillrandom")?,
            phase_erases(f, "overwrite")?,
            kv_ms(m, "db.mixgraph", OpKind::Get, Percentile::P9999)?,
            kv_ms(m, "db.mixgraph", OpKind::Get, Percentile::P100)?,
            paper.fill_p100_ms[i],
            paper.mixgraph_get_p100_ms[i],
        );
        fill_curves.push((
            policy.to_string(),
            kv_cdf(&fill.metrics, "db.fillrandom", OpKind::Put)?,
        ));
        get_curves.push((
            policy.to_string(),
            kv_cdf(&mix.metrics, "db.mixgraph", OpKind::Get)?,
        ));
    }
    kv_cdf_figures(figures, zone_mib, paper, &fill_curves, &get_curves)?;
    let _ = writeln!(
        s,
        "| | paper, block erases in fillrandom (Figure 9) | | | | {} | | | | |",
        paper.erases
    );
    Ok(default_s2)
}

/// figures/rocksdb-fillrandom-<zone>mib-put.svg and rocksdb-mixgraph-<zone>mib-get.svg, with
/// the paper's P100s (Figures 8 and 10).
fn kv_cdf_figures(
    figures: &Path,
    zone_mib: u64,
    paper: &Paper,
    fill_curves: &[(String, Vec<(f64, f64)>)],
    get_curves: &[(String, Vec<(f64, f64)>)],
) -> Result<()> {
    cdf_figure(
        &figures.join(format!("rocksdb-fillrandom-{zone_mib}mib-put.svg")),
        &format!("fillrandom put latency CDF, {zone_mib} MiB zones (cf. Figure 8)"),
        fill_curves,
        &[(0, paper.fill_p100_ms[0]), (1, paper.fill_p100_ms[1])],
    )?;
    cdf_figure(
        &figures.join(format!("rocksdb-mixgraph-{zone_mib}mib-get.svg")),
        &format!("mixgraph get latency CDF, {zone_mib} MiB zones (cf. Figure 10)"),
        get_curves,
        &[
            (0, paper.mixgraph_get_p100_ms[0]),
            (1, paper.mixgraph_get_p100_ms[1]),
        ],
    )?;
    Ok(())
}

/// Where the tails' sizes come from: which erases the slowest commands waited for.
const TAIL_CAUSE: &str = "summary.md, \"Which erases the slowest commands waited for\"";

/// One policy's rows of the paper's section 4.2 numbers at one zone size.
fn paper_claims(
    paper: &Paper,
    policy: &str,
    i: usize,
    f: &Summary,
    m: &Summary,
) -> Result<Vec<Claim>> {
    let z = paper.zone_mib;
    Ok(vec![
        Claim::value(
            format!("db_bench fillrandom put P100, {policy}, {z} MiB zones (Figure 8)"),
            "ms",
            paper.fill_p100_ms[i],
            kv_ms(f, "db.fillrandom", OpKind::Put, Percentile::P100)?,
        )
        .cause(TAIL_CAUSE),
        Claim::value(
            format!("mixgraph get P100, {policy}, {z} MiB zones (Figure 10)"),
            "ms",
            paper.mixgraph_get_p100_ms[i],
            kv_ms(m, "db.mixgraph", OpKind::Get, Percentile::P100)?,
        )
        .cause(TAIL_CAUSE),
        Claim::value(
            format!("block erases in fillrandom, {policy}, {z} MiB zones (Figure 9)"),
            "blocks",
            paper.erase_blocks[i],
            phase_erases(f, "fillrandom")? as f64,
        )
        .cause(
            "summary.md, \"Section 4.2\": erases follow the ZenFS-like layer's resets of a \
             3 M-pair database (the paper's: 50 M)",
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::{Scale, run_parallel};

    /// `--scale 2` doubles num and reads; the shipped scale adds nothing.
    #[test]
    fn scale_doubles_the_pairs() {
        let shipped = runs(Scale::SHIPPED);
        let two = runs(Scale::new(2).unwrap());
        assert_eq!(shipped.len(), two.len());
        for (s, t) in shipped.iter().zip(&two) {
            assert!(
                s.overrides
                    .iter()
                    .all(|o| !o.contains(".num") && !o.contains(".reads"))
            );
            let mut want = s.overrides.clone();
            want.push("dbbench.db.num=6000000".into());
            want.push("dbbench.db.reads=6000000".into());
            assert_eq!(t.overrides, want, "{}", t.name);
            zonelab::config::ExperimentConfig::parse(&t.text, &t.overrides)
                .and_then(|c| c.validate(&t.name))
                .unwrap_or_else(|e| panic!("{}: {e}", t.name));
        }
        assert_eq!(max_scale(), 89);
        assert!(check(Scale::new(89).unwrap()).is_ok());
        assert!(check(Scale::new(90).unwrap()).is_err());
    }

    /// Every run, shrunk, gives its row and both CDF figures per zone size are drawn.
    #[test]
    fn every_zone_size_and_policy_is_reported() {
        let mut runs = runs(crate::reproduce::Scale::SHIPPED);
        for r in &mut runs {
            r.overrides.push("dbbench.db.num=20000".into());
            r.overrides.push("dbbench.db.reads=20000".into());
        }
        let names: Vec<String> = runs.iter().map(|r| r.name.clone()).collect();
        assert_eq!(names.len(), 10);
        // Removed when dropped, whether the test passes or fails.
        let tmp = tempfile::Builder::new()
            .prefix("zonelab-pr-kv-")
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
        assert_eq!(drawn, 4);
        assert!(done.is_empty(), "every run is reported");
        let rows: Vec<&str> = s
            .lines()
            .filter(|l| l.contains(" MiB | mapping |") || l.contains(" MiB | preemptive |"))
            .collect();
        assert_eq!(rows.len(), 4, "{s}");
        for l in rows {
            let p100: f64 = l.split('|').nth(4).unwrap().trim().parse().unwrap();
            assert!(p100 > 0.0, "{l}");
        }
    }
}
