//! Garbage collection and wear levelling, interleaved with host I/O. A collection empties one
//! victim superblock a page at a time: it reads a page's valid units (only those cross the
//! channel), writes them into the GC stream, and once the victim holds nothing valid erases its
//! block on every die. The victim policy chooses; this module acts.
//!
//! Real FTLs interleave GC copies with host commands and throttle host writes to the space GC
//! frees (MQSim's GC/WL unit issues GC transactions into the same per-chip queues as host ones;
//! FEMU and NVMeVirt collect before the write that needs space). ZoneLab paces: while fewer than
//! `gc_free_superblocks` are free, every mapping unit the host writes owes the victim
//! `v / (S - v)` copies (`v` valid units of its `S` when it was chosen: the copies that free the
//! space the host writes), and the owed pages are copied then, booked on the NAND timelines at
//! that write's time. So GC work spreads over the host's writes in page-sized pieces: a host
//! read waits at most for the GC read, program or erase in progress on its die, and host writes
//! slow down as GC takes die and channel time from them (their programs queue behind the
//! copies, the write buffer fills). Only when the host would take the last free superblock GC
//! needs does it finish the victim at once (`gc_stalls`: pacing fell behind). In idle time,
//! below `background_gc_free_superblocks`, the device copies one page at a time, each when the
//! NAND has gone idle again, so a command arriving meanwhile waits for one page's work at most.

use super::device::{Ftl, NONE, RESERVED_FREE, SbState};
use super::victim::Candidate;
use crate::bits::ones;
use crate::time::Instant;

/// The most copies one host unit may owe (chosen): a victim with almost every unit valid (a
/// wear-levelling move of cold data, or a device filled to its last spare slot) is moved at
/// eight copies per host unit rather than all at once.
const MAX_COPIES_PER_HOST_UNIT: f64 = 8.0;

/// How far ahead of the page being copied the collection loads forward-map entries, in slots
/// (chosen: enough misses in flight to cover memory latency; the stop-the-world collection this
/// replaced prefetched 32 moves ahead).
pub(super) const COPY_AHEAD_UNITS: u32 = 32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Trigger {
    /// Host writes ran free superblocks below `gc_free_superblocks`.
    Foreground,
    /// Idle time, with free superblocks below the background threshold.
    Background,
    /// Static wear levelling: the least-erased superblock's cold data moves.
    WearLevelling,
}

/// The collection in progress.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct Collection {
    /// The victim superblock (`NONE`: no collection).
    pub victim: u32,
    /// The next page of the victim to look at (pages counted program unit by program unit).
    pub next_page: u32,
    /// Pages before this one have had their valid units' forward entries prefetched.
    pub prefetched_to: u32,
    /// Copies owed per host unit written.
    pub ratio: f64,
    /// Copies owed and not yet made (may run a page ahead, below zero).
    pub owed: f64,
}

impl Collection {
    pub const IDLE: Collection = Collection {
        victim: NONE,
        next_page: 0,
        prefetched_to: 0,
        ratio: 0.0,
        owed: 0.0,
    };

    pub fn active(&self) -> bool {
        self.victim != NONE
    }
}

impl Ftl {
    /// Starts collecting a victim chosen for `trigger`; false if no superblock is closed.
    pub(super) fn start_collection(&mut self, now: Instant, trigger: Trigger) -> bool {
        debug_assert!(!self.collection.active());
        let Some(victim) = self.choose_victim(now, trigger) else {
            return false;
        };
        let s = self.geo.slots_per_sb as f64;
        let v = self.sbs[victim as usize].valid as f64;
        // The copies that free the space the host writes, or faster if the host would run
        // into the superblocks it must leave before then (small superblocks, a low threshold).
        let headroom = self.host_headroom_units(v as u32) as f64;
        let ratio = (v / (s - v).max(1.0)).max(v / headroom.max(1.0));
        self.sbs[victim as usize].state = SbState::Collecting;
        self.collection = Collection {
            victim,
            next_page: 0,
            prefetched_to: 0,
            ratio: ratio.min(MAX_COPIES_PER_HOST_UNIT),
            owed: 0.0,
        };
        match trigger {
            Trigger::Foreground => self.ftl.foreground_collections += 1,
            Trigger::Background => self.ftl.background_collections += 1,
            Trigger::WearLevelling => self.ftl.wear_leveling_moves += 1,
        }
        true
    }

    /// Host units the host stream can place before it would have to take one of the free
    /// superblocks it leaves (`open_host`), if GC copies `copies` units meanwhile: what is left
    /// of its open superblock, and whole superblocks it may still open after GC's stream has
    /// taken those it needs. O(dies): once per collection.
    fn host_headroom_units(&self, copies: u32) -> u64 {
        let g = self.geo;
        let s = g.slots_per_sb as u64;
        let host_left = if self.host.sb == NONE {
            0
        } else {
            s - self.host.next as u64
        };
        let gc_room: u64 = if self.gc.sb == NONE {
            0
        } else {
            let upb = g.pus_per_die;
            self.gc
                .dies
                .iter()
                .map(|f| ((upb - f.units) * g.slots_per_pu - f.slots) as u64)
                .sum()
        };
        let gc_sbs = (copies as u64).saturating_sub(gc_room).div_ceil(s);
        let host_sbs = (self.free.len() as u64 + 1).saturating_sub(RESERVED_FREE as u64 + gc_sbs);
        host_left + host_sbs * s
    }

    /// After a host unit is placed: start collecting below the threshold, and make the copies
    /// the unit owes.
    #[inline]
    pub(super) fn pace(&mut self, now: Instant) {
        if !self.collection.active() {
            // Free superblocks first: `next_trigger` scans every superblock when wear levelling
            // is on, and this runs for every host unit.
            if self.free.len() >= self.spec.gc_free_superblocks as usize {
                return;
            }
            let trigger = self.next_trigger(Trigger::Foreground);
            if !self.start_collection(now, trigger) {
                return;
            }
        }
        let c = &mut self.collection;
        c.owed += c.ratio;
        while self.collection.active() && self.collection.owed > 0.0 {
            let copied = self.copy_next_page(now);
            self.collection.owed -= copied as f64;
        }
    }

    /// Finishes the collection in progress at once (or one started now); false if there is
    /// nothing to collect.
    pub(super) fn collect_now(&mut self, now: Instant, trigger: Trigger) -> bool {
        if !self.collection.active() && !self.start_collection(now, trigger) {
            return false;
        }
        while self.collection.active() {
            self.copy_next_page(now);
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

    /// Copies the valid units of the victim's next page that holds any into the GC stream;
    /// erases the victim once no page is left. Returns the units copied.
    fn copy_next_page(&mut self, now: Instant) -> u32 {
        let g = self.geo;
        let victim = self.collection.victim;
        let base = victim * g.slots_per_sb;
        let pages = g.pus_per_sb * g.pages_per_pu;
        while self.collection.next_page < pages && self.sbs[victim as usize].valid > 0 {
            let p = self.collection.next_page;
            self.collection.next_page += 1;
            self.prefetch_ahead(p, pages);
            let first = base + g.page_first_slot(p);
            // An empty page costs one look at the bitmap.
            let count = self.page_valid_count(first);
            if count == 0 {
                continue;
            }
            let (die, page) = g.page_of(first - base);
            let read = self.nand_read(now, die, victim, page, count as u64 * g.unit_bytes);
            // The old slots are stale from now on (the victim stays readable until erased).
            self.sbs[victim as usize].valid -= count;
            // 64 slots of the page at a time (one word when pages hold at most 64 units).
            let mut c = 0;
            while c < g.slots_per_page {
                for b in ones(self.page_valid_bits(first, c)) {
                    let slot = first + c + b;
                    let lpn = self.map.owner_of_valid(slot);
                    self.map.invalidate(slot);
                    self.place_gc(now, lpn, read, die);
                }
                c += 64;
            }
            self.ftl.gc_copied_units += count as u64;
            return count;
        }
        self.erase_victim(now);
        0
    }

    /// Starts loading the forward entries of the units on the victim's pages up to
    /// `COPY_AHEAD_UNITS` slots past page `p`. Each copy rewrites its unit's forward entry, a
    /// cache miss at a random place in the table: loaded ahead, the misses of several copies
    /// overlap instead of each waiting for the last (the collection copies a page at a time,
    /// between host writes). A unit invalidated meanwhile costs only its prefetch.
    #[inline]
    fn prefetch_ahead(&mut self, p: u32, pages: u32) {
        let g = self.geo;
        let until = (p + 1 + g.copy_ahead_pages).min(pages);
        let base = self.collection.victim * g.slots_per_sb;
        while self.collection.prefetched_to < until {
            let first = base + g.page_first_slot(self.collection.prefetched_to);
            self.collection.prefetched_to += 1;
            let mut c = 0;
            while c < g.slots_per_page {
                for b in ones(self.page_valid_bits(first, c)) {
                    self.map.prefetch(self.map.owner_of_valid(first + c + b));
                }
                c += 64;
            }
        }
    }

    /// Valid units on the page whose first slot is `first`.
    #[inline]
    fn page_valid_count(&self, first: u32) -> u32 {
        let g = self.geo;
        if let Some(mask) = g.page_mask {
            return self.map.valid_bits_in_word(first, mask).count_ones();
        }
        (0..g.slots_per_page)
            .step_by(64)
            .map(|c| self.page_valid_bits(first, c).count_ones())
            .sum()
    }

    /// The valid bits of the page from `first`, slots `c..c + 64` of it (`c` a multiple of 64).
    #[inline]
    fn page_valid_bits(&self, first: u32, c: u32) -> u64 {
        let g = self.geo;
        match g.page_mask {
            Some(mask) => self.map.valid_bits_in_word(first, mask),
            None => self
                .map
                .valid_bits(first + c, (g.slots_per_page - c).min(64)),
        }
    }

    /// The victim holds nothing valid: its block on every die is erased and it is free.
    fn erase_victim(&mut self, now: Instant) {
        let g = self.geo;
        let victim = self.collection.victim;
        assert_eq!(
            self.sbs[victim as usize].valid, 0,
            "superblock {victim}: valid units left behind by collection"
        );
        for die in 0..g.dies {
            self.nand_erase(now, die, victim);
        }
        self.map.erase(victim * g.slots_per_sb, g.slots_per_sb);
        let s = &mut self.sbs[victim as usize];
        s.state = SbState::Free;
        s.erases += 1;
        s.host = false;
        self.free.push(victim);
        self.ftl.gc_erased_superblocks += 1;
        self.collection = Collection::IDLE;
        if self.timed {
            self.series.free(now, self.free.len() as u32);
        }
    }

    /// What the next collection is for: static wear levelling when, with a threshold set, the
    /// most-erased superblock is that many erases ahead of the least-erased closed one (the
    /// latter's cold data moves, paced like any collection), else `otherwise`. Asked once per
    /// collection, so the scan over the superblocks costs nothing per command.
    fn next_trigger(&self, otherwise: Trigger) -> Trigger {
        let threshold = self.spec.wear_leveling_threshold;
        if threshold == 0 {
            return otherwise;
        }
        let most = self.sbs.iter().map(|s| s.erases).max().unwrap_or(0);
        let least = self
            .sbs
            .iter()
            .filter(|s| s.state == SbState::Closed)
            .map(|s| s.erases)
            .min();
        if least.is_some_and(|l| most - l >= threshold) {
            Trigger::WearLevelling
        } else {
            otherwise
        }
    }

    /// Idle-time work at `now`: below the background threshold, with the device idle, one page
    /// of the collection in progress (or of one started now). Returns when to look again.
    pub(super) fn background(&mut self, now: Instant) -> Option<Instant> {
        if !self.timed
            || (!self.collection.active()
                && self.free.len() >= self.spec.background_gc_free_superblocks as usize)
        {
            return None;
        }
        let now = self.enter(now);
        if self.busy_until > now {
            // Foreground work in flight: look again when it is done (cheap, every event).
            return Some(self.busy_until);
        }
        let idle = self.nand.idle_at();
        if idle > now {
            return Some(idle);
        }
        if !self.collection.active() {
            let trigger = self.next_trigger(Trigger::Background);
            if !self.start_collection(now, trigger) {
                return None;
            }
        }
        let (copied, erased) = (self.ftl.gc_copied_units, self.ftl.gc_erased_superblocks);
        // One page with valid units, or the erase once none is left.
        self.copy_next_page(now);
        self.series.add(
            now,
            [
                0,
                self.ftl.gc_copied_units - copied,
                self.ftl.gc_erased_superblocks - erased,
            ],
        );
        Some(self.nand.idle_at().max(now))
    }
}
