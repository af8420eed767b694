//! The file layer's in-memory state: inodes and the directory tree, open files, the page cache
//! (dirty and clean pages, least recently used files first out), and the counters the report
//! is made from. Nothing here awaits: the async operations in `mod.rs` borrow it between
//! awaits and never across one.

use std::collections::{BTreeMap, BTreeSet};

use hashlink::LinkedHashSet;
use rustc_hash::{FxBuildHasher, FxHashMap};

use super::map::{BlockMap, Run};
use super::space::{Owner, Space};
use super::{FileKind, FsError, Lifetime};
use crate::time::Instant;

pub type Ino = u32;
pub const ROOT: Ino = 0;

/// A cached file page: dirty (not yet on the device) or clean. Bytes only in data mode.
pub struct Page {
    pub dirty: bool,
    pub data: Option<Box<[u8]>>,
}

pub struct Inode {
    pub kind: FileKind,
    pub parent: Ino,
    pub name: String,
    /// Links from the namespace: 0 once deleted (the data goes at the last close).
    pub nlink: u32,
    pub size: u64,
    pub map: BlockMap,
    /// Hashed, not ordered: nothing walks the cache in file order, and a lookup is one probe.
    pub pages: FxHashMap<u64, Page>,
    pub dirty: u32,
    /// The dirty pages' indices, each once, in no order: writeback sorts them (appending here
    /// is cheaper than keeping a tree sorted at every write).
    pub dirty_idx: Vec<u64>,
    /// When the oldest dirty page was dirtied.
    pub dirty_since: Option<Instant>,
    pub children: BTreeMap<String, Ino>,
    pub lifetime: Lifetime,
    pub opens: u32,
    pub writers: u32,
    /// Blocks counted against the file layer's capacity (on the device, or dirty and new).
    pub allocated: u64,
    /// ZenFS: the zone this file appends to.
    pub zone: Option<u32>,
    /// F2FS: node blocks on the device (index -> zone, block) and the ones to rewrite.
    pub nodes: BTreeMap<u32, (u32, u32)>,
    pub dirty_nodes: BTreeSet<u32>,
    /// F2FS's `FI_HOT_DATA`: the last writeback found at most `min_hot_blocks` dirty pages, so
    /// the data goes to the hot log.
    pub hot_data: bool,
    /// Metadata to persist (ZenFS: a file record; F2FS: the inode block).
    pub meta_dirty: bool,
    /// ZenFS: runs already described in the metadata log.
    pub persisted_runs: usize,
    /// Device writes of this file in flight.
    pub inflight: u32,
    /// Which file this is among those that held its number (numbers are reused once a file is
    /// gone, while writes of the old one may still be in flight).
    pub incarnation: u64,
}

impl Inode {
    pub fn new(kind: FileKind, parent: Ino, name: &str, lifetime: Lifetime) -> Self {
        Inode {
            kind,
            parent,
            name: name.to_string(),
            nlink: 1,
            size: 0,
            map: BlockMap::default(),
            pages: FxHashMap::default(),
            dirty: 0,
            dirty_idx: Vec::new(),
            dirty_since: None,
            children: BTreeMap::new(),
            lifetime,
            opens: 0,
            writers: 0,
            allocated: 0,
            zone: None,
            nodes: BTreeMap::new(),
            dirty_nodes: BTreeSet::new(),
            hot_data: false,
            meta_dirty: true,
            persisted_runs: 0,
            inflight: 0,
            incarnation: 0,
        }
    }

    pub fn is_dir(&self) -> bool {
        self.kind == FileKind::Dir
    }
}

pub struct OpenFile {
    pub ino: Ino,
    pub writable: bool,
    /// CPU owed by buffered calls, paid at the next call that waits anyway.
    pub cpu_debt_ns: u64,
}

/// Counters behind the report.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Bytes callers wrote and read.
    pub user_write_bytes: u64,
    pub user_read_bytes: u64,
    /// Blocks the layer wrote to the device: file data (from callers), GC copies, and its own
    /// metadata (node and dentry blocks, the ZenFS log), and blocks read for GC.
    pub data_blocks_written: u64,
    pub gc_blocks_written: u64,
    pub meta_blocks_written: u64,
    pub gc_blocks_read: u64,
    /// Blocks GC read that held no live data (LSM_ZGC reads valid and invalid together).
    pub gc_dead_blocks_read: u64,
    /// Live blocks GC took from clean cached pages instead of reading them.
    pub gc_blocks_from_cache: u64,
    pub device_reads: u64,
    /// F2FS: bytes written to the conventional metadata device.
    pub meta_device_bytes: u64,
    pub checkpoints: u64,
    pub zone_resets: u64,
    pub zone_finishes: u64,
    /// Blocks of room left behind by finished zones.
    pub finish_padding_blocks: u64,
    pub gc_runs_fg: u64,
    pub gc_runs_bg: u64,
    pub gc_zones: u64,
    /// Live blocks of the victims when they were chosen (GC never copies more).
    pub gc_live_at_pick: u64,
    /// Simulated time spent collecting (victim chosen to victim reset), and its part in the
    /// foreground (a writer waiting).
    pub gc_ns: u64,
    pub gc_fg_ns: u64,
    /// Live share of each collected zone when chosen, in tenths (0..=10).
    pub victim_util_tenths: [u64; 11],
    /// LSM_ZGC: blocks copied into each level (C1C, C1H, C2).
    pub gc_class_blocks: [u64; 4],
    /// F2FS with `dirty_sections`: why foreground collections started.
    pub fg_triggers: FgTriggers,
    /// Writers that waited for dirty pages to be written back.
    pub dirty_throttles: u64,
    pub writeback_blocks: u64,
    /// Writes the device refused and what the layer did about them (`on_zone_error`).
    pub zone_errors: ZoneErrorStats,
}

/// Why F2FS's foreground collections started ([`crate::host::fs::gc::f2fs::Short`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct FgTriggers {
    pub sections_needed: u64,
    /// By the log whose section lacked room (hot, warm, cold data; hot, warm, cold node).
    pub log_room: [u64; 6],
}

/// What `on_zone_error = "relocate"` did.
#[derive(Clone, Copy, Debug, Default)]
pub struct ZoneErrorStats {
    pub writes_refused: u64,
    pub zones_retired: u64,
    pub zones_finished: u64,
    /// Blocks of refused writes written again elsewhere.
    pub blocks_relocated: u64,
    /// Live blocks of an Offline zone written again from the page cache (data) or from memory
    /// (F2FS node blocks).
    pub blocks_recovered: u64,
    /// Live blocks of an Offline zone the layer had no copy of: reads of them fail.
    pub blocks_lost: u64,
    /// Reads the device refused because their zone was Offline.
    pub reads_refused: u64,
}

pub struct State {
    pub space: Space,
    pub inodes: Vec<Option<Inode>>,
    free_inos: Vec<Ino>,
    /// Files ever allocated (each file's [`Inode::incarnation`]).
    incarnations: u64,
    pub fds: Vec<Option<OpenFile>>,
    free_fds: Vec<u32>,
    /// Pages in the cache, and dirty ones.
    pub cached_pages: u64,
    pub dirty_pages: u64,
    pub cache_limit_pages: u64,
    /// Files with cached pages, least recently used first.
    lru: LinkedHashSet<Ino, FxBuildHasher>,
    /// Blocks allocated to files, and how many users may have.
    pub used_blocks: u64,
    pub capacity_blocks: u64,
    /// Stream heads: the zone each log (or GC level) appends to.
    pub heads: Vec<Option<u32>>,
    /// Zones with data, none of it live, nobody writing: reset next (ZenFS at once after the
    /// call that killed them, F2FS at the next checkpoint: its prefree sections).
    pub dead: BTreeSet<u32>,
    /// Device commands of the layer in flight (F2FS's idle check), and the reads among them
    /// (the zoned cleaner's `is_inflight_read_io`).
    pub inflight_io: u32,
    pub inflight_reads: u32,
    /// Inodes that may have dirty node blocks, and directories with dirty dentry blocks (F2FS's
    /// checkpoint writes them without scanning every inode).
    pub node_dirty: BTreeSet<Ino>,
    pub dirty_dirs: BTreeSet<Ino>,
    pub zen: super::zenfs::ZenState,
    pub f2: super::f2fs::F2State,
    pub stats: Stats,
    /// Bumped whenever a zone is freed or dirty pages go (waiters re-check).
    pub generation: u64,
    /// Pages carry bytes (the device keeps data).
    pub data: bool,
    /// The flusher's last writeback found no room (throttled writers get the error).
    pub writeback_failed: bool,
    /// Files with blocks a refused write or an Offline zone made dirty again (the relocator
    /// writes them back).
    pub relocate: BTreeSet<Ino>,
}

impl State {
    pub fn new(space: Space, cache_limit_pages: u64, capacity_blocks: u64, streams: usize) -> Self {
        let mut root = Inode::new(FileKind::Dir, ROOT, "", Lifetime::NotSet);
        root.meta_dirty = false;
        State {
            space,
            inodes: vec![Some(root)],
            free_inos: Vec::new(),
            incarnations: 0,
            fds: Vec::new(),
            free_fds: Vec::new(),
            cached_pages: 0,
            dirty_pages: 0,
            cache_limit_pages,
            lru: LinkedHashSet::with_hasher(FxBuildHasher),
            used_blocks: 0,
            capacity_blocks,
            heads: vec![None; streams],
            dead: BTreeSet::new(),
            inflight_io: 0,
            inflight_reads: 0,
            node_dirty: BTreeSet::new(),
            dirty_dirs: BTreeSet::new(),
            zen: Default::default(),
            f2: Default::default(),
            stats: Stats::default(),
            generation: 0,
            data: false,
            writeback_failed: false,
            relocate: BTreeSet::new(),
        }
    }

    pub fn inode(&self, ino: Ino) -> &Inode {
        self.inodes[ino as usize].as_ref().expect("live inode")
    }

    pub fn inode_mut(&mut self, ino: Ino) -> &mut Inode {
        self.inodes[ino as usize].as_mut().expect("live inode")
    }

    pub fn exists(&self, ino: Ino) -> bool {
        self.inodes.get(ino as usize).is_some_and(|i| i.is_some())
    }

    pub fn alloc_ino(&mut self, mut inode: Inode) -> Ino {
        self.incarnations += 1;
        inode.incarnation = self.incarnations;
        match self.free_inos.pop() {
            Some(i) => {
                self.inodes[i as usize] = Some(inode);
                i
            }
            None => {
                self.inodes.push(Some(inode));
                self.inodes.len() as Ino - 1
            }
        }
    }

    /// Drops an inode whose data is gone.
    pub fn free_ino(&mut self, ino: Ino) {
        let inode = self.inodes[ino as usize].take().expect("live inode");
        debug_assert_eq!(inode.map.blocks(), 0);
        self.lru.remove(&ino);
        self.free_inos.push(ino);
    }

    pub fn open_fd(&mut self, ino: Ino, writable: bool) -> u32 {
        let f = OpenFile {
            ino,
            writable,
            cpu_debt_ns: 0,
        };
        match self.free_fds.pop() {
            Some(i) => {
                self.fds[i as usize] = Some(f);
                i
            }
            None => {
                self.fds.push(Some(f));
                self.fds.len() as u32 - 1
            }
        }
    }

    pub fn fd(&self, fd: u32) -> Result<&OpenFile, FsError> {
        self.fds
            .get(fd as usize)
            .and_then(|f| f.as_ref())
            .ok_or(FsError::BadFd(fd))
    }

    pub fn fd_mut(&mut self, fd: u32) -> Result<&mut OpenFile, FsError> {
        self.fds
            .get_mut(fd as usize)
            .and_then(|f| f.as_mut())
            .ok_or(FsError::BadFd(fd))
    }

    pub fn close_fd(&mut self, fd: u32) -> Result<OpenFile, FsError> {
        let f = self
            .fds
            .get_mut(fd as usize)
            .and_then(|f| f.take())
            .ok_or(FsError::BadFd(fd))?;
        self.free_fds.push(fd);
        Ok(f)
    }

    /// The inode at `path` (absolute, `/`-separated).
    pub fn lookup(&self, path: &str) -> Result<Ino, FsError> {
        let mut ino = ROOT;
        for part in components(path)? {
            let inode = self.inode(ino);
            if !inode.is_dir() {
                return Err(FsError::NotDir(path.to_string()));
            }
            ino = *inode
                .children
                .get(part)
                .ok_or_else(|| FsError::NotFound(path.to_string()))?;
        }
        Ok(ino)
    }

    /// The directory that holds `path` and the last name in it.
    pub fn lookup_parent<'p>(&self, path: &'p str) -> Result<(Ino, &'p str), FsError> {
        let parts = components(path)?;
        let (name, dirs) = parts
            .split_last()
            .ok_or_else(|| FsError::InvalidPath(path.to_string()))?;
        let mut ino = ROOT;
        for part in dirs {
            ino = *self
                .inode(ino)
                .children
                .get(*part)
                .ok_or_else(|| FsError::NotFound(path.to_string()))?;
            if !self.inode(ino).is_dir() {
                return Err(FsError::NotDir(path.to_string()));
            }
        }
        Ok((ino, name))
    }

    /// Marks `ino` as just used in the page cache.
    pub fn touch(&mut self, ino: Ino) {
        if !self.lru.to_back(&ino) {
            self.lru.insert(ino);
        }
    }

    /// Drops clean pages of the least recently used files until the cache fits.
    pub fn evict(&mut self) {
        while self.cached_pages > self.cache_limit_pages {
            let Some(ino) = self.lru.pop_front() else {
                break;
            };
            self.drop_clean_pages(ino);
        }
    }

    /// Drops the clean cached pages of file `ino` (dirty ones stay); returns how many went.
    pub fn drop_clean_pages(&mut self, ino: Ino) -> u64 {
        let inode = self.inodes[ino as usize].as_mut().expect("a live inode");
        let before = inode.pages.len();
        inode.pages.retain(|_, p| p.dirty);
        // A table keeps its capacity when emptied: a file written sequentially past the cache
        // leaves one sized for the whole cache, and random writes to it then miss the CPU cache
        // on every lookup (and every drop scans it). Give the room back.
        let len = inode.pages.len();
        if inode.pages.capacity() > 4 * len + 1024 {
            inode.pages.shrink_to(2 * len);
        }
        let dropped = (before - len) as u64;
        self.cached_pages -= dropped;
        dropped
    }

    /// Caches page `index` of file `ino` as clean with `data`, unless the file has a page
    /// there already (which is as new or newer); returns whether it was added.
    pub fn cache_clean_page(&mut self, ino: Ino, index: u64, data: Option<Box<[u8]>>) -> bool {
        let inode = self.inodes[ino as usize].as_mut().expect("a live inode");
        match inode.pages.entry(index) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(Page { dirty: false, data });
                self.cached_pages += 1;
                true
            }
            std::collections::hash_map::Entry::Occupied(_) => false,
        }
    }

    /// Marks data runs dead (overwritten, moved, deleted); zones left with no live data become
    /// candidates for a reset.
    pub fn kill_runs(&mut self, runs: &[Run]) {
        for &r in runs {
            if self.space.zones[r.zone as usize].role == super::space::Role::Retired {
                // A block that dies in a retired zone is not free space again.
                self.capacity_blocks = self.capacity_blocks.saturating_sub(r.len as u64);
            }
            self.space.kill(r);
            self.f2.note_kill(&self.space, r);
            self.check_dead(r.zone);
        }
    }

    /// Puts `z` on the dead list if it holds data, none live, and nobody writes or collects it.
    pub fn check_dead(&mut self, z: u32) {
        let zone = &self.space.zones[z as usize];
        if zone.role == super::space::Role::Data
            && zone.wp > 0
            && zone.valid == 0
            && zone.head.is_none()
            && !zone.collecting
        {
            self.dead.insert(z);
        }
    }

    /// F2FS: node block `idx` of `ino` must be rewritten.
    pub fn dirty_node(&mut self, ino: Ino, idx: u32) {
        self.inode_mut(ino).dirty_nodes.insert(idx);
        self.node_dirty.insert(ino);
    }

    /// Stops stream `s` appending to its zone.
    pub fn release_head(&mut self, s: usize) {
        if let Some(z) = self.heads[s].take() {
            self.space.zones[z as usize].head = None;
            self.check_dead(z);
        }
    }

    /// Records a write of `len` blocks at `zone:block` for `owner`.
    pub fn fill(&mut self, zone: u32, block: u32, len: u32, owner: Owner) {
        self.space.fill(zone, block, len, owner);
        self.f2.note_fill(&self.space, zone, block, len);
    }
}

/// The names in an absolute path.
pub fn components(path: &str) -> Result<Vec<&str>, FsError> {
    if !path.starts_with('/') {
        return Err(FsError::InvalidPath(path.to_string()));
    }
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    if parts.iter().any(|p| *p == "." || *p == "..") {
        return Err(FsError::InvalidPath(path.to_string()));
    }
    Ok(parts)
}
