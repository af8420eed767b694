//! Names: directories, creating, opening, renaming and deleting files, and looking them up.

use super::state::{self, Inode};
use super::{CreateOptions, Fd, FileKind, Fs, FsError, Lifetime, Stat, f2fs, io, zenfs};
use crate::metrics::OpKind;
use crate::sim::host::Host;
use crate::time::Duration;

impl Fs {
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

    /// fsync of directory `path`. F2FS writes a checkpoint: `f2fs_do_sync_file` sends a
    /// directory straight to `need_do_checkpoint`, which asks for one for anything not a
    /// regular file (`CP_NON_REGULAR`, fs/f2fs/file.c, Linux 6.12), so sections emptied since
    /// the last one are reset. ZenFS keeps directories on its auxiliary file system: nothing
    /// reaches the zoned device.
    pub async fn fsync_dir(&self, h: &Host, path: &str) -> Result<(), FsError> {
        let start = h.now();
        self.pay(h, None, self.inner.spec.cpu.metadata).await;
        {
            let st = self.inner.st.borrow();
            let ino = st.lookup(path)?;
            if !st.inode(ino).is_dir() {
                return Err(FsError::NotDir(path.into()));
            }
        }
        if !self.is_zenfs() {
            f2fs::checkpoint(&self.inner, h).await?;
        }
        self.record(h, OpKind::Fsync, start, 0);
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
}
