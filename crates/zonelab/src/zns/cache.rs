//! A power-loss-protected write cache shared by all dies, as the small-zone SSD eZNS runs on has
//! it (docs/reference/ezns.md, "Device assumptions eZNS relies on"): `C` program units in
//! all, at least one per active zone. A zone's write stream holds one slot for the unit it is
//! filling; once the unit is full it is programmed and its slot frees when the program ends. A
//! write completes once every unit its bytes went into holds a slot, so writes complete when
//! cached, the cache drains to NAND in the background, and when the cache is full writes wait.
//!
//! Completion times are fixed at submission, and then this is exact as: a unit takes the slot
//! that frees earliest among those not held (a min-heap of release times). A slot held by a unit
//! still filling is out of the heap until the unit is programmed, or until a reset drops it.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::time::Instant;

pub(super) struct SharedCache {
    /// When each slot not held by a filling unit is (or was) free.
    free_at: BinaryHeap<Reverse<Instant>>,
    /// Per logical zone: when the slot of the unit it is filling was taken.
    holds: Vec<Option<Instant>>,
    /// Per logical zone: (stream unit, program end) of units that may still be in the cache,
    /// in stream order (reads of them touch no NAND).
    recent: Vec<VecDeque<(u64, Instant)>>,
    /// The latest program end in `recent`: a read at or after it finds nothing cached without
    /// looking at its zone (a random read over many zones would miss the CPU cache there).
    recent_until: Instant,
    capacity: u32,
}

impl SharedCache {
    pub fn new(units: u32, zones: usize) -> Self {
        SharedCache {
            free_at: std::iter::repeat_n(Reverse(Instant::ZERO), units as usize).collect(),
            holds: vec![None; zones],
            recent: vec![VecDeque::new(); zones],
            recent_until: Instant::ZERO,
            capacity: units,
        }
    }

    /// The slot freed earliest, taken by a unit whose bytes arrive at `arrived`: when the unit
    /// is in the cache.
    fn take(&mut self, arrived: Instant) -> Instant {
        let Reverse(free) = self
            .free_at
            .pop()
            .expect("a free cache slot: the cache holds at least one unit per active zone");
        arrived.max(free)
    }

    /// The slot of the unit zone `zone` is filling, taken now if it holds none.
    pub fn filling(&mut self, zone: u32, arrived: Instant) -> Instant {
        match self.holds[zone as usize] {
            Some(t) => t,
            None => {
                let t = self.take(arrived);
                self.holds[zone as usize] = Some(t);
                t
            }
        }
    }

    /// Zone `zone`'s filling unit (stream unit `stream_unit`) is full: it leaves the zone's hold
    /// and is programmed. Returns when its bytes are in the cache (the program may start then).
    pub fn full(&mut self, zone: u32, arrived: Instant) -> Instant {
        let slot = self.filling(zone, arrived);
        self.holds[zone as usize] = None;
        slot.max(arrived)
    }

    /// The unit's program ends at `programmed` (at the earliest `now`): its slot frees then.
    pub fn programmed(&mut self, zone: u32, stream_unit: u64, programmed: Instant, now: Instant) {
        self.free_at.push(Reverse(programmed));
        let recent = &mut self.recent[zone as usize];
        while recent.front().is_some_and(|&(_, end)| end <= now) {
            recent.pop_front();
        }
        recent.push_back((stream_unit, programmed));
        self.recent_until = self.recent_until.max(programmed);
    }

    /// Whether stream unit `stream_unit` of `zone` is still in the cache at `t`.
    #[inline]
    pub fn holds_unit(&self, zone: u32, stream_unit: u64, t: Instant) -> bool {
        if t >= self.recent_until {
            return false;
        }
        let recent = &self.recent[zone as usize];
        recent
            .binary_search_by_key(&stream_unit, |&(u, _)| u)
            .is_ok_and(|i| recent[i].1 > t)
    }

    /// A reset drops zone `zone`'s filling unit at `now` (its slot frees) and forgets its units.
    pub fn drop_zone(&mut self, zone: u32, now: Instant) {
        if let Some(t) = self.holds[zone as usize].take() {
            self.free_at.push(Reverse(t.max(now)));
        }
        self.recent[zone as usize].clear();
    }

    /// Slots held by units still filling (tests).
    pub fn held(&self) -> u32 {
        self.capacity - self.free_at.len() as u32
    }
}
