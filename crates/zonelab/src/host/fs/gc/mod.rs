//! Zone GC in the file layer: a policy picks a victim zone, says how to read it and where each
//! surviving block goes; the engine here reads the victim (as a host task, at the policy's
//! depth), re-checks each block's liveness at the moment it is copied (a block that died while
//! the copy was planned is dropped, never copied), writes the survivors to their destination
//! streams in the policy's unit, fixes the owners' block maps, and resets the victim once it
//! holds no live block. GC competes with the workload for the device and for the modelled
//! cores (`cpu.gc_per_block_ns`). The engine is in `copy.rs`, victim choice the policies share
//! in `victim.rs`, and when GC runs (foreground balancing, the threshold daemon) in `daemon.rs`.
//!
//! Policies, one file each: `basic.rs` (Basic_ZGC), `lsm.rs` (LSM_ZGC), `f2fs.rs` (F2FS's
//! cleaner), `zenfs.rs` (ZenFS's GC worker); [`GcPolicyKind::None`] collects nothing.

mod basic;
mod copy;
mod daemon;
pub(super) mod f2fs;
mod lsm;
mod victim;
mod zenfs;

pub(crate) use copy::{collect, collect_window};
pub(crate) use daemon::{balance, kick, make_room, spawn_daemon};
pub(crate) use victim::{cost_benefit, greedy, is_candidate, live_runs_capped, pick};

use std::collections::BTreeMap;

use super::space::Owner;
use super::state::State;
use super::{FsSpec, GC_STREAM, GcPolicyKind, Inner, Personality};
use crate::time::Instant;

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
    /// A live data block whose page is cached and clean is taken from the cache, not read
    /// (Linux F2FS's GC moves data through the page cache).
    fn reads_through_page_cache(&self) -> bool {
        false
    }
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

/// Survivors waiting to be written: (victim block, its bytes).
type Pending = BTreeMap<Dest, Vec<(u32, Option<Box<[u8]>>)>>;
