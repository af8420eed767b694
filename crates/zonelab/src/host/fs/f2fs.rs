//! The F2FS personality in zoned mode (Linux fs/f2fs as of 5.16, with 6.12's log choice,
//! foreground cleaning and zoned cleaner; f2fs-tools 1.14; docs/reference/host-stack.md (b)).
//!
//! - Main area: every zone of the region is a section of 2 MiB segments; LFS only (no
//!   in-place updates, no SSR). Six logs (`active_logs`; 2 and 4 map as F2FS does): hot data
//!   (dentry blocks, files hinted short-lived, and a file whose writeback finds at most 16 dirty
//!   pages: Linux 6.12's `FI_HOT_DATA`, so an fsync every 16 writes goes hot), warm data (other
//!   files), cold data (files hinted extreme, blocks moved by GC), hot node (directories' direct
//!   nodes), warm node (files' inode and direct node blocks), cold node (indirect nodes).
//! - A file's block addresses live in its inode (923 of them) and in direct node blocks (1018
//!   each); writing a data block dirties the node that points at it, and fsync writes the
//!   file's dirty direct nodes to the node log. A direct node the file did not have dirties
//!   the indirect node(s) recording its id, written at the next checkpoint; nothing else
//!   rewrites an indirect node: F2FS's NAT lets a node move without its parent changing.
//! - Directories store their entries in dentry blocks (214 entries each) written to the hot
//!   data log at a checkpoint.
//! - Checkpoints (every `cp_interval`, and before foreground cleaning when prefree sections
//!   exist): dirty dentry and node blocks go to the main area, then the CP pack, dirty NAT and
//!   SIT blocks and the segments' summary blocks go to the conventional device, then prefree
//!   sections are reset (5.16 resets a zoned section synchronously when it is discarded).
//! - The conventional device is not the simulated ZNS device (the kernel drives one device):
//!   it is a queue with a fixed latency per request and a transfer rate (`meta_latency`,
//!   `meta_rate_mb_s`), its bytes reported apart. This is how `mkfs.f2fs -m -c zns regular`
//!   splits a ZNS setup: the ZNS device never sees those writes, so modelling them as device
//!   writes on a reserved zone range would add resets and erases the paper's device never had.
//! - Space: mkfs.f2fs's reserved and over-provisioned segments ([`super::spec::f2fs_mkfs_space`])
//!   are kept from users; cleaning triggers are F2FS's (foreground: free sections, prefree ones
//!   not counted, at most the reserved ones, as `gc::balance` describes; background: Linux
//!   6.12's cleaner for zoned devices by default, or 5.16's, `fs.f2fs.gc_mode`, see
//!   `gc/f2fs.rs`). The cleaner moves data through the page cache: a block whose page is
//!   cached and clean is not read, and the pages it reads stay cached (`gc/copy.rs`).

use std::collections::BTreeSet;
use std::rc::Rc;

use super::map::Run;
use super::space::{Owner, Space};
use super::state::{Ino, Inode, Page, State};
use super::{
    BLOCK_BYTES, COLD_DATA, COLD_NODE, F2fsSpec, FsError, FsSpec, HOT_DATA, HOT_NODE, Inner, LOGS,
    Personality, Target, WARM_DATA, WARM_NODE, io,
};

use crate::sim::host::Host;
use crate::time::Duration;

/// Block addresses in an inode (`ADDRS_PER_INODE` with inline xattrs) and a direct node
/// (`ADDRS_PER_BLOCK`).
const ADDRS_PER_INODE: u64 = 923;
const ADDRS_PER_BLOCK: u64 = 1018;
/// Dentries per dentry block (`NR_DENTRY_IN_BLOCK`), NAT entries per NAT block
/// (`NAT_ENTRY_PER_BLOCK`), SIT entries per SIT block (`SIT_ENTRY_PER_BLOCK`).
const DENTRIES_PER_BLOCK: u64 = 214;
const NAT_PER_BLOCK: u32 = 455;
const SIT_PER_BLOCK: u32 = 55;
/// The CP pack: header and footer blocks (orphan and summary blocks folded in).
const CP_PACK_BLOCKS: u64 = 2;

/// Checkpoint bookkeeping: what changed since the last one.
#[derive(Default)]
pub struct F2State {
    pub on: bool,
    pub seg_blocks: u32,
    pub segs_per_zone: u32,
    pub reserved_sections: u32,
    /// Over-provisioned segments, the reserved ones included.
    pub ovp_segments: u64,
    /// SIT blocks whose entries changed; segments written (their summary blocks).
    sit_dirty: Vec<u64>,
    sit_count: u64,
    ssa_dirty: Vec<u64>,
    ssa_count: u64,
    /// NAT blocks whose entries changed.
    nat_dirty: std::collections::BTreeSet<u32>,
    /// Per log, its section at the last checkpoint and the blocks invalid in it then: F2FS's
    /// checkpoint-time valid count (`ckpt_valid_blocks`) of a section being written is its
    /// write pointer less those (blocks written since count as valid until the next one).
    pub ckpt_invalid: [(Option<u32>, u32); LOGS],
}

fn set_bit(bits: &mut [u64], i: usize, count: &mut u64) {
    let (w, b) = (i / 64, 1u64 << (i % 64));
    if bits[w] & b == 0 {
        bits[w] |= b;
        *count += 1;
    }
}

impl F2State {
    fn segment(&self, zone: u32, block: u32) -> usize {
        zone as usize * self.segs_per_zone as usize + (block / self.seg_blocks) as usize
    }

    pub fn note_fill(&mut self, _space: &Space, zone: u32, block: u32, len: u32) {
        if !self.on {
            return;
        }
        let (a, b) = (
            self.segment(zone, block),
            self.segment(zone, block + len - 1),
        );
        for s in a..=b {
            set_bit(&mut self.ssa_dirty, s, &mut self.ssa_count);
            set_bit(
                &mut self.sit_dirty,
                s / SIT_PER_BLOCK as usize,
                &mut self.sit_count,
            );
        }
    }

    pub fn note_kill(&mut self, _space: &Space, r: Run) {
        if !self.on {
            return;
        }
        let (a, b) = (
            self.segment(r.zone, r.block),
            self.segment(r.zone, r.block + r.len - 1),
        );
        for s in a..=b {
            set_bit(
                &mut self.sit_dirty,
                s / SIT_PER_BLOCK as usize,
                &mut self.sit_count,
            );
        }
    }

    pub fn note_node_moved(&mut self, ino: Ino) {
        self.nat_dirty.insert(ino / NAT_PER_BLOCK);
    }

    /// Metadata blocks the next checkpoint writes to the conventional device, and forget them.
    fn take_checkpoint_blocks(&mut self) -> u64 {
        let n = CP_PACK_BLOCKS + self.nat_dirty.len() as u64 + self.sit_count + self.ssa_count;
        self.nat_dirty.clear();
        self.sit_dirty.iter_mut().for_each(|w| *w = 0);
        self.ssa_dirty.iter_mut().for_each(|w| *w = 0);
        self.sit_count = 0;
        self.ssa_count = 0;
        n
    }
}

fn spec(fs: &Inner) -> &F2fsSpec {
    match &fs.spec.personality {
        Personality::F2fs(f) => f,
        Personality::Zenfs(_) => unreachable!("an F2FS call on ZenFS"),
    }
}

/// Lays out the main area; returns the blocks users may fill.
pub(super) fn mkfs(
    st: &mut State,
    f: &F2fsSpec,
    spec: &FsSpec,
    cap_blocks: u32,
) -> Result<u64, FsError> {
    let segs_per_zone = cap_blocks / f.segment_blocks;
    if segs_per_zone == 0 {
        return Err(FsError::Unsupported(format!(
            "F2FS needs zones of at least one {}-block segment; a zone holds {cap_blocks} blocks",
            f.segment_blocks
        )));
    }
    let main = spec.zone_count as u64 * segs_per_zone as u64;
    let spz = segs_per_zone as u64;
    let (rsvd, ovp) = match (f.reserved_sections, f.overprovision_pct) {
        (Some(r), pct) => {
            let rsvd = r as u64 * spz;
            let ovp = pct.map_or(0.0, |p| main.saturating_sub(rsvd) as f64 * p / 100.0) as u64;
            (rsvd, rsvd + ovp)
        }
        (None, pct) => super::spec::f2fs_mkfs_space(main, spz, pct).ok_or_else(|| {
            FsError::Unsupported(format!(
                "mkfs.f2fs: {} sections of {spz} segments leave no room after the reserved and over-provisioned space; set fs.f2fs.reserved_sections",
                spec.zone_count
            ))
        })?,
    };
    if ovp >= main {
        return Err(FsError::Unsupported(format!(
            "F2FS keeps {ovp} of {main} segments from users: nothing is left"
        )));
    }
    let segs = main as usize;
    st.f2 = F2State {
        on: true,
        seg_blocks: f.segment_blocks,
        segs_per_zone,
        reserved_sections: rsvd.div_ceil(spz) as u32,
        ovp_segments: ovp,
        sit_dirty: vec![0; (segs / SIT_PER_BLOCK as usize).div_ceil(64) + 1],
        sit_count: 0,
        ssa_dirty: vec![0; segs.div_ceil(64) + 1],
        ssa_count: 0,
        nat_dirty: Default::default(),
        ckpt_invalid: Default::default(),
    };
    Ok((main - ovp) * f.segment_blocks as u64)
}

/// The node block holding the address of file block `fb` (0: the inode, then the direct
/// nodes in file order).
pub(super) fn node_of(fb: u64) -> u32 {
    if fb < ADDRS_PER_INODE {
        0
    } else {
        1 + ((fb - ADDRS_PER_INODE) / ADDRS_PER_BLOCK) as u32
    }
}

/// Indirect node blocks are numbered apart from direct ones: this bit, then which indirect
/// node (0 and 1 the inode's, 2.. those under the double-indirect node, which is `DOUBLE`).
pub(super) const INDIRECT: u32 = 1 << 31;
const DOUBLE: u32 = INDIRECT | (INDIRECT - 1);
/// Direct nodes the inode points at itself (`i_nid[0..2]`); node ids per indirect node
/// (`NIDS_PER_BLOCK`).
const INODE_DIRECT_NODES: u32 = 2;
const NIDS_PER_BLOCK: u32 = 1018;

/// The node that records node `idx`'s id, when it is not the inode: direct nodes past the
/// inode's two hang off the inode's two indirect nodes (0, 1), then off second-level indirect
/// nodes (2..) under the double-indirect one.
fn parent_of(idx: u32) -> Option<u32> {
    if idx & INDIRECT != 0 {
        return (idx != DOUBLE && idx & !INDIRECT >= 2).then_some(DOUBLE);
    }
    let under = idx.checked_sub(INODE_DIRECT_NODES + 1)?;
    Some(INDIRECT | (under / NIDS_PER_BLOCK))
}

/// Node `idx` of `ino` must be rewritten. A node the file never had is new: F2FS records its
/// id in its parent (`set_nid`), so the indirect nodes above it change too. Nothing else
/// changes a parent: the NAT lets a node move without its parent changing.
pub(super) fn dirty_node(st: &mut State, ino: Ino, idx: u32) {
    let mut at = idx;
    loop {
        let i = st.inode(ino);
        let new = !i.nodes.contains_key(&at) && !i.dirty_nodes.contains(&at);
        st.dirty_node(ino, at);
        match parent_of(at) {
            Some(p) if new => at = p,
            _ => return,
        }
    }
}

/// Whether node `idx` is a direct node (or the inode): F2FS's `IS_DNODE`.
fn is_dnode(idx: u32) -> bool {
    idx & INDIRECT == 0
}

/// F2FS's `min_hot_blocks` (`DEF_MIN_HOT_BLOCKS`, fs/f2fs/segment.h): a writeback of at most
/// this many dirty pages marks the file `FI_HOT_DATA` (`f2fs_write_cache_pages`, fs/f2fs/data.c),
/// so small synchronous writes (an fsync every 16 writes, a mail file) go to the hot log.
pub(super) const MIN_HOT_BLOCKS: usize = 16;

/// The log a file's data goes to (`__get_segment_type_{2,4,6}`, fs/f2fs/segment.c, Linux
/// 6.12: a directory's or an `FI_HOT_DATA` file's data hot, then the write hint as
/// `f2fs_rw_hint_to_seg_type`: short-lived hot, extreme cold, others warm).
pub(super) fn data_log(f: &F2fsSpec, inode: &Inode) -> usize {
    match f.active_logs {
        2 => HOT_DATA,
        4 => {
            if inode.is_dir() {
                HOT_DATA
            } else {
                COLD_DATA
            }
        }
        _ => {
            if inode.is_dir() || inode.hot_data || inode.lifetime == super::Lifetime::Short {
                HOT_DATA
            } else if inode.lifetime == super::Lifetime::Extreme {
                COLD_DATA
            } else {
                WARM_DATA
            }
        }
    }
}

/// The log node block `idx` of `inode` goes to (same functions): with six logs a directory's
/// direct nodes hot, a file's warm, indirect nodes cold; with four a file's direct nodes warm
/// and the rest cold.
pub(super) fn node_log(f: &F2fsSpec, inode: &Inode, idx: u32) -> usize {
    let file_dnode = is_dnode(idx) && !inode.is_dir();
    match f.active_logs {
        2 => HOT_NODE,
        4 => {
            if file_dnode {
                WARM_NODE
            } else {
                COLD_NODE
            }
        }
        _ => {
            if !is_dnode(idx) {
                COLD_NODE
            } else if file_dnode {
                WARM_NODE
            } else {
                HOT_NODE
            }
        }
    }
}

/// Gives each of the six logs its current section, as mkfs.f2fs does in zoned mode whatever
/// `active_logs` is (f2fs-tools mkfs/f2fs_format.c, `f2fs_prepare_super_block`: one zone per
/// `cur_seg`): a log holds a section from the start, written or not. A log the prefill left
/// in a part-written section keeps it.
pub(super) fn open_logs(st: &mut State) {
    for log in 0..LOGS {
        if st.heads[log].is_none()
            && let Some(z) = st.space.take_free(true)
        {
            io::open_head(st, log, z);
        }
    }
}

/// The log GC moves data to.
pub(super) fn gc_data_log(f: &F2fsSpec) -> usize {
    if f.active_logs == 2 {
        HOT_DATA
    } else {
        COLD_DATA
    }
}

/// The inode block must be rewritten.
pub(super) fn dirty_inode(st: &mut State, ino: Ino) {
    st.dirty_node(ino, 0);
    st.inode_mut(ino).meta_dirty = true;
}

/// FNV-1a: which dentry block a name hashes to.
fn name_hash(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// An entry of `dir` was added, removed or changed: its dentry block is dirty.
pub(super) fn dirty_dentry(st: &mut State, dir: Ino, name: &str) {
    let entries = st.inode(dir).children.len() as u64;
    let blocks = entries.div_ceil(DENTRIES_PER_BLOCK).max(1);
    let fb = name_hash(name) % blocks;
    let data_mode = st.data;
    let now_new = {
        let i = st.inode(dir);
        !i.pages.contains_key(&fb) && !i.map.contains(fb)
    };
    let mut added = 0;
    let mut dirtied = 0;
    {
        let i = st.inode_mut(dir);
        let page = i.pages.entry(fb).or_insert_with(|| {
            added = 1;
            Page {
                dirty: false,
                data: data_mode.then(|| vec![0u8; BLOCK_BYTES as usize].into()),
            }
        });
        if !page.dirty {
            page.dirty = true;
            dirtied = 1;
            i.dirty_idx.push(fb);
        }
        i.dirty += dirtied;
        // Dentry blocks wait for a checkpoint (the flusher leaves directories alone).
        i.size = i.size.max((fb + 1) * BLOCK_BYTES);
        if now_new {
            i.allocated += 1;
        }
    }
    st.dirty_node(dir, 0);
    st.dirty_dirs.insert(dir);
    st.cached_pages += added;
    st.dirty_pages += dirtied as u64;
    if now_new {
        st.used_blocks += 1;
    }
}

/// Writes dirty node blocks (`only`'s direct ones at its fsync, or every inode's at a
/// checkpoint) to the node logs, again while the device refuses some (they are dirty again,
/// `on_zone_error = "relocate"`).
pub(super) async fn write_nodes(
    fs: &Rc<Inner>,
    h: &Host,
    only: Option<Ino>,
) -> Result<(), FsError> {
    while write_nodes_once(fs, h, only).await? > 0 {}
    Ok(())
}

/// One pass of [`write_nodes`]: how many blocks the device refused.
async fn write_nodes_once(fs: &Rc<Inner>, h: &Host, only: Option<Ino>) -> Result<u64, FsError> {
    let f = spec(fs).clone();
    let cmds = {
        let mut st = fs.st.borrow_mut();
        let inos: Vec<Ino> = match only {
            Some(i) => vec![i],
            None => std::mem::take(&mut st.node_dirty).into_iter().collect(),
        };
        let mut cmds: Vec<io::WriteCmd> = Vec::new();
        let mut old = Vec::new();
        let now = h.now();
        for ino in inos {
            if !st.exists(ino) {
                continue;
            }
            // fsync writes the file's direct nodes only (`f2fs_fsync_node_pages` skips the
            // rest); indirect nodes wait for a checkpoint.
            let dirty = std::mem::take(&mut st.inode_mut(ino).dirty_nodes);
            let (nodes, wait): (BTreeSet<u32>, BTreeSet<u32>) = dirty
                .into_iter()
                .partition(|&idx| only.is_none() || is_dnode(idx));
            if !wait.is_empty() {
                st.inode_mut(ino).dirty_nodes = wait;
                st.node_dirty.insert(ino);
            }
            for idx in nodes {
                let log = node_log(&f, st.inode(ino), idx);
                let Some(z) = io::target_zone(fs, &mut st, Target::Stream(log), true) else {
                    // No zone for nodes: they stay dirty for the next try.
                    st.dirty_node(ino, idx);
                    continue;
                };
                let (b, got) = st.space.alloc(z, 1, now);
                debug_assert_eq!(got, 1);
                io::refill_log(fs, &mut st, log, true);
                if let Some((oz, ob)) = st.inode_mut(ino).nodes.insert(idx, (z, b)) {
                    old.push(Run::new(oz, ob, 1));
                }
                st.fill(
                    z,
                    b,
                    1,
                    Owner::Node {
                        ino,
                        index: idx as u64,
                    },
                );
                st.f2.note_node_moved(ino);
                st.stats.meta_blocks_written += 1;
                append_block(fs, &mut cmds, z, b);
            }
            st.inode_mut(ino).meta_dirty = false;
        }
        st.kill_runs(&old);
        cmds
    };
    io::submit_writes(fs, h, cmds, None).await
}

/// Adds block `b` of zone `z` to the last command if it continues it (up to the largest
/// command), else starts a command.
fn append_block(fs: &Inner, cmds: &mut Vec<io::WriteCmd>, z: u32, b: u32) {
    match cmds.last_mut() {
        Some(c) if c.zone == z && c.block + c.len == b && c.len < fs.spec.max_io_blocks => {
            c.len += 1;
            if let Some(d) = c.data.as_mut() {
                d.resize(d.len() + BLOCK_BYTES as usize, 0);
            }
        }
        _ => cmds.push(io::WriteCmd {
            zone: z,
            block: b,
            len: 1,
            data: fs.spec.data.then(|| vec![0u8; BLOCK_BYTES as usize]),
        }),
    }
}

/// A checkpoint: dentry and node blocks, a device Flush, the metadata on the conventional
/// device, then the prefree sections' resets.
pub(super) async fn checkpoint(fs: &Rc<Inner>, h: &Host) -> Result<(), FsError> {
    let seen = fs.st.borrow().stats.checkpoints;
    checkpoint_after(fs, h, seen).await
}

/// A checkpoint, unless one was written since the caller saw `seen` checkpoints (writers that
/// queued for the same prefree sections need only one).
pub(super) async fn checkpoint_after(fs: &Rc<Inner>, h: &Host, seen: u64) -> Result<(), FsError> {
    let _g = fs.meta_lock.lock(h).await;
    if fs.st.borrow().stats.checkpoints != seen {
        return Ok(());
    }
    let dirs: Vec<Ino> = std::mem::take(&mut fs.st.borrow_mut().dirty_dirs)
        .into_iter()
        .collect();
    for dir in dirs {
        io::flush_file_as(fs, h, dir, true).await?;
    }
    // No device Flush, as for fsync (file.rs): the devices have no volatile write cache.
    write_nodes(fs, h, None).await?;
    let blocks = fs.st.borrow_mut().f2.take_checkpoint_blocks();
    let f = spec(fs);
    let t = f.meta_latency + Duration::transfer(blocks * BLOCK_BYTES, f.meta_rate_mb_s);
    h.cpu(fs.spec.cpu.submit).await;
    h.sleep(t).await;
    {
        let mut st = fs.st.borrow_mut();
        st.stats.meta_device_bytes += blocks * BLOCK_BYTES;
        st.stats.checkpoints += 1;
        for log in 0..LOGS {
            st.f2.ckpt_invalid[log] = st.heads[log].map_or((None, 0), |z| {
                let zone = &st.space.zones[z as usize];
                (Some(z), zone.wp - zone.valid)
            });
        }
    }
    io::reset_dead(fs, h).await
}

/// Checkpoints every `cp_interval`.
pub(super) async fn cp_daemon(fs: Rc<Inner>) {
    let h = fs.host.clone();
    let every = spec(&fs).cp_interval;
    loop {
        h.sleep(every).await;
        let _ = checkpoint(&fs, &h).await;
    }
}
