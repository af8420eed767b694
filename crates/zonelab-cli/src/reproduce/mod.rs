//! `zonelab reproduce PAPER`: rerun one paper's experiments and draw its figures.

mod block_interface_tax;
mod plot;
mod preemptive_reset;
mod rezns;
mod zns_characteristics;

use std::path::Path;
use std::sync::Mutex;

use anyhow::{Context, Result, bail};
use zonelab::config::ExperimentConfig;
use zonelab::sim::{Inputs, RunOutput};
use zonelab_cli::output::write_results;

pub const PAPERS: &[(&str, &str)] = &[
    (
        "preemptive-reset",
        "Preemptive Zone Reset (001_da3b5f2dcfaef21c.txt), section 4.1: fio tail latency, mapping vs preemptive vs synchronous",
    ),
    (
        "rezns",
        "ReZNS (000_1e8e6a1fe63635bd.txt), section 4: resets, energy and throughput, baseline vs renewable",
    ),
    (
        "zns-characteristics",
        "ZNS characteristics (002_78400e817c039edc.txt): request size (Table II, Figure 3), isolation (Figure 4), predictability (Figures 5 and 6), aged zones (Figure 7); ZNS vs conventional",
    ),
    (
        "block-interface-tax",
        "The block interface tax (ZNS, USENIX ATC 2021, Figure 1): capacity overwritten four times in 64 KiB writes, ZNS vs block SSDs at 7% and 28% over-provisioning on the same NAND",
    ),
];

pub fn run(paper: &str, out: &Path) -> Result<()> {
    match paper {
        "preemptive-reset" => preemptive_reset::run(out),
        "rezns" => rezns::run(out),
        "zns-characteristics" => zns_characteristics::run(out),
        "block-interface-tax" => block_interface_tax::run(out),
        other => {
            let known: Vec<&str> = PAPERS.iter().map(|p| p.0).collect();
            bail!(
                "no reproduction named `{other}`; available: {}",
                known.join(", ")
            )
        }
    }
}

/// One run of a reproduction: its name (results go to `runs/<name>`), the experiment file's text
/// and its overrides.
pub struct Run {
    pub name: String,
    pub text: String,
    pub overrides: Vec<String>,
}

impl Run {
    pub fn new(name: impl Into<String>, text: impl Into<String>, overrides: Vec<String>) -> Self {
        Run {
            name: name.into(),
            text: text.into(),
            overrides,
        }
    }
}

/// Runs every run on up to `threads` threads (each run on one thread, as it would run alone:
/// runs share nothing, so the results are those of running them one after another), writes each
/// one's results directory under `out/runs/`, and returns the outputs in the order given.
pub fn run_parallel(out: &Path, runs: Vec<Run>, threads: usize) -> Result<Vec<RunOutput>> {
    let queue = Mutex::new(runs.into_iter().enumerate());
    let results: Mutex<Vec<(usize, Result<RunOutput>)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                loop {
                    let Some((i, run)) = queue.lock().expect("queue").next() else {
                        return;
                    };
                    let result = run_one(out, &run);
                    results.lock().expect("results").push((i, result));
                }
            });
        }
    });
    let mut results = results.into_inner().expect("results");
    results.sort_by_key(|r| r.0);
    results.into_iter().map(|(_, r)| r).collect()
}

fn run_one(out: &Path, run: &Run) -> Result<RunOutput> {
    let cfg = ExperimentConfig::parse(&run.text, &run.overrides)
        .with_context(|| format!("run {}", run.name))?;
    let exp = cfg
        .validate(&run.name)
        .with_context(|| format!("run {}", run.name))?;
    eprintln!("running {}", run.name);
    let result = zonelab::run(&exp, Inputs::default(), cfg.fingerprint(), &mut |_| {})?;
    write_results(&out.join("runs").join(&run.name), &cfg, &result)?;
    Ok(result)
}
