//! `on_zone_error = "relocate"` against the reference: with zones going Read Only and writes
//! failing with Write Fault during random operations, every byte the layer acknowledged reads
//! back and the block maps agree with the zones; a zone gone Offline loses only the blocks the
//! layer had no copy of, and reads of those (only) fail; without `relocate` the same fault
//! stops the writer.

use std::rc::Rc;

use proptest::prelude::*;

use super::tests::{experiment_with, random_ops, tiny_f2fs, tiny_zenfs, with_fs_on};
use super::*;
use crate::experiment::RunOutput;

fn zone_fault(zone: u32, at_ms: u64, state: &str) -> String {
    format!("\n[[faults.zones]]\nat = \"{at_ms}ms\"\nzone = {zone}\nstate = \"{state}\"\n")
}

fn write_faults(rate: f64) -> String {
    format!("\n[[faults.commands]]\nops = \"writes\"\nstatus = \"write_fault\"\nrate = {rate}\n")
}

fn relocating(mut spec: FsSpec) -> FsSpec {
    spec.on_zone_error = OnZoneError::Relocate;
    spec
}

fn zone_errors(out: &RunOutput) -> ZoneErrorReport {
    let fs = out.summary.layers["fs"].file_layer().unwrap();
    fs.zone_errors.clone().expect("reported with relocate")
}

/// Every rejected command was taken in by the layer, and there were some.
fn all_ridden_through(out: &RunOutput) -> Result<(), TestCaseError> {
    let s = &out.summary;
    prop_assert_eq!(s.errors_total, s.errors_ridden_through, "{:?}", s.errors);
    let e = zone_errors(out);
    prop_assert!(e.writes_refused > 0, "{:?}", e);
    out.device.check_invariants();
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]

    /// Both personalities (ZenFS's append-only files, F2FS's overwrites); not ZenFS's metadata
    /// log zones 0-2, whose going Read Only stops the layer by design.
    #[test]
    fn files_ride_through_read_only_zones_and_write_faults(
        seed in any::<u64>(),
        zenfs in any::<bool>(),
        zone in 3..32u32,
        at_ms in 0..40u64,
    ) {
        let faults = zone_fault(zone, at_ms, "read_only") + &write_faults(0.03);
        let spec = if zenfs { tiny_zenfs(false) } else { tiny_f2fs(GcPolicyKind::Native) };
        let out = with_fs_on(experiment_with(None, &faults), relocating(spec), move |fs, h| {
            async move { random_ops(fs, h, seed, 600, zenfs).await }
        });
        all_ridden_through(&out)?;
    }
}

/// Writes 40 files of 24 KiB with an fsync each, keeping their bytes.
async fn write_files(fs: &Fs, h: &Host) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for i in 0..40u32 {
        let path = format!("/f{i}");
        let data: Vec<u8> = (0..24 * 1024u32).map(|k| (k * 7 + i) as u8).collect();
        let fd = fs.create(h, &path, CreateOptions::default()).await.unwrap();
        fs.write(h, fd, 0, data.len() as u64, Some(&data))
            .await
            .unwrap();
        fs.fsync(h, fd).await.unwrap();
        fs.close(h, fd).await.unwrap();
        files.push((path, data));
    }
    files
}

/// `cache_pages` of page cache, relocating.
fn with_cache(cache_pages: u64) -> FsSpec {
    let mut spec = relocating(tiny_f2fs(GcPolicyKind::Native));
    spec.cache.page_cache_bytes = cache_pages * BLOCK_BYTES;
    spec
}

/// Where the last file's first block went, and when the files were written (ms, rounded up):
/// the same run goes the same way up to a fault placed after it.
fn last_zone_and_time(spec: FsSpec) -> (u32, u64) {
    let found = Rc::new(std::cell::Cell::new((0u32, 0u64)));
    let f = found.clone();
    with_fs_on(experiment_with(None, ""), spec, move |fs, h| {
        let f = f.clone();
        async move {
            write_files(&fs, &h).await;
            let st = fs.inner.st.borrow();
            let ino = st.lookup("/f39").unwrap();
            let (zone, _) = st.inode(ino).map.get(0).unwrap();
            f.set((zone, h.now().ns().div_ceil(1_000_000)));
        }
    });
    found.get()
}

/// Writes the files, lets `zone` go Offline 1 ms later, drops the clean cache if `drop`, then
/// writes one more file, which lands in `zone` and is refused; reads every file back.
fn offline_after_files(cache_pages: u64, drop: bool) -> (RunOutput, Vec<Result<(), FsError>>) {
    let (zone, at_ms) = last_zone_and_time(with_cache(cache_pages));
    let exp = experiment_with(None, &zone_fault(zone, at_ms + 1, "offline"));
    let results = Rc::new(std::cell::RefCell::new(Vec::new()));
    let r = results.clone();
    let out = with_fs_on(exp, with_cache(cache_pages), move |fs, h| {
        let r = r.clone();
        async move {
            let files = write_files(&fs, &h).await;
            h.sleep_until(crate::time::Instant::from_ns((at_ms + 2) * 1_000_000))
                .await;
            if drop {
                fs.drop_caches();
            }
            let fd = fs
                .create(&h, "/more", CreateOptions::default())
                .await
                .unwrap();
            fs.write(&h, fd, 0, 8192, Some(&[9u8; 8192])).await.unwrap();
            fs.fsync(&h, fd).await.unwrap();
            fs.close(&h, fd).await.unwrap();
            // Give the relocator its turn.
            h.sleep(crate::time::Duration::from_ms(5)).await;
            fs.drop_caches();
            for (path, want) in &files {
                let fd = fs.open(&h, path, false).await.unwrap();
                let mut buf = vec![0u8; want.len()];
                let got = fs.read(&h, fd, 0, want.len() as u64, Some(&mut buf)).await;
                r.borrow_mut().push(got.map(|n| {
                    assert_eq!((n as usize, &buf), (want.len(), want), "{path}");
                }));
                fs.close(&h, fd).await.unwrap();
            }
            fs.check();
        }
    });
    let results = results.borrow().clone();
    (out, results)
}

#[test]
fn an_offline_zone_loses_nothing_the_page_cache_holds() {
    let (out, reads) = offline_after_files(1 << 18, false);
    assert_eq!(out.summary.errors_total, out.summary.errors_ridden_through);
    let e = zone_errors(&out);
    assert_eq!((e.zones_retired, e.writes_refused), (1, 1), "{e:?}");
    assert!(e.bytes_recovered > 0 && e.bytes_lost == 0, "{e:?}");
    assert!(reads.iter().all(|r| r.is_ok()), "{reads:?}");
}

#[test]
fn an_offline_zone_loses_what_the_layer_had_no_copy_of_and_only_reads_of_that_fail() {
    let (out, reads) = offline_after_files(1 << 18, true);
    let e = zone_errors(&out);
    assert_eq!(e.zones_retired, 1, "{e:?}");
    assert!(e.bytes_lost > 0, "{e:?}");
    let failed = reads.iter().filter(|r| r.is_err()).count();
    assert!(failed > 0 && failed < reads.len(), "{reads:?}");
    for r in &reads {
        if let Err(err) = r {
            assert_eq!(*err, FsError::Device(crate::device::Status::ZoneIsOffline));
        }
    }
    // The reads that failed were refused by the device, not ridden through.
    assert!(out.summary.errors_total > out.summary.errors_ridden_through);
}

#[test]
fn without_relocate_the_writer_gets_the_refusal() {
    let exp = experiment_with(None, &zone_fault(0, 0, "read_only"));
    let out = with_fs_on(exp, tiny_f2fs(GcPolicyKind::Native), |fs, h| async move {
        let fd = fs.create(&h, "/f", CreateOptions::default()).await.unwrap();
        fs.write(&h, fd, 0, 8192, Some(&[1u8; 8192])).await.unwrap();
        let r = fs.fsync(&h, fd).await;
        assert_eq!(
            r,
            Err(FsError::Device(crate::device::Status::ZoneIsReadOnly))
        );
    });
    assert_eq!(out.summary.errors_ridden_through, 0);
    assert!(out.summary.errors_total > 0);
}
