//! LSM_ZGC (Choi et al., LSM-ZGC, HotStorage 2020, "LSM-ZGC Design" and "LSM (Log Structured Merge) Zone
//! GC"; the authors' simulator `lsm_zgc`).
//!
//! - Zones are divided into segments (2 MiB) for hot/cold separation; the zone stays the unit
//!   of collection.
//! - New data is C0 (the zones user writes fill). When a C0 zone is collected, its surviving
//!   blocks go to C1C (cold) if their segment's utilisation is above `threshold_cold`, else to
//!   C1H (hot or unknown); blocks surviving a second time (from C1C or C1H) go to C2, and C2
//!   survivors stay in C2. Each level appends to its own zone.
//! - The candidate zone is chosen greedily or by cost-benefit.
//! - Valid and invalid data are read together in large units: every 128 KiB unit of the victim
//!   that holds a valid block is read whole; survivors are packed into 128 KiB writes.
//!
//! Chosen where the slides are silent: segment utilisation is taken when the victim is chosen
//! (before any of its blocks move); units with no valid block are not read; triggers as
//! Basic_ZGC's; three destination zones are kept free. With `separate = false` every survivor
//! goes to one destination (LSM_ZGC's reads without its hot/cold levels): a log of its own, or
//! with `survivors = "user_log"` the data log the file's user writes go to (no separation by
//! age either; chosen, to test which baseline the slides compared with).

use super::{Dest, GcPolicy, pick};
use crate::host::fs::space::Owner;
use crate::host::fs::state::State;
use crate::host::fs::{
    GC_STREAM, GcPolicyKind, GcSpec, Inner, Personality, Survivors, Victim, f2fs,
};
use crate::time::Instant;

/// Zone classes (`Zone::class`): C0 is user data.
pub const C0: u8 = 0;
pub const C1C: usize = GC_STREAM;
pub const C1H: usize = GC_STREAM + 1;
pub const C2: usize = GC_STREAM + 2;

pub struct LsmZgc {
    victim: Victim,
    unit: u32,
    segment: u32,
    threshold_cold: f64,
    separate: bool,
    survivors: Survivors,
    bg_free: u32,
    fg_free: u32,
    /// The victim's class and its segments' utilisation when it was chosen.
    class: u8,
    seg_util: Vec<f64>,
}

impl LsmZgc {
    pub fn new(spec: &GcSpec) -> Self {
        LsmZgc {
            victim: spec.victim,
            unit: spec.io_blocks,
            segment: spec.segment_blocks,
            threshold_cold: spec.threshold_cold,
            separate: spec.separate,
            survivors: spec.survivors,
            bg_free: spec.bg_free_zones,
            fg_free: spec.fg_free_zones,
            class: C0,
            seg_util: Vec::new(),
        }
    }
}

impl GcPolicy for LsmZgc {
    fn kind(&self) -> GcPolicyKind {
        GcPolicyKind::LsmZgc
    }
    fn reserve_zones(&self) -> u32 {
        if self.separate { 3 } else { 1 }
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
    fn begin(&mut self, st: &State, zone: u32) {
        let z = &st.space.zones[zone as usize];
        self.class = z.class;
        let segs = z.cap.div_ceil(self.segment);
        self.seg_util = (0..segs)
            .map(|s| {
                let from = s * self.segment;
                let to = (from + self.segment).min(z.cap);
                z.live_in(from, to) as f64 / (to - from) as f64
            })
            .collect();
    }
    fn read_plan(&self, _fs: &Inner, st: &State, zone: u32) -> Vec<(u32, u32)> {
        let z = &st.space.zones[zone as usize];
        let mut out = Vec::new();
        let mut b = 0;
        while b < z.wp {
            let n = self.unit.min(z.wp - b);
            if z.live_in(b, b + n) > 0 {
                out.push((b, n));
            }
            b += n;
        }
        out
    }
    fn destination(&self, fs: &Inner, st: &State, _zone: u32, block: u32, owner: Owner) -> Dest {
        if !self.separate {
            if let (Survivors::UserLog, Personality::F2fs(f)) =
                (self.survivors, &fs.spec.personality)
            {
                // Data into the file's data log, node blocks into its node log.
                match owner {
                    Owner::Data { ino, .. } => {
                        return Dest::Stream(f2fs::data_log(f, st.inode(ino)));
                    }
                    Owner::Node { ino, index } => {
                        return Dest::Stream(f2fs::node_log(f, st.inode(ino), index as u32));
                    }
                    Owner::Meta => {}
                }
            }
            return Dest::Stream(C1C);
        }
        if self.class == C0 {
            let u = self.seg_util[(block / self.segment) as usize];
            if u > self.threshold_cold {
                Dest::Stream(C1C)
            } else {
                Dest::Stream(C1H)
            }
        } else {
            Dest::Stream(C2)
        }
    }
    fn write_unit(&self, _fs: &Inner) -> u32 {
        self.unit
    }
    fn reset_now(&self) -> bool {
        true
    }
}
