//! `zonelab`: the command-line front end of the ZoneLab simulator. Parsing and files live here;
//! the simulation lives in the `zonelab` library.

mod bench;
mod manager;
mod reproduce;
mod trace_stats;
#[cfg(feature = "ublk")]
mod ublk;
mod validate;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand, ValueEnum};
use zonelab::config::{ExperimentConfig, presets};
use zonelab::device::{
    ReportFilter, ZoneDescriptor, ZoneReport, ZoneState, format_libzbd, format_nvme_cli,
};
use zonelab_cli::{load, output};

#[derive(Parser)]
#[command(
    name = "zonelab",
    version,
    about = "Deterministic simulator of NVMe ZNS SSDs"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run an experiment file and write its results.
    Run {
        /// The experiment file (TOML: device, firmware, jobs or host layers; see experiments/).
        experiment: PathBuf,
        /// Results directory (default: results/<experiment name>).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Override a field, e.g. --set device.timing.read_latency_ns=50000 (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        overrides: Vec<String>,
        /// Override the experiment's seed (0 to 9223372036854775807).
        #[arg(long)]
        seed: Option<u64>,
        /// No progress bar and no table.
        #[arg(short, long)]
        quiet: bool,
        /// Run on the device saved in this state file (built as the experiment says if it does
        /// not exist yet) and save the device there at the end.
        #[arg(long, value_name = "FILE")]
        state: Option<PathBuf>,
    },
    /// Validate an experiment file and show what it resolves to.
    Check {
        /// The experiment file (TOML: device, firmware, jobs or host layers; see experiments/).
        experiment: PathBuf,
        /// Override a field, as `zonelab run --set` (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        overrides: Vec<String>,
    },
    /// List the device presets (the default) or show one.
    Presets {
        #[command(subcommand)]
        action: Option<PresetAction>,
    },
    /// Zones of a device kept in a state file: report, info, open, close, finish, reset, offline
    /// (as nvme-cli's zns commands print them).
    Zone(manager::ZoneArgs),
    /// Read or write LBAs of a device kept in a state file (as nvme-cli's read and write).
    Io(manager::IoArgs),
    /// Report zones like nvme-cli or libzbd: of a fresh preset, an experiment's device after its
    /// set-up (faults, prefill), or the device at the end of a run.
    ReportZones {
        /// A fresh device of this preset (`zonelab presets list`).
        #[arg(long, conflicts_with_all = ["experiment", "results"])]
        preset: Option<String>,
        /// The device of this experiment file after its set-up (faults, prefill).
        #[arg(long, conflicts_with = "results")]
        experiment: Option<PathBuf>,
        /// A results directory written by `zonelab run`.
        #[arg(long)]
        results: Option<PathBuf>,
        /// How to print the zones: nvme-cli's `zns report-zones` format or libzbd's.
        #[arg(long, value_enum, default_value_t = Format::Nvme)]
        format: Format,
        /// Only zones in this state (EMPTY, IMP_OPENED, EXP_OPENED, CLOSED, READONLY, FULL, OFFLINE),
        /// as `zonelab zone report --filter` (`--state` names a state file elsewhere).
        #[arg(long, value_name = "ZONE_STATE")]
        filter: Option<String>,
        /// At most this many descriptors (default: all).
        #[arg(long)]
        max: Option<usize>,
    },
    /// What a host did to a zoned device, from a ZoneLab CSV trace (`.gz` too): zone resets and
    /// how full each reset zone was, zones opened and filled, write sizes, flushes, reads.
    TraceStats {
        /// The trace (a run's trace.csv, or one `zonelab ublk` captured).
        trace: PathBuf,
        /// The experiment file whose device the trace was taken on.
        #[arg(long)]
        experiment: PathBuf,
        /// Count only the commands after the capture's marker (an explicit zone Open, which
        /// vm/guest/rezns.sh sends between its set-up and its workload).
        #[arg(long)]
        after_marker: bool,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Rerun one paper's experiments: results, figures (SVG), a table and a summary.
    Reproduce {
        /// Which paper: ezns, lsm-zgc, preemptive-reset, rezns, zns-characteristics or block-interface-tax.
        paper: String,
        /// Where to write (default: results/<paper>).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Run N times larger and longer than shipped, closer to the paper's sizes (each
        /// paper's README says what grows, and how long the runs then take).
        #[arg(long, default_value_t = 1, value_name = "N")]
        scale: u32,
    },
    /// Set the key-value model's counters beside real db_bench's (each within 25%): the
    /// reference is a document from scripts/rocksdb-reference.sh (`--out`, or its JSON lines),
    /// or the committed experiments/kv/dbbench-reference.json. Exit status 1 if any is off.
    ValidateKv {
        /// Reference measurements (default: the committed reference).
        #[arg(long)]
        reference: Option<PathBuf>,
        /// Also write the checks as JSON here.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Check the device presets against published measurements of real drives (each row:
    /// source, microbenchmark, ZoneLab's value, error, tolerance). Exit status 1 if any row is
    /// outside its tolerance.
    ValidateDevice(validate::ValidateArgs),
    /// Fit a preset's timing fields to measurements: the published rows of validate-device
    /// (`--rows PRESET`), or fio results of a real drive.
    Calibrate(validate::CalibrateArgs),
    /// Measure simulated requests per wall-clock second and peak memory.
    Bench {
        /// 20x shorter runs, for a quick look (the same as `--scale 1`).
        #[arg(long, conflicts_with = "scale")]
        quick: bool,
        /// Run length relative to `--quick` (default 20); memory should not grow with it.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000))]
        scale: Option<u64>,
        /// Run one case in this process and print its JSON line.
        #[arg(long)]
        case: Option<String>,
    },
    /// Serve a device as a Linux zoned block device (/dev/ublkbN) through ublk, until Ctrl-C,
    /// SIGTERM or `zonelab ublk --stop`; then write the results. Needs root, Linux >= 6.6 and
    /// `modprobe ublk_drv`.
    #[cfg(feature = "ublk")]
    Ublk(ublk::Args),
    /// Serve a device as a Linux zoned block device through ublk: not in this build (it needs
    /// `--features ublk`, whose build needs libclang).
    #[cfg(not(feature = "ublk"))]
    Ublk {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
        args: Vec<String>,
    },
}

#[derive(Subcommand)]
enum PresetAction {
    /// Every preset: its name and the drive it models.
    List,
    /// One preset's file: its whole device configuration, with the source of each value.
    Show {
        /// The preset's name (`zonelab presets list`).
        name: String,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// As `nvme zns report-zones` prints them.
    Nvme,
    /// As libzbd's `zbd report` prints them.
    Zbd,
}

/// Output piped into `head` ends quietly, as other command-line tools do, instead of failing
/// to print (the Rust runtime ignores SIGPIPE by default).
#[cfg(unix)]
fn default_sigpipe() {
    unsafe extern "C" {
        fn signal(signum: i32, handler: usize) -> usize;
    }
    const SIGPIPE: i32 = 13;
    const SIG_DFL: usize = 0;
    // SAFETY: restores the default disposition of one signal before any thread starts.
    unsafe {
        signal(SIGPIPE, SIG_DFL);
    }
}

fn main() -> ExitCode {
    #[cfg(unix)]
    default_sigpipe();
    match run_cli(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run_cli(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Run {
            experiment,
            output,
            overrides,
            seed,
            quiet,
            state,
        } => {
            check_seed(seed)?;
            output::run(
                &experiment,
                output,
                &overrides,
                seed,
                quiet,
                state.as_deref(),
            )
        }
        Command::Zone(args) => manager::zone(args),
        Command::Io(args) => manager::io(args),
        Command::Check {
            experiment,
            overrides,
        } => check(&experiment, &overrides),
        Command::Presets {
            action: None | Some(PresetAction::List),
        } => list_presets(),
        Command::Presets {
            action: Some(PresetAction::Show { name }),
        } => {
            print!("{}", presets::text(&name)?);
            Ok(ExitCode::SUCCESS)
        }
        Command::ReportZones {
            preset,
            experiment,
            results,
            format,
            filter,
            max,
        } => report_zones(preset, experiment, results, format, filter, max),
        Command::TraceStats {
            trace,
            experiment,
            after_marker,
            json,
        } => print_trace_stats(&trace, &experiment, after_marker, json),
        Command::Reproduce {
            paper,
            output,
            scale,
        } => reproduce_paper(&paper, output, scale),
        #[cfg(feature = "ublk")]
        Command::Ublk(args) => ublk::run(args),
        #[cfg(not(feature = "ublk"))]
        Command::Ublk { .. } => bail!(
            "this zonelab was built without the ublk front end; build it with \
             `cargo build --release -p zonelab-cli --features ublk` \
             (libublk's bindings need libclang: `apt-get install libclang-dev`)"
        ),
        Command::ValidateKv { reference, json } => {
            validate_kv(reference.as_deref(), json.as_deref())
        }
        Command::ValidateDevice(args) => validate::validate(args),
        Command::Calibrate(args) => validate::calibrate(args),
        Command::Bench { quick, scale, case } => run_bench(quick, scale, case),
    }
}

/// `zonelab reproduce`: a paper's figures, into `results/<paper>` unless `-o` says otherwise.
fn reproduce_paper(paper: &str, output: Option<PathBuf>, scale: u32) -> Result<ExitCode> {
    let out = output.unwrap_or_else(|| PathBuf::from("results").join(paper));
    reproduce::run(paper, &out, reproduce::Scale::new(scale)?)?;
    Ok(ExitCode::SUCCESS)
}

/// `zonelab bench`: one case or all, at full scale unless `--quick` or `--scale`.
fn run_bench(quick: bool, scale: Option<u64>, case: Option<String>) -> Result<ExitCode> {
    let scale = scale.unwrap_or(if quick { 1 } else { bench::FULL_SCALE });
    match case {
        Some(name) => bench::run_case(&name, scale)?,
        None => bench::run_all(scale)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `run --seed`: a seed is written into config.resolved.toml, so it must fit a TOML integer.
fn check_seed(seed: Option<u64>) -> Result<()> {
    if let Some(seed) = seed
        && seed > i64::MAX as u64
    {
        bail!(
            "--seed {seed}: a seed is at most {} (it is written into config.resolved.toml, \
             whose integers are signed 64-bit)",
            i64::MAX
        );
    }
    Ok(())
}

/// `zonelab check`: what the experiment resolved to, if it is valid.
fn check(experiment: &Path, overrides: &[String]) -> Result<ExitCode> {
    let (cfg, exp) = load(experiment, overrides)?;
    print!("{}", output::describe(&exp, &cfg));
    println!("ok: {} is valid", experiment.display());
    Ok(ExitCode::SUCCESS)
}

/// `zonelab presets`: each preset's name and description.
fn list_presets() -> Result<ExitCode> {
    let w = presets::PRESETS
        .iter()
        .map(|(n, _)| n.len())
        .max()
        .unwrap_or(0);
    for (name, text) in presets::PRESETS {
        let cfg: zonelab::config::DeviceConfig = toml::from_str(text)?;
        println!("{name:<w$}  {}", cfg.description);
    }
    Ok(ExitCode::SUCCESS)
}

/// `zonelab report-zones`: the zones of a fresh device (a preset's or an experiment's) or of a
/// finished run's results.
fn report_zones(
    preset: Option<String>,
    experiment: Option<PathBuf>,
    results: Option<PathBuf>,
    format: Format,
    filter: Option<String>,
    max: Option<usize>,
) -> Result<ExitCode> {
    let max = max.unwrap_or(usize::MAX);
    let filter = match filter {
        None => ReportFilter::All,
        Some(s) => ReportFilter::State(
            ZoneState::parse(&s).with_context(|| format!("unknown zone state `{s}`"))?,
        ),
    };
    let (report, zone_lbas, lba) = match (preset, experiment, results) {
        (Some(p), None, None) => {
            let text = zonelab::config::preset_file(&p);
            let exp = ExperimentConfig::parse(&text, &[])?.validate_device(&p)?;
            fresh_report(&exp, filter, max)?
        }
        (None, Some(e), None) => fresh_report(&load(&e, &[])?.1, filter, max)?,
        (None, None, Some(dir)) => results_report(&dir, filter, max)?,
        _ => bail!("give one of --preset, --experiment or --results"),
    };
    match format {
        Format::Nvme => print!("{}", format_nvme_cli(&report)),
        Format::Zbd => print!("{}", format_libzbd(&report, zone_lbas, lba)),
    }
    Ok(ExitCode::SUCCESS)
}

/// `zonelab trace-stats`: a trace's statistics, as a table or JSON.
fn print_trace_stats(
    trace: &Path,
    experiment: &Path,
    after_marker: bool,
    json: bool,
) -> Result<ExitCode> {
    let cfg = zonelab_cli::load_config(experiment, &[])?;
    let exp = cfg
        .validate_device(&zonelab_cli::default_name(experiment))
        .map_err(|e| zonelab_cli::config_error(experiment, &[], e))?;
    let phase = if after_marker {
        zonelab::trace::stats::Phase::AfterMarker
    } else {
        zonelab::trace::stats::Phase::All
    };
    let s = trace_stats::of(trace, &exp, phase)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        print!("{}", trace_stats::table(&s));
    }
    Ok(ExitCode::SUCCESS)
}

const COMMITTED_REFERENCE: &str = include_str!("../../../experiments/kv/dbbench-reference.json");

fn validate_kv(reference: Option<&Path>, json: Option<&Path>) -> Result<ExitCode> {
    use zonelab::validation;
    let text = match reference {
        Some(p) => {
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?
        }
        None => COMMITTED_REFERENCE.to_string(),
    };
    // A JSON document, or JSON lines (the script's stdout).
    let doc: serde_json::Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(_) => serde_json::Value::Array(
            text.lines()
                .filter(|l| !l.trim().is_empty())
                .map(serde_json::from_str)
                .collect::<Result<_, _>>()
                .context("the reference is neither a JSON document nor JSON lines")?,
        ),
    };
    let cases = validation::reference_cases(&doc);
    let shapes = validation::shapes(&cases).map_err(anyhow::Error::msg)?;
    if shapes.is_empty() {
        bail!("the reference holds no validation case");
    }
    let mut all = Vec::new();
    for shape in &shapes {
        eprintln!("model: {}", shape.describe());
        let checks = validation::check_shape(shape, &cases).map_err(anyhow::Error::msg)?;
        println!("\n{}\n\n{}", shape.describe(), validation::table(&checks));
        all.extend(checks);
    }
    if let Some(p) = json {
        std::fs::write(p, serde_json::to_string_pretty(&all)?)
            .with_context(|| format!("cannot write {}", p.display()))?;
    }
    let unexpected: Vec<_> = all.iter().filter(|c| !c.as_expected()).collect();
    let checked = all.iter().filter(|c| c.checked).count();
    let known = all.iter().filter(|c| c.known.is_some()).count();
    if unexpected.is_empty() {
        println!(
            "ok: {} shapes, {} of {checked} checked counters within 25% of db_bench's (plus half the range of its runs), {known} \
             known disagreements (each says why)",
            shapes.len(),
            checked - known
        );
        Ok(ExitCode::SUCCESS)
    } else {
        for c in unexpected.iter().filter(|c| c.known.is_some()) {
            println!(
                "{} {}: a known disagreement that now agrees: drop it from KNOWN",
                c.case, c.counter
            );
        }
        println!(
            "FAILED: {} of {checked} counters not as expected (off by more than the tolerance, or a known \
             disagreement that agrees)",
            unexpected.len()
        );
        Ok(ExitCode::from(1))
    }
}

fn fresh_report(
    exp: &zonelab::Experiment,
    filter: ReportFilter,
    max: usize,
) -> Result<(ZoneReport, u64, u64)> {
    if exp.info().zoned.is_none() {
        bail!(
            "device `{}` is a conventional SSD (not zoned): it has no zones to report",
            exp.device.name()
        );
    }
    let device = zonelab::experiment::build_device(exp);
    let report = device
        .report_zones(0, 0, filter, false, max)
        .map_err(anyhow::Error::from)?;
    let info = device.info();
    let zoned = info.zoned().context("the device is not zoned")?;
    Ok((report, zoned.zone_size_lbas, info.lba_size_bytes))
}

/// Rebuilds a report from the zones.csv and resolved config a run left behind.
fn results_report(dir: &Path, filter: ReportFilter, max: usize) -> Result<(ZoneReport, u64, u64)> {
    let (_, exp) = load(&dir.join("config.resolved.toml"), &[])?;
    let info = exp.info();
    let zoned = info.zoned().context("the device is not zoned")?;
    let csv = dir.join("zones.csv");
    let text =
        std::fs::read_to_string(&csv).with_context(|| format!("cannot read {}", csv.display()))?;
    let mut descriptors = Vec::new();
    let mut matching = 0;
    for (n, line) in text.lines().enumerate().skip(1) {
        let bad = || {
            format!(
                "{}:{}: expected zone,zslba,state,wp,capacity_lbas",
                csv.display(),
                n + 1
            )
        };
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != 5 {
            bail!(bad());
        }
        let d = ZoneDescriptor {
            zslba: f[1].parse().with_context(bad)?,
            state: ZoneState::parse(f[2]).with_context(bad)?,
            wp: f[3].parse().with_context(bad)?,
            capacity_lbas: f[4].parse().with_context(bad)?,
        };
        let size = zoned.zone_size_lbas;
        let zone: u64 = f[0].parse().with_context(bad)?;
        if zone >= zoned.zone_count as u64
            || d.zslba != zone * size
            || d.capacity_lbas > size
            || !(d.zslba..=d.zslba + size).contains(&d.wp)
        {
            bail!(
                "{}:{}: zone {zone} (start {}, write pointer {}, capacity {}) does not fit the \
                 device's {} zones of {size} LBAs: the write pointer must lie in the zone",
                csv.display(),
                n + 1,
                d.zslba,
                d.wp,
                d.capacity_lbas,
                zoned.zone_count
            );
        }
        if filter.matches(d.state) {
            matching += 1;
            if descriptors.len() < max {
                descriptors.push(d);
            }
        }
    }
    Ok((
        ZoneReport {
            zone_count: matching,
            descriptors,
        },
        zoned.zone_size_lbas,
        info.lba_size_bytes,
    ))
}

#[cfg(test)]
mod help_tests {
    use clap::CommandFactory;

    use super::Cli;

    /// Every subcommand says what it does, and every argument and value it takes what it means
    /// (`zonelab X --help` answers without reading the source).
    #[test]
    fn every_subcommand_and_argument_has_a_description() {
        let mut cmd = Cli::command();
        cmd.build();
        let mut missing = Vec::new();
        walk(&cmd, "zonelab", &mut missing);
        assert!(missing.is_empty(), "no description: {missing:#?}");
    }

    fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
        if cmd.get_about().is_none() && path != "zonelab" {
            missing.push(path.to_string());
        }
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if arg.is_hide_set() || id == "help" || id == "version" {
                continue;
            }
            if arg.get_help().is_none() {
                missing.push(format!("{path} <{id}>"));
            }
            for value in arg.get_possible_values() {
                if value.get_help().is_none() && !value.is_hide_set() {
                    missing.push(format!("{path} <{id}> {}", value.get_name()));
                }
            }
        }
        for sub in cmd.get_subcommands() {
            if sub.get_name() != "help" {
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
    }
}
