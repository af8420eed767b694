//! The device models against published measurements of real drives (`zonelab validate-device`).
//!
//! `devices.toml` holds the table: microbenchmarks (`[bench.NAME]`, an experiment with
//! `{placeholders}`) and rows, each a published measurement of a real drive with its source,
//! the preset that models the drive, the benchmark and settings that reproduce it, what to read
//! from the run's summary, and a tolerance (15% unless the source's own spread is larger).
//! A row's role says how it is used: `calibration` rows are what the preset's fitted fields were
//! fitted to (`zonelab calibrate --rows PRESET` refits them), `check` rows were not used to fit
//! anything. A row may compare two runs of its benchmark (`baseline`): the change or ratio
//! between them, for measurements published as "x% lower" or "1.7x".
//!
//! Runs are small (thousands of commands) and deterministic; runs with the same text run once.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::config::ExperimentConfig;
use crate::experiment::{Inputs, run};
use crate::metrics::Percentile;
use crate::report::{OpSummary, Summary};

/// The table `zonelab validate-device` checks.
pub const TABLE: &str = include_str!("devices.toml");

/// The default tolerance: 15% of the published value.
const DEFAULT_TOLERANCE: f64 = 0.15;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table {
    pub bench: BTreeMap<String, BenchDef>,
    pub row: Vec<Row>,
}

/// A microbenchmark: an experiment file with `{name}` placeholders, filled from the row's
/// `set` over the benchmark's `defaults`. The row's preset comes first (`preset = ...`), so
/// the text may override device fields.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchDef {
    pub what: String,
    pub toml: String,
    #[serde(default)]
    pub defaults: BTreeMap<String, toml::Value>,
}

/// What a row's numbers are for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The preset's fitted fields were fitted to it.
    Calibration,
    /// Nothing was fitted to it.
    Check,
}

/// How a row with a baseline compares its two runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Compare {
    /// value / baseline - 1, in percent.
    ChangePercent,
    /// value / baseline.
    Ratio,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    #[serde(default)]
    pub set: BTreeMap<String, toml::Value>,
    pub compare: Compare,
}

/// One published measurement.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    pub id: String,
    /// The preset that models the drive.
    pub device: String,
    pub what: String,
    /// Paper (authors, title, venue, year) and table or figure, or the data set and file.
    pub source: String,
    pub published: f64,
    pub unit: String,
    #[serde(default = "default_tolerance")]
    pub tolerance: f64,
    pub role: Role,
    pub bench: String,
    #[serde(default)]
    pub set: BTreeMap<String, toml::Value>,
    /// What to read from the summary (see [`metric`]).
    pub metric: String,
    #[serde(default)]
    pub baseline: Option<Baseline>,
    /// What differs from the source's set-up, or why the tolerance is wider.
    #[serde(default)]
    pub note: Option<String>,
    /// A known disagreement: the row is outside its tolerance, and this says why, from an
    /// experiment (the test checks it is still outside, so a model that comes to agree must
    /// drop the mark).
    #[serde(default)]
    pub disagreement: Option<String>,
}

fn default_tolerance() -> f64 {
    DEFAULT_TOLERANCE
}

/// A row checked.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    pub row: Row,
    /// ZoneLab's value, or why the run failed.
    pub model: Result<f64, String>,
    /// (model - published) / |published|.
    pub error: Option<f64>,
    /// Within its tolerance.
    pub ok: bool,
}

impl Outcome {
    /// As the table expects: within tolerance, or outside it for a known disagreement.
    pub fn as_expected(&self) -> bool {
        self.ok != self.row.disagreement.is_some() && self.model.is_ok()
    }
}

impl Row {
    /// The settings of the row's baseline run: the row's, with the baseline's on top.
    fn baseline_set(&self) -> Option<BTreeMap<String, toml::Value>> {
        let b = self.baseline.as_ref()?;
        let mut set = self.set.clone();
        set.extend(b.set.iter().map(|(k, v)| (k.clone(), v.clone())));
        Some(set)
    }
}

impl Table {
    /// The committed table.
    pub fn committed() -> Table {
        Table::parse(TABLE).expect("the committed devices.toml parses (tested)")
    }

    pub fn parse(text: &str) -> Result<Table, String> {
        let t: Table = toml::from_str(text).map_err(|e| format!("devices.toml: {e}"))?;
        for r in &t.row {
            if !t.bench.contains_key(&r.bench) {
                return Err(format!("row {}: no bench `{}`", r.id, r.bench));
            }
        }
        Ok(t)
    }

    /// The experiment text of `row`'s benchmark with `set` over the benchmark's defaults.
    pub fn render(&self, row: &Row, set: &BTreeMap<String, toml::Value>) -> Result<String, String> {
        let bench = &self.bench[&row.bench];
        let mut values = bench.defaults.clone();
        values.extend(set.iter().map(|(k, v)| (k.clone(), v.clone())));
        let mut text = bench.toml.clone();
        // A value may hold placeholders itself (a job's text): a few passes fill those.
        for _ in 0..3 {
            for (k, v) in &values {
                let v = match v {
                    toml::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                text = text.replace(&format!("{{{k}}}"), &v);
            }
        }
        if let Some(i) = text.find('{')
            && let Some(j) = text[i..].find('}')
            && text[i + 1..i + j]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(format!(
                "row {}: bench `{}` has no value for {}",
                row.id,
                row.bench,
                &text[i..i + j + 1]
            ));
        }
        Ok(format!(
            "name = \"validate-{}\"\nseed = 1\npreset = \"{}\"\n{text}",
            row.id.replace('.', "-"),
            row.device
        ))
    }
}

/// Runs experiment texts, each once per device.
#[derive(Default)]
pub struct Runner {
    done: HashMap<(String, String), Result<Summary, String>>,
    /// How many runs [`check`] makes at once (0 or 1: one after another).
    threads: usize,
}

impl Runner {
    /// A runner that makes up to `threads` runs at once when checking rows: each run is
    /// deterministic and independent, so the outcomes are the same as one at a time.
    pub fn with_threads(threads: usize) -> Self {
        Runner {
            threads,
            ..Runner::default()
        }
    }

    /// Runs, `self.threads` at a time, the experiments `rows` need that have not run yet (a
    /// row whose text cannot be made is left to [`Runner::value`] to report).
    fn prefetch(&mut self, table: &Table, rows: &[&Row]) {
        let mut todo: Vec<String> = Vec::new();
        for row in rows {
            for set in std::iter::once(row.set.clone()).chain(row.baseline_set()) {
                if let Ok(text) = table.render(row, &set)
                    && !self.done.contains_key(&(text.clone(), String::new()))
                    && !todo.contains(&text)
                {
                    todo.push(text);
                }
            }
        }
        if self.threads <= 1 || todo.len() <= 1 {
            return;
        }
        let next = std::sync::atomic::AtomicUsize::new(0);
        let results = std::sync::Mutex::new(Vec::with_capacity(todo.len()));
        std::thread::scope(|scope| {
            for _ in 0..self.threads.min(todo.len()) {
                scope.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(text) = todo.get(i) else { break };
                        let result = run_text(text, None);
                        results.lock().expect("no run panics").push((i, result));
                    }
                });
            }
        });
        for (i, result) in results.into_inner().expect("no run panics") {
            self.done.insert((todo[i].clone(), String::new()), result);
        }
    }

    /// The summary of the experiment `text`, on `device` in place of the preset it names if
    /// given.
    pub fn summary(
        &mut self,
        text: &str,
        device: Option<&toml::Table>,
    ) -> Result<&Summary, String> {
        let key = (
            text.to_string(),
            device.map(|d| d.to_string()).unwrap_or_default(),
        );
        if !self.done.contains_key(&key) {
            let result = run_text(text, device);
            self.done.insert(key.clone(), result);
        }
        self.done[&key].as_ref().map_err(Clone::clone)
    }

    /// ZoneLab's value for `row`, on `device` in place of the row's preset if given.
    pub fn value(
        &mut self,
        table: &Table,
        row: &Row,
        device: Option<&toml::Table>,
    ) -> Result<f64, String> {
        let text = table.render(row, &row.set)?;
        let v = metric(self.summary(&text, device)?, &row.metric)
            .map_err(|e| format!("row {}: {e}", row.id))?;
        let (Some(b), Some(set)) = (&row.baseline, row.baseline_set()) else {
            return Ok(v);
        };
        let text = table.render(row, &set)?;
        let base = metric(self.summary(&text, device)?, &row.metric)
            .map_err(|e| format!("row {} (baseline): {e}", row.id))?;
        if base == 0.0 {
            return Err(format!(
                "row {}: the baseline's {} is 0",
                row.id, row.metric
            ));
        }
        Ok(match b.compare {
            Compare::ChangePercent => (v / base - 1.0) * 100.0,
            Compare::Ratio => v / base,
        })
    }
}

fn run_text(text: &str, device: Option<&toml::Table>) -> Result<Summary, String> {
    let cfg = match device {
        Some(d) => ExperimentConfig::parse_on_device(text, d),
        None => ExperimentConfig::parse(text, &[]),
    }
    .map_err(|e| e.to_string())?;
    let exp = cfg.validate("validate-device").map_err(|e| e.to_string())?;
    let out = run(&exp, Inputs::default(), 0, &mut |_| {}).map_err(|e| e.to_string())?;
    if out.summary.errors_total > 0 {
        let first = out.summary.errors.first().map(|e| format!("{e:?}"));
        return Err(format!(
            "the device rejected {} commands (first: {})",
            out.summary.errors_total,
            first.unwrap_or_default()
        ));
    }
    Ok(out.summary)
}

/// Checks `rows` of `table` (all of them if `rows` is empty).
pub fn check(table: &Table, runner: &mut Runner, rows: &[&Row]) -> Vec<Outcome> {
    runner.prefetch(table, rows);
    rows.iter()
        .map(|&row| {
            let model = runner.value(table, row, None);
            let error = model
                .as_ref()
                .ok()
                .map(|m| (m - row.published) / row.published.abs().max(f64::MIN_POSITIVE));
            let ok = error.is_some_and(|e| e.abs() <= row.tolerance);
            Outcome {
                row: row.clone(),
                model,
                error,
                ok,
            }
        })
        .collect()
}

/// Reads one number from a run's summary. Forms:
/// - `OP.STAT`: device commands of kind OP (`read`, `write`, `append`, `reset`, `finish`, ...)
///   over all tenants; STAT is a latency in us or ms (`mean_us`, `p50_us`, `p90_us`,
///   `p99_us`, `p99.9_us`, `p100_us`, or the same with `_ms`), `iops`, `kiops`, `mib_s`
///   (2^20 B/s) or `mb_s` (10^6 B/s);
/// - `tenant/NAME/OP.STAT`: the same for one tenant's device commands;
/// - `total.mib_s`, `total.mb_s`: reads, writes and appends together;
/// - `time.s`: the measured phase's simulated seconds;
/// - `device.waf`, `ftl.waf`: NAND over host bytes, and the FTL's own.
pub fn metric(s: &Summary, name: &str) -> Result<f64, String> {
    let unknown = || format!("unknown metric `{name}`");
    match name {
        "time.s" => return Ok(s.simulated_time_ns as f64 / 1e9),
        "device.waf" => return s.device_counters.waf.ok_or("no host writes".into()),
        "ftl.waf" => {
            let f = serde_json::to_value(&s.firmware).map_err(|e| e.to_string())?;
            return f["waf"].as_f64().ok_or("no FTL write amplification".into());
        }
        "total.mib_s" | "total.mb_s" => {
            let mib: f64 = ["read", "write", "append"]
                .iter()
                .filter_map(|k| s.ops.get(*k))
                .map(|o| o.mib_per_s)
                .sum();
            return Ok(if name == "total.mb_s" {
                mib * (1u64 << 20) as f64 / 1e6
            } else {
                mib
            });
        }
        _ => {}
    }
    let (scope, op_stat) = match name.strip_prefix("tenant/") {
        Some(rest) => {
            let (tenant, op_stat) = rest.split_once('/').ok_or_else(unknown)?;
            (Some(tenant), op_stat)
        }
        None => (None, name),
    };
    let (op, stat) = op_stat.split_once('.').ok_or_else(unknown)?;
    let summary: &OpSummary = match scope {
        None => s
            .ops
            .get(op)
            .ok_or_else(|| format!("the run issued no `{op}` commands"))?,
        Some(tenant) => {
            &s.table
                .iter()
                .find(|r| r.layer.name() == "device" && r.op.name() == op && r.tenant == tenant)
                .ok_or_else(|| format!("tenant `{tenant}` issued no `{op}` commands"))?
                .summary
        }
    };
    // Latencies in us or ms.
    let (stat, scale) = match (stat.strip_suffix("_us"), stat.strip_suffix("_ms")) {
        (Some(s), _) => (s, 1e3),
        (_, Some(s)) => (s, 1e6),
        _ => (stat, 1.0),
    };
    let pct = |p: Percentile| summary.latency_ns.get(p) as f64 / scale;
    Ok(match stat {
        "mean" if scale > 1.0 => summary.latency_ns.mean / scale,
        "p50" if scale > 1.0 => pct(Percentile::P50),
        "p90" if scale > 1.0 => pct(Percentile::P90),
        "p99" if scale > 1.0 => pct(Percentile::P99),
        "p99.9" if scale > 1.0 => pct(Percentile::P999),
        "p100" if scale > 1.0 => pct(Percentile::P100),
        "iops" => summary.iops,
        "kiops" => summary.iops / 1e3,
        "mib_s" => summary.mib_per_s,
        "mb_s" => summary.mib_per_s * (1u64 << 20) as f64 / 1e6,
        _ => return Err(unknown()),
    })
}

mod doc;
pub use doc::{document, fmt_value};

#[cfg(test)]
mod physics_tests;
#[cfg(test)]
mod tests;
