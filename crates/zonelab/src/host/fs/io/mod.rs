//! The data path shared by both personalities: buffered writes into cached pages, writeback of a
//! file's dirty pages into the zone its personality picks, reads (cache first, then the device),
//! the page-cache flusher, and delete and truncate. Space is allocated and the block maps
//! changed in the same step that submits the writes, so the device sees every zone's writes in
//! allocation order.
//!
//! Reads are in `read.rs`; writeback, fsync's flush and the flusher in `writeback.rs`; delete,
//! truncate, the reset of dead zones and the layer's consistency check here.

mod fault;
mod plug;
mod read;
mod writeback;

pub(crate) use fault::{absorb_meta_write, check_reads, relocator, zone_action};

pub(crate) use plug::Plugs;
pub(crate) use read::{read, read_partial_blocks};
pub(crate) use writeback::{
    balance_dirty, flush_file, flush_file_as, flusher, notified_or, open_head, refill_log,
    submit_writes, target_zone, wait_written, write_pages,
};

use std::rc::Rc;

use super::map::Run;
use super::space::Owner;
use super::state::{Ino, State};
use super::{FsError, Inner, zenfs};
use crate::sim::host::Host;

/// One device write the layer sends: `len` blocks at `zone:block`.
pub(crate) struct WriteCmd {
    pub zone: u32,
    pub block: u32,
    pub len: u32,
    pub data: Option<Vec<u8>>,
}

/// Frees a file's blocks and cached pages (delete, or the last close of a deleted file).
pub(crate) fn destroy(fs: &Inner, st: &mut State, ino: Ino) {
    drop_data(st, ino);
    let nodes: Vec<(u32, u32)> = st.inode(ino).nodes.values().copied().collect();
    let runs: Vec<Run> = nodes.iter().map(|&(z, b)| Run::new(z, b, 1)).collect();
    st.kill_runs(&runs);
    if st.inode(ino).zone.is_some() {
        zenfs::release(st, ino);
    }
    let _ = fs;
    st.free_ino(ino);
}

/// Drops a file's data blocks and pages (truncate to zero, delete).
fn drop_data(st: &mut State, ino: Ino) {
    let mut old = Vec::new();
    let (pages, dirty, allocated) = {
        let inode = st.inode_mut(ino);
        inode.map.clear(&mut old);
        let pages = inode.pages.len() as u64;
        let dirty = inode.dirty as u64;
        inode.pages.clear();
        inode.dirty = 0;
        inode.dirty_idx.clear();
        inode.dirty_since = None;
        let allocated = std::mem::take(&mut inode.allocated);
        inode.size = 0;
        (pages, dirty, allocated)
    };
    st.cached_pages -= pages;
    st.dirty_pages -= dirty;
    st.used_blocks -= allocated;
    st.kill_runs(&old);
    st.generation += 1;
}

/// Truncates a file to zero (F2FS's O_TRUNC): data and direct nodes go, the inode stays.
pub(crate) fn truncate(fs: &Inner, st: &mut State, ino: Ino) {
    drop_data(st, ino);
    let nodes: Vec<(u32, (u32, u32))> = st
        .inode(ino)
        .nodes
        .iter()
        .filter(|(i, _)| **i > 0)
        .map(|(&i, &l)| (i, l))
        .collect();
    let runs: Vec<Run> = nodes.iter().map(|&(_, (z, b))| Run::new(z, b, 1)).collect();
    {
        let inode = st.inode_mut(ino);
        for (i, _) in &nodes {
            inode.nodes.remove(i);
            inode.dirty_nodes.remove(i);
        }
        inode.meta_dirty = true;
    }
    st.dirty_node(ino, 0);
    st.kill_runs(&runs);
    let _ = fs;
}

/// Checks the layer's bookkeeping against its zones (tests).
pub(crate) fn check(fs: &Inner) {
    let st = fs.st.borrow();
    let mut live = vec![0u32; st.space.zones.len()];
    let mut used = 0u64;
    let mut cached = 0u64;
    let mut dirty = 0u64;
    for (i, inode) in st.inodes.iter().enumerate() {
        let Some(inode) = inode else { continue };
        let ino = i as Ino;
        used += inode.allocated;
        cached += inode.pages.len() as u64;
        let d = inode.pages.values().filter(|p| p.dirty).count() as u64;
        assert_eq!(d, inode.dirty as u64, "inode {ino} dirty count");
        assert_eq!(d, inode.dirty_idx.len() as u64, "inode {ino} dirty set");
        dirty += d;
        check_mapped(&st, ino, inode, &mut live);
        for (&idx, &(z, b)) in &inode.nodes {
            let zone = &st.space.zones[z as usize];
            assert!(zone.is_live(b), "inode {ino} node {idx} dead");
            assert_eq!(
                zone.owner_of(b).map(|o| o.0),
                Some(Owner::Node {
                    ino,
                    index: idx as u64
                })
            );
            live[z as usize] += 1;
        }
        let blocks_with_data = inode.map.blocks()
            + inode
                .pages
                .iter()
                .filter(|(k, p)| p.dirty && !inode.map.contains(**k))
                .count() as u64;
        assert_eq!(blocks_with_data, inode.allocated, "inode {ino} allocation");
    }
    assert_eq!(used, st.used_blocks, "used blocks");
    assert_eq!(cached, st.cached_pages, "cached pages");
    assert_eq!(dirty, st.dirty_pages, "dirty pages");
    check_space(&st, &live);
}

/// The zones against the files (`live` blocks per zone): live counts, the valid total, and
/// the active zones (those given up still count until their Finish completes).
fn check_space(st: &State, live: &[u32]) {
    let mut total = 0u64;
    for (z, zone) in st.space.zones.iter().enumerate() {
        if zone.role == super::space::Role::Meta {
            continue;
        }
        assert_eq!(zone.valid, live[z], "zone {z} live blocks");
        if zone.wp > 0 {
            assert_eq!(zone.live_in(0, zone.cap), zone.valid, "zone {z} bitmap");
        }
        total += zone.valid as u64;
    }
    let meta: u64 = st
        .space
        .zones
        .iter()
        .filter(|z| z.role == super::space::Role::Meta)
        .map(|z| z.valid as u64)
        .sum();
    assert_eq!(total + meta, st.space.valid_total, "valid total");
    let active = st.space.zones.iter().filter(|z| z.is_active()).count() as u32;
    assert_eq!(active, st.space.active, "active zones");
    // A zone given up after a refused write is finished here and held off the free and dead
    // lists (`collecting`) until its device Finish completes; it still counts against the limit.
    let held = st
        .space
        .zones
        .iter()
        .filter(|z| z.finished && z.collecting)
        .count() as u32;
    let finishing = st.space.finishing;
    assert!(
        finishing <= held,
        "{finishing} Finishes pending, {held} zones held"
    );
    if let Some(m) = st.space.max_active {
        assert!(
            active + finishing <= m,
            "{active} active zones and {finishing} finishing, limit {m}"
        );
    }
}

/// Every block file `ino`'s map points at is live and owned by that file block; counts them
/// into `live` per zone.
fn check_mapped(st: &State, ino: Ino, inode: &super::state::Inode, live: &mut [u32]) {
    for (fb, r) in inode.map.iter() {
        for k in 0..r.len {
            let zone = &st.space.zones[r.zone as usize];
            assert!(
                zone.is_live(r.block + k),
                "inode {ino} block {} dead",
                fb + k as u64
            );
            let (owner, _) = zone.owner_of(r.block + k).expect("owned");
            let index = fb + k as u64;
            assert_eq!(
                owner,
                Owner::Data { ino, index },
                "zone {} block {} owner",
                r.zone,
                r.block + k
            );
            live[r.zone as usize] += 1;
        }
    }
}

/// Resets dead zone `z` (marked `collecting` by the caller, so nobody takes or lists it while
/// the reset is in flight): free again, or retired if the device has taken it out of service.
pub(crate) async fn reset_zone(fs: &Rc<Inner>, h: &Host, z: u32) -> Result<(), FsError> {
    let reset = zone_action(fs, h, crate::device::ZoneAction::Reset, z).await?;
    let mut st = fs.st.borrow_mut();
    if reset {
        st.space.reset(z);
        st.stats.zone_resets += 1;
    } else {
        st.space.zones[z as usize].collecting = false;
    }
    Ok(())
}

/// Resets the zones on the dead list, one at a time (ZenFS's `ResetUnusedIOZones`, F2FS's
/// discard of prefree sections at a checkpoint).
pub(crate) async fn reset_dead(fs: &Rc<Inner>, h: &Host) -> Result<(), FsError> {
    loop {
        let next = {
            let mut st = fs.st.borrow_mut();
            loop {
                let Some(z) = st.dead.pop_first() else {
                    break None;
                };
                let zone = &mut st.space.zones[z as usize];
                // Revived or already reset since it was listed.
                if zone.role == super::space::Role::Data
                    && zone.valid == 0
                    && zone.wp > 0
                    && zone.head.is_none()
                    && !zone.collecting
                {
                    // Nobody takes or lists it while its reset is in flight.
                    zone.collecting = true;
                    break Some(z);
                }
            }
        };
        let Some(z) = next else {
            return Ok(());
        };
        reset_zone(fs, h, z).await?;
        fs.st.borrow_mut().generation += 1;
        fs.space_cv.notify_all(h);
    }
}
