//! F2FS's background cleaner by kernel: Linux 6.12 on a zoned device looks every 10-20 ms once
//! free sections are at most 60% of all (after the 60 s it sleeps when it finds more free, as
//! at mount) and moves a few segments per pass; Linux 5.16 waits 30 s before its first look.
//! Contents survive the windowed passes.

use super::tests::{tiny_f2fs, with_fs};
use super::*;
use crate::time::Duration;

/// Six files of 160 blocks (15 of the 32 zones), 64 blocks overwritten, then nothing until
/// `until` (simulated time since the start); the zoned cleaner's no-GC sleep is `nogc`.
fn fill_then_idle(
    mode: F2fsGcMode,
    window_segments: u32,
    nogc: Duration,
    until: Duration,
) -> super::FsReport {
    fill_then_idle_cached(mode, window_segments, nogc, until, None)
}

/// As [`fill_then_idle`], with a page cache of 4,096 blocks when `cache` is given (None: the
/// tiny one of 8 blocks); `Some(false)` drops the files' pages before the idle time.
fn fill_then_idle_cached(
    mode: F2fsGcMode,
    window_segments: u32,
    nogc: Duration,
    until: Duration,
    cache: Option<bool>,
) -> super::FsReport {
    let mut spec = tiny_f2fs(GcPolicyKind::Native);
    if cache.is_some() {
        spec.cache.page_cache_bytes = 4096 * BLOCK_BYTES;
    }
    if let Personality::F2fs(f) = &mut spec.personality {
        (f.bg_gc_min_sleep, f.bg_gc_max_sleep, f.bg_gc_nogc_sleep) = mode.sleeps();
        if mode == F2fsGcMode::Zoned {
            f.bg_gc_nogc_sleep = nogc;
        }
        f.gc_mode = mode;
        f.migration_window_segments = window_segments;
    }
    let out = with_fs(spec, None, move |fs, h| async move {
        let b = BLOCK_BYTES as usize;
        let mut want = Vec::new();
        let mut fds = Vec::new();
        for i in 0..6u8 {
            let fd = fs
                .create(&h, &format!("/f{i}"), CreateOptions::default())
                .await
                .unwrap();
            let d = vec![i; 160 * b];
            fs.write(&h, fd, 0, d.len() as u64, Some(&d)).await.unwrap();
            fs.fsync(&h, fd).await.unwrap();
            want.push(d);
            fds.push(fd);
        }
        for k in 0..64usize {
            let (f, blk) = (k % 6, (k * 37) % 160);
            let d = vec![0xA0 + k as u8; b];
            fs.write(&h, fds[f], (blk * b) as u64, b as u64, Some(&d))
                .await
                .unwrap();
            want[f][blk * b..(blk + 1) * b].copy_from_slice(&d);
            fs.fsync(&h, fds[f]).await.unwrap();
        }
        let now = Duration::from_ns(h.now().ns());
        assert!(now < nogc, "the writes took {now:?}");
        if cache == Some(false) {
            fs.drop_caches();
        }
        h.sleep(until - now).await;
        fs.check();
        if cache == Some(false) {
            // Nothing read the files since their pages were dropped: what is cached now, the
            // cleaner read and kept.
            let st = fs.inner.st.borrow();
            let kept = st.cached_pages - st.dirty_pages;
            assert!(
                kept > 160,
                "the cleaner kept {kept} pages, not even one file's 160"
            );
        }
        fs.drop_caches();
        for (f, w) in want.iter().enumerate() {
            let mut buf = vec![0u8; w.len()];
            fs.read(&h, fds[f], 0, w.len() as u64, Some(&mut buf))
                .await
                .unwrap();
            assert!(buf == *w, "file {f} changed");
        }
    });
    assert!(out.summary.errors.is_empty(), "{:?}", out.summary.errors);
    out.summary.layers["fs"].file_layer().unwrap().clone()
}

#[test]
fn the_zoned_cleaner_runs_within_milliseconds_and_the_classic_one_waits() {
    let minute = Duration::from_secs(60);
    let idle = Duration::from_secs(61);
    let zoned = fill_then_idle(F2fsGcMode::Zoned, 3, minute, idle);
    assert!(zoned.gc.runs_background > 0, "{:?}", zoned.gc);
    assert!(zoned.gc.zones_collected > 0, "{:?}", zoned.gc);
    assert_eq!(zoned.gc.runs_foreground, 0, "{:?}", zoned.gc);
    // Before its first minute is over, the zoned cleaner has not looked again.
    let early = fill_then_idle(F2fsGcMode::Zoned, 3, minute, Duration::from_secs(59));
    assert_eq!(early.gc.runs_background, 0, "{:?}", early.gc);
    let classic = fill_then_idle(F2fsGcMode::Classic, 3, minute, Duration::from_secs(29));
    assert_eq!(classic.gc.runs_background, 0, "{:?}", classic.gc);
    assert_eq!(classic.gc.bytes_read, 0, "{:?}", classic.gc);
}

#[test]
fn a_zoned_pass_moves_one_window_and_the_next_goes_on_from_there() {
    // A 16-block window in 64-block sections: a victim takes four passes. The cleaner first
    // looks at 10 ms (the file system is empty: it sleeps the no-GC second), then at 1.01 s.
    let (second, first_pass) = (Duration::from_secs(1), Duration::from_ms(1015));
    let one = fill_then_idle(F2fsGcMode::Zoned, 1, second, first_pass);
    let whole = fill_then_idle(F2fsGcMode::Zoned, 4, second, first_pass);
    assert!(one.gc.bytes_read > 0, "{:?}", one.gc);
    assert!(
        one.gc.bytes_read < whole.gc.bytes_read,
        "{:?} {:?}",
        one.gc,
        whole.gc
    );
    assert!(one.gc.bytes_read <= 16 * BLOCK_BYTES, "{:?}", one.gc);
    let long = fill_then_idle(F2fsGcMode::Zoned, 1, second, Duration::from_secs(2));
    assert!(long.gc.zones_collected > 0, "{:?}", long.gc);
}

/// Linux's cleaner moves data through the page cache: a block whose page is cached and clean is
/// not read from the device, and a block it reads stays cached, so moving it again costs no
/// read. The moved contents are the files' either way (checked after the idle time).
#[test]
fn the_cleaner_takes_cached_pages_without_reading_them() {
    let minute = Duration::from_secs(60);
    let idle = Duration::from_secs(61);
    let cached = fill_then_idle_cached(F2fsGcMode::Zoned, 3, minute, idle, Some(true));
    let dropped = fill_then_idle_cached(F2fsGcMode::Zoned, 3, minute, idle, Some(false));
    for r in [&cached, &dropped] {
        assert!(r.gc.bytes_written > 0, "{:?}", r.gc);
    }
    // Cached: the data blocks come from the cache; only node blocks are read.
    assert!(cached.gc.bytes_from_cache > 0, "{:?}", cached.gc);
    assert!(
        cached.gc.bytes_read < cached.gc.bytes_written / 4,
        "{:?}",
        cached.gc
    );
    // Dropped: the first move of each block reads it.
    assert!(
        dropped.gc.bytes_read > 2 * cached.gc.bytes_read.max(1),
        "cached {:?}, dropped {:?}",
        cached.gc,
        dropped.gc
    );
}
