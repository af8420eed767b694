//! The seed swarm as CI runs it: a bounded run of seeds (every checker after every step), and
//! every shrunk case in `regressions/` (each a defect the swarm found, fixed since: none may
//! fail again). `ZONELAB_SWARM_SEEDS` and `ZONELAB_SWARM_START` change the bounded run;
//! `scripts/swarm.sh` runs it longer.

use zonelab_swarm::{Case, Outcome, draw, quiet_panics, replay_command, run};

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn a_bounded_swarm_finds_nothing() {
    quiet_panics();
    // 600 seeds: a bounded part of the swarm (BENCHMARKS.md, "Seed swarm").
    let (start, seeds) = (
        env("ZONELAB_SWARM_START", 0),
        env("ZONELAB_SWARM_SEEDS", 600),
    );
    let mut failed = Vec::new();
    let mut checked = 0;
    for seed in start..start + seeds {
        match run(&draw(seed)) {
            Outcome::Failed(f) => failed.push(format!(
                "seed {seed}: {}{}\n  replay: {}",
                if f.panic { "panic: " } else { "" },
                f.message,
                replay_command(seed)
            )),
            Outcome::Passed { .. } => checked += 1,
            Outcome::Refused(_) => {}
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    assert!(
        checked > seeds * 3 / 4,
        "only {checked} of {seeds} seeds were checked"
    );
}

/// Zones emulated over a conventional SSD, bare and under static zones, are among the draws
/// of the command-level front ends, and pass every check there.
#[test]
fn emulated_zones_are_drawn_and_checked() {
    quiet_panics();
    let (mut bare, mut stacked, mut failed) = (0, 0, Vec::new());
    for seed in 0..1500 {
        let case = draw(seed);
        if !case.experiment.contains("kind = \"emulated\"") {
            continue;
        }
        match run(&case) {
            Outcome::Passed { .. } if case.experiment.contains("[layer.over]") => stacked += 1,
            Outcome::Passed { .. } => bare += 1,
            Outcome::Failed(f) => failed.push(format!("seed {seed}: {}", f.message)),
            Outcome::Refused(r) => failed.push(format!("seed {seed}: refused: {r}")),
        }
    }
    // quiet_panics keeps panic messages for cases: say what failed before asserting.
    eprintln!("{bare} bare, {stacked} stacked\n{}", failed.join("\n"));
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    assert!(bare >= 20 && stacked >= 5, "{bare} bare, {stacked} stacked");
}

#[test]
fn every_regression_case_passes() {
    quiet_panics();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/regressions");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("regressions/ exists")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty());
    let mut failed = Vec::new();
    for p in &paths {
        let case: Case = serde_json::from_str(&std::fs::read_to_string(p).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        if let Outcome::Failed(f) = run(&case) {
            failed.push(format!(
                "{}: {} (once: {})",
                p.display(),
                f.message,
                case.note
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
