use std::ffi::{CStr, CString, c_char};

use super::c_api::{zl_now, zl_open};
use super::*;

fn opts(results: Option<PathBuf>) -> OpenOptions {
    OpenOptions {
        preset: Some("rezns-40g".into()),
        overrides: vec![
            "device.zones.zone_count=8".into(),
            "device.zones.max_open_zones=4".into(),
        ],
        retention: Some(true),
        results,
        ..OpenOptions::default()
    }
}

#[test]
fn jobs_share_a_device_by_name_and_the_last_one_writes_results() {
    let tmp = temp("shared");
    let dir = tmp.path().join("results");
    let a = open("shared-test", &opts(Some(dir.clone()))).unwrap();
    let b = open("shared-test", &opts(None)).unwrap();
    let data = vec![7u8; 8192];
    let done = a
        .lock()
        .unwrap()
        .submit(ZL_WRITE, 0, 8192, Some(&mut data.clone()))
        .unwrap();
    assert!(done > 0);
    let mut back = vec![0u8; 8192];
    b.lock()
        .unwrap()
        .submit(ZL_READ, 0, 8192, Some(&mut back))
        .unwrap();
    assert_eq!(back, data, "the second job sees the first one's data");
    let info = b.lock().unwrap().info();
    assert_eq!(
        (info.nr_zones, info.max_open_zones, info.zone_size_bytes),
        (8, 4, 64 << 20)
    );
    let mut zones = [ZlZone::default(); 3];
    assert_eq!(a.lock().unwrap().report_zones(0, &mut zones), Ok(3));
    assert_eq!((zones[0].wp, zones[0].cond), (8192, 2));
    // A write off the write pointer is a Zone Invalid Write, as (SCT 1 << 8) | 0xBC.
    let err = a
        .lock()
        .unwrap()
        .submit(ZL_WRITE, 4096, 4096, None)
        .unwrap_err();
    assert_eq!(err.code(), 0x1BC);
    assert_eq!(
        a.lock()
            .unwrap()
            .submit(ZL_READ, 1, 4096, None)
            .unwrap_err()
            .code(),
        -22
    );
    leave(&a).unwrap();
    assert!(
        !dir.join("summary.json").exists(),
        "b still uses the device"
    );
    leave(&b).unwrap();
    let summary = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&summary).unwrap();
    assert_eq!(v["ops"]["write"]["count"], 1);
    assert_eq!(v["errors"].as_array().unwrap().len(), 1);
    // The device lives as long as the process: a later job (a verify pass) finds the data.
    let c = open("shared-test", &opts(None)).unwrap();
    assert_eq!(c.lock().unwrap().device().written_lbas(0, 0), 2);
    leave(&c).unwrap();
}

#[test]
fn the_c_abi_reports_bad_configuration_as_text() {
    let name = CString::new("bad-config").unwrap();
    let preset = CString::new("no-such-preset").unwrap();
    let mut err = [0 as c_char; 256];
    // SAFETY: valid strings and buffer.
    let h = unsafe {
        zl_open(
            name.as_ptr(),
            preset.as_ptr(),
            std::ptr::null(),
            std::ptr::null(),
            std::ptr::null(),
            std::ptr::null(),
            0,
            std::ptr::null(),
            std::ptr::null(),
            err.as_mut_ptr(),
            err.len(),
        )
    };
    assert!(h.is_null());
    // SAFETY: zl_open wrote a NUL-terminated message.
    let msg = unsafe { CStr::from_ptr(err.as_ptr()) }.to_string_lossy();
    assert!(msg.contains("unknown preset `no-such-preset`"), "{msg}");
    // SAFETY: a null handle is refused without touching memory.
    assert_eq!(unsafe { zl_now(std::ptr::null_mut()) }, 0);
}

#[test]
fn without_a_preset_or_a_config_the_device_is_the_default_preset() {
    let e = open("no-device", &OpenOptions::default()).unwrap();
    assert_eq!(e.lock().unwrap().device().info().name, "rezns-40g");
    assert_eq!(e.lock().unwrap().info().nr_zones, 640);
    leave(&e).unwrap();
    let both = OpenOptions {
        preset: Some("zn540".into()),
        config_file: Some("x.toml".into()),
        ..OpenOptions::default()
    };
    let err = open("both-device", &both).err().unwrap();
    assert!(err.to_string().contains("not both"), "{err}");
}

/// A fresh directory, removed with everything in it when dropped (the test passed or failed).
fn temp(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("zonelab-ffi-{name}-"))
        .tempdir()
        .expect("a temporary directory")
}

fn small(overrides: &[&str]) -> OpenOptions {
    let mut o = opts(None);
    o.overrides.extend(overrides.iter().map(|s| s.to_string()));
    o
}

/// Regression: `[prefill]` in `zonelab_config` was ignored by the engine.
#[test]
fn prefill_in_zonelab_config_is_honoured() {
    let tmp = temp("prefill");
    let dir = tmp.path().to_path_buf();
    let cfg = dir.join("exp.toml");
    std::fs::write(
        &cfg,
        "preset = \"rezns-40g\"\n[device.zones]\nzone_count = 8\n[prefill]\nfraction = 0.5\n",
    )
    .unwrap();
    let e = open(
        "prefill-test",
        &OpenOptions {
            config_file: Some(cfg.display().to_string()),
            ..OpenOptions::default()
        },
    )
    .unwrap();
    let mut zones = [ZlZone::default(); 8];
    assert_eq!(e.lock().unwrap().report_zones(0, &mut zones), Ok(8));
    let full: Vec<u32> = zones.iter().map(|z| z.cond).collect();
    assert_eq!(full, [0xE, 0xE, 0xE, 0xE, 1, 1, 1, 1]);
    leave(&e).unwrap();
}

/// Regression: jobs naming one device with different options silently shared the first one.
#[test]
fn conflicting_options_for_one_device_name_are_an_error() {
    let a = open("conflict-test", &small(&[])).unwrap();
    let mut other = small(&[]);
    other.policy = Some("mapping".into());
    let err = open("conflict-test", &other).err().unwrap();
    assert!(err.to_string().contains("zonelab_policy"), "{err}");
    let err = open("conflict-test", &small(&["device.zones.zone_count=16"]))
        .err()
        .unwrap();
    assert!(err.to_string().contains("zonelab_set"), "{err}");
    // A job that leaves the options unset joins the device as it is.
    let b = open("conflict-test", &OpenOptions::default()).unwrap();
    leave(&b).unwrap();
    leave(&a).unwrap();
}

/// Regression: one fio filename on two devices shared fio's zone state and misread.
#[test]
fn one_filename_on_two_devices_is_an_error() {
    bind_file("dev-a", "shared-file").unwrap();
    bind_file("dev-a", "shared-file").unwrap();
    let err = bind_file("dev-b", "shared-file").unwrap_err();
    assert!(
        err.to_string().contains("already zonelab_device dev-a"),
        "{err}"
    );
}

/// Regression: an unwritable `zonelab_results` left fio exiting 0 with the results lost.
#[test]
fn unwritable_results_fail_the_job_when_it_opens_the_device() {
    let tmp = temp("unwritable");
    let dir = tmp.path().to_path_buf();
    let file = dir.join("a-file");
    std::fs::write(&file, "").unwrap();
    let err = open("unwritable-test", &opts(Some(file.join("results"))))
        .err()
        .unwrap();
    assert!(format!("{err:#}").contains("zonelab_results"), "{err:#}");
}

/// Regression: `zonelab_set=data.retention=false` was overridden by `zonelab_retention`.
#[test]
fn explicit_overrides_win_and_contradictions_are_errors() {
    let mut o = small(&["data.retention=false"]);
    o.retention = None;
    let e = open("retention-set-test", &o).unwrap();
    assert!(
        !e.lock().unwrap().cfg.data.retention,
        "zonelab_set wins over the default"
    );
    leave(&e).unwrap();
    let mut o = small(&["data.retention=false"]);
    o.retention = Some(true);
    let err = open("retention-conflict-test", &o).err().unwrap();
    assert!(err.to_string().contains("disagree"), "{err}");
    let mut o = small(&["firmware.policy=\"renewable\""]);
    o.policy = Some("mapping".into());
    let err = open("policy-conflict-test", &o).err().unwrap();
    assert!(err.to_string().contains("disagree"), "{err}");
}

/// Regression: `zonelab_policy=mapping` alone failed with "missing field `t_free`".
#[test]
fn a_mapping_policy_alone_takes_its_documented_defaults() {
    for policy in ["mapping", "preemptive", "renewable"] {
        let mut o = small(&[]);
        o.policy = Some(policy.into());
        let e = open(&format!("{policy}-alone"), &o).unwrap();
        assert_eq!(e.lock().unwrap().device().policy_name(), policy);
        leave(&e).unwrap();
    }
}

/// Regression: a device with only an active limit reported "no open limit" to fio.
#[test]
fn fio_is_told_the_smaller_of_the_open_and_active_limits() {
    for (open_zones, active, want) in [(0, 6, 6), (4, 6, 4), (0, 0, 0), (5, 0, 5)] {
        let e = open(
            &format!("limits-{open_zones}-{active}"),
            &OpenOptions {
                preset: Some("rezns-40g".into()),
                overrides: vec![
                    "device.zones.zone_count=8".into(),
                    format!("device.zones.max_open_zones={open_zones}"),
                    format!("device.zones.max_active_zones={active}"),
                ],
                ..OpenOptions::default()
            },
        )
        .unwrap();
        assert_eq!(e.lock().unwrap().info().open_limit, want);
        leave(&e).unwrap();
    }
}

fn with_state(path: &std::path::Path, overrides: &[&str]) -> OpenOptions {
    let mut o = small(overrides);
    o.state = Some(path.to_path_buf());
    o
}

/// A second process (here: another device name on the same state file) sees the first one's
/// zones and data; the clock goes on from where it stopped.
#[test]
fn a_device_state_outlives_the_process() {
    let tmp = temp("state");
    let dir = tmp.path().to_path_buf();
    let path = dir.join("dev.state");
    let a = open("state-first", &with_state(&path, &[])).unwrap();
    let data: Vec<u8> = (0..16384u32).map(|i| (i % 253) as u8).collect();
    let done = a
        .lock()
        .unwrap()
        .submit(ZL_WRITE, 0, 16384, Some(&mut data.clone()))
        .unwrap();
    leave(&a).unwrap();
    assert!(path.exists(), "saved when the last job left");
    let b = open("state-second", &with_state(&path, &[])).unwrap();
    let mut back = vec![0u8; 16384];
    let mut e = b.lock().unwrap();
    assert!(e.now_ns() >= done, "time goes on");
    e.submit(ZL_READ, 0, 16384, Some(&mut back)).unwrap();
    assert_eq!(back, data);
    let mut zones = [ZlZone::default(); 1];
    e.report_zones(0, &mut zones).unwrap();
    assert_eq!((zones[0].wp, zones[0].cond), (16384, 2));
    drop(e);
    leave(&b).unwrap();
    // A state file of another device is refused, naming the difference.
    let err = open(
        "state-third",
        &with_state(&path, &["device.zones.zone_count=16"]),
    )
    .err()
    .unwrap();
    assert!(format!("{err:#}").contains("zone_count = 8"), "{err:#}");
    // A damaged one too.
    let mut bytes = std::fs::read(&path).unwrap();
    let k = bytes.len() / 2;
    bytes[k] ^= 1;
    std::fs::write(&path, bytes).unwrap();
    let err = open("state-fourth", &with_state(&path, &[])).err().unwrap();
    assert!(format!("{err:#}").contains("corrupt"), "{err:#}");
}

#[test]
fn virtual_time_advances_only_when_told() {
    let e = open("clock-test", &opts(None)).unwrap();
    let done = e.lock().unwrap().submit(ZL_WRITE, 0, 32768, None).unwrap();
    assert_eq!(e.lock().unwrap().now_ns(), 0);
    e.lock().unwrap().clock = zonelab::time::Instant::from_ns(done);
    let second = e.lock().unwrap().submit(ZL_READ, 0, 4096, None).unwrap();
    assert!(second > done);
    leave(&e).unwrap();
}

#[test]
fn overrides_split_on_commas_and_semicolons() {
    assert_eq!(
        split_overrides("a=1, b.c=\"x\";d=2,"),
        ["a=1", "b.c=\"x\"", "d=2"]
    );
}

/// fio's loop on one job at QD1 (submit, reap at the completion, submit again), with the zone
/// resets fio issues when it wraps, on the Cosmos+ prototype (no write buffer, so the device is
/// idle between synchronous writes): background firmware work runs between completions exactly
/// as under `zonelab run`, so the preemptive policy erases in idle time here too.
#[test]
fn preemptive_partial_erases_happen_under_the_engine_as_under_zonelab_run() {
    let set = vec![
        "device.zones.zone_count=16".to_string(),
        "firmware.policy=\"preemptive\"".to_string(),
    ];
    let e = open(
        "preemptive-test",
        &OpenOptions {
            preset: Some("cosmos-zns".into()),
            overrides: set.clone(),
            ..OpenOptions::default()
        },
    )
    .unwrap();
    let zone = 512u64 << 20;
    let bs = 2u64 << 20;
    let zones = 4;
    let rounds = 4;
    {
        let mut e = e.lock().unwrap();
        for round in 0..rounds {
            for z in 0..zones {
                if round > 0 {
                    let done = e.submit(ZL_RESET, z * zone, 0, None).unwrap();
                    e.clock = Instant::from_ns(done);
                    e.advance_to(Instant::from_ns(done));
                }
                for k in 0..zone / bs {
                    let done = e.submit(ZL_WRITE, z * zone + k * bs, bs, None).unwrap();
                    e.clock = Instant::from_ns(done);
                    e.advance_to(Instant::from_ns(done));
                }
            }
        }
    }
    let partial = |report: Option<zonelab::firmware::FirmwareReport>| match report {
        Some(zonelab::firmware::FirmwareReport::ZoneMapping(p)) => {
            (p.partial_zone_erases, p.full_zone_erases)
        }
        other => panic!("a zone-mapping report: {other:?}"),
    };
    let under_engine = {
        let e = e.lock().unwrap();
        partial(e.device().report(e.clock).firmware)
    };
    leave(&e).unwrap();

    let text = format!(
        "preset = \"cosmos-zns\"\n[[job]]\nrw = \"write\"\nbs = \"2MiB\"\nsize = \"{zones}z\"\nio_size = \"{}MiB\"\n",
        zones * rounds * 512
    );
    let cfg = ExperimentConfig::parse(&text, &set).unwrap();
    let exp = cfg.validate("run").unwrap();
    let out = zonelab::run(&exp, zonelab::Inputs::default(), 0, &mut |_| {}).unwrap();
    let under_run = partial(out.summary.firmware);
    assert!(
        under_engine.0 > 0,
        "partial erases under the engine: {under_engine:?}"
    );
    assert_eq!(under_engine, under_run, "engine vs zonelab run");
}
