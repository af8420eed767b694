//! docs/config.md against the validation: every range whose bounds are numbers is enforced
//! (the field is accepted at each bound and refused, named, just outside it), and every numeric
//! field of a resolved configuration has a row.

use super::*;
use crate::time::parse_duration_ns;
use crate::units::parse_bytes;

const DOC: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/config.md"));

/// One table row of the document: field path (`job[N].iodepth`), unit and range.
struct Row {
    field: String,
    unit: String,
    range: String,
}

fn rows() -> Vec<Row> {
    DOC.lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            Row {
                field: cells[1].trim_matches('`').to_string(),
                unit: cells[2].to_string(),
                range: cells[3].to_string(),
            }
        })
        .collect()
}

/// A bound: whole (bytes, nanoseconds, counts) or a float.
#[derive(Clone, Copy, Debug)]
enum Value {
    Int(i128),
    Float(f64),
}

#[derive(Clone, Copy, PartialEq)]
enum Unit {
    Bytes,
    Duration,
    Number,
}

fn unit(text: &str) -> Unit {
    if text.starts_with("bytes") {
        Unit::Bytes
    } else if text == "duration" {
        Unit::Duration
    } else {
        Unit::Number
    }
}

/// A bound as the document writes it (`65536`, `2^30`, `2^63-1`, `1e9`, `-2.5`, `1PiB`,
/// `86400s`), or `None` for a bound that names other fields.
fn parse_bound(text: &str, unit: Unit) -> Option<Value> {
    match unit {
        Unit::Bytes => parse_bytes(text).ok().map(|b| Value::Int(b as i128)),
        Unit::Duration => parse_duration_ns(text).ok().map(|n| Value::Int(n as i128)),
        Unit::Number => {
            if let Some(p) = text.strip_prefix("2^") {
                let (exp, minus) = match p.strip_suffix("-1") {
                    Some(e) => (e, 1),
                    None => (p, 0),
                };
                return exp
                    .parse::<u32>()
                    .ok()
                    .map(|e| Value::Int((1i128 << e) - minus));
            }
            if let Ok(n) = text.parse::<i128>() {
                return Some(Value::Int(n));
            }
            text.parse::<f64>().ok().map(Value::Float)
        }
    }
}

/// The value as a `--set` literal.
fn literal(v: Value, unit: Unit) -> String {
    match (v, unit) {
        (Value::Int(n), Unit::Duration) => format!("\"{n}ns\""),
        (Value::Int(n), _) => n.to_string(),
        (Value::Float(f), _) => format!("{f:?}"),
    }
}

/// The next value outside the bound, above (`up`) or below it.
fn outside(v: Value, up: bool) -> Value {
    match (v, up) {
        (Value::Int(n), true) => Value::Int(n + 1),
        (Value::Int(n), false) => Value::Int(n - 1),
        (Value::Float(f), true) => Value::Float(f.next_up()),
        (Value::Float(f), false) => Value::Float(f.next_down()),
    }
}

const ZNS: &str = "seed = 7\npreset = \"rezns-40g\"\n[[job]]\nrw = \"randread\"\nbs = \"4KiB\"\nio_size = \"64MiB\"\n";
const CONV: &str = "preset = \"zn540-conv-op28\"\n[device.geometry]\nblocks_per_die = 32\npages_per_block = 128\n[precondition]\n[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\nio_size = \"64MiB\"\n";
const EZNS: &str = "preset = \"smallzone-4t\"\n[layer]\nkind = \"ezns\"\n[[job]]\nrw = \"randread\"\nbs = \"4KiB\"\n";
const FS: &str = "preset = \"rezns-40g\"\n[fs]\n[[fio_files]]\nthreads = 1\nsize = \"1MiB\"\n";
const STATIC_FIELDS: [&str; 5] = [
    "zones_per_logical",
    "stripe_width",
    "stripe_size",
    "max_active",
    "placement",
];

/// An experiment every value of `field` within its range can be set on, and overrides that
/// select what the field belongs to (a firmware policy).
fn base(field: &str) -> (String, Vec<String>) {
    let with = |extra: &str| format!("{ZNS}{extra}");
    let text = match field.split(['.', '[']).next().unwrap() {
        "device" if field.starts_with("device.ftl.") => CONV.to_string(),
        "device" if field == "device.energy.erase_nj_per_block" => CONV.to_string(),
        "device" if field.starts_with("device.aging.") => with("[device.aging]\n"),
        "device" if field.starts_with("device.timing.erase_suspend.") => {
            with("[device.timing.erase_suspend]\nsuspend_ns = 1\nresume_ns = 1\n")
        }
        "precondition" => CONV.to_string(),
        "layer" if STATIC_FIELDS.iter().any(|f| field == format!("layer.{f}")) => {
            with("[layer]\nkind = \"static\"\n")
        }
        "layer" => EZNS.to_string(),
        "prefill" => with("[prefill]\nfraction = 0.5\n"),
        "replay" => with("[[replay]]\ntrace = \"t.csv\"\n"),
        "threads" => with("[[threads]]\ncount = 1\nbs = \"4KiB\"\nops = 1\n"),
        "fs" if field.starts_with("fs.zenfs.") => FS.replace("[fs]\n", "[fs]\npersonality = \"zenfs\"\n"),
        "fs" | "fio_files" => FS.to_string(),
        "filebench" => {
            "preset = \"rezns-40g\"\n[[filebench]]\npersonality = \"varmail\"\nmeanfilesize = 0\n"
                .to_string()
        }
        "updates" => "preset = \"rezns-40g\"\n[[updates]]\ndataset = \"10%\"\nupdates = 1\npattern = \"hotcold\"\n".to_string(),
        "dbbench" => {
            "preset = \"rezns-40g\"\n[[dbbench]]\nbenchmarks = \"fillrandom\"\nnum = 1000\n"
                .to_string()
        }
        "ycsb" => "preset = \"rezns-40g\"\n[[ycsb]]\nworkload = \"a\"\n".to_string(),
        _ => ZNS.to_string(),
    };
    let policy = match field {
        "firmware.t_free" | "firmware.t_invalid" => Some("preemptive"),
        f if f.starts_with("firmware.") => Some("renewable"),
        _ => None,
    };
    let overrides = policy
        .map(|p| vec![format!("firmware.policy=\"{p}\"")])
        .unwrap_or_default();
    (text, overrides)
}

/// The field validation blamed, if it refused the experiment with `field` set to `value`.
fn blamed(field: &str, value: &str) -> Option<String> {
    let (text, mut overrides) = base(field);
    let path = field.replace("[N]", "[0]");
    overrides.push(format!("{path}={value}"));
    let result = ExperimentConfig::parse(&text, &overrides).and_then(|c| c.validate("doc"));
    match result {
        Ok(_) => None,
        Err(ConfigError::Field { path, .. }) => Some(path),
        Err(e) => Some(e.to_string()),
    }
}

#[test]
fn every_documented_range_is_enforced_naming_the_field() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for row in rows() {
        let r = row.range.as_str();
        let (Some(open), Some(close)) = (r.chars().next(), r.chars().last()) else {
            continue;
        };
        if !"[(".contains(open) || !")]".contains(close) {
            continue;
        }
        let Some((lo, hi)) = r[1..r.len() - 1].split_once(", ") else {
            continue;
        };
        let u = unit(&row.unit);
        let path = row.field.replace("[N]", "[0]");
        for (bound, inclusive, up) in [(lo, open == '[', false), (hi, close == ']', true)] {
            let Some(v) = parse_bound(bound, u) else {
                continue;
            };
            checked += 1;
            let at = literal(v, u);
            let blame_at = blamed(&row.field, &at);
            if inclusive && blame_at.as_deref() == Some(path.as_str()) {
                failures.push(format!("{} = {at} (in range) was refused", row.field));
            }
            if !inclusive && blame_at.as_deref() != Some(path.as_str()) {
                failures.push(format!(
                    "{} = {at} (out of range) was not refused naming it: {blame_at:?}",
                    row.field
                ));
            }
            if inclusive {
                let beyond = literal(outside(v, up), u);
                let blame = blamed(&row.field, &beyond);
                if blame.as_deref() != Some(path.as_str()) {
                    failures.push(format!(
                        "{} = {beyond} (out of range) was not refused naming it: {blame:?}",
                        row.field
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "docs/config.md:\n{}",
        failures.join("\n")
    );
    assert!(
        checked > 250,
        "only {checked} bounds checked: is the table format the same?"
    );
}

/// The numeric leaves of a resolved configuration: integers, floats, arrays of numbers, and
/// strings that are sizes or durations (`job[N].bs`).
fn numeric_fields(value: &toml::Value, path: &str, out: &mut Vec<String>) {
    match value {
        toml::Value::Table(t) => {
            for (k, v) in t {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                numeric_fields(v, &p, out);
            }
        }
        toml::Value::Array(a) if ARRAYS_OF_TABLES.contains(&path) => {
            for v in a {
                numeric_fields(v, &format!("{path}[N]"), out);
            }
        }
        toml::Value::Array(a) if a.iter().all(|v| v.is_integer() || v.is_float()) => {
            out.push(path.to_string());
        }
        toml::Value::Integer(_) | toml::Value::Float(_) => out.push(path.to_string()),
        toml::Value::String(s)
            if s.chars().next().is_some_and(|c| c.is_ascii_digit())
                && (parse_bytes(s).is_ok() || parse_duration_ns(s).is_ok()) =>
        {
            out.push(path.to_string())
        }
        _ => {}
    }
}

/// The `[[...]]` entries of an experiment.
const ARRAYS_OF_TABLES: [&str; 8] = [
    "job",
    "replay",
    "threads",
    "filebench",
    "fio_files",
    "updates",
    "dbbench",
    "ycsb",
];

#[test]
fn every_numeric_field_is_documented() {
    let documented: Vec<String> = rows().into_iter().map(|r| r.field).collect();
    let mut texts: Vec<String> = rows().iter().map(|r| base(&r.field).0).collect();
    texts.push(format!("{ZNS}[layer]\nkind = \"static\"\n"));
    texts.push(format!(
        "{ZNS}[device.aging]\ncell = \"tlc\"\ninitial_erase_counts = [0, 10]\n"
    ));
    texts.push(format!(
        "{ZNS}[device.timing.erase_suspend]\nsuspend_ns = 1\nresume_ns = 1\n"
    ));
    texts.sort();
    texts.dedup();
    let mut missing = Vec::new();
    for text in &texts {
        let cfg = ExperimentConfig::parse(text, &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let value = toml::Value::Table(toml::from_str(&cfg.to_toml()).unwrap());
        let mut fields = Vec::new();
        numeric_fields(&value, "", &mut fields);
        for f in fields {
            let doc = f.replace("ycsb[N].options", "dbbench[N].options");
            if !documented.contains(&doc) && !missing.contains(&f) {
                missing.push(f);
            }
        }
    }
    assert!(
        missing.is_empty(),
        "numeric fields without a row in docs/config.md: {missing:?}"
    );
}
