//! Regressions of issue 36: experiments `zonelab check` accepted whose runs then failed on the
//! device's zone limits or deadlocked. Each is now refused naming its field, or runs cleanly.

use super::ExperimentConfig;
use crate::experiment::{Inputs, RunOutput, run};

fn check(text: &str) -> Result<crate::experiment::Experiment, super::ConfigError> {
    ExperimentConfig::parse(text, &[])?.validate("limits")
}

fn run_clean(text: &str) -> RunOutput {
    let exp = check(text).expect("check accepts it");
    let out = run(&exp, Inputs::default(), 0, &mut |_| {}).expect("the run ends");
    assert_eq!(out.summary.errors_total, 0, "{:?}", out.summary.errors);
    out
}

/// A tiny device: 8 zones of 64 KiB (16 LBAs of 4 KiB), capacity `cap` KiB, 2 active zones.
fn tiny(cap_kib: u64, active: u32) -> String {
    format!(
        "preset = \"rezns-40g\"\n[device.geometry]\nchannels = 1\ndies_per_channel = 1\n\
         blocks_per_die = 8\npages_per_block = 4\npage_size_bytes = \"16KiB\"\n\
         [device.zones]\ndies_per_zone = 1\nzone_size_bytes = \"64KiB\"\n\
         zone_capacity_bytes = \"{cap_kib}KiB\"\nzone_count = 8\nmax_active_zones = {active}\n\
         [device.timing]\nwrite_buffer_units_per_zone = 0\n"
    )
}

/// Regression (issue 36, defect 7): a writer that abandons zones leaves each one active until
/// it comes back to reset it; `check` compared writers with the open limit only, and the run
/// failed with Too Many Active Zones. Refused, naming the field.
#[test]
fn abandoning_writers_are_checked_against_the_active_limit() {
    let job = "[[job]]\nrw = \"write\"\nbs = \"4KiB\"\nsize = \"4z\"\nio_size = \"1MiB\"\n\
               zone_fill = \"16KiB\"\nzone_fill_action = \"abandon\"\n";
    let err = check(&format!("{}{job}", tiny(64, 2)))
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("job[0].zone_fill_action: "), "{err}");
    assert!(err.contains("above the device's 2"), "{err}");
    // Within the limit it runs, and so does "reset" on the small device.
    run_clean(&format!("{}{job}", tiny(64, 4)));
    run_clean(&format!(
        "{}{}",
        tiny(64, 2),
        job.replace("abandon", "reset")
    ));
}

/// Regression (issue 36, defect 7, found by the swarm's seed 132): a zone left with room
/// below one block (capacity 40 KiB, blocks of 16 KiB) was let go without the Finish that
/// releases its active resource; with one active zone, the next zone's write failed.
#[test]
fn a_writer_finishes_a_zone_it_cannot_fill_before_the_next() {
    let job = "[[job]]\nrw = \"write\"\nbs = \"16KiB\"\niodepth = 2\nsize = \"3z\"\nio_size = \"512KiB\"\n";
    let out = run_clean(&format!("{}{job}", tiny(40, 1)));
    assert!(out.summary.device_counters.counters.zone_finishes > 0);
    // Zone Appends too (the swarm's seed 103980).
    let appends = format!("{job}zone_append = true\n");
    let out = run_clean(&format!("{}{appends}", tiny(40, 1)));
    assert!(out.summary.device_counters.counters.zone_finishes > 0);
}

/// Regression (issue 36, defect 6): the ZenFS-like layer with 3 open and active zones
/// deadlocked ("host tasks wait for each other forever"). ZenFS keeps 2 zones (metadata, extent
/// migration) and needs the WAL and another file open at once: 4 at least. Refused, naming the
/// field, as the F2FS-like layer's `fs.f2fs.active_logs` is.
#[test]
fn zenfs_needs_its_reserved_zones_and_two_more() {
    let device = "preset = \"rezns-40g\"\n[device.geometry]\npages_per_block = 64\n\
                  [device.zones]\ndies_per_zone = 4\nzone_size_bytes = \"8MiB\"\n\
                  zone_capacity_bytes = \"8MiB\"\nzone_count = 32\n";
    let work = "[fs]\npersonality = \"zenfs\"\n[[dbbench]]\nbenchmarks = \"fillrandom\"\nnum = 2000\nfiles = \"fs\"\n";
    let at = |active: u32| format!("{device}max_active_zones = {active}\n{work}");
    let err = check(&at(3)).unwrap_err().to_string();
    assert!(err.starts_with("fs.zenfs.reserved_zones: "), "{err}");
    assert!(err.contains("the device allows 3"), "{err}");
    run_clean(&at(4));
}

/// Regression (issue 36, defect 5): eZNS with small stripes (`experiments/ezns/local.toml`,
/// `layer.max_stripe_size` 4, 8 or 16 KiB): a v-zone's capacity (its zones less their
/// headers) is then not a multiple of the writers' 512 KiB blocks, a writer moved on from a
/// v-zone left with less than a block without finishing it, and the next v-zone's write failed
/// with Too Many Active Zones. The writer now finishes the v-zone first (as fio does).
#[test]
fn ezns_with_small_stripes_stays_within_its_active_limit() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../experiments/ezns/local.toml"
    );
    let text = std::fs::read_to_string(path).unwrap();
    for stripe in ["4KiB", "8KiB", "16KiB"] {
        let overrides = [format!("layer.max_stripe_size=\"{stripe}\"")];
        let exp = ExperimentConfig::parse(&text, &overrides)
            .unwrap()
            .validate("local")
            .unwrap();
        let out = run(&exp, Inputs::default(), 0, &mut |_| {}).unwrap();
        assert_eq!(
            out.summary.errors_total, 0,
            "{stripe}: {:?}",
            out.summary.errors
        );
    }
}

/// Regression (issue 36, defect 11): 2^63-1 given for a share was echoed as
/// 9223372036854776000, digits nobody wrote. Past 2^53 the message shows the number in
/// scientific notation.
#[test]
fn a_huge_number_is_echoed_without_invented_digits() {
    let text = "preset = \"rezns-40g\"\n[prefill]\nfraction = 9223372036854775807\n[[job]]\nrw = \"read\"\nbs = \"4KiB\"\n";
    let err = check(text).unwrap_err().to_string();
    assert_eq!(
        err,
        "prefill.fraction: 9.223372036854776e18 must be between 0 and 1"
    );
    assert_eq!(super::ranges::number(0.5), "0.5");
    assert_eq!(super::ranges::number(-3.0), "-3");
}

/// LSM_ZGC's survivors in the user's data log exist only where there is such a log and no
/// separation to send them elsewhere; anything else is refused naming the field.
#[test]
fn survivors_in_the_user_log_need_lsm_zgc_without_separation_on_f2fs() {
    let device = "preset = \"rezns-40g\"\n";
    let fs = |gc: &str, personality: &str| {
        format!(
            "{device}[fs]\npersonality = \"{personality}\"\n[fs.gc]\n{gc}\n\
             survivors = \"user_log\"\n[[updates]]\ndataset = \"40%\"\nupdates = 1000\n"
        )
    };
    for (gc, personality) in [
        ("policy = \"lsm_zgc\"", "f2fs"),
        ("policy = \"basic_zgc\"\nseparate = false", "f2fs"),
        ("policy = \"lsm_zgc\"\nseparate = false", "zenfs"),
    ] {
        let err = check(&fs(gc, personality)).unwrap_err().to_string();
        assert!(
            err.starts_with("fs.gc.survivors: "),
            "{gc} {personality}: {err}"
        );
    }
    check(&fs("policy = \"lsm_zgc\"\nseparate = false", "f2fs")).unwrap();
}

/// Regression (found by `config::fuzz_tests` on CI, 2026-11-29): 1000 fio threads of 2^62 bytes
/// each overflowed the bytes they need (a panic in `check`); now refused naming the size.
#[test]
fn fio_files_too_large_for_any_device_are_refused_not_overflowed() {
    for size in ["4611686018427387904", "9223372036854771712"] {
        let text = format!(
            "preset = \"rezns-40g\"\n[fs]\npersonality = \"f2fs\"\n[[fio_files]]\nbs = \"4KiB\"\n\
             size = {size}\nthreads = 1000\n"
        );
        let err = check(&text).unwrap_err().to_string();
        assert!(
            err.starts_with("fio_files[0].size: 1000 files of "),
            "{err}"
        );
        let text = format!(
            "preset = \"rezns-40g\"\n[fs]\npersonality = \"f2fs\"\n[[filebench]]\n\
             personality = \"fileserver\"\nmeanfilesize = {size}\n"
        );
        let err = check(&text).unwrap_err().to_string();
        assert!(err.starts_with("filebench[0].nfiles: "), "{err}");
    }
}
