//! Victim choice the policies share: the zones GC may take, greedy and cost-benefit picks, and
//! a victim's live runs in copy units.

use crate::host::fs::Victim;
use crate::host::fs::space::Role;
use crate::host::fs::state::State;

/// Zones that may be collected: full data zones nobody writes or collects, with some garbage.
pub(crate) fn candidates(st: &State) -> impl Iterator<Item = u32> + '_ {
    (0..st.space.zones.len() as u32).filter(|&z| is_candidate(st, z))
}

/// Whether GC may take `zone` now (see [`candidates`]).
pub(crate) fn is_candidate(st: &State, zone: u32) -> bool {
    let z = &st.space.zones[zone as usize];
    z.role == Role::Data
        && z.is_full()
        && z.head.is_none()
        && !z.collecting
        && z.valid < z.wp
        && z.valid > 0
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
