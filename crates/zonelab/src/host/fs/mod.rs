//! A zoned file layer in the host, run by host tasks on simulated time: directories, files,
//! buffered writes, fsync, reads, rename and delete over the zones of a ZNS device, with two
//! placement personalities and pluggable zone GC.
//!
//! # Using it from tasks
//!
//! [`Fs::mount`] builds the layer over a region of zones (`[fs]` in an experiment) and starts
//! its daemons (page-cache flusher, F2FS checkpoints and cleaner, GC). Every operation is an
//! `async fn` taking the calling task's [`Host`]: device commands it causes are sent as that
//! task (its tenant and trace source), and the operation itself is recorded as a
//! [`Layer::File`] latency of that tenant, beside the device commands.
//!
//! ```ignore
//! let fd = fs.create(&h, "/db/000001.log", CreateOptions::lifetime(Lifetime::Short)).await?;
//! fs.append(&h, fd, 4096, None).await?;      // buffered (page cache or ZenFS's buffer)
//! fs.fsync(&h, fd).await?;                     // data, then metadata, then a device Flush
//! fs.close(&h, fd).await?;
//! let fd = fs.open(&h, "/db/000001.log", false).await?;
//! let n = fs.read(&h, fd, 0, 4096, None).await?;
//! fs.rename(&h, "/db/000001.log", "/db/old.log").await?;
//! fs.delete(&h, "/db/old.log").await?;
//! ```
//!
//! `data: Option<&[u8]>` carries bytes when the device keeps data (`[data] retention`); with
//! `None` the layer models timing and space only. Files are block maps of runs in zones; a run
//! never crosses a zone. Errors are [`FsError`]s naming the path or descriptor.
//!
//! # Personalities (../shared/reference/host-stack.md)
//!
//! - `zenfs` (`zenfs.rs`): append-only files; a 1 MiB buffer per file; each file appends to its
//!   own zone, chosen by lifetime hints and ZenFS's allocation scoring, under open and active
//!   tokens with one open slot kept for WAL files; the finish threshold; zones reset as soon as
//!   no live extent is left; metadata as records in a log in the first three zones, rolled to a
//!   snapshot; its optional GC by free space.
//! - `f2fs` (`f2fs.rs`): the Linux page cache with writeback; six logs (hot/warm/cold x
//!   node/data), one zone per section, 2 MiB segments, LFS only; node (inode and direct node)
//!   blocks and dentry blocks written to the node and data logs; checkpoints (CP, SIT, NAT,
//!   SSA) to a separate conventional device modelled by latency and rate; foreground greedy and
//!   background cost-benefit cleaning with F2FS's triggers; dead sections reset at checkpoint.
//!
//! # Zone GC (`gc/`)
//!
//! GC policies are host tasks competing with the workload for the device and the modelled
//! cores: the personality's own, none, Basic_ZGC (`gc/basic.rs`) or LSM_ZGC (`gc/lsm.rs`), as
//! 003_b9d3f7203b354fdb.txt describes them. The report separates the file layer's write
//! amplification (GC and metadata blocks over user blocks) from the device's.

mod f2fs;
pub(crate) mod gc;
mod io;
pub mod map;
mod report;
pub mod space;
pub mod spec;
mod state;
#[cfg(test)]
mod tests;
mod zenfs;

use std::cell::RefCell;
use std::rc::Rc;

pub use report::FsReport;
pub use spec::{
    BLOCK_BYTES, CacheSpec, CpuSpec, F2fsSpec, FsSpec, GcPolicyKind, GcSpec, Personality, Victim,
    ZenfsSpec,
};

use crate::device::Status;
use crate::metrics::{Layer, OpKind};
use crate::sim::host::Host;
use crate::sim::sync::Condvar;
use crate::time::{Duration, Instant};
use space::{Owner, Space};
use state::{Ino, Inode, State};

/// ZenFS/RocksDB write lifetime hints (RocksDB `Env::WriteLifeTimeHint`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Lifetime {
    #[default]
    NotSet = 0,
    None = 1,
    Short = 2,
    Medium = 3,
    Long = 4,
    Extreme = 5,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    File,
    Dir,
}

/// An open file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fd(pub u32);

/// How a file is created.
#[derive(Clone, Copy, Debug, Default)]
pub struct CreateOptions {
    pub lifetime: Lifetime,
}

impl CreateOptions {
    pub fn lifetime(lifetime: Lifetime) -> Self {
        CreateOptions { lifetime }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stat {
    pub kind: FileKind,
    pub size: u64,
    /// Blocks the file holds (on the device or dirty and new).
    pub blocks: u64,
    /// Runs (extents) on the device.
    pub extents: u32,
    pub lifetime: Lifetime,
}

/// Space as `statfs` gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FsSpace {
    pub block_bytes: u64,
    pub capacity_blocks: u64,
    pub used_blocks: u64,
    pub free_zones: u32,
    pub zones: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FsError {
    #[error("{0}: no such file or directory")]
    NotFound(String),
    #[error("{0}: already exists")]
    Exists(String),
    #[error("{0}: not a directory")]
    NotDir(String),
    #[error("{0}: is a directory")]
    IsDir(String),
    #[error("{0}: directory not empty")]
    NotEmpty(String),
    #[error("{0}: not an absolute path of names (no `.`, `..`)")]
    InvalidPath(String),
    #[error("file descriptor {0} is not open")]
    BadFd(u32),
    #[error("file descriptor {0} is not open for writing")]
    ReadOnly(u32),
    #[error("no space left in the file layer")]
    NoSpace,
    #[error("{0}")]
    Unsupported(String),
    #[error("the device rejected a command: {0}")]
    Device(Status),
}

impl From<Status> for FsError {
    fn from(s: Status) -> Self {
        FsError::Device(s)
    }
}

/// Where a flush writes: a log (F2FS logs, GC levels) or a ZenFS file's own zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    Stream(usize),
    File(Ino),
}

/// F2FS's six logs, in CURSEG order.
pub(crate) const HOT_DATA: usize = 0;
pub(crate) const WARM_DATA: usize = 1;
pub(crate) const COLD_DATA: usize = 2;
pub(crate) const HOT_NODE: usize = 3;
pub(crate) const WARM_NODE: usize = 4;
pub(crate) const COLD_NODE: usize = 5;
/// GC destination streams: Basic_ZGC's one, LSM_ZGC's C1C, C1H, C2.
pub(crate) const GC_STREAM: usize = 6;
pub(crate) const STREAMS: usize = 9;

pub(crate) struct Inner {
    pub spec: FsSpec,
    pub st: RefCell<State>,
    /// The layer's own background work (flusher, checkpoints): tenant "fs".
    pub host: Host,
    /// Zone GC's commands: tenant "fs.gc".
    pub gc_host: Host,
    /// Zones were freed or dirty pages written: waiters look again.
    pub space_cv: Condvar,
    /// Wakes the GC daemon.
    pub gc_cv: Condvar,
    /// Wakes the flusher.
    pub flush_cv: Condvar,
    /// A write to the device finished (fsync waits for the file's writes in flight).
    pub io_cv: Condvar,
    /// One GC pass at a time (F2FS's gc_lock).
    pub gc_lock: crate::sim::sync::Mutex<()>,
    /// Metadata log appends and checkpoints, one at a time.
    pub meta_lock: crate::sim::sync::Mutex<()>,
    pub gc: RefCell<Box<dyn gc::GcPolicy>>,
    pub lbas_per_block: u64,
}

/// A mounted file layer; clones share it.
#[derive(Clone)]
pub struct Fs {
    inner: Rc<Inner>,
}

impl Fs {
    /// Mounts the layer over `spec`'s zones of `host`'s device. Zones the device already holds
    /// data in (a `[prefill]`) become the file `/prefill`, one run per zone, so a file system
    /// "filled with dummy data" starts that way without simulated time. Starts the daemons and
    /// registers the report (`layers.fs` in the summary).
    pub fn mount(host: &Host, spec: &FsSpec) -> Result<Fs, FsError> {
        let info = host.device_info();
        let z = info
            .zoned
            .clone()
            .ok_or_else(|| FsError::Unsupported("the file layer needs a zoned device".into()))?;
        let lba = info.lba_size_bytes;
        assert!(
            BLOCK_BYTES.is_multiple_of(lba),
            "LBA size divides the block (checked by config)"
        );
        let lbas_per_block = BLOCK_BYTES / lba;
        let cap_blocks = (z.zone_capacity_lbas / lbas_per_block) as u32;
        let reserve = match &spec.personality {
            Personality::Zenfs(zs) => zs.reserved_zones,
            Personality::F2fs(_) => 0,
        };
        let limit = |l: Option<u32>| l.map(|v| v.saturating_sub(reserve).max(1));
        let space = Space::new(
            spec.first_zone,
            spec.zone_count,
            z.zone_size_lbas,
            cap_blocks,
            lbas_per_block,
            z.max_open_zones,
            z.max_active_zones,
        );
        let cache_pages = spec.cache.page_cache_bytes / BLOCK_BYTES;
        let mut st = State::new(space, cache_pages, 0, STREAMS);
        st.data = spec.data;
        st.capacity_blocks = match &spec.personality {
            Personality::Zenfs(zs) => {
                zenfs::mkfs(&mut st, zs);
                (spec.zone_count - zs.meta_zones) as u64 * cap_blocks as u64
            }
            Personality::F2fs(fs) => f2fs::mkfs(&mut st, fs, spec, cap_blocks)?,
        };
        st.zen.max_open_io = limit(z.max_open_zones);
        st.zen.max_active_io = limit(z.max_active_zones);
        adopt_prefill(host, &mut st, spec, lbas_per_block);
        let policy = gc::policy(spec);
        // One layer per namespace that has one: its own report and tenants past namespace 0.
        let name = match host.nsid() {
            0 => "fs".to_string(),
            n => format!("fs.ns{n}"),
        };
        let inner = Rc::new(Inner {
            spec: spec.clone(),
            st: RefCell::new(st),
            host: host.for_tenant(&name, &name),
            gc_host: host.for_tenant(&format!("{name}.gc"), &format!("{name}.gc")),
            space_cv: Condvar::new(),
            gc_cv: Condvar::new(),
            flush_cv: Condvar::new(),
            io_cv: Condvar::new(),
            gc_lock: crate::sim::sync::Mutex::new(()),
            meta_lock: crate::sim::sync::Mutex::new(()),
            gc: RefCell::new(policy),
            lbas_per_block,
        });
        let fs = Fs { inner };
        fs.start_daemons();
        // The run takes its reports (and so this handle) back before it ends.
        let inner = fs.inner.clone();
        host.add_report(&name, move || {
            serde_json::to_value(report::make(&inner)).expect("serializes")
        });
        Ok(fs)
    }

    fn start_daemons(&self) {
        let inner = &self.inner;
        if inner.spec.cache.page_cache_bytes > 0 && !inner.spec.cache.writeback_interval.is_zero() {
            let fs = inner.clone();
            inner
                .host
                .spawn("fs.flusher", true, async move { io::flusher(fs).await });
        }
        match &inner.spec.personality {
            Personality::Zenfs(_) => {
                let fs = inner.clone();
                inner.host.spawn(
                    "fs.mkfs",
                    true,
                    async move { zenfs::write_superblock(fs).await },
                );
            }
            Personality::F2fs(_) => {
                let fs = inner.clone();
                inner.host.spawn(
                    "fs.checkpoint",
                    true,
                    async move { f2fs::cp_daemon(fs).await },
                );
            }
        }
        gc::spawn_daemon(inner);
    }

    pub fn spec(&self) -> &FsSpec {
        &self.inner.spec
    }

    /// The report as it stands (the run writes it to the summary at the end).
    pub fn report(&self) -> FsReport {
        report::make(&self.inner)
    }

    /// Starts the layer's counters again (with [`Host::start_measurement`]).
    pub fn reset_stats(&self) {
        self.inner.st.borrow_mut().stats = state::Stats::default();
    }

    pub fn statfs(&self) -> FsSpace {
        let st = self.inner.st.borrow();
        FsSpace {
            block_bytes: BLOCK_BYTES,
            capacity_blocks: st.capacity_blocks,
            used_blocks: st.used_blocks,
            free_zones: st.space.free_count(),
            zones: st.space.count(),
        }
    }

    fn is_zenfs(&self) -> bool {
        matches!(self.inner.spec.personality, Personality::Zenfs(_))
    }

    /// Pays CPU a call owes: its own cost plus what buffered calls on `fd` left unpaid.
    async fn pay(&self, h: &Host, fd: Option<Fd>, extra: Duration) {
        let debt = match fd {
            Some(Fd(fd)) => {
                let mut st = self.inner.st.borrow_mut();
                match st.fd_mut(fd) {
                    Ok(f) => std::mem::take(&mut f.cpu_debt_ns),
                    Err(_) => 0,
                }
            }
            None => 0,
        };
        h.cpu(self.inner.spec.cpu.call + extra + Duration::from_ns(debt))
            .await;
    }

    fn record(&self, h: &Host, op: OpKind, start: Instant, bytes: u64) {
        let key = h.metric(Layer::File, op);
        h.record(key, start, bytes);
    }

    /// Creates a directory.
    pub async fn mkdir(&self, h: &Host, path: &str) -> Result<(), FsError> {
        let start = h.now();
        self.pay(h, None, self.inner.spec.cpu.metadata).await;
        {
            let mut st = self.inner.st.borrow_mut();
            let (parent, name) = st.lookup_parent(path)?;
            if st.inode(parent).children.contains_key(name) {
                return Err(FsError::Exists(path.into()));
            }
            let ino = st.alloc_ino(Inode::new(FileKind::Dir, parent, name, Lifetime::NotSet));
            st.inode_mut(parent).children.insert(name.to_string(), ino);
            if !self.is_zenfs() {
                f2fs::dirty_inode(&mut st, ino);
                f2fs::dirty_dentry(&mut st, parent, name);
            }
        }
        self.record(h, OpKind::Other, start, 0);
        Ok(())
    }

    /// Removes an empty directory.
    pub async fn rmdir(&self, h: &Host, path: &str) -> Result<(), FsError> {
        let start = h.now();
        self.pay(h, None, self.inner.spec.cpu.metadata).await;
        {
            let mut st = self.inner.st.borrow_mut();
            let ino = st.lookup(path)?;
            let inode = st.inode(ino);
            if !inode.is_dir() {
                return Err(FsError::NotDir(path.into()));
            }
            if ino == state::ROOT || !inode.children.is_empty() {
                return Err(FsError::NotEmpty(path.into()));
            }
            let (parent, name) = (inode.parent, inode.name.clone());
            st.inode_mut(parent).children.remove(&name);
            if !self.is_zenfs() {
                f2fs::dirty_dentry(&mut st, parent, &name);
            }
            io::destroy(&self.inner, &mut st, ino);
        }
        self.record(h, OpKind::Other, start, 0);
        Ok(())
    }

    /// Creates `path` (truncating a file already there) and opens it for writing.
    pub async fn create(&self, h: &Host, path: &str, opts: CreateOptions) -> Result<Fd, FsError> {
        let start = h.now();
        self.pay(h, None, self.inner.spec.cpu.metadata).await;
        let existing = {
            let st = self.inner.st.borrow();
            let (parent, name) = st.lookup_parent(path)?;
            if !st.inode(parent).is_dir() {
                return Err(FsError::NotDir(path.into()));
            }
            st.inode(parent).children.get(name).copied()
        };
        if let Some(old) = existing {
            if self.inner.st.borrow().inode(old).is_dir() {
                return Err(FsError::IsDir(path.into()));
            }
            // ZenFS replaces the file (delete + new); F2FS truncates it in place.
            if self.is_zenfs() {
                self.unlink(h, path).await?;
            } else {
                let mut st = self.inner.st.borrow_mut();
                io::truncate(&self.inner, &mut st, old);
                let fd = st.open_fd(old, true);
                let inode = st.inode_mut(old);
                inode.opens += 1;
                inode.writers += 1;
                inode.lifetime = opts.lifetime;
                drop(st);
                self.record(h, OpKind::Create, start, 0);
                return Ok(Fd(fd));
            }
        }
        let (ino, fd) = {
            let mut st = self.inner.st.borrow_mut();
            let (parent, name) = st.lookup_parent(path)?;
            let mut inode = Inode::new(FileKind::File, parent, name, opts.lifetime);
            inode.opens = 1;
            inode.writers = 1;
            let ino = st.alloc_ino(inode);
            st.inode_mut(parent).children.insert(name.to_string(), ino);
            if !self.is_zenfs() {
                f2fs::dirty_inode(&mut st, ino);
                f2fs::dirty_dentry(&mut st, parent, name);
            }
            (ino, st.open_fd(ino, true))
        };
        if self.is_zenfs() {
            zenfs::persist(&self.inner, h, zenfs::Record::Create(ino)).await?;
        }
        self.record(h, OpKind::Create, start, 0);
        Ok(Fd(fd))
    }

    /// Opens an existing file.
    pub async fn open(&self, h: &Host, path: &str, write: bool) -> Result<Fd, FsError> {
        let start = h.now();
        self.pay(h, None, Duration::ZERO).await;
        let fd = {
            let mut st = self.inner.st.borrow_mut();
            let ino = st.lookup(path)?;
            if st.inode(ino).is_dir() {
                return Err(FsError::IsDir(path.into()));
            }
            let inode = st.inode_mut(ino);
            inode.opens += 1;
            if write {
                inode.writers += 1;
            }
            st.open_fd(ino, write)
        };
        self.record(h, OpKind::Open, start, 0);
        Ok(Fd(fd))
    }

    /// Writes at `offset` (F2FS; ZenFS files take appends only). Buffered: the data reaches the
    /// device when the buffer or page cache writes it back, or at fsync.
    pub async fn write(
        &self,
        h: &Host,
        fd: Fd,
        offset: u64,
        len: u64,
        data: Option<&[u8]>,
    ) -> Result<(), FsError> {
        let start = h.now();
        let ino = {
            let st = self.inner.st.borrow();
            let f = st.fd(fd.0)?;
            if !f.writable {
                return Err(FsError::ReadOnly(fd.0));
            }
            if self.is_zenfs() && offset != st.inode(f.ino).size {
                return Err(FsError::Unsupported(format!(
                    "ZenFS files are append-only: write at {offset}, file size {}",
                    st.inode(f.ino).size
                )));
            }
            f.ino
        };
        if let Some(d) = data {
            assert_eq!(d.len() as u64, len, "data holds `len` bytes");
        }
        if len == 0 {
            return Ok(());
        }
        io::read_partial_blocks(&self.inner, h, ino, offset, len).await?;
        let flush_now = {
            let mut st = self.inner.st.borrow_mut();
            io::write_pages(&self.inner, &mut st, ino, offset, len, data, h.now())?;
            let cpu = &self.inner.spec.cpu;
            let cost = cpu.call.ns() + cpu.copy_per_kib_ns * len.div_ceil(1024);
            st.fd_mut(fd.0)?.cpu_debt_ns += cost;
            st.stats.user_write_bytes += len;
            match &self.inner.spec.personality {
                Personality::Zenfs(z) => st.inode(ino).dirty >= z.buffer_blocks,
                Personality::F2fs(_) => false,
            }
        };
        if flush_now {
            self.pay(h, Some(fd), Duration::ZERO).await;
            io::flush_file(&self.inner, h, ino).await?;
        } else {
            io::balance_dirty(&self.inner, h).await?;
        }
        self.record(h, OpKind::Write, start, len);
        Ok(())
    }

    /// Appends at the end of the file; returns where the bytes went.
    pub async fn append(
        &self,
        h: &Host,
        fd: Fd,
        len: u64,
        data: Option<&[u8]>,
    ) -> Result<u64, FsError> {
        let offset = {
            let st = self.inner.st.borrow();
            st.inode(st.fd(fd.0)?.ino).size
        };
        self.write(h, fd, offset, len, data).await?;
        Ok(offset)
    }

    /// Reads up to `len` bytes at `offset` (fewer at the end of the file); returns how many.
    /// With `buf`, the bytes go there.
    pub async fn read(
        &self,
        h: &Host,
        fd: Fd,
        offset: u64,
        len: u64,
        buf: Option<&mut [u8]>,
    ) -> Result<u64, FsError> {
        let start = h.now();
        let ino = self.inner.st.borrow().fd(fd.0)?.ino;
        let cost = self.inner.spec.cpu.copy_per_kib_ns * len.div_ceil(1024);
        self.pay(h, Some(fd), Duration::from_ns(cost)).await;
        let n = io::read(&self.inner, h, ino, offset, len, buf).await?;
        self.inner.st.borrow_mut().stats.user_read_bytes += n;
        self.record(h, OpKind::Read, start, n);
        Ok(n)
    }

    /// Makes the file's data and metadata durable: dirty pages, then (F2FS) node blocks and a
    /// device Flush, or (ZenFS) the file's metadata record.
    pub async fn fsync(&self, h: &Host, fd: Fd) -> Result<(), FsError> {
        let start = h.now();
        let ino = self.inner.st.borrow().fd(fd.0)?.ino;
        self.pay(h, Some(fd), Duration::ZERO).await;
        io::flush_file(&self.inner, h, ino).await?;
        io::wait_written(&self.inner, h, ino).await;
        match &self.inner.spec.personality {
            Personality::F2fs(_) => {
                f2fs::write_nodes(&self.inner, h, Some(ino)).await?;
                h.io(crate::device::Command::new(crate::device::Op::Flush, 0, 0))
                    .await?;
            }
            Personality::Zenfs(_) => {
                if self.inner.st.borrow().inode(ino).meta_dirty {
                    zenfs::persist(&self.inner, h, zenfs::Record::Update(ino)).await?;
                }
            }
        }
        self.record(h, OpKind::Fsync, start, 0);
        Ok(())
    }

    /// fdatasync: in an LFS every rewrite moves blocks, so node blocks go too (as fsync).
    pub async fn fdatasync(&self, h: &Host, fd: Fd) -> Result<(), FsError> {
        self.fsync(h, fd).await
    }

    /// Closes `fd`. ZenFS writes the file's buffer and metadata and gives its zone back; a file
    /// deleted while open goes now.
    pub async fn close(&self, h: &Host, fd: Fd) -> Result<(), FsError> {
        let start = h.now();
        self.pay(h, Some(fd), Duration::ZERO).await;
        let (ino, writable) = {
            let st = self.inner.st.borrow();
            let f = st.fd(fd.0)?;
            (f.ino, f.writable)
        };
        // The descriptor closes even if writing the buffer fails (the error is returned).
        let mut result = Ok(());
        if writable && self.is_zenfs() {
            result = io::flush_file(&self.inner, h, ino).await;
            io::wait_written(&self.inner, h, ino).await;
            let (last_writer, dirty_meta) = {
                let st = self.inner.st.borrow();
                let i = st.inode(ino);
                (i.writers == 1, i.meta_dirty && i.nlink > 0)
            };
            if dirty_meta && result.is_ok() {
                result = zenfs::persist(&self.inner, h, zenfs::Record::Update(ino)).await;
            }
            if last_writer {
                let r = zenfs::release_zone(&self.inner, h, ino).await;
                result = result.and(r);
            }
        }
        let gone = {
            let mut st = self.inner.st.borrow_mut();
            st.close_fd(fd.0)?;
            let inode = st.inode_mut(ino);
            inode.opens -= 1;
            if writable {
                inode.writers -= 1;
            }
            if inode.nlink == 0 && inode.opens == 0 {
                io::destroy(&self.inner, &mut st, ino);
                true
            } else {
                false
            }
        };
        if gone && self.is_zenfs() {
            zenfs::reset_unused(&self.inner, h).await?;
        }
        self.record(h, OpKind::Close, start, 0);
        result
    }

    /// Deletes a file (its data goes when the last descriptor closes).
    pub async fn delete(&self, h: &Host, path: &str) -> Result<(), FsError> {
        let start = h.now();
        self.pay(h, None, self.inner.spec.cpu.metadata).await;
        self.unlink(h, path).await?;
        self.record(h, OpKind::Delete, start, 0);
        Ok(())
    }

    async fn unlink(&self, h: &Host, path: &str) -> Result<(), FsError> {
        let gone = {
            let mut st = self.inner.st.borrow_mut();
            let ino = st.lookup(path)?;
            if st.inode(ino).is_dir() {
                return Err(FsError::IsDir(path.into()));
            }
            let (parent, name) = {
                let i = st.inode(ino);
                (i.parent, i.name.clone())
            };
            st.inode_mut(parent).children.remove(&name);
            if !self.is_zenfs() {
                f2fs::dirty_dentry(&mut st, parent, &name);
            }
            let inode = st.inode_mut(ino);
            inode.nlink = 0;
            let gone = inode.opens == 0;
            if gone {
                io::destroy(&self.inner, &mut st, ino);
            }
            gone
        };
        if self.is_zenfs() {
            zenfs::persist(&self.inner, h, zenfs::Record::Delete).await?;
            if gone {
                zenfs::reset_unused(&self.inner, h).await?;
            }
        }
        Ok(())
    }

    /// Renames `from` to `to`, replacing a file at `to`.
    pub async fn rename(&self, h: &Host, from: &str, to: &str) -> Result<(), FsError> {
        let start = h.now();
        self.pay(h, None, self.inner.spec.cpu.metadata).await;
        let replaced = {
            let st = self.inner.st.borrow();
            let ino = st.lookup(from)?;
            let (new_parent, new_name) = st.lookup_parent(to)?;
            if !st.inode(new_parent).is_dir() {
                return Err(FsError::NotDir(to.into()));
            }
            // A directory may not move into itself.
            let mut p = new_parent;
            while p != state::ROOT {
                if p == ino {
                    return Err(FsError::InvalidPath(to.into()));
                }
                p = st.inode(p).parent;
            }
            match st.inode(new_parent).children.get(new_name) {
                Some(&t) if t == ino => return Ok(()),
                Some(&t) if st.inode(t).is_dir() || st.inode(ino).is_dir() => {
                    return Err(FsError::Exists(to.into()));
                }
                Some(_) => true,
                None => false,
            }
        };
        if replaced {
            self.unlink(h, to).await?;
        }
        let ino = {
            let mut st = self.inner.st.borrow_mut();
            let ino = st.lookup(from)?;
            let (new_parent, new_name) = st.lookup_parent(to)?;
            let (old_parent, old_name) = {
                let i = st.inode(ino);
                (i.parent, i.name.clone())
            };
            st.inode_mut(old_parent).children.remove(&old_name);
            st.inode_mut(new_parent)
                .children
                .insert(new_name.to_string(), ino);
            let i = st.inode_mut(ino);
            i.parent = new_parent;
            i.name = new_name.to_string();
            if !self.is_zenfs() {
                f2fs::dirty_dentry(&mut st, old_parent, &old_name);
                f2fs::dirty_dentry(&mut st, new_parent, new_name);
                f2fs::dirty_inode(&mut st, ino);
            }
            ino
        };
        if self.is_zenfs() {
            zenfs::persist(&self.inner, h, zenfs::Record::Rename(ino)).await?;
        }
        self.record(h, OpKind::Rename, start, 0);
        Ok(())
    }

    /// The file or directory at `path`.
    pub async fn stat(&self, h: &Host, path: &str) -> Result<Stat, FsError> {
        let start = h.now();
        self.pay(h, None, Duration::ZERO).await;
        let s = self.stat_now(path)?;
        self.record(h, OpKind::Stat, start, 0);
        Ok(s)
    }

    /// [`Fs::stat`] without simulated time (for checks between awaits).
    pub fn stat_now(&self, path: &str) -> Result<Stat, FsError> {
        let st = self.inner.st.borrow();
        let ino = st.lookup(path)?;
        let i = st.inode(ino);
        Ok(Stat {
            kind: i.kind,
            size: i.size,
            blocks: i.allocated,
            extents: i.map.run_count() as u32,
            lifetime: i.lifetime,
        })
    }

    /// Names in a directory, sorted.
    pub fn list(&self, path: &str) -> Result<Vec<String>, FsError> {
        let st = self.inner.st.borrow();
        let ino = st.lookup(path)?;
        let i = st.inode(ino);
        if !i.is_dir() {
            return Err(FsError::NotDir(path.into()));
        }
        Ok(i.children.keys().cloned().collect())
    }

    /// The size of an open file.
    pub fn size(&self, fd: Fd) -> Result<u64, FsError> {
        let st = self.inner.st.borrow();
        Ok(st.inode(st.fd(fd.0)?.ino).size)
    }

    /// Checks the layer's invariants against the zones (tests): every mapped block is live in
    /// its zone and owned by its file, live counts match, no block is mapped twice.
    pub fn check(&self) {
        io::check(&self.inner);
    }

    /// Drops clean cached pages (`echo 1 > drop_caches`): later reads go to the device.
    pub fn drop_caches(&self) {
        let mut st = self.inner.st.borrow_mut();
        let mut dropped = 0;
        for inode in st.inodes.iter_mut().flatten() {
            let before = inode.pages.len();
            inode.pages.retain(|_, p| p.dirty);
            dropped += (before - inode.pages.len()) as u64;
        }
        st.cached_pages -= dropped;
    }
}

/// Whether `path` is an absolute path of names the layer takes.
pub fn is_absolute_path(path: &str) -> bool {
    state::components(path).is_ok()
}

/// Takes in the data a `[prefill]` left in the region as the file `/prefill`.
fn adopt_prefill(host: &Host, st: &mut State, spec: &FsSpec, lbas_per_block: u64) {
    let written: Vec<(u32, u64)> = host.with_device(|d| {
        (0..spec.zone_count)
            .map(|z| (z, d.written_lbas(host.nsid(), spec.first_zone + z)))
            .filter(|&(_, l)| l > 0)
            .collect()
    });
    if written.is_empty() {
        return;
    }
    let mut inode = Inode::new(FileKind::File, state::ROOT, "prefill", Lifetime::NotSet);
    inode.meta_dirty = false;
    let ino = st.alloc_ino(inode);
    st.inode_mut(state::ROOT)
        .children
        .insert("prefill".into(), ino);
    let mut index = 0u64;
    for (z, lbas) in written {
        let blocks = (lbas / lbas_per_block) as u32;
        assert!(
            st.space.zones[z as usize].role == space::Role::Free,
            "prefill in a metadata zone (checked by config)"
        );
        st.space.claim(z, space::Role::Data);
        let (b, n) = st.space.alloc(z, blocks, Instant::ZERO);
        st.fill(z, b, n, Owner::Data { ino, index });
        let mut old = Vec::new();
        st.inode_mut(ino)
            .map
            .set(index, map::Run::new(z, b, n), &mut old);
        index += n as u64;
    }
    let inode = st.inode_mut(ino);
    inode.size = index * BLOCK_BYTES;
    inode.allocated = index;
    st.used_blocks += index;
}
