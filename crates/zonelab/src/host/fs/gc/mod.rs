//! Zone GC in the file layer: a policy picks a victim zone, says how to read it and where each
//! surviving block goes; the engine here reads the victim (as a host task, at the policy's
//! depth), re-checks each block's liveness at the moment it is copied (a block that died while
//! the copy was planned is dropped, never copied), writes the survivors to their destination
//! streams in the policy's unit, fixes the owners' block maps, and resets the victim once it
//! holds no live block. GC competes with the workload for the device and for the modelled
//! cores (`cpu.gc_per_block_ns`).
//!
//! Policies, one file each: `basic.rs` (Basic_ZGC), `lsm.rs` (LSM_ZGC), `f2fs.rs` (F2FS's
//! cleaner), `zenfs.rs` (ZenFS's GC worker); [`GcPolicyKind::None`] collects nothing.

mod basic;
mod f2fs;
mod lsm;
mod zenfs;

use std::collections::BTreeMap;
use std::rc::Rc;

use super::io::{self, WriteCmd};
use super::map::Run;
use super::space::{Owner, Role};
use super::state::{Ino, State};
use super::{
    BLOCK_BYTES, FsError, FsSpec, GC_STREAM, GcPolicyKind, Inner, Personality, Target, Victim,
};
use crate::device::{Command, Data};
use crate::host::join_all;
use crate::sim::host::Host;
use crate::time::{Duration, Instant};

/// Where a surviving block goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Dest {
    /// Appended to a stream (a GC level, F2FS's cold data log, a node log).
    Stream(usize),
    /// ZenFS: into a zone already holding data of this lifetime (`TakeMigrateZone`).
    Migrate(u8),
    /// Left where it is (ZenFS skips files open for writing); the victim is not reset.
    Skip,
}

/// A zone GC policy: what to collect and how; the engine does the I/O.
pub(crate) trait GcPolicy {
    fn kind(&self) -> GcPolicyKind;
    /// Free zones user data may not take: kept for GC's destinations.
    fn reserve_zones(&self) -> u32;
    /// A writer must collect before it writes (the foreground trigger), were `extra` more
    /// zones free.
    fn fg_wanted_with(&self, fs: &Inner, st: &State, extra: u32) -> bool;
    fn fg_wanted(&self, fs: &Inner, st: &State) -> bool {
        self.fg_wanted_with(fs, st, 0)
    }
    /// The background collector should run now.
    fn bg_wanted(&self, fs: &Inner, st: &State) -> bool;
    /// The next victim, if there is one worth collecting.
    fn victim(&mut self, fs: &Inner, st: &State, fg: bool, now: Instant) -> Option<u32>;
    /// Called when `zone` is chosen, before anything of it is read or moved.
    fn begin(&mut self, _st: &State, _zone: u32) {}
    /// The ranges of `zone` to read, in order: (first block, blocks).
    fn read_plan(&self, fs: &Inner, st: &State, zone: u32) -> Vec<(u32, u32)>;
    /// Where a live block of the victim goes.
    fn destination(&self, fs: &Inner, st: &State, zone: u32, block: u32, owner: Owner) -> Dest;
    /// Blocks per GC write (survivors wait in a buffer per destination until there are this
    /// many, or the victim is done).
    fn write_unit(&self, fs: &Inner) -> u32;
    /// Reset the victim as soon as it is empty (else it waits on the dead list, as F2FS's
    /// prefree sections wait for a checkpoint).
    fn reset_now(&self) -> bool;
}

/// The policy an `[fs]` asks for.
pub fn policy(spec: &FsSpec) -> Box<dyn GcPolicy> {
    match (spec.gc.policy, &spec.personality) {
        (GcPolicyKind::None, _) => Box::new(NoGc),
        (GcPolicyKind::BasicZgc, _) => Box::new(basic::BasicZgc::new(&spec.gc)),
        (GcPolicyKind::LsmZgc, _) => Box::new(lsm::LsmZgc::new(&spec.gc)),
        (GcPolicyKind::Native, Personality::F2fs(_)) => Box::new(f2fs::F2fsCleaner),
        (GcPolicyKind::Native, Personality::Zenfs(z)) if z.gc => Box::new(zenfs::ZenfsGc::new()),
        (GcPolicyKind::Native, Personality::Zenfs(_)) => Box::new(NoGc),
    }
}

/// No GC: space comes back only when a whole zone dies.
struct NoGc;

impl GcPolicy for NoGc {
    fn kind(&self) -> GcPolicyKind {
        GcPolicyKind::None
    }
    fn reserve_zones(&self) -> u32 {
        0
    }
    fn fg_wanted_with(&self, _: &Inner, _: &State, _: u32) -> bool {
        false
    }
    fn bg_wanted(&self, _: &Inner, _: &State) -> bool {
        false
    }
    fn victim(&mut self, _: &Inner, _: &State, _: bool, _: Instant) -> Option<u32> {
        None
    }
    fn read_plan(&self, _: &Inner, _: &State, _: u32) -> Vec<(u32, u32)> {
        Vec::new()
    }
    fn destination(&self, _: &Inner, _: &State, _: u32, _: u32, _: Owner) -> Dest {
        Dest::Skip
    }
    fn write_unit(&self, _: &Inner) -> u32 {
        1
    }
    fn reset_now(&self) -> bool {
        true
    }
}

/// The class a zone filled by stream `s` gets: 0 for user data (LSM_ZGC's C0), then C1C, C1H,
/// C2 for the GC streams.
pub(crate) fn stream_class(s: usize) -> u8 {
    if s >= GC_STREAM {
        (s - GC_STREAM + 1) as u8
    } else {
        0
    }
}

/// Zones that may be collected: full data zones nobody writes or collects, with some garbage.
pub(crate) fn candidates(st: &State) -> impl Iterator<Item = u32> + '_ {
    st.space
        .zones
        .iter()
        .enumerate()
        .filter(|(_, z)| {
            z.role == Role::Data
                && z.is_full()
                && z.head.is_none()
                && !z.collecting
                && z.valid < z.wp
                && z.valid > 0
        })
        .map(|(i, _)| i as u32)
}

/// The candidate with the fewest live blocks.
pub(crate) fn greedy(st: &State) -> Option<u32> {
    candidates(st).min_by_key(|&z| (st.space.zones[z as usize].valid, z))
}

/// The candidate with the most (1 - u) x age / (1 + u) (F2FS's `get_cb_cost`: u the live share
/// in percent, age 0..100 from the zone's mean write time between the oldest and the newest).
pub(crate) fn cost_benefit(st: &State) -> Option<u32> {
    let zones: Vec<u32> = candidates(st).collect();
    if zones.is_empty() {
        return None;
    }
    let mtimes = zones.iter().map(|&z| st.space.zones[z as usize].mtime_ns);
    let min = mtimes.clone().min().expect("some");
    let max = mtimes.max().expect("some");
    zones.into_iter().max_by_key(|&z| {
        let zone = &st.space.zones[z as usize];
        let u = 100 * zone.valid as u64 / zone.cap.max(1) as u64;
        let age = if max == min {
            0
        } else {
            100 - 100 * (zone.mtime_ns - min) / (max - min)
        };
        // F2FS: UINT_MAX - (100 * (100 - u) * age / (100 + u)); lower cost wins. Ties: lower zone.
        (100 * (100 - u) * age / (100 + u), u64::MAX - z as u64)
    })
}

pub(crate) fn pick(victim: Victim, st: &State) -> Option<u32> {
    match victim {
        Victim::Greedy => greedy(st),
        Victim::CostBenefit => cost_benefit(st),
    }
}

/// Live runs of `zone`, each at most `max` blocks.
pub(crate) fn live_runs_capped(st: &State, zone: u32, max: u32) -> Vec<(u32, u32)> {
    let z = &st.space.zones[zone as usize];
    let mut out = Vec::new();
    for (s, n) in z.live_runs(0, z.wp) {
        let mut done = 0;
        while done < n {
            let k = (n - done).min(max);
            out.push((s + done, k));
            done += k;
        }
    }
    out
}

/// Survivors waiting to be written: (victim block, its bytes).
type Pending = BTreeMap<Dest, Vec<(u32, Option<Box<[u8]>>)>>;

/// Collects `victim`: reads it as the policy says, copies its live blocks out, resets it when
/// empty. `fg`: a writer is waiting for it.
pub(crate) async fn collect(
    fs: &Rc<Inner>,
    h: &Host,
    victim: u32,
    fg: bool,
) -> Result<(), FsError> {
    let t0 = h.now();
    let plan = {
        let mut st = fs.st.borrow_mut();
        let zone = &mut st.space.zones[victim as usize];
        zone.collecting = true;
        let tenth = (10 * zone.valid as u64 / zone.cap.max(1) as u64).min(10) as usize;
        st.stats.victim_util_tenths[tenth] += 1;
        st.stats.gc_live_at_pick += st.space.zones[victim as usize].valid as u64;
        if fg {
            st.stats.gc_runs_fg += 1;
        } else {
            st.stats.gc_runs_bg += 1;
        }
        let mut gc = fs.gc.borrow_mut();
        gc.begin(&st, victim);
        gc.read_plan(fs, &st, victim)
    };
    let unit = fs.gc.borrow().write_unit(fs).max(1);
    let depth = fs.spec.gc.read_depth.max(1) as usize;
    let mut pending: Pending = BTreeMap::new();
    let mut result = Ok(());
    for batch in plan.chunks(depth) {
        let bufs = match read_ranges(fs, h, victim, batch).await {
            Ok(b) => b,
            Err(e) => {
                result = Err(e);
                break;
            }
        };
        {
            let st = fs.st.borrow();
            let gc = fs.gc.borrow();
            let zone = &st.space.zones[victim as usize];
            let mut read = 0u64;
            let mut live = 0u64;
            for (&(s, n), buf) in batch.iter().zip(&bufs) {
                read += n as u64;
                for b in s..s + n {
                    if !zone.is_live(b) {
                        continue;
                    }
                    live += 1;
                    let (owner, _) = zone.owner_of(b).expect("a live block has an owner");
                    let dest = gc.destination(fs, &st, victim, b, owner);
                    let data = buf.as_ref().map(|d| {
                        let o = ((b - s) as u64 * BLOCK_BYTES) as usize;
                        d[o..o + BLOCK_BYTES as usize].into()
                    });
                    pending.entry(dest).or_default().push((b, data));
                }
            }
            drop(gc);
            drop(st);
            let mut st = fs.st.borrow_mut();
            st.stats.gc_blocks_read += read;
            st.stats.gc_dead_blocks_read += read - live;
        }
        let full: Vec<Dest> = pending
            .iter()
            .filter(|(d, v)| **d != Dest::Skip && v.len() >= unit as usize)
            .map(|(d, _)| *d)
            .collect();
        for dest in full {
            let blocks = pending.get_mut(&dest).expect("listed");
            while blocks.len() >= unit as usize {
                let chunk: Vec<_> = blocks.drain(..unit as usize).collect();
                if let Err(e) = write_gc(fs, h, victim, dest, chunk).await {
                    result = Err(e);
                    break;
                }
            }
        }
        if result.is_err() {
            break;
        }
    }
    if result.is_ok() {
        for (dest, blocks) in std::mem::take(&mut pending) {
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
    }
    let empty = {
        let mut st = fs.st.borrow_mut();
        st.space.zones[victim as usize].collecting = false;
        st.stats.gc_zones += 1;
        let took = (h.now() - t0).ns();
        st.stats.gc_ns += took;
        if fg {
            st.stats.gc_fg_ns += took;
        }
        st.space.zones[victim as usize].valid == 0
    };
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

/// Resets `zone` now (it is on the dead list).
async fn reset_one(fs: &Rc<Inner>, h: &Host, zone: u32) -> Result<(), FsError> {
    let t0 = h.now();
    let zslba = {
        let mut st = fs.st.borrow_mut();
        st.dead.remove(&zone);
        st.space.zones[zone as usize].collecting = true;
        st.space.zslba(zone)
    };
    h.io(Command::zone(crate::device::ZoneAction::Reset, zslba))
        .await?;
    let mut st = fs.st.borrow_mut();
    st.space.reset(zone);
    st.stats.zone_resets += 1;
    st.stats.gc_ns += (h.now() - t0).ns();
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
    fs.st.borrow_mut().inflight_io -= ranges.len() as u32;
    h.cpu(Duration::from_ns(
        fs.spec.cpu.submit.ns() * ranges.len() as u64,
    ))
    .await;
    for r in results {
        r?;
    }
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
                super::zenfs::persist(fs, h, super::zenfs::Record::Update(ino)).await?;
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
    let mut touched: Vec<Ino> = Vec::new();
    let mut old = Vec::new();
    let mut i = 0;
    while i < live.len() {
        let Some(z) = dest_zone(fs, st, dest, (live.len() - i) as u32) else {
            break;
        };
        let (start, got) = st.space.alloc(z, (live.len() - i) as u32, now);
        if got == 0 {
            break;
        }
        let mut data = fs
            .spec
            .data
            .then(|| Vec::with_capacity((got as u64 * BLOCK_BYTES) as usize));
        let mut k = 0usize;
        while k < got as usize {
            let (vb, _) = live[i + k];
            let (owner, _) = st.space.zones[victim as usize]
                .owner_of(vb)
                .expect("a live block has an owner");
            // Extend the run while the next victim block continues the same owner.
            let mut n = 1usize;
            while k + n < got as usize {
                let (nb, _) = live[i + k + n];
                let next = st.space.zones[victim as usize].owner_of(nb).map(|o| o.0);
                let cont = match (owner, next) {
                    (Owner::Data { ino, index }, Some(Owner::Data { ino: i2, index: x2 })) => {
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
                        .set(index, Run::new(z, nb, n as u32), &mut old);
                    mark_moved(fs, st, ino, index, n as u64);
                    touched.push(ino);
                }
                Owner::Node { ino, index } => {
                    let prev = st.inode_mut(ino).nodes.insert(index as u32, (z, nb));
                    if let Some((oz, ob)) = prev {
                        old.push(Run::new(oz, ob, 1));
                    }
                    st.f2.note_node_moved(ino);
                }
                Owner::Meta => unreachable!("metadata zones are never collected"),
            }
            st.fill(z, nb, n as u32, owner);
            for (_, d) in &live[i + k..i + k + n] {
                if let (Some(buf), Some(d)) = (data.as_mut(), d) {
                    buf.extend_from_slice(d);
                }
            }
            k += n;
        }
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
    st.kill_runs(&old);
    touched.sort_unstable();
    touched.dedup();
    (cmds, touched)
}

/// A moved data block changes its file's metadata: F2FS's node pointing at it, ZenFS's extents.
fn mark_moved(fs: &Inner, st: &mut State, ino: Ino, index: u64, n: u64) {
    match fs.spec.personality {
        Personality::F2fs(_) => {
            for node in super::f2fs::node_of(index)..=super::f2fs::node_of(index + n - 1) {
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

/// A writer about to write: collect in the foreground while the policy says so (F2FS's
/// `f2fs_balance_fs` and `f2fs_gc`). Dead zones waiting for a checkpoint (F2FS's prefree
/// sections) count as freed: collection stops once they would be enough, then one checkpoint
/// makes them free.
pub(crate) async fn balance(fs: &Rc<Inner>, h: &Host) -> Result<(), FsError> {
    let f2fs = matches!(fs.spec.personality, Personality::F2fs(_));
    loop {
        let (want, enough_after_cp, cp_seen) = {
            let st = fs.st.borrow();
            let gc = fs.gc.borrow();
            let dead = if f2fs { st.dead.len() as u32 } else { 0 };
            (
                gc.fg_wanted(fs, &st),
                dead > 0 && !gc.fg_wanted_with(fs, &st, dead),
                st.stats.checkpoints,
            )
        };
        if !want {
            return Ok(());
        }
        if enough_after_cp {
            Box::pin(super::f2fs::checkpoint_after(fs, h, cp_seen)).await?;
            continue;
        }
        let g = fs.gc_lock.lock(h).await;
        let victim = {
            let st = fs.st.borrow();
            let gc = fs.gc.borrow();
            let dead = if f2fs { st.dead.len() as u32 } else { 0 };
            if !gc.fg_wanted_with(fs, &st, dead) {
                // Another writer collected (or a checkpoint will do) while this one waited.
                None
            } else {
                drop(gc);
                let now = h.now();
                fs.gc.borrow_mut().victim(fs, &st, true, now)
            }
        };
        match victim {
            Some(v) => collect(fs, &fs.gc_host, v, true).await?,
            None => {
                drop(g);
                let (dead, cp_seen) = {
                    let st = fs.st.borrow();
                    (!st.dead.is_empty(), st.stats.checkpoints)
                };
                if f2fs && dead {
                    Box::pin(super::f2fs::checkpoint_after(fs, h, cp_seen)).await?;
                    continue;
                }
                let st = fs.st.borrow();
                if fs.gc.borrow().fg_wanted_with(fs, &st, 0)
                    && !fs.gc.borrow().fg_wanted_with(fs, &st, st.dead.len() as u32)
                {
                    continue;
                }
                return Ok(());
            }
        }
    }
}

/// An allocation found no room: make some (a checkpoint or reset for dead zones, else a
/// collection). False: nothing can be freed.
pub(crate) async fn make_room(fs: &Rc<Inner>, h: &Host) -> Result<bool, FsError> {
    let (dead, cp_seen) = {
        let st = fs.st.borrow();
        (!st.dead.is_empty(), st.stats.checkpoints)
    };
    if dead {
        match fs.spec.personality {
            Personality::F2fs(_) => Box::pin(super::f2fs::checkpoint_after(fs, h, cp_seen)).await?,
            Personality::Zenfs(_) => io::reset_dead(fs, h).await?,
        }
        return Ok(true);
    }
    let generation = fs.st.borrow().generation;
    let _g = fs.gc_lock.lock(h).await;
    if fs.st.borrow().generation != generation {
        // Another task freed space while this one waited for the lock.
        return Ok(true);
    }
    let victim = {
        let st = fs.st.borrow();
        let now = h.now();
        fs.gc.borrow_mut().victim(fs, &st, true, now)
    };
    match victim {
        Some(v) => {
            collect(fs, &fs.gc_host, v, true).await?;
            Ok(true)
        }
        None => Ok(false),
    }
}

/// Wakes the background collector if its policy wants to run.
pub(crate) fn kick(fs: &Inner, h: &Host) {
    let want = {
        let st = fs.st.borrow();
        fs.gc.borrow().bg_wanted(fs, &st)
    };
    if want {
        fs.gc_cv.notify_all(h);
    }
}

/// Starts the policy's background collector.
pub(crate) fn spawn_daemon(fs: &Rc<Inner>) {
    let kind = fs.gc.borrow().kind();
    let f = fs.clone();
    match kind {
        GcPolicyKind::None => {}
        GcPolicyKind::BasicZgc | GcPolicyKind::LsmZgc => {
            fs.host
                .spawn("fs.gc", true, async move { threshold_daemon(f).await });
        }
        GcPolicyKind::Native => match fs.spec.personality {
            Personality::F2fs(_) => {
                fs.host
                    .spawn("fs.gc", true, async move { f2fs::bg_daemon(f).await });
            }
            Personality::Zenfs(_) => {
                fs.host
                    .spawn("fs.gc", true, async move { zenfs::gc_worker(f).await });
            }
        },
    }
}

/// Basic_ZGC and LSM_ZGC's collector: runs while free zones are at or below the policy's
/// background threshold, one victim after another; woken when writers use zones up.
async fn threshold_daemon(fs: Rc<Inner>) {
    let h = fs.gc_host.clone();
    loop {
        let want = {
            let st = fs.st.borrow();
            fs.gc.borrow().bg_wanted(&fs, &st)
        };
        if !want {
            io::notified_or(&h, &fs.gc_cv, h.now() + Duration::from_ms(100)).await;
            continue;
        }
        // F2FS frees dead sections only at a checkpoint.
        let (dead, cp_seen) = {
            let st = fs.st.borrow();
            (!st.dead.is_empty(), st.stats.checkpoints)
        };
        if dead && matches!(fs.spec.personality, Personality::F2fs(_)) {
            if super::f2fs::checkpoint_after(&fs, &h, cp_seen)
                .await
                .is_err()
            {
                h.sleep(Duration::from_ms(100)).await;
            }
            continue;
        }
        let _g = fs.gc_lock.lock(&h).await;
        let victim = {
            let st = fs.st.borrow();
            let now = h.now();
            fs.gc.borrow_mut().victim(&fs, &st, false, now)
        };
        match victim {
            Some(v) => {
                if collect(&fs, &h, v, false).await.is_err() {
                    drop(_g);
                    h.sleep(Duration::from_ms(100)).await;
                }
            }
            None => {
                drop(_g);
                io::notified_or(&h, &fs.gc_cv, h.now() + Duration::from_ms(100)).await;
            }
        }
    }
}
