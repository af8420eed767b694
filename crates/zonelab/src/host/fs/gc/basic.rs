//! Basic_ZGC (Choi et al., LSM-ZGC, HotStorage 2020, "Basic Zone Garbage Collection"; the authors'
//! simulator `basic_zgc`): pick a victim zone (greedy or cost-benefit), find its valid blocks
//! in the zone bitmap, read each run of valid blocks (at most one 128 KiB unit per read), pack
//! them into 128 KiB writes to one destination zone, and reset the victim.
//!
//! Chosen where the slides are silent: it starts in the background when free zones fall to
//! `bg_free_zones`, and a writer collects itself when `fg_free_zones` are left; one destination
//! zone is kept free for it.

use super::{Dest, GcPolicy, live_runs_capped, pick};
use crate::host::fs::space::Owner;
use crate::host::fs::state::State;
use crate::host::fs::{GC_STREAM, GcPolicyKind, GcSpec, Inner, Victim};
use crate::time::Instant;

pub struct BasicZgc {
    victim: Victim,
    unit: u32,
    bg_free: u32,
    fg_free: u32,
}

impl BasicZgc {
    pub fn new(spec: &GcSpec) -> Self {
        BasicZgc {
            victim: spec.victim,
            unit: spec.io_blocks,
            bg_free: spec.bg_free_zones,
            fg_free: spec.fg_free_zones,
        }
    }
}

impl GcPolicy for BasicZgc {
    fn kind(&self) -> GcPolicyKind {
        GcPolicyKind::BasicZgc
    }
    fn reserve_zones(&self) -> u32 {
        1
    }
    fn fg_wanted_with(&self, _fs: &Inner, st: &State, extra: u32) -> bool {
        st.space.free_count() + extra <= self.fg_free
    }
    fn bg_wanted(&self, _fs: &Inner, st: &State) -> bool {
        st.space.free_count() <= self.bg_free
    }
    fn victim(&mut self, _fs: &Inner, st: &State, _fg: bool, _now: Instant) -> Option<u32> {
        pick(self.victim, st)
    }
    fn read_plan(&self, _fs: &Inner, st: &State, zone: u32) -> Vec<(u32, u32)> {
        live_runs_capped(st, zone, self.unit)
    }
    fn destination(&self, _: &Inner, _: &State, _: u32, _: u32, _: Owner) -> Dest {
        Dest::Stream(GC_STREAM)
    }
    fn write_unit(&self, _fs: &Inner) -> u32 {
        self.unit
    }
    fn reset_now(&self) -> bool {
        true
    }
}
