//! The copy engine: reads a victim at the policy's depth, re-checks each block's liveness as it
//! is copied, writes survivors to their destinations, fixes the owners' block maps and resets
//! the victim once nothing live is left.

use std::collections::BTreeMap;
use std::ops::Range;
use std::rc::Rc;

use super::{Dest, Pending, zenfs};
use crate::device::{Command, Data, Status};
use crate::host::fs::io::{self, WriteCmd};
use crate::host::fs::map::Run;
use crate::host::fs::space::{Owner, OwnerCursor, Role};
use crate::host::fs::state::{Ino, State};
use crate::host::fs::{BLOCK_BYTES, FsError, Inner, Personality, Target};
use crate::host::join_all;
use crate::sim::host::Host;
use crate::time::{Duration, Instant};

/// Collects `victim`: reads it as the policy says, copies its live blocks out, resets it when
/// empty. `fg`: a writer is waiting for it.
pub(crate) async fn collect(
    fs: &Rc<Inner>,
    h: &Host,
    victim: u32,
    fg: bool,
) -> Result<(), FsError> {
    collect_window(fs, h, victim, fg, 0..u32::MAX).await
}

/// Collects the live blocks of `victim` in `window` only (F2FS's zoned cleaner migrates a few
/// segments per pass); a window from block 0 is a new pick. The victim is reset (or waits
/// for a checkpoint) once it holds nothing live.
pub(crate) async fn collect_window(
    fs: &Rc<Inner>,
    h: &Host,
    victim: u32,
    fg: bool,
    window: Range<u32>,
) -> Result<(), FsError> {
    let t0 = h.now();
    let plan = begin_pass(fs, victim, fg, &window);
    let result = copy_out(fs, h, victim, &plan).await;
    let empty = {
        let mut st = fs.st.borrow_mut();
        let zone = &mut st.space.zones[victim as usize];
        zone.collecting = false;
        let last_pass = window.end >= zone.wp || zone.valid == 0;
        if last_pass {
            st.stats.gc_zones += 1;
        }
        let took = (h.now() - t0).ns();
        st.stats.gc_ns += took;
        if fg {
            st.stats.gc_fg_ns += took;
        }
        st.space.zones[victim as usize].valid == 0
    };
    let retired = fs.st.borrow().space.zones[victim as usize].role == Role::Retired;
    if retired {
        // The victim went Offline under the pass (a read refused): nothing more to do with it.
        return if matches!(result, Err(FsError::Device(Status::ZoneIsOffline))) {
            Ok(())
        } else {
            result
        };
    }
    result?;
    if empty {
        if fs.gc.borrow().reset_now() {
            fs.st.borrow_mut().dead.insert(victim);
            reset_one(fs, h, victim).await?;
        } else {
            fs.st.borrow_mut().check_dead(victim);
        }
    }
    fs.space_cv.notify_all(h);
    Ok(())
}

/// Starts a pass over `victim`'s `window` (counting a new pick when the window starts at block
/// 0); returns the ranges to read, as the policy plans them.
fn begin_pass(fs: &Rc<Inner>, victim: u32, fg: bool, window: &Range<u32>) -> Vec<(u32, u32)> {
    let mut st = fs.st.borrow_mut();
    let zone = &mut st.space.zones[victim as usize];
    zone.collecting = true;
    if window.start == 0 {
        let tenth = (10 * zone.valid as u64 / zone.cap.max(1) as u64).min(10) as usize;
        st.stats.victim_util_tenths[tenth] += 1;
        st.stats.gc_live_at_pick += st.space.zones[victim as usize].valid as u64;
        if fg {
            st.stats.gc_runs_fg += 1;
        } else {
            st.stats.gc_runs_bg += 1;
        }
    }
    let mut gc = fs.gc.borrow_mut();
    gc.begin(&st, victim);
    let plan = gc.read_plan(fs, &st, victim);
    clip(plan, window)
}

/// Reads `plan`'s ranges of `victim` at the policy's depth and writes the survivors out a write
/// unit at a time, then the rest. A failed write ends its destination's turn, not the others'.
async fn copy_out(
    fs: &Rc<Inner>,
    h: &Host,
    victim: u32,
    plan: &[(u32, u32)],
) -> Result<(), FsError> {
    let unit = fs.gc.borrow().write_unit(fs).max(1);
    let depth = fs.spec.gc.read_depth.max(1) as usize;
    let mut pending: Pending = BTreeMap::new();
    let through_cache = fs.gc.borrow().reads_through_page_cache();
    // Kept across batches: each lookup starts near where the last batch ended.
    let (mut cache_owners, mut copy_owners) = (OwnerCursor::default(), OwnerCursor::default());
    for batch in plan.chunks(depth) {
        // Blocks whose file page is cached and clean need no device read (F2FS's
        // `move_data_page` finds the page up to date); the rest are read, adjacent ones merged.
        let (reads, cached) = if through_cache {
            split_cached(&fs.st.borrow(), victim, batch, &mut cache_owners)
        } else {
            (batch.to_vec(), Cached::none())
        };
        let bufs = read_ranges(fs, h, victim, &reads).await?;
        let found = (reads.as_slice(), bufs.as_slice());
        sort_survivors(
            fs,
            (victim, batch),
            found,
            cached,
            &mut copy_owners,
            &mut pending,
        );
        let full: Vec<Dest> = pending
            .iter()
            .filter(|(d, v)| **d != Dest::Skip && v.len() >= unit as usize)
            .map(|(d, _)| *d)
            .collect();
        let mut failed = None;
        for dest in full {
            let blocks = pending.get_mut(&dest).expect("listed");
            while blocks.len() >= unit as usize {
                let chunk: Vec<_> = blocks.drain(..unit as usize).collect();
                if let Err(e) = write_gc(fs, h, victim, dest, chunk).await {
                    failed = Some(e);
                    break;
                }
            }
        }
        if let Some(e) = failed {
            return Err(e);
        }
    }
    let mut result = Ok(());
    for (dest, blocks) in pending {
        if dest == Dest::Skip || blocks.is_empty() {
            continue;
        }
        for chunk in blocks.chunks(unit as usize) {
            if let Err(e) = write_gc(fs, h, victim, dest, chunk.to_vec()).await {
                result = Err(e);
                break;
            }
        }
    }
    result
}

/// Splits a batch of ranges of `zone` into the ranges to read from the device and the blocks
/// whose data page is cached and clean, in block order (with its bytes in data mode). Node
/// blocks are always read: the layer keeps no node page cache.
fn split_cached(
    st: &State,
    zone: u32,
    batch: &[(u32, u32)],
    owners: &mut OwnerCursor,
) -> (Vec<(u32, u32)>, Cached) {
    let z = &st.space.zones[zone as usize];
    let mut reads: Vec<(u32, u32)> = Vec::new();
    let mut cached = Vec::new();
    owners.resume();
    for &(s, n) in batch {
        for b in s..s + n {
            let page = match owners.of(z, b) {
                Some(Owner::Data { ino, index }) if z.is_live(b) => st.inodes[ino as usize]
                    .as_ref()
                    .and_then(|i| i.pages.get(&index))
                    .filter(|p| !p.dirty),
                _ => None,
            };
            if let Some(p) = page {
                cached.push((b, p.data.clone()));
                continue;
            }
            match reads.last_mut() {
                Some((rs, rn)) if *rs + *rn == b && b != s => *rn += 1,
                _ => reads.push((b, 1)),
            }
        }
    }
    (
        reads,
        Cached {
            blocks: cached,
            next: 0,
            through_cache: true,
        },
    )
}

/// Blocks taken from the page cache, in block order, handed out as the copy loop reaches them.
struct Cached {
    blocks: Vec<(u32, Option<Box<[u8]>>)>,
    next: usize,
    /// The policy reads through the page cache: the data pages it reads stay cached.
    through_cache: bool,
}

impl Cached {
    /// No page cache in the path: every block is read, nothing is kept.
    fn none() -> Self {
        Cached {
            blocks: Vec::new(),
            next: 0,
            through_cache: false,
        }
    }

    /// Block `b`'s cached bytes if `b` was taken from the cache (blocks are asked for in order).
    fn take(&mut self, b: u32) -> Option<Option<Box<[u8]>>> {
        while self.blocks.get(self.next).is_some_and(|c| c.0 < b) {
            self.next += 1;
        }
        match self.blocks.get_mut(self.next) {
            Some(c) if c.0 == b => {
                self.next += 1;
                Some(c.1.take())
            }
            _ => None,
        }
    }

    fn len(&self) -> u64 {
        self.blocks.len() as u64
    }
}

/// A data page GC read from the device: (file, page index, its bytes in data mode).
type Fetched = (Ino, u64, Option<Box<[u8]>>);

/// Puts the data pages GC read from the device into the cache as clean pages (where the file
/// has no page at that index yet), then trims the cache to its limit.
fn cache_fetched(st: &mut State, fetched: Vec<Fetched>) {
    if fetched.is_empty() {
        return;
    }
    let mut touched = None;
    for (ino, index, data) in fetched {
        // Runs of blocks share a file: move it up the LRU once per run.
        if st.cache_clean_page(ino, index, data) && touched != Some(ino) {
            st.touch(ino);
            touched = Some(ino);
        }
    }
    st.evict();
}

/// Block `b`'s bytes in the buffers read for `reads` (None outside data mode).
fn read_bytes(reads: &[(u32, u32)], bufs: &[Option<Vec<u8>>], b: u32) -> Option<Box<[u8]>> {
    let i = reads.partition_point(|r| r.0 <= b).checked_sub(1)?;
    let (s, n) = reads[i];
    debug_assert!(b < s + n, "block {b} was read");
    bufs[i].as_ref().map(|d| {
        let o = ((b - s) as u64 * BLOCK_BYTES) as usize;
        d[o..o + BLOCK_BYTES as usize].into()
    })
}

/// Ranges read from the device and their bytes (None outside data mode).
type Read<'a> = (&'a [(u32, u32)], &'a [Option<Vec<u8>>]);

/// Queues the live blocks of `batch` for their destinations, with their bytes from the cache or
/// from the buffers read for `reads`, and counts what was read. With the page cache in the
/// path, the data pages read from the device stay cached, clean (Linux reads them into the page
/// cache, and a later cleaning of the same blocks finds them there).
fn sort_survivors(
    fs: &Inner,
    (victim, batch): (u32, &[(u32, u32)]),
    (reads, bufs): Read<'_>,
    mut cached: Cached,
    owners: &mut OwnerCursor,
    pending: &mut Pending,
) {
    let through_cache = cached.through_cache;
    let st = fs.st.borrow();
    let gc = fs.gc.borrow();
    let zone = &st.space.zones[victim as usize];
    let mut live = 0u64;
    let mut fetched: Vec<Fetched> = Vec::new();
    owners.resume();
    for &(s, n) in batch {
        for b in s..s + n {
            if !zone.is_live(b) {
                continue;
            }
            live += 1;
            let owner = owners.of(zone, b).expect("a live block has an owner");
            let dest = gc.destination(fs, &st, victim, b, owner);
            let data = match cached.take(b) {
                Some(page) => page,
                None => {
                    let data = read_bytes(reads, bufs, b);
                    if let (true, Owner::Data { ino, index }) = (through_cache, owner) {
                        fetched.push((ino, index, data.clone()));
                    }
                    data
                }
            };
            pending.entry(dest).or_default().push((b, data));
        }
    }
    let read: u64 = reads.iter().map(|r| r.1 as u64).sum();
    let from_cache = cached.len();
    drop(gc);
    drop(st);
    let mut st = fs.st.borrow_mut();
    st.stats.gc_blocks_read += read;
    st.stats.gc_blocks_from_cache += from_cache;
    st.stats.gc_dead_blocks_read += read.saturating_sub(live.saturating_sub(from_cache));
    cache_fetched(&mut st, fetched);
}

/// The parts of `plan`'s ranges inside `window`.
fn clip(plan: Vec<(u32, u32)>, window: &Range<u32>) -> Vec<(u32, u32)> {
    if window.start == 0 && window.end == u32::MAX {
        return plan;
    }
    plan.into_iter()
        .filter_map(|(s, n)| {
            let (a, b) = (s.max(window.start), (s + n).min(window.end));
            (a < b).then(|| (a, b - a))
        })
        .collect()
}

/// Resets `zone` now (it is on the dead list).
async fn reset_one(fs: &Rc<Inner>, h: &Host, zone: u32) -> Result<(), FsError> {
    let t0 = h.now();
    {
        let mut st = fs.st.borrow_mut();
        st.dead.remove(&zone);
        st.space.zones[zone as usize].collecting = true;
    }
    io::reset_zone(fs, h, zone).await?;
    fs.st.borrow_mut().stats.gc_ns += (h.now() - t0).ns();
    Ok(())
}

/// Reads block ranges of `zone` at once; their bytes in data mode.
async fn read_ranges(
    fs: &Rc<Inner>,
    h: &Host,
    zone: u32,
    ranges: &[(u32, u32)],
) -> Result<Vec<Option<Vec<u8>>>, FsError> {
    let mut bufs: Vec<Option<Vec<u8>>> = ranges
        .iter()
        .map(|r| {
            fs.spec
                .data
                .then(|| vec![0u8; (r.1 as u64 * BLOCK_BYTES) as usize])
        })
        .collect();
    let lbas: Vec<(u64, u64)> = {
        let mut st = fs.st.borrow_mut();
        st.inflight_io += ranges.len() as u32;
        st.inflight_reads += ranges.len() as u32;
        ranges
            .iter()
            .map(|&(s, n)| (st.space.lba(zone, s), n as u64 * fs.lbas_per_block))
            .collect()
    };
    let results = join_all(bufs.iter_mut().zip(&lbas).map(|(b, &(lba, nlb))| {
        let mut cmd = Command::read(lba, nlb);
        if let Some(b) = b {
            cmd = cmd.with_data(Data::In(b));
        }
        h.io(cmd)
    }))
    .await;
    {
        let mut st = fs.st.borrow_mut();
        st.inflight_io -= ranges.len() as u32;
        st.inflight_reads -= ranges.len() as u32;
    }
    h.cpu(Duration::from_ns(
        fs.spec.cpu.submit.ns() * ranges.len() as u64,
    ))
    .await;
    io::check_reads(fs, h, results.into_iter().map(|r| (r, zone)))?;
    Ok(bufs)
}

/// Copies `blocks` of `victim` that are still live to `dest` and repoints their owners.
async fn write_gc(
    fs: &Rc<Inner>,
    h: &Host,
    victim: u32,
    dest: Dest,
    blocks: Vec<(u32, Option<Box<[u8]>>)>,
) -> Result<(), FsError> {
    let (cmds, touched) = {
        let mut st = fs.st.borrow_mut();
        plan_gc_write(fs, &mut st, victim, dest, blocks, h.now())
    };
    let moved: u64 = cmds.iter().map(|c| c.len as u64).sum();
    if moved == 0 {
        return Ok(());
    }
    io::submit_writes(fs, h, cmds, None).await?;
    h.cpu(Duration::from_ns(fs.spec.cpu.gc_per_block_ns * moved))
        .await;
    if matches!(fs.spec.personality, Personality::Zenfs(_)) {
        for ino in touched {
            let live = {
                let st = fs.st.borrow();
                st.exists(ino) && st.inode(ino).nlink > 0 && st.inode(ino).meta_dirty
            };
            if live {
                crate::host::fs::zenfs::persist(fs, h, crate::host::fs::zenfs::Record::Update(ino))
                    .await?;
            }
        }
    }
    Ok(())
}

/// The synchronous part of a GC write: liveness re-checked, space allocated, owners repointed.
fn plan_gc_write(
    fs: &Inner,
    st: &mut State,
    victim: u32,
    dest: Dest,
    blocks: Vec<(u32, Option<Box<[u8]>>)>,
    now: Instant,
) -> (Vec<WriteCmd>, Vec<Ino>) {
    // Never copy a block that died since it was read.
    let live: Vec<(u32, Option<Box<[u8]>>)> = blocks
        .into_iter()
        .filter(|(b, _)| st.space.zones[victim as usize].is_live(*b))
        .collect();
    let mut cmds: Vec<WriteCmd> = Vec::new();
    let mut moved = Moved::default();
    let owners = owners_of(st, victim, &live);
    let mut i = 0;
    while i < live.len() {
        let Some(z) = dest_zone(fs, st, dest, (live.len() - i) as u32) else {
            break;
        };
        let (start, got) = st.space.alloc(z, (live.len() - i) as u32, now);
        if got == 0 {
            break;
        }
        if let Dest::Stream(s) = dest {
            io::refill_log(fs, st, s, true);
        }
        let to = i..i + got as usize;
        let data = move_blocks(fs, st, &live[to.clone()], &owners[to], z, start, &mut moved);
        st.stats.gc_blocks_written += got as u64;
        let class = st.space.zones[z as usize].class as usize;
        st.stats.gc_class_blocks[class.min(3)] += got as u64;
        cmds.push(WriteCmd {
            zone: z,
            block: start,
            len: got,
            data,
        });
        i += got as usize;
    }
    st.kill_runs(&moved.old);
    let mut touched = moved.touched;
    touched.sort_unstable();
    touched.dedup();
    (cmds, touched)
}

/// What moving blocks leaves: the runs they left (to kill), the files whose maps changed.
#[derive(Default)]
struct Moved {
    old: Vec<Run>,
    touched: Vec<Ino>,
}

/// Every live block's owner, found once. The moves rewrite file-map slots that sit at random
/// in large maps: start loading them all first, so the cache misses overlap instead of coming
/// one after another.
fn owners_of(st: &mut State, victim: u32, live: &[(u32, Option<Box<[u8]>>)]) -> Vec<Owner> {
    let mut cursor = OwnerCursor::default();
    let owners: Vec<Owner> = live
        .iter()
        .map(|(b, _)| {
            let owner = cursor.of(&st.space.zones[victim as usize], *b);
            owner.expect("a live block has an owner")
        })
        .collect();
    for owner in &owners {
        if let Owner::Data { ino, index } = *owner {
            st.inode(ino).map.prefetch(index);
        }
    }
    owners
}

/// Points the owners of the victim's blocks `live` (owned by `owners`) at blocks `start..` of
/// zone `z`, one run per stretch of one file's consecutive pages; returns their bytes (data
/// mode).
fn move_blocks(
    fs: &Inner,
    st: &mut State,
    live: &[(u32, Option<Box<[u8]>>)],
    owners: &[Owner],
    z: u32,
    start: u32,
    moved: &mut Moved,
) -> Option<Vec<u8>> {
    let got = live.len();
    let mut data = fs
        .spec
        .data
        .then(|| Vec::with_capacity((got as u64 * BLOCK_BYTES) as usize));
    let mut k = 0usize;
    while k < got {
        let owner = owners[k];
        // Extend the run while the next victim block continues the same owner.
        let mut n = 1usize;
        while k + n < got {
            let cont = match (owner, owners[k + n]) {
                (Owner::Data { ino, index }, Owner::Data { ino: i2, index: x2 }) => {
                    ino == i2 && x2 == index + n as u64
                }
                _ => false,
            };
            if !cont {
                break;
            }
            n += 1;
        }
        let nb = start + k as u32;
        match owner {
            Owner::Data { ino, index } => {
                st.inode_mut(ino)
                    .map
                    .set(index, Run::new(z, nb, n as u32), &mut moved.old);
                mark_moved(fs, st, ino, index, n as u64);
                moved.touched.push(ino);
            }
            Owner::Node { ino, index } => {
                let prev = st.inode_mut(ino).nodes.insert(index as u32, (z, nb));
                if let Some((oz, ob)) = prev {
                    moved.old.push(Run::new(oz, ob, 1));
                }
                st.f2.note_node_moved(ino);
            }
            Owner::Meta => unreachable!("metadata zones are never collected"),
        }
        st.fill(z, nb, n as u32, owner);
        for (_, d) in &live[k..k + n] {
            if let (Some(buf), Some(d)) = (data.as_mut(), d) {
                buf.extend_from_slice(d);
            }
        }
        k += n;
    }
    data
}

/// A moved data block changes its file's metadata: F2FS's node pointing at it, ZenFS's extents.
fn mark_moved(fs: &Inner, st: &mut State, ino: Ino, index: u64, n: u64) {
    match fs.spec.personality {
        Personality::F2fs(_) => {
            for node in crate::host::fs::f2fs::node_of(index)
                ..=crate::host::fs::f2fs::node_of(index + n - 1)
            {
                st.dirty_node(ino, node);
            }
        }
        Personality::Zenfs(_) => st.inode_mut(ino).meta_dirty = true,
    }
}

/// The zone a GC destination appends to now.
fn dest_zone(fs: &Inner, st: &mut State, dest: Dest, want: u32) -> Option<u32> {
    match dest {
        Dest::Stream(s) => io::target_zone(fs, st, Target::Stream(s), true),
        Dest::Migrate(lifetime) => zenfs::migrate_zone(st, lifetime, want),
        Dest::Skip => None,
    }
}
