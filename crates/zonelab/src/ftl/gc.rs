//! Garbage collection and wear levelling. Collecting a superblock reads each page that still
//! holds valid units (only those units cross the channel), writes them into the GC stream, and
//! erases the superblock's block on every die; all of it is booked on the NAND timelines at the
//! time collection starts, so host I/O that needs those dies and channels waits behind it. The
//! victim policy chooses; this module acts.

use smallvec::SmallVec;

use super::device::{Ftl, SbState};
use super::victim::Candidate;
use crate::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Trigger {
    /// A host write needs a superblock and free ones ran short.
    Foreground,
    /// Idle time, with free superblocks below the background threshold.
    Background,
    /// Static wear levelling: the least-erased superblock's cold data moves.
    WearLevelling,
}

impl Ftl {
    /// Collects one superblock chosen for `trigger`; false if no superblock is closed.
    pub(super) fn collect(&mut self, now: Instant, trigger: Trigger) -> bool {
        let Some(victim) = self.choose_victim(now, trigger) else {
            return false;
        };
        self.collect_superblock(now, victim);
        match trigger {
            Trigger::Foreground => self.ftl.foreground_collections += 1,
            Trigger::Background => self.ftl.background_collections += 1,
            Trigger::WearLevelling => self.ftl.wear_leveling_moves += 1,
        }
        true
    }

    fn choose_victim(&mut self, now: Instant, trigger: Trigger) -> Option<u32> {
        let cap = self.geo.slots_per_sb;
        let mut candidates = std::mem::take(&mut self.scratch);
        candidates.clear();
        candidates.extend(
            self.sbs
                .iter()
                .enumerate()
                .filter(|(_, s)| s.state == SbState::Closed)
                .map(|(i, s)| Candidate {
                    superblock: i as u32,
                    valid_units: s.valid,
                    capacity_units: cap,
                    closed_at: s.closed_at,
                    erase_count: s.erases,
                }),
        );
        let victim = if candidates.is_empty() {
            None
        } else if trigger == Trigger::WearLevelling {
            candidates
                .iter()
                .min_by_key(|c| (c.erase_count, c.superblock))
                .map(|c| c.superblock)
        } else {
            Some(self.policy.choose(now, &candidates))
        };
        self.scratch = candidates;
        victim
    }

    /// Moves the valid units of `victim` into the GC stream and erases it. Every read is booked
    /// first, then the programs, then the erases: a die serves its operations in the order they
    /// are booked, so a program waiting for a read on another die would otherwise hold up the
    /// reads queued behind it on its own die.
    fn collect_superblock(&mut self, now: Instant, victim: u32) {
        let g = self.geo;
        debug_assert_eq!(self.sbs[victim as usize].state, SbState::Closed);
        let base = victim * g.slots_per_sb;
        let mut moves = std::mem::take(&mut self.moves);
        moves.clear();
        let mut valid: SmallVec<[u32; 16]> = SmallVec::new();
        // How far ahead to load forward-map entries (chosen: enough misses in flight to cover
        // memory latency).
        const AHEAD: u32 = 32;
        if self.sbs[victim as usize].valid > 0 {
            for j in 0..g.pus_per_sb {
                for p in 0..g.pages_per_pu {
                    let first = base + j * g.slots_per_pu + p * g.slots_per_page;
                    valid.clear();
                    valid.extend(
                        (first..first + g.slots_per_page).filter_map(|s| self.map.owner(s)),
                    );
                    if valid.is_empty() {
                        continue;
                    }
                    let (die, page) = g.page_of(first - base);
                    let bytes = valid.len() as u64 * g.unit_bytes;
                    let read = self.nand_read(now, die, victim, page, bytes);
                    moves.extend(valid.iter().map(|&lpn| (lpn, read)));
                }
            }
        }
        for (i, &(lpn, read)) in moves.iter().enumerate() {
            if let Some(&(ahead, _)) = moves.get(i + AHEAD as usize) {
                self.map.prefetch(ahead);
            }
            self.sbs[victim as usize].valid -= 1;
            self.place_gc(now, lpn, read);
        }
        let copied = moves.len() as u64;
        self.moves = moves;
        assert_eq!(
            self.sbs[victim as usize].valid, 0,
            "superblock {victim}: valid units left behind by collection"
        );
        for die in 0..g.dies {
            self.nand_erase(now, die, victim);
        }
        self.map.erase(base, g.slots_per_sb);
        let s = &mut self.sbs[victim as usize];
        s.state = SbState::Free;
        s.erases += 1;
        s.host = false;
        self.free.push(victim);
        self.ftl.gc_copied_units += copied;
        self.ftl.gc_erased_superblocks += 1;
        if self.timed {
            self.series.free(now, self.free.len() as u32);
        }
    }

    /// Static wear levelling: with a threshold set, when the most-erased superblock is that many
    /// erases ahead of the least-erased closed one, the latter's (cold) data moves now.
    pub(super) fn maybe_level_wear(&mut self, now: Instant) {
        let threshold = self.spec.wear_leveling_threshold;
        if threshold == 0 || self.free.is_empty() {
            return;
        }
        let most = self.sbs.iter().map(|s| s.erases).max().unwrap_or(0);
        let least = self
            .sbs
            .iter()
            .filter(|s| s.state == SbState::Closed)
            .map(|s| s.erases)
            .min();
        if least.is_some_and(|l| most - l >= threshold) {
            self.collect(now, Trigger::WearLevelling);
        }
    }

    /// Idle-time work at `now`: one collection when free superblocks are below the background
    /// threshold and the device has nothing else to do. Returns when to look again.
    pub(super) fn background(&mut self, now: Instant) -> Option<Instant> {
        if !self.timed || self.free.len() >= self.spec.background_gc_free_superblocks as usize {
            return None;
        }
        let now = self.enter(now);
        if self.background_until > now {
            return Some(self.background_until);
        }
        if self.busy_until > now {
            // Foreground work in flight: look again when it is done (cheap, every event).
            return Some(self.busy_until);
        }
        let idle = self.nand.idle_at();
        if idle > now {
            return Some(idle);
        }
        if self.free.is_empty() {
            return None;
        }
        let (copied, erased) = (self.ftl.gc_copied_units, self.ftl.gc_erased_superblocks);
        if !self.collect(now, Trigger::Background) {
            return None;
        }
        self.series.add(
            now,
            [
                0,
                self.ftl.gc_copied_units - copied,
                self.ftl.gc_erased_superblocks - erased,
            ],
        );
        self.background_until = self.nand.idle_at().max(now);
        Some(self.background_until)
    }
}
