//! Riding through a zone the device refuses (`[fs] on_zone_error = "relocate"`).
//!
//! Linux F2FS and RocksDB over ZenFS stop at a failed write (experiments/faults/README.md says
//! how); with `relocate` the layer keeps going instead, as a host with spare zones can:
//! - a write refused because its zone went **Read Only** or **Offline** retires the zone for good
//!   (never written, collected or reset again) and its blocks are written again elsewhere;
//! - a write refused with a **Write Fault** or an **Internal Error**, or one the zone no longer
//!   takes after such a failure (Zone Invalid Write, Zone Is Full: the device's write pointer
//!   stayed behind), finishes the zone: it keeps what it holds and is collected and reset later;
//! - when a zone goes **Offline**, its live blocks the layer still has in memory (cached data
//!   pages, F2FS node blocks) are written again; the rest are lost, and reads of them fail with
//!   the device's status, as they would on any drive without redundancy.
//!
//! A refused block becomes a dirty page (or a dirty node) again, in the same step that unmaps
//! it, so no acknowledged data is ever without a copy. The relocator task writes such files back
//! at once (ZenFS has no flusher); fsync's own writeback loops until its pages are written.
//! A ZenFS-like metadata-log write refused with a Write Fault rolls the log (the snapshot in the
//! next log zone holds the record); a log zone gone Read Only or Offline stops the layer.

use std::ops::Range;
use std::rc::Rc;

use super::WriteCmd;
use crate::device::{Command, Status, ZoneAction, ZoneState};
use crate::host::fs::map::Run;
use crate::host::fs::space::{FILE_HEAD, Owner, OwnerCursor, Role};
use crate::host::fs::state::{Ino, Page, State};
use crate::host::fs::{BLOCK_BYTES, FsError, Inner, OnZoneError, Personality, f2fs, zenfs};
use crate::sim::host::Host;
use crate::time::Instant;

/// What a refused command says about its zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refusal {
    /// The zone can hold what it has but takes no more writes from this host.
    Finish,
    /// The zone is out of service; `lost`: what it held cannot be read.
    Retire { lost: bool },
}

fn refusal(status: Status) -> Option<Refusal> {
    match status {
        Status::ZoneIsReadOnly => Some(Refusal::Retire { lost: false }),
        Status::ZoneIsOffline => Some(Refusal::Retire { lost: true }),
        Status::WriteFault
        | Status::InternalError
        | Status::ZoneInvalidWrite
        | Status::ZoneIsFull => Some(Refusal::Finish),
        _ => None,
    }
}

fn relocating(fs: &Inner) -> bool {
    fs.spec.on_zone_error == OnZoneError::Relocate
}

/// Takes in a write the device refused with `status`: its blocks become dirty again and the zone
/// is given up. Returns whether the zone must be finished on the device, or None when the layer
/// does not ride through this refusal (the caller gets the error).
pub(crate) fn absorb_write(
    fs: &Inner,
    st: &mut State,
    cmd: &WriteCmd,
    status: Status,
    now: Instant,
) -> Option<bool> {
    if !relocating(fs) {
        return None;
    }
    let kind = refusal(status)?;
    let z = cmd.zone;
    if st.space.zones[z as usize].role == Role::Meta {
        return None;
    }
    st.stats.zone_errors.writes_refused += 1;
    let blocks = cmd.block..cmd.block + cmd.len;
    let moved = requeue(st, z, blocks, Source::Refused(cmd.data.as_deref()), now);
    st.stats.zone_errors.blocks_relocated += moved;
    Some(match kind {
        Refusal::Finish => give_up(st, z),
        Refusal::Retire { lost } => {
            retire(st, z, lost, now);
            false
        }
    })
}

/// Takes in a ZenFS metadata-log write refused with a Write Fault or the like: the log zone is
/// finished on the host, so the caller rolls the log (a snapshot in the next log zone holds the
/// record). False: the layer does not ride through it (a log zone gone Read Only or Offline).
pub(crate) fn absorb_meta_write(fs: &Inner, st: &mut State, z: u32, status: Status) -> bool {
    if !relocating(fs) || refusal(status) != Some(Refusal::Finish) {
        return false;
    }
    st.stats.zone_errors.writes_refused += 1;
    st.stats.zone_errors.zones_finished += 1;
    st.space.finish(z);
    true
}

/// The first error among reads the layer sent at once, each with its zone. With `relocate`, a
/// zone a read found Offline is retired (what the layer still has in memory is written
/// elsewhere); the reader gets the error either way.
pub(crate) fn check_reads<T>(
    fs: &Inner,
    h: &Host,
    results: impl Iterator<Item = (Result<T, Status>, u32)>,
) -> Result<(), FsError> {
    let mut first = Ok(());
    for (r, zone) in results {
        let Err(status) = r else { continue };
        if relocating(fs) && status == Status::ZoneIsOffline {
            let mut st = fs.st.borrow_mut();
            st.stats.zone_errors.reads_refused += 1;
            retire(&mut st, zone, true, h.now());
            drop(st);
            fs.relocate_cv.notify_all(h);
        }
        first = first.and(Err(status.into()));
    }
    first
}

/// Sends `action` for zone `z`. With `relocate`, a zone the device has taken out of service
/// (Read Only, Offline) is retired instead of failing the caller: Ok(false).
pub(crate) async fn zone_action(
    fs: &Rc<Inner>,
    h: &Host,
    action: ZoneAction,
    z: u32,
) -> Result<bool, FsError> {
    let zslba = fs.st.borrow().space.zslba(z);
    let status = match h.io(Command::zone(action, zslba)).await {
        Ok(_) => return Ok(true),
        Err(s) => s,
    };
    let lost = match refusal(status) {
        Some(Refusal::Retire { lost }) => Some(lost),
        // Finishing a zone gone Read Only or Offline is an invalid transition; its condition
        // says which (a host reads it with Report Zones).
        _ if status == Status::InvalidZoneStateTransition => {
            let (nsid, zone) = (h.nsid(), fs.st.borrow().space.first + z);
            match h.with_device(|d| d.zone(nsid, zone).state) {
                ZoneState::ReadOnly => Some(false),
                ZoneState::Offline => Some(true),
                _ => None,
            }
        }
        _ => None,
    };
    match lost {
        Some(lost) if relocating(fs) => {
            retire(&mut fs.st.borrow_mut(), z, lost, h.now());
            h.rode_through();
            fs.relocate_cv.notify_all(h);
            Ok(false)
        }
        _ => Err(status.into()),
    }
}

/// Finishes on the device the zones [`absorb_write`] gave up (kept off the dead list meanwhile,
/// so no reset overtakes the Finish).
pub(crate) async fn finish_given_up(
    fs: &Rc<Inner>,
    h: &Host,
    zones: Vec<u32>,
) -> Result<(), FsError> {
    for z in zones {
        let r = zone_action(fs, h, ZoneAction::Finish, z).await;
        let mut st = fs.st.borrow_mut();
        st.space.finishing -= 1;
        st.space.zones[z as usize].collecting = false;
        st.check_dead(z);
        r?;
    }
    Ok(())
}

/// Stops writing `z` (a Write Fault or the like): finished on the host; true if the device must
/// be told.
fn give_up(st: &mut State, z: u32) -> bool {
    let zone = &st.space.zones[z as usize];
    if zone.role != Role::Data || zone.finished {
        return false;
    }
    release_writer(st, z);
    st.dead.remove(&z);
    // Still active on the device until its Finish completes: no zone may take its place
    // before then (the device would refuse it: Too Many Active Zones).
    st.space.finishing += 1;
    st.space.finish(z);
    st.space.zones[z as usize].collecting = true;
    st.stats.zone_errors.zones_finished += 1;
    true
}

/// Takes `z` out of service for good. `lost`: its live blocks cannot be read; those the layer
/// still has in memory are written again, the rest counted lost.
fn retire(st: &mut State, z: u32, lost: bool, now: Instant) {
    if st.space.zones[z as usize].role != Role::Data {
        return;
    }
    release_writer(st, z);
    st.dead.remove(&z);
    st.space.retire(z);
    st.stats.zone_errors.zones_retired += 1;
    let zone = &st.space.zones[z as usize];
    // Its room and garbage are gone; each live block goes too as it dies (`State::kill_runs`).
    let gone = (zone.cap - zone.valid) as u64;
    st.capacity_blocks = st.capacity_blocks.saturating_sub(gone);
    if lost {
        let wp = st.space.zones[z as usize].wp;
        let before = st.space.zones[z as usize].valid as u64;
        let recovered = requeue(st, z, 0..wp, Source::Memory, now);
        st.stats.zone_errors.blocks_recovered += recovered;
        st.stats.zone_errors.blocks_lost += before - recovered;
    }
}

/// Whoever appends to `z` (an F2FS log, a ZenFS file) lets it go.
fn release_writer(st: &mut State, z: u32) {
    match st.space.zones[z as usize].head {
        Some(h) if h & FILE_HEAD != 0 => zenfs::release(st, h & !FILE_HEAD),
        Some(s) => st.release_head(s as usize),
        None => {}
    }
}

/// Where a block's copy comes from when it is made dirty again.
#[derive(Clone, Copy)]
enum Source<'a> {
    /// A refused write: what it carried (None without data).
    Refused(Option<&'a [u8]>),
    /// Only what the layer holds in memory (a zone gone Offline).
    Memory,
}

/// Makes the live blocks of `z` in `blocks` dirty again in memory, unmapped from `z`. Returns
/// how many could be.
fn requeue(st: &mut State, z: u32, blocks: Range<u32>, copy: Source, now: Instant) -> u64 {
    let first = blocks.start;
    let mut owned = Vec::new();
    {
        let zone = &st.space.zones[z as usize];
        let mut owners = OwnerCursor::default();
        for (s, n) in zone.live_runs(blocks.start, blocks.end) {
            for b in s..s + n {
                if let Some(o) = owners.of(zone, b) {
                    owned.push((b, o));
                }
            }
        }
    }
    let mut moved = 0;
    for (b, owner) in owned {
        let source = match copy {
            Source::Refused(data) => (
                true,
                data.map(|d| {
                    let at = ((b - first) as u64 * BLOCK_BYTES) as usize;
                    &d[at..at + BLOCK_BYTES as usize]
                }),
            ),
            Source::Memory => (false, None),
        };
        let done = match owner {
            Owner::Data { ino, index } => {
                requeue_page(st, ino, index, Run::new(z, b, 1), source, now)
            }
            Owner::Node { ino, index } => requeue_node(st, ino, index as u32, Run::new(z, b, 1)),
            Owner::Meta => false,
        };
        moved += u64::from(done);
    }
    moved
}

/// File block `index` of `ino`, at `at`, becomes a dirty page: its cached page if there is one,
/// else one made of a refused write's `bytes`; false if it has neither (it is lost).
fn requeue_page(
    st: &mut State,
    ino: Ino,
    index: u64,
    at: Run,
    (refused, bytes): (bool, Option<&[u8]>),
    now: Instant,
) -> bool {
    let cached = st.inode(ino).pages.contains_key(&index);
    if !cached && !refused {
        return false;
    }
    let mut old = Vec::new();
    st.inode_mut(ino).map.remove_range(index, 1, &mut old);
    debug_assert_eq!(old.len(), 1, "block {index} of inode {ino} mapped once");
    debug_assert!(
        old.first()
            .is_none_or(|r| (r.zone, r.block) == (at.zone, at.block))
    );
    st.kill_runs(&old);
    let inode = st.inode_mut(ino);
    let mut added = 0;
    let page = inode.pages.entry(index).or_insert_with(|| {
        added = 1;
        Page {
            dirty: false,
            data: bytes.map(|b| b.into()),
        }
    });
    let dirtied = !page.dirty;
    if dirtied {
        page.dirty = true;
        inode.dirty += 1;
        inode.dirty_idx.push(index);
        inode.dirty_since.get_or_insert(now);
    }
    inode.meta_dirty = true;
    st.cached_pages += added;
    st.dirty_pages += u64::from(dirtied);
    if st.cache_limit_pages > 0 {
        st.touch(ino);
    }
    st.relocate.insert(ino);
    true
}

/// F2FS node block `idx` of `ino`, at `at`, is dirty again (the layer holds nodes in memory).
fn requeue_node(st: &mut State, ino: Ino, idx: u32, at: Run) -> bool {
    if st.inode(ino).nodes.get(&idx) != Some(&(at.zone, at.block)) {
        return false;
    }
    st.inode_mut(ino).nodes.remove(&idx);
    st.kill_runs(&[at]);
    st.dirty_node(ino, idx);
    st.relocate.insert(ino);
    true
}

/// The relocator: writes back, at once, files whose blocks a refusal made dirty again (their
/// data, then for F2FS their direct nodes; for ZenFS the file record, and the zone given back
/// if nobody writes the file).
pub(crate) async fn relocator(fs: Rc<Inner>) {
    let h = fs.host.clone();
    loop {
        if fs.st.borrow().relocate.is_empty() {
            fs.relocate_cv.notified(&h).await;
        }
        let next = fs.st.borrow_mut().relocate.pop_first();
        let Some(ino) = next else { continue };
        if fs.st.borrow().exists(ino) {
            // An error leaves the pages dirty: the flusher, fsync or close tries again.
            let _ = rewrite(&fs, &h, ino).await;
        }
    }
}

async fn rewrite(fs: &Rc<Inner>, h: &Host, ino: Ino) -> Result<(), FsError> {
    super::flush_file(fs, h, ino).await?;
    match &fs.spec.personality {
        Personality::F2fs(_) => f2fs::write_nodes(fs, h, Some(ino)).await.map(|_| ()),
        Personality::Zenfs(_) => {
            let (idle, record) = {
                let st = fs.st.borrow();
                if !st.exists(ino) {
                    return Ok(());
                }
                let i = st.inode(ino);
                (i.writers == 0, i.nlink > 0 && i.meta_dirty)
            };
            if idle {
                zenfs::release_zone(fs, h, ino).await?;
            }
            if record {
                zenfs::persist(fs, h, zenfs::Record::Update(ino)).await?;
            }
            Ok(())
        }
    }
}
