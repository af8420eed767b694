use std::ffi::CString;

use super::*;

fn opts(results: Option<PathBuf>) -> OpenOptions {
    OpenOptions {
        preset: Some("rezns-40g".into()),
        overrides: vec![
            "device.zones.zone_count=8".into(),
            "device.zones.max_open_zones=4".into(),
        ],
        retention: true,
        results,
        ..OpenOptions::default()
    }
}

#[test]
fn jobs_share_a_device_by_name_and_the_last_one_writes_results() {
    let dir = std::env::temp_dir().join(format!("zonelab-ffi-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
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
    assert_eq!(c.lock().unwrap().device.written_lbas(0, 0), 2);
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
            1,
            0,
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
fn a_device_needs_a_preset_or_a_config() {
    let err = open("no-device", &OpenOptions::default())
        .err()
        .expect("nothing names the device");
    assert!(err.to_string().contains("zonelab_preset"), "{err}");
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
        partial(e.device.report(e.clock).firmware)
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
