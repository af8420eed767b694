//! End-to-end runs of the conventional SSD through the experiment file: block jobs, the
//! preconditioning phase, determinism, the FTL's report and series, NAND aging (off changes
//! nothing, on slows reads), and configuration errors that name their field.

use crate::config::{ConfigError, ExperimentConfig};
use crate::experiment::{Inputs, RunOutput, run};
use crate::firmware::FirmwareReport;
use crate::ftl::FtlReport;
use crate::metrics::Percentile;
use crate::testing::fixtures::TINY_CONVENTIONAL as CONV;

/// The same NAND as a ZNS device: 16 zones of 1 MiB (one block on each die, 4 blocks).
const ZNS: &str = r#"
[device]
name = "tiny-zns"
source = "test"
[device.geometry]
channels = 2
dies_per_channel = 2
blocks_per_die = 64
pages_per_block = 4
page_size_bytes = "16KiB"
lba_size_bytes = 4096
[device.zones]
dies_per_zone = 4
zone_size_bytes = "1MiB"
zone_capacity_bytes = "1MiB"
[device.timing]
read_latency_ns = 50000
program_latency_ns = 500000
erase_latency_ns = 3000000
channel_rate_mb_s = 800
host_rate_mb_s = 3200
[device.energy]
read_nj_per_page = 1.0
program_nj_per_page = 10.0
erase_nj_per_block = 100.0
"#;

const STEADY_RANDWRITE: &str = r#"
seed = 5
[metrics]
interval = "10ms"
[precondition]
round = 0.25
tolerance = 0.2
slope_tolerance = 0.1
[[job]]
rw = "randwrite"
bs = "4KiB"
iodepth = 8
io_size = "8MiB"
"#;

fn run_text(text: &str) -> RunOutput {
    let cfg = ExperimentConfig::parse(text, &[]).unwrap();
    let exp = cfg.validate("t").unwrap();
    run(&exp, Inputs::default(), cfg.fingerprint(), &mut |_| {}).unwrap()
}

fn json(out: &RunOutput) -> String {
    serde_json::to_string_pretty(&out.summary).unwrap()
}

fn ftl(out: &RunOutput) -> &FtlReport {
    match &out.summary.firmware {
        Some(FirmwareReport::Ftl(f)) => f,
        other => panic!("expected the FTL's report, got {other:?}"),
    }
}

#[test]
fn steady_state_random_writes_are_deterministic_and_collect_garbage() {
    let text = format!("{STEADY_RANDWRITE}{CONV}");
    let a = run_text(&text);
    assert_eq!(json(&a), json(&run_text(&text)), "same seed, same bytes");
    let other = run_text(&text.replace("seed = 5", "seed = 6"));
    assert_ne!(json(&a), json(&other));
    let f = ftl(&a);
    let p = f.precondition.as_ref().expect("preconditioned");
    assert!(p.steady_state, "{p:?}");
    assert!(f.gc_copied_units > 0 && f.foreground_collections > 0);
    let waf = a.summary.device_counters.waf.unwrap();
    assert!(waf > 1.2, "steady-state random writes amplify: {waf}");
    // The device WAF and the FTL's agree (every program unit is whole in steady state, up to
    // the units still staged at the end).
    assert!((waf - f.waf.unwrap()).abs() < 0.02, "{waf} vs {:?}", f.waf);
    assert_eq!(a.summary.jobs[0].writes, 2048);
    // The series file is rendered, one row per interval, WAF per interval.
    let files = crate::report::render(&a.summary, &a.metrics, &*a.device, "");
    let csv = &files
        .iter()
        .find(|(n, _)| n == "firmware_over_time.csv")
        .expect("the FTL's series")
        .1;
    assert!(
        csv.starts_with("time_s,host_mib,gc_copied_mib,superblocks_erased,free_superblocks,waf\n")
    );
    assert!(csv.lines().count() > 2);
    assert!(!files.iter().any(|(n, _)| n == "zones.csv"), "no zones");
}

#[test]
fn sequential_block_jobs_read_back_what_they_wrote_at_qd1() {
    let text =
        format!("[[job]]\nname = \"w\"\nrw = \"write\"\nbs = \"16KiB\"\nsize = \"1MiB\"\n{CONV}");
    let out = run_text(&text);
    let w = &out.summary.ops["write"];
    assert_eq!(w.count, 64);
    assert_eq!(out.summary.device_counters.waf, Some(1.0));
    // With the buffer free, each 16 KiB write completes when its data has crossed the host link
    // (5.12 us at 3200 MB/s) and its page entered the buffer.
    assert_eq!(w.latency_ns.min, 5_120);
    let r = run_text(&format!(
        "[precondition]\nrandom_overwrite = false\n[[job]]\nrw = \"read\"\nbs = \"4KiB\"\nio_size = \"64KiB\"\n{CONV}"
    ));
    // tR 50 us + 4 KiB over the channel (5.12 us) and the host link (1.28 us).
    let read = &r.summary.ops["read"].latency_ns;
    assert!(read.min.abs_diff(56_400) * 1000 <= 56_400);
    assert!(read.get(Percentile::P100).abs_diff(56_400) * 1000 <= 56_400);
    assert_eq!(r.summary.device_counters.nand_page_reads, 16);
}

/// A table with neutral aging (no page types, no retries) gives the same results as no table.
#[test]
fn aging_off_changes_nothing() {
    for (device, job) in [
        (
            ZNS,
            "[prefill]\nfraction = 0.5\n[[job]]\nrw = \"randread\"\nbs = \"4KiB\"\niodepth = 4\nio_size = \"2MiB\"\n",
        ),
        (CONV, STEADY_RANDWRITE),
    ] {
        let plain = run_text(&format!("{job}{device}"));
        let neutral = run_text(&format!("{job}{device}[device.aging]\n"));
        let (mut a, b) = (plain.summary.clone(), neutral.summary);
        a.config_fingerprint = b.config_fingerprint.clone();
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&b).unwrap()
        );
    }
}

/// Worn blocks and old data make reads retry; per-page-type tR moves reads up and down.
#[test]
fn aging_slows_reads_of_worn_blocks() {
    let job = "[prefill]\nfraction = 1.0\n[[job]]\nrw = \"randread\"\nbs = \"4KiB\"\nio_size = \"2MiB\"\n";
    let fresh = run_text(&format!("{job}{ZNS}"));
    let aged = run_text(&format!(
        "{job}{ZNS}[device.aging]\nretry_wear_weight = 0.6\nendurance_erases = 1000\nretry_retention_weight = 0.2\ninitial_retention = \"8760h\"\ninitial_erase_counts = [500, 1000]\ninitial_wear_group = [4, 1]\n"
    ));
    let (f, a) = (&fresh.summary, &aged.summary);
    assert_eq!(f.device_counters.read_retries, 0);
    assert!(
        a.device_counters.read_retries > 100,
        "{}",
        a.device_counters.read_retries
    );
    assert!(a.ops["read"].latency_ns.mean > f.ops["read"].latency_ns.mean * 1.3);
    assert!(a.wear.min_erases >= 500 && a.wear.max_erases <= 1000);
    // MLC page types: lower pages (even) read in 40 us, upper pages (odd) in 60 us.
    let typed = run_text(&format!(
        "{job}{ZNS}[device.aging]\ncell = \"mlc\"\nread_latency_ns = [40000, 60000]\n"
    ));
    let t = &typed.summary.ops["read"].latency_ns;
    assert!(t.min.abs_diff(46_400) * 1000 <= 46_400, "{t:?}");
    assert!(
        t.get(Percentile::P100).abs_diff(66_400) * 1000 <= 66_400,
        "{t:?}"
    );
}

fn field_error(text: &str) -> (String, String) {
    let r = ExperimentConfig::parse(text, &[]).and_then(|c| c.validate("t"));
    match r {
        Err(ConfigError::Field { path, message }) => (path, message),
        other => panic!("expected a field error, got {other:?}"),
    }
}

#[test]
fn bad_conventional_configs_name_the_field() {
    let job = "[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\n";
    let cases: &[(String, &str)] = &[
        (
            format!("{job}{CONV}").replace(
                "over_provisioning_percent = 28",
                "over_provisioning_percent = 3",
            ),
            "device.ftl.over_provisioning_percent",
        ),
        (
            format!("{job}{CONV}").replace(
                "write_buffer_bytes",
                "mapping_unit_bytes = \"3KiB\"\nwrite_buffer_bytes",
            ),
            "device.ftl.mapping_unit_bytes",
        ),
        (
            format!("{job}{CONV}").replace(
                "write_buffer_bytes = \"64KiB\"",
                "write_buffer_bytes = \"24KiB\"",
            ),
            "device.ftl.write_buffer_bytes",
        ),
        (
            format!("{job}{CONV}")
                .replace("[device.ftl]\n", "[device.ftl]\ngc_free_superblocks = 1\n"),
            "device.ftl.gc_free_superblocks",
        ),
        (
            format!(
                "{job}{CONV}[device.zones]\ndies_per_zone = 4\nzone_size_bytes = \"1MiB\"\nzone_capacity_bytes = \"1MiB\"\n"
            ),
            "device.zones",
        ),
        (format!("{job}{ZNS}[device.ftl]\n"), "device.ftl"),
        (
            format!("{job}{CONV}").replace(
                "[device.ftl]\nover_provisioning_percent = 28\nwrite_buffer_bytes = \"64KiB\"\n",
                "",
            ),
            "device.ftl",
        ),
        (
            format!("{job}max_open_zones = 2\n{CONV}"),
            "job[0].max_open_zones",
        ),
        (format!("{job}offset = \"2z\"\n{CONV}"), "job[0].offset"),
        (format!("{job}size = \"64MiB\"\n{CONV}"), "job[0].size"),
        (format!("[prefill]\nfraction = 0.5\n{job}{CONV}"), "prefill"),
        (
            format!("[precondition]\nfill = 0.5\n{job}{ZNS}"),
            "precondition",
        ),
        (
            format!("[precondition]\nfill = 1.5\n{job}{CONV}"),
            "precondition.fill",
        ),
        (
            format!("[precondition]\nbs = \"2KiB\"\n{job}{CONV}"),
            "precondition.bs",
        ),
        (
            format!("[firmware]\npolicy = \"mapping\"\n{job}{CONV}"),
            "firmware.policy",
        ),
        (
            format!("[faults]\nread_only_zones = [1]\n{job}{CONV}"),
            "faults.read_only_zones",
        ),
        (
            format!("{job}{CONV}[device.aging]\ncell = \"tlc\"\nread_latency_ns = [1, 2]\n"),
            "device.aging.read_latency_ns",
        ),
        (
            format!("{job}{CONV}[device.aging]\nread_latency_ns = [1]\n"),
            "device.aging.read_latency_ns",
        ),
        (
            format!("{job}{CONV}[device.aging]\ninitial_erase_counts = [5, 1]\n"),
            "device.aging.initial_erase_counts",
        ),
        (
            format!("{job}{CONV}[device.aging]\nretry_wear_weight = -1.0\n"),
            "device.aging.retry_wear_weight",
        ),
        (
            format!("{job}{CONV}").replace("kind = \"conventional\"", "kind = \"hdd\""),
            "device.kind",
        ),
    ];
    for (text, field) in cases {
        let (path, message) = field_error(text);
        assert_eq!(&path, field, "{message}");
        assert!(!message.is_empty());
    }
}

#[test]
fn threads_need_a_zoned_device() {
    let (path, _) = field_error(&format!(
        "[[threads]]\ncount = 2\nbs = \"4KiB\"\nops = 2\n{CONV}"
    ));
    assert_eq!(path, "threads[0].count");
}

/// CONV with `pages` pages per block and as many blocks as keep 64 MiB of NAND: superblocks of
/// 4 x `pages` x 16 KiB.
fn conv_with_block_pages(pages: u32) -> String {
    CONV.replace(
        "blocks_per_die = 64",
        &format!("blocks_per_die = {}", 1024 / pages),
    )
    .replace("pages_per_block = 4", &format!("pages_per_block = {pages}"))
}

/// A QD1 random reader beside a steady random writer, both for 2 s after preconditioning:
/// (read P99.9 in us, the FTL's report).
fn read_tail_beside_writer(pages: u32) -> (f64, FtlReport) {
    let text = format!(
        "seed = 3\n[precondition]\nround = 0.25\ntolerance = 0.2\nslope_tolerance = 0.1\n\
         [[job]]\nname = \"w\"\nrw = \"randwrite\"\nbs = \"4KiB\"\niodepth = 4\nruntime = \"2s\"\n\
         [[job]]\nname = \"r\"\nrw = \"randread\"\nbs = \"4KiB\"\niodepth = 1\nruntime = \"2s\"\n{}",
        conv_with_block_pages(pages)
    );
    let out = run_text(&text);
    let p999 = out.summary.ops["read"].latency_ns.get(Percentile::P999) as f64 / 1e3;
    (p999, ftl(&out).clone())
}

/// No stop-the-world GC: a read beside a steady writer waits for the GC page operation in
/// progress on its die (and the host's own queued programs), never for a whole victim's copies.
/// Collecting a victim at once would make the tail grow with the superblock (8x here: the
/// copies of a 2 MiB superblock take about 12 ms, of a 256 KiB one about 4 ms with its erase).
#[test]
fn read_tails_beside_a_writer_are_set_by_interleaved_gc_copies() {
    let (small, fs) = read_tail_beside_writer(4);
    let (large, fl) = read_tail_beside_writer(32);
    for f in [&fs, &fl] {
        assert!(f.gc_copied_units > 0, "GC ran during the run: {f:?}");
        assert_eq!(f.gc_stalls, 0, "pacing kept up: {f:?}");
    }
    // The device is saturated and erase-bound (a 3 ms erase per 26 host units with these tiny
    // blocks): a read waits for an erase and the programs queued on its die, about 10 ms at
    // P99.9 either way; collecting a 2 MiB victim at once adds its ~10 ms of copies.
    assert!(
        small < 12_000.0 && large < 12_000.0,
        "P99.9 {small:.0} / {large:.0} us"
    );
    assert!(
        large < small * 1.5,
        "P99.9 {small:.0} us (256 KiB superblocks) vs {large:.0} us (2 MiB)"
    );
}
