//! ZenFS's GC worker (`ZenFS::GCWorker`, enabled by mkfs `--enable_gc`): every 10 s, when free
//! space is at most 20% of the space, zones whose garbage exceeds 100 - 3 x (20 - free%) percent
//! (and is below 100%) have their live extents migrated, file by file, into zones that already
//! hold data of the best-matching lifetime and have room (`TakeMigrateZone`; GC never opens an
//! empty zone), skipping files open for writing; then unused zones are reset.

use std::rc::Rc;

use super::{Dest, GcPolicy, collect, live_runs_capped};
use crate::host::fs::space::{Owner, Role};
use crate::host::fs::state::State;
use crate::host::fs::{GcPolicyKind, Inner, Lifetime, Personality, io};
use crate::time::Instant;

pub struct ZenfsGc;

impl ZenfsGc {
    pub fn new() -> Self {
        ZenfsGc
    }
}

impl GcPolicy for ZenfsGc {
    fn kind(&self) -> GcPolicyKind {
        GcPolicyKind::Native
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
    fn read_plan(&self, fs: &Inner, st: &State, zone: u32) -> Vec<(u32, u32)> {
        live_runs_capped(st, zone, fs.spec.max_io_blocks)
    }
    fn destination(&self, _: &Inner, st: &State, _: u32, _: u32, owner: Owner) -> Dest {
        match owner {
            Owner::Data { ino, .. } => {
                let i = st.inode(ino);
                if i.writers > 0 {
                    Dest::Skip
                } else {
                    Dest::Migrate(i.lifetime as u8)
                }
            }
            _ => Dest::Skip,
        }
    }
    fn write_unit(&self, fs: &Inner) -> u32 {
        fs.spec.max_io_blocks
    }
    fn reset_now(&self) -> bool {
        true
    }
}

fn lifetime_of(v: u8) -> Lifetime {
    match v {
        1 => Lifetime::None,
        2 => Lifetime::Short,
        3 => Lifetime::Medium,
        4 => Lifetime::Long,
        5 => Lifetime::Extreme,
        _ => Lifetime::NotSet,
    }
}

/// `TakeMigrateZone`: the zone holding live data, not full, not being written, whose lifetime
/// suits `lifetime` best, among those with room for `want` blocks, else (chosen: ZenFS would
/// skip the extent) the one with the most room, so an extent may be split.
pub fn migrate_zone(st: &State, lifetime: u8, want: u32) -> Option<u32> {
    let file = lifetime_of(lifetime);
    let open = |z: &&crate::host::fs::space::Zone| {
        z.role == Role::Data && z.valid > 0 && z.head.is_none() && !z.collecting && z.room() > 0
    };
    let zones = || st.space.zones.iter().enumerate().filter(|(_, z)| open(z));
    zones()
        .filter(|(_, z)| z.room() >= want)
        .min_by_key(|(i, z)| (crate::host::fs::zenfs::lifetime_diff(z.lifetime, file), *i))
        .or_else(|| zones().max_by_key(|(i, z)| (z.room(), u32::MAX - *i as u32)))
        .map(|(i, _)| i as u32)
}

/// `GCWorker`.
pub async fn gc_worker(fs: Rc<Inner>) {
    let h = fs.gc_host.clone();
    let (interval, start, slope) = match &fs.spec.personality {
        Personality::Zenfs(z) => (z.gc_interval, z.gc_start_level as u64, z.gc_slope as u64),
        Personality::F2fs(_) => unreachable!("ZenFS's GC on F2FS"),
    };
    loop {
        h.sleep(interval).await;
        let victims: Vec<u32> = {
            let st = fs.st.borrow();
            let mut free = 0u64;
            let mut used = 0u64;
            let mut reclaimable = 0u64;
            for z in st.space.zones.iter().filter(|z| z.role != Role::Meta) {
                used += z.valid as u64;
                if z.is_full() {
                    reclaimable += (z.cap - z.valid) as u64;
                } else {
                    free += z.room() as u64;
                }
            }
            let total = (free + used + reclaimable).max(1);
            let free_pct = 100 * free / total;
            if free_pct > start {
                continue;
            }
            let threshold = 100u64.saturating_sub(slope * (start - free_pct));
            st.space
                .zones
                .iter()
                .enumerate()
                .filter(|(_, z)| {
                    let garbage = 100 - 100 * z.valid as u64 / z.cap.max(1) as u64;
                    z.role == Role::Data
                        && z.is_full()
                        && z.head.is_none()
                        && !z.collecting
                        && z.valid > 0
                        && garbage > threshold
                        && garbage < 100
                })
                .map(|(i, _)| i as u32)
                .collect()
        };
        for v in victims {
            let _g = fs.gc_lock.lock(&h).await;
            let ok = {
                let st = fs.st.borrow();
                let z = &st.space.zones[v as usize];
                z.role == Role::Data && z.valid > 0 && !z.collecting && z.head.is_none()
            };
            if ok && collect(&fs, &h, v, false).await.is_err() {
                break;
            }
        }
        let _ = io::reset_dead(&fs, &h).await;
    }
}
