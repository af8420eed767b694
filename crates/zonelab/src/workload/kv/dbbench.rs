//! RocksDB's db_bench (tools/db_bench_tool.cc, v7.8.3) on the key-value store model: the
//! benchmarks named in `benchmarks`, one after another on one store, each run by `threads`
//! threads (readwhilewriting adds its writer), with db_bench's knobs and its meanings:
//!
//! - `fillrandom`, `overwrite`: `num` puts per thread of keys uniform in [0, num), duplicates
//!   possible; `fillseq`: keys 0..num in order; `readrandom`: `reads` gets per thread of
//!   uniform keys; `readwhilewriting`: readers as readrandom and one writer putting uniform
//!   keys until they finish; `mixgraph`: `reads` operations per thread, Get/Put/Seek by the mix
//!   ratios, keys by the two-term exponential key ranges and power model, put value sizes and
//!   scan lengths by the Pareto models (`Benchmark::MixGraph`);
//! - `flush`, `waitforcompaction`: flush the memtables; wait until no compaction is due.
//!
//! Each thread draws from its own stream: db_bench seeds a thread with `seed` + the number of
//! benchmark threads started before it, so two benchmarks in one process never replay each
//! other's keys. Keys are `key_size` bytes (8 of them the key's big-endian id); values
//! `value_size` bytes.

use std::cell::Cell;
use std::rc::Rc;

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::dist::{TwoTermExpKeys, pareto};
use super::{FilesChoice, Phase, Shared};
use crate::host::kv::{Db, KeyFormat, KvFiles, KvOptions, MemFiles};
use crate::metrics::{Layer, OpKind};
use crate::sim::host::Host;
use crate::workload::FileLayers;
use crate::workload::mix_seed;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Benchmark {
    FillRandom,
    FillSeq,
    Overwrite,
    ReadRandom,
    ReadWhileWriting,
    MixGraph,
    Flush,
    WaitForCompaction,
}

impl Benchmark {
    pub const ALL: [(&'static str, Benchmark); 8] = [
        ("fillrandom", Benchmark::FillRandom),
        ("fillseq", Benchmark::FillSeq),
        ("overwrite", Benchmark::Overwrite),
        ("readrandom", Benchmark::ReadRandom),
        ("readwhilewriting", Benchmark::ReadWhileWriting),
        ("mixgraph", Benchmark::MixGraph),
        ("flush", Benchmark::Flush),
        ("waitforcompaction", Benchmark::WaitForCompaction),
    ];

    pub fn parse(name: &str) -> Option<Benchmark> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, b)| *b)
    }

    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, b)| *b == self)
            .map(|(n, _)| *n)
            .expect("every benchmark has a name")
    }
}

/// mixgraph's parameters (db_bench flags of the same names).
#[derive(Clone, Debug, PartialEq)]
pub struct MixGraph {
    pub get_ratio: f64,
    pub put_ratio: f64,
    pub seek_ratio: f64,
    pub key_dist_a: f64,
    pub key_dist_b: f64,
    pub keyrange_dist_a: f64,
    pub keyrange_dist_b: f64,
    pub keyrange_dist_c: f64,
    pub keyrange_dist_d: f64,
    pub keyrange_num: u64,
    pub value_theta: f64,
    pub value_k: f64,
    pub value_sigma: f64,
    pub iter_theta: f64,
    pub iter_k: f64,
    pub iter_sigma: f64,
    pub max_value_size: u64,
    pub max_scan_len: u64,
}

impl Default for MixGraph {
    /// The widely used ZippyDB-like set (docs/reference/host-stack.md (f)); db_bench's
    /// own defaults are all-gets and no key-range model.
    fn default() -> Self {
        MixGraph {
            get_ratio: 0.83,
            put_ratio: 0.14,
            seek_ratio: 0.03,
            key_dist_a: 0.002312,
            key_dist_b: 0.3467,
            keyrange_dist_a: 14.18,
            keyrange_dist_b: -2.917,
            keyrange_dist_c: 0.0164,
            keyrange_dist_d: -0.08082,
            keyrange_num: 30,
            value_theta: 0.0,
            value_k: 0.2615,
            value_sigma: 25.45,
            iter_theta: 0.0,
            iter_k: 2.517,
            iter_sigma: 14.236,
            max_value_size: 1024,
            max_scan_len: 10_000,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct DbBenchSpec {
    pub name: String,
    pub benchmarks: Vec<Benchmark>,
    pub num: u64,
    /// Gets per thread (readrandom, readwhilewriting) and operations (mixgraph); default num.
    pub reads: u64,
    pub key_size: u32,
    pub value_size: u32,
    pub threads: u32,
    pub seed: u64,
    /// Bytes per second the readwhilewriting writer may write (0: no limit).
    pub benchmark_write_rate_limit: u64,
    pub mix: MixGraph,
    pub options: KvOptions,
    pub files: FilesChoice,
    /// With files on the file layer: the namespace whose layer holds them.
    pub namespace: u32,
}

impl DbBenchSpec {
    /// Operations the benchmarks issue (for progress).
    fn total_ops(&self) -> u64 {
        self.benchmarks
            .iter()
            .map(|b| match b {
                Benchmark::FillRandom | Benchmark::FillSeq | Benchmark::Overwrite => {
                    self.num * self.threads as u64
                }
                Benchmark::ReadRandom | Benchmark::ReadWhileWriting | Benchmark::MixGraph => {
                    self.reads * self.threads as u64
                }
                _ => 0,
            })
            .sum::<u64>()
            .max(1)
    }
}

/// Starts db_bench on `host`.
/// With its files on the file layer, the store works on its namespace's layer.
pub fn spawn(spec: &DbBenchSpec, host: &Host, layers: &mut FileLayers) {
    match spec.files {
        FilesChoice::Memory => spawn_on(spec, host, Rc::new(MemFiles::new())),
        FilesChoice::Fs => {
            let host = host.on_namespace(spec.namespace);
            match layers.on(&host) {
                Ok(fs) => spawn_on(spec, &host, Rc::new(fs)),
                Err(e) => Shared::<MemFiles>::new(&host, &spec.name, spec.files).fail(e),
            }
        }
    }
}

/// Starts db_bench on `host` with the store's files in `files`.
pub fn spawn_on<F: KvFiles + 'static>(spec: &DbBenchSpec, host: &Host, files: Rc<F>) {
    let shared = Shared::<F>::new(host, &spec.name, spec.files);
    let spec = Rc::new(spec.clone());
    let h = host.clone();
    host.spawn(&spec.name.clone(), false, async move {
        let key = KeyFormat {
            key_size: spec.key_size,
            prefix_len: 0,
        };
        let dir = format!("/{}", spec.name);
        let db = match Db::open(&h, files, spec.options.clone(), key, &dir, &spec.name).await {
            Ok(db) => db,
            Err(e) => return shared.fail(e),
        };
        *shared.db.borrow_mut() = Some(db.clone());
        let run = Run {
            total: spec.total_ops(),
            h,
            db,
            spec,
            done: Rc::new(Cell::new(0u64)),
            shared,
        };
        let mut threads_started = 0u64;
        for &bench in &run.spec.benchmarks {
            if run.shared.failed() {
                break;
            }
            let phase = Phase::start(&run.h, bench.name());
            let before = run.done.get();
            match bench {
                Benchmark::Flush => {
                    if let Err(e) = run.db.flush(&run.h).await {
                        run.shared.fail(e);
                    }
                }
                Benchmark::WaitForCompaction => {
                    if let Err(e) = run.db.wait_for_compactions(&run.h).await {
                        run.shared.fail(e);
                    }
                }
                _ => run.threads(bench, &mut threads_started).await,
            }
            phase.end(&run.h, run.done.get() - before, &run.shared);
        }
        run.h.set_progress(1.0);
    });
}

/// What every benchmark of one db_bench run shares.
struct Run<F: KvFiles + 'static> {
    h: Host,
    db: Db<F>,
    spec: Rc<DbBenchSpec>,
    /// Operations done, every benchmark.
    done: Rc<Cell<u64>>,
    /// Operations in every benchmark, for the progress.
    total: u64,
    shared: Rc<Shared<F>>,
}

impl<F: KvFiles + 'static> Run<F> {
    /// A benchmark of `--threads` workers (and for readwhilewriting a writer beside them, until
    /// they end). Each thread takes the next of the run's random streams (`streams` counts those
    /// handed out).
    async fn threads(&self, bench: Benchmark, streams: &mut u64) {
        let (h, spec) = (&self.h, &self.spec);
        let mut tasks = Vec::new();
        let stop = Rc::new(Cell::new(false));
        for t in 0..spec.threads {
            let mut w = self.worker(bench, &format!("{t}"), streams);
            let (shared, stop) = (self.shared.clone(), stop.clone());
            let name = format!("{}.{}.{t}", spec.name, bench.name());
            tasks.push(h.spawn(&name, false, async move {
                if let Err(e) = w.run(bench, t).await {
                    shared.fail(e);
                }
                stop.set(true);
            }));
        }
        let writer = (bench == Benchmark::ReadWhileWriting).then(|| {
            let w = self.worker(bench, "writer", streams);
            let (shared, stop) = (self.shared.clone(), stop.clone());
            let name = format!("{}.{}.writer", spec.name, bench.name());
            h.spawn(&name, false, async move {
                if let Err(e) = w.background_writer(&stop).await {
                    shared.fail(e);
                }
            })
        });
        for t in tasks {
            h.join(t).await;
        }
        if let Some(w) = writer {
            h.join(w).await;
        }
    }

    /// A worker of `bench` named `who` in the run's tenant for it, on the next random stream.
    fn worker(&self, bench: Benchmark, who: &str, streams: &mut u64) -> Worker<F> {
        let stream = *streams;
        *streams += 1;
        let spec = &self.spec;
        Worker {
            db: self.db.clone(),
            h: self.h.for_tenant(
                &format!("{}.{}", spec.name, bench.name()),
                &format!("{}.{}.{who}", spec.name, bench.name()),
            ),
            spec: spec.clone(),
            rng: Pcg64Mcg::seed_from_u64(mix_seed(spec.seed, stream)),
            done: self.done.clone(),
            total: self.total,
            mixgen: None,
        }
    }
}

struct Worker<F: KvFiles + 'static> {
    db: Db<F>,
    h: Host,
    spec: Rc<DbBenchSpec>,
    rng: Pcg64Mcg,
    done: Rc<Cell<u64>>,
    total: u64,
    mixgen: Option<TwoTermExpKeys>,
}

impl<F: KvFiles + 'static> Worker<F> {
    fn tick(&self) {
        let d = self.done.get() + 1;
        self.done.set(d);
        if d.is_multiple_of(1024) {
            self.h.set_progress(d as f64 / self.total as f64);
        }
    }

    async fn run(&mut self, bench: Benchmark, thread: u32) -> Result<(), crate::host::kv::KvError> {
        let h = self.h.clone();
        let spec = self.spec.clone();
        let num = spec.num;
        let put_key = h.metric(Layer::Kv, OpKind::Put);
        let get_key = h.metric(Layer::Kv, OpKind::Get);
        let user = spec.key_size as u64 + spec.value_size as u64;
        match bench {
            Benchmark::FillRandom | Benchmark::Overwrite | Benchmark::FillSeq => {
                for i in 0..num {
                    let k = if bench == Benchmark::FillSeq {
                        i
                    } else {
                        self.rng.random_range(0..num)
                    };
                    let t0 = h.now();
                    self.db.put(&h, k, spec.value_size, None).await?;
                    h.record(put_key, t0, user);
                    self.tick();
                }
            }
            Benchmark::ReadRandom | Benchmark::ReadWhileWriting => {
                for _ in 0..spec.reads {
                    let k = self.rng.random_range(0..num);
                    let t0 = h.now();
                    let got = self.db.get(&h, k).await?;
                    h.record(
                        get_key,
                        t0,
                        got.map_or(0, |f| spec.key_size as u64 + f.vlen as u64),
                    );
                    self.tick();
                }
            }
            Benchmark::MixGraph => self.mixgraph(thread).await?,
            Benchmark::Flush | Benchmark::WaitForCompaction => {}
        }
        Ok(())
    }

    /// readwhilewriting's writer: random puts until the readers are done.
    async fn background_writer(
        mut self,
        stop: &Cell<bool>,
    ) -> Result<(), crate::host::kv::KvError> {
        let h = self.h.clone();
        let spec = self.spec.clone();
        let put_key = h.metric(Layer::Kv, OpKind::Put);
        let user = spec.key_size as u64 + spec.value_size as u64;
        let start = h.now();
        let mut written = 0u64;
        while !stop.get() {
            let k = self.rng.random_range(0..spec.num);
            let t0 = h.now();
            self.db.put(&h, k, spec.value_size, None).await?;
            h.record(put_key, t0, user);
            written += user;
            if spec.benchmark_write_rate_limit > 0 {
                let due = start
                    + crate::time::Duration::from_ns(
                        (written as u128 * 1_000_000_000 / spec.benchmark_write_rate_limit as u128)
                            as u64,
                    );
                h.sleep_until(due).await;
            }
        }
        Ok(())
    }

    async fn mixgraph(&mut self, _thread: u32) -> Result<(), crate::host::kv::KvError> {
        let h = self.h.clone();
        let spec = self.spec.clone();
        let m = &spec.mix;
        let num = spec.num;
        let prefix_model = m.keyrange_dist_a != 0.0
            || m.keyrange_dist_b != 0.0
            || m.keyrange_dist_c != 0.0
            || m.keyrange_dist_d != 0.0;
        if prefix_model && self.mixgen.is_none() {
            self.mixgen = Some(TwoTermExpKeys::new(
                num,
                m.keyrange_num,
                m.keyrange_dist_a,
                m.keyrange_dist_b,
                m.keyrange_dist_c,
                m.keyrange_dist_d,
            ));
        }
        let random_model = m.key_dist_a == 0.0 || m.key_dist_b == 0.0;
        // QueryDecider: the ratios mapped onto 1,000 slots.
        let sum = m.get_ratio + m.put_ratio + m.seek_ratio;
        let get_slots = (m.get_ratio / sum * 1000.0).round() as u64;
        let put_slots = (m.put_ratio / sum * 1000.0).round() as u64;
        let get_key = h.metric(Layer::Kv, OpKind::Get);
        let put_key = h.metric(Layer::Kv, OpKind::Put);
        let scan_key = h.metric(Layer::Kv, OpKind::Scan);
        let value_max = m.max_value_size.min(1 << 20) as i64;
        for _ in 0..spec.reads {
            let ini_rand: u64 = self.rng.random_range(0..num);
            let rand_v = ini_rand % num;
            let u = rand_v as f64 / num as f64;
            let key = if random_model {
                ini_rand
            } else if let Some(g) = &self.mixgen {
                g.key(ini_rand, m.key_dist_a, m.key_dist_b).min(num - 1)
            } else {
                let seed = (u / m.key_dist_a).powf(1.0 / m.key_dist_b).ceil() as u64;
                mix_seed(seed, 0x6d69_7867) % num
            };
            let slot = rand_v % 1000;
            let t0 = h.now();
            if slot < get_slots {
                let got = self.db.get(&h, key).await?;
                h.record(
                    get_key,
                    t0,
                    got.map_or(0, |f| spec.key_size as u64 + f.vlen as u64),
                );
            } else if slot < get_slots + put_slots {
                let v = mixgraph_value_size(m, u, value_max);
                self.db.put(&h, key, v, None).await?;
                h.record(put_key, t0, spec.key_size as u64 + v as u64);
            } else {
                let len = pareto(
                    u.max(f64::MIN_POSITIVE),
                    m.iter_theta,
                    m.iter_k,
                    m.iter_sigma,
                )
                .rem_euclid(m.max_scan_len.max(1) as i64) as usize;
                let n = self.db.scan(&h, key, len).await?;
                h.record(scan_key, t0, n as u64 * user_bytes(&spec));
            }
            self.tick();
        }
        Ok(())
    }
}

fn user_bytes(spec: &DbBenchSpec) -> u64 {
    spec.key_size as u64 + spec.value_size as u64
}

/// A put's value size in mixgraph: the Pareto draw of db_bench's `GenerateValueSize`, at
/// least 10 bytes, wrapped at the largest value.
fn mixgraph_value_size(m: &MixGraph, u: f64, value_max: i64) -> u32 {
    let mut v = pareto(
        u.max(f64::MIN_POSITIVE),
        m.value_theta,
        m.value_k,
        m.value_sigma,
    );
    if v < 10 {
        v = 10;
    } else if v > value_max {
        v %= value_max;
    }
    v as u32
}
