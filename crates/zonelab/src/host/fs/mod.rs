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
//! # Personalities (docs/reference/host-stack.md)
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
//! Choi et al., LSM-ZGC, HotStorage 2020 describes them. The report separates the file layer's write
//! amplification (GC and metadata blocks over user blocks) from the device's.

mod f2fs;
#[cfg(test)]
mod f2fs_log_tests;
mod file;
pub(crate) mod gc;
mod io;
pub mod map;
mod mount;
mod namei;
#[cfg(test)]
mod relocate_tests;
mod report;
#[cfg(test)]
mod reuse_tests;
pub mod space;
pub mod spec;
mod state;
#[cfg(test)]
mod tests;
mod zenfs;
#[cfg(test)]
mod zoned_gc_tests;

use std::cell::RefCell;
use std::rc::Rc;

pub use crate::device::report::fs::{FsReport, GcReport, ZoneErrorReport};
pub use spec::{
    BLOCK_BYTES, CacheSpec, CpuSpec, F2fsGcMode, F2fsSpec, FsSpec, GcPolicyKind, GcSpec,
    OnZoneError, Personality, Survivors, Victim, ZenfsSpec,
};

use crate::device::Status;
use crate::metrics::{Layer, OpKind};
use crate::sim::host::Host;
use crate::sim::sync::Condvar;
use crate::time::{Duration, Instant};
use state::{Ino, State};

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
/// F2FS's logs are streams `0..LOGS`.
pub(crate) const LOGS: usize = 6;
/// GC destination streams: Basic_ZGC's one, LSM_ZGC's C1C, C1H, C2.
pub(crate) const GC_STREAM: usize = LOGS;
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
    /// Wakes the relocator (`on_zone_error = "relocate"`).
    pub relocate_cv: Condvar,
    /// One GC pass at a time (F2FS's gc_lock).
    pub gc_lock: crate::sim::sync::Mutex<()>,
    /// Metadata log appends and checkpoints, one at a time.
    pub meta_lock: crate::sim::sync::Mutex<()>,
    pub gc: RefCell<Box<dyn gc::GcPolicy>>,
    pub lbas_per_block: u64,
    /// The block layer's zone write plugs (`io/plug.rs`).
    pub plugs: io::Plugs,
}

/// A mounted file layer; clones share it.
#[derive(Clone)]
pub struct Fs {
    inner: Rc<Inner>,
}

impl Fs {
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

    /// Checks the layer's invariants against the zones (tests): every mapped block is live in
    /// its zone and owned by its file, live counts match, no block is mapped twice.
    pub fn check(&self) {
        io::check(&self.inner);
    }

    /// Drops the clean cached pages of open file `fd` (`posix_fadvise(POSIX_FADV_DONTNEED)`
    /// over the whole file; Linux's `generic_fadvise` also starts writeback of the dirty ones,
    /// which the layer leaves to its flusher).
    pub fn fadvise_dontneed(&self, fd: Fd) -> Result<(), FsError> {
        let mut st = self.inner.st.borrow_mut();
        let ino = st.fd(fd.0)?.ino;
        st.drop_clean_pages(ino);
        Ok(())
    }

    /// Drops clean cached pages (`echo 1 > drop_caches`): later reads go to the device.
    pub fn drop_caches(&self) {
        let mut st = self.inner.st.borrow_mut();
        for ino in 0..st.inodes.len() as Ino {
            if st.inodes[ino as usize].is_some() {
                st.drop_clean_pages(ino);
            }
        }
    }
}

/// Whether `path` is an absolute path of names the layer takes.
pub fn is_absolute_path(path: &str) -> bool {
    state::components(path).is_ok()
}
