//! The file interface the store writes through: the few calls RocksDB's `FileSystem` makes
//! (create with a write lifetime hint, append, sync, close, open, read at an offset, delete,
//! rename), so the LSM logic does not depend on a particular file layer. [`MemFiles`] keeps
//! files in memory at no device cost (the LSM logic and the validation against db_bench run
//! on it); a binding to the zoned file layer makes them zoned I/O.

use std::cell::RefCell;
use std::collections::BTreeMap;

use crate::sim::host::Host;

/// RocksDB's write lifetime hints (include/rocksdb/env.h `WriteLifeTimeHint`) are the file
/// layer's [`Lifetime`]s: ZenFS places files by them. WAL short, flushes and L0/L1 medium,
/// deeper levels longer.
pub use crate::host::fs::Lifetime as WriteHint;

/// The hint RocksDB gives a compaction output at `level` with base level 1 (level style,
/// `ColumnFamilyData::CalculateSSTWriteHint`): below or at the base level medium, base + 1
/// long, deeper extreme.
pub fn hint_for_level(level: usize) -> WriteHint {
    match level {
        0 | 1 => WriteHint::Medium,
        2 => WriteHint::Long,
        _ => WriteHint::Extreme,
    }
}

/// An open file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileHandle(pub u64);

/// A file-layer error, with the path or handle it concerns.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FileError {
    #[error("{0}: no such file")]
    NotFound(String),
    #[error("{0}: already exists")]
    Exists(String),
    #[error("file handle {0} is not open")]
    BadHandle(u64),
    #[error("no space left in the file layer")]
    NoSpace,
    #[error("{0}")]
    Other(String),
}

/// What the store needs from a file layer. Every call is made by the task that needs it, so
/// device commands it causes are that task's (a flush thread's, a writer's).
#[allow(async_fn_in_trait)]
pub trait KvFiles {
    /// Creates directory `path` if it is missing (RocksDB's `CreateDirIfMissing` at open).
    async fn create_dir(&self, h: &Host, path: &str) -> Result<(), FileError>;
    /// Creates `path` for writing (appends only).
    async fn create(&self, h: &Host, path: &str, hint: WriteHint) -> Result<FileHandle, FileError>;
    /// Appends `bytes` (and their contents when the layer keeps data).
    async fn append(
        &self,
        h: &Host,
        f: FileHandle,
        bytes: u64,
        data: Option<&[u8]>,
    ) -> Result<(), FileError>;
    /// Makes what was appended durable (fdatasync).
    async fn sync(&self, h: &Host, f: FileHandle) -> Result<(), FileError>;
    /// fsync of directory `path`: RocksDB's `FSDirectory::FsyncWithDirOptions`, which it calls
    /// once a flush or a compaction has written its new tables (`FlushJob::WriteLevel0Table`,
    /// `CompactionJob::SyncOutputDirectories`).
    async fn sync_dir(&self, h: &Host, path: &str) -> Result<(), FileError>;
    async fn close(&self, h: &Host, f: FileHandle) -> Result<(), FileError>;
    /// Opens `path` for reading.
    async fn open(&self, h: &Host, path: &str) -> Result<FileHandle, FileError>;
    /// Reads `len` bytes at `offset`; returns the bytes read.
    async fn read(&self, h: &Host, f: FileHandle, offset: u64, len: u64) -> Result<u64, FileError>;
    async fn delete(&self, h: &Host, path: &str) -> Result<(), FileError>;
    async fn rename(&self, h: &Host, from: &str, to: &str) -> Result<(), FileError>;
    /// Size of `path` now, if it exists.
    fn size(&self, path: &str) -> Option<u64>;
}

/// Files in memory: no device, no time. Sizes only (the store keeps payloads itself).
#[derive(Default)]
pub struct MemFiles {
    inner: RefCell<MemInner>,
}

#[derive(Default)]
struct MemInner {
    /// Files by slot; a deleted file's slot is empty.
    files: Vec<Option<MemFile>>,
    paths: BTreeMap<String, usize>,
    /// Open handles: (slot, writable).
    open: rustc_hash::FxHashMap<u64, (usize, bool)>,
    next: u64,
    /// Bytes appended, and bytes read, over the run.
    appended: u64,
    read: u64,
    /// Directory fsyncs over the run.
    dir_syncs: u64,
}

#[derive(Clone, Copy, Debug, Default)]
struct MemFile {
    size: u64,
    hint: WriteHint,
}

impl MemFiles {
    pub fn new() -> Self {
        MemFiles::default()
    }

    /// Paths and sizes of the files that exist.
    pub fn list(&self) -> Vec<(String, u64)> {
        let i = self.inner.borrow();
        i.paths
            .iter()
            .map(|(p, &slot)| (p.clone(), i.files[slot].expect("a named file exists").size))
            .collect()
    }

    pub fn hint(&self, path: &str) -> Option<WriteHint> {
        let i = self.inner.borrow();
        i.paths.get(path).and_then(|&s| i.files[s]).map(|f| f.hint)
    }

    /// Directory fsyncs since the start.
    pub fn dir_syncs(&self) -> u64 {
        self.inner.borrow().dir_syncs
    }

    /// (bytes appended, bytes read) since the start.
    pub fn traffic(&self) -> (u64, u64) {
        let i = self.inner.borrow();
        (i.appended, i.read)
    }
}

impl MemInner {
    fn slot(&self, f: FileHandle, write: bool) -> Result<usize, FileError> {
        match self.open.get(&f.0) {
            Some(&(slot, w)) if (w || !write) && self.files[slot].is_some() => Ok(slot),
            _ => Err(FileError::BadHandle(f.0)),
        }
    }

    fn handle(&mut self, slot: usize, write: bool) -> FileHandle {
        self.next += 1;
        self.open.insert(self.next, (slot, write));
        FileHandle(self.next)
    }
}

impl KvFiles for MemFiles {
    /// Paths are names here: nothing to create.
    async fn create_dir(&self, _h: &Host, _path: &str) -> Result<(), FileError> {
        Ok(())
    }

    /// No directories, no device: nothing to make durable (counted).
    async fn sync_dir(&self, _h: &Host, _path: &str) -> Result<(), FileError> {
        self.inner.borrow_mut().dir_syncs += 1;
        Ok(())
    }

    async fn create(
        &self,
        _h: &Host,
        path: &str,
        hint: WriteHint,
    ) -> Result<FileHandle, FileError> {
        let mut i = self.inner.borrow_mut();
        if i.paths.contains_key(path) {
            return Err(FileError::Exists(path.to_string()));
        }
        i.files.push(Some(MemFile { size: 0, hint }));
        let slot = i.files.len() - 1;
        i.paths.insert(path.to_string(), slot);
        Ok(i.handle(slot, true))
    }

    async fn append(
        &self,
        _h: &Host,
        f: FileHandle,
        bytes: u64,
        _data: Option<&[u8]>,
    ) -> Result<(), FileError> {
        let mut i = self.inner.borrow_mut();
        let slot = i.slot(f, true)?;
        i.appended += bytes;
        i.files[slot].as_mut().expect("checked").size += bytes;
        Ok(())
    }

    async fn sync(&self, _h: &Host, f: FileHandle) -> Result<(), FileError> {
        self.inner.borrow().slot(f, false).map(|_| ())
    }

    async fn close(&self, _h: &Host, f: FileHandle) -> Result<(), FileError> {
        self.inner
            .borrow_mut()
            .open
            .remove(&f.0)
            .map(|_| ())
            .ok_or(FileError::BadHandle(f.0))
    }

    async fn open(&self, _h: &Host, path: &str) -> Result<FileHandle, FileError> {
        let mut i = self.inner.borrow_mut();
        let slot = *i
            .paths
            .get(path)
            .ok_or_else(|| FileError::NotFound(path.to_string()))?;
        Ok(i.handle(slot, false))
    }

    async fn read(
        &self,
        _h: &Host,
        f: FileHandle,
        offset: u64,
        len: u64,
    ) -> Result<u64, FileError> {
        let mut i = self.inner.borrow_mut();
        let slot = i.slot(f, false)?;
        let size = i.files[slot].expect("checked").size;
        let n = len.min(size.saturating_sub(offset));
        i.read += n;
        Ok(n)
    }

    async fn delete(&self, _h: &Host, path: &str) -> Result<(), FileError> {
        let mut i = self.inner.borrow_mut();
        let slot = i
            .paths
            .remove(path)
            .ok_or_else(|| FileError::NotFound(path.to_string()))?;
        i.files[slot] = None;
        Ok(())
    }

    async fn rename(&self, _h: &Host, from: &str, to: &str) -> Result<(), FileError> {
        let mut i = self.inner.borrow_mut();
        if i.paths.contains_key(to) {
            return Err(FileError::Exists(to.to_string()));
        }
        let slot = i
            .paths
            .remove(from)
            .ok_or_else(|| FileError::NotFound(from.to_string()))?;
        i.paths.insert(to.to_string(), slot);
        Ok(())
    }

    fn size(&self, path: &str) -> Option<u64> {
        let i = self.inner.borrow();
        i.paths.get(path).and_then(|&s| i.files[s]).map(|f| f.size)
    }
}
