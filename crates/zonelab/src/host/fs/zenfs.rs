//! The ZenFS personality (westerndigitalcorporation/zenfs @919c2eb, fs/zbd_zenfs.cc,
//! fs/io_zenfs.cc, fs/fs_zenfs.cc; docs/reference/host-stack.md (a)).
//!
//! - Each file being written holds one zone (its "active zone"), acquired by
//!   `AllocateIOZone`: the finish threshold first (non-WAL files), an open token (WAL files may
//!   use every open slot, others all but one), then the non-full zone holding live data whose
//!   lifetime suits the file best (`GetLifeTimeDiff`), else an empty zone under an active
//!   token, finishing the cheapest zones when no token is free.
//! - Zones are reset as soon as no live extent is left in them, by the call that killed the
//!   last one (`ResetUnusedIOZones` after a delete, a replace, a GC pass).
//! - Metadata is a log in the first three zones: one record per create, delete, rename and per
//!   file sync or close (its new extents), each padded to a block and written at once; a full
//!   log zone rolls to the next one with a snapshot of every file, and the old one is reset.
//!   Record sizes are chosen: 64 bytes plus the name, and 24 bytes per extent (an extent is
//!   encoded as start, length and zone).
//! - Not modelled: sparse WAL files (8-byte headers per flushed chunk), the aux path for LOG
//!   and LOCK files, direct I/O.

use std::rc::Rc;

use super::space::{FILE_HEAD, Role, Zone};
use super::state::{Ino, State};
use super::{BLOCK_BYTES, FsError, Inner, Lifetime, Personality, ZenfsSpec, io};
use crate::device::{Command, ZoneAction};
use crate::sim::host::Host;

/// `LIFETIME_DIFF_NOT_GOOD`, `LIFETIME_DIFF_COULD_BE_WORSE`.
const DIFF_NOT_GOOD: u32 = 100;
const DIFF_COULD_BE_WORSE: u32 = 50;

#[derive(Default)]
pub struct ZenState {
    /// Open and active tokens for I/O zones: the device's limits less the reserved zones.
    pub max_open_io: Option<u32>,
    pub max_active_io: Option<u32>,
    /// Zones held by files being written (open tokens in use).
    pub open_io: u32,
    /// Metadata log zones and the one being appended.
    pub meta: Vec<u32>,
    pub meta_cur: usize,
    pub records: u64,
    pub rolls: u64,
}

/// Lays the file system out: the metadata zones first.
pub(super) fn mkfs(st: &mut State, spec: &ZenfsSpec) {
    for z in 0..spec.meta_zones {
        st.space.claim(z, Role::Meta);
        st.zen.meta.push(z);
    }
}

fn spec(fs: &Inner) -> &ZenfsSpec {
    match &fs.spec.personality {
        Personality::Zenfs(z) => z,
        Personality::F2fs(_) => unreachable!("a ZenFS call on F2FS"),
    }
}

/// `GetLifeTimeDiff`.
pub(crate) fn lifetime_diff(zone: u8, file: Lifetime) -> u32 {
    let f = file as u8;
    if file == Lifetime::NotSet || file == Lifetime::None {
        return if zone == f { 0 } else { DIFF_NOT_GOOD };
    }
    if zone > f {
        (zone - f) as u32
    } else if zone == f {
        DIFF_COULD_BE_WORSE
    } else {
        DIFF_NOT_GOOD
    }
}

/// A metadata log record.
pub(super) enum Record {
    Superblock,
    Create(Ino),
    /// A file's new extents and size, at sync or close.
    Update(Ino),
    Delete,
    Rename(Ino),
}

fn file_bytes(st: &State, ino: Ino, runs: usize) -> u64 {
    let name = if st.exists(ino) {
        st.inode(ino).name.len() as u64
    } else {
        0
    };
    64 + name + 24 * runs as u64
}

fn record_bytes(st: &State, r: &Record) -> u64 {
    match *r {
        Record::Superblock => BLOCK_BYTES,
        Record::Create(ino) | Record::Rename(ino) => file_bytes(st, ino, 0),
        Record::Update(ino) => {
            let i = st.inode(ino);
            file_bytes(
                st,
                ino,
                i.map.run_count().saturating_sub(i.persisted_runs).max(1),
            )
        }
        Record::Delete => 24,
    }
}

/// The snapshot a rolled log starts with: the superblock and every file.
fn snapshot_bytes(st: &State) -> u64 {
    let files: u64 = st
        .inodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| n.as_ref().map(|n| (i, n)))
        .filter(|(_, n)| !n.is_dir())
        .map(|(i, n)| file_bytes(st, i as Ino, n.map.run_count()))
        .sum();
    BLOCK_BYTES + files
}

/// Writes the superblock when the file system is made.
pub(super) async fn write_superblock(fs: Rc<Inner>) {
    let h = fs.host.clone();
    let _ = persist(&fs, &h, Record::Superblock).await;
}

/// Appends a record to the metadata log and waits for it (rolling the log when its zone is
/// full).
pub(super) async fn persist(fs: &Rc<Inner>, h: &Host, r: Record) -> Result<(), FsError> {
    let _g = fs.meta_lock.lock(h).await;
    let blocks = {
        let st = fs.st.borrow();
        record_bytes(&st, &r).div_ceil(BLOCK_BYTES) as u32
    };
    let roll = {
        let st = fs.st.borrow();
        let z = st.zen.meta[st.zen.meta_cur];
        st.space.zones[z as usize].room() < blocks
    };
    if roll {
        roll_log(fs, h).await?;
    }
    let (z, b) = {
        let mut st = fs.st.borrow_mut();
        let z = st.zen.meta[st.zen.meta_cur];
        if st.space.zones[z as usize].room() < blocks {
            // The snapshot and this record do not fit even a fresh log zone (tiny zones, a
            // file of many extents): the metadata is out of space, as ZenFS's
            // AllocateMetaZone answers NoSpace (swarm, issue 36: this was an assertion).
            return Err(FsError::NoSpace);
        }
        let (b, got) = st.space.alloc(z, blocks, h.now());
        debug_assert_eq!(got, blocks, "the room was checked");
        st.stats.meta_blocks_written += blocks as u64;
        st.zen.records += 1;
        if let Record::Update(ino) = r {
            let i = st.inode_mut(ino);
            i.persisted_runs = i.map.run_count();
            i.meta_dirty = false;
        }
        (z, b)
    };
    match write_meta(fs, h, z, b, blocks).await {
        Err(FsError::Device(s)) if io::absorb_meta_write(fs, &mut fs.st.borrow_mut(), z, s) => {
            // The log zone takes no more: the record goes into the snapshot the roll writes.
            h.rode_through();
            roll_log(fs, h).await
        }
        r => r,
    }
}

async fn write_meta(fs: &Rc<Inner>, h: &Host, z: u32, b: u32, blocks: u32) -> Result<(), FsError> {
    let data = fs
        .spec
        .data
        .then(|| vec![0u8; (blocks as u64 * BLOCK_BYTES) as usize]);
    io::submit_writes(
        fs,
        h,
        vec![io::WriteCmd {
            zone: z,
            block: b,
            len: blocks,
            data,
        }],
        None,
    )
    .await
    .map(|_| ())
}

/// Snapshot writes refused in a row before a roll gives up (chosen).
const ROLL_TRIES: u32 = 8;

/// `RollMetaZoneLocked`: the snapshot goes to the next metadata zone, the old one is finished
/// and reset. A snapshot write the device refuses with a Write Fault (`on_zone_error =
/// "relocate"`) empties that zone and writes the snapshot there again; the old zone keeps the
/// log meanwhile.
async fn roll_log(fs: &Rc<Inner>, h: &Host) -> Result<(), FsError> {
    let old = {
        let st = fs.st.borrow();
        st.zen.meta[st.zen.meta_cur]
    };
    let mut refused = 0;
    loop {
        let (new, blocks) = {
            let mut st = fs.st.borrow_mut();
            let n = st.zen.meta.len();
            let next = (st.zen.meta_cur + 1) % n;
            let new = st.zen.meta[next];
            assert_eq!(
                st.space.zones[new as usize].wp, 0,
                "the next log zone is empty"
            );
            st.zen.meta_cur = next;
            st.zen.rolls += 1;
            let blocks = snapshot_bytes(&st)
                .div_ceil(BLOCK_BYTES)
                .min(st.space.zones[new as usize].cap as u64) as u32;
            (new, blocks)
        };
        let (b, got) = {
            let mut st = fs.st.borrow_mut();
            let r = st.space.alloc(new, blocks, h.now());
            st.stats.meta_blocks_written += r.1 as u64;
            r
        };
        match write_meta(fs, h, new, b, got).await {
            Ok(()) => break,
            Err(FsError::Device(s))
                if refused < ROLL_TRIES
                    && io::absorb_meta_write(fs, &mut fs.st.borrow_mut(), new, s) =>
            {
                refused += 1;
                h.rode_through();
                reset_meta(fs, h, new).await?;
                let mut st = fs.st.borrow_mut();
                let n = st.zen.meta.len();
                st.zen.meta_cur = (st.zen.meta_cur + n - 1) % n;
            }
            Err(e) => return Err(e),
        }
    }
    let zslba = fs.st.borrow().space.zslba(old);
    if !fs.st.borrow().space.zones[old as usize].is_full() {
        h.io(Command::zone(ZoneAction::Finish, zslba)).await?;
        let mut st = fs.st.borrow_mut();
        st.stats.zone_finishes += 1;
        st.space.finish(old);
    }
    reset_meta(fs, h, old).await
}

/// Resets metadata-log zone `z`, which stays a log zone.
async fn reset_meta(fs: &Rc<Inner>, h: &Host, z: u32) -> Result<(), FsError> {
    let zslba = fs.st.borrow().space.zslba(z);
    h.io(Command::zone(ZoneAction::Reset, zslba)).await?;
    let mut st = fs.st.borrow_mut();
    st.stats.zone_resets += 1;
    st.space.reset(z);
    st.space.claim(z, Role::Meta);
    Ok(())
}

/// Gives the file a zone with room to append to (`AllocateIOZone` when its zone is full or it
/// has none).
pub(super) async fn prepare_zone(fs: &Rc<Inner>, h: &Host, ino: Ino) -> Result<(), FsError> {
    {
        let mut st = fs.st.borrow_mut();
        if let Some(z) = st.inode(ino).zone {
            if st.space.zones[z as usize].room() > 0 {
                return Ok(());
            }
            release(&mut st, ino);
        }
    }
    fs.space_cv.notify_all(h);
    allocate_io_zone(fs, h, ino).await
}

/// Drops the file's zone and its open token.
pub(super) fn release(st: &mut State, ino: Ino) {
    if let Some(z) = st.inode_mut(ino).zone.take() {
        st.space.zones[z as usize].head = None;
        st.zen.open_io -= 1;
        st.check_dead(z);
    }
}

/// The file's last writer closed: its zone is given back (and closed on the device if it has
/// room left).
pub(super) async fn release_zone(fs: &Rc<Inner>, h: &Host, ino: Ino) -> Result<(), FsError> {
    let close = {
        let mut st = fs.st.borrow_mut();
        let z = st.inode(ino).zone;
        release(&mut st, ino);
        z.filter(|&z| st.space.zones[z as usize].is_active())
    };
    fs.space_cv.notify_all(h);
    if let Some(z) = close {
        io::zone_action(fs, h, ZoneAction::Close, z).await?;
    }
    Ok(())
}

/// Active zones counting zones taken but not yet written.
fn active_in_use(st: &State) -> u32 {
    st.space.active
        + st.space
            .zones
            .iter()
            .filter(|z| z.head.is_some() && z.wp == 0)
            .count() as u32
}

fn active_token(st: &State) -> bool {
    st.zen.max_active_io.is_none_or(|m| active_in_use(st) < m)
}

async fn finish(fs: &Rc<Inner>, h: &Host, z: u32) -> Result<(), FsError> {
    {
        let mut st = fs.st.borrow_mut();
        let room = st.space.zones[z as usize].room();
        st.stats.finish_padding_blocks += room as u64;
        st.stats.zone_finishes += 1;
        st.space.finish(z);
        st.check_dead(z);
    }
    io::zone_action(fs, h, ZoneAction::Finish, z).await?;
    fs.space_cv.notify_all(h);
    Ok(())
}

/// `AllocateIOZone`.
async fn allocate_io_zone(fs: &Rc<Inner>, h: &Host, ino: Ino) -> Result<(), FsError> {
    let spec = spec(fs).clone();
    let (lifetime, wal) = {
        let st = fs.st.borrow();
        let i = st.inode(ino);
        (i.lifetime, i.name.ends_with(".log"))
    };
    // 1. The finish threshold (non-WAL files).
    if !wal && spec.finish_threshold_pct > 0 {
        finish_nearly_full(fs, h, spec.finish_threshold_pct as u64).await?;
    }
    // 2. An open token: WAL files may use every slot, the others all but one.
    take_open_token(fs, h, wal).await;
    // 3. The best non-full zone holding live data (ties: the last one scanned).
    let (best, best_diff) = best_zone(&fs.st.borrow(), lifetime);
    let mut chosen = None;
    if best_diff < DIFF_COULD_BE_WORSE {
        chosen = best;
    } else {
        let token = active_token(&fs.st.borrow());
        if !token && best_diff == DIFF_COULD_BE_WORSE {
            // Avoids a finish by relaxing the lifetime match.
            chosen = best;
        } else {
            free_active_token(fs, h).await?;
        }
    }
    let mut st = fs.st.borrow_mut();
    let z = match chosen {
        Some(z) => z,
        None => match st.space.take_free(false) {
            Some(z) => {
                st.space.zones[z as usize].lifetime = lifetime as u8;
                z
            }
            None => {
                st.zen.open_io -= 1;
                return Err(FsError::NoSpace);
            }
        },
    };
    st.space.zones[z as usize].head = Some(FILE_HEAD | ino);
    st.inode_mut(ino).zone = Some(z);
    Ok(())
}

/// A data zone written in part that no file writes to: one ZenFS may finish to free an active
/// token.
fn finishable(z: &Zone) -> bool {
    z.role == Role::Data && z.is_active() && z.head.is_none()
}

/// Finishes every written data zone no file writes to with less than `pct`% of it left.
async fn finish_nearly_full(fs: &Rc<Inner>, h: &Host, pct: u64) -> Result<(), FsError> {
    let victims: Vec<u32> = {
        let st = fs.st.borrow();
        st.space
            .zones
            .iter()
            .enumerate()
            .filter(|(_, z)| finishable(z) && (z.room() as u64) * 100 < z.cap as u64 * pct)
            .map(|(i, _)| i as u32)
            .collect()
    };
    for z in victims {
        finish(fs, h, z).await?;
    }
    Ok(())
}

/// Waits for an open-zone token and takes it: a WAL may use every slot, other files all but
/// one.
async fn take_open_token(fs: &Rc<Inner>, h: &Host, wal: bool) {
    loop {
        let got = {
            let mut st = fs.st.borrow_mut();
            let ok = st.zen.max_open_io.is_none_or(|m| {
                let limit = if wal { m } else { (m - 1).max(1) };
                st.zen.open_io < limit
            });
            if ok {
                st.zen.open_io += 1;
            }
            ok
        };
        if got {
            return;
        }
        fs.space_cv.notified(h).await;
    }
}

/// The non-full data zone holding live data whose lifetime best matches `lifetime` (ties: the
/// last one scanned), and how well it matches.
fn best_zone(st: &State, lifetime: Lifetime) -> (Option<u32>, u32) {
    let mut best = None;
    let mut best_diff = DIFF_NOT_GOOD + 1;
    for (i, z) in st.space.zones.iter().enumerate() {
        if z.role == Role::Data && z.valid > 0 && !z.is_full() && z.head.is_none() && !z.collecting
        {
            let d = lifetime_diff(z.lifetime, lifetime);
            if d <= best_diff {
                best_diff = d;
                best = Some(i as u32);
            }
        }
    }
    (best, best_diff)
}

/// For an empty zone: finishes the cheapest written zones until an active token frees (or,
/// with every active zone held by a writer, waits for one to go).
async fn free_active_token(fs: &Rc<Inner>, h: &Host) -> Result<(), FsError> {
    while !active_token(&fs.st.borrow()) {
        let cheapest = {
            let st = fs.st.borrow();
            st.space
                .zones
                .iter()
                .enumerate()
                .filter(|(_, z)| finishable(z) && !z.collecting)
                .min_by_key(|(i, z)| (z.room(), *i))
                .map(|(i, _)| i as u32)
        };
        match cheapest {
            Some(z) => finish(fs, h, z).await?,
            None => fs.space_cv.notified(h).await,
        }
    }
    Ok(())
}

/// `ResetUnusedIOZones`: resets every zone left with no live data.
pub(super) async fn reset_unused(fs: &Rc<Inner>, h: &Host) -> Result<(), FsError> {
    io::reset_dead(fs, h).await
}
