//! Writeback: a file's dirty pages planned into the zone its personality picks and submitted,
//! space allocated and block maps changed in the same step; fsync's flush and wait; the
//! page-cache flusher and dirty-page throttling.

use std::rc::Rc;

use super::WriteCmd;
use crate::host::fs::map::Run;
use crate::host::fs::space::Owner;
use crate::host::fs::state::{Ino, Inode, Page, State};
use crate::host::fs::{BLOCK_BYTES, FsError, Inner, LOGS, Personality, Target, f2fs, gc, zenfs};
use crate::host::join_all;
use crate::sim::host::Host;
use crate::time::{Duration, Instant};

/// A buffered write: the pages become dirty in the cache.
pub(crate) fn write_pages(
    fs: &Inner,
    st: &mut State,
    ino: Ino,
    offset: u64,
    len: u64,
    data: Option<&[u8]>,
    now: Instant,
) -> Result<(), FsError> {
    let first = offset / BLOCK_BYTES;
    let last = (offset + len - 1) / BLOCK_BYTES;
    let new = {
        let inode = st.inode(ino);
        (first..=last)
            // The cache first: it is small, the map large and read at random.
            .filter(|b| !inode.pages.contains_key(b) && !inode.map.contains(*b))
            .count() as u64
    };
    if st.used_blocks + new > st.capacity_blocks {
        return Err(FsError::NoSpace);
    }
    let data_mode = fs.spec.data;
    let mut added = 0u64;
    let mut dirtied = 0u64;
    {
        let inode = st.inode_mut(ino);
        for b in first..=last {
            let page = inode.pages.entry(b).or_insert_with(|| {
                added += 1;
                Page {
                    dirty: false,
                    data: data_mode.then(|| vec![0u8; BLOCK_BYTES as usize].into()),
                }
            });
            if data_mode {
                copy_into_page(page, b, offset, len, data);
            }
            if !page.dirty {
                page.dirty = true;
                dirtied += 1;
                inode.dirty_idx.push(b);
            }
        }
        inode.dirty += dirtied as u32;
        inode.dirty_since.get_or_insert(now);
        inode.size = inode.size.max(offset + len);
        inode.allocated += new;
        inode.meta_dirty = true;
    }
    st.cached_pages += added;
    st.dirty_pages += dirtied;
    st.used_blocks += new;
    if matches!(fs.spec.personality, Personality::F2fs(_)) {
        // The inode block (size, block addresses) changes with the data.
        st.dirty_node(ino, 0);
    }
    if st.cache_limit_pages > 0 {
        st.touch(ino);
        st.evict();
    }
    Ok(())
}

/// Copies the part of a write of `len` bytes at file offset `offset` (zeros without `data`)
/// that falls in file block `b` into its cached page.
fn copy_into_page(page: &mut Page, b: u64, offset: u64, len: u64, data: Option<&[u8]>) {
    let p_start = b * BLOCK_BYTES;
    let from = offset.max(p_start);
    let to = (offset + len).min(p_start + BLOCK_BYTES);
    let bytes = page
        .data
        .get_or_insert_with(|| vec![0u8; BLOCK_BYTES as usize].into());
    let dst = &mut bytes[(from - p_start) as usize..(to - p_start) as usize];
    match data {
        Some(d) => dst.copy_from_slice(&d[(from - offset) as usize..(to - offset) as usize]),
        None => dst.fill(0),
    }
}

/// Where a file's data goes.
fn data_target(fs: &Inner, st: &State, ino: Ino) -> Target {
    match &fs.spec.personality {
        Personality::Zenfs(_) => Target::File(ino),
        Personality::F2fs(f) => Target::Stream(f2fs::data_log(f, st.inode(ino))),
    }
}

/// The zone `target` appends to now, taking a fresh zone for a stream whose zone is full. None:
/// no room (a ZenFS file must allocate its next zone first; a stream found no free zone).
pub(crate) fn target_zone(fs: &Inner, st: &mut State, target: Target, for_gc: bool) -> Option<u32> {
    match target {
        Target::File(ino) => st
            .inode(ino)
            .zone
            .filter(|&z| st.space.zones[z as usize].room() > 0),
        Target::Stream(s) => {
            if let Some(z) = st.heads[s]
                && st.space.zones[z as usize].room() > 0
            {
                return Some(z);
            }
            st.release_head(s);
            if !st.space.can_activate() {
                return None;
            }
            let reserve = fs.gc.borrow().reserve_zones();
            if !for_gc && st.space.free_count() <= reserve {
                return None;
            }
            let after_cursor = matches!(fs.spec.personality, Personality::F2fs(_));
            let z = st.space.take_free(after_cursor)?;
            open_head(st, s, z);
            Some(z)
        }
    }
}

/// After an allocation in stream `s`: an F2FS log whose section is now full takes its next one
/// at once (segment.c `f2fs_allocate_data_block` replaces a full segment before it returns,
/// `new_curseg`), so a log always holds a section; other streams take theirs at their next
/// write.
pub(crate) fn refill_log(fs: &Inner, st: &mut State, s: usize, for_gc: bool) {
    if s < LOGS
        && matches!(fs.spec.personality, Personality::F2fs(_))
        && st.heads[s].is_some_and(|z| st.space.zones[z as usize].room() == 0)
    {
        target_zone(fs, st, Target::Stream(s), for_gc);
    }
}

/// Makes zone `z` the one stream `s` appends to.
pub(crate) fn open_head(st: &mut State, s: usize, z: u32) {
    let zone = &mut st.space.zones[z as usize];
    zone.head = Some(s as u32);
    zone.class = gc::stream_class(s);
    st.heads[s] = Some(z);
}

/// How many dirty pages ahead a writeback asks for their map slots.
const PREFETCH_AHEAD: usize = 8;

/// Plans the writeback of `ino`'s dirty pages: allocates, remaps, marks the old blocks dead.
/// Returns the writes and whether every dirty page found room.
fn plan_data(
    fs: &Inner,
    st: &mut State,
    ino: Ino,
    now: Instant,
    reserve: bool,
) -> (Vec<WriteCmd>, bool) {
    let mut dirty = std::mem::take(&mut st.inode_mut(ino).dirty_idx);
    // Distinct indices, so an unstable sort gives the one ascending order.
    dirty.sort_unstable();
    let is_f2fs = matches!(fs.spec.personality, Personality::F2fs(_));
    if is_f2fs {
        st.inode_mut(ino).hot_data = dirty.len() <= f2fs::MIN_HOT_BLOCKS;
    }
    let target = data_target(fs, st, ino);
    let keep_clean = st.cache_limit_pages > 0;
    let size = st.inode(ino).size;
    let tail = (!size.is_multiple_of(BLOCK_BYTES)).then_some(size / BLOCK_BYTES);
    let mut cmds = Vec::new();
    let mut i = 0;
    let mut old = Vec::new();
    while i < dirty.len() {
        let Some(z) = target_zone(fs, st, target, reserve) else {
            break;
        };
        let want = ((dirty.len() - i) as u32).min(fs.spec.max_io_blocks);
        let (start, got) = st.space.alloc(z, want, now);
        debug_assert!(got > 0);
        if let Target::Stream(s) = target {
            refill_log(fs, st, s, reserve);
        }
        let mut data = fs
            .spec
            .data
            .then(|| Vec::with_capacity((got as u64 * BLOCK_BYTES) as usize));
        let pages = &dirty[i..i + got as usize];
        map_pages(st, ino, pages, (z, start), is_f2fs, &mut old);
        let dropped = clean_pages(st.inode_mut(ino), pages, keep_clean, tail, &mut data);
        st.cached_pages -= dropped;
        st.dirty_pages -= got as u64;
        st.stats.data_blocks_written += got as u64;
        cmds.push(WriteCmd {
            zone: z,
            block: start,
            len: got,
            data,
        });
        i += got as usize;
    }
    let complete = i == dirty.len();
    // What found no room stays dirty, still sorted.
    dirty.drain(..i);
    st.inode_mut(ino).dirty_idx = dirty;
    st.kill_runs(&old);
    if keep_clean && !cmds.is_empty() {
        st.touch(ino);
    }
    (cmds, complete)
}

/// Points file blocks `pages` (ascending) of `ino` at the blocks from `at` (zone, block) on:
/// runs of consecutive file blocks become one map run and one owner run each; F2FS's nodes over
/// them become dirty. The blocks they had go to `old`.
fn map_pages(
    st: &mut State,
    ino: Ino,
    pages: &[u64],
    at: (u32, u32),
    is_f2fs: bool,
    old: &mut Vec<Run>,
) {
    let (z, start) = at;
    let mut k = 0;
    while k < pages.len() {
        if let Some(&ahead) = pages.get(k + PREFETCH_AHEAD) {
            st.inode(ino).map.prefetch(ahead);
        }
        let mut n = 1;
        while k + n < pages.len() && pages[k + n] == pages[k] + n as u64 {
            n += 1;
        }
        let fb = pages[k];
        let block = start + k as u32;
        st.inode_mut(ino)
            .map
            .set(fb, Run::new(z, block, n as u32), old);
        st.fill(z, block, n as u32, Owner::Data { ino, index: fb });
        if is_f2fs {
            for node in f2fs::node_of(fb)..=f2fs::node_of(fb + n as u64 - 1) {
                f2fs::dirty_node(st, ino, node);
            }
        }
        k += n;
    }
}

/// Marks pages just written clean (kept if `keep_clean` or the partial tail, else dropped) and
/// appends their bytes to `data`; returns how many were dropped.
fn clean_pages(
    inode: &mut Inode,
    pages: &[u64],
    keep_clean: bool,
    tail: Option<u64>,
    data: &mut Option<Vec<u8>>,
) -> u64 {
    let mut copy = |p: &Page| {
        if let (Some(d), Some(p)) = (data.as_mut(), p.data.as_ref()) {
            d.extend_from_slice(p);
        }
    };
    let mut dropped = 0;
    for &fb in pages {
        if keep_clean || Some(fb) == tail {
            let page = inode.pages.get_mut(&fb).expect("dirty page");
            copy(page);
            page.dirty = false;
        } else {
            copy(&inode.pages.remove(&fb).expect("dirty page"));
            dropped += 1;
        }
    }
    inode.dirty -= pages.len() as u32;
    if inode.dirty == 0 {
        inode.dirty_since = None;
    }
    dropped
}

/// Sends writes at once and waits for them. `ino`: the file they belong to (fsync waits for
/// its writes in flight). Returns how many blocks the device refused and the layer made dirty
/// again to write elsewhere (`on_zone_error = "relocate"`; see `fault.rs`).
pub(crate) async fn submit_writes(
    fs: &Rc<Inner>,
    h: &Host,
    cmds: Vec<WriteCmd>,
    ino: Option<Ino>,
) -> Result<u64, FsError> {
    if cmds.is_empty() {
        return Ok(0);
    }
    let (file, lbas): (_, Vec<(u64, u64)>) = {
        let mut st = fs.st.borrow_mut();
        st.inflight_io += cmds.len() as u32;
        // The file these writes are of: its number may go to another file before they complete.
        let file = ino.map(|ino| {
            let inode = st.inode_mut(ino);
            inode.inflight += 1;
            (ino, inode.incarnation)
        });
        let lbas = cmds
            .iter()
            .map(|c| {
                (
                    st.space.lba(c.zone, c.block),
                    c.len as u64 * fs.lbas_per_block,
                )
            })
            .collect();
        (file, lbas)
    };
    let results =
        join_all(cmds.iter().zip(&lbas).map(|(c, &(lba, nlb))| {
            super::plug::write(fs, h, c.zone, lba, nlb, c.data.as_deref())
        }))
        .await;
    {
        let mut st = fs.st.borrow_mut();
        st.inflight_io -= cmds.len() as u32;
        if let Some((ino, incarnation)) = file
            && st.exists(ino)
            && st.inode(ino).incarnation == incarnation
        {
            st.inode_mut(ino).inflight -= 1;
        }
    }
    let absorbed = absorb_refused(fs, &cmds, results, h.now());
    fs.io_cv.notify_all(h);
    // Charged after the writes: they were planned and must be sent in the same step.
    h.cpu(Duration::from_ns(
        fs.spec.cpu.submit.ns() * cmds.len() as u64,
    ))
    .await;
    let (refused, finish, commands) = absorbed?;
    for _ in 0..commands {
        h.rode_through();
    }
    if refused > 0 {
        super::fault::finish_given_up(fs, h, finish).await?;
        fs.relocate_cv.notify_all(h);
        fs.space_cv.notify_all(h);
    }
    Ok(refused)
}

/// The writes the device refused: with `on_zone_error = "relocate"`, their blocks are dirty
/// again. Returns how many blocks, the zones to finish on the device and how many commands;
/// else, or for a refusal the layer does not ride through, the first error.
fn absorb_refused(
    fs: &Inner,
    cmds: &[WriteCmd],
    results: Vec<Result<crate::sim::host::IoDone, crate::device::Status>>,
    now: Instant,
) -> Result<(u64, Vec<u32>, u32), FsError> {
    let mut refused = 0;
    let mut commands = 0;
    let mut finish = Vec::new();
    for (c, r) in cmds.iter().zip(results) {
        let Err(status) = r else { continue };
        let mut st = fs.st.borrow_mut();
        match super::fault::absorb_write(fs, &mut st, c, status, now) {
            Some(finish_zone) => {
                refused += c.len as u64;
                commands += 1;
                if finish_zone {
                    finish.push(c.zone);
                }
            }
            None => return Err(status.into()),
        }
    }
    Ok((refused, finish, commands))
}

/// Writes back every dirty page of `ino` (as much as there is room for, collecting garbage or
/// waiting when the zones are full).
pub(crate) async fn flush_file(fs: &Rc<Inner>, h: &Host, ino: Ino) -> Result<(), FsError> {
    flush_file_as(fs, h, ino, false).await
}

/// As [`flush_file`]; `checkpoint`: written by a checkpoint (dentry blocks), which must not
/// start a GC or another checkpoint and may use the zones kept for GC.
pub(crate) async fn flush_file_as(
    fs: &Rc<Inner>,
    h: &Host,
    ino: Ino,
    checkpoint: bool,
) -> Result<(), FsError> {
    loop {
        {
            let st = fs.st.borrow();
            if !st.exists(ino) || st.inode(ino).dirty == 0 {
                return Ok(());
            }
        }
        match &fs.spec.personality {
            Personality::Zenfs(_) => zenfs::prepare_zone(fs, h, ino).await?,
            Personality::F2fs(_) if !checkpoint => gc::balance(fs, h).await?,
            Personality::F2fs(_) => {}
        }
        let (cmds, complete) = {
            let mut st = fs.st.borrow_mut();
            if !st.exists(ino) {
                return Ok(());
            }
            plan_data(fs, &mut st, ino, h.now(), checkpoint)
        };
        let wrote = !cmds.is_empty();
        // Blocks refused are dirty again: the loop writes them elsewhere.
        let refused = submit_writes(fs, h, cmds, Some(ino)).await?;
        gc::kick(fs, h);
        if complete && refused == 0 {
            return Ok(());
        }
        if !wrote && matches!(fs.spec.personality, Personality::F2fs(_)) {
            if checkpoint {
                return Err(FsError::NoSpace);
            }
            if !gc::make_room(fs, h).await? {
                return Err(FsError::NoSpace);
            }
        }
    }
}

/// Waits until no write of `ino` is in flight.
pub(crate) async fn wait_written(fs: &Rc<Inner>, h: &Host, ino: Ino) {
    loop {
        let busy = {
            let st = fs.st.borrow();
            st.exists(ino) && st.inode(ino).inflight > 0
        };
        if !busy {
            return;
        }
        fs.io_cv.notified(h).await;
    }
}

/// A writer over the dirty limit waits for writeback; over the background limit it wakes the
/// flusher (Linux's balance_dirty_pages).
pub(crate) async fn balance_dirty(fs: &Rc<Inner>, h: &Host) -> Result<(), FsError> {
    let limit = fs.spec.cache.dirty_limit_bytes / BLOCK_BYTES;
    let background = fs.spec.cache.dirty_background_bytes / BLOCK_BYTES;
    let dirty = fs.st.borrow().dirty_pages;
    if dirty > background {
        fs.flush_cv.notify_all(h);
    }
    if dirty > limit {
        fs.st.borrow_mut().stats.dirty_throttles += 1;
        while fs.st.borrow().dirty_pages > limit {
            if fs.st.borrow().writeback_failed {
                // Writeback found no room: the writer gets the error instead of waiting.
                return Err(FsError::NoSpace);
            }
            fs.flush_cv.notify_all(h);
            fs.io_cv.notified(h).await;
        }
    }
    Ok(())
}

/// Waits for `cv` or until `until`, whichever comes first.
pub(crate) async fn notified_or(h: &Host, cv: &crate::sim::sync::Condvar, until: Instant) {
    cv.notified_until(h, until).await;
}

/// The page-cache flusher: every `writeback_interval`, or when woken above the background
/// limit, writes back files whose dirty data is older than `dirty_expire`, and oldest first
/// while dirty data is above the background limit.
pub(crate) async fn flusher(fs: Rc<Inner>) {
    let h = fs.host.clone();
    let background = fs.spec.cache.dirty_background_bytes / BLOCK_BYTES;
    loop {
        let until = h.now() + fs.spec.cache.writeback_interval;
        notified_or(&h, &fs.flush_cv, until).await;
        loop {
            let now = h.now();
            let pick = {
                let st = fs.st.borrow();
                let over = st.dirty_pages > background;
                let expire = fs.spec.cache.dirty_expire;
                let mut oldest: Option<(Instant, Ino)> = None;
                for (i, inode) in st.inodes.iter().enumerate() {
                    if let Some(inode) = inode
                        && let Some(t) = inode.dirty_since
                        && inode.dirty > 0
                        && (over || t + expire <= now)
                        && oldest.is_none_or(|(o, _)| t < o)
                    {
                        oldest = Some((t, i as Ino));
                    }
                }
                oldest.map(|o| o.1)
            };
            let Some(ino) = pick else {
                break;
            };
            let before = fs.st.borrow().dirty_pages;
            let r = flush_file(&fs, &h, ino).await;
            fs.st.borrow_mut().writeback_failed = r.is_err();
            if r.is_err() {
                fs.io_cv.notify_all(&h);
                break;
            }
            let after = fs.st.borrow().dirty_pages;
            fs.st.borrow_mut().stats.writeback_blocks += before.saturating_sub(after);
            fs.io_cv.notify_all(&h);
            // Do not spin if nothing was written (the file was redirtied as fast).
            if after >= before {
                h.sleep(Duration::from_ms(1)).await;
            }
        }
    }
}
