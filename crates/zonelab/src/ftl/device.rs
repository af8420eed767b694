//! The conventional SSD's state, how units are placed into the host and GC streams, and its side
//! of the device seam.

use hdrhistogram::Histogram;

use super::map::Map;
use super::report::{FtlCounters, FtlSeries};
use super::store::BlockStore;
use super::victim::VictimPolicy;
use super::{FtlSpec, PreconditionReport};
use crate::device::{DeviceCounters, DeviceInfo};
use crate::metrics::series::Sampling;
use crate::nand::{Nand, UnitAddress};
use crate::time::Instant;

/// No superblock.
pub(super) const NONE: u32 = u32::MAX;
/// Free superblocks the host's stream leaves: one for GC's stream to copy into, so collecting
/// always makes progress, and the one the host opens.
pub(super) const RESERVED_FREE: usize = 2;

/// Sizes derived from the spec, in mapping units ("slots" on the physical side).
#[derive(Clone, Copy, Debug)]
pub(super) struct Geo {
    pub dies: u32,
    pub slots_per_pu: u32,
    pub slots_per_page: u32,
    pub pages_per_pu: u32,
    pub pus_per_sb: u32,
    /// Program units of one die's block (`pus_per_sb / dies`).
    pub pus_per_die: u32,
    /// A page's slots never straddle a word of the valid bitmap (pages start at multiples of
    /// `slots_per_page`, which divides 64): the mask of `slots_per_page` ones.
    pub page_mask: Option<u64>,
    /// Pages garbage collection looks ahead of the one it copies, to prefetch map entries.
    pub copy_ahead_pages: u32,
    pub slots_per_sb: u32,
    pub unit_bytes: u64,
    pub lbas_per_unit: u64,
    pub lba_bytes: u64,
}

impl Geo {
    fn of(spec: &FtlSpec) -> Self {
        let g = &spec.nand.geometry;
        let slots_per_page = (g.page_size_bytes / spec.mapping_unit_bytes) as u32;
        let slots_per_pu = slots_per_page * g.pages_per_program;
        let pus_per_sb = g.dies() * g.units_per_block();
        Geo {
            dies: g.dies(),
            slots_per_pu,
            slots_per_page,
            pages_per_pu: g.pages_per_program,
            pus_per_sb,
            pus_per_die: g.units_per_block(),
            page_mask: 64u32
                .is_multiple_of(slots_per_page)
                .then(|| u64::MAX >> (64 - slots_per_page)),
            copy_ahead_pages: (super::gc::COPY_AHEAD_UNITS / slots_per_page).max(1),
            slots_per_sb: pus_per_sb * slots_per_pu,
            unit_bytes: spec.mapping_unit_bytes,
            lbas_per_unit: spec.mapping_unit_bytes / spec.lba_size_bytes,
            lba_bytes: spec.lba_size_bytes,
        }
    }

    /// Program unit `j` of a superblock: its die and its index within that die's block.
    #[inline]
    pub fn pu(&self, j: u32) -> (u32, u32) {
        (j % self.dies, j / self.dies)
    }

    /// The first slot of page `p` of a superblock, pages counted program unit by program unit
    /// (the order garbage collection reads a victim in).
    #[inline]
    pub fn page_first_slot(&self, p: u32) -> u32 {
        let (j, page_in_pu) = if self.pages_per_pu == 1 {
            (p, 0)
        } else {
            (p / self.pages_per_pu, p % self.pages_per_pu)
        };
        j * self.slots_per_pu + page_in_pu * self.slots_per_page
    }

    /// Slot `off` of a superblock: its die and its page within that die's block.
    #[inline]
    pub fn page_of(&self, off: u32) -> (u32, u32) {
        let (die, pu_in_block) = self.pu(off / self.slots_per_pu);
        let page =
            pu_in_block * self.pages_per_pu + (off % self.slots_per_pu) / self.slots_per_page;
        (die, page)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) enum SbState {
    Free,
    /// A frontier: the host's or GC's stream writes into it.
    Open,
    Closed,
    /// The victim of the collection in progress.
    Collecting,
}

#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct Superblock {
    pub valid: u32,
    pub state: SbState,
    pub erases: u32,
    pub closed_at: Instant,
    /// Written by the host stream (not GC): its program units are in the write buffer ring.
    pub host: bool,
    /// The host stream's program unit count when it opened.
    pub stream_base: u64,
}

/// Where a stream writes next.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct Frontier {
    pub sb: u32,
    /// Slots handed out in it.
    pub next: u32,
    /// Program units programmed (or booked).
    pub programmed: u32,
    /// When the data of the program unit being filled is all in the controller.
    pub ready: Instant,
}

impl Frontier {
    pub const EMPTY: Frontier = Frontier {
        sb: NONE,
        next: 0,
        programmed: 0,
        ready: Instant::ZERO,
    };
}

pub struct Ftl {
    pub(super) spec: FtlSpec,
    pub(super) info: DeviceInfo,
    pub(super) nand: Nand,
    pub(super) geo: Geo,
    pub(super) map: Map,
    pub(super) sbs: Vec<Superblock>,
    pub(super) free: Vec<u32>,
    pub(super) host: Frontier,
    pub(super) gc: super::gc_stream::GcStream,
    /// Write buffer: per slot, when the program unit holding it leaves the buffer.
    pub(super) ring: Vec<Instant>,
    /// Program units the host stream has programmed so far.
    pub(super) host_stream: u64,
    pub(super) policy: Box<dyn VictimPolicy>,
    pub(super) counters: DeviceCounters,
    pub(super) ftl: FtlCounters,
    pub(super) series: FtlSeries,
    pub(super) data: Option<BlockStore>,
    /// When the last foreground command completes.
    pub(super) busy_until: Instant,
    /// When every program booked so far is done (what a Flush waits for).
    pub(super) programs_done: Instant,
    pub(super) last_now: Instant,
    /// False while preconditioning: NAND work is counted but takes no time.
    pub(super) timed: bool,
    pub(super) erase_wait: Histogram<u64>,
    pub(super) scratch: Vec<super::Candidate>,
    /// Collection's scratch: the units to move and when each was read.
    pub(super) precondition: Option<PreconditionReport>,
    /// The garbage collection in progress.
    pub(super) collection: super::gc::Collection,
}

impl Ftl {
    pub fn new(spec: &FtlSpec, retain_data: bool, sampling: Sampling) -> Self {
        let geo = Geo::of(spec);
        let n = spec.superblocks();
        let map = Map::new(spec.logical_units, spec.physical_units());
        let sbs = vec![
            Superblock {
                valid: 0,
                state: SbState::Free,
                erases: 0,
                closed_at: Instant::ZERO,
                host: false,
                stream_base: 0,
            };
            n as usize
        ];
        let nand = Nand::from_spec(&spec.nand);
        let mut ftl = Ftl {
            info: spec.info(),
            geo,
            map,
            sbs,
            free: (0..n).rev().collect(),
            host: Frontier::EMPTY,
            gc: super::gc_stream::GcStream::new(geo.dies),
            ring: vec![Instant::ZERO; spec.write_buffer_units as usize],
            host_stream: 0,
            policy: spec.victim.build(),
            counters: DeviceCounters::default(),
            ftl: FtlCounters::default(),
            series: FtlSeries::new(Instant::ZERO, sampling),
            data: retain_data.then(|| BlockStore::new(spec.namespace_lbas() * spec.lba_size_bytes)),
            busy_until: Instant::ZERO,
            programs_done: Instant::ZERO,
            last_now: Instant::ZERO,
            timed: true,
            erase_wait: crate::metrics::latency_histogram(),
            scratch: Vec::new(),
            precondition: None,
            collection: super::gc::Collection::IDLE,
            nand,
            spec: spec.clone(),
        };
        // A worn device (aging's initial wear) starts with its superblocks' erase counts.
        let bpd = spec.nand.geometry.blocks_per_die as usize;
        let counts = ftl.nand.erase_counts();
        for (b, sb) in ftl.sbs.iter_mut().enumerate() {
            sb.erases = (0..geo.dies as usize)
                .map(|d| counts[d * bpd + b])
                .max()
                .unwrap_or(0);
        }
        ftl
    }

    pub fn spec(&self) -> &FtlSpec {
        &self.spec
    }

    pub fn free_superblocks(&self) -> u32 {
        self.free.len() as u32
    }

    /// Takes a submission time: never earlier than the last one, and the NAND's horizon.
    #[inline]
    pub(super) fn enter(&mut self, now: Instant) -> Instant {
        debug_assert!(
            now >= self.last_now,
            "time went backwards: {now:?} < {:?}",
            self.last_now
        );
        let now = now.max(self.last_now);
        self.last_now = now;
        self.nand.set_now(now);
        now
    }

    // NAND work: booked on the timelines, or only counted while preconditioning.

    #[inline]
    pub(super) fn nand_read(
        &mut self,
        ready: Instant,
        die: u32,
        block: u32,
        page: u32,
        bytes: u64,
    ) -> Instant {
        if self.timed {
            self.nand
                .read_page_at(ready, UnitAddress { die, block }, page, bytes)
        } else {
            self.nand.counters.page_reads += 1;
            ready
        }
    }

    #[inline]
    pub(super) fn nand_program(
        &mut self,
        ready: Instant,
        die: u32,
        block: u32,
        pu_in_block: u32,
    ) -> Instant {
        if self.timed {
            let done = self
                .nand
                .program_unit_at(ready, UnitAddress { die, block }, pu_in_block);
            self.programs_done = self.programs_done.max(done);
            done
        } else {
            self.nand.count_programs(1);
            ready
        }
    }

    pub(super) fn nand_erase(&mut self, ready: Instant, die: u32, block: u32) -> Instant {
        if self.timed {
            self.nand.erase_block(ready, UnitAddress { die, block })
        } else {
            self.nand.count_erase(UnitAddress { die, block });
            ready
        }
    }

    /// The slot `slot` holds data still in the controller at `at`: staged in a stream's
    /// unfilled program unit, or in the write buffer until its program ends.
    #[inline]
    pub(super) fn in_controller(&self, slot: u32, at: Instant) -> bool {
        let sb = slot / self.geo.slots_per_sb;
        let j = slot % self.geo.slots_per_sb / self.geo.slots_per_pu;
        if (sb == self.host.sb && j >= self.host.programmed) || self.staged_in_gc(slot) {
            return true;
        }
        let b = self.ring.len() as u64;
        let s = &self.sbs[sb as usize];
        if b > 0 && s.host {
            let idx = s.stream_base + j as u64;
            return idx + b >= self.host_stream && self.ring[(idx % b) as usize] > at;
        }
        false
    }

    /// `slot` is staged in the host stream's unfilled program unit (a write there updates it in
    /// place in the controller).
    #[inline]
    fn staged_in_host(&self, slot: u32) -> bool {
        slot / self.geo.slots_per_sb == self.host.sb
            && slot % self.geo.slots_per_sb / self.geo.slots_per_pu >= self.host.programmed
    }

    #[inline]
    pub(super) fn invalidate(&mut self, slot: u32) {
        let s = &mut self.sbs[(slot / self.geo.slots_per_sb) as usize];
        debug_assert!(
            s.valid > 0,
            "invalidating a slot of a superblock with no valid data"
        );
        s.valid -= 1;
        self.map.invalidate(slot);
    }

    /// With a write buffer, data staged for the host stream's next program unit needs that
    /// unit's buffer slot: it is held until then.
    #[inline]
    fn staged_done(&self, ready: Instant) -> Instant {
        let b = self.ring.len() as u64;
        if b == 0 || !self.timed {
            return ready;
        }
        let idx = self.host_stream;
        ready.max(self.ring[(idx % b) as usize])
    }

    /// Puts logical unit `lpn`, whose data is in the controller at `ready`, into the host stream.
    /// Returns when the host may consider it written.
    pub(super) fn place_host(&mut self, now: Instant, lpn: u32, ready: Instant) -> Instant {
        self.ftl.host_units += 1;
        if self.host.sb == NONE {
            // Garbage collection may run first and move `lpn`: look it up after.
            self.open_host(now);
        }
        if let Some(old) = self.map.get(lpn) {
            if self.staged_in_host(old) {
                // Still in the controller: overwritten there.
                self.host.ready = self.host.ready.max(ready);
                return self.staged_done(ready);
            }
            self.invalidate(old);
        }
        let sb = self.host.sb;
        let slot = sb * self.geo.slots_per_sb + self.host.next;
        self.map.set(lpn, slot);
        self.sbs[sb as usize].valid += 1;
        self.host.next += 1;
        self.host.ready = self.host.ready.max(ready);
        self.ftl.host_units_placed += 1;
        let done = if self.host.next.is_multiple_of(self.geo.slots_per_pu) {
            self.program_host_unit()
        } else {
            self.staged_done(ready)
        };
        if self.host.next == self.geo.slots_per_sb {
            self.close(sb, now);
            self.host = Frontier::EMPTY;
        }
        self.pace(now);
        done
    }

    /// Programs the host stream's filled program unit; returns when its data is accepted (in the
    /// write buffer) or, without one, programmed.
    fn program_host_unit(&mut self) -> Instant {
        let j = self.host.programmed;
        let sb = self.host.sb;
        let (die, in_block) = self.geo.pu(j);
        let b = self.ring.len() as u64;
        let idx = self.sbs[sb as usize].stream_base + j as u64;
        let ready = self.host.ready;
        let accepted = if b > 0 && self.timed {
            ready.max(self.ring[(idx % b) as usize])
        } else {
            ready
        };
        let programmed = self.nand_program(accepted, die, sb, in_block);
        self.host.programmed += 1;
        self.host.ready = Instant::ZERO;
        self.host_stream += 1;
        if b > 0 && self.timed {
            self.ring[(idx % b) as usize] = programmed;
            accepted
        } else {
            programmed
        }
    }

    /// A new host superblock. The host may not take the last free superblock (GC's stream
    /// needs one to make progress): if pacing left fewer, collection finishes at once first.
    fn open_host(&mut self, now: Instant) {
        let mut rounds = 0;
        while self.free.len() < RESERVED_FREE {
            assert!(
                self.collect_now(now, super::gc::Trigger::Foreground),
                "garbage collection found nothing to collect with {} free superblocks",
                self.free.len()
            );
            self.ftl.gc_stalls += 1;
            rounds += 1;
            assert!(
                rounds <= self.sbs.len(),
                "garbage collection makes no progress"
            );
        }
        let sb = self.take_free();
        self.open(sb, true);
        self.host = Frontier {
            sb,
            ..Frontier::EMPTY
        };
    }

    /// The free superblock erased least (dynamic wear levelling); ties to the lowest index.
    pub(super) fn take_free(&mut self) -> u32 {
        let (i, _) = self
            .free
            .iter()
            .enumerate()
            .min_by_key(|&(_, &sb)| (self.sbs[sb as usize].erases, sb))
            .expect("a free superblock (over-provisioning is checked by config)");
        let sb = self.free.swap_remove(i);
        if self.timed {
            self.series.free(self.last_now, self.free.len() as u32);
        }
        sb
    }

    pub(super) fn open(&mut self, sb: u32, host: bool) {
        let s = &mut self.sbs[sb as usize];
        debug_assert!(s.state == SbState::Free && s.valid == 0);
        s.state = SbState::Open;
        s.host = host;
        s.stream_base = self.host_stream;
    }

    pub(super) fn close(&mut self, sb: u32, now: Instant) {
        let s = &mut self.sbs[sb as usize];
        s.state = SbState::Closed;
        s.closed_at = now;
    }

    /// Checks every invariant of the map, the superblocks and the free list; panics with the
    /// broken one. A whole-device scan: tests and debug builds.
    pub fn check_invariants(&self) {
        self.nand.check_invariants();
        if let Err(e) = self.check() {
            panic!("{e}");
        }
    }

    /// The invariants of the map, the superblocks, the free list and the streams: the first
    /// broken one. What a restored state must hold (`persist`) before any code indexes by it.
    pub(super) fn check(&self) -> Result<(), String> {
        let n = self.sbs.len() as u32;
        let in_sb = |sb: u32| sb == NONE || sb < n;
        if !in_sb(self.host.sb) || !in_sb(self.gc.sb) || !in_sb(self.collection.victim) {
            return Err("a stream or the collection names a superblock out of range".into());
        }
        self.check_streams()?;
        let mut valid = vec![0u32; self.sbs.len()];
        for lpn in 0..self.map.logical_units() as u32 {
            if let Some(slot) = self.map.get(lpn) {
                if self.map.owner(slot) != Some(lpn) {
                    return Err(format!("unit {lpn}: reverse map"));
                }
                let sb = slot / self.geo.slots_per_sb;
                if self.sbs[sb as usize].state == SbState::Free {
                    return Err(format!("unit {lpn} maps into free superblock {sb}"));
                }
                let off = slot % self.geo.slots_per_sb;
                if sb == self.host.sb && off >= self.host.next {
                    return Err(format!("unit {lpn} beyond its frontier"));
                }
                if sb == self.gc.sb && !self.gc_slot_handed_out(slot) {
                    return Err(format!("unit {lpn} beyond its GC die's fill"));
                }
                valid[sb as usize] += 1;
            }
        }
        for (i, s) in self.sbs.iter().enumerate() {
            if s.valid != valid[i] {
                return Err(format!(
                    "superblock {i}: valid count {} for {} units mapped into it",
                    s.valid, valid[i]
                ));
            }
        }
        if let Some(slot) =
            (0..self.spec.physical_units() as u32).find(|&slot| !self.map.consistent(slot))
        {
            return Err(format!("slot {slot}: valid bit"));
        }
        self.check_free()
    }

    /// The free list: no duplicates, in range, exactly the free superblocks; the collection's
    /// victim is the one superblock being collected.
    fn check_free(&self) -> Result<(), String> {
        let mut free = self.free.clone();
        free.sort_unstable();
        free.dedup();
        if free.len() != self.free.len() {
            return Err("free list has duplicates".into());
        }
        if free.last().is_some_and(|&sb| sb as usize >= self.sbs.len()) {
            return Err("free list names a superblock out of range".into());
        }
        if free
            .iter()
            .any(|&sb| self.sbs[sb as usize].state != SbState::Free)
        {
            return Err("free list names a superblock in use".into());
        }
        let collecting: Vec<usize> = (0..self.sbs.len())
            .filter(|&i| self.sbs[i].state == SbState::Collecting)
            .collect();
        let victim = self.collection.victim;
        if victim == NONE && !collecting.is_empty() {
            return Err("a victim with no collection".into());
        }
        if victim != NONE && collecting != [victim as usize] {
            return Err("the collection's victim".into());
        }
        let states_free = self.sbs.iter().filter(|s| s.state == SbState::Free).count();
        if states_free != self.free.len() {
            return Err("free list matches states".into());
        }
        Ok(())
    }

    /// The host and GC streams' superblocks are open and their fills within them.
    fn check_streams(&self) -> Result<(), String> {
        let f = &self.host;
        if f.sb != NONE
            && (self.sbs[f.sb as usize].state != SbState::Open
                || f.programmed * self.geo.slots_per_pu > f.next
                || f.next >= self.geo.slots_per_sb)
        {
            return Err("the host frontier's superblock and fill".into());
        }
        if self.gc.dies.len() != self.geo.dies as usize {
            return Err("the GC stream's dies".into());
        }
        if self.gc.sb != NONE {
            let upb = self.geo.pus_per_die;
            if self.sbs[self.gc.sb as usize].state != SbState::Open
                || !self
                    .gc
                    .dies
                    .iter()
                    .all(|d| d.units <= upb && d.slots < self.geo.slots_per_pu)
            {
                return Err("GC die fills within the block".into());
            }
        }
        Ok(())
    }
}
