//! fio's own zoned-block-device conformance suite, t/zbd/test-zbd-support (fio 3.33, unmodified,
//! from the sources fio/build.sh unpacks), against ZoneLab through the fio engine on three device
//! shapes (fio/zbd/run.sh does the plumbing; these tests judge the outcome test by test).
//!
//! Every test that applies to a host-managed ZNS device without conventional zones must pass.
//! Tests that need a kernel block device, a SCSI device or conventional zones must be skipped
//! with fio's own reason. Known failures must fail for their known reason, so a new failure
//! cannot hide behind them:
//! - test 54 (random read/write with experimental verify): fio 3.33's replay of the write order
//!   (fixed in fio 3.34) aborts in `zbd_replay_write_order` (as on a zoned null_blk, vm/test.sh,
//!   and on a plain file with libaio) or verifies data it never wrote (see `check_test_54`);
//! - test 33 (a block size that does not divide the zone size): fio 3.33 with an asynchronous
//!   engine (ZoneLab's, like libaio) writes one block less than its io_size asks, the same on a
//!   plain file (`fio --filename=plain.img --zonemode=zbd --zonesize=1m --size=2m --io_size=5m
//!   --bs=768k --rw=write --direct=1 --ioengine=libaio` writes 4.5 MiB; with psync, 5.25 MiB);
//! - on the shape with zone capacity below zone size: the suite's libzbc path has no zone
//!   capacity (t/zbd/functions, total_zone_capacity: "ZBC devices do not have zone capacity.
//!   Use zone size."), so the tests that compute their expected byte or reset counts from it
//!   expect counts of whole zones; fio itself sees the capacity and moves exactly the
//!   capacity, which is checked. (vm/test.sh runs the suite on the same kind of device through
//!   a kernel block device, where the suite knows the capacity.)
//!
//! These need fio, its sources and the engine: scripts/test.sh builds them (fio/build.sh) and
//! runs these with ZONELAB_FIO_ENGINE set; a plain `cargo test` skips them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    Pass,
    Skip(String),
    Fail,
}

/// Runs the suite on `shape` (a file in fio/zbd/shapes) with the suite's `options`; returns the
/// outcome of each test and the work directory (per-test logs in t/zbd).
fn run_suite(shape: &str, options: &[&str]) -> (BTreeMap<u32, Outcome>, PathBuf) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let engine =
        std::env::var("ZONELAB_FIO_ENGINE").expect("ZONELAB_FIO_ENGINE (set by scripts/test.sh)");
    let work = std::env::temp_dir().join(format!("zonelab-zbd-{}-{shape}", std::process::id()));
    let out = Command::new("bash")
        .arg(root.join("fio/zbd/run.sh"))
        .arg(root.join(format!("fio/zbd/shapes/{shape}.toml")))
        .arg(&work)
        .args(options)
        .env("ZONELAB", env!("CARGO_BIN_EXE_zonelab"))
        .env("ZONELAB_FIO_ENGINE", engine)
        .output()
        .expect("bash runs");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    // The suite's other lines; `judge` prints each test's line with why a failure is known.
    let other: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with("Running test "))
        .collect();
    eprintln!(
        "{shape}:\n{}\n{}",
        other.join("\n"),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut outcomes = BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("Running test ") else {
            continue;
        };
        let (number, result) = rest.split_once(" ... ").expect("a test line");
        let outcome = match result.trim() {
            "PASS" => Outcome::Pass,
            "FAIL" => Outcome::Fail,
            r => match r.strip_prefix("SKIP") {
                Some(reason) => Outcome::Skip(reason.trim().to_string()),
                None => panic!("{shape}: unexpected line `{line}`"),
            },
        };
        outcomes.insert(number.trim().parse().expect("a test number"), outcome);
    }
    assert!(
        outcomes.len() >= 58,
        "{shape}: the suite ran {} tests: {text}",
        outcomes.len()
    );
    (outcomes, work)
}

fn log(work: &Path, test: u32) -> String {
    std::fs::read_to_string(work.join(format!("t/zbd/test-zbd-support.log.{test}")))
        .unwrap_or_default()
}

/// The skips fio's suite makes on a character device without conventional zones, with its
/// reasons.
fn expected_skip(test: u32) -> Option<&'static str> {
    Some(match test {
        1 => "is not a block device",
        9 | 10 => "is not a SCSI device",
        14 => "does not have enough conventional zones",
        42 | 43 | 49 | 56 => "is not a regular block device",
        50..=52 => "does not have 8 conventional zones",
        53 => "does not have 4 conventional zones",
        _ => return None,
    })
}

/// Test 54 fails as fio 3.33 does on any zoned device: its experimental verify replays the
/// writes in an order that no longer matches the zones (fixed in fio 3.34). fio either stops in
/// an assertion of `zbd_replay_write_order` (`z` or `false`; a plain file with libaio does the
/// same), or the replay sends the verifying read past the zone's written data, where the device
/// returns zeros: a "bad magic header 0" in the verify phase (after fio's `zbd_file_reset` that
/// starts it). Any other failure, and a verify error with data that is not zeros (a misread),
/// fails here.
fn check_test_54(work: &Path) {
    let l = log(work, 54);
    if l.contains("zbd_replay_write_order: Assertion `") {
        return;
    }
    let verify_phase = &l[l.rfind("zbd_file_reset(").unwrap_or(l.len())..];
    let bad: Vec<&str> = l.lines().filter(|x| x.starts_with("verify: ")).collect();
    assert!(
        !bad.is_empty()
            && bad
                .iter()
                .all(|x| x.starts_with("verify: bad magic header 0, "))
            && verify_phase.contains(bad[0]),
        "test 54 failed for another reason than fio 3.33's write-order replay: {l}"
    );
}

/// Test 33 fails as fio 3.33 does with an asynchronous engine: exactly one block short.
fn check_test_33(work: &Path) {
    let l = log(work, 33);
    let bs: u64 = l
        .split_whitespace()
        .find_map(|w| w.strip_prefix("--bs="))
        .and_then(|b| b.parse().ok())
        .unwrap_or_else(|| panic!("test 33: no --bs in the log: {l}"));
    let line = l
        .lines()
        .find(|line| line.starts_with("written: "))
        .unwrap_or_else(|| panic!("test 33: no byte count: {l}"));
    let (got, want) = line["written: ".len()..]
        .split_once(" <> ")
        .expect("got <> want");
    let (got, want): (u64, u64) = (got.trim().parse().unwrap(), want.trim().parse().unwrap());
    assert_eq!(
        got + bs,
        want,
        "test 33 failed for another reason than fio 3.33's: {line}"
    );
}

/// Test 31 reads what its preparation (an earlier fio process) wrote: real reads.
fn check_test_31(work: &Path) {
    let l = log(work, 31);
    let read = l
        .lines()
        .find(|line| line.trim_start().starts_with("READ:"))
        .unwrap_or_else(|| panic!("test 31 read nothing: {l}"));
    assert!(!read.contains("io=0B"), "test 31 read nothing: {read}");
}

/// Why a known failure fails (the module's comment has the detail); its check confirms it.
fn why_known(test: u32) -> &'static str {
    match test {
        54 => "fio 3.33's experimental verify replays writes out of zone order (fixed in fio 3.34)",
        33 => "fio 3.33 with an asynchronous engine writes one block short (libaio on a file too)",
        _ => {
            "the suite's libzbc path takes zone capacity = zone size, so it expects whole zones; \
             fio moved exactly the zones' capacity"
        }
    }
}

/// Every outcome is as expected: skipped with fio's reason, the known failures for their
/// reason (`known` checks them), everything else passed.
fn judge(
    shape: &str,
    outcomes: &BTreeMap<u32, Outcome>,
    work: &Path,
    known: &dyn Fn(u32) -> bool,
    check_known: &dyn Fn(u32),
) {
    let mut wrong = Vec::new();
    for (&test, outcome) in outcomes {
        let line = match outcome {
            Outcome::Pass => "PASS".to_string(),
            Outcome::Skip(r) => format!("SKIP {r}"),
            Outcome::Fail if known(test) => format!("FAIL, as expected: {}", why_known(test)),
            Outcome::Fail => "FAIL".to_string(),
        };
        eprintln!("{shape}: test {test} ... {line}");
        match (expected_skip(test), outcome) {
            (Some(reason), Outcome::Skip(r)) if r.ends_with(reason) => {}
            (Some(reason), other) => {
                wrong.push(format!("{test}: {other:?}, expected SKIP {reason}"))
            }
            (None, Outcome::Fail) if known(test) => check_known(test),
            (None, Outcome::Pass) => {}
            (None, other) => wrong.push(format!("{test}: {other:?}\n{}", log(work, test))),
        }
    }
    assert!(wrong.is_empty(), "{shape}: {}", wrong.join("\n"));
    check_test_31(work);
    let count = |o: &dyn Fn(&Outcome) -> bool| outcomes.values().filter(|x| o(x)).count();
    eprintln!(
        "{shape}: {} passed, {} skipped with fio's reason, {} known failures",
        count(&|o| *o == Outcome::Pass),
        count(&|o| matches!(o, Outcome::Skip(_))),
        count(&|o| *o == Outcome::Fail)
    );
    // The work directory holds the suite's device state (about 1.5 GB); it stays for its logs
    // only when a check above failed.
    std::fs::remove_dir_all(work).ok();
}

#[test]
#[ignore = "needs fio, its sources and the engine; scripts/test.sh runs it"]
fn fio_zbd_suite_on_a_device_without_limits() {
    let (outcomes, work) = run_suite("no-limits", &[]);
    judge(
        "no-limits",
        &outcomes,
        &work,
        &|t| t == 33 || t == 54,
        &|t| {
            if t == 33 {
                check_test_33(&work)
            } else {
                check_test_54(&work)
            }
        },
    );
}

#[test]
#[ignore = "needs fio, its sources and the engine; scripts/test.sh runs it"]
fn fio_zbd_suite_on_a_device_with_14_open_and_active_zones() {
    // -w: zones earlier tests left open would use up the 14 active zones, so the suite resets
    // the device before each write test (its own option for devices with zone limits).
    let (outcomes, work) = run_suite("open14", &["-w"]);
    judge("open14", &outcomes, &work, &|t| t == 33 || t == 54, &|t| {
        if t == 33 {
            check_test_33(&work)
        } else {
            check_test_54(&work)
        }
    });
}

/// The tests whose expected counts come from the suite's zone capacity (= zone size on the
/// libzbc path), as fio 3.33's t/zbd/test-zbd-support computes them.
const CAPACITY_TESTS: [u32; 14] = [5, 6, 7, 8, 11, 12, 13, 15, 16, 24, 26, 27, 28, 37];

/// On the 768 KiB-capacity, 1 MiB-zone shape: a capacity test failed only on its counts, with
/// no I/O error, no verify failure and no crash; where the count is whole zones, fio moved
/// exactly the capacity of those zones.
fn check_capacity_test(work: &Path, test: u32) {
    let l = log(work, test);
    for bad in [
        "Assertion",
        "verify: bad",
        "md5: verify failed",
        "crc32c: verify failed",
    ] {
        assert!(!l.contains(bad), "test {test}: {bad}\n{l}");
    }
    assert!(
        !l.lines()
            .any(|line| line.contains(" err=") && !line.contains(" err= 0")),
        "test {test}: an I/O error\n{l}"
    );
    let mut mismatches = 0;
    for line in l.lines() {
        let Some((what, rest)) = line.split_once(": ") else {
            continue;
        };
        if !matches!(what, "written" | "read" | "reset_count") {
            continue;
        }
        if what == "reset_count" {
            mismatches += 1;
            continue;
        }
        let Some((got, want)) = rest.split_once(" <> ") else {
            continue;
        };
        let (got, want): (u64, u64) = (got.trim().parse().unwrap(), want.trim().parse().unwrap());
        if got != want {
            mismatches += 1;
            // 768 KiB of capacity in each 1 MiB zone.
            assert_eq!(got * 4, want * 3, "test {test}: {line}");
        }
    }
    assert!(
        mismatches > 0,
        "test {test} failed without a count mismatch\n{l}"
    );
}

#[test]
#[ignore = "needs fio, its sources and the engine; scripts/test.sh runs it"]
fn fio_zbd_suite_on_a_device_with_zone_capacity_below_zone_size() {
    let (outcomes, work) = run_suite("capacity", &[]);
    judge(
        "capacity",
        &outcomes,
        &work,
        &|t| t == 33 || t == 54 || CAPACITY_TESTS.contains(&t),
        &|t| match t {
            54 => check_test_54(&work),
            33 => check_test_33(&work),
            _ => check_capacity_test(&work, t),
        },
    );
}
