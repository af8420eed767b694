//! End-to-end tests of the `zonelab` binary: results files, determinism across processes, and
//! clear errors (never a panic) for bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn zonelab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zonelab"))
        .args(args)
        .output()
        .expect("zonelab runs")
}

/// A fresh directory, removed with everything in it when dropped (the test passed or failed).
fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("zonelab-cli-{name}-"))
        .tempdir()
        .expect("a temporary directory")
}

const SMALL: &str = r#"
seed = 11
preset = "rezns-40g"
[prefill]
fraction = 0.1
[[job]]
rw = "randread"
bs = "4KiB"
iodepth = 8
size = "64z"
io_size = "8MiB"
[[job]]
rw = "write"
bs = "128KiB"
offset = "100z"
size = "2z"
io_size = "256MiB"
"#;

fn write_experiment(dir: &Path, text: &str) -> PathBuf {
    let p = dir.join("exp.toml");
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn run_writes_every_result_file_and_is_deterministic() {
    let tmp = temp_dir("run");
    let dir = tmp.path();
    let exp = write_experiment(dir, SMALL);
    let a = dir.join("a");
    let b = dir.join("b");
    for out in [&a, &b] {
        let o = zonelab(&["run", exp.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            stdout.starts_with("zonelab "),
            "seed and config first: {stdout}"
        );
        assert!(stdout.contains("seed 11"));
        assert!(stdout.contains("p99.99 us"), "summary table: {stdout}");
    }
    for f in [
        "summary.json",
        "config.resolved.toml",
        "timeseries.csv",
        "latency_percentiles.csv",
        "latency_cdf_read.csv",
        "latency_cdf_write.csv",
        "latency_cdf_reset.csv",
        "zones.csv",
    ] {
        assert!(a.join(f).exists(), "{f} missing");
    }
    let sa = std::fs::read(a.join("summary.json")).unwrap();
    assert_eq!(
        sa,
        std::fs::read(b.join("summary.json")).unwrap(),
        "same config and seed, same bytes"
    );
    // The resolved config reruns to the same result.
    let c = dir.join("c");
    let o = zonelab(&[
        "run",
        a.join("config.resolved.toml").to_str().unwrap(),
        "-o",
        c.to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success());
    let sc = String::from_utf8(std::fs::read(c.join("summary.json")).unwrap()).unwrap();
    let sa = String::from_utf8(sa).unwrap();
    let without_name = |s: &str| {
        s.lines()
            .filter(|l| !l.contains("\"experiment\""))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(without_name(&sa), without_name(&sc));
    // Another seed gives other numbers.
    let d = dir.join("d");
    assert!(
        zonelab(&[
            "run",
            exp.to_str().unwrap(),
            "-o",
            d.to_str().unwrap(),
            "-q",
            "--seed",
            "12"
        ])
        .status
        .success()
    );
    assert_ne!(sa, std::fs::read_to_string(d.join("summary.json")).unwrap());
    let summary: serde_json::Value = serde_json::from_str(&sa).unwrap();
    assert_eq!(summary["seed"], 11);
    assert!(
        summary["ops"]["read"]["latency_ns"]["percentiles"]["p99.999"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert!(
        summary["device_counters"]["zone_resets_executed"]
            .as_u64()
            .unwrap()
            >= 1
    );

    // `--state` names a state file everywhere; report-zones filters with `--filter`.
    let o = zonelab(&["report-zones", "--preset", "zn540", "--state", "FULL"]);
    assert_eq!(o.status.code(), Some(2));
    let help = zonelab(&["report-zones", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("--filter") && !help.contains("18446744073709551615"),
        "{help}"
    );
    // report-zones reads the end state back, in both styles.
    let o = zonelab(&[
        "report-zones",
        "--results",
        a.to_str().unwrap(),
        "--filter",
        "FULL",
        "--max",
        "2",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.starts_with("nr_zones: "), "{text}");
    assert_eq!(
        text.lines().filter(|l| l.contains("State: FULL")).count(),
        2
    );
    let o = zonelab(&[
        "report-zones",
        "--results",
        a.to_str().unwrap(),
        "--format",
        "zbd",
        "--max",
        "1",
    ]);
    assert!(
        String::from_utf8_lossy(&o.stdout)
            .starts_with("Zone 00000: swr, ofst 00000000000000, len 00000067108864")
    );

    // Regression: a zones.csv with a write pointer below its zone's start was accepted.
    let csv = a.join("zones.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let f: Vec<&str> = lines[2].split(',').collect();
    lines[2] = format!("{},{},{},{},{}", f[0], f[1], f[2], 5, f[4]);
    std::fs::write(&csv, lines.join("\n") + "\n").unwrap();
    let o = zonelab(&["report-zones", "--results", a.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "accepted");
    assert!(
        err.contains("zones.csv:3: zone 1")
            && err.contains("the write pointer must lie in the zone"),
        "{err}"
    );
}

/// Regression (stale files in a reused output directory): `trace.csv` and the per-tenant
/// time series of a run with `[trace]` and two tenants survived a later run without them in
/// the same `-o DIR`. Every file a run writes is one the clean-up recognises as ZoneLab's.
#[test]
fn stale_trace_in_a_reused_output_directory() {
    let tmp = temp_dir("stale");
    let dir = tmp.path();
    let out = dir.join("R");
    let listing = || {
        let mut v: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let a = dir.join("a.toml");
    std::fs::write(&a, format!("{SMALL}\n[trace]\nenabled = true\n")).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let o = zonelab(&[
        "run",
        a.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let first = listing();
    for f in ["trace.csv", "timeseries_job0.csv", "timeseries_job1.csv"] {
        assert!(first.iter().any(|n| n == f), "{f} missing: {first:?}");
    }
    for f in first.iter().filter(|f| *f != "notes.txt") {
        assert!(
            zonelab_io::is_results_file(f),
            "{f} is not known as a results file"
        );
    }
    let b = dir.join("b.toml");
    let one_job = "seed = 2\npreset = \"rezns-40g\"\n[[job]]\nrw = \"write\"\nbs = \"128KiB\"\nsize = \"2z\"\nio_size = \"16MiB\"\n";
    std::fs::write(&b, one_job).unwrap();
    let o = zonelab(&[
        "run",
        b.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let second = listing();
    assert!(
        !second
            .iter()
            .any(|n| n == "trace.csv" || n == "timeseries_job1.csv"),
        "an earlier run's files survived: {second:?}"
    );
    assert!(
        second.iter().any(|n| n == "notes.txt"),
        "a user's file went"
    );
    let fresh = dir.join("fresh");
    let o = zonelab(&[
        "run",
        b.to_str().unwrap(),
        "-o",
        fresh.to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success());
    let mut expected: Vec<String> = std::fs::read_dir(&fresh)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    expected.push("notes.txt".into());
    expected.sort();
    assert_eq!(
        second, expected,
        "the reused directory holds what a fresh one does"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn presets_and_fresh_reports() {
    let o = zonelab(&["presets", "list"]);
    let list = String::from_utf8_lossy(&o.stdout);
    for p in [
        "rezns-40g",
        "cosmos-zns",
        "nvmevirt-zn540",
        "zn540",
        "smallzone-4t",
        "hynix-1t",
        "zn540-conv-op7",
        "zn540-conv-op28",
        "proto-conv-1t-op7",
        "proto-conv-1t-op28",
    ] {
        assert!(list.contains(p), "{p} missing from {list}");
    }
    // Descriptions start in one column, whatever the length of the names.
    let columns: std::collections::BTreeSet<usize> = list
        .lines()
        .map(|l| {
            l.find(char::is_whitespace).unwrap()
                + l[l.find(char::is_whitespace).unwrap()..]
                    .find(|c: char| !c.is_whitespace())
                    .unwrap()
        })
        .collect();
    assert_eq!(columns.len(), 1, "{list}");
    let o = zonelab(&["presets", "show", "rezns-40g"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("Table 1"));
    let o = zonelab(&["report-zones", "--preset", "zn540", "--max", "1"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.starts_with("nr_zones: 904\n"),
        "the 1 TB model: {text}"
    );
    assert!(
        text.contains("Cap: 0x43500"),
        "1077 MiB = 0x43500 4 KiB LBAs: {text}"
    );
    let o = zonelab(&["presets", "show", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown preset `nope`"));
}

/// Regression: `zonelab presets` with no subcommand printed clap's usage instead of the list.
#[test]
fn presets_with_no_subcommand_printed_no_list() {
    let bare = zonelab(&["presets"]);
    assert!(
        bare.status.success(),
        "{}",
        String::from_utf8_lossy(&bare.stderr)
    );
    let list = zonelab(&["presets", "list"]);
    assert_eq!(bare.stdout, list.stdout);
    assert!(String::from_utf8_lossy(&bare.stdout).contains("zn540-conv-op28"));
}

/// Regression: an experiment named `../../x` wrote its results two directories above
/// `results/`; the default directory is `results/<name>` with the name made file-safe (the
/// ublk front end's `results/<name>-ublk` too).
#[test]
fn an_experiment_name_escaped_the_results_directory() {
    let tmp = temp_dir("escape");
    let dir = tmp.path();
    let cwd = dir.join("a").join("b");
    std::fs::create_dir_all(&cwd).unwrap();
    let exp = dir.join("exp.toml");
    std::fs::write(
        &exp,
        "name = \"../../x\"\npreset = \"rezns-40g\"\n[[job]]\nrw = \"write\"\nbs = \"128KiB\"\nsize = \"1z\"\nio_size = \"1MiB\"\n",
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_zonelab"))
        .current_dir(&cwd)
        .args(["run", exp.to_str().unwrap(), "-q"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        !dir.join("x").exists(),
        "results escaped to {}",
        dir.join("x").display()
    );
    let results: Vec<_> = std::fs::read_dir(cwd.join("results"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(results, ["_.._x"]);
    assert!(cwd.join("results/_.._x/summary.json").exists());
    for name in ["../../x-ublk", "..", "/etc/x", "a/../../b"] {
        let d = zonelab_cli::output::default_dir(name);
        assert_eq!(d.components().count(), 2, "{name}: {}", d.display());
        assert!(d.starts_with("results"), "{name}");
        assert!(
            !d.components()
                .any(|c| matches!(c, std::path::Component::ParentDir)),
            "{name}: {}",
            d.display()
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A small conventional SSD on zn540's NAND: 1 GiB raw in 4 MiB blocks (32 superblocks).
const CONVENTIONAL: &str = r#"
seed = 3
preset = "zn540-conv-op28"
[device.geometry]
blocks_per_die = 32
pages_per_block = 128
[device.ftl]
gc_free_superblocks = 3
background_gc_free_superblocks = 4
[metrics]
interval = "10ms"
[precondition]
round = 0.5
max_rounds = 20
[[job]]
rw = "randwrite"
bs = "16KiB"
iodepth = 16
io_size = "512MiB"
"#;

#[test]
fn a_conventional_ssd_runs_and_reports_its_ftl() {
    let tmp = temp_dir("conventional");
    let dir = tmp.path();
    let exp = write_experiment(dir, CONVENTIONAL);
    let out = dir.join("out");
    let o = zonelab(&["run", exp.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("(conventional)"), "{stdout}");
    assert!(stdout.contains("FTL (greedy): WAF"), "{stdout}");
    assert!(stdout.contains("precondition: filled"), "{stdout}");
    let series = std::fs::read_to_string(out.join("firmware_over_time.csv")).unwrap();
    assert!(
        series.starts_with("time_s,host_mib,gc_copied_mib,"),
        "{series}"
    );
    assert!(!out.join("zones.csv").exists());
    let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(
        summary.contains("\"kind\": \"ftl\""),
        "the FTL's report in summary.json"
    );
    // The zone report of a conventional preset is a clear error, not a panic.
    let o = zonelab(&["report-zones", "--preset", "zn540-conv-op7"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("not zoned") && !err.contains("panicked"),
        "{err}"
    );
    rejects(
        &CONVENTIONAL.replace("iodepth = 16", "iodepth = 16\noffset = \"2z\""),
        "job[0].offset",
    );
    rejects(
        &CONVENTIONAL.replace("[precondition]", "[precondition]\nfill = 2.0"),
        "precondition.fill",
    );
}

/// Runs `check` on a broken experiment: a non-zero exit, the field named, no panic.
fn rejects(text: &str, field: &str) {
    let tmp = temp_dir(&field.replace(['.', '[', ']'], "_"));
    let dir = tmp.path();
    let exp = write_experiment(dir, text);
    for cmd in ["check", "run"] {
        let o = zonelab(
            &[
                cmd,
                exp.to_str().unwrap(),
                "-o",
                dir.join("out").to_str().unwrap(),
            ][..if cmd == "check" { 2 } else { 4 }],
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{cmd}: {err}");
        assert!(err.contains(field), "{cmd}: `{field}` not named in: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn bad_input_names_the_field() {
    rejects(
        &SMALL.replace("iodepth = 8", "iodepht = 8"),
        "job[0].iodepht",
    );
    rejects(
        &format!("{SMALL}\n[device.zones]\nzone_size = 1\n"),
        "device.zones.zone_size",
    );
    rejects(&SMALL.replace("bs = \"4KiB\"", "bs = 0"), "job[0].bs");
    rejects(&SMALL.replace("bs = \"4KiB\"", "bs = -4096"), "job[0].bs");
    rejects(
        &format!("{SMALL}\n[device.zones]\nzone_size_bytes = \"65MiB\"\n"),
        "device.zones.zone_size_bytes",
    );
    rejects(
        &format!("{SMALL}\n[device.zones]\nzone_capacity_bytes = \"100MiB\"\n"),
        "device.zones.zone_capacity_bytes",
    );
    rejects(
        &format!("{SMALL}\n[device.geometry]\nchannels = 3\n"),
        "device.zones.dies_per_zone",
    );
    rejects(
        &SMALL.replace("size = \"64z\"", "size = \"641z\""),
        "job[0].size",
    );
    rejects(
        &format!("{SMALL}[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\noffset = \"101z\"\n"),
        "job[2].offset",
    );
    rejects("preset = \"rezns-40g\"\n", "job");
}

#[test]
fn impossible_command_line_override() {
    let tmp = temp_dir("override");
    let dir = tmp.path();
    let exp = write_experiment(dir, SMALL);
    let o = zonelab(&[
        "check",
        exp.to_str().unwrap(),
        "--set",
        "device.zones.zone_count=100000",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("device.zones.zone_count"));
    let o = zonelab(&[
        "check",
        exp.to_str().unwrap(),
        "--set",
        "device.timing.erase_latency_ns=1000",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = zonelab(&["check", dir.join("missing.toml").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot read"));
}

/// The Preemptive Zone Reset reproduction runs end to end and shows the paper's shape
/// (Jung et al., Preemptive Zone Reset, Electronics 2023, Figure 6): equal medians, mapping's tail growing with zone size,
/// preemptive's tail lower and flat.
#[test]
fn preemptive_reset_reproduction_shows_the_papers_shape() {
    let tmp = temp_dir("reproduce");
    let dir = tmp.path();
    let o = zonelab(&["reproduce", "preemptive-reset", "-o", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    let shape = summary
        .split("## The paper's shape")
        .nth(1)
        .unwrap()
        .split("## Why")
        .next()
        .unwrap();
    assert_eq!(shape.matches("yes").count(), 6, "{shape}");
    assert!(!shape.contains("NO"), "{shape}");
    for f in [
        "sequential-512mib-write.svg",
        "sequential-1024mib-write.svg",
        "random-zone-512mib-write.svg",
        "mixed-512mib-read.svg",
    ] {
        let svg = std::fs::read_to_string(dir.join("figures").join(f)).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("preemptive"), "{f}");
    }
    let table = std::fs::read_to_string(dir.join("table.md")).unwrap();
    assert_eq!(
        table.lines().count(),
        2 + 3 * 2 * 3 + 2 * 3,
        "one row per run and op"
    );
    let run: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("runs/sequential-512mib-preemptive/summary.json"))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(run["firmware"]["full_zone_erases"], 0);
    assert_eq!(
        run["firmware"]["partial_zone_erases"], 384,
        "96 resets x 4 rows"
    );
    assert!(
        dir.join("runs/sequential-512mib-mapping/firmware_over_time.csv")
            .exists()
    );
    assert!(
        dir.join("runs/sequential-512mib-mapping/erase_wait_cdf.csv")
            .exists()
    );
}

/// F2FS's command stream, captured in the VM through `zonelab ublk` (vm/test.sh), replays in a
/// plain run with no zone-rule error, command for command.
#[test]
fn a_captured_f2fs_trace_replays() {
    let tmp = temp_dir("f2fs-replay");
    let dir = tmp.path();
    let exp = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/ublk/f2fs-replay.toml");
    let out = zonelab(&[
        "run",
        exp.to_str().unwrap(),
        "-q",
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let trace = std::fs::read_to_string(exp.with_file_name("f2fs-trace.csv")).unwrap();
    let commands = trace.lines().count() as u64 - 1;
    let ran: u64 = s["ops"]
        .as_object()
        .unwrap()
        .values()
        .map(|o| o["count"].as_u64().unwrap())
        .sum();
    assert_eq!(ran, commands);
    assert_eq!(s["errors"].as_array().unwrap().len(), 0);
    assert_eq!(s["jobs"][0]["stopped"][0], "end of trace");
}

/// db_bench and YCSB through `zonelab run`: key-value rows in the table and the results, the
/// workloads' phases in the summary, the same bytes from another process and from the resolved
/// config. (The store's files are in memory until it runs on the file layer.)
#[test]
fn key_value_workloads_run_end_to_end() {
    let tmp = temp_dir("kv");
    let dir = tmp.path();
    let exp = write_experiment(
        dir,
        r#"
seed = 5
preset = "cosmos-zns"
[[dbbench]]
name = "db"
benchmarks = "fillrandom,readrandom"
num = 3000
[dbbench.options]
write_buffer_size = "64KiB"
target_file_size_base = "64KiB"
max_bytes_for_level_base = "256KiB"
[[ycsb]]
name = "y"
workload = "a"
recordcount = 2000
operationcount = 2000
[ycsb.options]
write_buffer_size = "64KiB"
"#,
    );
    let (a, b, c) = (dir.join("a"), dir.join("b"), dir.join("c"));
    let o = zonelab(&["run", exp.to_str().unwrap(), "-o", a.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    for row in [
        "kv put [db.fillrandom]",
        "kv get [db.readrandom]",
        "kv insert [y.load]",
        "kv get [y.run]",
        "kv update [y.run]",
    ] {
        assert!(stdout.contains(row), "{row} missing: {stdout}");
    }
    assert!(
        stdout.contains("db: fillrandom 3000 ops") && stdout.contains("readrandom 3000 ops"),
        "{stdout}"
    );
    assert!(
        stdout.contains("key-value operations per wall second"),
        "{stdout}"
    );
    let sa = std::fs::read_to_string(a.join("summary.json")).unwrap();
    let s: serde_json::Value = serde_json::from_str(&sa).unwrap();
    let kv_ops = |tenant: &str| -> u64 {
        s["table"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["layer"] == "kv" && r["tenant"] == tenant)
            .map(|r| r["count"].as_u64().unwrap())
            .sum()
    };
    assert_eq!(kv_ops("db.fillrandom"), 3000);
    assert_eq!(kv_ops("db.readrandom"), 3000);
    assert_eq!(kv_ops("y.load"), 2000);
    assert_eq!(kv_ops("y.run"), 2000);
    let store = &s["layers"]["db"]["store"];
    assert!(store["flushes"].as_u64().unwrap() > 0, "{store}");
    assert!(store["compactions"].as_u64().unwrap() > 0, "{store}");
    assert!(s["layers"]["y"]["error"].is_null());
    let csv = std::fs::read_to_string(a.join("latency_percentiles.csv")).unwrap();
    assert!(csv.contains("kv,put,db.fillrandom,p99,"), "{csv}");
    // Another process, and the resolved config, give the same bytes.
    for (out, src) in [(&b, exp.clone()), (&c, a.join("config.resolved.toml"))] {
        let o = zonelab(&[
            "run",
            src.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "-q",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let without_name = |s: &str| {
        s.lines()
            .filter(|l| !l.contains("\"experiment\""))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(sa, std::fs::read_to_string(b.join("summary.json")).unwrap());
    assert_eq!(
        without_name(&sa),
        without_name(&std::fs::read_to_string(c.join("summary.json")).unwrap())
    );
}

/// The eZNS reproduction runs end to end with the paper's direction of effect
/// (docs/reference/ezns.md, "Experiments"): 4 writers on v-zones beat the static zone and
/// 16 match it; the busy namespace borrows spares while the others are idle and gives them back;
/// congestion control cuts the narrow reader's tail; admission control the regular writers';
/// the scheduler gives the reader of the read-write mix bandwidth back, and the device's read
/// priority more; and the device
/// observations: wider and page-sized stripes read faster, crowded channels and shared dies
/// slower, and a narrow writer filling the cache slows the wide ones.
#[test]
fn ezns_reproduction_shows_overdrive_and_fair_scheduling() {
    let tmp = temp_dir("ezns");
    let dir = tmp.path();
    let o = zonelab(&["reproduce", "ezns", "-o", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let read = |name: &str| -> serde_json::Value {
        let p = dir.join(format!("runs/{name}/summary.json"));
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    let mib_s = |s: &serde_json::Value| s["ops"]["write"]["mib_per_s"].as_f64().unwrap();
    let (v4, s4) = (read("local-4-vzone"), read("local-4-static"));
    assert!(
        mib_s(&v4) > 1.3 * mib_s(&s4),
        "{} vs {}",
        mib_s(&v4),
        mib_s(&s4)
    );
    let (v16, s16) = (read("local-16-vzone"), read("local-16-static"));
    assert!((mib_s(&v16) / mib_s(&s16) - 1.0).abs() < 0.05);
    let global = read("global");
    let ns3 = &global["firmware"]["namespaces"][3];
    assert!(ns3["spares_used_max"].as_u64().unwrap() > ns3["own_spares"].as_u64().unwrap());
    assert!(global["firmware"]["spares_lent"].as_u64().unwrap() > 0);
    assert_eq!(
        global["firmware"]["spares_lent"], global["firmware"]["spares_returned"],
        "every loan comes back once the lenders write again"
    );
    let p99 = |s: &serde_json::Value, tenant: &str, op: &str| -> u64 {
        s["table"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["tenant"] == tenant && r["op"] == op && r["layer"] == "device")
            .unwrap()["latency_ns"]["percentiles"]["p99"]
            .as_u64()
            .unwrap()
    };
    let (r_off, r_on) = (read("fair-read-off"), read("fair-read-on"));
    assert!(p99(&r_on, "ns0", "read") * 2 < p99(&r_off, "ns0", "read"));
    let (w_off, w_on) = (read("fair-write-off"), read("fair-write-on"));
    assert!(p99(&w_on, "ns0", "write") * 2 < p99(&w_off, "ns0", "write"));
    let tenant_mib_s = |s: &serde_json::Value, tenant: &str, op: &str| -> f64 {
        s["table"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["tenant"] == tenant && r["op"] == op && r["layer"] == "device")
            .unwrap()["mib_per_s"]
            .as_f64()
            .unwrap()
    };
    let (rw_off, rw_on) = (read("fair-rw-off"), read("fair-rw-on"));
    assert!(
        tenant_mib_s(&rw_on, "ns0", "read") > 1.3 * tenant_mib_s(&rw_off, "ns0", "read"),
        "the scheduler gives the reader bandwidth back"
    );
    let (w0, w1) = (
        tenant_mib_s(&rw_off, "ns1", "write"),
        tenant_mib_s(&rw_on, "ns1", "write"),
    );
    assert!(
        (w1 / w0 - 1.0).abs() < 0.05,
        "the writer keeps its bandwidth: {w0} vs {w1}"
    );
    // With the device's read priority the reader waits only for the program in progress on
    // its dies, and reads pushed programs back.
    let rw_priority = read("fair-rw-off-priority");
    assert!(
        tenant_mib_s(&rw_priority, "ns0", "read") > 5.0 * tenant_mib_s(&rw_off, "ns0", "read"),
        "read priority gives the reader its dies back"
    );
    assert!(p99(&rw_priority, "ns0", "read") * 10 < p99(&rw_off, "ns0", "read"));
    assert!(
        rw_priority["device_counters"]["programs_pushed"]
            .as_u64()
            .unwrap()
            > 0
    );
    // The device observations: MiB/s of the jobs whose names start with `prefix`.
    let jobs_mib_s = |name: &str, prefix: &str| -> f64 {
        let s = read(name);
        let secs = s["simulated_time_ns"].as_f64().unwrap() / 1e9;
        let bytes: f64 = s["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|j| j["name"].as_str().unwrap().starts_with(prefix))
            .map(|j| {
                (j["read_bytes"].as_u64().unwrap() + j["write_bytes"].as_u64().unwrap()) as f64
            })
            .sum();
        bytes / (1 << 20) as f64 / secs
    };
    // Below the page size a stripe read costs a page read for less data (a 4 KiB one senses a
    // partial page, faster: 2.8x less bandwidth than 16 KiB stripes on smallzone-4t).
    assert!(jobs_mib_s("dev-stripe-w1-16k", "") > 2.5 * jobs_mib_s("dev-stripe-w1-4k", ""));
    assert!(jobs_mib_s("dev-stripe-w16-16k", "") > 8.0 * jobs_mib_s("dev-stripe-w1-16k", ""));
    assert!(jobs_mib_s("dev-channel-2-16k", "") > 1.5 * jobs_mib_s("dev-channel-8-16k", ""));
    assert!(jobs_mib_s("dev-overlap-0", "") > 1.5 * jobs_mib_s("dev-overlap-4", ""));
    assert!(
        jobs_mib_s("dev-cache-with", "wide") < 0.5 * jobs_mib_s("dev-cache-without", "wide"),
        "a narrow writer filling the cache slows the wide ones"
    );
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(
        summary.contains("## Global overdrive") && summary.contains("## The device observations")
    );
    for f in [
        "local-overdrive.svg",
        "global-overdrive-bandwidth.svg",
        "global-overdrive-spares.svg",
        "fairness-read.svg",
        "fairness-write.svg",
        "fairness-read-write.svg",
        "device-stripe.svg",
        "device-channel.svg",
        "device-channel-depth.svg",
        "device-overlap.svg",
        "device-cache.svg",
    ] {
        assert!(dir.join("figures").join(f).exists(), "{f}");
    }
}

/// A read job on LBAs nothing wrote ends at once: the run succeeds, with a warning saying why
/// the table is empty; with data there, no warning.
#[test]
fn a_read_of_an_empty_device_warns() {
    let tmp = temp_dir("empty-read");
    let dir = tmp.path();
    let out = dir.join("out");
    let stderr_of = |text: &str| {
        let exp = write_experiment(dir, text);
        let o = zonelab(&[
            "run",
            exp.to_str().unwrap(),
            "-q",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success());
        String::from_utf8_lossy(&o.stderr).to_string()
    };
    let text = "preset = \"zn540\"\n[[job]]\nrw = \"randread\"\nbs = \"4KiB\"\nsize = \"4z\"\nio_size = \"4MiB\"\n";
    let stderr = stderr_of(text);
    assert!(
        stderr.contains("warning: job job0 read nothing"),
        "{stderr}"
    );
    let prefilled = stderr_of(&format!("{text}[prefill]\nsize = \"4z\"\n"));
    assert!(!prefilled.contains("warning"), "{prefilled}");
}

/// `zonelab trace-stats` reads a committed real-F2FS capture (gzipped) and counts its workload
/// after the marker; a trace without one, or on a device it does not fit, is an error that says so.
#[test]
fn trace_stats_reads_a_capture_and_refuses_what_does_not_fit() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let path = |p: &str| repo.join(p).to_string_lossy().into_owned();
    let exp = path("experiments/ublk/vm-rezns.toml");
    let trace = path("experiments/rezns/real-f2fs/traces/dbbench.csv.gz");
    let o = zonelab(&[
        "trace-stats",
        &trace,
        "--experiment",
        &exp,
        "--after-marker",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert!(s["resets"].as_u64().unwrap() > 0, "{s}");
    assert!(s["write_bytes"].as_u64().unwrap() > 1 << 30, "{s}");
    // The whole trace counts the set-up's writes too.
    let all = zonelab(&["trace-stats", &trace, "--experiment", &exp, "--json"]);
    let all: serde_json::Value = serde_json::from_slice(&all.stdout).expect("JSON");
    assert!(all["writes"].as_u64() > s["writes"].as_u64(), "{all}");
    let refuses = |args: &[&str], says: &str| {
        let o = zonelab(&[&["trace-stats"], args].concat());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(says), "{err}");
    };
    // The small F2FS trace of the VM test has no marker.
    let small = path("experiments/ublk/f2fs-trace.csv");
    refuses(
        &[&small, "--experiment", &exp, "--after-marker"],
        "no marker",
    );
    // A 64-zone trace on the 32-zone device it was not taken on.
    let vm = path("experiments/ublk/vm.toml");
    refuses(&[&trace, "--experiment", &vm], "outside the 32 zones");
}

/// report-zones shows the zones a layer presents: emulated zones over a block SSD, before a
/// run, and static zones over a ZNS drive, read back from a run's results.
#[test]
fn report_zones_shows_the_zones_a_layer_presents() {
    let tmp = temp_dir("layer-zones");
    let dir = tmp.path();
    let emulated = dir.join("emulated.toml");
    std::fs::write(
        &emulated,
        "preset = \"zn540-conv-op7\"\n[layer]\nkind = \"emulated\"\nzone_size = \"64MiB\"\n\
         [[job]]\nrw = \"write\"\nbs = \"128KiB\"\nsize = \"1z\"\nio_size = \"1MiB\"\n",
    )
    .unwrap();
    let o = zonelab(&[
        "report-zones",
        "--experiment",
        emulated.to_str().unwrap(),
        "--format",
        "zbd",
        "--max",
        "2",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("Zone 00001: swr, ofst 00000067108864, len 00000067108864"),
        "{text}"
    );
    let stacked = dir.join("static.toml");
    std::fs::write(
        &stacked,
        "preset = \"zn540\"\n[layer]\nkind = \"static\"\nzones_per_logical = 4\nstripe_width = 4\n\
         [[job]]\nrw = \"write\"\nbs = \"128KiB\"\nsize = \"1z\"\nio_size = \"64MiB\"\n",
    )
    .unwrap();
    let out = dir.join("run");
    let o = zonelab(&[
        "run",
        stacked.to_str().unwrap(),
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = zonelab(&[
        "report-zones",
        "--results",
        out.to_str().unwrap(),
        "--format",
        "zbd",
        "--max",
        "1",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // zn540's zones are 2 GiB: a static zone of four is 8 GiB.
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("len 00008589934592"), "{text}");
}
