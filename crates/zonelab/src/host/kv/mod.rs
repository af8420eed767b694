//! A key-value store modelled on RocksDB 7.8.3, running as host tasks on simulated time: a
//! WAL, memtables, flushes to L0, leveled compaction, a block cache, bloom filters and write
//! stalls, over a file layer ([`files::KvFiles`]). It keeps keys (64-bit ids) and value sizes,
//! and value bytes only with data retention; it writes, reads and waits as RocksDB would, so
//! the file layer and the device below see RocksDB's I/O: WAL records, whole SST files with
//! RocksDB's lifetime hints, data-block reads on gets.
//!
//! # Threads
//!
//! Foreground operations run in the calling task. Writers serialise on a writer queue (RocksDB's
//! write group) for the WAL append and the memtable insert; the insert's CPU runs before, on
//! the writer's own core, as RocksDB's concurrent memtable writes do. Flushes and compactions
//! are daemon tasks: `max_background_jobs` split as RocksDB splits them (a quarter, at least
//! one, for flushes), and compactions run one at a time unless L0 or the compaction debt says
//! to speed up (`GetBGJobLimits` with `NeedSpeedupCompaction`).
//!
//! # What it writes
//!
//! - WAL: one file per memtable (hint short), records in 32 KiB blocks with 7-byte headers,
//!   handed to the file layer as written (in `wal_write_chunk` pieces), synced only with
//!   `sync`; deleted once its memtable is flushed.
//! - Flush: the memtable's newest version of each key, one L0 file (hint medium), written in
//!   1 MiB appends, synced, closed, then opened and its tail (index, filter, footer) read.
//! - Compaction (compaction.rs): RocksDB's picking, trivial moves, output cuts; inputs read
//!   in `compaction_readahead_size` pieces as the outputs are written; inputs deleted once no
//!   reader holds them.
//!
//! Counters (stats.rs) follow docs/rocksdb-reference.md's definitions of db_bench's, and
//! `validation` checks them against the real db_bench's.

pub mod cache;
pub mod compaction;
pub mod files;
pub mod format;
pub mod memtable;
pub mod options;
pub mod sst;
pub mod stall;
pub mod stats;
pub mod validation;
pub mod version;

#[cfg(test)]
mod tests;

use std::cell::RefCell;
use std::rc::Rc;

pub use files::{FileError, FileHandle, KvFiles, MemFiles, WriteHint};
pub use format::KeyFormat;
pub use memtable::Payload;
pub use options::{CpuCosts, KvOptions};
pub use stats::KvStats;

use cache::{BlockCache, block_key};
use compaction::{Compaction, Picker, Running};
use format::{LogSize, TOMBSTONE, batch_bytes};
use memtable::Memtable;
use sst::Table;
use stall::{Controller, Stall};
use version::Version;

use crate::sim::host::Host;
use crate::sim::sync::{Condvar, Mutex};
use crate::time::Duration;

/// Why an operation failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KvError {
    #[error("file layer: {0}")]
    File(#[from] FileError),
    #[error("a background job failed earlier: {0}")]
    Background(String),
}

/// What a get found.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    pub vlen: u32,
    /// With data retention: the value.
    pub payload: Option<Payload>,
}

struct Imm {
    mem: Rc<Memtable>,
    flushing: bool,
}

struct Wal {
    number: u64,
    handle: FileHandle,
    size: LogSize,
    /// Bytes written but not handed to the file layer yet.
    pending: u64,
}

struct State {
    mem: Memtable,
    /// Immutable memtables, oldest first.
    imm: Vec<Imm>,
    version: Version,
    running: Vec<(u64, Running)>,
    next_file: u64,
    next_job: u64,
    seq: u64,
    flushes_running: u32,
    compactions_running: u32,
    /// A manual flush wants every memtable flushed, whatever min_write_buffer_number_to_merge.
    force_flush: bool,
    wal: Option<Wal>,
    /// Logs of unflushed memtables: (number, path).
    logs: Vec<(u64, String)>,
    /// Tables out of the tree, deleted once no reader holds them.
    obsolete: Vec<Rc<Table>>,
    cache: BlockCache,
    controller: Controller,
    stall: Stall,
    speedup: bool,
    stats: KvStats,
    error: Option<String>,
}

struct Inner<F> {
    files: Rc<F>,
    opts: KvOptions,
    key: KeyFormat,
    dir: String,
    st: RefCell<State>,
    writers: Mutex<()>,
    /// Flush and compaction threads wait here for work.
    bg_cv: Condvar,
    /// Stopped writers wait here.
    stall_cv: Condvar,
    /// Manual flushes and waits for idleness.
    idle_cv: Condvar,
    flush_host: Host,
    compaction_host: Host,
}

/// A handle on one store; clones share it.
pub struct Db<F: KvFiles + 'static> {
    inner: Rc<Inner<F>>,
}

impl<F: KvFiles + 'static> Clone for Db<F> {
    fn clone(&self) -> Self {
        Db {
            inner: self.inner.clone(),
        }
    }
}

fn file_path(dir: &str, number: u64, ext: &str) -> String {
    format!("{dir}/{number:06}.{ext}")
}

impl<F: KvFiles + 'static> Db<F> {
    /// Opens an empty store in `dir` and starts its background threads. Device commands of
    /// flushes and compactions are those of tenants `<name>.flush` and `<name>.compaction`.
    pub async fn open(
        h: &Host,
        files: Rc<F>,
        opts: KvOptions,
        key: KeyFormat,
        dir: &str,
        name: &str,
    ) -> Result<Db<F>, KvError> {
        let levels = opts.num_levels as usize;
        let st = State {
            mem: Memtable::new(0),
            imm: Vec::new(),
            version: Version::new(levels),
            running: Vec::new(),
            next_file: 1,
            next_job: 1,
            seq: 0,
            flushes_running: 0,
            compactions_running: 0,
            force_flush: false,
            wal: None,
            logs: Vec::new(),
            obsolete: Vec::new(),
            cache: BlockCache::new(opts.cache_size),
            controller: Controller::default(),
            stall: Stall::Normal,
            speedup: false,
            stats: KvStats {
                compactions_by_output_level: vec![Default::default(); levels],
                ..Default::default()
            },
            error: None,
        };
        let (flushes, compactions) = opts.job_limits();
        let inner = Rc::new(Inner {
            files,
            opts,
            key,
            dir: dir.to_string(),
            st: RefCell::new(st),
            writers: Mutex::new(()),
            bg_cv: Condvar::new(),
            stall_cv: Condvar::new(),
            idle_cv: Condvar::new(),
            flush_host: h.for_tenant(&format!("{name}.flush"), &format!("{name}.flush")),
            compaction_host: h
                .for_tenant(&format!("{name}.compaction"), &format!("{name}.compaction")),
        });
        let db = Db { inner };
        if db.inner.opts.wal {
            db.new_log(h).await?;
        }
        for i in 0..flushes {
            let d = db.clone();
            let fh = d.inner.flush_host.clone();
            h.spawn(&format!("{name}.flush{i}"), true, async move {
                d.flush_thread(&fh).await;
            });
        }
        for i in 0..compactions {
            let d = db.clone();
            let ch = d.inner.compaction_host.clone();
            h.spawn(&format!("{name}.compaction{i}"), true, async move {
                d.compaction_thread(&ch).await;
            });
        }
        Ok(db)
    }

    pub fn options(&self) -> &KvOptions {
        &self.inner.opts
    }

    pub fn key_format(&self) -> KeyFormat {
        self.inner.key
    }

    /// Counters, with the tree as it is now.
    pub fn stats(&self) -> KvStats {
        let st = self.inner.st.borrow();
        let mut s = st.stats.clone();
        s.files_per_level = st.version.files_per_level();
        s.bytes_per_level = st.version.bytes_per_level();
        s
    }

    /// A copy of the tree (tests).
    pub fn version(&self) -> Version {
        self.inner.st.borrow().version.clone()
    }

    /// Entries in memtables not flushed yet.
    pub fn memtable_entries(&self) -> u64 {
        let st = self.inner.st.borrow();
        st.mem.entries + st.imm.iter().map(|m| m.mem.entries).sum::<u64>()
    }

    fn check_error(&self) -> Result<(), KvError> {
        match &self.inner.st.borrow().error {
            Some(e) => Err(KvError::Background(e.clone())),
            None => Ok(()),
        }
    }

    fn fail(&self, h: &Host, e: &KvError) {
        let mut st = self.inner.st.borrow_mut();
        if st.error.is_none() {
            st.error = Some(e.to_string());
        }
        drop(st);
        self.inner.stall_cv.notify_all(h);
        self.inner.idle_cv.notify_all(h);
    }

    fn recalc_stall(&self) {
        let i = &*self.inner;
        let mut st = i.st.borrow_mut();
        let unflushed = st.imm.len();
        let (stall, speedup) = stall::condition(&i.opts, unflushed, &st.version);
        st.stall = stall;
        st.speedup = speedup;
    }

    // ---- writes ----

    /// Puts `key` with a value of `vlen` bytes (`payload` with data retention).
    pub async fn put(
        &self,
        h: &Host,
        key: u64,
        vlen: u32,
        payload: Option<Payload>,
    ) -> Result<(), KvError> {
        debug_assert!(vlen != TOMBSTONE);
        self.write(h, key, vlen, payload).await
    }

    /// Deletes `key` (a tombstone).
    pub async fn delete(&self, h: &Host, key: u64) -> Result<(), KvError> {
        self.write(h, key, TOMBSTONE, None).await
    }

    async fn write(
        &self,
        h: &Host,
        key: u64,
        vlen: u32,
        payload: Option<Payload>,
    ) -> Result<(), KvError> {
        let i = &*self.inner;
        let user = i.key.key_size as u64 + format::value_bytes(vlen);
        let entries = i.st.borrow().mem.entries;
        h.cpu(i.opts.cpu.put(user, entries)).await;
        let _writer = i.writers.lock(h).await;
        let batch = batch_bytes(&i.key, vlen);
        self.make_room(h, batch).await?;
        if i.opts.wal {
            self.wal_append(h, batch).await?;
            if i.opts.sync {
                self.wal_sync(h).await?;
            }
        }
        let mut st = i.st.borrow_mut();
        st.seq += 1;
        let seq = st.seq;
        let payload = if i.opts.retain_values { payload } else { None };
        st.mem.insert(
            key,
            memtable::Version { seq, vlen, payload },
            &i.key,
            i.opts.write_buffer_size,
            i.opts.arena_block(),
        );
        st.stats.writes += 1;
        st.stats.user_bytes += user;
        Ok(())
    }

    /// RocksDB's `PreprocessWrite` and `DelayWrite`: switch a full memtable, then wait out a
    /// stop or a delay.
    async fn make_room(&self, h: &Host, batch: u64) -> Result<(), KvError> {
        let i = &*self.inner;
        let mut stalled_since = None;
        loop {
            self.check_error()?;
            if i.st.borrow().mem.full {
                self.switch_memtable(h).await?;
            }
            let stall = i.st.borrow().stall;
            match stall {
                Stall::Normal => break,
                Stall::Stopped => {
                    if stalled_since.is_none() {
                        stalled_since = Some(h.now());
                        i.st.borrow_mut().stats.stall_stops += 1;
                    }
                    i.stall_cv.notified(h).await;
                }
                Stall::Delayed => {
                    let delay = {
                        let mut st = i.st.borrow_mut();
                        let rate = i.opts.write_rate();
                        st.controller.delay(h.now().ns(), batch, rate)
                    };
                    if delay > 0 {
                        stalled_since.get_or_insert(h.now());
                        i.st.borrow_mut().stats.stall_delays += 1;
                        h.sleep(Duration::from_ns(delay)).await;
                    }
                    break;
                }
            }
        }
        if let Some(t) = stalled_since {
            i.st.borrow_mut().stats.stall_ns += h.now().since(t).ns();
        }
        Ok(())
    }

    async fn new_log(&self, h: &Host) -> Result<(), KvError> {
        let i = &*self.inner;
        let number = {
            let mut st = i.st.borrow_mut();
            st.next_file += 1;
            st.next_file - 1
        };
        let path = file_path(&i.dir, number, "log");
        let handle = i.files.create(h, &path, WriteHint::Short).await?;
        let mut st = i.st.borrow_mut();
        st.stats.wal_files += 1;
        st.logs.push((number, path));
        st.mem.log_number = number;
        st.wal = Some(Wal {
            number,
            handle,
            size: LogSize::default(),
            pending: 0,
        });
        Ok(())
    }

    async fn switch_memtable(&self, h: &Host) -> Result<(), KvError> {
        let i = &*self.inner;
        let old = i.st.borrow_mut().wal.take();
        if let Some(mut w) = old {
            if w.pending > 0 {
                let n = std::mem::take(&mut w.pending);
                self.count_hint(WriteHint::Short, n);
                i.files.append(h, w.handle, n, None).await?;
            }
            i.files.close(h, w.handle).await?;
            debug_assert!(i.st.borrow().logs.iter().any(|l| l.0 == w.number));
        }
        {
            let mut st = i.st.borrow_mut();
            let mem = std::mem::replace(&mut st.mem, Memtable::new(0));
            st.imm.push(Imm {
                mem: Rc::new(mem),
                flushing: false,
            });
        }
        if i.opts.wal {
            self.new_log(h).await?;
        }
        self.recalc_stall();
        i.bg_cv.notify_all(h);
        Ok(())
    }

    fn count_hint(&self, hint: WriteHint, bytes: u64) {
        self.inner.st.borrow_mut().stats.bytes_by_hint[hint as usize] += bytes;
    }

    async fn wal_append(&self, h: &Host, batch: u64) -> Result<(), KvError> {
        let i = &*self.inner;
        let flush = {
            let mut st = i.st.borrow_mut();
            let st = &mut *st;
            let w = st.wal.as_mut().expect("a WAL is open while the WAL is on");
            let phys = w.size.add(batch);
            w.pending += phys;
            st.stats.wal_bytes += batch;
            st.stats.wal_file_bytes += phys;
            (w.pending >= i.opts.wal_write_chunk)
                .then(|| (w.handle, std::mem::take(&mut w.pending)))
        };
        if let Some((handle, n)) = flush {
            self.count_hint(WriteHint::Short, n);
            i.files.append(h, handle, n, None).await?;
        }
        Ok(())
    }

    async fn wal_sync(&self, h: &Host) -> Result<(), KvError> {
        let i = &*self.inner;
        let (handle, n) = {
            let mut st = i.st.borrow_mut();
            st.stats.wal_syncs += 1;
            let w = st.wal.as_mut().expect("a WAL is open");
            (w.handle, std::mem::take(&mut w.pending))
        };
        if n > 0 {
            self.count_hint(WriteHint::Short, n);
            i.files.append(h, handle, n, None).await?;
        }
        i.files.sync(h, handle).await?;
        Ok(())
    }

    /// db_bench's `flush`: switches the memtable (if it holds anything) and waits until every
    /// memtable is flushed.
    pub async fn flush(&self, h: &Host) -> Result<(), KvError> {
        let i = &*self.inner;
        {
            let _writer = i.writers.lock(h).await;
            self.check_error()?;
            if !i.st.borrow().mem.is_empty() {
                self.switch_memtable(h).await?;
            }
        }
        i.st.borrow_mut().force_flush = true;
        i.bg_cv.notify_all(h);
        loop {
            self.check_error()?;
            let done = {
                let st = i.st.borrow();
                st.imm.is_empty() && st.flushes_running == 0
            };
            if done {
                break;
            }
            i.idle_cv.notified(h).await;
        }
        i.st.borrow_mut().force_flush = false;
        Ok(())
    }

    /// db_bench's `waitforcompaction`: waits until no flush or compaction is running or due.
    pub async fn wait_for_compactions(&self, h: &Host) -> Result<(), KvError> {
        let i = &*self.inner;
        loop {
            self.check_error()?;
            let idle = {
                let st = i.st.borrow();
                st.imm.is_empty()
                    && st.flushes_running == 0
                    && st.compactions_running == 0
                    && !Picker {
                        v: &st.version,
                        opts: &i.opts,
                        running: &[],
                    }
                    .needs_compaction()
            };
            if idle {
                break;
            }
            i.bg_cv.notify_all(h);
            i.idle_cv.notified(h).await;
        }
        self.purge(h).await
    }

    // ---- reads ----

    /// Gets `key`: memtables, then L0 files newest first, then one file per level.
    pub async fn get(&self, h: &Host, key: u64) -> Result<Option<Found>, KvError> {
        let i = &*self.inner;
        let (mem_hit, candidates) = {
            let mut st = i.st.borrow_mut();
            st.stats.gets += 1;
            let mem_hit = st
                .mem
                .get(key)
                .cloned()
                .or_else(|| st.imm.iter().rev().find_map(|m| m.mem.get(key).cloned()));
            let mut c: Vec<Rc<Table>> = Vec::new();
            if mem_hit.is_none() {
                let v = &st.version;
                c.extend(v.levels[0].iter().filter(|t| t.covers(key)).cloned());
                for l in 1..v.num_levels() {
                    if let Some(t) = v.file_for(l, key) {
                        c.push(t.clone());
                    }
                }
            }
            (mem_hit, c)
        };
        if let Some(v) = mem_hit {
            h.cpu(i.opts.cpu.get(0, 0, 0)).await;
            return Ok(self.found(v.vlen, v.payload));
        }
        let (mut probes, mut misses, mut filtered) = (0u32, 0u32, 0u32);
        let mut result = None;
        for t in &candidates {
            let (b, pos) = t.locate(key);
            if i.opts.bloom_bits > 0 {
                if i.opts.cache_index_and_filter_blocks {
                    misses += self.meta_block(h, t, true).await? as u32;
                }
                if pos.is_err() && !bloom_false_positive(key, t.number, i.opts.bloom_bits) {
                    filtered += 1;
                    continue;
                }
            }
            probes += 1;
            if i.opts.cache_index_and_filter_blocks {
                misses += self.meta_block(h, t, false).await? as u32;
            }
            misses += self.data_block(h, t, b).await? as u32;
            if let Ok(x) = pos {
                let e = t.entries[x];
                result = Some((e.vlen, t.payload(x)));
                break;
            }
        }
        drop(candidates);
        {
            let mut st = i.st.borrow_mut();
            st.stats.get_probes += probes as u64;
            st.stats.filter_skips += filtered as u64;
        }
        h.cpu(i.opts.cpu.get(probes, misses, filtered)).await;
        Ok(result.and_then(|(vlen, p)| self.found(vlen, p)))
    }

    fn found(&self, vlen: u32, payload: Option<Payload>) -> Option<Found> {
        (vlen != TOMBSTONE).then(|| {
            self.inner.st.borrow_mut().stats.gets_found += 1;
            Found { vlen, payload }
        })
    }

    /// Looks data block `b` of `t` up in the block cache, reading it on a miss. Returns
    /// whether it missed.
    async fn data_block(&self, h: &Host, t: &Table, b: usize) -> Result<bool, KvError> {
        let i = &*self.inner;
        let k = block_key(t.number, b);
        let hit = {
            let mut st = i.st.borrow_mut();
            let hit = st.cache.lookup(k);
            if hit {
                st.stats.block_cache_hits += 1;
            } else {
                st.stats.block_cache_misses += 1;
            }
            hit
        };
        if hit {
            return Ok(false);
        }
        let (off, len) = t.block_range(b);
        let reader = t.reader.get().expect("a table in the tree has a reader");
        i.files.read(h, reader, off, len).await?;
        let mut st = i.st.borrow_mut();
        st.stats.read_bytes += len;
        st.cache.insert(k, len);
        Ok(true)
    }

    /// The index (or filter) block of `t` through the block cache, when
    /// `cache_index_and_filter_blocks` puts them there.
    async fn meta_block(&self, h: &Host, t: &Table, filter: bool) -> Result<bool, KvError> {
        let i = &*self.inner;
        let which = if filter { (1 << 24) - 2 } else { (1 << 24) - 1 };
        let k = block_key(t.number, which);
        if i.st.borrow_mut().cache.lookup(k) {
            return Ok(false);
        }
        let (off, len) = if filter {
            (t.sizes.data + t.sizes.index, t.sizes.filter)
        } else {
            (t.sizes.data, t.sizes.index)
        };
        if len == 0 {
            return Ok(false);
        }
        let reader = t.reader.get().expect("a table in the tree has a reader");
        i.files.read(h, reader, off, len).await?;
        let mut st = i.st.borrow_mut();
        st.stats.read_bytes += len;
        st.cache.insert(k, len);
        Ok(true)
    }

    /// A range scan: seeks to `start` and reads up to `count` live keys in order, as RocksDB's
    /// merging iterator does (each sorted run positioned on its block, blocks read as the scan
    /// crosses them). Returns the keys read.
    pub async fn scan(&self, h: &Host, start: u64, count: usize) -> Result<usize, KvError> {
        let i = &*self.inner;
        // Gather: every memtable, each L0 file, each level's files from `start`.
        let (keys, runs, blocks) = {
            let mut st = i.st.borrow_mut();
            st.stats.scans += 1;
            let mut mem_keys: std::collections::BTreeMap<u64, u32> =
                std::collections::BTreeMap::new();
            for m in st
                .imm
                .iter()
                .map(|m| &*m.mem)
                .chain(std::iter::once(&st.mem))
            {
                for (&k, v) in m.map.range(start..).take(count) {
                    mem_keys.insert(k, v.vlen);
                }
            }
            let v = &st.version;
            let mut sources: Vec<Vec<Rc<Table>>> = Vec::new();
            for t in &v.levels[0] {
                if t.largest >= start {
                    sources.push(vec![t.clone()]);
                }
            }
            for l in 1..v.num_levels() {
                let files = &v.levels[l];
                let a = files.partition_point(|f| f.largest < start);
                if a < files.len() {
                    sources.push(files[a..].to_vec());
                }
            }
            // Merge, newest source first (memtables, then L0 newest first, then levels).
            let mut cursors: Vec<(usize, usize)> = sources
                .iter()
                .map(|s| (0usize, s[0].find(start).unwrap_or_else(|x| x)))
                .collect();
            let mut touched: Vec<(Rc<Table>, usize)> = Vec::new();
            let note = |t: &Rc<Table>, e: usize, touched: &mut Vec<(Rc<Table>, usize)>| {
                let b = t.block_of(e);
                if !touched.iter().any(|(x, y)| x.number == t.number && *y == b) {
                    touched.push((t.clone(), b));
                }
            };
            let head = |s: &[Rc<Table>], c: (usize, usize)| -> Option<u64> {
                let (ti, e) = c;
                s.get(ti).and_then(|t| t.entries.get(e)).map(|x| x.key)
            };
            // Seek: every source positions on a block.
            for (s, c) in sources.iter().zip(&cursors) {
                if let Some(t) = s.get(c.0)
                    && c.1 < t.entries.len()
                {
                    note(t, c.1, &mut touched);
                }
            }
            let mut mem_iter = mem_keys.iter().peekable();
            let mut got = 0usize;
            while got < count {
                let mut best: Option<(u64, usize)> = None;
                for (si, s) in sources.iter().enumerate() {
                    if let Some(k) = head(s, cursors[si])
                        && best.is_none_or(|b| k < b.0)
                    {
                        best = Some((k, si));
                    }
                }
                let mk = mem_iter.peek().map(|(k, _)| **k);
                let (k, vlen) = match (best, mk) {
                    (None, None) => break,
                    (b, Some(m)) if b.is_none_or(|b| m <= b.0) => {
                        let (_, &v) = mem_iter.next().expect("peeked");
                        (m, v)
                    }
                    (Some((k, si)), _) => {
                        let (ti, e) = cursors[si];
                        (k, sources[si][ti].entries[e].vlen)
                    }
                    (None, Some(_)) => unreachable!("covered above"),
                };
                // Advance every source past k (older versions of k are skipped).
                for (si, s) in sources.iter().enumerate() {
                    while head(s, cursors[si]) == Some(k) {
                        let (mut ti, mut e) = cursors[si];
                        e += 1;
                        if e >= s[ti].entries.len() {
                            ti += 1;
                            e = 0;
                        }
                        cursors[si] = (ti, e);
                        if let Some(t) = s.get(ti) {
                            note(t, e, &mut touched);
                        }
                    }
                }
                if vlen != TOMBSTONE {
                    got += 1;
                }
            }
            (got, sources.len() as u32, touched)
        };
        let mut misses = 0u32;
        for (t, b) in &blocks {
            misses += self.data_block(h, t, *b).await? as u32;
        }
        drop(blocks);
        h.cpu(i.opts.cpu.get(runs, misses, 0) + i.opts.cpu.nexts(keys as u64))
            .await;
        Ok(keys)
    }

    // ---- flushes ----

    async fn flush_thread(&self, h: &Host) {
        let i = &*self.inner;
        loop {
            let picked = {
                let mut st = i.st.borrow_mut();
                let waiting = st.imm.iter().filter(|m| !m.flushing).count();
                if st.error.is_none()
                    && waiting > 0
                    && (waiting >= i.opts.min_write_buffer_number_to_merge as usize
                        || st.force_flush)
                {
                    let mut mems = Vec::new();
                    for m in st.imm.iter_mut().filter(|m| !m.flushing) {
                        m.flushing = true;
                        mems.push(m.mem.clone());
                    }
                    st.flushes_running += 1;
                    Some(mems)
                } else {
                    None
                }
            };
            match picked {
                None => i.bg_cv.notified(h).await,
                Some(mems) => {
                    if let Err(e) = self.run_flush(h, &mems).await {
                        self.fail(h, &e);
                    }
                    i.st.borrow_mut().flushes_running -= 1;
                    self.recalc_stall();
                    i.bg_cv.notify_all(h);
                    i.stall_cv.notify_all(h);
                    i.idle_cv.notify_all(h);
                }
            }
        }
    }

    async fn run_flush(&self, h: &Host, mems: &[Rc<Memtable>]) -> Result<(), KvError> {
        let i = &*self.inner;
        let newest_first: Vec<&Memtable> = mems.iter().rev().map(|m| &**m).collect();
        let builder = compaction::flush_entries(&newest_first, &i.opts, i.key);
        let entries_in: u64 = mems.iter().map(|m| m.entries).sum();
        let table = match builder {
            Some(b) => {
                let number = {
                    let mut st = i.st.borrow_mut();
                    st.next_file += 1;
                    st.next_file - 1
                };
                let t = b.finish(number, file_path(&i.dir, number, "sst"), 0);
                let cpu = i.opts.cpu.flush(t.entries.len() as u64, t.file_size());
                self.write_table(h, &t, WriteHint::Medium, cpu, None)
                    .await?;
                i.st.borrow_mut().stats.flush_cpu_ns += cpu.ns();
                Some(Rc::new(t))
            }
            None => None,
        };
        let old_logs = {
            let mut st = i.st.borrow_mut();
            let st = &mut *st;
            if let Some(t) = &table {
                st.stats.flush_bytes += t.file_size();
                st.stats.flush_entries_out += t.entries.len() as u64;
                st.version.add(0, t.clone());
            }
            st.stats.flushes += 1;
            st.stats.flush_entries_in += entries_in;
            st.imm
                .retain(|m| !mems.iter().any(|x| Rc::ptr_eq(x, &m.mem)));
            // Logs older than every unflushed memtable's are obsolete.
            let keep = st
                .imm
                .iter()
                .map(|m| m.mem.log_number)
                .chain(std::iter::once(st.mem.log_number))
                .min()
                .unwrap_or(u64::MAX);
            let (old, live): (Vec<_>, Vec<_>) = std::mem::take(&mut st.logs)
                .into_iter()
                .partition(|l| l.0 < keep);
            st.logs = live;
            old
        };
        self.recalc_stall();
        i.bg_cv.notify_all(h);
        i.stall_cv.notify_all(h);
        for (_, path) in old_logs {
            i.files.delete(h, &path).await?;
            i.st.borrow_mut().stats.files_deleted += 1;
        }
        Ok(())
    }

    /// Writes table `t` as a new file: appends of `writable_file_max_buffer_size` with the
    /// job's CPU spread over them, reading `inputs` (a compaction's) along the way; then sync,
    /// close, and open it for reading (its tail: index, filter, footer).
    async fn write_table(
        &self,
        h: &Host,
        t: &Table,
        hint: WriteHint,
        cpu: Duration,
        mut inputs: Option<&mut InputReader>,
    ) -> Result<(), KvError> {
        let i = &*self.inner;
        let handle = i.files.create(h, &t.path, hint).await?;
        let size = t.file_size();
        let chunk = i.opts.writable_file_max_buffer_size;
        let mut written = 0u64;
        while written < size {
            let n = chunk.min(size - written);
            if let Some(r) = inputs.as_deref_mut() {
                r.read_to(self, h, n).await?;
            }
            h.cpu(Duration::from_ns(
                (cpu.ns() as u128 * n as u128 / size as u128) as u64,
            ))
            .await;
            i.files.append(h, handle, n, None).await?;
            written += n;
        }
        self.count_hint(hint, size);
        i.files.sync(h, handle).await?;
        i.files.close(h, handle).await?;
        let reader = i.files.open(h, &t.path).await?;
        i.files
            .read(h, reader, t.sizes.data, t.tail_bytes())
            .await?;
        t.reader.set(Some(reader));
        let mut st = i.st.borrow_mut();
        st.stats.table_opens += 1;
        st.stats.table_open_read_bytes += t.tail_bytes();
        Ok(())
    }

    // ---- compactions ----

    fn compaction_slots(&self, st: &State) -> u32 {
        let (_, max) = self.inner.opts.job_limits();
        if st.speedup { max } else { 1 }
    }

    async fn compaction_thread(&self, h: &Host) {
        let i = &*self.inner;
        loop {
            let picked = {
                let mut st = i.st.borrow_mut();
                if st.error.is_some() || st.compactions_running >= self.compaction_slots(&st) {
                    None
                } else {
                    let running: Vec<Running> = st.running.iter().map(|r| r.1).collect();
                    let c = Picker {
                        v: &st.version,
                        opts: &i.opts,
                        running: &running,
                    }
                    .pick();
                    c.map(|c| {
                        for t in c.all_inputs() {
                            t.being_compacted.set(true);
                        }
                        let id = st.next_job;
                        st.next_job += 1;
                        st.running.push((
                            id,
                            Running {
                                start_level: c.start_level,
                                output_level: c.output_level,
                                smallest: c.smallest,
                                largest: c.largest,
                            },
                        ));
                        st.compactions_running += 1;
                        (id, c)
                    })
                }
            };
            match picked {
                None => i.bg_cv.notified(h).await,
                Some((id, c)) => {
                    let r = self.run_compaction(h, &c).await;
                    {
                        let mut st = i.st.borrow_mut();
                        st.running.retain(|r| r.0 != id);
                        st.compactions_running -= 1;
                        for t in c.all_inputs() {
                            t.being_compacted.set(false);
                        }
                    }
                    drop(c);
                    let r = match r {
                        Ok(()) => self.purge(h).await,
                        e => e,
                    };
                    if let Err(e) = r {
                        self.fail(h, &e);
                    }
                    self.recalc_stall();
                    i.bg_cv.notify_all(h);
                    i.stall_cv.notify_all(h);
                    i.idle_cv.notify_all(h);
                }
            }
        }
    }

    async fn run_compaction(&self, h: &Host, c: &Compaction) -> Result<(), KvError> {
        let i = &*self.inner;
        if c.trivial_move {
            let mut st = i.st.borrow_mut();
            for t in &c.inputs {
                st.version.remove(c.start_level, t.number);
                st.version.add(c.output_level, t.clone());
                st.stats.trivial_move_files += 1;
                st.stats.trivial_move_bytes += t.file_size();
            }
            st.stats.trivial_moves += 1;
            return Ok(());
        }
        let merged = {
            let st = i.st.borrow();
            compaction::merge(c, &st.version, &i.opts, i.key)
        };
        let mut tables = Vec::with_capacity(merged.tables.len());
        for b in merged.tables {
            let number = {
                let mut st = i.st.borrow_mut();
                st.next_file += 1;
                st.next_file - 1
            };
            tables.push(b.finish(number, file_path(&i.dir, number, "sst"), c.output_level));
        }
        let out_bytes: u64 = tables.iter().map(|t| t.file_size()).sum();
        let mut reader = InputReader::new(c, out_bytes, i.opts.compaction_readahead_size);
        let hint = WriteHint::for_level(c.output_level);
        let mut cpu_total = 0u64;
        for t in &tables {
            let cpu = i.opts.cpu.compaction(t.entries.len() as u64, t.file_size());
            cpu_total += cpu.ns();
            self.write_table(h, t, hint, cpu, Some(&mut reader)).await?;
        }
        reader.finish(self, h).await?;
        let mut st = i.st.borrow_mut();
        let st = &mut *st;
        for t in c.all_inputs() {
            let level = if c.inputs.iter().any(|x| Rc::ptr_eq(x, t)) {
                c.start_level
            } else {
                c.output_level
            };
            if let Some(t) = st.version.remove(level, t.number) {
                st.obsolete.push(t);
            }
        }
        let files = tables.len() as u64;
        for t in tables {
            st.version.add(c.output_level, Rc::new(t));
        }
        let s = &mut st.stats;
        s.compactions += 1;
        if c.output_level == 0 {
            s.intra_l0_compactions += 1;
        }
        s.compaction_read_bytes += c.input_bytes();
        s.compaction_write_bytes += out_bytes;
        s.compaction_output_files += files;
        s.compaction_input_records += merged.input_entries;
        s.compaction_output_records += merged.output_entries;
        s.compaction_cpu_ns += cpu_total;
        let by = &mut s.compactions_by_output_level[c.output_level];
        by.compactions += 1;
        by.output_files += files;
        by.output_bytes += out_bytes;
        Ok(())
    }

    /// Deletes obsolete tables no reader holds any more.
    async fn purge(&self, h: &Host) -> Result<(), KvError> {
        let i = &*self.inner;
        let gone: Vec<Rc<Table>> = {
            let mut st = i.st.borrow_mut();
            let (gone, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut st.obsolete)
                .into_iter()
                .partition(|t| Rc::strong_count(t) == 1);
            st.obsolete = keep;
            gone
        };
        for t in gone {
            if let Some(r) = t.reader.take() {
                i.files.close(h, r).await?;
            }
            i.files.delete(h, &t.path).await?;
            i.st.borrow_mut().stats.files_deleted += 1;
        }
        Ok(())
    }

    /// Checks the tree's invariants (tests): levels above L0 sorted and disjoint.
    pub fn check(&self) -> Result<(), String> {
        self.inner.st.borrow().version.check()
    }
}

/// Reads a compaction's input files in order, in readahead-sized pieces, keeping pace with the
/// bytes written.
struct InputReader {
    files: Vec<(FileHandle, u64)>,
    file: usize,
    offset: u64,
    read: u64,
    input_bytes: u64,
    output_bytes: u64,
    written: u64,
    chunk: u64,
}

impl InputReader {
    fn new(c: &Compaction, output_bytes: u64, readahead: u64) -> Self {
        let mut files: Vec<&Rc<Table>> = c.all_inputs().collect();
        files.sort_by_key(|t| (t.smallest, t.number));
        InputReader {
            files: files
                .iter()
                .map(|t| {
                    (
                        t.reader.get().expect("input tables have readers"),
                        t.file_size(),
                    )
                })
                .collect(),
            file: 0,
            offset: 0,
            read: 0,
            input_bytes: c.input_bytes(),
            output_bytes: output_bytes.max(1),
            written: 0,
            chunk: if readahead > 0 { readahead } else { 128 << 10 },
        }
    }

    /// Reads what writing `n` more output bytes needs.
    async fn read_to<F: KvFiles + 'static>(
        &mut self,
        db: &Db<F>,
        h: &Host,
        n: u64,
    ) -> Result<(), KvError> {
        self.written += n;
        let due = (self.input_bytes as u128 * self.written.min(self.output_bytes) as u128
            / self.output_bytes as u128) as u64;
        self.read_until(db, h, due).await
    }

    async fn read_until<F: KvFiles + 'static>(
        &mut self,
        db: &Db<F>,
        h: &Host,
        due: u64,
    ) -> Result<(), KvError> {
        while self.read < due && self.file < self.files.len() {
            let (handle, size) = self.files[self.file];
            let n = self.chunk.min(size - self.offset);
            db.inner.files.read(h, handle, self.offset, n).await?;
            self.offset += n;
            self.read += n;
            if self.offset >= size {
                self.file += 1;
                self.offset = 0;
            }
        }
        Ok(())
    }

    async fn finish<F: KvFiles + 'static>(&mut self, db: &Db<F>, h: &Host) -> Result<(), KvError> {
        let all = self.input_bytes;
        self.read_until(db, h, all).await
    }
}

/// Whether a bloom filter with `bits` per key lets `key` through a table that does not hold
/// it. The rate is the standard bloom filter's with the best number of probes,
/// (1 - e^(-k/bits))^k with k = round(bits x ln 2) (0.82% at 10 bits; RocksDB's cache-local
/// filter measures ~0.95%); the draw is a hash of (key, table), so it is the same every time.
pub fn bloom_false_positive(key: u64, table: u64, bits: u32) -> bool {
    let b = bits as f64;
    let k = (b * std::f64::consts::LN_2).round().max(1.0);
    let rate = (1.0 - (-k / b).exp()).powf(k);
    let x = crate::workload::mix_seed(key, table ^ 0xb1_00f);
    (x as f64 / u64::MAX as f64) < rate
}
