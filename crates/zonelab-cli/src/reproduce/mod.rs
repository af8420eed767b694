//! `zonelab reproduce PAPER`: rerun one paper's experiments and draw its figures.

mod block_interface_tax;
mod claims;
mod ezns;
mod lsm_zgc;
mod plot;
mod preemptive_reset;
mod rezns;
mod zns_characteristics;

use std::path::Path;
use std::sync::Mutex;

use anyhow::{Context, Result, bail};
use zonelab::config::ExperimentConfig;
use zonelab::experiment::{Inputs, RunOutput};
use zonelab_cli::output::write_results;

pub const PAPERS: &[(&str, &str)] = &[
    (
        "ezns",
        "eZNS (Min et al., eZNS, OSDI 2023 (talk notes)), section 5: local and global overdrive, scheduler fairness (with the device's read priority too), device observations, RocksDB and YCSB tenants",
    ),
    (
        "lsm-zgc",
        "LSM-ZGC (Choi et al., LSM-ZGC, HotStorage 2020), section 4: GC overhead of Basic_ZGC vs LSM_ZGC on the F2FS-like layer by utilisation, hot/cold separation, threshold_cold, multi-thread run",
    ),
    (
        "preemptive-reset",
        "Preemptive Zone Reset (Jung et al., Preemptive Zone Reset, Electronics 2023), sections 4.1 and 4.2: fio tail latency, mapping vs preemptive vs synchronous; RocksDB db_bench on the ZenFS-like layer",
    ),
    (
        "rezns",
        "ReZNS (Lee et al., ReZNS, Appl. Sci. 2024), section 4: fio and Filebench on the F2FS-like layer (and a labelled stand-in), resets, energy and throughput, baseline vs renewable",
    ),
    (
        "zns-characteristics",
        "ZNS characteristics (Shin et al., NVMSA 2020): request size (Table II, Figure 3), isolation (Figure 4), predictability (Figures 5 and 6), aged zones (Figure 7); ZNS vs conventional",
    ),
    (
        "block-interface-tax",
        "The block interface tax (ZNS, USENIX ATC 2021, Figure 1): capacity overwritten four times in 64 KiB writes, ZNS vs block SSDs at 7% and 28% over-provisioning on the same NAND",
    ),
];

/// Reruns `paper` at `scale` into `out`, which then holds only this reproduction's files (what
/// an earlier one left there goes: see [`zonelab_io::clear_reproduction_dir`]).
pub fn run(paper: &str, out: &Path, scale: Scale) -> Result<()> {
    type Check = fn(Scale) -> Result<()>;
    type Runs = fn(&Path, Scale) -> Result<()>;
    let (check, reproduce): (Check, Runs) = match paper {
        "ezns" => (ezns::check_scale, ezns::run),
        "lsm-zgc" => (lsm_zgc::check_scale, lsm_zgc::run),
        "preemptive-reset" => (preemptive_reset::check_scale, preemptive_reset::run),
        "rezns" => (rezns::check_scale, rezns::run),
        "zns-characteristics" => (zns_characteristics::check_scale, zns_characteristics::run),
        "block-interface-tax" => (block_interface_tax::check_scale, block_interface_tax::run),
        other => {
            let known: Vec<&str> = PAPERS.iter().map(|p| p.0).collect();
            bail!(
                "no reproduction named `{other}`; available: {}",
                known.join(", ")
            )
        }
    };
    // A name or scale the paper refuses is refused before an earlier reproduction's files go.
    check(scale)?;
    zonelab_io::clear_reproduction_dir(out)?;
    reproduce(out, scale)
}

/// How much larger and longer than shipped a reproduction runs (`--scale N`): each reproduction
/// multiplies its workloads' lengths (and, where its README says so, its data set) by `N`. 1 is
/// the shipped scale, whose runs and outputs `--scale` leaves untouched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scale(u32);

impl Scale {
    #[cfg_attr(not(test), allow(dead_code))]
    pub const SHIPPED: Scale = Scale(1);

    pub fn new(n: u32) -> Result<Scale> {
        if n == 0 {
            bail!("--scale must be at least 1 (1 is the shipped scale), not 0");
        }
        Ok(Scale(n))
    }

    pub fn factor(self) -> u32 {
        self.0
    }

    pub fn is_shipped(self) -> bool {
        self.0 == 1
    }

    /// `n` times the scale.
    pub fn count(self, n: u64) -> u64 {
        n * self.0 as u64
    }

    /// A size or duration written as an integer and a unit ("64GiB", "200s", "10z"), times
    /// the scale, in the same unit.
    pub fn text(self, v: &str) -> String {
        let digits = v.len() - v.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let n: u64 = v[..digits]
            .parse()
            .unwrap_or_else(|_| panic!("`{v}` starts with an integer (a reproduction's constant)"));
        format!("{}{}", self.count(n), &v[digits..])
    }

    /// `summary` with [`Scale::note`] after its title (the first line).
    pub fn noted(self, what: &str, summary: &str) -> String {
        let at = summary.find("\n\n").map_or(0, |i| i + 2);
        format!("{}{}{}", &summary[..at], self.note(what), &summary[at..])
    }

    /// The summary's line saying what `--scale` multiplied; nothing at the shipped scale.
    fn note(self, what: &str) -> String {
        if self.is_shipped() {
            String::new()
        } else {
            format!(
                "**Scale: `--scale {}`**, {} times the shipped scale: {what}. The shipped scale's \
                 numbers are in the committed README.\n\n",
                self.0, self.0
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

    /// Scales the experiment's integer `key` (shipped value `n`); at the shipped scale the run
    /// is left as it is.
    pub fn scale_count(mut self, scale: Scale, key: &str, n: u64) -> Self {
        if !scale.is_shipped() {
            self.overrides.push(format!("{key}={}", scale.count(n)));
        }
        self
    }

    /// Scales the experiment's size or duration `key` (shipped value `v`, as "64GiB", "60s").
    pub fn scale_text(mut self, scale: Scale, key: &str, v: &str) -> Self {
        if !scale.is_shipped() {
            self.overrides.push(format!("{key}=\"{}\"", scale.text(v)));
        }
        self
    }
}

/// Finished runs by name.
pub type Done = std::collections::HashMap<String, RunOutput>;

/// Takes run `name` out of the finished runs.
pub fn take(done: &mut Done, name: &str) -> RunOutput {
    done.remove(name).expect("every run is in the list")
}

/// Threads for a reproduction's independent runs: every core the machine offers.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs every run on up to `threads` threads (each run on one thread, as it would run alone:
/// runs share nothing, so the results are those of running them one after another), writes each
/// one's results directory under `out/runs/`, and returns what `keep` takes from each output, in
/// the order given (`keep` lets a reproduction drop the device of a finished run).
pub fn run_parallel<T: Send>(
    out: &Path,
    runs: Vec<Run>,
    threads: usize,
    keep: impl Fn(RunOutput) -> T + Sync,
) -> Result<Vec<T>> {
    parallel(runs, threads, |run| run_one(out, &run).map(&keep))
}

/// Does `work` on every item on up to `threads` threads; the results in the order given.
pub fn parallel<I: Send, T: Send>(
    items: Vec<I>,
    threads: usize,
    work: impl Fn(I) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let queue = Mutex::new(items.into_iter().enumerate());
    let results: Mutex<Vec<(usize, Result<T>)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                loop {
                    let Some((i, item)) = queue.lock().expect("queue").next() else {
                        return;
                    };
                    let result = work(item);
                    results.lock().expect("results").push((i, result));
                }
            });
        }
    });
    let mut results = results.into_inner().expect("results");
    results.sort_by_key(|r| r.0);
    results.into_iter().map(|(_, r)| r).collect()
}

/// Runs one run and writes its results directory under `out/runs/`.
pub fn run_one(out: &Path, run: &Run) -> Result<RunOutput> {
    run_one_with(out, run, |_| Ok(Inputs::default()))
}

/// As [`run_one`], with the inputs (traces to replay, a trace sink) `inputs` makes for the
/// run's validated experiment.
pub fn run_one_with(
    out: &Path,
    run: &Run,
    inputs: impl FnOnce(&zonelab::Experiment) -> Result<Inputs>,
) -> Result<RunOutput> {
    let cfg = ExperimentConfig::parse(&run.text, &run.overrides)
        .with_context(|| format!("run {}", run.name))?;
    let exp = cfg
        .validate(&run.name)
        .with_context(|| format!("run {}", run.name))?;
    let inputs = inputs(&exp).with_context(|| format!("run {}", run.name))?;
    eprintln!("running {}", run.name);
    let result = zonelab::run(&exp, inputs, cfg.fingerprint(), &mut |_| {})
        .with_context(|| format!("run {}", run.name))?;
    write_results(&out.join("runs").join(&run.name), &cfg, &result, false)?;
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_scale_leaves_the_last_reproduction_in_place() {
        let tmp = tempfile::tempdir().unwrap();
        let kept = tmp.path().join("summary.md");
        std::fs::write(&kept, "the last run").unwrap();
        for paper in PAPERS.iter().map(|p| p.0) {
            let err = run(paper, tmp.path(), Scale::new(1_000_000).unwrap()).unwrap_err();
            assert!(err.to_string().contains("scale"), "{paper}: {err}");
            assert!(
                kept.exists(),
                "{paper} cleared the directory before refusing"
            );
        }
    }

    #[test]
    fn a_scale_multiplies_sizes_durations_and_counts_and_leaves_shipped_runs_alone() {
        let four = Scale::new(4).expect("4");
        assert_eq!(four.text("64GiB"), "256GiB");
        assert_eq!(four.text("100ms"), "400ms");
        assert_eq!(four.text("10z"), "40z");
        assert_eq!(four.count(6_000_000), 24_000_000);
        assert!(Scale::new(0).is_err(), "scale 0 is refused");
        let run = || Run::new("r", "", vec!["a=1".into()]);
        let shipped = run()
            .scale_count(Scale::SHIPPED, "updates.0.updates", 5)
            .scale_text(Scale::SHIPPED, "job.0.io_size", "1GiB");
        assert_eq!(shipped.overrides, vec!["a=1".to_string()]);
        assert!(Scale::SHIPPED.note("x").is_empty());
        let scaled = run().scale_count(four, "updates.0.updates", 5).scale_text(
            four,
            "job.0.io_size",
            "1GiB",
        );
        assert_eq!(
            scaled.overrides,
            vec!["a=1", "updates.0.updates=20", "job.0.io_size=\"4GiB\""]
        );
        assert!(four.note("x").contains("--scale 4"));
        let noted = four.noted("x", "# Title\n\nText.\n");
        assert!(noted.starts_with("# Title\n\n**Scale"), "{noted}");
        assert!(noted.ends_with("\n\nText.\n"), "{noted}");
        assert_eq!(
            Scale::SHIPPED.noted("x", "# T\n\nText.\n"),
            "# T\n\nText.\n"
        );
    }

    /// Runs on two threads give what they give one after another, in the order given.
    #[test]
    fn parallel_runs_equal_serial_runs() {
        let text = "preset = \"rezns-40g\"\n[prefill]\nfraction = 0.25\n[[job]]\nrw = \"randrw\"\nbs = \"4KiB\"\niodepth = 8\nio_size = \"8MiB\"\n";
        let runs = || {
            (1..=4)
                .map(|seed| Run::new(format!("seed-{seed}"), text, vec![format!("seed={seed}")]))
                .collect::<Vec<_>>()
        };
        // Removed when dropped, whether the test passes or fails.
        let tmp = tempfile::Builder::new()
            .prefix("zonelab-parallel-")
            .tempdir()
            .expect("a temporary directory");
        let dir = tmp.path().to_path_buf();
        let json = |o: RunOutput| serde_json::to_string(&o.summary).expect("summary");
        let serial = run_parallel(&dir.join("serial"), runs(), 1, json).expect("serial");
        let parallel = run_parallel(&dir.join("parallel"), runs(), 2, json).expect("two");
        assert_eq!(serial, parallel);
        assert_ne!(serial[0], serial[1], "different seeds give different runs");
    }
}
