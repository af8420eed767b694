//! F2FS's cleaner (fs/f2fs/gc.c): foreground cleaning on the write path when free sections fall
//! to the reserved ones (`has_not_enough_free_secs`; the sections the dirty node, dentry and
//! data pages need only with `fs.f2fs.dirty_sections`), greedy, run as `f2fs_balance_fs` runs it
//! (`super::daemon::balance`).
//! Background cleaning by a thread, by kernel ([`F2fsGcMode`]): Linux 6.12 on a zoned device
//! wakes every 10-20 ms while free sections are at most 60% of all and moves a window of
//! segments per pass (`zoned_daemon`); Linux 5.16 sleeps 30 to 60 s (5 min when there is nothing
//! to clean), runs only when the file system has no I/O in flight and moves a whole section
//! (`classic_daemon`). Moved data goes to the cold data log, moved node blocks to their node log;
//! emptied sections wait for the next checkpoint before their reset.

use std::rc::Rc;

use super::{
    Dest, GcPolicy, collect, collect_window, cost_benefit, greedy, is_candidate, live_runs_capped,
};
use crate::host::fs::space::Owner;
use crate::host::fs::state::{Ino, State};
use crate::host::fs::{
    COLD_DATA, COLD_NODE, F2fsGcMode, F2fsSpec, GcPolicyKind, HOT_DATA, HOT_NODE, Inner,
    Personality,
};
use crate::time::{Duration, Instant};

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

/// Linux 6.12's `has_not_enough_free_secs` (fs/f2fs/segment.h, with the 6.12-stable backports
/// of upstream e194e140 and 6840fadd: in LFS mode, which a zoned device forces, dirty data
/// counts too), taken with `fs.f2fs.dirty_sections`: `free` sections against the reserved ones
/// plus the sections the dirty node, dentry and data pages need. Whole sections of them always
/// count; a part section counts unless every current log's section has room for that part
/// (`has_curseg_enough_space`, each data log for the data and dentry part, each node log for the
/// node part). A log's section counts as used what it held at the last checkpoint and
/// everything written since (`F2State::ckpt_invalid`), as F2FS's `ckpt_valid_blocks` does.
pub(crate) fn has_not_enough_free_secs(st: &State, free: u32) -> bool {
    short_of_free_secs(st, free).is_some()
}

/// Why [`has_not_enough_free_secs`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Short {
    /// Free sections at or under the reserved ones and the whole sections dirty pages fill.
    Sections,
    /// In the part-section band, log `.0`'s section lacks room for the part of its kind.
    LogRoom(usize),
}

/// [`has_not_enough_free_secs`], saying why.
pub(crate) fn short_of_free_secs(st: &State, free: u32) -> Option<Short> {
    let reserved = st.f2.reserved_sections;
    if st.dirty_pages == 0 && st.node_dirty.is_empty() {
        // Nothing dirty: the reserved sections alone (and no scan of the files).
        return (free <= reserved).then_some(Short::Sections);
    }
    let cap = st.space.zones.first().map_or(1, |z| z.cap.max(1)) as u64;
    // (The sets may name files deleted since.)
    let live = |i: &Ino| st.inodes[*i as usize].as_ref();
    let dent: u64 = st
        .dirty_dirs
        .iter()
        .filter_map(live)
        .map(|d| d.dirty as u64)
        .sum();
    let node: u64 = dent
        + st.node_dirty
            .iter()
            .filter_map(live)
            .map(|i| i.dirty_nodes.len() as u64)
            .sum::<u64>();
    let data = st.dirty_pages - dent;
    let secs = (node / cap + dent / cap + data / cap) as u32;
    let parts = [node % cap, dent % cap, data % cap];
    let lower = reserved + secs;
    let upper = lower + parts.iter().filter(|&&b| b > 0).count() as u32;
    if free > upper {
        return None;
    }
    if free <= lower {
        return Some(Short::Sections);
    }
    let left = |log: usize| {
        st.heads[log].map_or(cap, |z| {
            let (at_cp, invalid) = st.f2.ckpt_invalid[log];
            let invalid = if at_cp == Some(z) { invalid } else { 0 };
            let zone = &st.space.zones[z as usize];
            // (Blocks invalid at the checkpoint count as room, as in F2FS.)
            (zone.room() + invalid).min(zone.cap) as u64
        })
    };
    let [node_part, dent_part, data_part] = parts;
    let lacking = (HOT_DATA..=COLD_DATA)
        .find(|&l| data_part > left(l))
        .or_else(|| (HOT_NODE..=COLD_NODE).find(|&l| node_part > left(l)))
        .or_else(|| (dent_part > left(HOT_DATA)).then_some(HOT_DATA));
    lacking.map(Short::LogRoom)
}

/// A foreground collection is starting: with `fs.f2fs.dirty_sections`, counts why (the
/// report's `gc.foreground_triggers`).
pub(crate) fn note_trigger(fs: &Inner, st: &mut State) {
    if fs.spec.gc.policy != GcPolicyKind::Native || !spec(fs).dirty_sections {
        return;
    }
    match short_of_free_secs(st, st.space.free_count()) {
        Some(Short::Sections) => st.stats.fg_triggers.sections_needed += 1,
        Some(Short::LogRoom(log)) => st.stats.fg_triggers.log_room[log] += 1,
        None => {}
    }
}

impl GcPolicy for F2fsCleaner {
    fn kind(&self) -> GcPolicyKind {
        GcPolicyKind::Native
    }
    fn reserve_zones(&self) -> u32 {
        2
    }
    fn fg_wanted_with(&self, fs: &Inner, st: &State, extra: u32) -> bool {
        let free = st.space.free_count() + extra;
        if spec(fs).dirty_sections {
            has_not_enough_free_secs(st, free)
        } else {
            free <= st.f2.reserved_sections
        }
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
            Owner::Node { ino, index } => Dest::Stream(crate::host::fs::f2fs::node_log(
                f,
                st.inode(ino),
                index as u32,
            )),
            Owner::Meta => Dest::Skip,
        }
    }
    fn write_unit(&self, fs: &Inner) -> u32 {
        fs.spec.max_io_blocks
    }
    fn reset_now(&self) -> bool {
        false
    }
    /// `gc_data_segment` reads a data block with `f2fs_get_read_data_page`, which finds an up
    /// to date page in the cache without I/O, and `move_data_page` moves the page (Linux 6.12,
    /// fs/f2fs/gc.c).
    fn reads_through_page_cache(&self) -> bool {
        true
    }
}

/// `gc_thread_func`.
pub async fn bg_daemon(fs: Rc<Inner>) {
    match spec(&fs).gc_mode {
        F2fsGcMode::Zoned => zoned_daemon(fs).await,
        F2fsGcMode::Classic => classic_daemon(fs).await,
    }
}

/// gc.h's `increase_sleep_time`: up by the minimum, to the maximum; the no-GC sleep stays.
fn increase_sleep(f: &F2fsSpec, wait: Duration) -> Duration {
    if wait == f.bg_gc_nogc_sleep {
        wait
    } else {
        (wait + f.bg_gc_min_sleep).min(f.bg_gc_max_sleep)
    }
}

/// gc.h's `decrease_sleep_time`: down by the minimum, to the minimum (from the maximum when
/// the thread had nothing to clean).
fn decrease_sleep(f: &F2fsSpec, wait: Duration) -> Duration {
    let wait = if wait == f.bg_gc_nogc_sleep {
        f.bg_gc_max_sleep
    } else {
        wait
    };
    let min = f.bg_gc_min_sleep.ns();
    Duration::from_ns(wait.ns().saturating_sub(min).max(min))
}

/// gc.h's `has_enough_free_blocks`: free sections above `pct` percent of all.
fn enough_free(st: &State, pct: u32) -> bool {
    let total = st.space.zones.len() as u64;
    st.space.free_count() as u64 > total * pct as u64 / 100
}

/// The fewest live blocks among sections under `pct` percent valid (`get_gc_cost` for a
/// one-time pass: sections at or above `valid_thresh_ratio` cost `UINT_MAX`).
fn greedy_below(st: &State, pct: u32) -> Option<u32> {
    super::victim::candidates(st)
        .filter(|&z| {
            let zone = &st.space.zones[z as usize];
            (zone.valid as u64) * 100 < zone.cap as u64 * pct as u64
        })
        .min_by_key(|&z| (st.space.zones[z as usize].valid, z))
}

/// The zoned cleaner's next (section, first block): the one a pass stopped in while it can
/// still be collected, else a new victim (greedy under the valid threshold when boosted,
/// cost-benefit otherwise).
fn zoned_pick(
    st: &State,
    f: &F2fsSpec,
    next: Option<(u32, u32)>,
    boost: bool,
) -> Option<(u32, u32)> {
    next.filter(|&(z, _)| is_candidate(st, z)).or_else(|| {
        let v = if boost {
            greedy_below(st, f.valid_thresh_pct)
        } else {
            cost_benefit(st)
        };
        v.map(|z| (z, 0))
    })
}

/// Linux 6.12's `gc_thread_func` on a zoned device: no idle time needed (only no read in
/// flight), nothing to do while free sections exceed `no_zoned_gc_pct`, cost-benefit passes of
/// `migration_window_segments`, and at `boost_zoned_gc_pct` or fewer free sections greedy
/// passes five times as wide that skip sections `valid_thresh_pct` valid. A pass that stops
/// inside its victim goes on from there next time (`next_victim_seg`).
async fn zoned_daemon(fs: Rc<Inner>) {
    /// gc.h `BOOST_GC_MULTIPLE`.
    const BOOST_MULTIPLE: u32 = 5;
    let h = fs.gc_host.clone();
    let f = spec(&fs).clone();
    let mut wait = f.bg_gc_min_sleep;
    let mut next: Option<(u32, u32)> = None;
    loop {
        h.sleep(wait).await;
        let (reading, quiet, boost) = {
            let st = fs.st.borrow();
            (
                st.inflight_reads > 0,
                enough_free(&st, f.no_zoned_gc_pct),
                !enough_free(&st, f.boost_zoned_gc_pct),
            )
        };
        // `f2fs_down_write_trylock(&sbi->gc_lock)`: a writer collecting in the foreground
        // makes this round a skip.
        let Some(_g) = fs.gc_lock.try_lock(&h) else {
            continue;
        };
        if reading {
            wait = increase_sleep(&f, wait);
            continue;
        }
        if quiet {
            wait = f.bg_gc_nogc_sleep;
            continue;
        }
        if wait == f.bg_gc_nogc_sleep {
            wait = f.bg_gc_max_sleep;
        }
        wait = if boost {
            decrease_sleep(&f, wait)
        } else {
            increase_sleep(&f, wait)
        };
        let (pick, seg_blocks) = {
            let st = fs.st.borrow();
            (zoned_pick(&st, &f, next.take(), boost), st.f2.seg_blocks)
        };
        let Some((zone, from)) = pick else {
            wait = f.bg_gc_nogc_sleep;
            continue;
        };
        let mult = if boost { BOOST_MULTIPLE } else { 1 };
        let to = from.saturating_add(f.migration_window_segments * mult * seg_blocks);
        if collect_window(&fs, &h, zone, false, from..to)
            .await
            .is_err()
        {
            continue;
        }
        let st = fs.st.borrow();
        let z = &st.space.zones[zone as usize];
        if to < z.wp && z.valid > 0 {
            next = Some((zone, to));
        }
        if wait == f.bg_gc_nogc_sleep {
            wait = f.bg_gc_min_sleep;
        }
    }
}

/// Linux 5.16's `gc_thread_func`.
async fn classic_daemon(fs: Rc<Inner>) {
    let h = fs.gc_host.clone();
    let f = spec(&fs).clone();
    let mut wait = f.bg_gc_min_sleep;
    loop {
        h.sleep(wait).await;
        let (idle, enough) = {
            let st = fs.st.borrow();
            (st.inflight_io == 0, has_enough_invalid_blocks(&st))
        };
        if !idle {
            wait = increase_sleep(&f, wait);
            continue;
        }
        wait = if enough {
            decrease_sleep(&f, wait)
        } else {
            increase_sleep(&f, wait)
        };
        let _g = fs.gc_lock.lock(&h).await;
        let victim = {
            let st = fs.st.borrow();
            fs.gc.borrow_mut().victim(&fs, &st, false, h.now())
        };
        match victim {
            Some(v) => {
                let _ = collect(&fs, &h, v, false).await;
                if wait == f.bg_gc_nogc_sleep {
                    wait = f.bg_gc_min_sleep;
                }
            }
            None => wait = f.bg_gc_nogc_sleep,
        }
    }
}
