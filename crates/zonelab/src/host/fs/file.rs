//! Open files: writes and appends (buffered), reads, fsync and close.

use super::state::Ino;
use super::{Fd, Fs, FsError, Personality, f2fs, io, zenfs};
use crate::metrics::OpKind;
use crate::sim::host::Host;
use crate::time::{Duration, Instant};

/// Files an unmount writes back at once (chosen: 64 files keep the plug of every log busy with
/// writes queued behind it; merges stop only at each group's end).
const UNMOUNT_FILES: usize = 64;

impl Fs {
    /// Writes at `offset` (F2FS; ZenFS files take appends only). Buffered: the data reaches the
    /// device when the buffer or page cache writes it back, or at fsync. `NoSpace` comes either
    /// before the cache takes the data (the file is as it was) or from the write-back this write
    /// set off (a full ZenFS buffer, or too many dirty pages): then the data stays in the cache,
    /// dirty, as after an fsync that found no room.
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

    /// Makes the file's data and metadata durable: dirty pages, then (F2FS) node blocks, or
    /// (ZenFS) the file's metadata record. No device Flush: F2FS's fsync asks for one
    /// (f2fs_issue_flush, REQ_PREFLUSH), but Linux's block layer completes it without sending
    /// it to a device with no volatile write cache, and ZoneLab's devices have none (their write
    /// buffers are power-loss protected; `zonelab ublk` advertises no cache, and NVMeVirt, the
    /// emulator ReZNS ran on, sets VWC to 0). Real F2FS on `zonelab ublk` sent no Flush in any
    /// capture (experiments/rezns/real-f2fs/).
    pub async fn fsync(&self, h: &Host, fd: Fd) -> Result<(), FsError> {
        let start = h.now();
        let ino = self.inner.st.borrow().fd(fd.0)?.ino;
        self.pay(h, Some(fd), Duration::ZERO).await;
        io::flush_file(&self.inner, h, ino).await?;
        io::wait_written(&self.inner, h, ino).await;
        match &self.inner.spec.personality {
            Personality::F2fs(_) => {
                f2fs::write_nodes(&self.inner, h, Some(ino)).await?;
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

    /// What `umount` writes (Linux's `sync_filesystem`, then F2FS's `f2fs_put_super`): every
    /// file's dirty pages, planned oldest dirtied first (fs-writeback.c keeps `b_dirty` in that order),
    /// then on F2FS a checkpoint (CP_UMOUNT: dentry and node blocks, then the resets of prefree
    /// sections), on ZenFS each file's changed metadata. Open descriptors stay usable.
    pub async fn unmount(&self, h: &Host) -> Result<(), FsError> {
        let f2fs = !self.is_zenfs();
        let dirty: Vec<Ino> = {
            let st = self.inner.st.borrow();
            let mut v: Vec<(Instant, Ino)> = st
                .inodes
                .iter()
                .enumerate()
                .filter_map(|(i, n)| n.as_ref().map(|n| (i as Ino, n)))
                // F2FS's dentry blocks go with the checkpoint.
                .filter(|(_, n)| n.dirty > 0 && !(f2fs && n.is_dir()))
                .map(|(i, n)| (n.dirty_since.unwrap_or(Instant::ZERO), i))
                .collect();
            v.sort_unstable();
            v.into_iter().map(|(_, i)| i).collect()
        };
        // Sent together, waited for together (WB_SYNC_ALL writes every inode, then waits):
        // writes that continue each other in a log merge in its zone's plug. UNMOUNT_FILES at a
        // time: every completion wakes every waiting write, so all at once costs the simulator
        // the square of the file count.
        for files in dirty.chunks(UNMOUNT_FILES) {
            let sent =
                crate::host::join_all(files.iter().map(|&ino| io::flush_file(&self.inner, h, ino)))
                    .await;
            sent.into_iter().collect::<Result<Vec<()>, FsError>>()?;
        }
        if f2fs {
            return f2fs::checkpoint(&self.inner, h).await;
        }
        let changed: Vec<Ino> = {
            let st = self.inner.st.borrow();
            (0..st.inodes.len() as Ino)
                .filter(|&i| st.exists(i) && st.inode(i).meta_dirty && st.inode(i).nlink > 0)
                .collect()
        };
        for ino in changed {
            zenfs::persist(&self.inner, h, zenfs::Record::Update(ino)).await?;
        }
        Ok(())
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

    /// The size of an open file.
    pub fn size(&self, fd: Fd) -> Result<u64, FsError> {
        let st = self.inner.st.borrow();
        Ok(st.inode(st.fd(fd.0)?.ino).size)
    }
}
