//! The file layer's zones as the host tracks them: the write pointer it allocates from, which
//! blocks hold live data (a bitmap per zone), who owns each written run (the reverse map zone
//! GC needs to move a block and fix its file's map), and the device's active-zone limit.
//!
//! Blocks are the file layer's 4 KiB blocks; zone `z` here is device zone `first + z`. Space is
//! allocated at the write pointer in the same step that submits the write, so writes to one
//! zone reach the device in order even when several tasks write it at once.

use std::collections::BTreeSet;

use super::map::Run;
use crate::time::Instant;

/// What a written run of a zone holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// File blocks `index..` of inode `ino` (a directory's blocks are its dentry blocks).
    Data { ino: u32, index: u64 },
    /// Node block `index` of inode `ino` (F2FS's inode, direct and indirect node blocks).
    Node { ino: u32, index: u64 },
    /// The file layer's own metadata log (ZenFS).
    Meta,
}

impl Owner {
    /// The owner of the block `k` blocks further on in the same run.
    pub fn offset(self, k: u64) -> Owner {
        match self {
            Owner::Data { ino, index } => Owner::Data {
                ino,
                index: index + k,
            },
            Owner::Node { ino, index } => Owner::Node {
                ino,
                index: index + k,
            },
            Owner::Meta => Owner::Meta,
        }
    }
}

/// A zone's owners looked up in block order: one search per reverse-map run, not per block,
/// and none when the next block is in one of the next few runs (GC walks a victim forward, and
/// a zone of random updates holds a run per block: a search per block misses the CPU cache
/// about log2(runs) times).
#[derive(Default)]
pub struct OwnerCursor {
    /// The reverse-map index of the last run found: where the next search starts.
    hint: usize,
    /// That run: its first block, its length and its first block's owner.
    run: Option<(u32, u32, Owner)>,
}

impl OwnerCursor {
    pub fn of(&mut self, z: &Zone, b: u32) -> Option<Owner> {
        let (s, o) = match self.run {
            Some((s, n, o)) if (s..s + n).contains(&b) => (s, o),
            _ => {
                let i = z.rev_index_from(self.hint, b)?;
                let r = z.rev[i];
                self.hint = i;
                self.run = Some((r.block, r.len, r.owner));
                (r.block, r.owner)
            }
        };
        Some(o.offset((b - s) as u64))
    }

    /// Forgets the run found last but keeps where to search from: a cursor kept across an
    /// await, when the zone's reverse map may have grown, looks its next block up again.
    pub fn resume(&mut self) {
        self.run = None;
    }
}

/// A run written into a zone, in zone order.
#[derive(Clone, Copy, Debug)]
struct RevRun {
    block: u32,
    len: u32,
    owner: Owner,
}

/// What a zone is used for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Free,
    Data,
    /// ZenFS metadata log zones: written as a log, rolled, never collected.
    Meta,
    /// Gone Read Only or Offline on the device: never written, collected or reset again; its
    /// live blocks stay where they are (readable if Read Only, lost if Offline).
    Retired,
}

#[derive(Debug)]
pub struct Zone {
    pub cap: u32,
    /// Blocks allocated so far (the host's write pointer).
    pub wp: u32,
    /// Live blocks.
    pub valid: u32,
    pub role: Role,
    /// Who writes here now: a stream (log) index, or `FILE_HEAD + ino` for a ZenFS file.
    pub head: Option<u32>,
    /// Personality or GC class of the data (F2FS log type, LSM_ZGC level C0..C2).
    pub class: u8,
    /// ZenFS lifetime of the data (the first writer's hint).
    pub lifetime: u8,
    /// Average time its blocks were written (F2FS's segment mtime, kept per zone = section).
    pub mtime_ns: u64,
    /// Finished by the host (no more writes).
    pub finished: bool,
    /// A GC pass is copying it out.
    pub collecting: bool,
    /// Times it has been reset by the file layer.
    pub resets: u32,
    bits: Vec<u64>,
    rev: Vec<RevRun>,
}

impl Zone {
    fn new(cap: u32) -> Self {
        Zone {
            cap,
            wp: 0,
            valid: 0,
            role: Role::Free,
            head: None,
            class: 0,
            lifetime: 0,
            mtime_ns: 0,
            finished: false,
            collecting: false,
            resets: 0,
            bits: Vec::new(),
            rev: Vec::new(),
        }
    }

    /// Room left for writes.
    pub fn room(&self) -> u32 {
        if self.finished { 0 } else { self.cap - self.wp }
    }

    /// Full: written to capacity or finished.
    pub fn is_full(&self) -> bool {
        self.room() == 0
    }

    /// Active on the device: written, not full, not finished.
    pub fn is_active(&self) -> bool {
        self.wp > 0 && !self.is_full()
    }

    pub fn is_live(&self, block: u32) -> bool {
        block < self.wp && self.bits[(block / 64) as usize] & (1 << (block % 64)) != 0
    }

    /// Live blocks in `from..to`.
    pub fn live_in(&self, from: u32, to: u32) -> u32 {
        let to = to.min(self.wp);
        let mut n = 0;
        let mut b = from;
        while b < to {
            let w = self.bits[(b / 64) as usize];
            if b.is_multiple_of(64) && b + 64 <= to {
                n += w.count_ones();
                b += 64;
            } else {
                n += ((w >> (b % 64)) & 1) as u32;
                b += 1;
            }
        }
        n
    }

    /// Runs of live blocks in `from..to`: (start, len).
    pub fn live_runs(&self, from: u32, to: u32) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        let to = to.min(self.wp);
        let mut b = from;
        while b < to {
            if self.bits[(b / 64) as usize] == 0 && b.is_multiple_of(64) {
                b += 64;
                continue;
            }
            if self.is_live(b) {
                let s = b;
                while b < to && self.is_live(b) {
                    b += 1;
                }
                out.push((s, b - s));
            } else {
                b += 1;
            }
        }
        out
    }

    /// The owner of block `block` and that block's index within the owner.
    pub fn owner_of(&self, block: u32) -> Option<(Owner, u64)> {
        let (s, _, o) = self.owner_run(block)?;
        let off = (block - s) as u64;
        Some((o.offset(off), off))
    }

    /// The reverse-map run holding `block`: its first block, its length and the owner of its
    /// first block (a block `k` further on has index `+ k`).
    pub fn owner_run(&self, block: u32) -> Option<(u32, u32, Owner)> {
        let r = self.rev[self.rev_index(block)?];
        Some((r.block, r.len, r.owner))
    }

    /// As [`Zone::rev_index`], searching forward from run `from` first: a gallop, so a block
    /// a few runs on costs a few steps near the last one rather than a search of the whole map.
    fn rev_index_from(&self, from: usize, block: u32) -> Option<usize> {
        let rev = &self.rev;
        if rev.get(from).is_none_or(|r| r.block > block) {
            return self.rev_index(block);
        }
        let (mut lo, mut step) = (from, 1);
        let hi = loop {
            let j = lo + step;
            if j >= rev.len() || rev[j].block > block {
                break j.min(rev.len());
            }
            lo = j;
            step *= 2;
        };
        // rev[lo] starts at or before `block`, so the search finds at least it.
        let i = lo + rev[lo..hi].partition_point(|r| r.block <= block) - 1;
        (block < rev[i].block + rev[i].len).then_some(i)
    }

    /// The index in the reverse map of the run holding `block`.
    fn rev_index(&self, block: u32) -> Option<usize> {
        let i = self
            .rev
            .partition_point(|r| r.block <= block)
            .checked_sub(1)?;
        (block < self.rev[i].block + self.rev[i].len).then_some(i)
    }

    /// Reverse-map entries (memory report).
    pub fn rev_len(&self) -> usize {
        self.rev.len()
    }
}

/// Who allocates in a zone when it is a ZenFS file's active zone.
pub const FILE_HEAD: u32 = 1 << 31;

pub struct Space {
    pub zones: Vec<Zone>,
    /// Device zone of fs zone 0.
    pub first: u32,
    pub zone_lbas: u64,
    pub block_lbas: u64,
    free: BTreeSet<u32>,
    /// Zones active on the device (written, not full).
    pub active: u32,
    /// Zones given up after a refused write whose device Finish is still on its way: finished
    /// here, still active on the device until it completes.
    pub finishing: u32,
    pub max_active: Option<u32>,
    pub max_open: Option<u32>,
    pub valid_total: u64,
    /// Where the last search for a free zone ended (F2FS allocates after the last section).
    cursor: u32,
    /// Bitmaps kept from reset zones, reused by the next zone written.
    spare_bits: Vec<Vec<u64>>,
}

impl Space {
    pub fn new(
        first: u32,
        count: u32,
        zone_lbas: u64,
        cap_blocks: u32,
        block_lbas: u64,
        max_open: Option<u32>,
        max_active: Option<u32>,
    ) -> Self {
        Space {
            zones: (0..count).map(|_| Zone::new(cap_blocks)).collect(),
            first,
            zone_lbas,
            block_lbas,
            free: (0..count).collect(),
            active: 0,
            finishing: 0,
            max_active,
            max_open,
            valid_total: 0,
            cursor: 0,
            spare_bits: Vec::new(),
        }
    }

    pub fn count(&self) -> u32 {
        self.zones.len() as u32
    }

    /// The device LBA of block `block` of fs zone `zone`.
    pub fn lba(&self, zone: u32, block: u32) -> u64 {
        (self.first + zone) as u64 * self.zone_lbas + block as u64 * self.block_lbas
    }

    pub fn zslba(&self, zone: u32) -> u64 {
        (self.first + zone) as u64 * self.zone_lbas
    }

    pub fn free_count(&self) -> u32 {
        self.free.len() as u32
    }

    pub fn free_zones(&self) -> impl Iterator<Item = u32> + '_ {
        self.free.iter().copied()
    }

    /// Whether one more zone may become active on the device.
    pub fn can_activate(&self) -> bool {
        self.max_active
            .is_none_or(|m| self.active + self.finishing < m)
    }

    /// Takes an empty zone for `role`: the lowest-numbered one (ZenFS scans zones in order) or,
    /// with `after_cursor`, the first after the last one taken (F2FS's next free section).
    pub fn take_free(&mut self, after_cursor: bool) -> Option<u32> {
        let z = if after_cursor {
            self.free
                .range(self.cursor..)
                .next()
                .or_else(|| self.free.iter().next())
                .copied()?
        } else {
            *self.free.iter().next()?
        };
        self.free.remove(&z);
        self.cursor = z + 1;
        let zone = &mut self.zones[z as usize];
        debug_assert!(zone.role == Role::Free && zone.wp == 0);
        zone.role = Role::Data;
        let words = zone.cap.div_ceil(64) as usize;
        let mut bits = self.spare_bits.pop().unwrap_or_default();
        bits.clear();
        bits.resize(words, 0);
        zone.bits = bits;
        Some(z)
    }

    /// Marks a zone as taken for `role` without a search (metadata zones at mkfs).
    pub fn claim(&mut self, z: u32, role: Role) {
        assert!(self.free.remove(&z), "zone {z} is free");
        let zone = &mut self.zones[z as usize];
        zone.role = role;
        zone.bits = vec![0; zone.cap.div_ceil(64) as usize];
    }

    /// Allocates up to `n` blocks at the write pointer of `z`: (first block, count).
    pub fn alloc(&mut self, z: u32, n: u32, now: Instant) -> (u32, u32) {
        let zone = &mut self.zones[z as usize];
        let got = n.min(zone.room());
        let start = zone.wp;
        if got == 0 {
            return (start, 0);
        }
        let was_active = zone.is_active();
        let old = zone.wp as u128;
        zone.mtime_ns = ((zone.mtime_ns as u128 * old + now.ns() as u128 * got as u128)
            / (old + got as u128)) as u64;
        zone.wp += got;
        match (was_active, zone.is_active()) {
            (false, true) => self.active += 1,
            (true, false) => self.active -= 1,
            _ => {}
        }
        (start, got)
    }

    /// Records that `len` blocks from `block` of `z` now hold `owner`'s data, live.
    pub fn fill(&mut self, z: u32, block: u32, len: u32, owner: Owner) {
        let zone = &mut self.zones[z as usize];
        debug_assert!(block + len <= zone.wp);
        debug_assert!(zone.rev.last().is_none_or(|r| r.block + r.len <= block));
        for b in block..block + len {
            let (w, bit) = ((b / 64) as usize, 1u64 << (b % 64));
            assert!(zone.bits[w] & bit == 0, "zone {z} block {b} written twice");
            zone.bits[w] |= bit;
        }
        zone.rev.push(RevRun { block, len, owner });
        zone.valid += len;
        self.valid_total += len as u64;
    }

    /// Marks a run dead (its data was overwritten, moved or deleted).
    pub fn kill(&mut self, r: Run) {
        let zone = &mut self.zones[r.zone as usize];
        for b in r.block..r.block + r.len {
            let (w, bit) = ((b / 64) as usize, 1u64 << (b % 64));
            assert!(
                zone.bits[w] & bit != 0,
                "zone {} block {b} freed twice",
                r.zone
            );
            zone.bits[w] &= !bit;
        }
        zone.valid -= r.len;
        self.valid_total -= r.len as u64;
    }

    /// The host finished `z` (Finish sent): no more writes, its active resource is free.
    pub fn finish(&mut self, z: u32) {
        let zone = &mut self.zones[z as usize];
        if zone.is_active() {
            self.active -= 1;
        }
        zone.finished = true;
    }

    /// The device took `z` out of service: no more writes, its active resource is free.
    pub fn retire(&mut self, z: u32) {
        self.finish(z);
        let zone = &mut self.zones[z as usize];
        debug_assert!(
            zone.role == Role::Data,
            "zone {z} retired as {:?}",
            zone.role
        );
        zone.role = Role::Retired;
        zone.head = None;
    }

    /// `z` was reset: empty and free again.
    pub fn reset(&mut self, z: u32) {
        let zone = &mut self.zones[z as usize];
        assert_eq!(zone.valid, 0, "zone {z} reset with live data");
        if zone.is_active() {
            self.active -= 1;
        }
        zone.wp = 0;
        zone.finished = false;
        zone.head = None;
        zone.role = Role::Free;
        zone.class = 0;
        zone.lifetime = 0;
        zone.mtime_ns = 0;
        zone.collecting = false;
        zone.resets += 1;
        zone.rev = Vec::new();
        self.spare_bits.push(std::mem::take(&mut zone.bits));
        self.free.insert(z);
    }

    /// Bytes of memory the zone table holds (bitmaps and reverse maps), for the report.
    pub fn memory_bytes(&self) -> u64 {
        self.zones
            .iter()
            .map(|z| {
                (z.bits.capacity() * 8 + z.rev.capacity() * std::mem::size_of::<RevRun>()) as u64
            })
            .sum::<u64>()
            + self
                .spare_bits
                .iter()
                .map(|b| b.capacity() as u64 * 8)
                .sum::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cursor walking a zone forward (with skips of any length, gaps between runs, and
    /// occasional steps back) finds what a search of the whole reverse map finds.
    #[test]
    fn an_owner_cursor_agrees_with_a_search_of_the_whole_map() {
        let mut space = Space::new(0, 1, 1 << 16, 4096, 8, None, None);
        space.claim(0, Role::Data);
        let mut x: u64 = 7;
        let mut next = move |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        // Runs of 1-8 blocks, some blocks between them never filled (padding).
        let mut b = 0;
        while b < 4000 {
            let len = 1 + next(8) as u32;
            space.alloc(0, len, Instant::ZERO);
            if next(5) != 0 {
                let owner = Owner::Data {
                    ino: next(9) as u32,
                    index: next(1 << 20),
                };
                space.fill(0, b, len, owner);
            }
            b += len;
        }
        let zone = &space.zones[0];
        assert!(zone.rev_len() > 500);
        let mut cursor = OwnerCursor::default();
        let mut b = 0u32;
        for step in 0..20_000 {
            b = match next(10) {
                0 => b.saturating_sub(next(50) as u32),
                1 => b + next(400) as u32,
                _ => b + next(3) as u32,
            } % 4100;
            if step % 1000 == 0 {
                cursor.resume();
            }
            let want = zone.owner_of(b).map(|o| o.0);
            assert_eq!(cursor.of(zone, b), want, "step {step}, block {b}");
        }
    }
}
