//! `zonelab validate-device` (the presets against published measurements of real drives) and
//! `zonelab calibrate` (fitting a preset's timing to measurements).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use zonelab::config::presets;
use zonelab::validation::device::{self, Outcome, Role, Row, Runner, Table, fmt_value};
use zonelab::validation::fit::{self, Target};

#[derive(clap::Args)]
pub struct ValidateArgs {
    /// Only the rows of this preset.
    #[arg(long)]
    preset: Option<String>,
    /// Only rows whose id starts with this.
    #[arg(long)]
    row: Option<String>,
    /// Also write the table as Markdown here (docs/validation.md is this output).
    #[arg(long)]
    markdown: Option<PathBuf>,
    /// Also write the outcomes as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
}

pub fn validate(args: ValidateArgs) -> Result<ExitCode> {
    let table = Table::committed();
    let rows: Vec<&Row> = table
        .row
        .iter()
        .filter(|r| args.preset.as_ref().is_none_or(|p| &r.device == p))
        .filter(|r| {
            args.row
                .as_ref()
                .is_none_or(|p| r.id.starts_with(p.as_str()))
        })
        .collect();
    if rows.is_empty() {
        bail!(
            "no row matches (presets with rows: {})",
            preset_names(&table)
        );
    }
    // The rows' runs are independent and deterministic: on every core, the same outcomes.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let out = device::check(&table, &mut Runner::with_threads(threads), &rows);
    print_outcomes(&out);
    if let Some(p) = &args.markdown {
        std::fs::write(p, device::document(&out))
            .with_context(|| format!("cannot write {}", p.display()))?;
    }
    if let Some(p) = &args.json {
        std::fs::write(p, serde_json::to_string_pretty(&out)?)
            .with_context(|| format!("cannot write {}", p.display()))?;
    }
    let unexpected: Vec<&Outcome> = out.iter().filter(|o| !o.as_expected()).collect();
    let passing: Vec<&Outcome> = out.iter().filter(|o| o.ok).collect();
    let devices: std::collections::BTreeSet<&str> =
        passing.iter().map(|o| o.row.device.as_str()).collect();
    let known = out.iter().filter(|o| o.row.disagreement.is_some()).count();
    if unexpected.is_empty() {
        println!(
            "ok: {} rows over {} devices within their tolerance; {known} known disagreements \
             (docs/validation.md says why)",
            passing.len(),
            devices.len()
        );
        Ok(ExitCode::SUCCESS)
    } else {
        for o in &unexpected {
            if o.row.disagreement.is_some() {
                println!(
                    "{}: a known disagreement that now agrees: drop its mark",
                    o.row.id
                );
            }
        }
        println!(
            "FAILED: {} of {} rows not as the table says",
            unexpected.len(),
            out.len()
        );
        Ok(ExitCode::from(1))
    }
}

fn preset_names(table: &Table) -> String {
    let mut names: Vec<&str> = table.row.iter().map(|r| r.device.as_str()).collect();
    names.dedup();
    names.join(", ")
}

fn print_outcomes(out: &[Outcome]) {
    println!(
        "{:<34} {:>10} {:>10} {:<6} {:>8} {:>5}",
        "row", "published", "ZoneLab", "unit", "error", "tol"
    );
    for o in out {
        let (model, error) = match (&o.model, o.error) {
            (Ok(m), Some(e)) => (fmt_value(*m), format!("{:+.1}%", e * 100.0)),
            (Err(e), _) => {
                println!("{:<34} failed: {e}", o.row.id);
                continue;
            }
            _ => ("-".into(), "-".into()),
        };
        println!(
            "{:<34} {:>10} {:>10} {:<6} {:>8} {:>4.0}%{}",
            o.row.id,
            fmt_value(o.row.published),
            model,
            o.row.unit,
            error,
            o.row.tolerance * 100.0,
            match (o.ok, o.row.disagreement.is_some()) {
                (true, _) => "",
                (false, true) => "  known",
                (false, false) => "  OFF",
            }
        );
    }
}

#[derive(clap::Args)]
pub struct CalibrateArgs {
    /// Write the microbenchmarks as fio job files (and run.sh) into this directory, to run on a
    /// real zoned drive: `DEV=/dev/nvmeXnY sh run.sh` leaves one fio JSON result per job.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["rows", "results"])]
    jobs: Option<PathBuf>,
    /// Fit to the `calibration` rows of validate-device's table for this preset (published
    /// measurements) instead of to fio results.
    #[arg(long, value_name = "PRESET", conflicts_with = "results")]
    rows: Option<String>,
    /// The preset (a name, or a preset file) whose fields the fit starts from and keeps
    /// (default: the --rows preset).
    #[arg(long)]
    base: Option<String>,
    /// Where to write the fitted preset.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Fields to fit, comma-separated (default: every timing field some measurement depends on).
    #[arg(long, value_delimiter = ',')]
    fit: Vec<String>,
    /// Coordinate-descent sweeps.
    #[arg(long, default_value_t = 4)]
    sweeps: u32,
    /// A directory of fio JSON results of the job files `--jobs` writes.
    results: Option<PathBuf>,
}

pub fn calibrate(args: CalibrateArgs) -> Result<ExitCode> {
    if let Some(dir) = &args.jobs {
        return write_jobs(dir);
    }
    if let Some(results) = &args.results {
        return calibrate_results(&args, results);
    }
    let Some(preset) = args.rows.as_deref() else {
        bail!(
            "give --jobs DIR (write the job files), RESULTS --base PRESET (fit a drive's fio results) or --rows PRESET (fit a preset's published rows)"
        );
    };
    let base_name = args.base.as_deref().unwrap_or(preset);
    let base_text = base_preset(base_name)?;
    let base: toml::Table = toml::from_str(&base_text)?;
    let table = Table::committed();
    let mut targets = Vec::new();
    for r in table
        .row
        .iter()
        .filter(|r| r.device == preset && r.role == Role::Calibration)
    {
        targets.push(row_target(&table, r)?);
    }
    if targets.is_empty() {
        bail!("preset {preset} has no calibration rows");
    }
    let params = chosen_params(&args.fit)?;
    let comment = format!("FITTED by `zonelab calibrate --rows {preset}`");
    fit_and_write(
        &args, &base, &base_text, base_name, &targets, &params, &comment,
    )
}

fn chosen_params(names: &[String]) -> Result<Vec<&'static fit::Param>> {
    if names.is_empty() {
        return Ok(fit::PARAMS.iter().collect());
    }
    names
        .iter()
        .map(|n| {
            fit::param(n).with_context(|| {
                format!(
                    "--fit {n}: not a field calibrate fits ({})",
                    fit::PARAMS
                        .iter()
                        .map(|p| p.key.trim_start_matches("timing."))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
        })
        .collect()
}

/// A validate-device row as a fit target.
fn row_target(table: &Table, r: &Row) -> Result<Target> {
    let text = table.render(r, &r.set).map_err(anyhow::Error::msg)?;
    let baseline = match &r.baseline {
        None => None,
        Some(b) => {
            let mut set = r.set.clone();
            set.extend(b.set.iter().map(|(k, v)| (k.clone(), v.clone())));
            Some((
                table.render(r, &set).map_err(anyhow::Error::msg)?,
                b.compare,
            ))
        }
    };
    Ok(Target {
        label: r.id.clone(),
        text,
        metric: r.metric.clone(),
        baseline,
        measured: r.published,
        weight: 1.0,
    })
}

fn report_fit(fitted: &fit::Fitted) {
    println!("\n{:<36} {:>12} {:>12}  moves", "field", "before", "after");
    for p in &fitted.params {
        println!(
            "{:<36} {:>12} {:>12}  {}",
            p.param.key,
            fmt_value(p.before),
            fmt_value(p.after),
            p.moves.join(", ")
        );
    }
    if !fitted.unidentified.is_empty() {
        println!(
            "not fitted (no measurement depends on them): {}",
            fitted.unidentified.join(", ")
        );
    }
    println!(
        "\n{:<40} {:>10} {:>10} {:>9}",
        "measurement", "measured", "model", "residual"
    );
    for (label, model, measured) in &fitted.residuals {
        match model {
            Ok(m) => println!(
                "{label:<40} {:>10} {:>10} {:>+8.1}%",
                fmt_value(*measured),
                fmt_value(*m),
                (m / measured - 1.0) * 100.0
            ),
            Err(e) => println!("{label:<40} {:>10} failed: {e}", fmt_value(*measured)),
        }
    }
    println!("cost (sum of squared log ratios): {:.5}", fitted.cost);
}

fn write_fitted(base_text: &str, fitted: &fit::Fitted, comment: &str, out: &Path) -> Result<()> {
    let mut values = BTreeMap::new();
    for p in &fitted.params {
        // An element of a list is written as the whole list.
        let key = p.param.key.split('[').next().unwrap_or(p.param.key);
        let value = match fit::value(&fitted.device, key) {
            Some(v @ toml::Value::Array(_)) => v.clone(),
            _ => {
                let v = fit::get(&fitted.device, key).context("a fitted field")?;
                if p.param.float {
                    toml::Value::Float(v)
                } else {
                    toml::Value::Integer(v as i64)
                }
            }
        };
        values.insert(key.to_string(), (value, comment.to_string()));
    }
    std::fs::write(out, fit::edit_preset(base_text, &values))
        .with_context(|| format!("cannot write {}", out.display()))?;
    Ok(())
}

/// The fields the calibration jobs pin down. Not zone management (fio times no reset, so erase
/// and reset times stay the base's), and neither a read's firmware time nor the channel's time
/// per operation: both are a fixed cost per read in every job, and a fit moves one against the
/// other (from results ZoneLab made itself under zn540, with those two fitted too, they came
/// back 26% and 27% off while the reads' latencies fitted within 0.1%); they stay the base's
/// unless `--fit` names them.
pub const FIO_FIT: &[&str] = &[
    "read_latency_ns",
    "read_4k_latency_ns",
    "aging.read_4k_latency_ns[0]",
    "aging.read_4k_latency_ns[1]",
    "aging.read_4k_latency_ns[2]",
    "channel_rate_mb_s",
    "host_rate_mb_s",
    "write_overhead_ns",
    "program_latency_ns",
    "controller_parallelism",
];

/// `--jobs DIR`: the calibration jobs as fio job files and a script that runs them.
fn write_jobs(dir: &Path) -> Result<ExitCode> {
    use zonelab::validation::jobs::{CalJob, JOBS};
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let (runtime, ramp) = (30, 5);
    let write = |name: &str, text: String| -> Result<()> {
        let p = dir.join(name);
        std::fs::write(&p, text).with_context(|| format!("cannot write {}", p.display()))
    };
    write("00-prefill.fio", CalJob::fio_prefill())?;
    let mut script = String::from(
        "#!/bin/sh\n# ZoneLab's calibration jobs: DEV=/dev/nvmeXnY sh run.sh, on a zoned namespace whose\n\
         # first zones may be overwritten. Each job leaves NAME.json; then\n\
         #   zonelab calibrate THIS_DIR --base PRESET -o my-drive.toml\n\
         set -e\n: \"${DEV:?set DEV to the zoned block device}\"\n\
         cd \"$(dirname \"$0\")\"\nfio --output-format=json --output=00-prefill.json 00-prefill.fio\n",
    );
    for j in JOBS {
        write(&format!("{}.fio", j.name), j.fio_job(runtime, ramp))?;
        script.push_str(&format!(
            "fio --output-format=json --output={0}.json {0}.fio\n",
            j.name
        ));
    }
    write("run.sh", script)?;
    println!(
        "wrote {} fio jobs and run.sh to {} (about {} minutes on a drive)",
        JOBS.len() + 1,
        dir.display(),
        (JOBS.len() as u32 * (runtime + ramp)).div_ceil(60) + 1
    );
    Ok(ExitCode::SUCCESS)
}

/// The base preset's text: a shipped preset's name, or a preset file.
fn base_preset(base: &str) -> Result<String> {
    match presets::text(base) {
        Ok(t) => Ok(t.to_string()),
        Err(_) if Path::new(base).exists() => std::fs::read_to_string(base)
            .with_context(|| format!("cannot read the base preset {base}")),
        Err(e) => Err(e.into()),
    }
}

/// Fits to a drive's results: for each calibration job, NAME.json (fio's JSON output) or
/// NAME/summary.json (ZoneLab's results of the same job, as the fio engine writes them).
fn calibrate_results(args: &CalibrateArgs, dir: &Path) -> Result<ExitCode> {
    use zonelab::validation::jobs::JOBS;
    let base_name = args
        .base
        .as_deref()
        .context("give --base PRESET: the preset whose other fields the fitted device keeps")?;
    let base_text = base_preset(base_name)?;
    let base: toml::Table = toml::from_str(&base_text)
        .with_context(|| format!("the base preset {base_name} is not TOML"))?;
    let read = |p: &Path| -> Result<serde_json::Value> {
        serde_json::from_str(&std::fs::read_to_string(p)?)
            .with_context(|| format!("{} is not JSON", p.display()))
    };
    let mut targets = Vec::new();
    for j in JOBS {
        let (fio, summary) = (
            dir.join(format!("{}.json", j.name)),
            dir.join(j.name).join("summary.json"),
        );
        let values = if fio.exists() {
            j.from_fio(&read(&fio)?)
        } else if summary.exists() {
            j.from_summary(&read(&summary)?)
        } else {
            eprintln!("{}: no result, left out", j.name);
            continue;
        };
        let runtime = if j.iodepth == 1 { "300ms" } else { "100ms" };
        let text = format!(
            "name = \"{}\"\nseed = 1\npreset = \"calibrated\"\n{}",
            j.name,
            j.zonelab_toml(runtime)
        );
        for ((value, name), (_, weight)) in values.iter().zip(j.metric_names()).zip(j.metrics) {
            let Some(v) = value else {
                eprintln!("{}: no {name} in its result, left out", j.name);
                continue;
            };
            targets.push(Target {
                label: format!("{} {name}", j.name),
                text: text.clone(),
                metric: name,
                baseline: None,
                measured: *v,
                weight: *weight,
            });
        }
    }
    if targets.is_empty() {
        bail!(
            "{} holds no result of the calibration jobs (`zonelab calibrate --jobs DIR` writes them)",
            dir.display()
        );
    }
    let names: Vec<String> = if args.fit.is_empty() {
        FIO_FIT.iter().map(|s| s.to_string()).collect()
    } else {
        args.fit.clone()
    };
    let params = chosen_params(&names)?;
    let comment = format!("FITTED by `zonelab calibrate` to {}", dir.display());
    fit_and_write(
        args, &base, &base_text, base_name, &targets, &params, &comment,
    )
}

/// Fits `params` of `base` to `targets`, prints each field and residual, and writes the fitted
/// preset to `--output` (if given) with `comment` on each fitted line.
fn fit_and_write(
    args: &CalibrateArgs,
    base: &toml::Table,
    base_text: &str,
    base_name: &str,
    targets: &[Target],
    params: &[&'static fit::Param],
    comment: &str,
) -> Result<ExitCode> {
    eprintln!(
        "fitting {} fields of {base_name} to {} measurements",
        params.len(),
        targets.len()
    );
    let fitted = fit::fit(base, targets, params, args.sweeps, &mut |m| {
        eprintln!("  {m}")
    });
    report_fit(&fitted);
    if let Some(out) = &args.output {
        write_fitted(base_text, &fitted, comment, out)?;
        println!("wrote {}", out.display());
    }
    Ok(ExitCode::SUCCESS)
}
