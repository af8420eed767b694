//! The store's files on the zoned file layer ([`Fs`]): each call becomes the file layer's
//! (create with the lifetime hint, append, fdatasync, open, pread, close, unlink, rename), so
//! WAL, flush and compaction writes reach the device as zoned I/O, placed by the layer's
//! personality (ZenFS by lifetime, F2FS by its logs) and charged to the task that made them.

use super::files::{FileError, FileHandle, KvFiles, WriteHint};
use crate::host::fs::{CreateOptions, Fd, Fs, FsError};
use crate::sim::host::Host;

impl From<FsError> for FileError {
    fn from(e: FsError) -> Self {
        match e {
            FsError::NotFound(p) => FileError::NotFound(p),
            FsError::Exists(p) => FileError::Exists(p),
            FsError::BadFd(fd) => FileError::BadHandle(fd.into()),
            FsError::NoSpace => FileError::NoSpace,
            other => FileError::Other(other.to_string()),
        }
    }
}

fn fd(f: FileHandle) -> Result<Fd, FileError> {
    u32::try_from(f.0)
        .map(Fd)
        .map_err(|_| FileError::BadHandle(f.0))
}

impl KvFiles for Fs {
    /// Creates each missing directory on the way (`mkdir -p`).
    async fn create_dir(&self, h: &Host, path: &str) -> Result<(), FileError> {
        let mut at = String::new();
        for name in path.split('/').filter(|n| !n.is_empty()) {
            at.push('/');
            at.push_str(name);
            match self.mkdir(h, &at).await {
                Ok(()) | Err(FsError::Exists(_)) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }

    async fn create(&self, h: &Host, path: &str, hint: WriteHint) -> Result<FileHandle, FileError> {
        let fd = Fs::create(self, h, path, CreateOptions::lifetime(hint)).await?;
        Ok(FileHandle(fd.0.into()))
    }

    async fn append(
        &self,
        h: &Host,
        f: FileHandle,
        bytes: u64,
        data: Option<&[u8]>,
    ) -> Result<(), FileError> {
        Fs::append(self, h, fd(f)?, bytes, data).await?;
        Ok(())
    }

    async fn sync(&self, h: &Host, f: FileHandle) -> Result<(), FileError> {
        Ok(self.fdatasync(h, fd(f)?).await?)
    }

    async fn sync_dir(&self, h: &Host, path: &str) -> Result<(), FileError> {
        Ok(self.fsync_dir(h, path).await?)
    }

    async fn close(&self, h: &Host, f: FileHandle) -> Result<(), FileError> {
        Ok(Fs::close(self, h, fd(f)?).await?)
    }

    async fn open(&self, h: &Host, path: &str) -> Result<FileHandle, FileError> {
        let fd = Fs::open(self, h, path, false).await?;
        Ok(FileHandle(fd.0.into()))
    }

    async fn read(&self, h: &Host, f: FileHandle, offset: u64, len: u64) -> Result<u64, FileError> {
        Ok(Fs::read(self, h, fd(f)?, offset, len, None).await?)
    }

    async fn delete(&self, h: &Host, path: &str) -> Result<(), FileError> {
        Ok(Fs::delete(self, h, path).await?)
    }

    async fn rename(&self, h: &Host, from: &str, to: &str) -> Result<(), FileError> {
        Ok(Fs::rename(self, h, from, to).await?)
    }

    fn size(&self, path: &str) -> Option<u64> {
        self.stat_now(path).ok().map(|s| s.size)
    }
}
