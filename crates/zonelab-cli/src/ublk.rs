//! `zonelab ublk`: serve an experiment's device (or a preset) as a Linux zoned block device, and
//! write its results when it stops; `zonelab ublk --stop` stops a running one.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::ValueEnum;
use zonelab::config::ExperimentConfig;
use zonelab_ublk::adapter::BlockAdapter;
use zonelab_ublk::clock::TimeMode;
use zonelab_ublk::server::{self, ServeOptions};

#[derive(Clone, Copy, ValueEnum)]
pub enum Time {
    /// The device clock moves only with the device: as fast as the host goes.
    Virtual,
    /// Each command completes at the wall-clock time the model computes.
    Realtime,
}

#[derive(clap::Args)]
pub struct Args {
    /// Experiment file giving the device, firmware, faults and prefill ([[job]]s are ignored).
    #[arg(conflicts_with_all = ["preset", "stop"])]
    experiment: Option<PathBuf>,
    /// A device preset instead of an experiment file.
    #[arg(long, conflicts_with = "stop")]
    preset: Option<String>,
    /// Override a field, e.g. --set device.zones.zone_count=32 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
    #[arg(long, value_enum, default_value_t = Time::Virtual)]
    time: Time,
    /// Results directory (default: results/<experiment name>-ublk).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Device id: serve /dev/ublkb<ID> (default: the next free one); with --stop, the device
    /// to stop (default: every ZoneLab device).
    #[arg(long)]
    id: Option<u32>,
    /// Commands the kernel may have outstanding at once.
    #[arg(long, default_value_t = 64)]
    queue_depth: u16,
    /// Stop a running `zonelab ublk` (it writes its results, then exits) and wait for it.
    #[arg(long)]
    stop: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if args.stop {
        let stopped = server::stop(args.id, Duration::from_secs(300))?;
        for id in stopped {
            println!("stopped /dev/ublkb{id}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let (text, default_name) = match (&args.experiment, &args.preset) {
        (Some(path), None) => (
            std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?,
            path.file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("experiment")
                .to_string(),
        ),
        (None, Some(preset)) => (zonelab::config::preset_file(preset), preset.clone()),
        _ => bail!("give an experiment file or --preset NAME"),
    };
    let cfg = ExperimentConfig::parse(&text, &args.overrides)?;
    let exp = cfg.validate_device(&default_name)?;
    let opts = ServeOptions {
        time: match args.time {
            Time::Virtual => TimeMode::Virtual,
            Time::Realtime => TimeMode::Realtime,
        },
        queue_depth: args.queue_depth,
        dev_id: args.id.map_or(-1, |id| id as i32),
        ..ServeOptions::default()
    };
    println!(
        "zonelab {} | experiment {} | seed {} | config {:016x}",
        env!("CARGO_PKG_VERSION"),
        exp.name,
        exp.seed,
        cfg.fingerprint()
    );
    let dir = args
        .output
        .unwrap_or_else(|| PathBuf::from("results").join(format!("{}-ublk", exp.name)));
    let trace = exp.trace;
    let sink = if trace {
        zonelab_cli::output::prepare_dir(&dir)?;
        Some(zonelab_cli::output::CsvFile::create(
            &dir.join("trace.csv"),
            &exp,
        )?)
    } else {
        None
    };
    let mut adapter = BlockAdapter::new(cfg, exp, opts.max_io_bytes)?;
    if let Some(sink) = sink {
        adapter.set_trace(Box::new(sink));
    }
    let l = adapter.limits();
    let limit = |n: u32| {
        if n == 0 {
            "no limit".to_string()
        } else {
            n.to_string()
        }
    };
    let what = format!(
        "host-managed, {} zones of {} MiB (capacity {} MiB), max open {}, max active {}, {} time",
        l.nr_zones,
        (l.zone_sectors as u64 * 512) >> 20,
        (l.zone_capacity_sectors * 512) >> 20,
        limit(l.max_open_zones),
        limit(l.max_active_zones),
        match opts.time {
            TimeMode::Virtual => "virtual",
            TimeMode::Realtime => "real",
        }
    );
    server::serve(
        adapter,
        &opts,
        move |id| {
            println!("/dev/ublkb{id}: {what}; stop with Ctrl-C or `zonelab ublk --stop --id {id}`");
        },
        |adapter| {
            adapter.finish_trace()?;
            adapter.write_results(&dir, &zonelab_cli::output::write_files)?;
            println!("{}", adapter.describe_counts());
            if let Some(kib) = peak_rss_kib() {
                println!("peak memory (VmHWM) {} MiB", kib >> 10);
            }
            println!("results in {}", dir.display());
            Ok(())
        },
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The process's peak resident set, from /proc/self/status.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
