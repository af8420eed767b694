use super::*;
use crate::experiment::DeviceSpec;

const QUICK: &str = r#"
seed = 7
preset = "rezns-40g"
[[job]]
rw = "randread"
bs = "4KiB"
iodepth = 32
io_size = "64MiB"
"#;

fn parse(text: &str) -> Result<Experiment, ConfigError> {
    ExperimentConfig::parse(text, &[])?.validate("test")
}

fn parse_with(text: &str, overrides: &[&str]) -> Result<Experiment, ConfigError> {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    ExperimentConfig::parse(text, &o)?.validate("test")
}

fn field_error(result: Result<Experiment, ConfigError>) -> (String, String) {
    match result {
        Err(ConfigError::Field { path, message }) => (path, message),
        other => panic!("expected a field error, got {other:?}"),
    }
}

fn zns(e: &Experiment) -> &crate::zns::ZnsSpec {
    match &e.device {
        DeviceSpec::Zns(s) => s,
        other => panic!("expected a ZNS device, got {other:?}"),
    }
}

#[test]
fn every_preset_validates() {
    for (name, preset) in presets::PRESETS {
        // Zoned jobs count zones; block jobs give bytes.
        let size = if preset.contains("kind = \"conventional\"") {
            "1GiB"
        } else {
            "1z"
        };
        let text = format!(
            "preset = \"{name}\"\n[[job]]\nrw = \"write\"\nbs = \"64KiB\"\nsize = \"{size}\"\n"
        );
        let e = parse(&text).unwrap_or_else(|err| panic!("{name}: {err}"));
        assert_eq!(e.device.name(), *name);
    }
}

#[test]
fn rezns_preset_matches_table_1() {
    let e = parse(QUICK).unwrap();
    let s = zns(&e);
    assert_eq!(s.zones.zone_count, 640);
    assert_eq!(s.zones.zone_size_bytes, 64 << 20);
    assert_eq!(s.nand.geometry.block_size_bytes(), 2 << 20);
    assert_eq!(s.blocks_per_zone(), 32);
    assert_eq!(s.info().namespace_bytes(), 40 << 30);
    assert_eq!(s.nand.timing.read_latency, Duration::from_ns(47_200));
    assert_eq!(s.nand.timing.program_latency, Duration::from_ns(533_000));
    // 1.38 mJ per zone over 32 blocks.
    assert!((s.nand.energy.erase_nj_per_block * 32.0 - 1_380_000.0).abs() < 1e-6);
    assert_eq!(e.seed, 7);
}

#[test]
fn device_fields_can_be_overridden_in_the_file_and_on_the_command_line() {
    let text = format!("{QUICK}\n[device.timing]\nread_latency_ns = 50000\n");
    let e = parse(&text).unwrap();
    assert_eq!(zns(&e).nand.timing.read_latency, Duration::from_ns(50_000));
    let e = parse_with(QUICK, &["device.zones.max_open_zones=8", "seed=9"]).unwrap();
    assert_eq!(zns(&e).zones.max_open_zones, Some(8));
    assert_eq!(e.seed, 9);
}

#[test]
fn unknown_keys_are_named() {
    let (path, msg) = field_error(parse(&format!(
        "{QUICK}\n[device.zones]\nzone_sise_bytes = 1\n"
    )));
    assert_eq!(path, "device.zones.zone_sise_bytes");
    assert!(msg.contains("unknown field"), "{msg}");
    let (path, msg) = field_error(parse(&QUICK.replace("iodepth", "io_depth")));
    assert_eq!(path, "job[0].io_depth");
    assert!(msg.contains("unknown field"), "{msg}");
    let (path, _) = field_error(parse(&format!("colour = 1\n{QUICK}")));
    assert_eq!(path, "colour");
}

#[test]
fn zero_and_negative_sizes_are_rejected() {
    let (path, _) = field_error(parse(&QUICK.replace("\"4KiB\"", "0")));
    assert_eq!(path, "job[0].bs");
    let (path, msg) = field_error(parse(&QUICK.replace("\"4KiB\"", "-4096")));
    assert_eq!(path, "job[0].bs");
    assert!(msg.contains("negative"), "{msg}");
    let (path, _) = field_error(parse_with(QUICK, &["device.geometry.page_size_bytes=0"]));
    assert_eq!(path, "device.geometry.page_size_bytes");
    let (path, _) = field_error(parse_with(QUICK, &["device.zones.zone_capacity_bytes=-1"]));
    assert_eq!(path, "device.zones.zone_capacity_bytes");
}

#[test]
fn zone_size_must_be_whole_blocks() {
    let (path, msg) = field_error(parse_with(
        QUICK,
        &["device.zones.zone_size_bytes=\"65MiB\""],
    ));
    assert_eq!(path, "device.zones.zone_size_bytes");
    assert!(msg.contains("multiple of the block size"), "{msg}");
}

#[test]
fn capacity_above_size_is_rejected() {
    let (path, msg) = field_error(parse_with(
        QUICK,
        &["device.zones.zone_capacity_bytes=\"128MiB\""],
    ));
    assert_eq!(path, "device.zones.zone_capacity_bytes");
    assert!(msg.contains("above the zone size"), "{msg}");
}

#[test]
fn impossible_overrides_are_rejected() {
    // More zones than the blocks hold.
    let (path, _) = field_error(parse_with(QUICK, &["device.zones.zone_count=641"]));
    assert_eq!(path, "device.zones.zone_count");
    // A stripe wider than the dies.
    let (path, _) = field_error(parse_with(QUICK, &["device.zones.dies_per_zone=64"]));
    assert_eq!(path, "device.zones.dies_per_zone");
    // An override through a value that is not a table.
    let err = parse_with(QUICK, &["seed.x=1"]).unwrap_err();
    assert!(err.to_string().contains("not a table"), "{err}");
    // A type mismatch names the field.
    let (path, _) = field_error(parse_with(
        QUICK,
        &["device.timing.read_latency_ns=\"fast\""],
    ));
    assert_eq!(path, "device.timing.read_latency_ns");
    let (path, _) = field_error(parse_with(QUICK, &["device.geometry.lba_size_bytes=1024"]));
    assert_eq!(path, "device.geometry.lba_size_bytes");
    let (path, _) = field_error(parse_with(
        QUICK,
        &[
            "device.zones.max_active_zones=2",
            "device.zones.max_open_zones=3",
        ],
    ));
    assert_eq!(path, "device.zones.max_open_zones");
}

#[test]
fn jobs_beyond_the_device_are_rejected() {
    let (path, msg) = field_error(parse(&QUICK.replace(
        "iodepth = 32",
        "iodepth = 32\noffset = \"639z\"\nsize = \"2z\"",
    )));
    assert_eq!(path, "job[0].size");
    assert!(msg.contains("beyond the end"), "{msg}");
    let (path, _) = field_error(parse(&QUICK.replace("iodepth = 32", "offset = \"41GiB\"")));
    assert_eq!(path, "job[0].offset");
    let (path, _) = field_error(parse(&QUICK.replace("iodepth = 32", "offset = \"1MiB\"")));
    assert_eq!(path, "job[0].offset");
}

#[test]
fn writers_may_not_share_zones_or_overrun_active_limits() {
    let two = r#"
preset = "zn540"
[[job]]
rw = "write"
bs = "128KiB"
size = "10z"
[[job]]
rw = "randwrite"
bs = "4KiB"
offset = "5z"
size = "10z"
"#;
    let (path, msg) = field_error(parse(two));
    assert_eq!(path, "job[1].offset");
    assert!(msg.contains("overlap"), "{msg}");
    let over =
        "preset = \"zn540\"\n[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\nmax_open_zones = 20\n";
    let (path, _) = field_error(parse(over));
    assert_eq!(path, "job[0].max_open_zones");
    let split = "preset = \"zn540\"\n[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\nnumjobs = 4\n";
    let e = parse(split).unwrap();
    assert_eq!(
        e.jobs[0].max_open_zones, 3,
        "14 open zones shared by 4 writers"
    );
}

/// Regression: an open/active budget error named `job.max_open_zones`, which is no field; it
/// names the writer whose setting to lower (zn540 prefilled to 1% keeps one partly written
/// zone active, so 14 open zones for the writer are one too many).
#[test]
fn open_budget_error_named_job_max_open_zones() {
    let prefilled = "preset = \"zn540\"\n[prefill]\nfraction = 0.01\n";
    let writer = |extra: &str| {
        format!("[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\nsize = \"100z\"\n{extra}")
    };
    let text = format!("{prefilled}{}", writer("max_open_zones = 14\n"));
    let (path, msg) = field_error(parse(&text));
    assert_eq!(path, "job[0].max_open_zones", "{msg}");
    assert!(msg.contains("prefill"), "{msg}");
    // The job that sets it, by its place in the file.
    let text = format!(
        "{prefilled}[[job]]\nrw = \"randread\"\nbs = \"4KiB\"\n{}{}",
        writer(""),
        writer("offset = \"100z\"\nmax_open_zones = 13\n")
    );
    let (path, msg) = field_error(parse(&text));
    assert_eq!(path, "job[2].max_open_zones", "{msg}");
    // Writers that set nothing: their clones.
    let text = format!("preset = \"zn540\"\n{}", writer("numjobs = 15\n"));
    let (path, msg) = field_error(parse(&text));
    assert_eq!(path, "job[0].numjobs", "{msg}");
}

#[test]
fn units_and_extents_resolve() {
    let e = parse(&QUICK.replace(
        "iodepth = 32",
        "offset = \"2z\"\nsize = \"50%\"\nruntime = \"2s\"\nthinktime = \"10us\"",
    ))
    .unwrap();
    let j = &e.jobs[0];
    assert_eq!(j.first_zone, 2);
    assert_eq!(j.zone_count, 320);
    assert_eq!(j.runtime, Some(Duration::from_secs(2)));
    assert_eq!(j.thinktime, Duration::from_us(10));
    let (path, msg) = field_error(parse(&QUICK.replace("iodepth = 32", "runtime = 10")));
    assert_eq!(path, "job[0].runtime");
    assert!(msg.contains("no unit"), "{msg}");
}

#[test]
fn missing_preset_and_bad_syntax_are_clear() {
    assert!(matches!(
        parse("preset = \"nope\"\n"),
        Err(ConfigError::UnknownPreset(_))
    ));
    assert!(matches!(parse("[[job]\n"), Err(ConfigError::Syntax(_))));
    let (path, _) = field_error(parse("seed = 1\n"));
    assert_eq!(path, "preset");
}

#[test]
fn the_resolved_config_round_trips() {
    let cfg = ExperimentConfig::parse(QUICK, &[]).unwrap();
    let text = cfg.to_toml();
    let again = ExperimentConfig::parse(&text, &[]).unwrap();
    assert_eq!(again.to_toml(), text);
    assert_eq!(fingerprint(&text), fingerprint(&again.to_toml()));
}

/// Mean latency of `rw` at QD1 in `bs` requests over 64 MiB of one zone of `hynix-1t` (a
/// prefilled zone for reads).
fn hynix_qd1_mean_us(rw: &str, bs: &str) -> f64 {
    let text = format!(
        "seed = 1\npreset = \"hynix-1t\"\n[prefill]\nfraction = 1.0\nsize = \"1z\"\n\
         [[job]]\nrw = \"{rw}\"\nbs = \"{bs}\"\niodepth = 1\noffset = \"{}\"\nsize = \"1z\"\nio_size = \"64MiB\"\n",
        if rw == "read" { "0z" } else { "1z" }
    );
    let e = parse(&text).unwrap();
    let out = crate::run(&e, crate::experiment::Inputs::default(), 0, &mut |_| {}).unwrap();
    out.summary.ops[rw].latency_ns.mean / 1e3
}

/// presets/hynix-1t.toml is fitted to NVMSA'20 (Shin et al., NVMSA 2020) Table II: a 1 GB
/// file written and read sequentially at QD1 took 31.4 s and 43.5 s in 4 KB requests, 2.6 s and
/// 3.48 s in 128 KB ones, i.e. 120, 166, 317 and 425 us per request. The fit holds within 10%.
#[test]
fn hynix_preset_matches_nvmsa_table_ii() {
    let requests = |kb: f64| (1u64 << 30) as f64 / (kb * 1024.0);
    for (rw, bs, kb, paper_s) in [
        ("write", "4KiB", 4.0, 31.4),
        ("write", "128KiB", 128.0, 2.6),
        ("read", "4KiB", 4.0, 43.5),
        ("read", "128KiB", 128.0, 3.48),
    ] {
        let paper_us = paper_s * 1e6 / requests(kb);
        let got = hynix_qd1_mean_us(rw, bs);
        assert!(
            (got / paper_us - 1.0).abs() < 0.10,
            "{rw} {bs}: {got:.1} us against Table II's {paper_us:.1} us"
        );
    }
}

// ---- Regressions from the fuzzing and real-fio issue (issue 10) ----

/// Regression: `channels = 65536`, `dies_per_channel = 65536` overflowed the die count and
/// panicked in `run`.
#[test]
fn die_count_overflow_is_refused() {
    let (path, msg) = field_error(parse_with(
        QUICK,
        &[
            "device.geometry.channels=4096",
            "device.geometry.dies_per_channel=4096",
        ],
    ));
    assert_eq!(path, "device.geometry.dies_per_channel");
    assert!(msg.contains("16777216 dies"), "{msg}");
    let (path, _) = field_error(parse_with(QUICK, &["device.geometry.channels=65536"]));
    assert_eq!(path, "device.geometry.channels");
}

/// Regression (found by the config fuzzer): a conventional device's geometry had no ranges, so
/// `page_size_bytes = 2^62` overflowed the block size while its FTL was sized.
#[test]
fn a_conventional_device_has_the_same_geometry_ranges() {
    let conv = "preset = \"zn540-conv-op7\"\n[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\nio_size = \"1MiB\"\n";
    let (path, _) = field_error(parse_with(
        conv,
        &["device.geometry.page_size_bytes=4611686018427387904"],
    ));
    assert_eq!(path, "device.geometry.page_size_bytes");
    let (path, _) = field_error(parse_with(conv, &["device.geometry.channels=65536"]));
    assert_eq!(path, "device.geometry.channels");
}

/// Regression (conventional devices had no latency/overhead ranges): the time and rate
/// ranges lived only in the ZNS validation, so on a conventional device
/// `program_latency_ns = 2^63 - 1` passed `check`, then a run overflowed the NAND calendar
/// (a panic in a test build, simulated time u64::MAX in release). Both kinds now share one
/// check; every time, rate and energy is refused naming the field on either kind.
#[test]
fn conventional_device_timing_has_no_ranges() {
    let conv = "preset = \"zn540-conv-op28\"\n[device.geometry]\nblocks_per_die = 32\npages_per_block = 128\n[device.ftl]\ngc_free_superblocks = 3\nbackground_gc_free_superblocks = 4\n[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\nio_size = \"64MiB\"\n";
    parse(conv).expect("the small conventional device validates");
    let huge = 9_223_372_036_854_775_807u64;
    for (base, kind) in [(conv, "conventional"), (QUICK, "zns")] {
        for field in [
            "program_latency_ns",
            "write_overhead_ns",
            "read_latency_ns",
            "read_overhead_ns",
            "erase_latency_ns",
            "channel_rate_mb_s",
            "host_rate_mb_s",
        ] {
            let set = format!("device.timing.{field}={huge}");
            let (path, msg) = field_error(parse_with(base, &[&set]));
            assert_eq!(path, format!("device.timing.{field}"), "{kind}: {msg}");
            assert!(msg.contains("must be between"), "{kind}: {msg}");
        }
        for field in ["suspend_ns", "resume_ns"] {
            let set = format!("device.timing.erase_suspend.{field}={huge}");
            let other = if field == "suspend_ns" {
                "device.timing.erase_suspend.resume_ns=1000"
            } else {
                "device.timing.erase_suspend.suspend_ns=1000"
            };
            let (path, _) = field_error(parse_with(base, &[&set, other]));
            assert_eq!(
                path,
                format!("device.timing.erase_suspend.{field}"),
                "{kind}"
            );
        }
        for field in ["read_nj_per_page", "program_nj_per_page"] {
            let set = format!("device.energy.{field}=1e300");
            let (path, _) = field_error(parse_with(base, &[&set]));
            assert_eq!(path, format!("device.energy.{field}"), "{kind}");
        }
        // The bound itself is accepted.
        parse_with(
            base,
            &[&format!(
                "device.timing.program_latency_ns={}",
                device::MAX_LATENCY_NS
            )],
        )
        .unwrap_or_else(|e| panic!("{kind}: {e}"));
    }
    // Per-page-type latencies of aging NAND have the same range.
    let (path, _) = field_error(parse_with(
        conv,
        &[
            "device.aging.cell=\"tlc\"",
            &format!("device.aging.read_latency_ns=[1000, 2000, {huge}]"),
        ],
    ));
    assert_eq!(path, "device.aging.read_latency_ns");
}

/// Regression: a bad value inside `[firmware]` or `[layer]` (`firmware.t_free = -1`, an
/// unknown key) was blamed on the table (`firmware: invalid value: integer -1, expected u32`):
/// serde reads a table whose `policy`/`kind` picks its fields whole, losing the field's path.
#[test]
fn errors_inside_firmware_and_layer_named_the_table() {
    for (sets, field) in [
        (
            vec!["firmware.policy=\"preemptive\"", "firmware.t_free=-1"],
            "firmware.t_free",
        ),
        (
            vec!["firmware.policy=\"renewable\"", "firmware.zombie_idle=5"],
            "firmware.zombie_idle",
        ),
        (
            vec!["firmware.policy=\"mapping\"", "firmware.t_fre=1"],
            "firmware.t_fre",
        ),
        (
            vec!["layer.kind=\"static\"", "layer.max_active=-1"],
            "layer.max_active",
        ),
        (
            vec!["layer.kind=\"ezns\"", "layer.reclaim_wait=\"-1ns\""],
            "layer.reclaim_wait",
        ),
    ] {
        let (path, msg) = field_error(parse_with(QUICK, &sets));
        assert_eq!(path, field, "{sets:?}: {msg}");
    }
    let (path, msg) = field_error(parse_with(QUICK, &["firmware.policy=\"lazy\""]));
    assert_eq!(path, "firmware.policy", "{msg}");
}

/// A pair of placement and erase scheduler: its settings reach the spec, an invalid pair and a
/// setting the pair does not use are refused naming the field.
#[test]
fn firmware_pairs_parse_and_refuse_what_they_do_not_use() {
    let pair = |extra: &[&str]| {
        let mut sets = vec![
            "firmware.policy=\"pair\"",
            "firmware.placement=\"renewable\"",
            "firmware.erase=\"preemptive\"",
        ];
        sets.extend_from_slice(extra);
        parse_with(QUICK, &sets)
    };
    let e = pair(&["firmware.t_invalid=3", "firmware.threshold=0.5"]).unwrap();
    let crate::firmware::PolicySpec::Pair(p) = &e.firmware else {
        panic!("a pair: {:?}", e.firmware);
    };
    assert_eq!((p.t_invalid, p.renewable.threshold), (3, 0.5));
    assert_eq!(e.firmware.name(), "renewable+preemptive");
    for (extra, field, words) in [
        (
            &["firmware.placement=\"static\""][..],
            "firmware.erase",
            "at_reset",
        ),
        (
            &["firmware.erase=\"at_reset\"", "firmware.t_free=2"],
            "firmware.t_free",
            "on_demand",
        ),
        (
            &[
                "firmware.placement=\"queue\"",
                "firmware.zombie_idle=\"1s\"",
            ],
            "firmware.zombie_idle",
            "renewable",
        ),
        (
            &["firmware.erase=\"on_demand\"", "firmware.idle=\"device\""],
            "firmware.idle",
            "preemptive",
        ),
        (&["firmware.t_invalid=0"], "firmware.t_invalid", "between 1"),
        (
            &["firmware.invalid_order=\"oldest\""],
            "firmware.invalid_order",
            "fifo",
        ),
        (
            &["firmware.placement=\"worn\""],
            "firmware.placement",
            "least_worn",
        ),
    ] {
        let (path, msg) = field_error(pair(extra));
        assert_eq!(path, field, "{extra:?}: {msg}");
        assert!(msg.contains(words), "{extra:?}: {msg}");
    }
    // The papers' policies are the same pairs under their own names.
    let named = parse_with(QUICK, &["firmware.policy=\"preemptive\""]).unwrap();
    assert_eq!(
        named.firmware.pair().placement,
        crate::firmware::PlacementKind::Queue
    );
    assert_eq!(named.firmware.name(), "preemptive");
}

/// Regression (counts with only a lower bound): YCSB `recordcount = 2^63 - 1` passed check and
/// ran 22 s and 1 GB before the first operation; db_bench `num = 2^63 - 1` ran away (and
/// overflowed `num x threads`); the other counts of key-value, file, file-layer, thread,
/// replay and layer workloads were as open. Each now has an upper bound (docs/config.md),
/// refused naming the field.
#[test]
fn workload_counts_had_no_upper_bound() {
    let huge = "9223372036854775807";
    let kv = "preset = \"rezns-40g\"\n[[ycsb]]\nworkload = \"a\"\n[[dbbench]]\nbenchmarks = \"fillrandom,readrandom,mixgraph\"\nnum = 1000\nthreads = 2\n";
    let files = "preset = \"rezns-40g\"\n[fs]\n[[fio_files]]\nthreads = 1\nsize = \"1MiB\"\n[[updates]]\ndataset = \"10%\"\nupdates = 1\n[[filebench]]\npersonality = \"varmail\"\nmeanfilesize = 0\n";
    for (base, set, field) in [
        (
            kv,
            format!("ycsb.0.recordcount={huge}"),
            "ycsb[0].recordcount",
        ),
        (
            kv,
            format!("ycsb.0.operationcount={huge}"),
            "ycsb[0].operationcount",
        ),
        (
            kv,
            "ycsb.0.maxscanlength=4294967295".into(),
            "ycsb[0].maxscanlength",
        ),
        (kv, format!("dbbench.0.num={huge}"), "dbbench[0].num"),
        (kv, format!("dbbench.0.reads={huge}"), "dbbench[0].reads"),
        (
            kv,
            format!("dbbench.0.keyrange_num={huge}"),
            "dbbench[0].keyrange_num",
        ),
        (
            kv,
            format!("dbbench.0.mix_max_scan_len={huge}"),
            "dbbench[0].mix_max_scan_len",
        ),
        (
            kv,
            "dbbench.0.key_dist_a=1e300".into(),
            "dbbench[0].key_dist_a",
        ),
        (
            kv,
            "dbbench.0.options.level0_file_num_compaction_trigger=4294967295".into(),
            "dbbench[0].options.level0_file_num_compaction_trigger",
        ),
        (
            kv,
            format!("dbbench.0.options.cpu.get_base_ns={huge}"),
            "dbbench[0].options.cpu.get_base_ns",
        ),
        (
            kv,
            format!("dbbench.0.options.write_buffer_size={huge}"),
            "dbbench[0].options.write_buffer_size",
        ),
        (
            files,
            "filebench.0.nfiles=4294967295".into(),
            "filebench[0].nfiles",
        ),
        (
            files,
            "filebench.0.nthreads=4294967295".into(),
            "filebench[0].nthreads",
        ),
        (
            files,
            "fio_files.0.threads=4294967295".into(),
            "fio_files[0].threads",
        ),
        (
            files,
            "fio_files.0.loops=4294967295".into(),
            "fio_files[0].loops",
        ),
        (
            files,
            "updates.0.files=4294967295".into(),
            "updates[0].files",
        ),
        (
            files,
            format!("updates.0.updates={huge}"),
            "updates[0].updates",
        ),
        (
            files,
            "updates.0.threads=4294967295".into(),
            "updates[0].threads",
        ),
        (
            files,
            "fs.gc.bg_free_zones=4294967295".into(),
            "fs.gc.bg_free_zones",
        ),
        (
            files,
            "fs.cache.writeback_interval=\"5124095h\"".into(),
            "fs.cache.writeback_interval",
        ),
        (
            files,
            "fs.f2fs.meta_rate_mb_s=18446744073709551615".into(),
            "fs.f2fs.meta_rate_mb_s",
        ),
    ] {
        let (path, msg) = field_error(parse_with(base, &[&set]));
        assert_eq!(path, field, "{set}: {msg}");
    }
    // The store must hold the records and what the run inserts (workload d inserts 5%).
    let (path, msg) = field_error(parse_with(
        kv,
        &[
            "ycsb.0.workload=\"d\"",
            "ycsb.0.recordcount=1073741000",
            "ycsb.0.operationcount=1000000",
        ],
    ));
    assert_eq!(path, "ycsb[0].operationcount", "{msg}");
    let ezns = "preset = \"smallzone-4t\"\n[layer]\nkind = \"ezns\"\n[[job]]\nrw = \"randread\"\nbs = \"4KiB\"\n";
    for (set, field) in [
        ("layer.history=4294967295", "layer.history"),
        ("layer.weights=[4294967295, 1, 1, 1]", "layer.weights"),
        ("layer.cwnd_max_factor=4294967295", "layer.cwnd_max_factor"),
        ("layer.token_refresh=\"5124095h\"", "layer.token_refresh"),
    ] {
        let (path, msg) = field_error(parse_with(ezns, &[set]));
        assert_eq!(path, field, "{set}: {msg}");
    }
}

/// Regression (conventional jobs had no upper bounds): a job on a conventional device took
/// `iodepth = 2^32 - 1`, `io_size = 2^63`, a runtime, start delay or think time of centuries
/// and any rate, which the same job on a ZNS device refused; both kinds now share one check.
#[test]
fn conventional_job_ranges_were_unbounded() {
    let conv = "preset = \"zn540-conv-op28\"\n[device.geometry]\nblocks_per_die = 32\npages_per_block = 128\n[device.ftl]\ngc_free_superblocks = 3\nbackground_gc_free_superblocks = 4\n[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\nio_size = \"64MiB\"\n";
    for (set, field) in [
        ("job.0.iodepth=4294967295", "job[0].iodepth"),
        ("job.0.numjobs=4294967295", "job[0].numjobs"),
        ("job.0.loops=4294967295", "job[0].loops"),
        ("job.0.io_size=9223372036854775807", "job[0].io_size"),
        ("job.0.runtime=\"5124095h\"", "job[0].runtime"),
        ("job.0.startdelay=\"5124095h\"", "job[0].startdelay"),
        ("job.0.thinktime=\"5124095h\"", "job[0].thinktime"),
        ("job.0.rate=9223372036854775807", "job[0].rate"),
        ("job.0.rate_iops=9223372036854775807", "job[0].rate_iops"),
    ] {
        let (path, msg) = field_error(parse_with(conv, &[set]));
        assert_eq!(path, field, "{set}: {msg}");
        // The same value is refused on a ZNS device.
        let (path, msg) = field_error(parse_with(QUICK, &[set]));
        assert_eq!(path, field, "zns {set}: {msg}");
    }
}

/// Regression: `offset + size` wrapped (`size = "18446744073709551615z"`): `check` said ok and
/// `run` panicked; a reader with such a size was accepted and did nothing.
#[test]
fn offset_plus_size_cannot_wrap() {
    for set in [
        "job.0.size=\"18446744073709551615z\"",
        "job.0.offset=\"18446744073709551615z\"",
        "job.0.size=\"18446744073709551615\"",
    ] {
        let (path, _) = field_error(parse_with(QUICK, &[set]));
        assert!(path.starts_with("job[0]."), "{set}: {path}");
    }
    let text = format!("{QUICK}[prefill]\noffset = \"1z\"\nsize = \"18446744073709551615z\"\n");
    let (path, _) = field_error(parse(&text));
    assert_eq!(path, "prefill.size");
}

/// Regression: these values passed validation and then aborted with "memory allocation failed"
/// (or never finished) without naming a field.
#[test]
fn values_that_would_exhaust_memory_are_refused_naming_the_field() {
    for (set, field) in [
        (
            "device.timing.read_latency_ns=9223372036854775807",
            "device.timing.read_latency_ns",
        ),
        (
            "device.timing.erase_latency_ns=9223372036854775807",
            "device.timing.erase_latency_ns",
        ),
        (
            "device.timing.write_buffer_units_per_zone=1000000000",
            "device.timing.write_buffer_units_per_zone",
        ),
        (
            "device.geometry.blocks_per_die=4294967295",
            "device.geometry.blocks_per_die",
        ),
        (
            "device.geometry.channels=1000000000",
            "device.geometry.channels",
        ),
        ("job.0.numjobs=4294967295", "job[0].numjobs"),
        ("job.0.iodepth=4294967295", "job[0].iodepth"),
        ("job.0.loops=4294967295", "job[0].loops"),
        ("metrics.interval=\"1ns\"", "metrics.interval"),
        ("metrics.max_intervals=10000000", "metrics.max_intervals"),
        (
            "device.zones.zone_count=4294967295",
            "device.zones.zone_count",
        ),
    ] {
        let (path, msg) = field_error(parse_with(QUICK, &[set]));
        assert_eq!(path, field, "{set}: {msg}");
    }
    let (path, _) = field_error(parse_with(
        QUICK,
        &[
            "firmware.policy=\"renewable\"",
            "firmware.zombie_scan_period=\"1ns\"",
        ],
    ));
    assert_eq!(path, "firmware.zombie_scan_period");
}

/// Regression: `read_nj_per_page = 1e308` made the energy totals `null` in summary.json.
#[test]
fn energy_per_operation_is_bounded() {
    let (path, _) = field_error(parse_with(QUICK, &["device.energy.read_nj_per_page=1e308"]));
    assert_eq!(path, "device.energy.read_nj_per_page");
    let (path, _) = field_error(parse_with(
        QUICK,
        &["device.energy.erase_nj_per_zone=1e300"],
    ));
    assert_eq!(path, "device.energy.erase_nj_per_zone");
}

/// Regression: a seed above 2^63 - 1 was blamed on the file (and cannot be written back into
/// config.resolved.toml).
#[test]
fn a_seed_toml_cannot_hold_is_named() {
    let (path, msg) = field_error(parse_with(QUICK, &["seed=9223372036854775808"]));
    assert_eq!(path, "seed");
    assert!(msg.contains("2^63"), "{msg}");
    let mut cfg = ExperimentConfig::parse(QUICK, &[]).unwrap();
    cfg.seed = 1 << 63;
    let (path, _) = field_error(cfg.validate("t"));
    assert_eq!(path, "seed");
}

/// Regression: `--preset 'zn540"'` was pasted into TOML ("not valid TOML"; a name with newlines
/// could add keys).
#[test]
fn a_preset_name_is_never_pasted_into_toml() {
    let text = preset_file("zn540\"\nseed = 5\n[data]\nretention = \"x");
    let err = ExperimentConfig::parse(&text, &[]).unwrap_err();
    assert_eq!(
        err,
        ConfigError::UnknownPreset("zn540\"\nseed = 5\n[data]\nretention = \"x".into())
    );
    assert!(ExperimentConfig::parse(&preset_file("zn540"), &[]).is_ok());
}

/// Regression: `--set` could not reach `[[job]]` entries.
#[test]
fn set_reaches_job_entries_by_index_and_by_name() {
    let text = format!(
        "{QUICK}[[job]]\nname = \"writer\"\nrw = \"write\"\nbs = \"64KiB\"\nsize = \"2z\"\n"
    );
    let e = parse_with(&text, &["job.0.iodepth=4", "job[1].bs=\"128KiB\""]).unwrap();
    assert_eq!((e.jobs[0].iodepth, e.jobs[1].block_lbas), (4, 32));
    let e = parse_with(&text, &["job.writer.iodepth=2", "job.job0.iodepth=16"]).unwrap();
    assert_eq!((e.jobs[0].iodepth, e.jobs[1].iodepth), (16, 2));
    let (path, msg) = field_error(parse_with(&text, &["job.reader.iodepth=2"]));
    assert_eq!(path, "job.reader.iodepth");
    assert!(msg.contains("job0, writer"), "{msg}");
    let (path, _) = field_error(parse_with(&text, &["job.7.iodepth=2"]));
    assert_eq!(path, "job.7.iodepth");
}

/// Regression: some type errors only said "did not match any variant of untagged enum
/// IntOrText".
#[test]
fn type_errors_say_what_the_field_takes() {
    for (set, field, says) in [
        ("job.0.bs=true", "job[0].bs", "a size"),
        ("job.0.offset=1.5", "job[0].offset", "an offset or size"),
        ("job.0.runtime=[1]", "job[0].runtime", "a duration"),
        ("prefill.fill=\"full\"", "prefill.fill", "a fill level"),
    ] {
        let (path, msg) = field_error(parse_with(QUICK, &[set]));
        assert_eq!(path, field, "{set}");
        assert!(
            msg.contains(says) && !msg.contains("untagged"),
            "{set}: {msg}"
        );
    }
}

/// Two jobs of one name: `--set job.NAME.key` could reach only the first, so it is refused.
#[test]
fn duplicate_job_names_are_refused() {
    let job = "[[job]]\nname = \"w\"\nrw = \"write\"\nbs = \"4KiB\"\nsize = \"1z\"\n";
    let (path, message) = field_error(parse(&format!("preset = \"rezns-40g\"\n{job}{job}")));
    assert_eq!(path, "job[1].name");
    assert!(message.contains("job[0]"), "{message}");
    // Unnamed jobs are told apart by their index.
    let unnamed = "[[job]]\nrw = \"randread\"\nbs = \"4KiB\"\nsize = \"1z\"\n";
    parse(&format!("preset = \"rezns-40g\"\n{unnamed}{unnamed}")).unwrap();
}

/// Type errors speak the file's language, and out-of-range values are echoed.
#[test]
fn type_errors_name_the_value_and_what_is_wanted() {
    let job = |kv: &str| {
        format!("preset = \"rezns-40g\"\n[[job]]\nrw = \"randrw\"\nbs = \"4KiB\"\n{kv}\n")
    };
    let (path, message) = field_error(parse(&job("iodepth = -4")));
    assert_eq!(path, "job[0].iodepth");
    assert_eq!(message, "-4 is not a whole number from 0 to 4294967295");
    let (_, message) = field_error(parse(&job("iodepth = \"deep\"")));
    assert_eq!(
        message,
        "\"deep\" is not a whole number from 0 to 4294967295"
    );
    let (path, message) = field_error(parse(&job("rwmixread = 150")));
    assert_eq!(path, "job[0].rwmixread");
    assert!(message.contains("150"), "{message}");
}

/// The zoned cleaner's settings: refused with the classic cleaner, refused out of range, and
/// the classic sleeps when the classic cleaner is asked for.
#[test]
fn f2fs_cleaner_settings_follow_the_mode() {
    let base = "preset = \"rezns-40g\"\n[fs]\n[[fio_files]]\nthreads = 1\nsize = \"1MiB\"\n";
    for (sets, field) in [
        (
            &[
                "fs.f2fs.gc_mode=\"classic\"",
                "fs.f2fs.valid_thresh_ratio=90",
            ][..],
            "fs.f2fs.valid_thresh_ratio",
        ),
        (
            &["fs.f2fs.no_zoned_gc_percent=101"][..],
            "fs.f2fs.no_zoned_gc_percent",
        ),
        (
            &["fs.f2fs.migration_window_granularity=0"][..],
            "fs.f2fs.migration_window_granularity",
        ),
        // rezns-40g's 64 MiB zones hold 32 segments of 2 MiB.
        (
            &["fs.f2fs.migration_window_granularity=33"][..],
            "fs.f2fs.migration_window_granularity",
        ),
    ] {
        let (path, msg) = field_error(parse_with(base, sets));
        assert_eq!(path, field, "{sets:?}: {msg}");
    }
    let f2fs = |sets: &[&str]| {
        let exp = parse_with(base, sets).unwrap();
        match &exp.host[..] {
            [crate::workload::HostWorkload::Files(f)] => match &f.fs.personality {
                crate::host::fs::Personality::F2fs(f) => f.clone(),
                crate::host::fs::Personality::Zenfs(_) => unreachable!("f2fs is the default"),
            },
            _ => unreachable!("one file workload"),
        }
    };
    let zoned = f2fs(&["fs.f2fs.migration_window_granularity=32"]);
    assert_eq!(zoned.gc_mode, crate::host::fs::F2fsGcMode::Zoned);
    assert_eq!(zoned.migration_window_segments, 32);
    assert_eq!(zoned.bg_gc_min_sleep, crate::time::Duration::from_ms(10));
    let classic = f2fs(&["fs.f2fs.gc_mode=\"classic\""]);
    assert_eq!(
        classic.bg_gc_min_sleep,
        crate::time::Duration::from_secs(30)
    );
    assert_eq!(
        classic.bg_gc_nogc_sleep,
        crate::time::Duration::from_secs(300)
    );
}

/// `fs.unmount` unmounts at the end of the file workloads; a layer only key-value stores use
/// has none, and says so rather than ignoring the key.
#[test]
fn an_unmount_needs_file_workloads() {
    let kv = "preset = \"rezns-40g\"\n[fs]\nunmount = true\n[[dbbench]]\nfiles = \"fs\"\nbenchmarks = \"fillrandom\"\nnum = 1000\n";
    let (path, msg) = field_error(parse(kv));
    assert_eq!(path, "fs.unmount");
    assert!(msg.contains("key-value stores"), "{msg}");
    let files = "preset = \"rezns-40g\"\n[fs]\nunmount = true\n[[fio_files]]\nthreads = 2\nsize = \"4MiB\"\nfsync = 16\n";
    let exp = parse(files).unwrap();
    assert!(
        exp.host
            .iter()
            .any(|w| matches!(w, crate::workload::HostWorkload::Files(f) if f.fs.unmount))
    );
}
