//! Where garbage collection writes what it copies: the GC superblock, filled die by die. A unit
//! copied from a page on die `d` is written to die `d`'s block of the GC superblock (a
//! same-die move, as FTLs that use copyback or plane-local moves do; MQSim's
//! `Use_Copyback_for_GC`), so a copy's program waits only for its own die's read. Striping
//! copies over every die in turn instead made each program wait for a read on another die,
//! and each read behind a program on its own: the dies then worked one after another along
//! that chain (a block SSD at 7% over-provisioning wrote 27 MiB/s at steady state with 22% of
//! its die time used).
//!
//! Each die fills its block of the GC superblock unit by unit; a die whose block is full sends
//! its copies to the next die with room, and the superblock closes once no die has room.

use super::device::{Ftl, NONE};
use crate::time::Instant;

/// One die's part of the GC superblock.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct DieFill {
    /// Program units of its block written (or booked).
    pub units: u32,
    /// Slots of the next unit filled so far.
    pub slots: u32,
    /// When the data of the unit being filled is all in the controller.
    pub ready: Instant,
}

/// The GC stream's superblock and each die's fill of it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct GcStream {
    pub sb: u32,
    pub dies: Vec<DieFill>,
    /// Dies whose block of the superblock is full (it closes when all are).
    pub full_dies: u32,
}

impl GcStream {
    pub fn new(dies: u32) -> Self {
        GcStream {
            sb: NONE,
            dies: vec![DieFill::default(); dies as usize],
            full_dies: 0,
        }
    }
}

impl Ftl {
    /// Puts valid unit `lpn`, read from die `die` into the controller at `ready`, into the GC
    /// stream.
    pub(super) fn place_gc(&mut self, now: Instant, lpn: u32, ready: Instant, die: u32) {
        // The fields it needs, not a copy of the whole geometry (this runs for every copy).
        let (dies, upb) = (self.geo.dies, self.geo.pus_per_die);
        let (slots_per_pu, slots_per_sb) = (self.geo.slots_per_pu, self.geo.slots_per_sb);
        if self.gc.sb == NONE {
            let sb = self.take_free();
            self.open(sb, false);
            self.gc.sb = sb;
            self.gc.dies.fill(DieFill::default());
            self.gc.full_dies = 0;
        }
        // Its own die, or the next with room (an open GC superblock has room on some die).
        let mut d = die;
        while self.gc.dies[d as usize].units == upb {
            d = if d + 1 == dies { 0 } else { d + 1 };
            debug_assert_ne!(d, die, "an open GC superblock has room on some die");
        }
        let sb = self.gc.sb;
        let f = self.gc.dies[d as usize];
        let j = f.units * dies + d;
        let slot = sb * slots_per_sb + j * slots_per_pu + f.slots;
        self.map.set(lpn, slot);
        self.sbs[sb as usize].valid += 1;
        let f = &mut self.gc.dies[d as usize];
        f.slots += 1;
        f.ready = f.ready.max(ready);
        if f.slots == slots_per_pu {
            let (units, r) = (f.units, f.ready);
            *f = DieFill {
                units: units + 1,
                slots: 0,
                ready: Instant::ZERO,
            };
            self.nand_program(r, d, sb, units);
            if units + 1 == upb {
                self.gc.full_dies += 1;
            }
        }
        debug_assert_eq!(
            self.gc.full_dies as usize,
            self.gc.dies.iter().filter(|f| f.units == upb).count()
        );
        if self.gc.full_dies == dies {
            self.close(sb, now);
            self.gc.sb = NONE;
        }
    }

    /// Slot `slot` of the GC superblock holds data not yet programmed (in the controller).
    #[inline]
    pub(super) fn staged_in_gc(&self, slot: u32) -> bool {
        let g = self.geo;
        if slot / g.slots_per_sb != self.gc.sb {
            return false;
        }
        let j = slot % g.slots_per_sb / g.slots_per_pu;
        let (die, unit) = g.pu(j);
        unit >= self.gc.dies[die as usize].units
    }

    /// The slots of the GC superblock handed out so far, die by die, end before `slot`
    /// (tests: no unit maps beyond its die's fill).
    pub(super) fn gc_slot_handed_out(&self, slot: u32) -> bool {
        let g = self.geo;
        let j = slot % g.slots_per_sb / g.slots_per_pu;
        let (die, unit) = g.pu(j);
        let f = &self.gc.dies[die as usize];
        unit < f.units || (unit == f.units && slot % g.slots_per_pu < f.slots)
    }
}
