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
const CONV: &str = "preset = \"zn540-conv-op28\"\n[device.geometry]\nblocks_per_die = 32\npages_per_block = 128\n[device.ftl]\ngc_free_superblocks = 3\nbackground_gc_free_superblocks = 4\n[precondition]\n[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\nio_size = \"64MiB\"\n";
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
        "layer" if field == "layer.drives" => with("[layer]\nkind = \"array\"\ndrives = 2\n"),
        "layer" if STATIC_FIELDS.iter().any(|f| field == format!("layer.{f}")) => {
            with("[layer]\nkind = \"static\"\n")
        }
        "layer" => EZNS.to_string(),
        "prefill" => with("[prefill]\nfraction = 0.5\n"),
        "faults" if field == "faults.zones[N].drive" => with(
            "[layer]\nkind = \"array\"\ndrives = 2\n[[faults.zones]]\nat = \"1ms\"\nzone = 0\nstate = \"offline\"\n",
        ),
        "faults" if field.starts_with("faults.zones[") => {
            with("[[faults.zones]]\nat = \"1ms\"\nzone = 0\nstate = \"offline\"\n")
        }
        "faults" if field.starts_with("faults.dies[") => {
            with("[[faults.dies]]\ndie = 0\nfactor = 2.0\n")
        }
        "faults" if field.starts_with("faults.commands[") => {
            with("[[faults.commands]]\nstatus = \"write_fault\"\nrate = 0.5\n")
        }
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
    // A store's namespace applies to its files on the file layer.
    let text = if field.ends_with("].namespace") && !field.starts_with("job") {
        format!("{text}files = \"fs\"\n")
    } else {
        text
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

/// Every table of an experiment, as `(path, base text, overrides selecting it)`: the field
/// names each takes are read from the error an unknown key gets ("expected one of ...").
fn tables() -> Vec<(String, String, Vec<String>)> {
    let mut t: Vec<(String, String, Vec<String>)> = Vec::new();
    let mut add = |path: &str, text: &str, overrides: &[&str]| {
        t.push((
            path.to_string(),
            text.to_string(),
            overrides.iter().map(|s| s.to_string()).collect(),
        ))
    };
    let zns_with = |extra: &str| format!("{ZNS}{extra}");
    for path in [
        "",
        "device",
        "device.geometry",
        "device.zones",
        "device.timing",
        "device.energy",
        "data",
        "metrics",
        "faults",
        "host",
        "trace",
        "job[0]",
    ] {
        add(path, ZNS, &[]);
    }
    add(
        "device.timing.erase_suspend",
        &zns_with("[device.timing.erase_suspend]\nsuspend_ns = 1\nresume_ns = 1\n"),
        &[],
    );
    add("device.aging", &zns_with("[device.aging]\n"), &[]);
    add("device.ftl", CONV, &[]);
    add("precondition", CONV, &[]);
    add("prefill", &zns_with("[prefill]\n"), &[]);
    add(
        "faults.zones[0]",
        &zns_with("[[faults.zones]]\nat = \"1ms\"\nzone = 0\nstate = \"offline\"\n"),
        &[],
    );
    add(
        "faults.dies[0]",
        &zns_with("[[faults.dies]]\ndie = 0\nfactor = 2.0\n"),
        &[],
    );
    add(
        "faults.commands[0]",
        &zns_with("[[faults.commands]]\nstatus = \"write_fault\"\nrate = 0.5\n"),
        &[],
    );
    for policy in [
        "synchronous",
        "mapping",
        "preemptive",
        "renewable",
        "round_robin",
    ] {
        add("firmware", ZNS, &[&format!("firmware.policy=\"{policy}\"")]);
    }
    add(
        "firmware",
        ZNS,
        &[
            "firmware.policy=\"pair\"",
            "firmware.placement=\"renewable\"",
            "firmware.erase=\"preemptive\"",
            "firmware.t_invalid=2",
            "firmware.zombie_idle=\"1s\"",
        ],
    );
    add("layer", &zns_with("[layer]\nkind = \"static\"\n"), &[]);
    add("layer", EZNS, &[]);
    add(
        "layer",
        &zns_with("[layer]\nkind = \"array\"\ndrives = 2\n"),
        &[],
    );
    add(
        "replay[0]",
        &zns_with("[[replay]]\ntrace = \"t.csv\"\n"),
        &[],
    );
    add(
        "threads[0]",
        &zns_with("[[threads]]\ncount = 1\nbs = \"4KiB\"\nops = 1\n"),
        &[],
    );
    for path in [
        "fs",
        "fs.gc",
        "fs.cache",
        "fs.cpu",
        "fs.f2fs",
        "fs.zenfs",
        "fio_files[0]",
    ] {
        add(path, FS, &[]);
    }
    let (filebench, updates, dbbench, ycsb) = (
        base("filebench[N].nfiles").0,
        base("updates[N].files").0,
        base("dbbench[N].num").0,
        base("ycsb[N].recordcount").0,
    );
    add("filebench[0]", &filebench, &[]);
    add("updates[0]", &updates, &[]);
    for path in ["dbbench[0]", "dbbench[0].options", "dbbench[0].options.cpu"] {
        add(path, &dbbench, &[]);
    }
    for path in ["ycsb[0]", "ycsb[0].options", "ycsb[0].options.cpu"] {
        add(path, &ycsb, &[]);
    }
    t
}

/// Fields that are not numbers (names, choices, switches, file paths) or are tables.
const NOT_NUMERIC: [&str; 56] = [
    "name",
    "preset",
    "device",
    "firmware",
    "layer",
    "data",
    "metrics",
    "prefill",
    "precondition",
    "faults",
    "host",
    "trace",
    "job",
    "replay",
    "threads",
    "fs",
    "filebench",
    "fio_files",
    "updates",
    "dbbench",
    "ycsb",
    "kind",
    "description",
    "source",
    "geometry",
    "zones",
    "timing",
    "energy",
    "ftl",
    "aging",
    "erase_suspend",
    "read_priority",
    "cache_read",
    "finish_pads_zone",
    "gc_policy",
    "cell",
    "retention",
    "enabled",
    "random_overwrite",
    "pattern",
    "policy",
    "erase_all_blocks",
    "wp_optimisation",
    "idle",
    "ewma_sample",
    "local_overdrive",
    "global_overdrive",
    "reclaim",
    "scheduler",
    "read_cc",
    "write_admission",
    "tenant",
    "rw",
    "time_based",
    "zone_append",
    "zone_fill_action",
];

/// Non-numeric fields of the file layer, file workloads and stores.
const NOT_NUMERIC_MORE: [&str; 21] = [
    "format",
    "mode",
    "fsync",
    "personality",
    "gc",
    "cache",
    "cpu",
    "f2fs",
    "zenfs",
    "victim",
    "separate",
    "survivors",
    "dir",
    "workload",
    "requestdistribution",
    "load",
    "files",
    "options",
    "benchmarks",
    "compression_type",
    "compression_per_level",
];

/// Switches among the store options.
const NOT_NUMERIC_OPTIONS: [&str; 5] = [
    "level_compaction_dynamic_file_size",
    "cache_index_and_filter_blocks",
    "disable_wal",
    "sync",
    "fsync",
];

#[test]
fn every_numeric_field_is_documented() {
    let documented: Vec<String> = rows().into_iter().map(|r| r.field).collect();
    let mut missing = Vec::new();
    let mut seen = 0;
    for (path, text, mut overrides) in tables() {
        let key = if path.is_empty() {
            "zz_unknown".to_string()
        } else {
            format!("{path}.zz_unknown")
        };
        overrides.push(format!("{key}=1"));
        let message = match ExperimentConfig::parse(&text, &overrides) {
            Err(ConfigError::Field { path: p, message }) if p == key => message,
            other => panic!("{key}: expected an unknown-field error, got {other:?}"),
        };
        assert!(message.starts_with("unknown field"), "{key}: {message}");
        // "expected one of `a`, `b`", or "there are no fields".
        let expected = message.split_once("expected").map_or("", |(_, e)| e);
        for name in expected.split('`').skip(1).step_by(2) {
            seen += 1;
            let doc_path = if path.is_empty() {
                name.to_string()
            } else {
                format!("{path}.{name}")
            }
            .replace("[0]", "[N]")
            .replace("ycsb[N].options", "dbbench[N].options");
            let not_numeric = NOT_NUMERIC.contains(&name)
                || NOT_NUMERIC_MORE.contains(&name)
                || NOT_NUMERIC_OPTIONS.contains(&name);
            // fio_files' and updates' fsync/cpu are numbers; the tables' names are not.
            let numeric_after_all = matches!(
                doc_path.as_str(),
                "fio_files[N].fsync" | "updates[N].cpu" | "updates[N].files" | "threads[N].cpu"
            );
            if (numeric_after_all || !not_numeric)
                && !documented.contains(&doc_path)
                && !missing.contains(&doc_path)
            {
                missing.push(doc_path);
            }
        }
    }
    assert!(
        missing.is_empty(),
        "fields without a row in docs/config.md (or add them to the non-numeric lists): {missing:?}"
    );
    assert!(seen > 300, "only {seen} fields seen");
}
