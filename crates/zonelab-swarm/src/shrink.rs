//! Shrinking a failing case to a small one that still fails the same way (the same kind:
//! a panic, or a checker's complaint of the same first words): commands removed in halves,
//! then quarters, down to one at a time (Zeller's ddmin, simplified); an experiment's jobs,
//! tables and keys removed one at a time. The device itself is kept: the geometry is usually
//! what matters.

use crate::draw::Front;
use crate::{Case, Outcome, run};

/// The kind of failure an outcome is, for "fails the same way".
pub fn kind(o: &Outcome) -> Option<String> {
    match o {
        Outcome::Failed(f) if f.panic => Some("panic".into()),
        Outcome::Failed(f) => {
            // The checker's own words, without the step and numbers that shrinking changes.
            let text = f.message.split(": ").last().unwrap_or("");
            Some(
                text.chars()
                    .filter(|c| c.is_alphabetic() || *c == ' ')
                    .take(40)
                    .collect(),
            )
        }
        _ => None,
    }
}

/// A smaller case failing as `case` does (at most `budget` tries).
pub fn shrink(case: &Case, budget: usize) -> Case {
    let Some(want) = kind(&run(case)) else {
        return case.clone();
    };
    let mut tries = 0;
    let mut fails = |c: &Case| {
        tries += 1;
        tries <= budget && kind(&run(c)).as_deref() == Some(want.as_str())
    };
    let mut best = case.clone();
    if best.front == Front::Run {
        shrink_experiment(&mut best, &mut fails);
    } else {
        shrink_commands(&mut best, &mut fails);
    }
    best
}

fn shrink_commands(best: &mut Case, fails: &mut dyn FnMut(&Case) -> bool) {
    let mut chunk = best.commands.len().div_ceil(2).max(1);
    loop {
        let mut at = 0;
        while at < best.commands.len() {
            let mut c = best.clone();
            let end = (at + chunk).min(c.commands.len());
            c.commands.drain(at..end);
            if fails(&c) {
                *best = c;
            } else {
                at += chunk;
            }
        }
        if chunk == 1 {
            break;
        }
        chunk = chunk.div_ceil(2);
    }
}

fn shrink_experiment(best: &mut Case, fails: &mut dyn FnMut(&Case) -> bool) {
    let Ok(table) = toml::from_str::<toml::Table>(&best.experiment) else {
        return;
    };
    let mut table = table;
    let mut changed = true;
    while changed {
        changed = false;
        for path in paths(&table) {
            let mut t = table.clone();
            if !remove(&mut t, &path) {
                continue;
            }
            let mut c = best.clone();
            c.experiment = toml::to_string(&t).unwrap_or_default();
            if fails(&c) {
                table = t;
                *best = c;
                changed = true;
                break;
            }
        }
    }
}

/// Removable places: workload tables and array entries, and keys inside workload tables.
fn paths(t: &toml::Table) -> Vec<(String, Option<usize>, Option<String>)> {
    let mut out = Vec::new();
    for (k, v) in t {
        if ["preset", "device", "firmware", "data"].contains(&k.as_str()) {
            continue;
        }
        out.push((k.clone(), None, None));
        match v {
            toml::Value::Array(a) => {
                for (i, e) in a.iter().enumerate() {
                    out.push((k.clone(), Some(i), None));
                    if let toml::Value::Table(inner) = e {
                        for key in inner.keys() {
                            out.push((k.clone(), Some(i), Some(key.clone())));
                        }
                    }
                }
            }
            toml::Value::Table(inner) => {
                for key in inner.keys() {
                    out.push((k.clone(), None, Some(key.clone())));
                }
            }
            _ => {}
        }
    }
    out
}

fn remove(t: &mut toml::Table, (k, i, key): &(String, Option<usize>, Option<String>)) -> bool {
    match (t.get_mut(k), i, key) {
        (Some(_), None, None) => t.remove(k).is_some(),
        (Some(toml::Value::Array(a)), Some(i), None) => {
            a.remove(*i);
            true
        }
        (Some(toml::Value::Array(a)), Some(i), Some(key)) => match a.get_mut(*i) {
            Some(toml::Value::Table(inner)) => inner.remove(key).is_some(),
            _ => false,
        },
        (Some(toml::Value::Table(inner)), None, Some(key)) => inner.remove(key).is_some(),
        _ => false,
    }
}
