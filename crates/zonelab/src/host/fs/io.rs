//! The data path shared by both personalities: buffered writes into cached pages, writeback of a
//! file's dirty pages into the zone its personality picks, reads (cache first, then the device),
//! the page-cache flusher, and delete and truncate. Space is allocated and the block maps
//! changed in the same step that submits the writes, so the device sees every zone's writes in
//! allocation order.

use std::rc::Rc;

use super::map::Run;
use super::space::Owner;
use super::state::{Ino, Page, State};
use super::{BLOCK_BYTES, FsError, Inner, Personality, Target, f2fs, gc, zenfs};
use crate::device::{Command, Data};
use crate::host::join_all;
use crate::sim::host::Host;
use crate::time::{Duration, Instant};

/// One device write the layer sends: `len` blocks at `zone:block`.
pub(crate) struct WriteCmd {
    pub zone: u32,
    pub block: u32,
    pub len: u32,
    pub data: Option<Vec<u8>>,
}

/// Reads into the cache the blocks a write only partly covers, when they are on the device and
/// not cached (read-modify-write of a page, as the kernel does).
pub(crate) async fn read_partial_blocks(
    fs: &Rc<Inner>,
    h: &Host,
    ino: Ino,
    offset: u64,
    len: u64,
) -> Result<(), FsError> {
    let end = offset + len;
    let (first, last) = (offset / BLOCK_BYTES, (end - 1) / BLOCK_BYTES);
    let mut want = Vec::new();
    if !offset.is_multiple_of(BLOCK_BYTES) {
        want.push(first);
    }
    if !end.is_multiple_of(BLOCK_BYTES) && !want.contains(&last) {
        want.push(last);
    }
    {
        let st = fs.st.borrow();
        let inode = st.inode(ino);
        want.retain(|fb| !inode.pages.contains_key(fb) && inode.map.get(*fb).is_some());
    }
    for fb in want {
        let n = fetch_blocks(fs, h, ino, fb, 1).await?;
        debug_assert!(n <= 1);
    }
    Ok(())
}

/// Reads file blocks `fb..fb + count` that are on the device into the cache as clean pages.
async fn fetch_blocks(
    fs: &Rc<Inner>,
    h: &Host,
    ino: Ino,
    fb: u64,
    count: u64,
) -> Result<u64, FsError> {
    let runs = {
        let st = fs.st.borrow();
        st.inode(ino).map.runs_in(fb, fb + count)
    };
    let reads = device_reads(fs, &runs);
    let bufs = issue_reads(fs, h, &reads).await?;
    let mut st = fs.st.borrow_mut();
    if !st.exists(ino) {
        return Ok(0);
    }
    let mut added = 0;
    for (r, buf) in reads.iter().zip(bufs) {
        for i in 0..r.2.len as u64 {
            let page = Page {
                dirty: false,
                data: buf.as_ref().map(|b| {
                    b[(i * BLOCK_BYTES) as usize..((i + 1) * BLOCK_BYTES) as usize].into()
                }),
            };
            if let std::collections::btree_map::Entry::Vacant(e) =
                st.inode_mut(ino).pages.entry(r.0 + i)
            {
                e.insert(page);
                added += 1;
            }
        }
    }
    st.cached_pages += added;
    Ok(added)
}

/// Device reads for file-block runs, split at the layer's largest command: (first file block,
/// zone, run).
fn device_reads(fs: &Inner, runs: &[(u64, Run)]) -> Vec<(u64, u32, Run)> {
    let max = fs.spec.max_io_blocks;
    let mut out = Vec::new();
    for &(fb, r) in runs {
        let mut done = 0;
        while done < r.len {
            let n = (r.len - done).min(max);
            out.push((
                fb + done as u64,
                r.zone,
                Run::new(r.zone, r.block + done, n),
            ));
            done += n;
        }
    }
    out
}

/// Sends the reads at once and waits for them; their bytes in data mode.
async fn issue_reads(
    fs: &Rc<Inner>,
    h: &Host,
    reads: &[(u64, u32, Run)],
) -> Result<Vec<Option<Vec<u8>>>, FsError> {
    if reads.is_empty() {
        return Ok(Vec::new());
    }
    let mut bufs: Vec<Option<Vec<u8>>> = reads
        .iter()
        .map(|r| {
            fs.spec
                .data
                .then(|| vec![0u8; (r.2.len as u64 * BLOCK_BYTES) as usize])
        })
        .collect();
    let lbas: Vec<(u64, u64)> = {
        let st = fs.st.borrow();
        reads
            .iter()
            .map(|r| {
                (
                    st.space.lba(r.2.zone, r.2.block),
                    r.2.len as u64 * fs.lbas_per_block,
                )
            })
            .collect()
    };
    {
        let mut st = fs.st.borrow_mut();
        st.inflight_io += reads.len() as u32;
        st.stats.device_reads += reads.len() as u64;
    }
    let results = join_all(bufs.iter_mut().zip(&lbas).map(|(b, &(lba, nlb))| {
        let mut cmd = Command::read(lba, nlb);
        if let Some(b) = b {
            cmd = cmd.with_data(Data::In(b));
        }
        h.io(cmd)
    }))
    .await;
    fs.st.borrow_mut().inflight_io -= reads.len() as u32;
    // Submission CPU is charged after the commands: blocks are looked up and the commands sent
    // in one step, so nothing moves in between.
    h.cpu(Duration::from_ns(
        fs.spec.cpu.submit.ns() * reads.len() as u64,
    ))
    .await;
    for r in results {
        r?;
    }
    Ok(bufs)
}

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
            .filter(|b| inode.map.get(*b).is_none() && !inode.pages.contains_key(b))
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
                let p_start = b * BLOCK_BYTES;
                let from = offset.max(p_start);
                let to = (offset + len).min(p_start + BLOCK_BYTES);
                let bytes = page
                    .data
                    .get_or_insert_with(|| vec![0u8; BLOCK_BYTES as usize].into());
                let dst = &mut bytes[(from - p_start) as usize..(to - p_start) as usize];
                match data {
                    Some(d) => {
                        dst.copy_from_slice(&d[(from - offset) as usize..(to - offset) as usize])
                    }
                    None => dst.fill(0),
                }
            }
            if !page.dirty {
                page.dirty = true;
                dirtied += 1;
                inode.dirty_idx.insert(b);
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
            let zone = &mut st.space.zones[z as usize];
            zone.head = Some(s as u32);
            zone.class = gc::stream_class(s);
            st.heads[s] = Some(z);
            Some(z)
        }
    }
}

/// Plans the writeback of `ino`'s dirty pages: allocates, remaps, marks the old blocks dead.
/// Returns the writes and whether every dirty page found room.
fn plan_data(
    fs: &Inner,
    st: &mut State,
    ino: Ino,
    now: Instant,
    reserve: bool,
) -> (Vec<WriteCmd>, bool) {
    let dirty: Vec<u64> = st.inode(ino).dirty_idx.iter().copied().collect();
    let target = data_target(fs, st, ino);
    let keep_clean = st.cache_limit_pages > 0;
    let size = st.inode(ino).size;
    let tail = (!size.is_multiple_of(BLOCK_BYTES)).then_some(size / BLOCK_BYTES);
    let is_f2fs = matches!(fs.spec.personality, Personality::F2fs(_));
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
        let mut data = fs
            .spec
            .data
            .then(|| Vec::with_capacity((got as u64 * BLOCK_BYTES) as usize));
        let pages = &dirty[i..i + got as usize];
        // Runs of consecutive file blocks become one map run and one owner run each.
        let mut k = 0;
        while k < pages.len() {
            let mut n = 1;
            while k + n < pages.len() && pages[k + n] == pages[k] + n as u64 {
                n += 1;
            }
            let fb = pages[k];
            let block = start + k as u32;
            st.inode_mut(ino)
                .map
                .set(fb, Run::new(z, block, n as u32), &mut old);
            st.fill(z, block, n as u32, Owner::Data { ino, index: fb });
            if is_f2fs {
                for node in f2fs::node_of(fb)..=f2fs::node_of(fb + n as u64 - 1) {
                    st.dirty_node(ino, node);
                }
            }
            k += n;
        }
        let mut dropped = 0u64;
        {
            let inode = st.inode_mut(ino);
            for &fb in pages {
                let keep = keep_clean || Some(fb) == tail;
                let page = inode.pages.get_mut(&fb).expect("dirty page");
                if let (Some(d), Some(p)) = (data.as_mut(), page.data.as_ref()) {
                    d.extend_from_slice(p);
                }
                inode.dirty_idx.remove(&fb);
                if keep {
                    page.dirty = false;
                } else {
                    inode.pages.remove(&fb);
                    dropped += 1;
                }
            }
            inode.dirty -= got;
            if inode.dirty == 0 {
                inode.dirty_since = None;
            }
        }
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
    st.kill_runs(&old);
    if keep_clean && !cmds.is_empty() {
        st.touch(ino);
    }
    (cmds, i == dirty.len())
}

/// Sends writes at once and waits for them. `ino`: the file they belong to (fsync waits for
/// its writes in flight).
pub(crate) async fn submit_writes(
    fs: &Rc<Inner>,
    h: &Host,
    cmds: Vec<WriteCmd>,
    ino: Option<Ino>,
) -> Result<(), FsError> {
    if cmds.is_empty() {
        return Ok(());
    }
    let lbas: Vec<(u64, u64)> = {
        let mut st = fs.st.borrow_mut();
        st.inflight_io += cmds.len() as u32;
        if let Some(ino) = ino {
            st.inode_mut(ino).inflight += 1;
        }
        cmds.iter()
            .map(|c| {
                (
                    st.space.lba(c.zone, c.block),
                    c.len as u64 * fs.lbas_per_block,
                )
            })
            .collect()
    };
    let results = join_all(cmds.iter().zip(&lbas).map(|(c, &(lba, nlb))| {
        let mut cmd = Command::write(lba, nlb);
        if let Some(d) = &c.data {
            cmd = cmd.with_data(Data::Out(d));
        }
        h.io(cmd)
    }))
    .await;
    {
        let mut st = fs.st.borrow_mut();
        st.inflight_io -= cmds.len() as u32;
        if let Some(ino) = ino
            && st.exists(ino)
        {
            st.inode_mut(ino).inflight -= 1;
        }
    }
    fs.io_cv.notify_all(h);
    // Charged after the writes: they were planned and must be sent in the same step.
    h.cpu(Duration::from_ns(
        fs.spec.cpu.submit.ns() * cmds.len() as u64,
    ))
    .await;
    for r in results {
        r?;
    }
    Ok(())
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
        submit_writes(fs, h, cmds, Some(ino)).await?;
        gc::kick(fs, h);
        if complete {
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

/// Reads `len` bytes at `offset` of `ino`: cached pages, then the device; holes read as zeros.
pub(crate) async fn read(
    fs: &Rc<Inner>,
    h: &Host,
    ino: Ino,
    offset: u64,
    len: u64,
    mut buf: Option<&mut [u8]>,
) -> Result<u64, FsError> {
    let (n, reads) = {
        let st = fs.st.borrow();
        let inode = st.inode(ino);
        let n = len.min(inode.size.saturating_sub(offset));
        if n == 0 {
            return Ok(0);
        }
        if let Some(b) = buf.as_deref_mut() {
            b[..n as usize].fill(0);
        }
        let first = offset / BLOCK_BYTES;
        let last = (offset + n - 1) / BLOCK_BYTES;
        let mut missing: Vec<(u64, Run)> = Vec::new();
        for (fb, run) in inode.map.runs_in(first, last + 1) {
            // Split runs around pages already cached.
            let mut s = 0;
            while s < run.len {
                if inode.pages.contains_key(&(fb + s as u64)) {
                    s += 1;
                    continue;
                }
                let mut e = s;
                while e < run.len && !inode.pages.contains_key(&(fb + e as u64)) {
                    e += 1;
                }
                missing.push((fb + s as u64, Run::new(run.zone, run.block + s, e - s)));
                s = e;
            }
        }
        if let Some(b) = buf.as_deref_mut() {
            for (&fb, page) in inode.pages.range(first..=last) {
                if let Some(d) = &page.data {
                    copy_block(b, offset, n, fb, d);
                }
            }
        }
        (n, device_reads(fs, &missing))
    };
    let bufs = issue_reads(fs, h, &reads).await?;
    let mut st = fs.st.borrow_mut();
    if let Some(b) = buf {
        for (r, data) in reads.iter().zip(&bufs) {
            if let Some(d) = data {
                for i in 0..r.2.len as u64 {
                    let s = (i * BLOCK_BYTES) as usize;
                    copy_block(b, offset, n, r.0 + i, &d[s..s + BLOCK_BYTES as usize]);
                }
            }
        }
    }
    if st.cache_limit_pages > 0 && st.exists(ino) {
        let mut added = 0;
        for (r, data) in reads.iter().zip(bufs) {
            for i in 0..r.2.len as u64 {
                let s = (i * BLOCK_BYTES) as usize;
                let page = Page {
                    dirty: false,
                    data: data.as_ref().map(|d| d[s..s + BLOCK_BYTES as usize].into()),
                };
                if let std::collections::btree_map::Entry::Vacant(e) =
                    st.inode_mut(ino).pages.entry(r.0 + i)
                {
                    e.insert(page);
                    added += 1;
                }
            }
        }
        st.cached_pages += added;
        st.touch(ino);
        st.evict();
    }
    Ok(n)
}

/// Copies the part of file block `fb` (bytes `block`) inside `offset..offset + n` into `buf`.
fn copy_block(buf: &mut [u8], offset: u64, n: u64, fb: u64, block: &[u8]) {
    let b_start = fb * BLOCK_BYTES;
    let from = offset.max(b_start);
    let to = (offset + n).min(b_start + BLOCK_BYTES);
    if from >= to {
        return;
    }
    buf[(from - offset) as usize..(to - offset) as usize]
        .copy_from_slice(&block[(from - b_start) as usize..(to - b_start) as usize]);
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
        for (fb, r) in inode.map.iter() {
            for k in 0..r.len {
                let zone = &st.space.zones[r.zone as usize];
                assert!(
                    zone.is_live(r.block + k),
                    "inode {ino} block {} dead",
                    fb + k as u64
                );
                let (owner, _) = zone.owner_of(r.block + k).expect("owned");
                assert_eq!(
                    owner,
                    Owner::Data {
                        ino,
                        index: fb + k as u64
                    },
                    "zone {} block {} owner",
                    r.zone,
                    r.block + k
                );
                live[r.zone as usize] += 1;
            }
        }
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
                .filter(|(k, p)| p.dirty && inode.map.get(**k).is_none())
                .count() as u64;
        assert_eq!(blocks_with_data, inode.allocated, "inode {ino} allocation");
    }
    assert_eq!(used, st.used_blocks, "used blocks");
    assert_eq!(cached, st.cached_pages, "cached pages");
    assert_eq!(dirty, st.dirty_pages, "dirty pages");
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
    if let Some(m) = st.space.max_active {
        assert!(active <= m, "{active} active zones, limit {m}");
    }
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
                if zone.valid == 0 && zone.wp > 0 && zone.head.is_none() && !zone.collecting {
                    // Nobody takes or lists it while its reset is in flight.
                    zone.collecting = true;
                    break Some((z, st.space.zslba(z)));
                }
            }
        };
        let Some((z, zslba)) = next else {
            return Ok(());
        };
        h.io(Command::zone(crate::device::ZoneAction::Reset, zslba))
            .await?;
        {
            let mut st = fs.st.borrow_mut();
            st.space.reset(z);
            st.stats.zone_resets += 1;
            st.generation += 1;
        }
        fs.space_cv.notify_all(h);
    }
}
