//! The config fuzzer: every shipped experiment and preset, mutated (keys removed, misspelled or
//! added; values swapped for other types, sizes in odd units, absurd numbers; tables and arrays
//! swapped; array entries duplicated). Each mutant is either refused with an error that names a
//! field, or accepted; an accepted one, bounded to a few simulated milliseconds of work, runs
//! without a panic. Bounded in CI; `ZONELAB_FUZZ_CASES=N` runs longer. (The seed swarm,
//! `crates/zonelab-swarm`, now draws devices, policies, front ends and workloads from one seed;
//! this mutates the shipped files, which the swarm does not draw.)

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use toml::{Table, Value};

use super::{ConfigError, ExperimentConfig};
use crate::experiment::{Inputs, run};

/// Every shipped experiment file, and every preset as a `[device]` table under a small job.
fn corpus() -> Vec<(String, Table)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    let mut dirs = vec![root.join("experiments")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("experiments/ is readable") {
            let p = e.expect("a directory entry").path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "toml") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut out: Vec<(String, Table)> = files.iter().map(|p| (name_of(p), read(p))).collect();
    let mut presets: Vec<PathBuf> = std::fs::read_dir(root.join("presets"))
        .expect("presets/ is readable")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    presets.sort();
    for p in presets {
        let mut t: Table =
            toml::from_str("[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\nio_size = \"1MiB\"\n")
                .expect("a job");
        t.insert("device".into(), Value::Table(read(&p)));
        out.push((name_of(&p), t));
    }
    out
}

fn name_of(p: &Path) -> String {
    p.file_stem()
        .map_or("?".into(), |s| s.to_string_lossy().into_owned())
}

fn read(p: &Path) -> Table {
    toml::from_str(&std::fs::read_to_string(p).expect("a shipped file is readable"))
        .expect("a shipped file is valid TOML")
}

/// A step into a TOML tree.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

/// Every path to a value in `t`.
fn paths(t: &Table) -> Vec<Vec<Step>> {
    fn walk(v: &Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
        out.push(at.clone());
        match v {
            Value::Table(t) => {
                for (k, v) in t {
                    at.push(Step::Key(k.clone()));
                    walk(v, at, out);
                    at.pop();
                }
            }
            Value::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    at.push(Step::Index(i));
                    walk(v, at, out);
                    at.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (k, v) in t {
        walk(v, &mut vec![Step::Key(k.clone())], &mut out);
    }
    out
}

fn get_mut<'a>(t: &'a mut Table, path: &[Step]) -> Option<&'a mut Value> {
    let (first, rest) = path.split_first()?;
    let Step::Key(k) = first else { return None };
    let mut v = t.get_mut(k)?;
    for s in rest {
        v = match (s, v) {
            (Step::Key(k), Value::Table(t)) => t.get_mut(k)?,
            (Step::Index(i), Value::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(v)
}

/// The container of the value at `path`, and the value's key or index in it.
fn parent_mut<'a>(t: &'a mut Table, path: &[Step]) -> Option<(&'a mut Value, Step)> {
    let (last, init) = path.split_last()?;
    if init.is_empty() {
        return None;
    }
    Some((get_mut(t, init)?, last.clone()))
}

/// Values of the wrong type, the wrong size, or in odd units.
fn odd_value(k: u64) -> Value {
    let s = |x: &str| Value::String(x.into());
    match k % 18 {
        0 => Value::Integer(-1),
        1 => Value::Integer(0),
        2 => Value::Integer(1 << 62),
        3 => Value::Integer(i64::MAX),
        4 => Value::Float(1e99),
        5 => Value::Float(-0.5),
        6 => Value::Float(f64::NAN),
        7 => s("4KiB"),
        8 => s("1e99GiB"),
        9 => s("-1"),
        10 => s("0"),
        11 => s("0.5KiB"),
        12 => s("99999999TiB"),
        13 => s("12 zebibytes"),
        14 => Value::Boolean(true),
        15 => Value::Array(vec![]),
        16 => Value::Table(Table::new()),
        _ => s("150%"),
    }
}

/// One mutation, chosen by `op`, at the path `pick` selects, with `param` for its details.
fn mutate(t: &mut Table, pick: u64, op: u8, param: u64) {
    let all = paths(t);
    if all.is_empty() {
        return;
    }
    let path = &all[(pick % all.len() as u64) as usize];
    match op {
        // Remove the value.
        0 => match parent_mut(t, path) {
            Some((Value::Table(p), Step::Key(k))) => {
                p.remove(&k);
            }
            Some((Value::Array(a), Step::Index(i))) => {
                a.remove(i);
            }
            None => {
                if let [Step::Key(k)] = path.as_slice() {
                    t.remove(k);
                }
            }
            _ => {}
        },
        // Misspell the key.
        1 => {
            if let Some((Value::Table(p), Step::Key(k))) = parent_mut(t, path)
                && let Some(v) = p.remove(&k)
            {
                p.insert(format!("{k}x"), v);
            }
        }
        // Another type, size or unit.
        2 => {
            if let Some(v) = get_mut(t, path) {
                *v = odd_value(param);
            }
        }
        // Tables and arrays swapped: wrap in an array, or unwrap one.
        3 => {
            if let Some(v) = get_mut(t, path) {
                *v = match std::mem::replace(v, Value::Boolean(false)) {
                    Value::Array(mut a) if !a.is_empty() => a.swap_remove(0),
                    other => Value::Array(vec![other]),
                };
            }
        }
        // A duplicated array entry (two jobs of one name, two stores of one name).
        4 => {
            if let Some((Value::Array(a), Step::Index(i))) = parent_mut(t, path) {
                let copy = a[i].clone();
                a.push(copy);
            }
        }
        // An unknown key beside the value.
        _ => {
            if let Some((Value::Table(p), _)) = parent_mut(t, path) {
                p.insert("frobnicate".into(), odd_value(param));
            } else {
                t.insert("frobnicate".into(), odd_value(param));
            }
        }
    }
}

/// Caps every workload to a few simulated milliseconds, so an accepted mutant runs quickly.
fn bound(t: &mut Table) {
    let cap = |t: &mut Table, key: &str, v: Value| {
        if t.contains_key(key) {
            t.insert(key.into(), v);
        }
    };
    let each = |t: &mut Table, name: &str, f: &dyn Fn(&mut Table)| {
        if let Some(Value::Array(a)) = t.get_mut(name) {
            for e in a.iter_mut() {
                if let Value::Table(e) = e {
                    f(e);
                }
            }
        }
    };
    each(t, "job", &|j| {
        j.insert("runtime".into(), Value::String("2ms".into()));
        cap(j, "io_size", Value::String("1MiB".into()));
        cap(j, "loops", Value::Integer(1));
        cap(j, "startdelay", Value::String("0s".into()));
    });
    each(t, "replay", &|_| {});
    each(t, "threads", &|j| {
        j.insert("count".into(), Value::Integer(4));
        j.insert("ops".into(), Value::Integer(4));
    });
    each(t, "dbbench", &|j| {
        j.insert("num".into(), Value::Integer(300));
        j.insert("reads".into(), Value::Integer(100));
    });
    each(t, "ycsb", &|j| {
        j.insert("recordcount".into(), Value::Integer(300));
        j.insert("operationcount".into(), Value::Integer(300));
    });
    each(t, "filebench", &|j| {
        j.insert("run".into(), Value::String("5ms".into()));
        j.insert("nfiles".into(), Value::Integer(20));
    });
    each(t, "fio_files", &|j| {
        j.insert("size".into(), Value::String("64KiB".into()));
        j.insert("threads".into(), Value::Integer(2));
    });
    each(t, "updates", &|j| {
        j.insert("dataset".into(), Value::String("1MiB".into()));
        j.insert("updates".into(), Value::Integer(100));
    });
    if let Some(Value::Table(p)) = t.get_mut("prefill") {
        p.insert("fraction".into(), Value::Float(0.01));
    }
    if let Some(Value::Table(p)) = t.get_mut("precondition") {
        p.insert("max_rounds".into(), Value::Integer(1));
        p.insert("fill".into(), Value::Float(0.01));
    }
    if let Some(Value::Table(p)) = t.get_mut("trace") {
        p.insert("enabled".into(), Value::Boolean(false));
    }
}

/// Workload tables: a file with none of them describes a device alone (the ublk front end's).
const WORKLOADS: [&str; 8] = [
    "job",
    "replay",
    "threads",
    "dbbench",
    "ycsb",
    "filebench",
    "fio_files",
    "updates",
];

/// Refused naming a field, or accepted: what `zonelab check` (or, for a device alone, `zonelab
/// ublk`) does with `t`.
fn check(t: &Table, device_only: bool) -> Result<Option<crate::experiment::Experiment>, String> {
    let text = toml::to_string(t).map_err(|e| format!("cannot write the mutant: {e}"))?;
    let validated = ExperimentConfig::parse(&text, &[]).and_then(|c| {
        if device_only {
            c.validate_device("fuzz")
        } else {
            c.validate("fuzz")
        }
    });
    match validated {
        Ok(exp) => Ok(Some(exp)),
        Err(ConfigError::Field { path, message }) if !path.is_empty() && !message.is_empty() => {
            Ok(None)
        }
        Err(ConfigError::UnknownPreset(_)) => Ok(None),
        Err(e) => Err(format!("refused without naming a field: {e}\n{text}")),
    }
}

fn fuzz_one(base: &Table, muts: &[(u64, u8, u64)]) -> Result<(), String> {
    let device_only = !WORKLOADS.iter().any(|w| base.contains_key(*w));
    let mut t = base.clone();
    for &(pick, op, param) in muts {
        mutate(&mut t, pick, op, param);
    }
    let text = toml::to_string(&t).unwrap_or_default();
    let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<(), String> {
        check(&t, device_only)?;
        if device_only {
            return Ok(());
        }
        bound(&mut t);
        if let Some(exp) = check(&t, false)? {
            // A run may fail (a trace file that is not there): it must not panic.
            let _ = run(&exp, Inputs::default(), 0, &mut |_| {});
        }
        Ok(())
    }));
    match outcome {
        Ok(r) => r,
        Err(p) => Err(format!(
            "panicked: {}\n--- mutant ---\n{text}",
            p.downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| p.downcast_ref::<&str>().copied())
                .unwrap_or("?")
        )),
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: crate::test_cases(192),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn mutated_configs_are_refused_naming_a_field_or_run(
        which in any::<u64>(),
        muts in proptest::collection::vec((any::<u64>(), 0u8..6, any::<u64>()), 1..4),
    ) {
        let corpus = corpus();
        let (name, base) = &corpus[(which % corpus.len() as u64) as usize];
        if let Err(e) = fuzz_one(base, &muts) {
            prop_assert!(false, "{}: {}", name, e);
        }
    }
}

/// Every unmutated shipped file is accepted and runs bounded.
#[test]
fn every_shipped_file_is_accepted() {
    for (name, t) in corpus() {
        let device_only = !WORKLOADS.iter().any(|w| t.contains_key(*w));
        assert!(
            matches!(check(&t, device_only), Ok(Some(_))),
            "{name} is refused"
        );
        fuzz_one(&t, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
