//! `zonelab run`: drive a simulation with a progress bar, write the results directory, and print
//! the summary table.

use std::fs::File;
use std::io::{BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use zonelab::Experiment;
use zonelab::config::ExperimentConfig;
use zonelab::experiment::{Inputs, RunOutput};
use zonelab::metrics::Layer;
use zonelab::trace::{TraceRecord, TraceSink};
use zonelab::workload::StopReason;

mod describe;
mod table;

pub use describe::describe;
pub use table::table;

pub fn run(
    path: &Path,
    output: Option<PathBuf>,
    overrides: &[String],
    seed: Option<u64>,
    quiet: bool,
    state: Option<&Path>,
) -> Result<ExitCode> {
    let mut cfg = crate::load_config(path, overrides)?;
    if let Some(seed) = seed {
        cfg.seed = seed;
    }
    // With a state file, its lock is held until the device is saved back (`_lock`).
    let Opened {
        cfg,
        exp,
        device,
        identity,
        lock: _lock,
    } = open_device(path, overrides, cfg, state, quiet)?;
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
    let dir = output.unwrap_or_else(|| default_dir(&exp.name));
    let mut inputs = inputs(path, &exp, &dir)?;
    stop_on_ctrl_c(&mut inputs);
    let bar = progress_bar(quiet);
    let wall = std::time::Instant::now();
    let out = zonelab::experiment::run_on(&exp, device, inputs, print, &mut |p| {
        bar.set_position((p.fraction * 1000.0) as u64);
        bar.set_message(format!("simulated {:.3} s", p.simulated.secs_f64()));
    })
    .with_context(|| format!("in {}", path.display()))?;
    bar.finish_and_clear();
    let wall_s = wall.elapsed().as_secs_f64();

    write_results(&dir, &cfg, &out, exp.trace)?;
    if let Some((file, identity)) = &identity {
        let end = out.device.idle_at();
        crate::state_file::save(file, identity, end, &*out.device)?;
    }
    if !quiet {
        print_summary(&out, wall_s, &dir);
    }
    warn_of_empty_reads(&out);
    Ok(exit_code(&out, &dir))
}

/// The device a run starts on, and the configuration it is described by.
struct Opened<'a> {
    cfg: ExperimentConfig,
    exp: Experiment,
    device: Box<dyn zonelab::device::DeviceModel>,
    /// The state file to save the device into, and its configuration as the file records it.
    identity: Option<(&'a Path, String)>,
    lock: Option<zonelab_io::StateLock>,
}

/// The device `cfg` builds, or the one the state file holds (which `cfg` must describe).
fn open_device<'a>(
    path: &Path,
    overrides: &[String],
    cfg: ExperimentConfig,
    state: Option<&'a Path>,
    quiet: bool,
) -> Result<Opened<'a>> {
    let validate = |c: &ExperimentConfig| c.validate(&crate::default_name(path));
    let in_file = || format!("in {}", path.display());
    Ok(match state {
        None => {
            let exp = validate(&cfg).map_err(|e| crate::config_error(path, overrides, e))?;
            let device = zonelab::experiment::build_device(&exp);
            Opened {
                cfg,
                exp,
                device,
                identity: None,
                lock: None,
            }
        }
        Some(file) => {
            let l =
                crate::state_file::open(file, Some(cfg), &[], &validate).with_context(in_file)?;
            if !quiet && !l.created {
                println!("device from {} (its clock at {})", file.display(), l.start);
            }
            Opened {
                cfg: l.cfg,
                exp: l.exp,
                device: l.driver.into_device(),
                identity: Some((file, l.identity)),
                lock: Some(l.lock),
            }
        }
    })
}

/// Ctrl-C (or SIGTERM) stops the run; it ends with its results so far, written as usual.
fn stop_on_ctrl_c(inputs: &mut Inputs) {
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = stop.clone();
    // (A second handler cannot be installed, as when Python or a test runs two experiments in
    // one process: those runs are then stopped the way the process is.)
    let _ = ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::Relaxed));
    inputs.limits.stop = Some(stop);
}

fn progress_bar(quiet: bool) -> ProgressBar {
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(1000)
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {wide_bar} {percent}% {msg}")
            .expect("valid template"),
    );
    bar
}

/// The summary table and the run's pace against the wall clock.
fn print_summary(out: &RunOutput, wall_s: f64, dir: &Path) {
    print!("{}", table(&out.summary));
    let ios: u64 = out.summary.ops.values().map(|o| o.count).sum();
    let kv: u64 = out
        .summary
        .table
        .iter()
        .filter(|r| r.layer == Layer::Kv)
        .map(|r| r.summary.count)
        .sum();
    let kv_rate = if kv > 0 {
        format!(
            ", {:.0} key-value operations per wall second",
            kv as f64 / wall_s.max(1e-9)
        )
    } else {
        String::new()
    };
    println!(
        "wall {wall_s:.2} s for {:.3} simulated s ({:.0} commands per wall second{kv_rate}); results in {}",
        out.summary.simulated_time_ns as f64 / 1e9,
        ios as f64 / wall_s.max(1e-9),
        dir.display()
    );
}

/// A job that read nothing because nothing was there ran as asked, but is rarely what was
/// meant: say so beside the (empty) table instead of exiting quietly.
fn warn_of_empty_reads(out: &RunOutput) {
    for j in &out.summary.jobs {
        if j.reads + j.writes + j.resets == 0 && j.stopped.contains(&StopReason::NoDataToRead) {
            eprintln!(
                "warning: job {} read nothing: the LBAs it reads hold no data (nothing was \
                 prefilled or written before it); add a [prefill] or a job that writes first",
                j.name
            );
        }
    }
}

/// 130 for a run stopped early, 1 if the device rejected commands no layer rode through
/// (each named), 0 otherwise.
fn exit_code(out: &RunOutput, dir: &Path) -> ExitCode {
    if let Some(why) = out.summary.stopped_early {
        eprintln!(
            "stopped early ({why:?}) at simulated {:.3} s: the results so far are in {} (summary.json says so)",
            out.summary.simulated_time_ns as f64 / 1e9,
            dir.display()
        );
        return ExitCode::from(130);
    }
    if out.summary.errors.is_empty() {
        return ExitCode::SUCCESS;
    }
    let s = &out.summary;
    if s.errors_total == s.errors_ridden_through {
        // The host layer took every rejection in (`[fs] on_zone_error = "relocate"`).
        eprintln!(
            "note: the device rejected {} commands and the file layer went on from each \
             (summary.json: errors, layers.fs.zone_errors)",
            s.errors_total
        );
        return ExitCode::SUCCESS;
    }
    for e in &out.summary.errors {
        let line = e
            .trace_line
            .map(|l| format!(" (trace line {l})"))
            .unwrap_or_default();
        eprintln!(
            "error: {}: {} at LBA {:#x} failed{line}: {}",
            e.source, e.command, e.lba, e.status
        );
    }
    let more = out.summary.errors_total - out.summary.errors.len() as u64;
    if more > 0 {
        eprintln!(
            "error: and {more} more rejected commands (counted in summary.json, errors_total)"
        );
    }
    ExitCode::from(1)
}

/// Where a run's results go without `-o`: `results/<name>`, the name made safe for a file name
/// (no `/`, no leading dots), so an experiment's name cannot point outside `results/`.
pub fn default_dir(name: &str) -> PathBuf {
    PathBuf::from("results").join(zonelab::report::file_safe(name))
}

/// The traces the experiment's `[[replay]]`s name (relative to the experiment file), and the
/// trace file the run writes into `dir` when `[trace]` is on.
pub fn inputs(path: &Path, exp: &Experiment, dir: &Path) -> Result<Inputs> {
    let base = path.parent().unwrap_or(Path::new("."));
    let mut traces: Vec<Box<dyn BufRead>> = Vec::new();
    for r in &exp.replays {
        let p = base.join(&r.trace);
        let f = zonelab_io::open_trace(&p)
            .with_context(|| format!("replay `{}`: cannot open {}", r.name, p.display()))?;
        traces.push(f);
    }
    let trace_sink: Option<Box<dyn TraceSink>> = if exp.trace {
        prepare_dir(dir)?;
        Some(Box::new(CsvFile::create(&dir.join("trace.csv"), exp)?))
    } else {
        None
    };
    Ok(Inputs {
        traces,
        trace_sink,
        limits: Default::default(),
    })
}

/// The per-command trace, streamed to a CSV file.
pub struct CsvFile {
    out: BufWriter<File>,
    channels: u32,
    line: String,
    error: Option<std::io::Error>,
}

impl CsvFile {
    pub fn create(path: &Path, exp: &Experiment) -> Result<Self> {
        let f = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
        let mut out = BufWriter::with_capacity(1 << 20, f);
        writeln!(out, "{}", zonelab::trace::CSV_HEADER)?;
        Ok(CsvFile {
            out,
            channels: exp.device.nand().geometry.channels,
            line: String::new(),
            error: None,
        })
    }
}

impl TraceSink for CsvFile {
    fn record(&mut self, r: &TraceRecord) {
        if self.error.is_some() {
            return;
        }
        self.line.clear();
        zonelab::trace::csv_line(r, self.channels, &mut self.line);
        self.line.push('\n');
        if let Err(e) = self.out.write_all(self.line.as_bytes()) {
            self.error = Some(e);
        }
    }

    fn finish(&mut self) -> std::io::Result<()> {
        match self.error.take() {
            Some(e) => Err(e),
            None => self.out.flush(),
        }
    }
}

/// Makes `dir` hold only what this run writes: results files an earlier run left there go
/// (only files with the names ZoneLab gives its results; see [`zonelab_io::is_results_file`]).
pub fn prepare_dir(dir: &Path) -> Result<()> {
    zonelab_io::clear_results_dir(dir, &[])
}

/// Writes a run's results directory; `trace` says whether this run streamed `trace.csv` into
/// it (kept; any other trace.csv is an earlier run's and goes).
pub fn write_results(
    dir: &Path,
    cfg: &ExperimentConfig,
    out: &RunOutput,
    trace: bool,
) -> Result<()> {
    write_files(dir, &out.files(&cfg.to_toml()), trace)
}

/// Writes rendered results files into `dir`, which then holds only them (and the trace.csv
/// this run wrote there, when `trace`): every results file an earlier run left goes.
pub fn write_files(dir: &Path, files: &[(String, String)], trace: bool) -> Result<()> {
    let keep: &[&str] = if trace { &["trace.csv"] } else { &[] };
    zonelab_io::write_results_dir(dir, files, keep)
}
