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
//! the writer's own core, as RocksDB's concurrent memtable writes do. Gets and scans are in
//! read.rs. Flushes and compactions are daemon tasks (background.rs): `max_background_jobs`
//! split as RocksDB splits them (a quarter, at least one, for flushes), and compactions run one
//! at a time unless L0 or the compaction debt says to speed up (`GetBGJobLimits` with
//! `NeedSpeedupCompaction`).
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
//! `crate::validation` checks them against the real db_bench's.

mod background;
pub mod cache;
pub mod compaction;
pub mod files;
pub mod format;
pub mod memtable;
mod on_fs;
pub mod options;
mod read;
pub mod sst;
pub mod stall;
pub mod version;

#[cfg(test)]
mod tests;

use std::cell::RefCell;
use std::rc::Rc;

pub use crate::device::report::kv::KvStats;
pub use files::{FileError, FileHandle, KvFiles, MemFiles, WriteHint, hint_for_level};
pub use format::KeyFormat;
pub use memtable::Payload;
pub use options::{CpuCosts, KvOptions};
pub use read::bloom_false_positive;

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
        files.create_dir(h, dir).await?;
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
                // The switch may have waited, and a background error (with its wake-up) come
                // meanwhile: look again before waiting out a stop, or the writer waits forever
                // (swarm seed 997881).
                continue;
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
}
