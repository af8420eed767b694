//! Fitting a device's timing fields to measurements (`zonelab calibrate`): each measurement is
//! a microbenchmark that ZoneLab runs on the candidate device, and the fit moves the fields to
//! make the runs agree with the measurements. The model is the simulator itself, so a field
//! fits whatever way the model combines them (queueing, overlap, caps), not a formula written
//! beside it.
//!
//! The fit minimises the sum of squared log ratios (model over measured, weighted) by
//! coordinate descent: each field in turn by a golden-section search on a log scale inside a
//! bracket around its value that narrows sweep by sweep. A probe at the start finds which
//! measurements each field moves; a search runs only those. A candidate the configuration
//! refuses (a partial-page tR above the full one, say) costs infinity.

mod numeric;

use std::collections::BTreeMap;

use super::device::{Compare, Runner, metric};
use numeric::{golden, normal_equations, solve};

/// A field the fit may move, with the range it searches (`lo` > 0: the search is on a log
/// scale, and a field at its lower bound has a negligible effect).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Param {
    /// Dotted path in the device table.
    pub key: &'static str,
    pub lo: f64,
    pub hi: f64,
    /// Written as a float (else rounded to an integer).
    pub float: bool,
}

const fn p(key: &'static str, lo: f64, hi: f64) -> Param {
    Param {
        key,
        lo,
        hi,
        float: false,
    }
}

/// Every timing field the fit knows, with its search range (chosen: from a tenth of the
/// fastest to ten times the slowest value in any shipped preset or peer emulator's profile).
pub const PARAMS: &[Param] = &[
    p("timing.read_latency_ns", 1_000.0, 500_000.0),
    p("timing.read_4k_latency_ns", 1_000.0, 500_000.0),
    p("timing.program_latency_ns", 10_000.0, 20_000_000.0),
    p("timing.erase_latency_ns", 10_000.0, 100_000_000.0),
    p("timing.channel_rate_mb_s", 20.0, 20_000.0),
    p("timing.channel_op_overhead_ns", 10.0, 100_000.0),
    p("timing.host_rate_mb_s", 100.0, 100_000.0),
    p("timing.read_overhead_ns", 100.0, 1_000_000.0),
    p("timing.write_overhead_ns", 100.0, 1_000_000.0),
    p("timing.append_overhead_ns", 100.0, 1_000_000.0),
    p("timing.reset_overhead_ns", 100.0, 100_000_000.0),
    p("timing.zone_mgmt_overhead_ns", 100.0, 100_000_000.0),
    Param {
        key: "timing.controller_parallelism",
        lo: 0.05,
        hi: 256.0,
        float: true,
    },
    p("timing.firmware_jitter_mean_ns", 10.0, 1_000_000.0),
    // Per page type, where the device gives them (`[aging]` with a cell type).
    p("aging.read_4k_latency_ns[0]", 1_000.0, 500_000.0),
    p("aging.read_4k_latency_ns[1]", 1_000.0, 500_000.0),
    p("aging.read_4k_latency_ns[2]", 1_000.0, 500_000.0),
    p("aging.read_latency_ns[0]", 1_000.0, 500_000.0),
    p("aging.read_latency_ns[1]", 1_000.0, 500_000.0),
    p("aging.read_latency_ns[2]", 1_000.0, 500_000.0),
];

/// Whether `param` applies to `device`: a timing field always (absent ones have defaults) but
/// the zone commands' on a conventional device (which takes none), a per-page-type field when
/// the device gives that list.
pub fn applies(device: &toml::Table, param: &Param) -> bool {
    let conventional = device.get("kind").and_then(toml::Value::as_str) == Some("conventional");
    match param.key {
        "timing.append_overhead_ns"
        | "timing.reset_overhead_ns"
        | "timing.zone_mgmt_overhead_ns"
            if conventional =>
        {
            false
        }
        // With per-type partial-page tR given, the device's own only scales them.
        "timing.read_4k_latency_ns" => get(device, "aging.read_4k_latency_ns[0]").is_none(),
        k if k.starts_with("aging.") => get(device, k).is_some(),
        _ => true,
    }
}

/// The parameter named `key`.
pub fn param(key: &str) -> Option<&'static Param> {
    let key = key.strip_prefix("device.").unwrap_or(key);
    let key = if key.contains('.') {
        key.to_string()
    } else {
        format!("timing.{key}")
    };
    PARAMS.iter().find(|p| p.key == key)
}

/// One measurement to fit: an experiment (naming any preset; the device is replaced), what to
/// read from its summary, the measured value and its weight; with a baseline, the value is the
/// change or ratio between the experiment and the baseline experiment.
#[derive(Clone, Debug)]
pub struct Target {
    pub label: String,
    pub text: String,
    pub metric: String,
    pub baseline: Option<(String, Compare)>,
    pub measured: f64,
    pub weight: f64,
}

/// A field's value before and after.
#[derive(Clone, Debug)]
pub struct FittedParam {
    pub param: Param,
    pub before: f64,
    pub after: f64,
    /// The measurements it moves (by label).
    pub moves: Vec<String>,
}

/// What the fit found.
#[derive(Clone, Debug)]
pub struct Fitted {
    pub device: toml::Table,
    pub params: Vec<FittedParam>,
    /// Fields asked for that no measurement depends on: left as they were.
    pub unidentified: Vec<&'static str>,
    /// Per target: (label, model, measured).
    pub residuals: Vec<(String, Result<f64, String>, f64)>,
    pub cost: f64,
}

/// A key's last part as (name, index): `read_latency_ns[2]` is an array element.
fn split_index(last: &str) -> (&str, Option<usize>) {
    match last.strip_suffix(']').and_then(|l| l.split_once('[')) {
        Some((name, i)) => (name, i.parse().ok()),
        None => (last, None),
    }
}

fn number(v: &toml::Value) -> Option<f64> {
    v.as_float().or_else(|| v.as_integer().map(|i| i as f64))
}

/// The TOML value at dotted `key` of `table` (no index).
pub fn value<'a>(table: &'a toml::Table, key: &str) -> Option<&'a toml::Value> {
    let (path, last) = key.rsplit_once('.').unwrap_or(("", key));
    let mut t = table;
    for k in path.split('.').filter(|k| !k.is_empty()) {
        t = t.get(k)?.as_table()?;
    }
    t.get(last)
}

/// The value at dotted `key` of `table` (its last part may index an array: `x[1]`).
pub fn get(table: &toml::Table, key: &str) -> Option<f64> {
    let mut t = table;
    let mut parts = key.split('.').peekable();
    while let Some(k) = parts.next() {
        if parts.peek().is_none() {
            let (name, index) = split_index(k);
            let v = t.get(name)?;
            return match index {
                Some(i) => number(v.as_array()?.get(i)?),
                None => number(v),
            };
        }
        t = t.get(k)?.as_table()?;
    }
    None
}

/// Sets dotted `key` of `table` to `value` (an integer unless `float`); an indexed element
/// must exist.
pub fn set(table: &mut toml::Table, key: &str, value: f64, float: bool) {
    let mut t = table;
    let parts: Vec<&str> = key.split('.').collect();
    for k in &parts[..parts.len() - 1] {
        t = t
            .entry(k.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()))
            .as_table_mut()
            .expect("a device table's sections are tables");
    }
    let v = if float {
        toml::Value::Float((value * 1e4).round() / 1e4)
    } else {
        toml::Value::Integer(value.round() as i64)
    };
    let (name, index) = split_index(parts[parts.len() - 1]);
    match index {
        Some(i) => {
            let list = t
                .get_mut(name)
                .and_then(toml::Value::as_array_mut)
                .expect("an indexed field the device has");
            list[i] = v;
            // Per-page-type latencies stay in order, lower page first: the fit moves the
            // levels of a distribution, not which page type holds which.
            list.sort_by(|a, b| {
                let (a, b) = (number(a).unwrap_or(0.0), number(b).unwrap_or(0.0));
                a.total_cmp(&b)
            });
        }
        None => {
            t.insert(name.to_string(), v);
        }
    }
}

/// The value of `param` in `device`: as given, or what the model uses when it is absent.
fn current(device: &toml::Table, param: &Param) -> f64 {
    let fallback = match param.key {
        "timing.read_4k_latency_ns" => get(device, "timing.read_latency_ns"),
        "timing.append_overhead_ns" => get(device, "timing.write_overhead_ns"),
        "timing.reset_overhead_ns" => get(device, "timing.zone_mgmt_overhead_ns"),
        _ => None,
    };
    get(device, param.key)
        .or(fallback)
        .unwrap_or(param.lo)
        .clamp(param.lo, param.hi)
}

/// Evaluates the targets `which` on `device`: (weighted cost, per-target model values).
fn evaluate(
    device: &toml::Table,
    targets: &[Target],
    which: &[usize],
) -> (f64, Vec<Result<f64, String>>) {
    let mut runner = Runner::default();
    let mut cost = 0.0;
    let mut values = Vec::with_capacity(which.len());
    for &i in which {
        let t = &targets[i];
        let v = model_value(&mut runner, device, t);
        cost += match &v {
            Ok(m) if *m > 0.0 && t.measured > 0.0 => t.weight * (m / t.measured).ln().powi(2),
            Ok(m) if t.measured <= 0.0 => t.weight * ((m - t.measured) / 100.0).powi(2),
            _ => f64::INFINITY,
        };
        values.push(v);
    }
    (cost, values)
}

fn model_value(runner: &mut Runner, device: &toml::Table, t: &Target) -> Result<f64, String> {
    let v = metric(runner.summary(&t.text, Some(device))?, &t.metric)?;
    let Some((base_text, compare)) = &t.baseline else {
        return Ok(v);
    };
    let base = metric(runner.summary(base_text, Some(device))?, &t.metric)?;
    if base == 0.0 {
        return Err("the baseline is 0".into());
    }
    Ok(match compare {
        Compare::ChangePercent => (v / base - 1.0) * 100.0,
        Compare::Ratio => v / base,
    })
}

fn at_lower_bound(x: f64, param: &Param) -> bool {
    x <= param.lo * 1.01
}

/// The targets whose model value changes when `param` moves from its current value.
fn relevant(device: &toml::Table, targets: &[Target], param: &Param) -> Vec<usize> {
    let all: Vec<usize> = (0..targets.len()).collect();
    let (_, before) = evaluate(device, targets, &all);
    let x = current(device, param);
    // Up, or down if up is past the range or refused (a tR above another it must not pass);
    // a field at its lower bound (absent, or off) is probed at the middle of its range.
    let up = if at_lower_bound(x, param) {
        (param.lo * param.hi).sqrt()
    } else {
        x * 1.3
    };
    let mut after = Vec::new();
    for probe in [up, x / 1.3] {
        if probe > param.hi || probe < param.lo {
            continue;
        }
        let mut moved = device.clone();
        set(&mut moved, param.key, probe, param.float);
        after = evaluate(&moved, targets, &all).1;
        if after.iter().all(Result::is_ok) {
            break;
        }
    }
    all.into_iter()
        .filter(|&i| match (&before[i], &after[i]) {
            (Ok(a), Ok(b)) => (a - b).abs() > 1e-4 * a.abs().max(b.abs()).max(1e-9),
            _ => true,
        })
        .collect()
}

/// Fits `params` of `base` to `targets`; `progress` hears about each step.
pub fn fit(
    base: &toml::Table,
    targets: &[Target],
    params: &[&'static Param],
    sweeps: u32,
    progress: &mut dyn FnMut(&str),
) -> Fitted {
    let mut device = base.clone();
    let (mut fitted, moves, unidentified) = identify(&device, targets, params);
    for sweep in 0..sweeps {
        // The bracket narrows each sweep: x4, x2, x1.41, x1.19, ...
        let spread = 4f64.powf(0.5f64.powi(sweep as i32));
        for (k, fp) in fitted.iter_mut().enumerate() {
            let which = &moves[k];
            let x = current(&device, &fp.param);
            // A field starting at its lower bound searches its whole range first.
            let (lo, hi) = if sweep == 0 && at_lower_bound(x, &fp.param) {
                (fp.param.lo.ln(), fp.param.hi.ln())
            } else {
                (
                    (x / spread).max(fp.param.lo).ln(),
                    (x * spread).min(fp.param.hi).ln(),
                )
            };
            let mut cost_at = |ln_x: f64| {
                let mut d = device.clone();
                set(&mut d, fp.param.key, ln_x.exp(), fp.param.float);
                evaluate(&d, targets, which).0
            };
            let best = golden(&mut cost_at, lo, hi, x.ln(), 14);
            set(&mut device, fp.param.key, best.exp(), fp.param.float);
            fp.after = current(&device, &fp.param);
            progress(&format!(
                "sweep {}: {} = {}",
                sweep + 1,
                fp.param.key,
                super::device::fmt_value(fp.after)
            ));
        }
    }
    let all: Vec<usize> = (0..targets.len()).collect();
    // Fields that move the same measurements (a channel's rate and its per-operation cost, say)
    // converge slowly one at a time: a few Levenberg-Marquardt steps on all of them at once
    // finish the fit.
    if sweeps > 0 && !fitted.is_empty() {
        levenberg_marquardt(&mut device, &fitted, targets, 25, progress);
        for fp in &mut fitted {
            fp.after = current(&device, &fp.param);
        }
    }
    let (cost, values) = evaluate(&device, targets, &all);
    let residuals = targets
        .iter()
        .zip(values)
        .map(|(t, v)| (t.label.clone(), v, t.measured))
        .collect();
    Fitted {
        device,
        params: fitted,
        unidentified,
        residuals,
        cost,
    }
}

/// The parameters that apply to `device`, split into those some target moves (each with the
/// targets it moves) and those none does (their keys).
fn identify(
    device: &toml::Table,
    targets: &[Target],
    params: &[&'static Param],
) -> (Vec<FittedParam>, Vec<Vec<usize>>, Vec<&'static str>) {
    let mut fitted = Vec::new();
    let mut unidentified = Vec::new();
    let mut moves: Vec<Vec<usize>> = Vec::new();
    for &param in params.iter().filter(|p| applies(device, p)) {
        let r = relevant(device, targets, param);
        if r.is_empty() {
            unidentified.push(param.key);
        } else {
            fitted.push(FittedParam {
                param: *param,
                before: current(device, param),
                after: current(device, param),
                moves: r.iter().map(|&i| targets[i].label.clone()).collect(),
            });
            moves.push(r);
        }
    }
    (fitted, moves, unidentified)
}

/// Each target's weighted log ratio (model over measured), or None if a run failed.
fn residuals_at(device: &toml::Table, targets: &[Target]) -> Option<Vec<f64>> {
    let mut runner = Runner::default();
    targets
        .iter()
        .map(|t| {
            let m = model_value(&mut runner, device, t).ok()?;
            (m > 0.0 && t.measured > 0.0).then(|| t.weight.sqrt() * (m / t.measured).ln())
        })
        .collect()
}

fn with_logs(device: &toml::Table, fitted: &[FittedParam], logs: &[f64]) -> toml::Table {
    let mut d = device.clone();
    for (fp, &l) in fitted.iter().zip(logs) {
        let x = l.exp().clamp(fp.param.lo, fp.param.hi);
        set(&mut d, fp.param.key, x, fp.param.float);
    }
    d
}

/// Levenberg-Marquardt on the fields' logarithms, with a forward-difference Jacobian (1%).
fn levenberg_marquardt(
    device: &mut toml::Table,
    fitted: &[FittedParam],
    targets: &[Target],
    iterations: u32,
    progress: &mut dyn FnMut(&str),
) {
    let n = fitted.len();
    let mut logs: Vec<f64> = fitted
        .iter()
        .map(|fp| current(device, &fp.param).ln())
        .collect();
    let Some(mut r) = residuals_at(device, targets) else {
        return;
    };
    let cost = |r: &[f64]| r.iter().map(|v| v * v).sum::<f64>();
    let mut lambda = 1e-2;
    const H: f64 = 0.01;
    for it in 0..iterations {
        // Jacobian, column by column.
        let mut jac = vec![vec![0.0; n]; r.len()];
        for k in 0..n {
            let mut l = logs.clone();
            l[k] += H;
            if let Some(rk) = residuals_at(&with_logs(device, fitted, &l), targets) {
                for (i, row) in jac.iter_mut().enumerate() {
                    row[k] = (rk[i] - r[i]) / H;
                }
            }
        }
        let (jtj, jtr) = normal_equations(&jac, &r, n);
        let mut improved = false;
        for _ in 0..6 {
            let mut m = jtj.clone();
            for (a, row) in m.iter_mut().enumerate() {
                row[a] += lambda * jtj[a][a].max(1e-9);
            }
            let Some(step) = solve(m, jtr.iter().map(|v| -v).collect()) else {
                lambda *= 10.0;
                continue;
            };
            let trial: Vec<f64> = logs
                .iter()
                .zip(&step)
                .zip(fitted)
                .map(|((l, s), fp)| {
                    (l + s.clamp(-1.0, 1.0)).clamp(fp.param.lo.ln(), fp.param.hi.ln())
                })
                .collect();
            let d = with_logs(device, fitted, &trial);
            match residuals_at(&d, targets) {
                Some(rt) if cost(&rt) < cost(&r) => {
                    logs = trial;
                    r = rt;
                    *device = d;
                    lambda = (lambda / 3.0).max(1e-6);
                    improved = true;
                    break;
                }
                _ => lambda *= 10.0,
            }
        }
        progress(&format!("refine {}: cost {:.6}", it + 1, cost(&r)));
        if !improved || cost(&r) < 1e-12 {
            break;
        }
    }
}

/// `text` (a device preset) with the fitted fields written in place, each with `comment`;
/// fields the text lacks are added to their table.
pub fn edit_preset(text: &str, values: &BTreeMap<String, (toml::Value, String)>) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut done = std::collections::BTreeSet::new();
    let mut section = String::new();
    let flush =
        |section: &str, out: &mut Vec<String>, done: &mut std::collections::BTreeSet<String>| {
            for (key, (v, c)) in values {
                let (table, field) = key.rsplit_once('.').unwrap_or(("", key));
                if table == section && !done.contains(key) {
                    out.push(format!("{field} = {v}  # {c}"));
                    done.insert(key.clone());
                }
            }
        };
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with('[') {
            flush(&section, &mut out, &mut done);
            section = trimmed
                .trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or("")
                .trim()
                .to_string();
        } else if let Some((field, _)) = trimmed.split_once('=') {
            let key = if section.is_empty() {
                field.trim().to_string()
            } else {
                format!("{section}.{}", field.trim())
            };
            if let Some((v, c)) = values.get(&key) {
                out.push(format!("{} = {v}  # {c}", field.trim()));
                done.insert(key);
                continue;
            }
        }
        out.push(line.to_string());
    }
    flush(&section, &mut out, &mut done);
    for (key, (v, c)) in values {
        if !done.contains(key) {
            let (table, field) = key.rsplit_once('.').unwrap_or(("", key));
            out.push(format!("\n[{table}]\n{field} = {v}  # {c}"));
        }
    }
    out.join("\n") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_finds_the_minimum_of_a_bowl() {
        let mut calls = 0;
        let mut f = |x: f64| {
            calls += 1;
            (x - 1.3).powi(2)
        };
        let x = golden(&mut f, -3.0, 4.0, 0.0, 30);
        assert!((x - 1.3).abs() < 1e-4, "{x}");
        assert!(calls <= 34);
    }

    #[test]
    fn solve_solves_a_small_system() {
        let x = solve(vec![vec![2.0, 1.0], vec![1.0, 3.0]], vec![5.0, 10.0]).unwrap();
        assert!(
            (x[0] - 1.0).abs() < 1e-12 && (x[1] - 3.0).abs() < 1e-12,
            "{x:?}"
        );
        assert!(solve(vec![vec![1.0, 2.0], vec![2.0, 4.0]], vec![1.0, 2.0]).is_none());
    }

    /// A conventional device takes no zone commands: the fit leaves their overheads alone (the
    /// config refuses them, so every run of the fit would fail).
    #[test]
    fn a_conventional_device_fits_no_zone_command_overheads() {
        let zns: toml::Table = toml::from_str("name = \"z\"\n[timing]\n").unwrap();
        let conv: toml::Table =
            toml::from_str("kind = \"conventional\"\nname = \"c\"\n[timing]\n").unwrap();
        let fitted = |d: &toml::Table| -> Vec<&str> {
            PARAMS
                .iter()
                .filter(|p| applies(d, p))
                .map(|p| p.key)
                .collect()
        };
        for zone_only in [
            "timing.append_overhead_ns",
            "timing.reset_overhead_ns",
            "timing.zone_mgmt_overhead_ns",
        ] {
            assert!(fitted(&zns).contains(&zone_only), "{zone_only}");
            assert!(!fitted(&conv).contains(&zone_only), "{zone_only}");
        }
        assert!(fitted(&conv).contains(&"timing.write_overhead_ns"));
    }

    #[test]
    fn set_and_get_walk_dotted_keys() {
        let mut t = toml::Table::new();
        set(&mut t, "timing.read_latency_ns", 50_000.4, false);
        set(&mut t, "timing.controller_parallelism", 1.75, true);
        assert_eq!(get(&t, "timing.read_latency_ns"), Some(50_000.0));
        assert_eq!(get(&t, "timing.controller_parallelism"), Some(1.75));
        assert_eq!(get(&t, "timing.nothing"), None);
    }

    #[test]
    fn edit_preset_replaces_in_place_and_adds_what_is_missing() {
        let text = "name = \"x\"\n[timing]\nread_latency_ns = 1  # old\n[energy]\nread_nj_per_page = 1.0\n";
        let mut v = BTreeMap::new();
        v.insert(
            "timing.read_latency_ns".to_string(),
            (toml::Value::Integer(5), "fitted".to_string()),
        );
        v.insert(
            "timing.channel_op_overhead_ns".to_string(),
            (toml::Value::Integer(7), "fitted".to_string()),
        );
        let out = edit_preset(text, &v);
        assert!(out.contains("read_latency_ns = 5  # fitted"), "{out}");
        assert!(!out.contains("# old"));
        let timing = out.find("[timing]").unwrap();
        let energy = out.find("[energy]").unwrap();
        let added = out.find("channel_op_overhead_ns = 7").unwrap();
        assert!(timing < added && added < energy, "{out}");
        let parsed: toml::Table = toml::from_str(&out).unwrap();
        assert_eq!(get(&parsed, "timing.channel_op_overhead_ns"), Some(7.0));
    }
}
