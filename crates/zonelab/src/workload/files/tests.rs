//! Every file workload together on the F2FS-like layer: each does its work without a refused
//! call, and the same seed gives the same bytes (another seed does not).

use crate::config::ExperimentConfig;
use crate::experiment::{Inputs, RunOutput, run};

const ALL: &str = r#"
seed = 5
preset = "rezns-40g"
[fs]
size = "4GiB"
[[filebench]]
personality = "varmail"
nfiles = 200
nthreads = 4
run = "1s"
[[filebench]]
personality = "fileserver"
nfiles = 50
nthreads = 4
meanfilesize = "256KiB"
run = "1s"
[[fio_files]]
threads = 4
size = "4MiB"
fsync = 16
[[updates]]
dataset = "10%"
updates = 20000
pattern = "hotcold"
threads = 2
sync_every = 64
"#;

fn run_text(text: &str) -> RunOutput {
    let cfg = ExperimentConfig::parse(text, &[]).unwrap();
    let exp = cfg.validate("files").unwrap();
    run(&exp, Inputs::default(), cfg.fingerprint(), &mut |_| {}).unwrap()
}

#[test]
fn every_file_workload_runs_and_the_same_seed_gives_the_same_bytes() {
    let a = run_text(ALL);
    let reports = a.summary.layers["files"].file_workloads().unwrap();
    assert_eq!(reports.len(), 4);
    for r in reports {
        assert!(r.ops > 0 && r.write_bytes > 0, "{}: {r:?}", r.name);
        assert!(r.failures.is_empty(), "{}: {:?}", r.name, r.failures);
    }
    assert_eq!(reports[3].ops, 20000, "every update is done");
    let json = |o: &RunOutput| serde_json::to_string(&o.summary).unwrap();
    assert_eq!(json(&a), json(&run_text(ALL)));
    assert_ne!(
        json(&a),
        json(&run_text(&ALL.replace("seed = 5", "seed = 6")))
    );
}

/// More Filebench threads than files: a thread that finds every entry held waits for the
/// others instead of spinning at one instant, so the run ends at its time (it hung before).
#[test]
fn filebench_with_more_threads_than_files_ends() {
    for personality in ["varmail", "fileserver"] {
        let text = format!(
            "seed = 1\npreset = \"rezns-40g\"\n[fs]\nsize = \"4GiB\"\n[[filebench]]\npersonality = \"{personality}\"\nnfiles = 4\nnthreads = 16\nrun = \"20ms\"\n"
        );
        let o = run_text(&text);
        let reports = o.summary.layers["files"].file_workloads().unwrap();
        assert!(reports[0].ops > 0, "{personality}");
        assert!(o.summary.simulated_time_ns >= 20_000_000, "{personality}");
    }
}

/// `ops` ends a Filebench run once its threads have done that many flowops together (each
/// thread finishes the loop it is in), sooner than its run time, and the report's elapsed
/// time is the run's, not the planned one.
#[test]
fn filebench_stops_at_its_op_count() {
    for personality in ["varmail", "fileserver"] {
        let text = format!(
            "seed = 1\npreset = \"rezns-40g\"\n[fs]\nsize = \"4GiB\"\n[[filebench]]\npersonality = \"{personality}\"\nnfiles = 100\nnthreads = 4\nrun = \"60s\"\nops = 2000\n"
        );
        let o = run_text(&text);
        let r = o.summary.layers["files"].file_workloads().unwrap();
        // A varmail loop is 13 flowops, a fileserver loop 11: at most one loop past the cap per
        // thread.
        assert!(
            r[0].ops >= 2000 && r[0].ops <= 2000 + 4 * 13,
            "{personality}: {}",
            r[0].ops
        );
        assert!(r[0].elapsed_ns < 60_000_000_000, "{personality}: {r:?}");
        assert!(
            o.summary.simulated_time_ns < 60_000_000_000,
            "{personality}"
        );
    }
}

/// A workload whose starting files do not fit (here a device prefilled whole, which the F2FS-like
/// layer adopts as one file) is reported as not run, with the reason; the run ends instead of
/// panicking (the config fuzz test found this with Filebench's fileset).
#[test]
fn a_set_up_that_does_not_fit_is_reported_not_a_panic() {
    for workload in [
        "[[filebench]]\npersonality = \"fileserver\"\nnfiles = 20\nrun = \"5ms\"\n",
        "[[updates]]\ndataset = \"1MiB\"\nupdates = 100\n",
    ] {
        let text = format!(
            "seed = 1\npreset = \"rezns-40g\"\n[prefill]\nfraction = 1.0\n[fs]\npersonality = \"f2fs\"\n{workload}"
        );
        let o = run_text(&text);
        let r = o.summary.layers["files"].file_workloads().unwrap();
        let error = r[0].error.as_deref().unwrap_or_default();
        assert!(error.contains("did not fit"), "{workload}: {r:?}");
        assert_eq!(r[0].ops, 0, "{workload}");
    }
}

/// Filebench's set-up closes its files unsynced (fileset.c `fileset_alloc_file`), so they stay
/// in the page cache past a short run; `fs.unmount` writes them back at the end, many files at
/// once, so writes that continue each other in a log merge in its zone's plug (each file is
/// 128 KiB; the commands average more than twice that).
#[test]
fn filebench_set_up_stays_cached_until_the_unmount_writes_it_back_merged() {
    let text = |unmount: bool| {
        format!(
            "seed = 1\npreset = \"rezns-40g\"\n[fs]\nsize = \"4GiB\"\nmax_io = \"512KiB\"\nzone_write_plug = true\nunmount = {unmount}\n[[filebench]]\npersonality = \"fileserver\"\nnfiles = 100\nnthreads = 1\nrun = \"60s\"\nops = 1\n"
        )
    };
    let kept = run_text(&text(false));
    assert_eq!(kept.summary.device_counters.counters.host_write_bytes, 0);
    let o = run_text(&text(true));
    let written = o.summary.device_counters.counters.host_write_bytes;
    let file = 128 << 10;
    assert!(written >= 70 * file, "{written} bytes written");
    let commands = o.summary.ops["write"].count;
    assert!(
        commands * 2 * file < written,
        "{commands} commands for {written} bytes"
    );
}
