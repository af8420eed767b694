//! Read, write, trim and flush on the conventional SSD, and their timing. A write's data
//! crosses the host link, then each mapping unit joins the host stream (a unit only partly
//! written first reads its old data); a read takes each page from the die holding it, or from
//! the controller while its data is still staged or buffered, and crosses the host link back.

use super::device::Ftl;
use crate::device::{Accepted, Status};
use crate::time::Instant;

/// Where a run of a read's bytes comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    /// Nothing on NAND: never written, trimmed, or still in the controller.
    Controller,
    /// Page `page` of block `sb` on die `die`.
    Page { die: u32, sb: u32, page: u32 },
}

impl Ftl {
    pub(super) fn check_range(
        &self,
        slba: u64,
        nlb: u64,
        buf_len: Option<usize>,
    ) -> Result<(), Status> {
        let lba = self.geo.lba_bytes;
        if nlb == 0 || buf_len.is_some_and(|len| nlb.checked_mul(lba) != Some(len as u64)) {
            return Err(Status::InvalidField);
        }
        match slba.checked_add(nlb) {
            Some(end) if end <= self.spec.namespace_lbas() => Ok(()),
            _ => Err(Status::LbaOutOfRange),
        }
    }

    /// Bookkeeping at the end of a foreground command.
    fn done(&mut self, now: Instant, done: Instant, lba: u64) -> Accepted {
        self.busy_until = self.busy_until.max(done);
        let wait = self.nand.take_erase_wait();
        self.erase_wait.saturating_record(wait.ns());
        Accepted {
            done: Some(done),
            lba,
            start: now,
            erase_wait: wait,
        }
    }

    /// Read `nlb` LBAs from `slba`; with data retention `buf` receives them (zeros where
    /// nothing was written).
    pub fn read(
        &mut self,
        now: Instant,
        slba: u64,
        nlb: u64,
        buf: Option<&mut [u8]>,
    ) -> Result<Accepted, Status> {
        let now = self.enter(now);
        self.check_range(slba, nlb, buf.as_ref().map(|b| b.len()))?;
        if let (Some(store), Some(buf)) = (&self.data, buf) {
            store.read(slba * self.geo.lba_bytes, buf);
        }
        let t0 = self.nand.firmware(now, self.spec.overheads.read);
        let done = self.read_timing(t0, slba, nlb);
        self.counters.host_read_bytes += nlb * self.geo.lba_bytes;
        Ok(self.done(now, done, slba))
    }

    fn read_timing(&mut self, t0: Instant, slba: u64, nlb: u64) -> Instant {
        let (lpu, lba) = (self.geo.lbas_per_unit, self.geo.lba_bytes);
        let end = slba + nlb;
        let mut pos = slba;
        let mut done = t0;
        let mut run: Option<(Source, u64)> = None;
        while pos < end {
            let lpn = (pos / lpu) as u32;
            let take = ((lpn as u64 + 1) * lpu).min(end) - pos;
            let source = match self.map.get(lpn) {
                Some(slot) if !self.in_controller(slot, t0) => {
                    let sb = slot / self.geo.slots_per_sb;
                    let (die, page) = self.geo.page_of(slot % self.geo.slots_per_sb);
                    Source::Page { die, sb, page }
                }
                _ => Source::Controller,
            };
            run = match run {
                Some((s, bytes)) if s == source => Some((s, bytes + take * lba)),
                Some(r) => {
                    done = done.max(self.serve(t0, r));
                    Some((source, take * lba))
                }
                None => Some((source, take * lba)),
            };
            pos += take;
        }
        if let Some(r) = run {
            done = done.max(self.serve(t0, r));
        }
        done
    }

    /// Moves `bytes` from `source` to the host; returns when they have arrived.
    fn serve(&mut self, t0: Instant, (source, bytes): (Source, u64)) -> Instant {
        let ready = match source {
            Source::Controller => t0,
            Source::Page { die, sb, page } => self.nand_read(t0, die, sb, page, bytes),
        };
        self.nand.host_out(ready, bytes)
    }

    /// Write `nlb` LBAs at `slba`; with data retention `data` (exactly `nlb` LBAs) is kept.
    pub fn write(
        &mut self,
        now: Instant,
        slba: u64,
        nlb: u64,
        data: Option<&[u8]>,
    ) -> Result<Accepted, Status> {
        let now = self.enter(now);
        self.check_range(slba, nlb, data.map(<[u8]>::len))?;
        let (lpu, lba) = (self.geo.lbas_per_unit, self.geo.lba_bytes);
        let bytes = nlb * lba;
        let at = self.nand.firmware(now, self.spec.overheads.write);
        let arrived = self.nand.host_in(at, bytes);
        let (placed, copied, erased) = (
            self.ftl.host_units_placed,
            self.ftl.gc_copied_units,
            self.ftl.gc_erased_superblocks,
        );
        let end = slba + nlb;
        let mut done = arrived;
        let mut pos = slba;
        while pos < end {
            let lpn = (pos / lpu) as u32;
            let unit_start = lpn as u64 * lpu;
            let take = (unit_start + lpu).min(end) - pos;
            let mut ready = arrived;
            if take < lpu {
                ready = ready.max(self.read_for_merge(at, lpn, arrived));
            }
            done = done.max(self.place_host(now, lpn, ready));
            pos += take;
        }
        if let Some(store) = &mut self.data {
            match data {
                Some(d) => store.write(slba * lba, d),
                None => store.zero(slba * lba, bytes),
            }
        }
        self.counters.host_write_bytes += bytes;
        self.series.add(
            now,
            [
                self.ftl.host_units_placed - placed,
                self.ftl.gc_copied_units - copied,
                self.ftl.gc_erased_superblocks - erased,
            ],
        );
        Ok(self.done(now, done, slba))
    }

    /// A write covers only part of unit `lpn`: the rest of the unit is read first, from NAND
    /// unless it is still in the controller at `arrived`; the read starts when the firmware is
    /// done with the command (`t0`). Returns when the old data is in the controller.
    fn read_for_merge(&mut self, t0: Instant, lpn: u32, arrived: Instant) -> Instant {
        match self.map.get(lpn) {
            Some(slot) if !self.in_controller(slot, arrived) => {
                self.ftl.rmw_reads += 1;
                let sb = slot / self.geo.slots_per_sb;
                let (die, page) = self.geo.page_of(slot % self.geo.slots_per_sb);
                self.nand_read(t0, die, sb, page, self.geo.unit_bytes)
            }
            _ => t0,
        }
    }

    /// Deallocate: every mapping unit the range covers whole holds no data any more (its LBAs
    /// read as zeros); units it covers in part keep theirs.
    pub fn trim(&mut self, now: Instant, slba: u64, nlb: u64) -> Result<Accepted, Status> {
        let now = self.enter(now);
        self.check_range(slba, nlb, None)?;
        self.counters.trims += 1;
        let lpu = self.geo.lbas_per_unit;
        let first = slba.div_ceil(lpu);
        let last = (slba + nlb) / lpu;
        self.deallocate(first, last);
        if first < last
            && let Some(store) = &mut self.data
        {
            let lba = self.geo.lba_bytes;
            store.zero(first * lpu * lba, (last - first) * lpu * lba);
        }
        let done = self.nand.firmware(now, self.spec.overheads.write);
        Ok(self.done(now, done, slba))
    }

    /// Mapping units `first..last` hold no data any more.
    pub(super) fn deallocate(&mut self, first: u64, last: u64) {
        for lpn in first..last {
            let lpn = lpn as u32;
            if let Some(old) = self.map.get(lpn) {
                self.invalidate(old);
                self.map.clear(lpn);
            }
        }
    }

    /// Flush: completes once every program booked so far has ended. Staged partial units stay
    /// in the controller's power-loss-protected DRAM (chosen, as for the ZNS device).
    pub fn flush(&mut self, now: Instant) -> Result<Accepted, Status> {
        let now = self.enter(now);
        self.counters.flushes += 1;
        let done = self
            .nand
            .firmware(now, self.spec.overheads.write)
            .max(self.programs_done);
        Ok(self.done(now, done, 0))
    }
}
