//! The file layer against a small in-memory reference: random operation sequences (create,
//! write, append, read, fsync, close, open, rename, delete, mkdir, stat, listings) on both
//! personalities with the device keeping data; contents, sizes and listings agree after every
//! step, and the layer's block maps agree with its zones. GC policies under random overwrites
//! lose no live block and copy no dead one; zone limits hold under many writers.

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::rc::Rc;

use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::*;
use crate::config::ExperimentConfig;
use crate::experiment::{Experiment, Inputs, RunOutput, build_device, run_with};
use crate::testing::fixtures::TinyDevice;

/// The tiny device with 32 zones of 64 blocks (256 KiB) over 4 dies, keeping data; `limits`
/// caps open and active zones.
fn experiment(limits: Option<u32>) -> Experiment {
    experiment_with(limits, "")
}

/// As [`experiment`], with `extra` TOML after the device's (faults).
pub(super) fn experiment_with(limits: Option<u32>, extra: &str) -> Experiment {
    let mut text = TinyDevice {
        blocks_per_die: 32,
        max_open_zones: limits.unwrap_or(0),
        max_active_zones: limits.unwrap_or(0),
        retention: true,
        ..TinyDevice::default()
    }
    .toml();
    text.push_str(extra);
    ExperimentConfig::parse(&text, &[])
        .unwrap()
        .validate_device("t")
        .unwrap()
}

/// F2FS scaled to the tiny device: 16-block segments, 2 reserved sections, a small cache.
pub(crate) fn tiny_f2fs(gc: GcPolicyKind) -> FsSpec {
    let mut spec = FsSpec::f2fs(0, 32);
    if let Personality::F2fs(f) = &mut spec.personality {
        f.segment_blocks = 16;
        f.reserved_sections = Some(2);
    }
    spec.gc.policy = gc;
    spec.gc.segment_blocks = 16;
    spec.gc.io_blocks = 8;
    spec.gc.bg_free_zones = 4;
    spec.gc.fg_free_zones = 3;
    spec.cache.page_cache_bytes = 8 * BLOCK_BYTES;
    spec.data = true;
    spec
}

pub(crate) fn tiny_zenfs(gc: bool) -> FsSpec {
    let mut spec = FsSpec::zenfs(0, 32);
    if let Personality::Zenfs(z) = &mut spec.personality {
        z.gc = gc;
        z.buffer_blocks = 4;
        z.gc_interval = crate::time::Duration::from_ms(50);
    }
    spec.data = true;
    spec
}

/// Mounts `spec` on the tiny device and runs `body` as one task.
pub(super) fn with_fs<F, Fut>(spec: FsSpec, limits: Option<u32>, body: F) -> RunOutput
where
    F: Fn(Fs, Host) -> Fut + 'static,
    Fut: Future<Output = ()> + 'static,
{
    with_fs_on(experiment(limits), spec, body)
}

/// As [`with_fs`], on the device `exp` builds.
pub(super) fn with_fs_on<F, Fut>(exp: Experiment, spec: FsSpec, body: F) -> RunOutput
where
    F: Fn(Fs, Host) -> Fut + 'static,
    Fut: Future<Output = ()> + 'static,
{
    let body = Rc::new(body);
    run_with(
        &exp,
        build_device(&exp),
        Inputs::default(),
        0,
        &mut |_| {},
        &move |host| {
            let fs = Fs::mount(host, &spec).expect("mounts");
            let h = host.clone();
            let body = body.clone();
            host.spawn("test", false, async move { body(fs, h).await });
        },
    )
    .expect("the run ends")
}

/// The reference: file contents by identity, names by path.
#[derive(Default)]
struct Model {
    data: BTreeMap<u32, Vec<u8>>,
    names: BTreeMap<String, u32>,
    dirs: BTreeSet<String>,
    next: u32,
}

impl Model {
    fn listing(&self, dir: &str) -> Vec<String> {
        let prefix = if dir == "/" {
            "/".to_string()
        } else {
            format!("{dir}/")
        };
        let mut out: Vec<String> = self
            .names
            .keys()
            .chain(self.dirs.iter())
            .filter(|p| p.starts_with(&prefix) && !p[prefix.len()..].contains('/') && **p != prefix)
            .map(|p| p[prefix.len()..].to_string())
            .filter(|n| !n.is_empty())
            .collect();
        out.sort();
        out
    }
}

/// Files stay below this, so the live data fits the tiny device.
const MAX_FILE: usize = 160 * 1024;

fn bytes(rng: &mut Pcg64Mcg, n: usize) -> Vec<u8> {
    (0..n).map(|_| rng.random::<u8>()).collect()
}

/// Reads a whole file through the layer.
async fn read_all(fs: &Fs, h: &Host, path: &str) -> Vec<u8> {
    let fd = fs.open(h, path, false).await.expect("opens");
    let size = fs.size(fd).unwrap();
    let mut buf = vec![0u8; size as usize];
    let n = fs.read(h, fd, 0, size, Some(&mut buf)).await.unwrap();
    assert_eq!(n, size);
    fs.close(h, fd).await.unwrap();
    buf
}

/// `steps` random operations on `fs`, checked against the model after each.
pub(super) async fn random_ops(fs: Fs, h: Host, seed: u64, steps: u32, append_only: bool) {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut m = Model::default();
    m.dirs.insert("/".into());
    // Open descriptors: (fd, identity, writable).
    let mut fds: Vec<(Fd, u32, bool)> = Vec::new();
    let mut dirs: Vec<String> = vec!["/".into()];
    for step in 0..steps {
        let op = rng.random_range(0..100u32);
        let dir = dirs[rng.random_range(0..dirs.len())].clone();
        let name = format!(
            "{}f{}",
            if dir == "/" {
                "/".into()
            } else {
                format!("{dir}/")
            },
            rng.random_range(0..12u32)
        );
        match op {
            0..=4 if dirs.len() < 5 => {
                let d = format!(
                    "{}d{}",
                    if dir == "/" {
                        "/".into()
                    } else {
                        format!("{dir}/")
                    },
                    rng.random_range(0..3u32)
                );
                let r = fs.mkdir(&h, &d).await;
                if m.dirs.contains(&d) || m.names.contains_key(&d) {
                    assert!(r.is_err(), "step {step}: mkdir {d} of an existing name");
                } else {
                    r.unwrap();
                    m.dirs.insert(d.clone());
                    dirs.push(d);
                }
            }
            5..=19 => {
                if m.dirs.contains(&name) {
                    continue;
                }
                let fd = fs
                    .create(&h, &name, CreateOptions::default())
                    .await
                    .unwrap();
                // A file already there is replaced (ZenFS) or truncated (F2FS): same contents.
                let id = match m.names.get(&name) {
                    Some(&id) if !append_only => id,
                    _ => {
                        m.next += 1;
                        m.next
                    }
                };
                m.data.insert(id, Vec::new());
                m.names.insert(name.clone(), id);
                fds.push((fd, id, true));
            }
            20..=44 if !fds.is_empty() => {
                let i = rng.random_range(0..fds.len());
                let (fd, id, w) = fds[i];
                let len = if rng.random_bool(0.2) {
                    rng.random_range(1..64 * 1024)
                } else {
                    rng.random_range(1..3 * 4096 + 100)
                };
                let d = bytes(&mut rng, len);
                let size = m.data[&id].len();
                let off = if append_only || rng.random_bool(0.5) {
                    size
                } else {
                    rng.random_range(0..size + 5000)
                };
                if off + len > MAX_FILE {
                    continue;
                }
                let r = fs.write(&h, fd, off as u64, len as u64, Some(&d)).await;
                if !w {
                    assert!(r.is_err(), "step {step}: write on a read-only descriptor");
                    continue;
                }
                if r == Err(FsError::NoSpace) {
                    // Refused before the cache took the data, or taken into the cache with the
                    // write-back it set off finding no room (see `Fs::write`): the file holds
                    // all of the data or none of it, and the model follows.
                    let mut got = vec![0u8; len];
                    let n = fs
                        .read(&h, fd, off as u64, len as u64, Some(&mut got))
                        .await
                        .unwrap() as usize;
                    let f = &m.data[&id];
                    if n == len && got == d {
                        let size = fs.size(fd).unwrap() as usize;
                        assert_eq!(size, f.len().max(off + len), "step {step}: size");
                    } else {
                        assert_eq!(fs.size(fd).unwrap() as usize, f.len(), "step {step}: size");
                        continue;
                    }
                } else {
                    r.unwrap();
                }
                let f = m.data.get_mut(&id).unwrap();
                if f.len() < off + len {
                    f.resize(off + len, 0);
                }
                f[off..off + len].copy_from_slice(&d);
            }
            45..=54 if !fds.is_empty() => {
                let (fd, id, _) = fds[rng.random_range(0..fds.len())];
                let f = &m.data[&id];
                let off = rng.random_range(0..f.len() + 10);
                let len = rng.random_range(1..20000);
                let mut buf = vec![0u8; len];
                let n = fs
                    .read(&h, fd, off as u64, len as u64, Some(&mut buf))
                    .await
                    .unwrap();
                let want = f.len().saturating_sub(off).min(len);
                assert_eq!(n as usize, want, "step {step}: read length");
                if want > 0 {
                    assert_eq!(&buf[..want], &f[off..off + want], "step {step}: read bytes");
                }
            }
            55..=62 if !fds.is_empty() => {
                let (fd, _, _) = fds[rng.random_range(0..fds.len())];
                let r = fs.fsync(&h, fd).await;
                assert!(
                    matches!(r, Ok(()) | Err(FsError::NoSpace)),
                    "step {step}: {r:?}"
                );
            }
            63..=72 if !fds.is_empty() => {
                let i = rng.random_range(0..fds.len());
                let (fd, id, _) = fds.swap_remove(i);
                // Closed either way; NoSpace leaves the file's data in the cache, as fsync's.
                let r = fs.close(&h, fd).await;
                assert!(
                    matches!(r, Ok(()) | Err(FsError::NoSpace)),
                    "step {step}: {r:?}"
                );
                if !m.names.values().any(|&v| v == id) && !fds.iter().any(|f| f.1 == id) {
                    m.data.remove(&id);
                }
            }
            73..=80 => {
                let Some(&id) = m.names.get(&name) else {
                    continue;
                };
                // ZenFS allows one writer per file; reopen read-only there.
                let write = !append_only && rng.random_bool(0.5);
                let fd = fs.open(&h, &name, write).await.unwrap();
                fds.push((fd, id, write));
            }
            81..=86 => {
                let Some(&id) = m.names.get(&name) else {
                    assert!(
                        fs.delete(&h, &name).await.is_err(),
                        "step {step}: delete of nothing"
                    );
                    continue;
                };
                if append_only && fds.iter().any(|f| f.1 == id && f.2) {
                    continue;
                }
                fs.delete(&h, &name).await.unwrap();
                m.names.remove(&name);
                if !fds.iter().any(|f| f.1 == id) {
                    m.data.remove(&id);
                }
            }
            87..=92 => {
                let Some(&id) = m.names.get(&name) else {
                    continue;
                };
                let to_dir = dirs[rng.random_range(0..dirs.len())].clone();
                let to = format!(
                    "{}g{}",
                    if to_dir == "/" {
                        "/".into()
                    } else {
                        format!("{to_dir}/")
                    },
                    rng.random_range(0..6u32)
                );
                if m.dirs.contains(&to) {
                    continue;
                }
                if let Some(&old) = m.names.get(&to)
                    && old != id
                    && append_only
                    && fds.iter().any(|f| f.1 == old && f.2)
                {
                    continue;
                }
                fs.rename(&h, &name, &to).await.unwrap();
                m.names.remove(&name);
                if let Some(old) = m.names.insert(to.clone(), id)
                    && old != id
                    && !fds.iter().any(|f| f.1 == old)
                {
                    m.data.remove(&old);
                }
            }
            93..=95 => fs.drop_caches(),
            _ => {}
        }
        // After every step: listings and sizes; the layer's maps against its zones.
        for d in &m.dirs {
            assert_eq!(
                fs.list(d).unwrap(),
                m.listing(d),
                "step {step}: listing of {d}"
            );
        }
        for (path, id) in &m.names {
            let s = fs.stat_now(path).unwrap();
            assert_eq!(
                s.size,
                m.data[id].len() as u64,
                "step {step}: size of {path}"
            );
        }
        fs.check();
        if step % 16 == 15 {
            fs.drop_caches();
            for (path, id) in m.names.clone() {
                assert_eq!(
                    read_all(&fs, &h, &path).await,
                    m.data[&id],
                    "step {step}: {path}"
                );
            }
        }
    }
    for (fd, _, _) in fds {
        let r = fs.close(&h, fd).await;
        assert!(matches!(r, Ok(()) | Err(FsError::NoSpace)), "{r:?}");
    }
    fs.check();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, .. ProptestConfig::default() })]

    #[test]
    fn f2fs_files_behave_like_the_reference(seed in any::<u64>()) {
        let out = with_fs(tiny_f2fs(GcPolicyKind::Native), None, move |fs, h| async move {
            random_ops(fs, h, seed, 600, false).await;
        });
        prop_assert!(out.summary.errors.is_empty(), "{:?}", out.summary.errors);
        out.device.check_invariants();
    }

    #[test]
    fn zenfs_files_behave_like_the_reference(seed in any::<u64>()) {
        let out = with_fs(tiny_zenfs(false), None, move |fs, h| async move {
            random_ops(fs, h, seed, 600, true).await;
        });
        prop_assert!(out.summary.errors.is_empty(), "{:?}", out.summary.errors);
        out.device.check_invariants();
    }
}

/// Fills `files` files of `blocks` blocks, then overwrites random blocks in batches with an
/// fsync after each, checking the layer after every batch and the contents every 16 batches.
async fn overwrite(fs: Fs, h: Host, seed: u64, files: u32, blocks: u64, batches: u32) {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let b = BLOCK_BYTES as usize;
    let mut model: Vec<Vec<u8>> = Vec::new();
    let mut fds = Vec::new();
    for f in 0..files {
        let fd = fs
            .create(&h, &format!("/d{f}"), CreateOptions::default())
            .await
            .unwrap();
        let d = bytes(&mut rng, blocks as usize * b);
        fs.write(&h, fd, 0, d.len() as u64, Some(&d)).await.unwrap();
        fs.fsync(&h, fd).await.unwrap();
        model.push(d);
        fds.push(fd);
    }
    for batch in 0..batches {
        let f = rng.random_range(0..files as usize);
        for _ in 0..8 {
            let blk = rng.random_range(0..blocks as usize);
            let d = bytes(&mut rng, b);
            fs.write(&h, fds[f], (blk * b) as u64, b as u64, Some(&d))
                .await
                .unwrap();
            model[f][blk * b..(blk + 1) * b].copy_from_slice(&d);
        }
        fs.fsync(&h, fds[f]).await.unwrap();
        fs.check();
        if batch % 16 == 15 {
            fs.drop_caches();
            for (i, want) in model.iter().enumerate() {
                let mut buf = vec![0u8; want.len()];
                fs.read(&h, fds[i], 0, want.len() as u64, Some(&mut buf))
                    .await
                    .unwrap();
                if buf != *want {
                    let first = (0..want.len() / b)
                        .find(|k| buf[k * b..(k + 1) * b] != want[k * b..(k + 1) * b]);
                    let bad = (0..want.len() / b)
                        .filter(|k| buf[k * b..(k + 1) * b] != want[k * b..(k + 1) * b])
                        .count();
                    panic!(
                        "batch {batch}: file {i} differs: {bad} blocks, first {first:?}; zero block: {}",
                        first.is_some_and(|k| buf[k * b..(k + 1) * b].iter().all(|&x| x == 0))
                    );
                }
            }
        }
    }
}

fn gc_report(out: &RunOutput) -> FsReport {
    out.summary.layers["fs"].file_layer().unwrap().clone()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3, .. ProptestConfig::default() })]

    /// Every GC policy, with random overwrites filling the device several times over: contents
    /// survive, every mapped block stays live and owned (checked after every batch), and GC
    /// copies no more blocks than its victims held live when chosen.
    #[test]
    fn gc_policies_lose_no_live_block_and_copy_no_dead_one(seed in any::<u64>()) {
        for (policy, separate, survivors) in [
            (GcPolicyKind::Native, true, Survivors::GcLog),
            (GcPolicyKind::BasicZgc, true, Survivors::GcLog),
            (GcPolicyKind::LsmZgc, true, Survivors::GcLog),
            (GcPolicyKind::LsmZgc, false, Survivors::GcLog),
            (GcPolicyKind::LsmZgc, false, Survivors::UserLog),
        ] {
            let mut spec = tiny_f2fs(policy);
            spec.gc.separate = separate;
            spec.gc.survivors = survivors;
            spec.gc.victim = if seed % 2 == 0 { Victim::Greedy } else { Victim::CostBenefit };
            let out = with_fs(spec, None, move |fs, h| async move {
                overwrite(fs, h, seed, 4, 160, 300).await;
            });
            prop_assert!(out.summary.errors.is_empty(), "{policy:?}: {:?}", out.summary.errors);
            let r = gc_report(&out);
            prop_assert!(r.gc.zones_collected > 0, "{policy:?} collected nothing");
            prop_assert!(r.gc.bytes_written <= r.gc.bytes_read);
            if policy == GcPolicyKind::LsmZgc && !separate {
                // Survivors in a log of their own (C1C), or in the user's data logs.
                let own_log = r.gc.c1c_bytes > 0;
                prop_assert_eq!(own_log, survivors == Survivors::GcLog, "{:?}", r.gc);
            }
            out.device.check_invariants();
        }
    }
}

/// ZenFS with its GC on: files created, appended, closed and deleted until free space is short;
/// the GC worker migrates live extents and resets the zones it empties; contents survive.
#[test]
fn zenfs_gc_migrates_live_extents_and_keeps_contents() {
    let out = with_fs(tiny_zenfs(true), None, |fs, h| async move {
        let mut rng = Pcg64Mcg::seed_from_u64(7);
        let mut live: Vec<(String, Vec<u8>)> = Vec::new();
        for i in 0..400u32 {
            let path = format!("/f{i}");
            let fd = fs
                .create(&h, &path, CreateOptions::default())
                .await
                .unwrap();
            let n = rng.random_range(2..40usize) * BLOCK_BYTES as usize;
            let d = bytes(&mut rng, n);
            match fs.append(&h, fd, n as u64, Some(&d)).await {
                Ok(_) => {}
                Err(FsError::NoSpace) => {
                    let _ = fs.close(&h, fd).await;
                    fs.delete(&h, &path).await.unwrap();
                    continue;
                }
                Err(e) => panic!("{e}"),
            }
            match fs.close(&h, fd).await {
                Ok(()) => live.push((path, d)),
                Err(FsError::NoSpace) => fs.delete(&h, &path).await.unwrap(),
                Err(e) => panic!("{e}"),
            }
            // Keep about 70% of the device live: delete random old files.
            while live.iter().map(|l| l.1.len()).sum::<usize>() > 5 << 20 {
                let k = rng.random_range(0..live.len());
                let (p, _) = live.swap_remove(k);
                fs.delete(&h, &p).await.unwrap();
            }
            h.sleep(crate::time::Duration::from_ms(5)).await;
            fs.check();
        }
        for (p, d) in &live {
            assert!(read_all(&fs, &h, p).await == *d, "{p}");
        }
    });
    assert!(out.summary.errors.is_empty(), "{:?}", out.summary.errors);
    let r = gc_report(&out);
    assert!(r.gc.zones_collected > 0, "ZenFS's GC ran: {:?}", r.gc);
    assert!(r.zone_resets > 0);
    out.device.check_invariants();
}

/// Many writers at once under open and active limits of 6: F2FS keeps its six logs, ZenFS its
/// tokens (6 less 2 reserved); the device never sees more than 6 active zones and no command
/// fails.
#[test]
fn zone_limits_hold_under_many_concurrent_writers() {
    for spec in [tiny_f2fs(GcPolicyKind::Native), tiny_zenfs(false)] {
        let zenfs = matches!(spec.personality, Personality::Zenfs(_));
        let exp = experiment(Some(6));
        let out = run_with(
            &exp,
            build_device(&exp),
            Inputs::default(),
            0,
            &mut |_| {},
            &move |host| {
                let fs = Fs::mount(host, &spec).expect("mounts");
                for t in 0..24u32 {
                    let (fs, h) = (fs.clone(), host.for_tenant("w", &format!("w{t}")));
                    host.spawn(&format!("w{t}"), false, async move {
                        let mut rng = Pcg64Mcg::seed_from_u64(t as u64);
                        for i in 0..8u32 {
                            let path = format!("/w{t}-{i}");
                            let fd = fs
                                .create(&h, &path, CreateOptions::default())
                                .await
                                .unwrap();
                            for _ in 0..rng.random_range(1..4u32) {
                                let n = rng.random_range(1..5u64) * BLOCK_BYTES;
                                fs.append(&h, fd, n, None).await.unwrap();
                                if !zenfs {
                                    fs.fsync(&h, fd).await.unwrap();
                                }
                            }
                            fs.close(&h, fd).await.unwrap();
                            if i % 4 != 0 {
                                fs.delete(&h, &path).await.unwrap();
                            }
                        }
                    });
                }
                let (fs, h) = (fs.clone(), host.clone());
                host.spawn("checker", true, async move {
                    loop {
                        h.sleep(crate::time::Duration::from_us(200)).await;
                        fs.check();
                    }
                });
            },
        )
        .expect("no deadlock");
        let c = &out.summary.device_counters.counters;
        assert!(out.summary.errors.is_empty(), "{:?}", out.summary.errors);
        assert!(c.active_zones_max <= 6, "{} active", c.active_zones_max);
        assert!(c.open_zones_max <= 6);
        assert!(
            c.active_zones_max >= 2,
            "writers used several zones at once"
        );
        out.device.check_invariants();
    }
}

/// `posix_fadvise(DONTNEED)` drops the file's clean pages and keeps its dirty ones (and other
/// files' pages); the file reads back whole.
#[test]
fn fadvise_dontneed_drops_only_the_files_clean_pages() {
    let mut spec = tiny_f2fs(GcPolicyKind::None);
    spec.cache.page_cache_bytes = 1024 * BLOCK_BYTES;
    let out = with_fs(spec, None, |fs, h| async move {
        let b = BLOCK_BYTES as usize;
        let a = fs.create(&h, "/a", CreateOptions::default()).await.unwrap();
        let other = fs.create(&h, "/b", CreateOptions::default()).await.unwrap();
        let mut want = vec![1u8; 8 * b];
        fs.write(&h, a, 0, want.len() as u64, Some(&want))
            .await
            .unwrap();
        fs.write(&h, other, 0, 4 * b as u64, Some(&vec![2u8; 4 * b]))
            .await
            .unwrap();
        fs.fsync(&h, a).await.unwrap();
        fs.fsync(&h, other).await.unwrap();
        // Two pages of /a dirty again.
        let d = vec![3u8; 2 * b];
        fs.write(&h, a, 0, d.len() as u64, Some(&d)).await.unwrap();
        want[..2 * b].copy_from_slice(&d);
        let pages = |fs: &Fs| fs.inner.st.borrow().cached_pages;
        let before = pages(&fs);
        fs.fadvise_dontneed(a).unwrap();
        assert_eq!(
            before - pages(&fs),
            6,
            "/a's 6 clean pages go; its 2 dirty ones and /b's stay"
        );
        fs.fadvise_dontneed(a).unwrap();
        assert_eq!(before - pages(&fs), 6, "nothing more to drop");
        let mut buf = vec![0u8; want.len()];
        fs.read(&h, a, 0, want.len() as u64, Some(&mut buf))
            .await
            .unwrap();
        assert!(buf == want, "/a reads back");
        assert!(matches!(
            fs.fadvise_dontneed(Fd(99)),
            Err(FsError::BadFd(99))
        ));
    });
    assert!(out.summary.errors.is_empty(), "{:?}", out.summary.errors);
}

/// `unmount` leaves nothing in the page cache or a ZenFS buffer: files written and left open,
/// never synced, are on the device afterwards (they read back the same once the cache is
/// dropped); F2FS has made a checkpoint, ZenFS has persisted the files' metadata.
#[test]
fn unmount_leaves_nothing_unwritten() {
    for spec in [tiny_f2fs(GcPolicyKind::Native), tiny_zenfs(false)] {
        let zenfs = matches!(spec.personality, Personality::Zenfs(_));
        let out = with_fs(spec, None, move |fs, h| async move {
            let mut rng = Pcg64Mcg::seed_from_u64(7);
            let mut files = Vec::new();
            for f in 0..6 {
                let fd = fs
                    .create(&h, &format!("/u{f}"), CreateOptions::default())
                    .await
                    .unwrap();
                let d = bytes(&mut rng, 3 * BLOCK_BYTES as usize);
                fs.append(&h, fd, d.len() as u64, Some(&d)).await.unwrap();
                files.push((fd, d));
            }
            let before = fs.report();
            assert!(
                fs.inner.st.borrow().dirty_pages > 0,
                "something to write back"
            );
            fs.unmount(&h).await.unwrap();
            let after = fs.report();
            assert_eq!(fs.inner.st.borrow().dirty_pages, 0, "zenfs: {zenfs}");
            assert!(after.data_bytes_written > before.data_bytes_written);
            if zenfs {
                assert!(after.metadata_records > before.metadata_records);
            } else {
                assert_eq!(after.checkpoints, before.checkpoints + 1);
            }
            fs.check();
            fs.drop_caches();
            for (i, (fd, want)) in files.iter().enumerate() {
                let mut buf = vec![0u8; want.len()];
                fs.read(&h, *fd, 0, want.len() as u64, Some(&mut buf))
                    .await
                    .unwrap();
                assert!(buf == *want, "file {i} differs (zenfs: {zenfs})");
            }
        });
        assert!(out.summary.errors.is_empty(), "{:?}", out.summary.errors);
    }
}
