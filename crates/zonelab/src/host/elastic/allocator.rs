//! The serial zone allocator (ezns.md, "Serial zone allocator"). Every physical-zone open goes
//! through one per-device queue and a stripe group's request is served atomically, so a group is
//! a run of consecutively opened physical zones. The device gives each newly written zone the
//! next die in a fixed round-robin order, so a group of at most #dies zones has no two on one
//! die. An open does not bind a die, so the allocator *reserves* a zone by writing its header
//! (the reservation block, then the allocation history) at once. A pool of zones reserved ahead
//! (`reserve_pool`, in firmware order) is optional: reserved zones hold active resources, so the
//! pool counts against the device's active limit (default 0: zones are reserved when a group
//! opens; the authors' code keeps up to 32).
//!
//! It also keeps the global-overdrive history: the namespace of each recent allocation.

use std::collections::VecDeque;

use smallvec::SmallVec;

use super::below::Below;
use super::hal::Hal;
use crate::time::Instant;

pub struct Allocator {
    /// Physical zones holding nothing, in the order they were freed.
    free: VecDeque<u32>,
    /// Zones reserved ahead (header written), in the order the device placed them.
    pool: VecDeque<u32>,
    pool_size: u32,
    header: Vec<u8>,
    /// Physical zones allocated so far.
    pub allocations: u64,
}

impl Allocator {
    pub fn new(hal: &Hal, pool_size: u32, retain: bool) -> Self {
        Allocator {
            free: (0..hal.zone_count).collect(),
            pool: VecDeque::new(),
            pool_size,
            header: if retain {
                vec![0; (hal.header_lbas * hal.lba_bytes) as usize]
            } else {
                Vec::new()
            },
            allocations: 0,
        }
    }

    /// Takes a free zone and writes its header, which binds it to the next die.
    fn reserve(&mut self, dev: &mut Below, hal: &Hal, now: Instant) -> u32 {
        let pz = self
            .free
            .pop_front()
            .expect("a free physical zone: v-zones never hold more than the device has");
        let data = (!self.header.is_empty()).then_some(&self.header[..]);
        dev.write(now, hal.zslba(pz), hal.header_lbas, data)
            .expect("the reservation write of a free physical zone");
        pz
    }

    /// Fills the pool of zones reserved ahead.
    pub fn refill(&mut self, dev: &mut Below, hal: &Hal, now: Instant) {
        while (self.pool.len() as u32) < self.pool_size && !self.free.is_empty() {
            let pz = self.reserve(dev, hal, now);
            self.pool.push_back(pz);
        }
    }

    /// One stripe group's physical zones, served atomically in firmware order.
    pub fn open_group(
        &mut self,
        dev: &mut Below,
        hal: &Hal,
        now: Instant,
        width: u32,
    ) -> SmallVec<[u32; 16]> {
        let mut zones = SmallVec::new();
        for _ in 0..width {
            let pz = match self.pool.pop_front() {
                Some(pz) => pz,
                None => self.reserve(dev, hal, now),
            };
            zones.push(pz);
        }
        self.allocations += width as u64;
        self.refill(dev, hal, now);
        zones
    }

    /// Takes physical zones for a prefill, in firmware order, without writing them (the
    /// prefill writes their headers with their data).
    pub fn take_for_prefill(&mut self, width: u32) -> SmallVec<[u32; 16]> {
        assert!(self.pool.is_empty(), "prefill comes before any reservation");
        (0..width)
            .map(|_| self.free.pop_front().expect("a free physical zone"))
            .collect()
    }

    /// A physical zone that was reset goes back to the free zones.
    pub fn release(&mut self, pz: u32) {
        self.free.push_back(pz);
    }

    /// Zones reserved ahead (holding active resources).
    pub fn pooled(&self) -> u32 {
        self.pool.len() as u32
    }
}
