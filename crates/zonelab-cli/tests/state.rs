//! Persistent devices from the command line: `zonelab zone` and `zonelab io` (the device manager)
//! and `zonelab run --state` on one device state file, across processes.

use std::path::Path;
use std::process::{Command, Output};

fn zonelab(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zonelab"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("zonelab runs")
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let o = zonelab(dir, args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// A fresh directory, removed with everything in it when dropped (the test passed or failed).
fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("zonelab-state-{name}-"))
        .tempdir()
        .expect("a temporary directory")
}

/// (state, write pointer) of the first `n` zones, from the CSV report.
fn zones(dir: &Path, n: usize) -> Vec<(String, u64)> {
    let max = n.to_string();
    let text = ok(
        dir,
        &[
            "zone", "report", "--state", "d.state", "--format", "csv", "--max", &max,
        ],
    );
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[2].to_string(), f[3].parse().unwrap())
        })
        .collect()
}

#[test]
fn zone_and_io_commands_share_one_device_across_processes() {
    let tmp = temp_dir("manager");
    let dir = tmp.path();
    let create = [
        "zone",
        "info",
        "--state",
        "d.state",
        "--preset",
        "rezns-40g",
        "--set",
        "device.zones.zone_count=8",
    ];
    let info = ok(dir, &create);
    assert!(
        info.contains("zone_count: 8\n") && info.contains("retention: true\n"),
        "{info}"
    );
    let data: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 256) as u8).collect();
    std::fs::write(dir.join("in.bin"), &data).unwrap();
    ok(
        dir,
        &[
            "io", "write", "--state", "d.state", "--lba", "0", "--data", "in.bin",
        ],
    );
    // Another process reads it back: 3 LBAs of 4 KiB, the last one padded with zeros.
    ok(
        dir,
        &[
            "io", "read", "--state", "d.state", "--lba", "0", "--len", "3", "--data", "out.bin",
        ],
    );
    let back = std::fs::read(dir.join("out.bin")).unwrap();
    assert_eq!(back.len(), 3 * 4096);
    assert_eq!(&back[..data.len()], &data[..]);
    assert!(back[data.len()..].iter().all(|&b| b == 0));
    assert_eq!(
        zones(dir, 2),
        [("IMP_OPENED".into(), 3), ("EMPTY".into(), 16384)]
    );

    // A write off the write pointer: the NVMe status, exit code 1, the device unchanged.
    let o = zonelab(dir, &["io", "write", "--state", "d.state", "--lba", "0"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("Zone Invalid Write (SCT 1h, SC BCh)"), "{err}");
    assert_eq!(zones(dir, 1)[0], ("IMP_OPENED".into(), 3));

    let out = ok(
        dir,
        &["zone", "finish", "--state", "d.state", "--zone", "1"],
    );
    assert!(
        out.starts_with("zns-finish-zone: Success, action:2 zone:4000"),
        "{out}"
    );
    ok(dir, &["zone", "open", "--state", "d.state", "--zone", "2"]);
    ok(dir, &["zone", "close", "--state", "d.state", "--zone", "2"]);
    let z = zones(dir, 8);
    assert_eq!(z[1], ("FULL".into(), 32768));
    assert_eq!(z[2].0, "CLOSED");
    // Offline needs a read-only zone: the status says so, nothing changes.
    let o = zonelab(
        dir,
        &["zone", "offline", "--state", "d.state", "--zone", "3"],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("Invalid Zone State Transition (SCT 1h, SC BFh)"),
        "{err}"
    );
    assert_eq!(zones(dir, 8)[3].0, "EMPTY");
    ok(dir, &["zone", "reset", "--state", "d.state", "--all"]);
    let z = zones(dir, 8);
    assert!(z.iter().all(|(s, _)| s == "EMPTY"), "{z:?}");
    let o = zonelab(dir, &["io", "read", "--state", "d.state", "--lba", "0"]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("00000000: 00 00"));
}

#[test]
fn a_mismatched_or_corrupt_state_file_is_refused_and_left_alone() {
    let tmp = temp_dir("refused");
    let dir = tmp.path();
    ok(
        dir,
        &[
            "zone",
            "info",
            "--state",
            "d.state",
            "--preset",
            "rezns-40g",
        ],
    );
    let o = zonelab(
        dir,
        &["zone", "info", "--state", "d.state", "--preset", "zn540"],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("holds another device") && err.contains("zn540"),
        "{err}"
    );
    let mut bytes = std::fs::read(dir.join("d.state")).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x55;
    std::fs::write(dir.join("d.state"), &bytes).unwrap();
    for args in [
        &["zone", "reset", "--all", "--state", "d.state"][..],
        &["io", "write", "--lba", "0", "--state", "d.state"][..],
    ] {
        let o = zonelab(dir, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("d.state: the state file is corrupt"), "{err}");
    }
    assert_eq!(
        std::fs::read(dir.join("d.state")).unwrap(),
        bytes,
        "not rewritten"
    );
    let o = zonelab(dir, &["zone", "info", "--state", "none.state"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("give --preset or --experiment"));
    // Only the saved file and its lock file are left: the atomic write's temporary is gone.
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(names, [".d.state.lock", "d.state"]);
}

#[test]
fn run_state_continues_the_device_of_the_previous_run() {
    let tmp = temp_dir("run");
    let dir = tmp.path();
    std::fs::write(
        dir.join("e.toml"),
        r#"
seed = 3
preset = "rezns-40g"
[device.zones]
zone_count = 8
[data]
retention = true
[[job]]
rw = "write"
bs = "64KiB"
size = "2z"
io_size = "1MiB"
"#,
    )
    .unwrap();
    let clock = |dir: &Path| -> u64 {
        let info = ok(dir, &["zone", "info", "--state", "d.state"]);
        info.lines()
            .find_map(|l| l.strip_prefix("clock_ns: "))
            .unwrap()
            .parse()
            .unwrap()
    };
    ok(
        dir,
        &["run", "e.toml", "--state", "d.state", "-o", "r1", "-q"],
    );
    assert_eq!(
        zones(dir, 2),
        [("IMP_OPENED".into(), 256), ("EMPTY".into(), 16384)]
    );
    let first = clock(dir);
    assert!(first > 0);
    let out = ok(dir, &["run", "e.toml", "--state", "d.state", "-o", "r2"]);
    assert!(
        out.starts_with("device from d.state (its clock at "),
        "{out}"
    );
    // 1 MiB more in the same zone, after the first run's.
    assert_eq!(zones(dir, 1)[0], ("IMP_OPENED".into(), 512));
    assert!(clock(dir) > first);
    // Another device's experiment is refused, naming the setting.
    let o = zonelab(
        dir,
        &[
            "run",
            "e.toml",
            "--state",
            "d.state",
            "--set",
            "device.zones.zone_count=9",
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("zone_count"), "{err}");
}

/// Regression (issue 36, defect 9): `zone open --all` failing part-way (Too Many Open Zones
/// after two of four closed zones) left every zone unchanged through the device manager, but
/// opened through a replay or the fio engine: the manager dropped a failed command's effects.
/// One device, one behaviour: what the command did before it failed is kept.
#[test]
fn a_select_all_that_fails_part_way_keeps_what_it_did() {
    let tmp = temp_dir("select-all");
    let dir = tmp.path();
    let base = [
        "--state",
        "d.state",
        "--preset",
        "rezns-40g",
        "--set",
        "device.zones.zone_count=8",
        "--set",
        "device.zones.max_open_zones=2",
        "--set",
        "device.zones.max_active_zones=4",
    ];
    ok(dir, &[&["zone", "info"][..], &base].concat());
    for z in 0..4u64 {
        let lba = (z * 64 * 256).to_string();
        ok(dir, &["io", "write", "--state", "d.state", "--lba", &lba]);
    }
    ok(dir, &["zone", "close", "--all", "--state", "d.state"]);
    let o = zonelab(dir, &["zone", "open", "--all", "--state", "d.state"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("Too Many Open Zones"));
    let states: Vec<String> = zones(dir, 4).into_iter().map(|(s, _)| s).collect();
    assert_eq!(states, ["EXP_OPENED", "EXP_OPENED", "CLOSED", "CLOSED"]);
}

/// Regression (issue 36, defects 3 and 4): a second process on a state file in use is refused,
/// naming the holder (two users each saved their own device and the last save dropped the
/// other's acknowledged writes), and the temporaries a save killed half-way left are removed
/// when the file is next used.
#[test]
fn a_state_file_in_use_is_refused_and_a_killed_save_leaves_nothing() {
    let tmp = temp_dir("lock");
    let dir = tmp.path();
    let create = [
        "zone",
        "info",
        "--state",
        "d.state",
        "--preset",
        "rezns-40g",
        "--set",
        "device.zones.zone_count=4",
    ];
    ok(dir, &create);
    let stale = dir.join(".d.state.4242.zonelab-tmp");
    std::fs::write(&stale, vec![0u8; 1 << 20]).unwrap();
    let held = zonelab_io_lock(&dir.join("d.state"));
    let o = zonelab(dir, &["zone", "open", "--zone", "1", "--state", "d.state"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("d.state is in use by process"), "{err}");
    assert!(err.contains("the test holding it"), "{err}");
    drop(held);
    ok(dir, &["zone", "open", "--zone", "1", "--state", "d.state"]);
    assert!(!stale.exists(), "the killed save's temporary is gone");
    assert_eq!(zones(dir, 2)[1].0, "EXP_OPENED");
}

fn zonelab_io_lock(path: &Path) -> zonelab_io::StateLock {
    zonelab_io::lock(path, "the test holding it").unwrap()
}

/// The device manager keeps a conventional SSD too: written in one process, read back and
/// overwritten in others, its map and NAND state carried between them; zone commands get
/// a clear error, and a device under a host layer is refused before anything is written.
#[test]
fn a_conventional_ssd_lives_in_a_state_file() {
    let tmp = temp_dir("conventional");
    let dir = tmp.path();
    let small = [
        "--preset",
        "zn540-conv-op28",
        "--set",
        "device.geometry.blocks_per_die=32",
        "--set",
        "device.geometry.pages_per_block=128",
        "--set",
        "device.ftl.gc_free_superblocks=3",
        "--set",
        "device.ftl.background_gc_free_superblocks=4",
    ];
    let data: Vec<u8> = (0..20_000u32).map(|i| (i * 13 % 251) as u8 + 1).collect();
    std::fs::write(dir.join("in.bin"), &data).unwrap();
    let mut create = vec![
        "io", "write", "--state", "c.state", "--lba", "1000", "--data", "in.bin",
    ];
    create.extend(small);
    ok(dir, &create);
    let read = |dir: &Path| {
        ok(
            dir,
            &[
                "io", "read", "--state", "c.state", "--lba", "1000", "--len", "5", "--data",
                "out.bin",
            ],
        );
        std::fs::read(dir.join("out.bin")).unwrap()
    };
    let back = read(dir);
    assert_eq!(&back[..data.len()], &data[..]);
    assert!(back[data.len()..].iter().all(|&b| b == 0));
    // Overwritten in place (a block device's LBAs take any order), then read by another process.
    let other: Vec<u8> = data.iter().map(|b| b ^ 0x5a).collect();
    std::fs::write(dir.join("in.bin"), &other).unwrap();
    ok(
        dir,
        &[
            "io", "write", "--state", "c.state", "--lba", "1000", "--data", "in.bin",
        ],
    );
    assert_eq!(&read(dir)[..other.len()], &other[..]);
    let o = zonelab(dir, &["zone", "report", "--state", "c.state"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("not zoned") && !err.contains("panicked"),
        "{err}"
    );
    // Beyond the namespace: the NVMe status, the device unchanged.
    let o = zonelab(
        dir,
        &["io", "read", "--state", "c.state", "--lba", "999999999"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("LBA Out of Range"));
    assert_eq!(&read(dir)[..other.len()], &other[..]);
    // Emulated zones over it: a host layer, which a state file does not hold.
    std::fs::write(
        dir.join("layered.toml"),
        "preset = \"zn540-conv-op28\"\n[layer]\nkind = \"emulated\"\nzone_size = \"64MiB\"\n",
    )
    .unwrap();
    let o = zonelab(
        dir,
        &[
            "io",
            "write",
            "--state",
            "l.state",
            "--experiment",
            "layered.toml",
            "--lba",
            "0",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("without a host layer"), "{err}");
    assert!(!dir.join("l.state").exists());
}
