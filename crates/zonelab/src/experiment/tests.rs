//! End-to-end runs of small canonical experiments: determinism, golden latencies that follow
//! from the timing model by hand, and fio zonemode=zbd behaviour.

use super::*;
use crate::config::ExperimentConfig;
use crate::device::ZoneState;
use crate::metrics::Percentile;
use crate::testing::fixtures::tiny_device;
use crate::workload::StopReason;

fn run_text(jobs: &str) -> RunOutput {
    let text = format!("{jobs}\n{}", tiny_device());
    let cfg = ExperimentConfig::parse(&text, &[]).unwrap();
    let exp = cfg.validate("t").unwrap();
    run(&exp, Inputs::default(), cfg.fingerprint(), &mut |_| {}).unwrap()
}

fn json(out: &RunOutput) -> String {
    serde_json::to_string_pretty(&out.summary).unwrap()
}

fn within_hdr(actual: u64, expected: u64) -> bool {
    actual.abs_diff(expected) * 1000 <= expected
}

const RANDREAD: &str = r#"
seed = 3
[prefill]
fraction = 0.5
[[job]]
rw = "randread"
bs = "4KiB"
iodepth = 4
io_size = "4MiB"
"#;

#[test]
fn same_seed_same_bytes_other_seed_differs() {
    let a = json(&run_text(RANDREAD));
    let b = json(&run_text(RANDREAD));
    assert_eq!(a, b);
    let c = json(&run_text(&RANDREAD.replace("seed = 3", "seed = 4")));
    assert_ne!(a, c);
}

#[test]
fn golden_qd1_random_read_latency_is_tr_plus_transfers() {
    let out = run_text(&RANDREAD.replace("iodepth = 4", "iodepth = 1"));
    let read = &out.summary.ops["read"];
    assert_eq!(read.count, 1024);
    // tR 50 us + 4 KiB over the channel (5.12 us) + over the host link (1.28 us), every time.
    let expected = 50_000 + 5_120 + 1_280;
    for (name, v) in &read.latency_ns.percentiles {
        assert!(within_hdr(*v, expected), "{name:?} = {v}");
    }
    assert!(within_hdr(read.latency_ns.min, expected));
    assert_eq!(
        out.summary.device_counters.nand_page_reads, 1024,
        "reads only hit written pages"
    );
    // The energy is the page reads times 1 nJ.
    assert!((out.summary.energy.read_mj - 1024.0 / 1e6).abs() < 1e-12);
    assert_eq!(out.summary.simulated_time_ns, 1024 * expected);
}

#[test]
fn golden_qd1_page_writes_wait_for_tprog() {
    let out = run_text("[[job]]\nrw = \"write\"\nbs = \"16KiB\"\nsize = \"4z\"\n");
    let write = &out.summary.ops["write"];
    assert_eq!(write.count, 64);
    // Host transfer 5.12 us + channel transfer 20.48 us + tPROG 500 us.
    let expected = 5_120 + 20_480 + 500_000;
    assert!(within_hdr(write.latency_ns.get(Percentile::P50), expected));
    assert!(within_hdr(write.latency_ns.get(Percentile::P100), expected));
    assert_eq!(out.summary.device_counters.waf, Some(1.0));
    assert_eq!(out.summary.device_counters.nand_page_programs, 64);
}

#[test]
fn sequential_writers_reset_zones_when_they_wrap() {
    // 5 zones' worth of writes into a 2-zone region: zones fill, then each wrap resets one.
    let out =
        run_text("[[job]]\nrw = \"write\"\nbs = \"64KiB\"\nsize = \"2z\"\nio_size = \"1280KiB\"\n");
    assert_eq!(out.summary.jobs[0].resets, 3);
    assert_eq!(out.summary.device_counters.counters.zone_resets_executed, 3);
    // Each reset erased the 4 blocks of one zone.
    assert_eq!(out.summary.device_counters.block_erases, 12);
    assert!(within_hdr(
        out.summary.ops["reset"].latency_ns.min,
        3_000_000
    ));
    assert_eq!(out.summary.jobs[0].stopped, [StopReason::IoSize]);
}

#[test]
fn random_writers_keep_at_most_max_open_zones() {
    // The device allows 4 open zones; a job holding more would force implicit closes.
    let out = run_text(
        "seed = 5\n[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\niodepth = 8\nmax_open_zones = 2\nio_size = \"8MiB\"\n",
    );
    assert!(out.summary.errors.is_empty(), "{:?}", out.summary.errors);
    assert_eq!(out.summary.device_counters.counters.implicit_closes, 0);
    assert_eq!(
        out.summary.device_counters.counters.open_zones_max, 2,
        "never more than 2 open at once"
    );
    // 8 MiB into a 4 MiB region: zones were reset to make room.
    assert!(out.summary.jobs[0].resets > 0);
    out.device.check_invariants();
}

#[test]
fn zone_reset_threshold_and_frequency_reset_zones_early() {
    let jobs = "seed = 2\n[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\nmax_open_zones = 2\nio_size = \"2MiB\"\nzone_reset_threshold = 0.1\nzone_reset_frequency = 0.01\n";
    let with = run_text(jobs);
    let without = run_text(&jobs.replace("zone_reset_frequency = 0.01", ""));
    assert_eq!(
        without.summary.jobs[0].resets, 0,
        "2 MiB fits the 4 MiB region"
    );
    // Past 10% of the region (~100 writes), every 100th write resets its zone first.
    let resets = with.summary.jobs[0].resets;
    assert!((4..=5).contains(&resets), "{resets} resets");
}

#[test]
fn runtime_and_rate_limits_bound_the_job() {
    let out = run_text(
        "[prefill]\nfraction = 1.0\n[[job]]\nrw = \"randread\"\nbs = \"4KiB\"\ntime_based = true\nruntime = \"100ms\"\nrate_iops = 1000\n",
    );
    let reads = out.summary.ops["read"].count;
    assert!(
        (100..=101).contains(&reads),
        "{reads} reads at 1000 IOPS for 100 ms"
    );
    assert_eq!(out.summary.jobs[0].stopped, [StopReason::Runtime]);
}

#[test]
fn startdelay_holds_the_job_back_and_its_runtime_counts_from_then() {
    let out = run_text(
        "[prefill]\nfraction = 1.0\n[[job]]\nrw = \"randread\"\nbs = \"4KiB\"\ntime_based = true\nruntime = \"100ms\"\nstartdelay = \"50ms\"\nrate_iops = 1000\n",
    );
    // 100 reads at 1000 IOPS from 50 ms to 150 ms: the same count as without the delay, the run
    // 50 ms longer.
    let reads = out.summary.ops["read"].count;
    assert!((100..=101).contains(&reads), "{reads} reads");
    let t = out.summary.simulated_time_ns;
    assert!((149_000_000..151_000_000).contains(&t), "{t}");
}

#[test]
fn thinktime_spaces_the_ios() {
    let out = run_text(
        "[prefill]\nfraction = 1.0\n[[job]]\nrw = \"read\"\nbs = \"4KiB\"\niodepth = 8\nthinktime = \"1ms\"\nio_size = \"40KiB\"\n",
    );
    // Ten reads, one at a time, 1 ms apart: about 9 ms of thinking plus ten reads.
    let t = out.summary.simulated_time_ns;
    assert!((9_000_000..9_700_000).contains(&t), "{t}");
}

#[test]
fn reads_of_an_empty_region_end_the_job_with_a_reason() {
    let out = run_text("[[job]]\nrw = \"randread\"\nbs = \"4KiB\"\n");
    assert_eq!(out.summary.jobs[0].stopped, [StopReason::NoDataToRead]);
    assert!(!out.summary.ops.contains_key("read"));
}

#[test]
fn writers_skip_read_only_zones_and_resets_of_faulty_zones_never_happen() {
    let out = run_text(
        "[faults]\nread_only_zones = [1]\noffline_zones = [2]\n[[job]]\nrw = \"write\"\nbs = \"64KiB\"\nsize = \"4z\"\nio_size = \"1MiB\"\n",
    );
    assert!(out.summary.errors.is_empty(), "{:?}", out.summary.errors);
    assert_eq!(out.device.zone(0, 1).state, ZoneState::ReadOnly);
    assert_eq!(out.device.zone(0, 0).state, ZoneState::Full);
    assert_eq!(out.device.zone(0, 3).state, ZoneState::Full);
    assert_eq!(
        out.device.zone(0, 4).state,
        ZoneState::Empty,
        "the job stays in its 4 zones"
    );
    assert_eq!(
        out.summary.jobs[0].resets, 2,
        "two wraps over the two writable zones"
    );
}

#[test]
fn mixed_jobs_and_appends_run_together() {
    let out = run_text(
        "[prefill]\nfraction = 0.25\n[[job]]\nrw = \"randrw\"\nrwmixread = 70\nbs = \"4KiB\"\niodepth = 4\noffset = \"8z\"\nsize = \"8z\"\nio_size = \"2MiB\"\nzone_append = true\nmax_open_zones = 2\n[[job]]\nrw = \"randread\"\nbs = \"8KiB\"\nsize = \"4z\"\nio_size = \"1MiB\"\n",
    );
    assert!(out.summary.errors.is_empty(), "{:?}", out.summary.errors);
    assert!(
        out.summary.ops.contains_key("append"),
        "{:#?}",
        out.summary.jobs
    );
    assert!(out.summary.ops["append"].count > 100);
    assert!(out.summary.ops["read"].count > 100);
    assert!(!out.summary.ops.contains_key("write"));
    out.device.check_invariants();
}

#[test]
fn writers_leave_zones_at_their_fill_by_resetting_or_abandoning_them() {
    // 64 KiB into each zone of a 4-zone region, 512 KiB in all: 8 zone visits.
    let reset = run_text(
        "[[job]]\nrw = \"write\"\nbs = \"16KiB\"\nsize = \"4z\"\nio_size = \"512KiB\"\nzone_fill = \"64KiB\"\n",
    );
    assert!(reset.summary.errors.is_empty());
    // Each zone is reset as the writer leaves it, twice around; the job ends (io_size) as it
    // leaves the last one, before that reset.
    assert_eq!(reset.summary.jobs[0].resets, 7);
    assert_eq!(reset.device.zone(0, 0).state, ZoneState::Empty);
    let abandon = run_text(
        "[[job]]\nrw = \"write\"\nbs = \"16KiB\"\nsize = \"4z\"\nio_size = \"512KiB\"\nzone_fill = \"64KiB\"\nzone_fill_action = \"abandon\"\n",
    );
    // Four zones left open with 64 KiB, then reset on the second pass before being written again.
    assert_eq!(abandon.summary.jobs[0].resets, 4);
    assert_eq!(abandon.device.zone(0, 3).state, ZoneState::ImplicitlyOpened);
    assert_eq!(abandon.device.written_lbas(0, 3), 16);
}

/// Every series of a run keeps to `metrics.max_intervals`, the firmware's as much as the
/// device's, and the reports say which interval each ended up with.
#[test]
fn firmware_series_keep_to_max_intervals_and_say_their_interval() {
    let out = run_text(
        r#"
[metrics]
interval = "1ms"
max_intervals = 16
[firmware]
policy = "preemptive"
[[job]]
rw = "write"
bs = "64KiB"
io_size = "16MiB"
"#,
    );
    let Some(crate::firmware::FirmwareReport::ZoneMapping(f)) = &out.summary.firmware else {
        panic!("a zone-mapping report: {:?}", out.summary.firmware)
    };
    let iv = &out.summary.series_interval;
    assert_eq!(iv.requested_ns, 1_000_000);
    assert!(
        iv.used_ns > iv.requested_ns,
        "the run is long enough to coarsen: {iv:?}"
    );
    assert!(f.series_interval_ns > 1_000_000, "{}", f.series_interval_ns);
    assert!(
        (2..=16).contains(&f.samples.len()),
        "{} samples kept",
        f.samples.len()
    );
}

/// The tiny device spread over 4096 dies (64 channels of 64) of 8 blocks.
const MANY_DIES: [&str; 3] = [
    "device.geometry.channels=64",
    "device.geometry.dies_per_channel=64",
    "device.geometry.blocks_per_die=8",
];

/// A device without its `[device.zones]` table, as a conventional SSD.
fn conventional(device: &str) -> String {
    let mut out = String::new();
    let mut in_zones = false;
    for line in device.lines() {
        if line.starts_with('[') {
            in_zones = line == "[device.zones]";
        }
        if !in_zones {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.replace("[device]\n", "[device]\nkind = \"conventional\"\n")
}

/// Regression (per-command cost grew with the number of dies): the device's idle time, asked
/// for on every step of a run (the runner, idle-time firmware, the FTL's background GC), was a
/// scan of every die and channel. It is now kept as work is booked (`Nand::idle_at`, O(1)):
/// whole runs on 4096 dies, ZNS under every firmware policy and a conventional SSD with GC,
/// never scan, and the kept idle time equals the scan (`check_invariants`, which the command
/// stream fuzzer in `zns::policy_tests` also runs after every command).
#[test]
fn idle_time_scanned_every_die_per_command() {
    // Each zone one block on one die.
    let zns = [
        "device.zones.dies_per_zone=1",
        "device.zones.zone_size_bytes=\"64KiB\"",
        "device.zones.zone_capacity_bytes=\"64KiB\"",
        "device.zones.max_open_zones=14",
        "device.zones.max_active_zones=14",
    ];
    let jobs = "seed = 4\n[[job]]\nrw = \"write\"\nbs = \"16KiB\"\nsize = \"64z\"\nio_size = \"16MiB\"\n[[job]]\nrw = \"randread\"\nbs = \"4KiB\"\noffset = \"64z\"\nio_size = \"4MiB\"\n[prefill]\nfraction = 0.5\n";
    let overrides = |extra: &[&str]| -> Vec<String> {
        MANY_DIES
            .iter()
            .chain(extra)
            .map(|s| s.to_string())
            .collect()
    };
    let mut runs: Vec<(String, Vec<String>)> = [
        "policy = \"synchronous\"",
        "policy = \"mapping\"\nt_free = 8",
        "policy = \"preemptive\"\nt_free = 8\nidle = \"device\"",
        "policy = \"preemptive\"\nt_free = 8\nidle = \"zone_dies\"",
        "policy = \"renewable\"\nzombie_scan_period = \"1ms\"\nzombie_idle = \"1ms\"",
        "policy = \"round_robin\"",
    ]
    .iter()
    .map(|p| {
        let device = tiny_device();
        (format!("{jobs}{device}[firmware]\n{p}\n"), overrides(&zns))
    })
    .collect();
    runs.push((
        format!(
            "seed = 4\n[precondition]\nrandom_overwrite = false\n[[job]]\nrw = \"randwrite\"\nbs = \"16KiB\"\nio_size = \"2GiB\"\niodepth = 8\n{}[device.ftl]\nover_provisioning_percent = 28.0\n",
            conventional(&tiny_device())
        ),
        overrides(&["device.geometry.blocks_per_die=32"]),
    ));
    for (text, overrides) in &runs {
        let cfg =
            ExperimentConfig::parse(text, overrides).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let exp = cfg.validate("t").unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(exp.device.nand().geometry.dies(), 4096);
        crate::nand::SCANS.with(|s| s.set(0));
        let out = run(&exp, Inputs::default(), cfg.fingerprint(), &mut |_| {}).unwrap();
        assert_eq!(
            crate::nand::SCANS.with(|s| s.get()),
            0,
            "a run scanned every die:\n{text}"
        );
        assert!(out.summary.errors.is_empty(), "{:?}", out.summary.errors);
        assert!(out.summary.ops["write"].count > 0);
        if text.contains("conventional") {
            let Some(crate::firmware::FirmwareReport::Ftl(f)) = &out.summary.firmware else {
                panic!("a conventional device reports its FTL");
            };
            assert!(f.gc_erased_superblocks > 0, "GC ran: {f:?}");
        }
        out.device.check_invariants();
    }
}

/// Regression (a prefill that leaves zones open was not in the writers' open/active budget):
/// zn540 prefilled to 1% keeps one partly written zone, which holds one of the 14 active
/// resources; a random writer given all 14 failed with Too Many Active Zones. It now gets 13.
#[test]
fn prefill_open_zones_were_not_in_the_writers_budget() {
    // Seeds 1, 4 and 5 failed before the fix; under seed 3 the writer happened to take the
    // partly written zone as one of its own.
    for seed in [1, 3, 4, 5] {
        let text = format!(
            "seed = {seed}\npreset = \"zn540\"\n[prefill]\nfraction = 0.01\n[[job]]\nrw = \"randwrite\"\nbs = \"64KiB\"\niodepth = 8\nio_size = \"256MiB\"\n"
        );
        let cfg = ExperimentConfig::parse(&text, &[]).unwrap();
        let exp = cfg.validate("t").unwrap();
        assert_eq!(
            exp.prefill.partial_zones(1077 << 8),
            1,
            "one zone partly written"
        );
        let out = run(&exp, Inputs::default(), cfg.fingerprint(), &mut |_| {}).unwrap();
        assert!(
            out.summary.errors.is_empty(),
            "seed {seed}: {:?}",
            out.summary.errors
        );
        assert_eq!(out.summary.ops["write"].bytes, 256 << 20);
        assert_eq!(exp.jobs[0].max_open_zones, 13);
        assert!(out.summary.device_counters.counters.open_zones_max <= 13);
    }
}

/// The zones (state, LBAs written) the device reports after set-up, for a `[prefill]` on the
/// tiny device without open or active limits (16 zones of 64 LBAs).
fn prefilled(prefill: &str, seed: u64) -> Vec<(ZoneState, u64)> {
    let device = tiny_device();
    let text = format!(
        "seed = {seed}\n[prefill]\n{prefill}\n[[job]]\nrw = \"randread\"\nbs = \"4KiB\"\n{device}"
    );
    let overrides = [
        "device.zones.max_open_zones=0".to_string(),
        "device.zones.max_active_zones=0".to_string(),
    ];
    let cfg = ExperimentConfig::parse(&text, &overrides).unwrap();
    let exp = cfg.validate("t").unwrap();
    let device = build_device(&exp);
    let report = device
        .report_zones(0, 0, crate::device::ReportFilter::All, false, 64)
        .unwrap();
    assert_eq!(report.descriptors.len(), 16);
    report
        .descriptors
        .iter()
        .map(|d| (d.state, d.wp - d.zslba))
        .collect()
}

/// Regression (prefill's zone range, fill levels and random pattern were only checked to run):
/// the zone report after set-up shows each as documented: `offset`/`size` bound the zones
/// written, `fill` (a level, or a `[lo, hi]` range drawn per zone) sets each zone's write
/// pointer with partly written zones Closed, and `pattern = "random"` picks the zones from the
/// seed, inside the region.
#[test]
fn prefill_range_fill_and_pattern_were_only_checked_to_run() {
    use ZoneState::{Closed, Empty, Full};
    // Half of zones 4..12 (8 zones of 64 LBAs): zones 4..8 full, the rest untouched.
    let z = prefilled("offset = \"4z\"\nsize = \"8z\"\nfraction = 0.5", 1);
    for (i, &(state, lbas)) in z.iter().enumerate() {
        let want = if (4..8).contains(&i) {
            (Full, 64)
        } else {
            (Empty, 0)
        };
        assert_eq!((state, lbas), want, "zone {i}: {z:?}");
    }
    // A level: a quarter of the device in zones half full, from the first zone.
    let z = prefilled("fraction = 0.25\nfill = 0.5", 1);
    for (i, &(state, lbas)) in z.iter().enumerate() {
        let want = if i < 8 { (Closed, 32) } else { (Empty, 0) };
        assert_eq!((state, lbas), want, "zone {i}: {z:?}");
    }
    // A range: each zone's level drawn in [0.25, 0.75], a quarter of the device in all.
    let z = prefilled("fraction = 0.25\nfill = [0.25, 0.75]", 1);
    let written: Vec<u64> = z.iter().map(|z| z.1).filter(|&l| l > 0).collect();
    assert_eq!(written.iter().sum::<u64>(), 256, "{z:?}");
    let last = written.len() - 1;
    for (k, &lbas) in written.iter().enumerate() {
        assert!(
            (16..=48).contains(&lbas) || (k == last && lbas < 16),
            "zone {k} holds {lbas} LBAs: {z:?}"
        );
    }
    assert!(
        written[..last].iter().any(|&l| l != written[0]),
        "a level drawn per zone: {z:?}"
    );
    assert!(
        z.iter()
            .all(|&(s, l)| (l == 0) == (s == Empty) && (l > 0) == (s == Closed)),
        "partly written zones are Closed: {z:?}"
    );
    let first_empty = z.iter().position(|z| z.1 == 0).unwrap();
    assert!(
        z[first_empty..].iter().all(|z| z.1 == 0),
        "zones in order: {z:?}"
    );
    // Random: four full zones in zones 2..10, not the first four, chosen by the seed.
    let random = |seed| {
        prefilled(
            "offset = \"2z\"\nsize = \"8z\"\nfraction = 0.5\npattern = \"random\"",
            seed,
        )
        .iter()
        .enumerate()
        .filter(|(_, z)| z.0 == Full)
        .map(|(i, _)| i)
        .collect::<Vec<usize>>()
    };
    let a = random(1);
    assert_eq!(a.len(), 4, "{a:?}");
    assert!(a.iter().all(|z| (2..10).contains(z)), "{a:?}");
    assert_ne!(a, [2, 3, 4, 5], "random order");
    assert_eq!(a, random(1), "the same seed, the same zones");
    assert!(
        (2..8).any(|seed| random(seed) != a),
        "other seeds, other zones"
    );
}
