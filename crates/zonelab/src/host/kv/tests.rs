//! The store against a reference map: every key readable after its put until overwritten or
//! deleted (with retention), levels within their targets once compactions settle, no overlap
//! within a level above L0, trivial moves for sequential keys, determinism.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::*;
use crate::config::ExperimentConfig;
use crate::experiment::{Experiment, Inputs, build_device, run_with};
use crate::testing::fixtures::TinyDevice;

fn experiment() -> Experiment {
    ExperimentConfig::parse(
        &TinyDevice {
            max_open_zones: 0,
            max_active_zones: 0,
            ..TinyDevice::default()
        }
        .toml(),
        &[],
    )
    .unwrap()
    .validate_device("kv")
    .unwrap()
}

/// Runs `body` as one host task on the tiny device (the store's files cost no device time).
fn run_task<T: 'static>(
    body: impl Fn(Host) -> std::pin::Pin<Box<dyn std::future::Future<Output = T>>> + 'static,
) -> T {
    let exp = experiment();
    let out: Rc<RefCell<Option<T>>> = Rc::new(RefCell::new(None));
    let o = out.clone();
    let body = Rc::new(body);
    run_with(
        &exp,
        build_device(&exp),
        Inputs::default(),
        0,
        &mut |_| {},
        &move |h: &Host| {
            let (o, body, h2) = (o.clone(), body.clone(), h.clone());
            h.spawn("test", false, async move {
                let v = body(h2).await;
                *o.borrow_mut() = Some(v);
            });
        },
    )
    .expect("the run finishes");
    out.take().expect("the task finished")
}

/// Small sizes so a few thousand puts build several levels.
fn small_options() -> KvOptions {
    KvOptions {
        write_buffer_size: 64 << 10,
        target_file_size_base: 64 << 10,
        max_bytes_for_level_base: 256 << 10,
        max_bytes_for_level_multiplier: 4.0,
        level0_file_num_compaction_trigger: 2,
        level0_slowdown_writes_trigger: 6,
        level0_stop_writes_trigger: 10,
        cache_size: 64 << 10,
        bloom_bits: 10,
        retain_values: true,
        ..KvOptions::default()
    }
}

const KEY: KeyFormat = KeyFormat {
    key_size: 16,
    prefix_len: 0,
};

fn value(key: u64, version: u64, len: u32) -> Payload {
    let mut v = vec![0u8; len as usize];
    let tag = (key << 20) ^ version;
    for (i, b) in v.iter_mut().enumerate() {
        *b = (tag.rotate_left(i as u32 % 64) & 0xff) as u8;
    }
    v.into()
}

#[derive(Debug, PartialEq)]
struct Outcome {
    stats: KvStats,
    mismatches: Vec<String>,
    level_problems: Vec<String>,
}

/// Random puts, overwrites, deletes and gets over `keys` keys, checked against a map.
fn random_ops(seed: u64, ops: u64, keys: u64) -> Outcome {
    run_task(move |h| {
        Box::pin(async move {
            let files = Rc::new(MemFiles::new());
            let opts = small_options();
            let db = Db::open(&h, files, opts.clone(), KEY, "/db", "kv")
                .await
                .unwrap();
            let mut rng = Pcg64Mcg::seed_from_u64(seed);
            let mut model: BTreeMap<u64, Payload> = BTreeMap::new();
            let mut mismatches = Vec::new();
            let mut version = 0u64;
            for n in 0..ops {
                let key = rng.random_range(0..keys);
                match rng.random_range(0..10u32) {
                    0..=5 => {
                        version += 1;
                        let len = rng.random_range(1..200u32);
                        let v = value(key, version, len);
                        db.put(&h, key, len, Some(v.clone())).await.unwrap();
                        model.insert(key, v);
                    }
                    6 => {
                        db.delete(&h, key).await.unwrap();
                        model.remove(&key);
                    }
                    _ => {
                        let got = db.get(&h, key).await.unwrap();
                        let want = model.get(&key);
                        let ok = match (&got, want) {
                            (None, None) => true,
                            (Some(f), Some(w)) => {
                                f.vlen as usize == w.len() && f.payload.as_ref() == Some(w)
                            }
                            _ => false,
                        };
                        if !ok && mismatches.len() < 10 {
                            mismatches.push(format!("op {n}: key {key} got {got:?}"));
                        }
                    }
                }
                if n % 997 == 0 {
                    db.check().unwrap();
                }
            }
            db.flush(&h).await.unwrap();
            db.wait_for_compactions(&h).await.unwrap();
            db.check().unwrap();
            for key in 0..keys {
                let got = db.get(&h, key).await.unwrap();
                let ok = match (&got, model.get(&key)) {
                    (None, None) => true,
                    (Some(f), Some(w)) => f.payload.as_ref() == Some(w),
                    _ => false,
                };
                if !ok && mismatches.len() < 20 {
                    mismatches.push(format!("settled: key {key} got {got:?}"));
                }
            }
            let v = db.version();
            let mut level_problems = Vec::new();
            if v.levels[0].len() >= opts.level0_file_num_compaction_trigger as usize {
                level_problems.push(format!("L0 holds {} files", v.levels[0].len()));
            }
            for l in 1..v.num_levels() - 1 {
                let (b, t) = (v.level_bytes(l), opts.max_bytes_for_level(l));
                if b > t {
                    level_problems.push(format!("L{l} {b} B over its target {t} B"));
                }
            }
            Outcome {
                stats: db.stats(),
                mismatches,
                level_problems,
            }
        })
    })
}

#[test]
fn every_key_reads_back_its_last_value_until_overwritten_or_deleted() {
    let o = random_ops(7, 30_000, 3_000);
    assert!(o.mismatches.is_empty(), "{:#?}", o.mismatches);
    assert!(o.level_problems.is_empty(), "{:?}", o.level_problems);
    let s = &o.stats;
    assert!(s.flushes > 10, "{s:?}");
    assert!(s.compactions > 5, "{s:?}");
    assert!(
        s.files_per_level.iter().skip(2).any(|&n| n > 0),
        "the tree grew past L1: {:?}",
        s.files_per_level
    );
    assert!(s.filter_skips > 0, "bloom filters skip files");
}

#[test]
fn the_same_seed_gives_the_same_store() {
    assert_eq!(random_ops(3, 8_000, 1_000), random_ops(3, 8_000, 1_000));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(8))]
    #[test]
    fn reads_match_the_reference_for_any_seed(seed in 0u64..1_000_000, keys in 50u64..5_000) {
        let o = random_ops(seed, 6_000, keys);
        proptest::prop_assert!(o.mismatches.is_empty(), "{:#?}", o.mismatches);
        proptest::prop_assert!(o.level_problems.is_empty(), "{:?}", o.level_problems);
    }
}

#[test]
fn sequential_keys_move_down_without_rewriting() {
    let stats = run_task(|h| {
        Box::pin(async move {
            let mut opts = small_options();
            opts.bloom_bits = 0;
            opts.retain_values = false;
            let db = Db::open(&h, Rc::new(MemFiles::new()), opts, KEY, "/db", "kv")
                .await
                .unwrap();
            for k in 0..20_000 {
                db.put(&h, k, 100, None).await.unwrap();
            }
            db.flush(&h).await.unwrap();
            db.wait_for_compactions(&h).await.unwrap();
            db.check().unwrap();
            db.stats()
        })
    });
    assert_eq!(stats.compactions, 0, "{stats:?}");
    assert!(stats.trivial_moves > 3, "{stats:?}");
    assert_eq!(stats.compaction_write_bytes, 0);
}

/// 5,000 puts of 100 B in a scattered key order, then a flush and every compaction it leads
/// to: the files left and the store's counters.
fn puts_then_settle() -> (Rc<MemFiles>, KvStats) {
    run_task(|h| {
        Box::pin(async move {
            let files = Rc::new(MemFiles::new());
            let db = Db::open(&h, files.clone(), small_options(), KEY, "/db", "kv")
                .await
                .unwrap();
            for k in 0..5_000u64 {
                db.put(&h, k * 7919 % 5_000, 100, None).await.unwrap();
            }
            db.flush(&h).await.unwrap();
            db.wait_for_compactions(&h).await.unwrap();
            (files, db.stats())
        })
    })
}

#[test]
fn wal_files_go_once_their_memtable_is_flushed() {
    let (files, stats) = puts_then_settle();
    let live = files.list();
    let logs: Vec<_> = live.iter().filter(|(p, _)| p.ends_with(".log")).collect();
    assert_eq!(logs.len(), 1, "only the active memtable's log: {logs:?}");
    let ssts: u64 = live
        .iter()
        .filter(|(p, _)| p.ends_with(".sst"))
        .map(|(_, s)| s)
        .sum();
    assert_eq!(ssts, stats.bytes_per_level.iter().sum::<u64>());
    assert_eq!(stats.wal_bytes, 5_000 * 131);
    assert!(stats.bytes_by_hint[WriteHint::Short as usize] > 0);
    assert!(stats.bytes_by_hint[WriteHint::Medium as usize] > 0);
}

/// RocksDB fsyncs the database directory once a flush or a compaction has written its tables
/// (on F2FS that is a checkpoint); a trivial move writes none.
#[test]
fn each_flush_and_compaction_ends_with_a_directory_fsync() {
    let (files, stats) = puts_then_settle();
    let syncs = files.dir_syncs();
    assert!(stats.flushes > 1 && stats.compactions > 1, "{stats:?}");
    assert_eq!(syncs, stats.flushes + stats.compactions);
}

#[test]
fn writes_stop_when_flushes_cannot_keep_up() {
    // One flush thread that takes long (a costly flush CPU) behind fast writes.
    let stats = run_task(|h| {
        Box::pin(async move {
            let mut opts = small_options();
            opts.cpu.flush_per_byte_ns = 2_000.0;
            let db = Db::open(&h, Rc::new(MemFiles::new()), opts, KEY, "/db", "kv")
                .await
                .unwrap();
            for k in 0..5_000u64 {
                db.put(&h, k, 100, None).await.unwrap();
            }
            db.stats()
        })
    });
    assert!(stats.stall_stops > 0, "{stats:?}");
    assert!(stats.stall_ns > 0);
}
