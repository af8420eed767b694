//! Faults at run time: a zone that fails at its time and not before, commands that fail at their
//! rate and only in their window, the same failures from the same seed, a run that reports them,
//! and configurations that cannot work refused naming the field.

use super::*;
use crate::config::ExperimentConfig;
use crate::driver::Driver;
use crate::experiment::{Experiment, Inputs, build_device, run};
use crate::testing::fixtures::tiny_device;
use crate::time::Duration;

fn experiment(faults: &str) -> Result<Experiment, crate::ConfigError> {
    let text = format!("seed = 7\n{}\n{faults}", tiny_device());
    ExperimentConfig::parse(&text, &[])?.validate_device("t")
}

/// The device of `faults`, driven from the start of its workload.
fn driver(faults: &str) -> (Driver, Instant) {
    let exp = experiment(faults).unwrap();
    let device = build_device(&exp);
    let start = device.idle_at();
    (Driver::new(device, start, exp.sampling(), "t"), start)
}

const ZONE_LBAS: u64 = 64;

#[test]
fn a_zone_goes_offline_at_its_time_and_not_before() {
    let (mut d, start) = driver("[[faults.zones]]\nat = \"5ms\"\nzone = 2\nstate = \"offline\"\n");
    let z2 = 2 * ZONE_LBAS;
    let at = |ms: u64| start + Duration::from_us(ms * 1000);
    d.advance(at(1));
    assert!(d.submit(at(1), Command::write(z2, 1)).is_ok());
    // Offered time past the fault with no command: the zone fails then, not at the next command.
    d.advance(at(6));
    assert_eq!(d.device().zone(0, 2).state, ZoneState::Offline);
    assert_eq!(
        d.submit(at(7), Command::write(z2 + 1, 1)),
        Err(Status::ZoneIsOffline)
    );
    assert_eq!(
        d.submit(at(7), Command::read(z2, 1)),
        Err(Status::ZoneIsOffline)
    );
    // The other zones go on.
    assert!(d.submit(at(8), Command::write(3 * ZONE_LBAS, 1)).is_ok());
    d.device().check_invariants();
}

#[test]
fn a_read_only_zone_still_reads() {
    let (mut d, start) =
        driver("[[faults.zones]]\nat = \"1ms\"\nzone = 1\nstate = \"read_only\"\n");
    assert!(d.submit(start, Command::write(ZONE_LBAS, 4)).is_ok());
    let later = start + Duration::from_us(2000);
    assert_eq!(
        d.submit(later, Command::write(ZONE_LBAS + 4, 1)),
        Err(Status::ZoneIsReadOnly)
    );
    assert!(d.submit(later, Command::read(ZONE_LBAS, 4)).is_ok());
}

/// Which of `n` reads, one every microsecond from the start, fail.
fn failed_reads(faults: &str, n: u64) -> Vec<u64> {
    let (mut d, start) = driver(faults);
    (0..n)
        .filter(|&i| {
            let t = start + Duration::from_us(i);
            d.submit(t, Command::read(i % (16 * ZONE_LBAS), 1)).is_err()
        })
        .collect()
}

#[test]
fn commands_fail_at_their_rate_in_their_window_and_the_seed_decides_which() {
    let window = "[[faults.commands]]\nfrom = \"1ms\"\nuntil = \"3ms\"\nops = \"reads\"\nstatus = \"unrecovered_read_error\"\nrate = 1.0\n";
    let failed = failed_reads(window, 4000);
    assert_eq!(failed, (1000..3000).collect::<Vec<_>>());

    let quarter = "[[faults.commands]]\nops = \"data\"\nstatus = \"internal_error\"\nrate = 0.25\n";
    let failed = failed_reads(quarter, 8000);
    assert!(
        (1700..2300).contains(&failed.len()),
        "{} of 8000",
        failed.len()
    );
    assert_eq!(
        failed,
        failed_reads(quarter, 8000),
        "the same seed, the same failures"
    );

    // Writes only: reads never fail.
    let writes = "[[faults.commands]]\nops = \"writes\"\nstatus = \"write_fault\"\nrate = 1.0\n";
    assert!(failed_reads(writes, 100).is_empty());
    let (mut d, start) = driver(writes);
    assert_eq!(
        d.submit(start, Command::write(0, 1)),
        Err(Status::WriteFault)
    );
    assert_eq!(
        d.device().zone(0, 0).wp,
        0,
        "a failed write changes nothing"
    );
}

#[test]
fn a_run_reports_the_failed_commands_with_their_status() {
    let text = format!(
        "seed = 7\n[[job]]\nrw = \"write\"\nbs = \"16KiB\"\nio_size = \"512KiB\"\n{}\n[[faults.commands]]\nfrom = \"2ms\"\nops = \"writes\"\nstatus = \"write_fault\"\nrate = 1.0\n",
        tiny_device()
    );
    let exp = ExperimentConfig::parse(&text, &[])
        .unwrap()
        .validate("t")
        .unwrap();
    let out = run(&exp, Inputs::default(), 0, &mut |_| {}).unwrap();
    let s = &out.summary;
    assert_eq!(
        s.errors_total, 1,
        "the job stops at its first error, as fio does"
    );
    assert!(
        s.errors[0].status.starts_with("Write Fault"),
        "{:?}",
        s.errors
    );
    let written = s.ops.get("write").map_or(0, |o| o.count);
    assert!(
        written > 0 && written < 32,
        "{written} writes before the fault"
    );
}

/// How long a 4 KiB read of LBA 0 takes at `ms` milliseconds into the workload (the device idle
/// then), on a tiny device whose four dies run `factor` times slower from 4 ms until 6 ms.
fn read_latencies(factor: &str) -> Vec<u64> {
    let mut faults = String::new();
    for die in 0..4 {
        faults.push_str(&format!(
            "[[faults.dies]]\nfrom = \"4ms\"\nuntil = \"6ms\"\ndie = {die}\nfactor = {factor}\n"
        ));
    }
    let (mut d, start) = driver(&faults);
    assert!(d.submit(start, Command::write(0, 4)).is_ok());
    [2u64, 5, 8]
        .iter()
        .map(|&ms| {
            let t = start + Duration::from_us(ms * 1000);
            d.advance(t);
            (d.submit(t, Command::read(0, 1)).unwrap().done - t).ns()
        })
        .collect()
}

#[test]
fn a_slow_die_takes_factor_times_its_nand_time_in_its_window_only() {
    let fast = read_latencies("1.0");
    assert_eq!(fast[0], fast[1]);
    let slow = read_latencies("4.0");
    assert_eq!(slow[0], fast[0], "before the window");
    assert_eq!(slow[2], fast[0], "after the window");
    // The tiny device senses a page in 50 us: four times that in the window, the transfer
    // and the controller's time unchanged.
    assert_eq!(slow[1] - fast[1], 3 * 50_000, "{slow:?} against {fast:?}");
}

#[test]
fn faults_that_cannot_work_are_refused_naming_the_field() {
    let refused = |faults: &str, field: &str| {
        let e = experiment(faults).unwrap_err().to_string();
        assert!(e.contains(field), "{field}: {e}");
    };
    refused(
        "[[faults.zones]]\nat = \"1ms\"\nzone = 16\nstate = \"offline\"\n",
        "faults.zones[0].zone",
    );
    refused(
        "[[faults.zones]]\nat = \"1ms\"\nzone = 1\nstate = \"broken\"\n",
        "faults.zones[0].state",
    );
    refused(
        "[[faults.commands]]\nstatus = \"write_fault\"\nrate = 0.0\n",
        "faults.commands[0].rate",
    );
    refused(
        "[[faults.commands]]\nstatus = \"write_fault\"\nrate = 1.5\n",
        "faults.commands[0].rate",
    );
    refused(
        "[[faults.commands]]\nstatus = \"zone_is_full\"\nrate = 0.5\n",
        "faults.commands[0].status",
    );
    refused(
        "[[faults.commands]]\nops = \"trims\"\nstatus = \"write_fault\"\nrate = 0.5\n",
        "faults.commands[0].ops",
    );
    refused(
        "[[faults.commands]]\nfrom = \"2ms\"\nuntil = \"1ms\"\nstatus = \"write_fault\"\nrate = 0.5\n",
        "faults.commands[0].until",
    );
    refused(
        "[[faults.dies]]\ndie = 4\nfactor = 2.0\n",
        "faults.dies[0].die",
    );
    refused(
        "[[faults.dies]]\ndie = 1\nfactor = 0.5\n",
        "faults.dies[0].factor",
    );
    refused(
        "[[faults.dies]]\nfrom = \"2ms\"\nuntil = \"2ms\"\ndie = 1\nfactor = 2.0\n",
        "faults.dies[0].until",
    );
    refused(
        "[[faults.zones]]\nat = \"1ms\"\nzone = 1\nstate = \"offline\"\nunknown = 1\n",
        "unknown",
    );
    refused(
        "[layer]\nkind = \"static\"\nzones_per_logical = 4\nstripe_width = 2\nstripe_size = \"8KiB\"\n[[faults.zones]]\nat = \"1ms\"\nzone = 1\nstate = \"offline\"\n",
        "do not combine with a static or eZNS [layer]",
    );
}
