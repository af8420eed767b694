//! `zonelab reproduce PAPER`: rerun one paper's experiments and draw its figures.

mod lsm_zgc;
mod plot;
mod preemptive_reset;
mod rezns;

use std::path::Path;

use anyhow::{Result, bail};

pub const PAPERS: &[(&str, &str)] = &[
    (
        "lsm-zgc",
        "LSM-ZGC (003_b9d3f7203b354fdb.txt), section 4: GC overhead of Basic_ZGC vs LSM_ZGC on the F2FS-like layer by utilisation, hot/cold separation, threshold_cold",
    ),
    (
        "preemptive-reset",
        "Preemptive Zone Reset (001_da3b5f2dcfaef21c.txt), section 4.1: fio tail latency, mapping vs preemptive vs synchronous",
    ),
    (
        "rezns",
        "ReZNS (000_1e8e6a1fe63635bd.txt), section 4: resets, energy and throughput, baseline vs renewable",
    ),
];

pub fn run(paper: &str, out: &Path) -> Result<()> {
    match paper {
        "lsm-zgc" => lsm_zgc::run(out),
        "preemptive-reset" => preemptive_reset::run(out),
        "rezns" => rezns::run(out),
        other => {
            let known: Vec<&str> = PAPERS.iter().map(|p| p.0).collect();
            bail!(
                "no reproduction named `{other}`; available: {}",
                known.join(", ")
            )
        }
    }
}
