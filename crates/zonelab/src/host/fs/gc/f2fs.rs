//! F2FS's cleaner (fs/f2fs/gc.c, 5.16): foreground cleaning on the write path when free
//! sections fall to the reserved ones (`has_not_enough_free_secs`; the dirty node and dentry
//! sections it adds are left out), greedy; background cleaning by a thread that sleeps 30 to
//! 60 s (5 min when there is nothing to clean), runs only when the file system has no I/O in
//! flight, and picks by cost-benefit. Moved data goes to the cold data log, moved node blocks to
//! their node log; emptied sections wait for the next checkpoint before their reset.

use std::rc::Rc;

use super::{Dest, GcPolicy, collect, cost_benefit, greedy, live_runs_capped};
use crate::host::fs::space::Owner;
use crate::host::fs::state::State;
use crate::host::fs::{F2fsSpec, GcPolicyKind, Inner, Personality};
use crate::time::Instant;

pub struct F2fsCleaner;

fn spec(fs: &Inner) -> &F2fsSpec {
    match &fs.spec.personality {
        Personality::F2fs(f) => f,
        Personality::Zenfs(_) => unreachable!("F2FS's cleaner on ZenFS"),
    }
}

/// `has_enough_invalid_blocks`: blocks not holding valid data above 40% of the user blocks,
/// and free user blocks below 40% of those (`LIMIT_INVALID_BLOCK`, `LIMIT_FREE_BLOCK`).
pub fn has_enough_invalid_blocks(st: &State) -> bool {
    let user = st.capacity_blocks;
    let invalid = user.saturating_sub(st.space.valid_total);
    let free_segs = st.space.free_count() as u64 * st.f2.segs_per_zone as u64;
    let free_user = free_segs.saturating_sub(st.f2.ovp_segments) * st.f2.seg_blocks as u64;
    invalid > user * 40 / 100 && free_user < invalid * 40 / 100
}

impl GcPolicy for F2fsCleaner {
    fn kind(&self) -> GcPolicyKind {
        GcPolicyKind::Native
    }
    fn reserve_zones(&self) -> u32 {
        2
    }
    fn fg_wanted_with(&self, _fs: &Inner, st: &State, extra: u32) -> bool {
        st.space.free_count() + extra <= st.f2.reserved_sections
    }
    fn bg_wanted(&self, _fs: &Inner, _st: &State) -> bool {
        false
    }
    fn victim(&mut self, _fs: &Inner, st: &State, fg: bool, _now: Instant) -> Option<u32> {
        if fg { greedy(st) } else { cost_benefit(st) }
    }
    fn read_plan(&self, fs: &Inner, st: &State, zone: u32) -> Vec<(u32, u32)> {
        live_runs_capped(st, zone, fs.spec.max_io_blocks)
    }
    fn destination(&self, fs: &Inner, st: &State, _: u32, _: u32, owner: Owner) -> Dest {
        let f = spec(fs);
        match owner {
            Owner::Data { .. } => Dest::Stream(crate::host::fs::f2fs::gc_data_log(f)),
            Owner::Node { ino, .. } => {
                Dest::Stream(crate::host::fs::f2fs::node_log(f, st.inode(ino)))
            }
            Owner::Meta => Dest::Skip,
        }
    }
    fn write_unit(&self, fs: &Inner) -> u32 {
        fs.spec.max_io_blocks
    }
    fn reset_now(&self) -> bool {
        false
    }
}

/// `gc_thread_func`.
pub async fn bg_daemon(fs: Rc<Inner>) {
    let h = fs.gc_host.clone();
    let f = spec(&fs).clone();
    let (min, max) = (f.bg_gc_min_sleep, f.bg_gc_max_sleep);
    let mut wait = min;
    loop {
        h.sleep(wait).await;
        let (idle, enough) = {
            let st = fs.st.borrow();
            (st.inflight_io == 0, has_enough_invalid_blocks(&st))
        };
        if !idle {
            wait = (wait + min).min(max);
            continue;
        }
        wait = if enough {
            crate::time::Duration::from_ns(wait.ns().saturating_sub(min.ns()).max(min.ns()))
        } else {
            (wait + min).min(max)
        };
        let _g = fs.gc_lock.lock(&h).await;
        let victim = {
            let st = fs.st.borrow();
            fs.gc.borrow_mut().victim(&fs, &st, false, h.now())
        };
        match victim {
            Some(v) => {
                let _ = collect(&fs, &h, v, false).await;
            }
            None => wait = f.bg_gc_nogc_sleep,
        }
    }
}
