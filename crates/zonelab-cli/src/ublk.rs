//! `zonelab ublk`: serve an experiment's device (or a preset, or the device of a state file) as a
//! Linux zoned block device, and write its results (and its state file) when it stops;
//! `zonelab ublk --stop` stops a running one.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::ValueEnum;
use zonelab::config::ExperimentConfig;
use zonelab::time::Instant;
use zonelab_cli::state_file;
use zonelab_ublk::adapter::{BlockAdapter, Limits};
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
    /// Serve the device saved in this state file (the file `zonelab zone`, `zonelab io`, `run
    /// --state` and the fio engine's zonelab_state use) and save it there when stopping. If FILE
    /// does not exist, the device is built from the experiment or preset; if it does, they may
    /// be left out, and if given must describe the file's device.
    #[arg(long, value_name = "FILE", conflicts_with = "stop")]
    state: Option<PathBuf>,
    /// Override a field, e.g. --set device.zones.zone_count=32 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
    /// When commands complete: as soon as the model has them (virtual), or at the wall-clock
    /// time the model computes (realtime, for latency measured by the host).
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
        return stop(args.id);
    }
    let (cfg, default_name) = config_of(&args)?;
    let opts = serve_options(&args);
    let Served {
        cfg,
        exp,
        mut adapter,
        saved,
    } = open_adapter(
        cfg,
        &default_name,
        &args.overrides,
        args.state.as_deref(),
        opts.max_io_bytes,
    )?;
    print_banner(&cfg, &exp, &adapter, saved.as_ref());
    let dir = args
        .output
        .unwrap_or_else(|| zonelab_cli::output::default_dir(&format!("{}-ublk", exp.name)));
    let trace = exp.trace;
    if trace {
        zonelab_cli::output::prepare_dir(&dir)?;
        let sink = zonelab_cli::output::CsvFile::create(&dir.join("trace.csv"), &exp)?;
        adapter.set_trace(Box::new(sink));
    }
    let what = describe_device(adapter.limits(), opts.time);
    server::serve(
        adapter,
        &opts,
        move |id| {
            println!("/dev/ublkb{id}: {what}; stop with Ctrl-C or `zonelab ublk --stop --id {id}`");
        },
        |adapter| write_results(adapter, &dir, trace, saved.as_ref()),
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `--stop`: stops the running servers and waits for them.
fn stop(id: Option<u32>) -> Result<ExitCode> {
    let stopped = server::stop(id, Duration::from_secs(300))?;
    for id in stopped {
        println!("stopped /dev/ublkb{id}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The configuration the arguments give (none when a state file is to supply it) and the
/// experiment's default name.
fn config_of(args: &Args) -> Result<(Option<ExperimentConfig>, String)> {
    Ok(match (&args.experiment, &args.preset) {
        (Some(path), None) => (
            Some(zonelab_cli::load_config(path, &retaining(&args.overrides))?),
            zonelab_cli::default_name(path),
        ),
        (None, Some(preset)) => (
            Some(ExperimentConfig::parse(
                &zonelab::config::preset_file(preset),
                &retaining(&args.overrides),
            )?),
            preset.clone(),
        ),
        (None, None) if args.state.is_some() => (None, String::new()),
        _ => bail!("give an experiment file, --preset NAME or --state FILE"),
    })
}

fn serve_options(args: &Args) -> ServeOptions {
    ServeOptions {
        time: match args.time {
            Time::Virtual => TimeMode::Virtual,
            Time::Realtime => TimeMode::Realtime,
        },
        queue_depth: args.queue_depth,
        dev_id: args.id.map_or(-1, |id| id as i32),
        ..ServeOptions::default()
    }
}

/// The first lines, as `zonelab run` prints them, and where a loaded device came from.
fn print_banner(
    cfg: &ExperimentConfig,
    exp: &zonelab::Experiment,
    adapter: &BlockAdapter,
    saved: Option<&StateFile>,
) {
    println!(
        "zonelab {} | experiment {} | seed {} | config {:016x}",
        env!("CARGO_PKG_VERSION"),
        exp.name,
        exp.seed,
        cfg.fingerprint()
    );
    if let Some(s) = saved
        && !s.created
    {
        println!(
            "device from {} (its clock at {})",
            s.path.display(),
            Instant::from_ns(adapter.start_ns())
        );
    }
}

/// The served device in one line: zones, limits and time mode.
fn describe_device(l: Limits, time: TimeMode) -> String {
    let limit = |n: u32| {
        if n == 0 {
            "no limit".to_string()
        } else {
            n.to_string()
        }
    };
    format!(
        "host-managed, {} zones of {} MiB (capacity {} MiB), max open {}, max active {}, {} time",
        l.nr_zones,
        (l.zone_sectors as u64 * 512) >> 20,
        (l.zone_capacity_sectors * 512) >> 20,
        limit(l.max_open_zones),
        limit(l.max_active_zones),
        match time {
            TimeMode::Virtual => "virtual",
            TimeMode::Realtime => "real",
        }
    )
}

/// Once stopped: the results into `dir`, the device into its state file, and what it did.
fn write_results(
    adapter: &mut BlockAdapter,
    dir: &Path,
    trace: bool,
    saved: Option<&StateFile>,
) -> Result<()> {
    adapter.finish_trace()?;
    adapter.write_results(dir, &|d, f| zonelab_cli::output::write_files(d, f, trace))?;
    if let Some(s) = saved {
        save_state(adapter, s)?;
        println!("device saved in {}", s.path.display());
    }
    println!("{}", adapter.describe_counts());
    if let Some(kib) = peak_rss_kib() {
        println!("peak memory (VmHWM) {} MiB", kib >> 10);
    }
    println!("results in {}", dir.display());
    Ok(())
}

/// `overrides`, keeping data unless they say otherwise (a file system reads back what it wrote,
/// and a state file records the setting). They apply to the experiment as written, so switching
/// the firmware policy does not inherit the old policy's resolved settings.
fn retaining(overrides: &[String]) -> Vec<String> {
    let mut all = Vec::new();
    if !overrides
        .iter()
        .any(|o| o.trim_start().starts_with("data.retention"))
    {
        all.push("data.retention=true".to_string());
    }
    all.extend(overrides.iter().cloned());
    all
}

/// Where the served device is saved when it stops.
struct StateFile {
    path: PathBuf,
    identity: String,
    /// The file did not exist when the server started.
    created: bool,
    /// Held while the device is served, until it is saved back.
    _lock: zonelab_io::StateLock,
}

/// A device ready to serve.
struct Served {
    cfg: ExperimentConfig,
    exp: zonelab::Experiment,
    adapter: BlockAdapter,
    /// Where it is saved when it stops (`--state`).
    saved: Option<StateFile>,
}

/// The adapter serving the device: built from `cfg`, or loaded from the state file `state`
/// (which `cfg`, if given, must describe; without it the file's configuration is used with
/// `overrides`). A device built new for a state file is prefilled and faulted as configured.
fn open_adapter(
    cfg: Option<ExperimentConfig>,
    default_name: &str,
    overrides: &[String],
    state: Option<&Path>,
    max_io_bytes: u32,
) -> Result<Served> {
    let Some(path) = state else {
        let cfg = cfg.context("no device configuration")?;
        let exp = cfg.validate_device(default_name)?;
        return Ok(Served {
            adapter: BlockAdapter::new(cfg.clone(), exp.clone(), max_io_bytes)?,
            cfg,
            exp,
            saved: None,
        });
    };
    let name = if default_name.is_empty() {
        zonelab_cli::default_name(path)
    } else {
        default_name.to_string()
    };
    let l = state_file::open(path, cfg, overrides, &|c| c.validate_device(&name))?;
    let adapter = BlockAdapter::with_device(
        l.cfg.clone(),
        l.exp.clone(),
        l.driver.into_device(),
        l.start,
        max_io_bytes,
    )
    .with_context(|| format!("the device of {}", path.display()))?;
    Ok(Served {
        cfg: l.cfg,
        exp: l.exp,
        adapter,
        saved: Some(StateFile {
            path: path.to_path_buf(),
            identity: l.identity,
            created: l.created,
            _lock: l.lock,
        }),
    })
}

/// Saves the served device, its clock at the end of everything it did.
fn save_state(adapter: &BlockAdapter, s: &StateFile) -> Result<()> {
    let device = adapter.device();
    let now = device.idle_at().max(Instant::from_ns(adapter.start_ns()));
    state_file::save(&s.path, &s.identity, now, device)
}

/// The process's peak resident set, from /proc/self/status.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use zonelab_ublk::proto::{BLK_ZONE_BYTES, Command, Op};

    const MAX_IO: u32 = 512 << 10;

    /// rezns-40g cut to 8 zones, keeping data (as `zonelab ublk --preset rezns-40g` builds it).
    fn config(zones: u32) -> ExperimentConfig {
        config_with(zones, &[])
    }

    /// The same with more overrides, as `zonelab ublk --preset rezns-40g --set ...` builds it.
    fn config_with(zones: u32, more: &[&str]) -> ExperimentConfig {
        let mut overrides = vec![format!("device.zones.zone_count={zones}")];
        overrides.extend(more.iter().map(|o| o.to_string()));
        ExperimentConfig::parse("preset = \"rezns-40g\"\n", &retaining(&overrides)).unwrap()
    }

    /// A state file's path in a fresh directory, removed when the guard is dropped.
    fn state_path(name: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::Builder::new()
            .prefix(&format!("zonelab-ublk-{name}-"))
            .tempdir()
            .expect("a temporary directory");
        let path = dir.path().join("dev.state");
        (dir, path)
    }

    /// Sends `op` with `buf` (its sectors; a report's zones).
    fn submit(a: &mut BlockAdapter, now: u64, op: Op, sector: u64, buf: &mut [u8]) -> i32 {
        let count = match op {
            Op::ReportZones => (buf.len() / BLK_ZONE_BYTES) as u32,
            _ => (buf.len() / 512) as u32,
        };
        let r = a.submit(now, &Command { op, sector, count }, buf);
        assert!(r.status.is_none(), "{op:?} at {sector}: {r:?}");
        r.result
    }

    /// What the kernel would see between two `zonelab ublk --state FILE` runs, without a kernel:
    /// the first serves a new device and saves it when it stops, the second serves the file's
    /// device (configured by the file alone) with its data, write pointers and clock.
    /// Regression (VM test): `--set firmware.policy=...` on a synchronous preset used to be
    /// applied to the resolved config, which kept `erase_all_blocks` and was refused.
    #[test]
    fn overrides_switch_the_policy_of_the_experiment_as_written() {
        let cfg = config_with(8, &["firmware.policy=\"preemptive\"", "firmware.t_free=0"]);
        assert!(cfg.to_toml().contains("policy = \"preemptive\""));
        assert!(cfg.to_toml().contains("retention = true"));
    }

    #[test]
    fn state_file_is_loaded_at_start_and_saved_on_stop() {
        let (_dir, path) = state_path("roundtrip");
        let mut s = open_adapter(Some(config(8)), "t", &[], Some(&path), MAX_IO).unwrap();
        assert!(s.saved.as_ref().unwrap().created);
        let zone = s.adapter.limits().zone_sectors as u64;
        let mut data: Vec<u8> = (0..16 * 512).map(|i| (i % 251) as u8).collect();
        let start = s.adapter.start_ns();
        assert_eq!(
            submit(&mut s.adapter, start, Op::Write, zone, &mut data),
            8192
        );
        let mut more = vec![7u8; 8 * 512];
        submit(&mut s.adapter, start, Op::Write, zone + 16, &mut more);
        let end = s.adapter.device().idle_at().ns();
        save_state(&s.adapter, s.saved.as_ref().unwrap()).unwrap();
        drop(s);

        let mut s = open_adapter(None, "", &[], Some(&path), MAX_IO).unwrap();
        assert!(!s.saved.as_ref().unwrap().created);
        assert_eq!(s.exp.name, "dev", "named after the file");
        assert!(
            s.adapter.start_ns() >= end,
            "the clock goes on from the first run"
        );
        let mut back = vec![0u8; 16 * 512];
        let now = s.adapter.start_ns();
        submit(&mut s.adapter, now, Op::Read, zone, &mut back);
        assert_eq!(back, data, "the first run's data");
        let mut report = vec![0u8; BLK_ZONE_BYTES];
        submit(&mut s.adapter, now, Op::ReportZones, zone, &mut report);
        let wp = u64::from_ne_bytes(report[16..24].try_into().unwrap());
        assert_eq!(wp, zone + 24, "the first run's write pointer");
        // The second run's writes go on from there, and are saved in turn.
        submit(&mut s.adapter, now, Op::Write, zone + 24, &mut more);
        save_state(&s.adapter, s.saved.as_ref().unwrap()).unwrap();
        // The device holds its state file's lock until it is dropped.
        drop(s);
        let mut s = open_adapter(Some(config(8)), "t", &[], Some(&path), MAX_IO).unwrap();
        let mut report = vec![0u8; BLK_ZONE_BYTES];
        let now = s.adapter.start_ns();
        submit(&mut s.adapter, now, Op::ReportZones, zone, &mut report);
        assert_eq!(
            u64::from_ne_bytes(report[16..24].try_into().unwrap()),
            zone + 32
        );
    }

    #[test]
    fn a_state_file_of_another_device_or_a_corrupt_one_is_refused() {
        let (_dir, path) = state_path("refused");
        let s = open_adapter(Some(config(8)), "t", &[], Some(&path), MAX_IO).unwrap();
        save_state(&s.adapter, s.saved.as_ref().unwrap()).unwrap();
        drop(s);
        let other = open_adapter(Some(config(16)), "t", &[], Some(&path), MAX_IO);
        let e = format!("{:#}", other.err().expect("another device"));
        assert!(e.contains("zone_count"), "{e}");
        // A file system needs its data back: a new device without retention is refused.
        let off = config_with(8, &["data.retention=false"]);
        let new = path.with_file_name("new.state");
        let e = open_adapter(Some(off), "t", &[], Some(&new), MAX_IO);
        let e = format!("{:#}", e.err().expect("no retention"));
        assert!(e.contains("retention"), "{e}");
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        std::fs::write(&path, &bytes).unwrap();
        let e = format!(
            "{:#}",
            open_adapter(None, "", &[], Some(&path), MAX_IO)
                .err()
                .unwrap()
        );
        assert!(
            e.contains(&path.display().to_string()) && e.contains("checksum"),
            "{e}"
        );
    }
}
