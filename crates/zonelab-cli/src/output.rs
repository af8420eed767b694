//! `zonelab run`: drive a simulation with a progress bar, write the results directory, and print
//! the summary table.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use zonelab::Experiment;
use zonelab::config::ExperimentConfig;
use zonelab::firmware::FirmwareReport;
use zonelab::metrics::{Metrics, OpKind, Summary};
use zonelab::sim::RunOutput;
use zonelab::zns::Device;

pub fn run(
    path: &Path,
    output: Option<PathBuf>,
    overrides: &[String],
    quiet: bool,
) -> Result<ExitCode> {
    let (cfg, exp) = crate::load(path, overrides)?;
    let print = cfg.fingerprint();
    if !quiet {
        println!(
            "zonelab {} | experiment {} | seed {} | config {print:016x}",
            env!("CARGO_PKG_VERSION"),
            exp.name,
            exp.seed
        );
        print!("{}", describe(&exp, &cfg));
    }
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(1000)
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {wide_bar} {percent}% {msg}")
            .expect("valid template"),
    );
    let wall = Instant::now();
    let out = zonelab::run(&exp, print, &mut |p| {
        bar.set_position((p.fraction * 1000.0) as u64);
        bar.set_message(format!("simulated {:.3} s", p.simulated_ns as f64 / 1e9));
    });
    bar.finish_and_clear();
    let wall_s = wall.elapsed().as_secs_f64();

    let dir = output.unwrap_or_else(|| PathBuf::from("results").join(&exp.name));
    write_results(&dir, &cfg, &out)?;
    if !quiet {
        print!("{}", table(&out.summary));
        let ios: u64 = out.summary.ops.values().map(|o| o.count).sum();
        println!(
            "wall {wall_s:.2} s for {:.3} simulated s ({:.0} commands per wall second); results in {}",
            out.summary.simulated_time_ns as f64 / 1e9,
            ios as f64 / wall_s.max(1e-9),
            dir.display()
        );
    }
    if out.summary.errors.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    for e in &out.summary.errors {
        eprintln!(
            "error: job {}: {} at LBA {:#x} failed: {}",
            e.job, e.command, e.lba, e.status
        );
    }
    Ok(ExitCode::from(1))
}

/// Writes a run's results directory.
pub fn write_results(dir: &Path, cfg: &ExperimentConfig, out: &RunOutput) -> Result<()> {
    write_parts(dir, cfg, &out.summary, &out.metrics, &out.device)
}

/// Writes the results of `device` measured by `metrics`, as `zonelab run` does.
pub fn write_parts(
    dir: &Path,
    cfg: &ExperimentConfig,
    summary: &Summary,
    metrics: &Metrics,
    device: &Device,
) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).with_context(|| format!("cannot write {}", p.display()))
    };
    write(
        "summary.json",
        &(serde_json::to_string_pretty(&summary)? + "\n"),
    )?;
    write("config.resolved.toml", &cfg.to_toml())?;
    write("timeseries.csv", &metrics.series.to_csv())?;
    write("latency_percentiles.csv", &metrics.percentiles_csv())?;
    for kind in OpKind::ALL {
        if metrics.ops(kind) > 0 {
            write(
                &format!("latency_cdf_{}.csv", kind.name()),
                &zonelab::metrics::cdf_csv(metrics.histogram(kind)),
            )?;
        }
    }
    if device.erase_wait_histogram().max() > 0 {
        write(
            "erase_wait_cdf.csv",
            &zonelab::metrics::cdf_csv(device.erase_wait_histogram()),
        )?;
    }
    if let Some(f) = &summary.firmware {
        write("firmware_over_time.csv", &zonelab::metrics::firmware_csv(f))?;
    }
    let mut zones = String::from("zone,zslba,state,wp,capacity_lbas\n");
    for z in 0..device.zone_count() {
        let d = device.zone(z);
        let _ = writeln!(
            zones,
            "{z},{},{},{},{}",
            d.zslba,
            d.state.nvme_cli_name(),
            d.wp,
            d.capacity_lbas
        );
    }
    write("zones.csv", &zones)
}

/// What the experiment resolved to, in a few lines.
pub fn describe(exp: &Experiment, cfg: &ExperimentConfig) -> String {
    let g = &exp.device.geometry;
    let t = &exp.device.timing;
    let limit = |l: Option<u32>| l.map_or("no limit".to_string(), |v| v.to_string());
    let mut s = format!(
        "device {}: {} zones of {} MiB (capacity {} MiB) over {} of {} dies, {} KiB pages; open {}, active {}\n",
        exp.device.name,
        g.zone_count,
        g.zone_size_bytes >> 20,
        g.zone_capacity_bytes as f64 / (1 << 20) as f64,
        g.dies_per_zone,
        g.dies(),
        g.page_size_bytes >> 10,
        limit(g.max_open_zones),
        limit(g.max_active_zones),
    );
    let _ = writeln!(
        s,
        "timing: tR {} us, tPROG {} us, erase {} ms, channel {} MB/s, host {} MB/s; firmware {}",
        t.read_latency_ns as f64 / 1e3,
        t.program_latency_ns as f64 / 1e3,
        t.erase_latency_ns as f64 / 1e6,
        t.channel_rate_mb_s,
        t.host_rate_mb_s,
        toml::to_string(&cfg.firmware)
            .unwrap_or_default()
            .replace('\n', " ")
            .trim()
    );
    if exp.prefill_fraction > 0.0 {
        let _ = writeln!(
            s,
            "prefill: {:.0}% of capacity",
            exp.prefill_fraction * 100.0
        );
    }
    for j in &exp.jobs {
        let _ = writeln!(
            s,
            "job {}: {:?} bs {} KiB, iodepth {}, numjobs {}, zones {}..{}",
            j.name,
            j.rw,
            j.block_lbas * g.lba_size_bytes / 1024,
            j.iodepth,
            j.numjobs,
            j.first_zone,
            j.first_zone + j.zone_count
        );
    }
    s
}

fn us(ns: u64) -> String {
    format!("{:.1}", ns as f64 / 1e3)
}

/// The summary as a table: one row per operation kind, then device counters.
pub fn table(s: &Summary) -> String {
    let mut t = format!(
        "\n{:<7} {:>10} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10}\n",
        "op",
        "count",
        "IOPS",
        "MiB/s",
        "mean us",
        "p50 us",
        "p99 us",
        "p99.9 us",
        "p99.99",
        "p100 us"
    );
    for (name, o) in &s.ops {
        let p = &o.latency_ns.percentiles;
        let _ = writeln!(
            t,
            "{:<7} {:>10} {:>10.0} {:>9.1} {:>9.1} {:>9} {:>9} {:>9} {:>9} {:>10}",
            name,
            o.count,
            o.iops,
            o.mib_per_s,
            o.latency_ns.mean / 1e3,
            us(p["p50"]),
            us(p["p99"]),
            us(p["p99.9"]),
            us(p["p99.99"]),
            us(p["p100"])
        );
    }
    let d = &s.device_counters;
    let _ = writeln!(
        t,
        "\nhost: {:.1} MiB read, {:.1} MiB written | NAND: {} page reads, {} page programs, {} block erases | WAF {}",
        d.host_read_bytes as f64 / (1 << 20) as f64,
        d.host_write_bytes as f64 / (1 << 20) as f64,
        d.nand_page_reads,
        d.nand_page_programs,
        d.block_erases,
        d.waf.map_or("-".to_string(), |w| format!("{w:.3}"))
    );
    let _ = writeln!(
        t,
        "zone resets: {} requested, {} executed | finishes {} | implicit closes {}",
        d.zone_resets_requested, d.zone_resets_executed, d.zone_finishes, d.implicit_closes
    );
    let e = &s.energy;
    let _ = writeln!(
        t,
        "energy: {:.3} mJ (read {:.3}, program {:.3}, erase {:.3}) | wear: erases per block min {} mean {:.3} max {}",
        e.total_mj,
        e.read_mj,
        e.program_mj,
        e.erase_mj,
        s.wear.min_erases,
        s.wear.mean_erases,
        s.wear.max_erases
    );
    let w = &s.erase_wait_ns;
    if w.percentiles["p100"] > 0 {
        let _ = writeln!(
            t,
            "erase wait per I/O: mean {:.1} us, p99 {} us, p100 {} us",
            w.mean / 1e3,
            us(w.percentiles["p99"]),
            us(w.percentiles["p100"])
        );
    }
    match &s.firmware {
        Some(FirmwareReport::ZoneMapping(f)) => {
            let _ = writeln!(
                t,
                "firmware: S0 {:.3} s, S1 {:.3} s, S2 {:.3} s | partial erases {} | full zone erases {} | free {} invalid {}",
                f.time_in_s0_ns as f64 / 1e9,
                f.time_in_s1_ns as f64 / 1e9,
                f.time_in_s2_ns as f64 / 1e9,
                f.partial_zone_erases,
                f.full_zone_erases,
                f.free_zones,
                f.invalid_zones
            );
        }
        Some(FirmwareReport::Renewable(r)) => {
            let _ = writeln!(
                t,
                "renewable: {} host resets ({} Rzone, {} Nzone) | {} zones erased | {} zombie reclaims | {} ReGC releases | {} units recycled | spare-list {} (max {})",
                r.host_resets,
                r.rzone_resets,
                r.nzone_resets,
                r.zones_erased,
                r.zombie_reclaims,
                r.regc_releases,
                r.units_recycled,
                r.spare_zones,
                r.spare_zones_max
            );
        }
        None => {}
    }
    for j in &s.jobs {
        let _ = writeln!(
            t,
            "job {}: {} reads, {} writes, {} resets; stopped: {}",
            j.name, j.reads, j.writes, j.resets, j.stopped
        );
    }
    t
}
