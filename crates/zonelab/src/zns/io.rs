//! Reads, writes, appends and flushes: the checks the ZNS command set makes, in QEMU's order,
//! and the NAND timing of each. A write's data crosses the host link, is staged in the
//! controller and programmed a unit at a time; a read takes each page from the die holding it
//! (or from the controller if it is still staged or buffered) and crosses the host link back.

use super::device::Device;
use crate::device::{Accepted, Status, ZoneState};
use crate::time::{Duration, Instant};

impl Device {
    /// Read `nlb` LBAs from `slba`. With data retention, `buf` (exactly `nlb` LBAs) receives the
    /// data; LBAs never written read as zeros.
    pub fn read(
        &mut self,
        now: Instant,
        slba: u64,
        nlb: u64,
        buf: Option<&mut [u8]>,
    ) -> Result<Accepted, Status> {
        let now = self.enter(now);
        self.check_range(slba, nlb, buf.as_ref().map(|b| b.len()))?;
        let zi = self.zone_div.quot(slba) as u32;
        if self.zones[zi as usize].state == ZoneState::Offline {
            return Err(Status::ZoneIsOffline);
        }
        let offset = slba - zi as u64 * self.zone_lbas;
        if offset + nlb > self.zone_lbas {
            return Err(Status::ZoneBoundaryError);
        }
        self.sequence += 1;
        if let (Some(store), Some(buf)) = (&self.data, buf) {
            store.read(zi, (offset * self.lba_bytes) as usize, buf);
        }
        let start = self.foreground_start(now);
        let done = {
            let at = self.nand.firmware(start, self.spec.overheads.read);
            self.read_timing(at, zi, offset, nlb)
        };
        self.counters.host_read_bytes += nlb * self.lba_bytes;
        Ok(self.foreground_done(now, start, done, slba))
    }

    /// Write `nlb` LBAs at `slba`, which must be the zone's write pointer. With data retention,
    /// `data` (exactly `nlb` LBAs) is kept; without it the LBAs are stored as zeros.
    pub fn write(
        &mut self,
        now: Instant,
        slba: u64,
        nlb: u64,
        data: Option<&[u8]>,
    ) -> Result<Accepted, Status> {
        let now = self.enter(now);
        self.check_range(slba, nlb, data.map(<[u8]>::len))?;
        let zi = self.zone_div.quot(slba) as u32;
        Self::check_writable(self.zones[zi as usize].state)?;
        let z = &self.zones[zi as usize];
        let offset = slba - zi as u64 * self.zone_lbas;
        if offset != z.wp {
            return Err(Status::ZoneInvalidWrite);
        }
        if offset + nlb > self.cap_lbas {
            return Err(Status::ZoneBoundaryError);
        }
        self.write_at_wp(now, zi, nlb, data, slba, self.spec.overheads.write)
    }

    /// Zone Append to the zone starting at `zslba`; [`Accepted::lba`] is the LBA written.
    pub fn append(
        &mut self,
        now: Instant,
        zslba: u64,
        nlb: u64,
        data: Option<&[u8]>,
    ) -> Result<Accepted, Status> {
        let now = self.enter(now);
        self.check_range(zslba, nlb, data.map(<[u8]>::len))?;
        if !zslba.is_multiple_of(self.zone_lbas) {
            return Err(Status::InvalidField);
        }
        if let Some(zasl) = self.spec.zones.zone_append_size_limit_bytes
            && nlb > zasl / self.lba_bytes
        {
            return Err(Status::InvalidField);
        }
        let zi = (zslba / self.zone_lbas) as u32;
        Self::check_writable(self.zones[zi as usize].state)?;
        let wp = self.zones[zi as usize].wp;
        if wp + nlb > self.cap_lbas {
            return Err(Status::ZoneBoundaryError);
        }
        self.write_at_wp(now, zi, nlb, data, zslba + wp, self.spec.overheads.append)
    }

    /// Flush: completes once every program booked so far has finished. Staged partial units stay
    /// in the controller, whose buffer is power-loss protected (as on ZN540-class drives).
    pub fn flush(&mut self, now: Instant) -> Result<Accepted, Status> {
        let now = self.enter(now);
        self.counters.flushes += 1;
        let start = self.foreground_start(now);
        let done = start.max(self.programs_done);
        self.busy_until = self.busy_until.max(done);
        Ok(Accepted {
            done: Some(done),
            lba: 0,
            start,
            erase_wait: start - now,
        })
    }

    /// Deallocate: a zoned namespace keeps its data until the zone is reset, so this only
    /// costs the command's overhead.
    pub fn trim(&mut self, now: Instant, slba: u64, nlb: u64) -> Result<Accepted, Status> {
        let now = self.enter(now);
        self.check_range(slba, nlb, None)?;
        self.counters.trims += 1;
        let start = self.foreground_start(now);
        let done = self.nand.firmware(start, self.spec.overheads.zone_mgmt);
        self.busy_until = self.busy_until.max(done);
        Ok(Accepted {
            done: Some(done),
            lba: slba,
            start,
            erase_wait: start - now,
        })
    }

    pub(super) fn check_range(
        &self,
        slba: u64,
        nlb: u64,
        buf_len: Option<usize>,
    ) -> Result<(), Status> {
        if nlb == 0
            || buf_len.is_some_and(|len| nlb.checked_mul(self.lba_bytes) != Some(len as u64))
        {
            return Err(Status::InvalidField);
        }
        match slba.checked_add(nlb) {
            Some(end) if end <= self.namespace_lbas() => Ok(()),
            _ => Err(Status::LbaOutOfRange),
        }
    }

    fn check_writable(state: ZoneState) -> Result<(), Status> {
        match state {
            ZoneState::Full => Err(Status::ZoneIsFull),
            ZoneState::ReadOnly => Err(Status::ZoneIsReadOnly),
            ZoneState::Offline => Err(Status::ZoneIsOffline),
            _ => Ok(()),
        }
    }

    fn write_at_wp(
        &mut self,
        now: Instant,
        zi: u32,
        nlb: u64,
        data: Option<&[u8]>,
        lba: u64,
        overhead: Duration,
    ) -> Result<Accepted, Status> {
        // An open zone (implicitly or explicitly) stays as it is.
        if !self.zones[zi as usize].state.is_open() {
            self.acquire_open(zi)?;
            self.set_state(zi, ZoneState::ImplicitlyOpened);
        }
        self.sequence += 1;
        let bytes = nlb * self.lba_bytes;
        let position = self.zones[zi as usize].data_lbas * self.lba_bytes;
        // (Staging first: it needs no new piece, and the host transfer below does not see it.)
        let staged = self.stage_only(zi, position, bytes);
        if !staged
            && self.zones[zi as usize]
                .pieces
                .last()
                .is_none_or(|p| p.lstart + p.cap <= position)
        {
            self.allocate(now, zi, position);
        }
        let start = self.foreground_start(now);
        let at = self.nand.firmware(start, overhead);
        let arrived = self.nand.host_in(at, bytes);
        let done = if staged {
            arrived
        } else {
            self.write_pieces(now, zi, position, bytes, arrived)
        };
        if self.cache.is_some() && (self.zones[zi as usize].wp + nlb) == self.cap_lbas {
            // A zone filled with a partial unit left programs it padded (as Finish does), so
            // a Full zone holds no slot of the shared cache.
            self.pad_staged(zi, arrived);
        }
        if let Some(store) = &mut self.data {
            store.append(zi, bytes as usize, data);
        }
        let z = &mut self.zones[zi as usize];
        if z.data_lbas == 0 {
            self.occupancy_epoch += 1;
        }
        z.wp += nlb;
        z.data_lbas = z.wp;
        z.last_use = self.sequence;
        z.last_write = now;
        assert!(z.wp <= self.cap_lbas, "write pointer past zone capacity");
        if z.wp == self.cap_lbas {
            self.set_state(zi, ZoneState::Full);
        }
        self.counters.host_write_bytes += bytes;
        Ok(self.foreground_done(now, start, done, lba))
    }

    fn read_timing(&mut self, start: Instant, zi: u32, offset: u64, nlb: u64) -> Instant {
        debug_assert!(nlb > 0, "an empty read is refused before its timing");
        let pos = offset * self.lba_bytes;
        let end = pos + nlb * self.lba_bytes;
        // Most reads are one chunk (within one page of one piece). The loop over the others is
        // out of line, so the first chunk's code keeps none of the loop's state around the
        // transfers it books (measured: BENCHMARKS.md, "What the hot path does").
        let mut piece_index = 0;
        let (arrived, next) = self.read_chunk(start, zi, &mut piece_index, pos, end);
        let done = start.max(arrived);
        if next < end {
            self.read_rest(start, zi, piece_index, next, end, done)
        } else {
            done
        }
    }

    /// The chunks of a read after its first: see [`Device::read_timing`].
    #[inline(never)]
    fn read_rest(
        &mut self,
        start: Instant,
        zi: u32,
        mut piece_index: usize,
        mut pos: u64,
        end: u64,
        mut done: Instant,
    ) -> Instant {
        while pos < end {
            let (arrived, next) = self.read_chunk(start, zi, &mut piece_index, pos, end);
            done = done.max(arrived);
            pos = next;
        }
        done
    }

    /// Reads the bytes from `pos` to the end of its page, of its piece (piece `piece_index` or
    /// one after it, which it then names) or of the read (`end`), whichever comes first, and
    /// moves them to the host. Past the zone's data the rest of the read is zeros from the
    /// controller, moved at once. Returns when the bytes have arrived, and where the next chunk
    /// starts.
    #[inline(always)]
    fn read_chunk(
        &mut self,
        start: Instant,
        zi: u32,
        piece_index: &mut usize,
        pos: u64,
        end: u64,
    ) -> (Instant, u64) {
        let z = &self.zones[zi as usize];
        // Past the data nothing is on NAND: only the host transfer, of zeros.
        if pos >= z.data_lbas * self.lba_bytes {
            return (self.nand.host_out(start, end - pos), end);
        }
        let pieces = &z.pieces;
        while pos >= pieces[*piece_index].lstart + pieces[*piece_index].data {
            *piece_index += 1;
        }
        let piece = &pieces[*piece_index];
        let within = pos - piece.lstart;
        let phys = piece.punit * self.layout.unit_bytes + within;
        let chunk = (self.layout.page_bytes - self.layout.page_div.rest(phys))
            .min(end - pos)
            .min(piece.lstart + piece.data - pos);
        let j = self.layout.unit_div.quot(within);
        let stream_j = piece.stream_base + j;
        let b = self.buffer_units;
        let in_controller = j >= piece.programmed_units
            || (b > 0
                && stream_j + b >= z.units_streamed
                && self.buffer_release[(zi as u64 * b + stream_j % b) as usize] > start)
            || self
                .cache
                .as_ref()
                .is_some_and(|c| c.holds_unit(zi, stream_j, start));
        let ready = if in_controller {
            start
        } else {
            let u = piece.punit + j;
            let page = self.layout.unit_in_block(u) * self.layout.pages_per_unit
                + self.layout.page_div.quot(self.layout.unit_div.rest(phys)) as u32;
            let addr = self.layout.unit(piece.pz, u);
            self.nand.read_page_at(start, addr, page, chunk)
        };
        (self.nand.host_out(ready, chunk), pos + chunk)
    }
}
