//! YCSB's core workloads (site.ycsb.workloads.CoreWorkload, brianfrankcooper/YCSB @d9faaac)
//! through YCSB's RocksDB binding (rocksdb/src/main/java/site/ycsb/db/rocksdb/
//! RocksDBClient.java) on the key-value store model.
//!
//! - Load: `recordcount` inserts, record numbers in order, keys `"user" + fnv64(n)`
//!   (insertorder=hashed), shared by `threadcount` threads.
//! - Run: `operationcount` operations, split over the threads, chosen by the proportions;
//!   keys by `requestdistribution`: `zipfian` (scrambled, constant 0.99, key space sized for
//!   the expected inserts), `latest` (skewed to the newest record), `uniform`. Scan lengths
//!   uniform in 1..=`maxscanlength`.
//! - Records: `fieldcount` fields of `fieldlength` bytes, which the binding serialises as
//!   length-prefixed name/value pairs: 10 x (4 + 6 + 4 + 100) = 1,140 bytes by default.
//! - The binding's update reads the record and puts it whole (RocksDBClient.update: get, merge
//!   the fields, put); read-modify-write is a read then an update: two gets and a put.
//!
//! Every operation is recorded as a [`Layer::Kv`] latency of the phase's tenant: reads as
//! `get`, then `update`, `insert`, `scan`, `read_modify_write`.

use std::cell::Cell;
use std::rc::Rc;

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::dist::{Latest, ScrambledZipfian, fnv64};
use super::{FilesChoice, Phase, Shared};
use crate::host::kv::{Db, KeyFormat, KvError, KvFiles, KvOptions, MemFiles};
use crate::metrics::{Layer, MetricKey, OpKind};
use crate::sim::host::Host;
use crate::workload::FileLayers;
use crate::workload::mix_seed;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Distribution {
    Zipfian,
    Latest,
    Uniform,
}

#[derive(Clone, Debug, PartialEq)]
pub struct YcsbSpec {
    pub name: String,
    /// Operation mix: read, update, insert, scan, read-modify-write proportions.
    pub read: f64,
    pub update: f64,
    pub insert: f64,
    pub scan: f64,
    pub read_modify_write: f64,
    pub distribution: Distribution,
    pub record_count: u64,
    pub operation_count: u64,
    pub field_count: u32,
    pub field_length: u32,
    pub max_scan_length: u32,
    pub threads: u32,
    /// Run the load phase (else the run phase starts on an empty store).
    pub load: bool,
    pub seed: u64,
    /// Key length: "user" and the hash's decimal digits (chosen 23: "user" + 19 digits, the
    /// length of most 63-bit hashes).
    pub key_size: u32,
    pub options: KvOptions,
    pub files: FilesChoice,
    /// With files on the file layer: the namespace whose layer holds them.
    pub namespace: u32,
}

impl YcsbSpec {
    /// The core workload `letter` (workloads/workload[a-f]) with YCSB's file defaults.
    pub fn core(letter: char) -> Option<YcsbSpec> {
        let (read, update, insert, scan, rmw, dist) = match letter.to_ascii_lowercase() {
            'a' => (0.5, 0.5, 0.0, 0.0, 0.0, Distribution::Zipfian),
            'b' => (0.95, 0.05, 0.0, 0.0, 0.0, Distribution::Zipfian),
            'c' => (1.0, 0.0, 0.0, 0.0, 0.0, Distribution::Zipfian),
            'd' => (0.95, 0.0, 0.05, 0.0, 0.0, Distribution::Latest),
            'e' => (0.0, 0.0, 0.05, 0.95, 0.0, Distribution::Zipfian),
            'f' => (0.5, 0.0, 0.0, 0.0, 0.5, Distribution::Zipfian),
            _ => return None,
        };
        Some(YcsbSpec {
            name: format!("ycsb-{}", letter.to_ascii_lowercase()),
            read,
            update,
            insert,
            scan,
            read_modify_write: rmw,
            distribution: dist,
            record_count: 1000,
            operation_count: 1000,
            field_count: 10,
            field_length: 100,
            max_scan_length: 100,
            threads: 1,
            load: true,
            seed: 1,
            key_size: 23,
            options: binding_options(4),
            files: FilesChoice::Memory,
            namespace: 0,
        })
    }

    /// Bytes of a record as the binding stores it.
    pub fn record_bytes(&self) -> u32 {
        (0..self.field_count)
            .map(|i| 4 + format!("field{i}").len() as u32 + 4 + self.field_length)
            .sum()
    }
}

/// The store options YCSB's RocksDB binding opens with: `optimizeLevelStyleCompaction()`
/// (512 MiB memtable budget: 128 MiB memtables, up to 6, two merged per flush, L0 trigger 2,
/// 64 MiB files, 512 MiB L1, compression from L2 on: options.cc
/// `OptimizeLevelStyleCompaction`) and `setMaxBackgroundCompactions(2 x cores)`. YCSB's values
/// are random printable bytes, which LZ4 and Snappy do not shrink by the 1/8 RocksDB needs to
/// keep a compressed block: the compression ratio stays 1 (chosen).
pub fn binding_options(cores: u32) -> KvOptions {
    let budget: u64 = 512 << 20;
    KvOptions {
        write_buffer_size: budget / 4,
        min_write_buffer_number_to_merge: 2,
        max_write_buffer_number: 6,
        level0_file_num_compaction_trigger: 2,
        target_file_size_base: budget / 8,
        max_bytes_for_level_base: budget,
        compression_per_level: vec![false, false, true, true, true, true, true],
        max_background_compactions: (2 * cores).min(256) as i32,
        ..KvOptions::default()
    }
}

/// Starts the workload on `host`.
/// With its files on the file layer, the store works on its namespace's layer.
pub fn spawn(spec: &YcsbSpec, host: &Host, layers: &mut FileLayers) {
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

#[derive(Clone, Copy)]
enum Op {
    Read,
    Update,
    Insert,
    Scan,
    Rmw,
}

struct Keys {
    /// Next record number to insert.
    next_insert: Cell<u64>,
}

/// Starts the workload on `host` with the store's files in `files`.
pub fn spawn_on<F: KvFiles + 'static>(spec: &YcsbSpec, host: &Host, files: Rc<F>) {
    let shared = Shared::<F>::new(host, &spec.name, spec.files);
    let spec = Rc::new(spec.clone());
    let h = host.clone();
    host.spawn(&spec.name.clone(), false, async move {
        let key = KeyFormat {
            key_size: spec.key_size,
            prefix_len: 4,
        };
        let dir = format!("/{}", spec.name);
        let db = match Db::open(&h, files, spec.options.clone(), key, &dir, &spec.name).await {
            Ok(db) => db,
            Err(e) => return shared.fail(e),
        };
        *shared.db.borrow_mut() = Some(db.clone());
        let total = (if spec.load { spec.record_count } else { 0 } + spec.operation_count).max(1);
        let run = Phases {
            h,
            db,
            spec,
            keys: Rc::new(Keys {
                next_insert: Cell::new(0),
            }),
            done: Rc::new(Cell::new(0u64)),
            total,
            shared,
        };
        if run.spec.load {
            run.load().await;
        } else {
            run.keys.next_insert.set(run.spec.record_count);
        }
        if run.shared.failed() {
            return;
        }
        run.run().await;
        run.h.set_progress(1.0);
    });
}

/// What the load and run phases of one store share.
struct Phases<F: KvFiles + 'static> {
    h: Host,
    db: Db<F>,
    spec: Rc<YcsbSpec>,
    keys: Rc<Keys>,
    /// Operations done, both phases.
    done: Rc<Cell<u64>>,
    /// Operations in both phases (at least 1), for the progress.
    total: u64,
    shared: Rc<Shared<F>>,
}

impl<F: KvFiles + 'static> Phases<F> {
    /// Runs phase `phase` on the spec's threads, each a task of the phase's tenant: `body(t,
    /// host)` makes thread `t`'s work (a failure fails the workload); waits for all of them.
    async fn on_threads<Fut>(&self, phase: &str, body: impl Fn(u32, Host) -> Fut)
    where
        Fut: std::future::Future<Output = Result<(), KvError>> + 'static,
    {
        let (h, name) = (&self.h, &self.spec.name);
        let mut tasks = Vec::new();
        for t in 0..self.spec.threads {
            let th = h.for_tenant(&format!("{name}.{phase}"), &format!("{name}.{phase}.{t}"));
            let work = body(t, th);
            let shared = self.shared.clone();
            tasks.push(h.spawn(&format!("{name}.{phase}.{t}"), false, async move {
                if let Err(e) = work.await {
                    shared.fail(e);
                }
            }));
        }
        for t in tasks {
            h.join(t).await;
        }
    }

    /// The load phase: `recordcount` inserts shared by the threads.
    async fn load(&self) {
        let phase = Phase::start(&self.h, "load");
        let total = self.total;
        self.on_threads("load", |_, th| {
            let (db, spec, keys, done) = self.handles();
            async move { load(&db, &th, &spec, &keys, &done, total).await }
        })
        .await;
        phase.end(&self.h, self.done.get(), &self.shared);
    }

    /// The run phase: `operationcount` operations split over the threads, each thread with a
    /// random stream of its own.
    async fn run(&self) {
        let phase = Phase::start(&self.h, "run");
        let before = self.done.get();
        let (spec, total) = (&self.spec, self.total);
        let per = spec.operation_count / spec.threads as u64;
        self.on_threads("run", |t, th| {
            let ops = per
                + if t == 0 {
                    spec.operation_count % spec.threads as u64
                } else {
                    0
                };
            let rng = Pcg64Mcg::seed_from_u64(mix_seed(spec.seed, t as u64));
            let (db, spec, keys, done) = self.handles();
            async move {
                Client::new(db, th, spec, keys, rng)
                    .run(ops, &done, total)
                    .await
            }
        })
        .await;
        phase.end(&self.h, self.done.get() - before, &self.shared);
    }

    /// What a thread's task holds of the store: the database, the spec, the key counter and
    /// the operations done.
    fn handles(&self) -> (Db<F>, Rc<YcsbSpec>, Rc<Keys>, Rc<Cell<u64>>) {
        (
            self.db.clone(),
            self.spec.clone(),
            self.keys.clone(),
            self.done.clone(),
        )
    }
}

fn key_of(record: u64) -> u64 {
    fnv64(record)
}

async fn load<F: KvFiles + 'static>(
    db: &Db<F>,
    h: &Host,
    spec: &YcsbSpec,
    keys: &Keys,
    done: &Cell<u64>,
    total: u64,
) -> Result<(), KvError> {
    let insert = h.metric(Layer::Kv, OpKind::Insert);
    let vlen = spec.record_bytes();
    let user = spec.key_size as u64 + vlen as u64;
    loop {
        let n = keys.next_insert.get();
        if n >= spec.record_count {
            return Ok(());
        }
        keys.next_insert.set(n + 1);
        let t0 = h.now();
        db.put(h, key_of(n), vlen, None).await?;
        h.record(insert, t0, user);
        done.set(done.get() + 1);
        if done.get().is_multiple_of(1024) {
            h.set_progress(done.get() as f64 / total as f64);
        }
    }
}

struct Client<F: KvFiles + 'static> {
    db: Db<F>,
    h: Host,
    spec: Rc<YcsbSpec>,
    keys: Rc<Keys>,
    rng: Pcg64Mcg,
    zipf: Option<ScrambledZipfian>,
    latest: Option<Latest>,
    metrics: [MetricKey; 5],
}

impl<F: KvFiles + 'static> Client<F> {
    fn new(db: Db<F>, h: Host, spec: Rc<YcsbSpec>, keys: Rc<Keys>, rng: Pcg64Mcg) -> Self {
        let expected_new = (spec.operation_count as f64 * spec.insert * 2.0) as u64;
        let zipf = (spec.distribution == Distribution::Zipfian)
            .then(|| ScrambledZipfian::new(spec.record_count + expected_new));
        let latest =
            (spec.distribution == Distribution::Latest).then(|| Latest::new(spec.record_count));
        let metrics = [
            h.metric(Layer::Kv, OpKind::Get),
            h.metric(Layer::Kv, OpKind::Update),
            h.metric(Layer::Kv, OpKind::Insert),
            h.metric(Layer::Kv, OpKind::Scan),
            h.metric(Layer::Kv, OpKind::ReadModifyWrite),
        ];
        Client {
            db,
            h,
            spec,
            keys,
            rng,
            zipf,
            latest,
            metrics,
        }
    }

    fn choose_op(&mut self) -> Op {
        let s = &self.spec;
        let total = s.read + s.update + s.insert + s.scan + s.read_modify_write;
        let mut u: f64 = self.rng.random::<f64>() * total;
        for (p, op) in [
            (s.read, Op::Read),
            (s.update, Op::Update),
            (s.insert, Op::Insert),
            (s.scan, Op::Scan),
            (s.read_modify_write, Op::Rmw),
        ] {
            if u < p {
                return op;
            }
            u -= p;
        }
        Op::Read
    }

    /// `nextKeynum`: a record inserted already.
    fn choose_record(&mut self) -> u64 {
        let last = self.keys.next_insert.get().saturating_sub(1);
        match self.spec.distribution {
            Distribution::Uniform => self.rng.random_range(0..=last),
            Distribution::Latest => self
                .latest
                .as_mut()
                .expect("latest generator")
                .next(&mut self.rng, last),
            Distribution::Zipfian => loop {
                let z = self.zipf.as_mut().expect("zipfian generator");
                let k = z.next(&mut self.rng);
                if k <= last {
                    break k;
                }
            },
        }
    }

    async fn run(&mut self, ops: u64, done: &Cell<u64>, total: u64) -> Result<(), KvError> {
        let h = self.h.clone();
        let vlen = self.spec.record_bytes();
        let user = self.spec.key_size as u64 + vlen as u64;
        for _ in 0..ops {
            let op = self.choose_op();
            let t0 = h.now();
            match op {
                Op::Read => {
                    let k = key_of(self.choose_record());
                    let got = self.db.get(&h, k).await?;
                    h.record(self.metrics[0], t0, got.map_or(0, |_| user));
                }
                Op::Update => {
                    let k = key_of(self.choose_record());
                    if self.db.get(&h, k).await?.is_some() {
                        self.db.put(&h, k, vlen, None).await?;
                    }
                    h.record(self.metrics[1], t0, user);
                }
                Op::Insert => {
                    let n = self.keys.next_insert.get();
                    self.keys.next_insert.set(n + 1);
                    self.db.put(&h, key_of(n), vlen, None).await?;
                    h.record(self.metrics[2], t0, user);
                }
                Op::Scan => {
                    let k = key_of(self.choose_record());
                    let len = self.rng.random_range(1..=self.spec.max_scan_length) as usize;
                    let n = self.db.scan(&h, k, len).await?;
                    h.record(self.metrics[3], t0, n as u64 * user);
                }
                Op::Rmw => {
                    let k = key_of(self.choose_record());
                    self.db.get(&h, k).await?;
                    if self.db.get(&h, k).await?.is_some() {
                        self.db.put(&h, k, vlen, None).await?;
                    }
                    h.record(self.metrics[4], t0, user);
                }
            }
            done.set(done.get() + 1);
            if done.get().is_multiple_of(1024) {
                h.set_progress(done.get() as f64 / total as f64);
            }
        }
        Ok(())
    }
}
