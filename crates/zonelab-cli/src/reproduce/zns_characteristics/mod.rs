//! Paper 002 (Shin et al., NVMSA 2020, Shin et al., "Exploring Performance Characteristics of
//! ZNS SSDs: Observation and Implication"), section IV, on `proto-zns-1t` (its prototype as far as
//! Table I describes it) against `proto-conv-1t-op7` (a block SSD on the same NAND):
//! - Table II and Figure 3: a 1 GiB file written and read sequentially at 4-128 KiB, QD1;
//! - Figure 4: the worker's IOPS with 0, 1 and 2 other threads in other zones;
//! - Figures 5 and 6: a 10 GiB file written from 60% and 90% utilisation, bandwidth every 0.5 s;
//! - Figure 7: the worker on zones 0-9 of an aged device (NAND aging on).

mod figures;
mod report;

use std::path::Path;

use anyhow::{Context, Result, bail};
use zonelab::config::ExperimentConfig;
use zonelab::experiment::{DeviceSpec, RunOutput};
use zonelab::firmware::FirmwareReport;
use zonelab::ftl::FtlReport;
use zonelab::metrics::{Layer, OpKind};
use zonelab::report::Summary;

use super::{Run, run_parallel, threads};
use report::{claims, summary, table};

use super::claims::publish;

const REQUEST_SIZE: &str =
    include_str!("../../../../../experiments/zns-characteristics/request-size.toml");
const ISOLATION: [&str; 3] = [
    include_str!("../../../../../experiments/zns-characteristics/isolation-0.toml"),
    include_str!("../../../../../experiments/zns-characteristics/isolation-1.toml"),
    include_str!("../../../../../experiments/zns-characteristics/isolation-2.toml"),
];
const PREDICTABILITY: &str =
    include_str!("../../../../../experiments/zns-characteristics/predictability.toml");
const AGED: &str = include_str!("../../../../../experiments/zns-characteristics/aged-zones.toml");

const ZNS: &str = "hynix-1t";
const CONV: &str = "proto-conv-1t-op7";
/// Figure 5's block SSD is scaled down to 128 GiB so it can be preconditioned in seconds: the
/// prototype's NAND with 548 blocks per die (chosen: 128 GiB x 1.07 in 256 MiB superblocks).
const CONV_SCALED_BLOCKS: u32 = 548;
const SIZES_KIB: [u64; 6] = [4, 8, 16, 32, 64, 128];
/// Figure 4's request sizes: the paper's worker (4 KiB, where firmware time dominates) and a
/// large request (128 KiB, chosen) where the NAND and its channels do.
const ISOLATION_KIB: [u64; 2] = [4, 128];
const UTILISATIONS: [f64; 2] = [0.6, 0.9];
const AGED_ZONES: u32 = 10;

/// Table II of the paper, seconds for the 1 GiB file: ZNS write, Tr write, ZNS read, Tr read.
const TABLE_II: [[f64; 6]; 4] = [
    [31.4, 15.9, 8.14, 4.77, 4.29, 2.6],
    [8.42, 7.05, 3.59, 2.5, 1.7, 1.12],
    [43.5, 22.1, 11.9, 8.44, 5.87, 3.48],
    [30.6, 15.8, 8.13, 4.9, 3.03, 1.89],
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dev {
    Zns,
    Conv,
}

impl Dev {
    const BOTH: [Dev; 2] = [Dev::Zns, Dev::Conv];
    fn key(self) -> &'static str {
        match self {
            Dev::Zns => "zns",
            Dev::Conv => "conv",
        }
    }
    fn label(self) -> &'static str {
        match self {
            Dev::Zns => "ZNS",
            Dev::Conv => "Tr SSD",
        }
    }
    fn preset(self) -> String {
        format!(
            "preset=\"{}\"",
            match self {
                Dev::Zns => ZNS,
                Dev::Conv => CONV,
            }
        )
    }
    /// Puts `gib` GiB of data at the start of the device, for readers.
    fn data(self, gib: u32) -> String {
        match self {
            Dev::Zns => format!("\n[prefill]\nfraction = 1.0\nsize = \"{gib}z\"\n"),
            Dev::Conv => format!(
                "\n[precondition]\nfill = {}\nrandom_overwrite = false\n",
                gib as f64 / 1024.0
            ),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Rw {
    Write,
    Read,
}

impl Rw {
    const BOTH: [Rw; 2] = [Rw::Write, Rw::Read];
    fn key(self) -> &'static str {
        match self {
            Rw::Write => "write",
            Rw::Read => "read",
        }
    }
    fn kind(self) -> OpKind {
        match self {
            Rw::Write => OpKind::Write,
            Rw::Read => OpKind::Read,
        }
    }
    /// The experiment text with every job doing this, and the data reads need.
    fn apply(self, text: &str, dev: Dev, gib: u32) -> String {
        match self {
            Rw::Write => text.to_string(),
            Rw::Read => text.replace("rw = \"write\"", "rw = \"read\"") + &dev.data(gib),
        }
    }
}

/// Seconds the run's I/O took (the paper's Table II unit: a 1 GiB file).
fn seconds(s: &Summary) -> f64 {
    s.simulated_time_ns as f64 / 1e9
}

/// IOPS of one QD1 thread doing `kind` commands (one over their mean latency), averaged over
/// the threads: identical threads that start together stay in step, and the simulator's
/// deterministic arbitration then always serves the same one first, so one thread's own number
/// says more about submission order than about sharing.
fn qd1_iops(s: &Summary, kind: OpKind) -> f64 {
    let per_thread: Vec<f64> = s
        .table
        .iter()
        .filter(|r| r.layer == Layer::Device && r.op == kind)
        .map(|r| 1e9 / r.summary.latency_ns.mean)
        .collect();
    per_thread.iter().sum::<f64>() / per_thread.len().max(1) as f64
}

/// (seconds, MiB/s) of writes per interval, without the last (partial) interval.
fn write_bandwidth(r: &RunOutput) -> Vec<(f64, f64)> {
    let bw = r.metrics.bandwidth();
    let secs = bw.interval().secs_f64();
    let mut points: Vec<(f64, f64)> = bw
        .buckets()
        .iter()
        .enumerate()
        .map(|(i, b)| {
            (
                (i + 1) as f64 * secs,
                b[1] as f64 / (1u64 << 20) as f64 / secs,
            )
        })
        .collect();
    points.pop();
    points
}

fn ftl(s: &Summary) -> Option<&FtlReport> {
    match &s.firmware {
        Some(FirmwareReport::Ftl(f)) => Some(f),
        _ => None,
    }
}

/// Bandwidth statistics of a series: mean, minimum, coefficient of variation, and how many
/// intervals fell below half the median.
struct Steadiness {
    mean: f64,
    min: f64,
    cv: f64,
    drops: usize,
    intervals: usize,
}

fn steadiness(points: &[(f64, f64)]) -> Steadiness {
    let v: Vec<f64> = points.iter().map(|p| p.1).collect();
    let n = v.len().max(1) as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    let mut sorted = v.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted.get(sorted.len() / 2).copied().unwrap_or(0.0);
    Steadiness {
        mean,
        min: sorted.first().copied().unwrap_or(0.0),
        cv: if mean > 0.0 { var.sqrt() / mean } else { 0.0 },
        drops: v.iter().filter(|&&x| x < 0.5 * median).count(),
        intervals: v.len(),
    }
}

/// The logical units of the scaled block SSD of Figure 5 (to place the file after the data).
fn scaled_logical_units(scale: super::Scale) -> Result<u64> {
    let text = PREDICTABILITY.to_string();
    let cfg = ExperimentConfig::parse(&text, &conv_scaled(scale))?;
    match cfg.validate("probe")?.device {
        DeviceSpec::Conventional(spec) => Ok(spec.logical_units),
        _ => bail!("{CONV} is a conventional device"),
    }
}

/// Figure 5's block SSD: `--scale N` grows it N times, up to the preset's full 1 TiB.
fn conv_scaled(scale: super::Scale) -> Vec<String> {
    let blocks = scale.count(CONV_SCALED_BLOCKS as u64).min(CONV_FULL_BLOCKS);
    vec![
        Dev::Conv.preset(),
        format!("device.geometry.blocks_per_die={blocks}"),
    ]
}

/// The ZNS zones (of 1 GiB) of `hynix-1t`, where Figure 6's file must fit after the data.
const ZNS_ZONES: u32 = 1024;
/// `proto-conv-1t-op7`'s own blocks per die (1 TiB logical): the most Figure 5's block SSD grows.
const CONV_FULL_BLOCKS: u64 = 4383;

/// Whether Figures 5 and 6's file (10 GiB times the scale) fits after the data on both devices.
fn predictability_fits(scale: super::Scale) -> Result<bool> {
    let file_gib = scale.count(10);
    let first = (UTILISATIONS[1] * ZNS_ZONES as f64).ceil() as u64;
    let logical = scaled_logical_units(scale)? * 4096;
    let filled = (logical as f64 / 4096.0 * UTILISATIONS[1]) as u64 * 4096;
    let offset = filled.div_ceil(1 << 20) << 20;
    Ok(first + file_gib <= ZNS_ZONES as u64 && offset + (file_gib << 30) <= logical)
}

/// Fails when Figures 5 and 6's file would not fit the device at `scale`.
pub fn check_scale(scale: super::Scale) -> Result<()> {
    if !predictability_fits(scale)? {
        let mut max = 1;
        while predictability_fits(super::Scale::new(max + 1)?)? {
            max += 1;
        }
        bail!(
            "zns-characteristics: at --scale {} Figures 5 and 6's file ({} GiB) no longer fits \
             after 90% of the device; the largest scale is {max}",
            scale.factor(),
            scale.count(10)
        );
    }
    Ok(())
}

/// Every run at `scale`, in the order `run` takes their outputs. `--scale N` multiplies each
/// job's bytes (the 1 GiB files, the isolation threads' regions and the data their reads need,
/// Figures 5 and 6's 10 GiB file, Figure 7's reads of each zone), and grows Figure 5's scaled-down
/// block SSD N times (up to its full 1 TiB).
fn runs(scale: super::Scale) -> Result<Vec<Run>> {
    check_scale(scale)?;
    let mut runs = Vec::new();
    request_size_runs(&mut runs, scale);
    isolation_runs(&mut runs, scale);
    predictability_runs(&mut runs, scale)?;
    aged_runs(&mut runs, scale);
    Ok(runs)
}

/// Table II / Figure 3: the 1 GiB file written and read at each request size, on both devices.
fn request_size_runs(runs: &mut Vec<Run>, scale: super::Scale) {
    for dev in Dev::BOTH {
        for rw in Rw::BOTH {
            for kib in SIZES_KIB {
                let text = rw
                    .apply(REQUEST_SIZE, dev, 1)
                    .replace("bs = \"4KiB\"", &format!("bs = \"{kib}KiB\""));
                let name = format!("request-size-{}-{}-{kib}k", dev.key(), rw.key());
                let run = Run::new(name, text, vec![dev.preset()]).scale_text(
                    scale,
                    "job.0.size",
                    "1GiB",
                );
                runs.push(scaled_data(run, scale, dev, rw, 1));
            }
        }
    }
}

/// Figure 4: a thread alone and beside one or two others, per request size, device and op.
fn isolation_runs(runs: &mut Vec<Run>, scale: super::Scale) {
    for kib in ISOLATION_KIB {
        for dev in Dev::BOTH {
            for rw in Rw::BOTH {
                for (n, text) in ISOLATION.iter().enumerate() {
                    let name = format!("isolation-{kib}k-{}-{}-{n}", dev.key(), rw.key());
                    let text = rw
                        .apply(text, dev, n as u32 + 1)
                        .replace("bs = \"4KiB\"", &format!("bs = \"{kib}KiB\""));
                    let mut run = Run::new(name, text, vec![dev.preset()]);
                    for job in 0..=n {
                        if job > 0 {
                            let offset = format!("{job}GiB");
                            run = run.scale_text(scale, &format!("job.{job}.offset"), &offset);
                        }
                        run = run.scale_text(scale, &format!("job.{job}.size"), "1GiB");
                    }
                    runs.push(scaled_data(run, scale, dev, rw, n as u32 + 1));
                }
            }
        }
    }
}

/// Figures 5 and 6: the 10 GiB file written from 60% and 90% utilisation, on both devices.
fn predictability_runs(runs: &mut Vec<Run>, scale: super::Scale) -> Result<()> {
    let logical = scaled_logical_units(scale)?;
    for dev in Dev::BOTH {
        for u in UTILISATIONS {
            let name = format!("predictability-{}-{:.0}", dev.key(), u * 100.0);
            let (text, overrides) = match dev {
                Dev::Zns => {
                    let first = (u * 1024.0).ceil() as u32;
                    let text = PREDICTABILITY.replace(
                        "size = \"10GiB\"",
                        &format!("offset = \"{first}z\"\nsize = \"10z\""),
                    ) + &format!("\n[prefill]\nfraction = {u}\n");
                    (text, vec![dev.preset()])
                }
                Dev::Conv => {
                    let filled = (logical as f64 * u) as u64 * 4096;
                    let offset = filled.div_ceil(1 << 20) << 20;
                    let text = PREDICTABILITY.replace(
                        "size = \"10GiB\"",
                        &format!("offset = {offset}\nsize = \"10GiB\""),
                    ) + &format!("\n[precondition]\nfill = {u}\nround = 0.25\n");
                    (text, conv_scaled(scale))
                }
            };
            let size = match dev {
                Dev::Zns => "10z",
                Dev::Conv => "10GiB",
            };
            runs.push(Run::new(name, text, overrides).scale_text(scale, "job.0.size", size));
        }
    }
    Ok(())
}

/// Figure 7: zones 0-9 of the aged device, and zone 0 of a fresh one for reference.
fn aged_runs(runs: &mut Vec<Run>, scale: super::Scale) {
    for zone in 0..AGED_ZONES {
        let text = AGED.replace("offset = \"0z\"", &format!("offset = \"{zone}z\""));
        runs.push(
            Run::new(format!("aged-zone-{zone}"), text, Vec::new()).scale_text(
                scale,
                "job.0.io_size",
                "1GiB",
            ),
        );
    }
    let fresh = {
        let start = AGED.find("[device.aging]").expect("aging table");
        let end = AGED.find("[prefill]").expect("prefill table");
        format!("{}{}", &AGED[..start], &AGED[end..])
    };
    runs.push(Run::new("fresh-zone-0", fresh, Vec::new()).scale_text(
        scale,
        "job.0.io_size",
        "1GiB",
    ));
}

/// The data a read run needs (`gib` GiB, see [`Dev::data`]) times the scale.
fn scaled_data(run: Run, scale: super::Scale, dev: Dev, rw: Rw, gib: u32) -> Run {
    match (rw, dev) {
        (Rw::Write, _) => run,
        (Rw::Read, Dev::Zns) => run.scale_text(scale, "prefill.size", &format!("{gib}z")),
        (Rw::Read, Dev::Conv) => {
            let mut run = run;
            if !scale.is_shipped() {
                let fill = scale.count(gib as u64) as f64 / 1024.0;
                run.overrides.push(format!("precondition.fill={fill}"));
            }
            run
        }
    }
}

pub fn run(out: &Path, scale: super::Scale) -> Result<()> {
    let runs = runs(scale)?;
    let figures = out.join("figures");
    std::fs::create_dir_all(&figures)
        .with_context(|| format!("cannot create {}", figures.display()))?;
    let outputs = run_parallel(out, runs, threads(), |o| o)?;
    let m = measure(outputs, scale)?;
    figures::draw(&figures, &m)?;
    write_reports(out, scale, &m)
}

/// What the runs measured, in the units the table, summary and figures use.
struct Measured {
    /// Table II and Figure 3: seconds[dev][rw][size], per 1 GiB.
    secs: Secs,
    /// Figure 4: iops[size][dev][rw][others].
    iops: Iops,
    /// Figures 5 and 6's runs: ZNS from 60% and 90%, then the block SSD.
    predictability: Vec<RunOutput>,
    /// Their write bandwidth per interval.
    bw: Vec<Vec<(f64, f64)>>,
    /// Figure 7's runs, zones 0-9 of the aged device.
    aged: Vec<RunOutput>,
    /// Their read MiB/s.
    zone_mib_s: Vec<f64>,
    /// Zone 0 of a fresh device, MiB/s.
    fresh_mib_s: f64,
}

/// Takes the runs' outputs in the order `runs` made them and derives the reported numbers.
fn measure(outputs: Vec<RunOutput>, scale: super::Scale) -> Result<Measured> {
    let mut it = outputs.into_iter();
    let mut take = |n: usize| -> Vec<RunOutput> { (&mut it).take(n).collect() };

    // Table II and Figure 3: seconds[dev][rw][size].
    let mut secs = [[[0.0; 6]; 2]; 2];
    for (d, _) in Dev::BOTH.iter().enumerate() {
        for (r, _) in Rw::BOTH.iter().enumerate() {
            for (k, o) in take(SIZES_KIB.len()).iter().enumerate() {
                // Per 1 GiB (the paper's file) whatever the scale.
                secs[d][r][k] = seconds(&o.summary) / scale.factor() as f64;
            }
        }
    }
    // Figure 4: iops[size][dev][rw][others].
    let mut iops = [[[[0.0; 3]; 2]; 2]; 2];
    for size in iops.iter_mut() {
        for dev in size.iter_mut() {
            for (r, rw) in Rw::BOTH.iter().enumerate() {
                for (n, o) in take(3).iter().enumerate() {
                    dev[r][n] = qd1_iops(&o.summary, rw.kind());
                }
            }
        }
    }
    let predictability = take(4);
    let aged = take(AGED_ZONES as usize);
    let fresh = take(1).pop().context("the fresh reference run")?;
    let bw: Vec<Vec<(f64, f64)>> = predictability.iter().map(write_bandwidth).collect();
    // Each aged run reads its zone (1 GiB) as many times as the scale.
    let read_mib = 1024.0 * scale.factor() as f64;
    let zone_mib_s: Vec<f64> = aged
        .iter()
        .map(|o| read_mib / seconds(&o.summary))
        .collect();
    let fresh_mib_s = read_mib / seconds(&fresh.summary);
    Ok(Measured {
        secs,
        iops,
        predictability,
        bw,
        aged,
        zone_mib_s,
        fresh_mib_s,
    })
}

/// Writes `table.md` and `summary.md` (with the claims), and prints the summary.
fn write_reports(out: &Path, scale: super::Scale, m: &Measured) -> Result<()> {
    let table = table(m);
    std::fs::write(out.join("table.md"), &table)?;
    let summary = summary(m, &table);
    let what = format!(
        "every job's bytes (the request-size and isolation files {n} GiB, Figures 5 and 6's file \
         {} GiB, each aged zone read {n} times; Table II's seconds are per 1 GiB) and Figure 5's \
         block SSD ({} blocks per die)",
        scale.count(10),
        scale.count(CONV_SCALED_BLOCKS as u64).min(CONV_FULL_BLOCKS),
        n = scale.factor()
    );
    let summary = scale.noted(&what, &summary);
    let summary = publish(
        out,
        "zns-characteristics",
        &summary,
        &claims(&m.secs, &m.iops),
    )?;
    std::fs::write(out.join("summary.md"), &summary)?;
    print!("{summary}");
    eprintln!(
        "results, figures, table.md and summary.md in {}",
        out.display()
    );
    Ok(())
}

type Secs = [[[f64; 6]; 2]; 2];
type Iops = [[[[f64; 3]; 2]; 2]; 2];

fn retries_per_read(s: &Summary) -> f64 {
    s.device_counters.read_retries as f64 / s.device_counters.nand_page_reads.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::super::Scale;
    use super::*;

    fn find<'a>(runs: &'a [Run], name: &str) -> &'a Run {
        runs.iter().find(|r| r.name == name).expect(name)
    }

    #[test]
    fn scale_multiplies_the_bytes_and_grows_the_scaled_block_ssd() {
        let shipped = runs(Scale::SHIPPED).unwrap();
        let two = runs(Scale::new(2).unwrap()).unwrap();
        assert_eq!(shipped.len(), two.len());
        let preset = |d: Dev| d.preset();
        assert_eq!(
            find(&shipped, "request-size-zns-write-4k").overrides,
            vec![preset(Dev::Zns)]
        );
        assert_eq!(
            find(&two, "request-size-zns-read-4k").overrides,
            vec![
                preset(Dev::Zns),
                "job.0.size=\"2GiB\"".to_string(),
                "prefill.size=\"2z\"".to_string(),
            ]
        );
        assert_eq!(
            find(&two, "isolation-4k-conv-read-2").overrides,
            vec![
                preset(Dev::Conv),
                "job.0.size=\"2GiB\"".to_string(),
                "job.1.offset=\"2GiB\"".to_string(),
                "job.1.size=\"2GiB\"".to_string(),
                "job.2.offset=\"4GiB\"".to_string(),
                "job.2.size=\"2GiB\"".to_string(),
                format!("precondition.fill={}", 6.0 / 1024.0),
            ]
        );
        assert_eq!(
            find(&shipped, "predictability-conv-90").overrides,
            vec![
                preset(Dev::Conv),
                "device.geometry.blocks_per_die=548".to_string()
            ]
        );
        assert_eq!(
            find(&two, "predictability-conv-90").overrides,
            vec![
                preset(Dev::Conv),
                "device.geometry.blocks_per_die=1096".to_string(),
                "job.0.size=\"20GiB\"".to_string(),
            ]
        );
        assert_eq!(
            find(&two, "predictability-zns-60").overrides,
            vec![preset(Dev::Zns), "job.0.size=\"20z\"".to_string()]
        );
        assert_eq!(
            find(&two, "aged-zone-3").overrides,
            vec!["job.0.io_size=\"2GiB\"".to_string()]
        );
        // Shipped: only the device presets and the scaled block SSD, as before `--scale`.
        for r in &shipped {
            assert!(
                r.overrides
                    .iter()
                    .all(|o| o.starts_with("preset=") || o.starts_with("device.geometry")),
                "{}: {:?}",
                r.name,
                r.overrides
            );
        }
        // Every scaled run is a valid experiment.
        for r in &two {
            ExperimentConfig::parse(&r.text, &r.overrides)
                .and_then(|c| c.validate(&r.name))
                .unwrap_or_else(|e| panic!("{}: {e}", r.name));
        }
        // The block SSD grows to its full size, and the file stops fitting past scale 10.
        assert!(runs(Scale::new(10).unwrap()).is_ok());
        let err = runs(Scale::new(11).unwrap()).err().unwrap().to_string();
        assert!(err.contains("largest scale is 10"), "{err}");
    }
}
