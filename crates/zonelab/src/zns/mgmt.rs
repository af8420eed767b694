//! Zone Management Send: open, close, finish, reset and offline, on one zone or with Select All,
//! and the firmware's part in a reset (erase now, or unlink and erase later).

use smallvec::smallvec;

use super::device::Device;
use super::pieces::Piece;
use crate::device::{Accepted, Status, ZoneAction, ZoneState};
use crate::firmware::{EraseScope, PieceRef, ResetDecision, ResetView};
use crate::time::Instant;

impl Device {
    /// Zone Management Send. `slba` names the zone (it must be a zone start) unless `select_all`.
    pub fn zone_mgmt_send(
        &mut self,
        now: Instant,
        slba: u64,
        action: ZoneAction,
        select_all: bool,
    ) -> Result<Accepted, Status> {
        let now = self.enter(now);
        let start = self.foreground_start(now);
        let overhead = match action {
            ZoneAction::Reset => self.spec.overheads.reset,
            _ => self.spec.overheads.zone_mgmt,
        };
        let at = self.nand.firmware(start, overhead);
        let done = if select_all {
            let mut done = at;
            for zi in 0..self.spec.zones.zone_count {
                if action.select_all_applies(self.zones[zi as usize].state) {
                    done = done.max(self.apply(at, zi, action)?);
                }
            }
            done
        } else {
            if slba >= self.namespace_lbas() {
                return Err(Status::LbaOutOfRange);
            }
            if !slba.is_multiple_of(self.zone_lbas) {
                return Err(Status::InvalidField);
            }
            self.apply(at, (slba / self.zone_lbas) as u32, action)?
        };
        self.busy_until = self.busy_until.max(done);
        Ok(Accepted {
            done: Some(done),
            lba: slba,
            start,
            erase_wait: start - now,
        })
    }

    fn apply(&mut self, now: Instant, zi: u32, action: ZoneAction) -> Result<Instant, Status> {
        use ZoneState::*;
        let state = self.zones[zi as usize].state;
        self.sequence += 1;
        match (action, state) {
            (ZoneAction::Open, ExplicitlyOpened) => Ok(now),
            (ZoneAction::Open, Empty | Closed | ImplicitlyOpened) => {
                self.acquire_open(zi)?;
                self.set_state(zi, ExplicitlyOpened);
                let z = &mut self.zones[zi as usize];
                z.last_use = self.sequence;
                z.last_write = now;
                if state == Empty && z.pieces.is_empty() && self.firmware.allocates_on_open() {
                    self.allocate(now, zi, 0);
                }
                Ok(now)
            }
            (ZoneAction::Close, Closed) => Ok(now),
            (ZoneAction::Close, ImplicitlyOpened | ExplicitlyOpened) => {
                self.set_state(zi, Closed);
                Ok(now)
            }
            (ZoneAction::Finish, Full) => Ok(now),
            (ZoneAction::Finish, Empty | ImplicitlyOpened | ExplicitlyOpened | Closed) => {
                Ok(self.finish(now, zi))
            }
            (ZoneAction::Reset, Empty) => {
                self.counters.zone_resets_requested += 1;
                Ok(now)
            }
            (ZoneAction::Reset, ImplicitlyOpened | ExplicitlyOpened | Closed | Full) => {
                Ok(self.reset(now, zi))
            }
            (ZoneAction::Offline, Offline) => Ok(now),
            (ZoneAction::Offline, ReadOnly) => {
                self.set_state(zi, Offline);
                Ok(now)
            }
            _ => Err(Status::InvalidZoneStateTransition),
        }
    }

    /// Programs the staged partial unit of zone `zi`'s last piece, padded; the piece takes no
    /// more writes afterwards (a Finish).
    pub(super) fn flush_and_close(&mut self, now: Instant, zi: u32) -> Instant {
        let unit = self.layout.unit_bytes;
        let Some(piece) = self.zones[zi as usize].pieces.last() else {
            return now;
        };
        let staged = piece.staged_bytes;
        let done = if staged > 0 {
            self.program_last_piece(zi, unit - staged, now)
        } else {
            now
        };
        let piece = self.zones[zi as usize]
            .pieces
            .last_mut()
            .expect("the piece just programmed");
        piece.cap = piece.data;
        done
    }

    /// Gives back the units zone `zi`'s last piece reserved beyond the unit its data reaches,
    /// without padding anything: a partial unit stays staged in the controller and the piece
    /// keeps that unit, so the zone's later writes fill it instead of starting a new unit. (A
    /// padded unit would cost the zone a unit of physical space its capacity never counted;
    /// enough of them and live data no longer fits the device: issue 36, defect 1.)
    pub(super) fn release_unused(&mut self, zi: u32) {
        let unit = self.layout.unit_bytes;
        let Some(piece) = self.zones[zi as usize].pieces.last_mut() else {
            return;
        };
        piece.reserved_units = piece.programmed_units + (piece.staged_bytes > 0) as u64;
        piece.cap = piece.cap.min(piece.reserved_units * unit);
    }

    /// Programs the staged partial unit of zone `zi`'s last piece padded, its bytes having
    /// arrived at `arrived`; the piece keeps its space.
    pub(super) fn pad_staged(&mut self, zi: u32, arrived: Instant) {
        let unit = self.layout.unit_bytes;
        if let Some(staged) = self.zones[zi as usize]
            .pieces
            .last()
            .map(|p| p.staged_bytes)
            .filter(|&s| s > 0)
        {
            self.program_last_piece(zi, unit - staged, arrived);
        }
    }

    /// Finish: the staged partial unit is programmed (padded) and the zone becomes Full. A
    /// device that pads finished zones (`finish_pads_zone`, as the ZN540 does) first programs
    /// the rest of the zone's space with filler, so the finish takes as long as writing it.
    fn finish(&mut self, now: Instant, zi: u32) -> Instant {
        let mut done = now;
        if self.spec.finish_pads_zone
            && let Some(p) = self.zones[zi as usize].pieces.last()
        {
            let stored = p.programmed_units * self.layout.unit_bytes + p.staged_bytes;
            let filler = p.cap.saturating_sub(stored);
            if filler > 0 {
                self.counters.finish_padding_bytes += filler;
                done = self.program_last_piece(zi, filler, now);
            }
        }
        let done = done.max(self.flush_and_close(now, zi));
        self.set_state(zi, ZoneState::Full);
        self.zones[zi as usize].wp = self.cap_lbas;
        self.counters.zone_finishes += 1;
        done
    }

    fn reset(&mut self, now: Instant, zi: u32) -> Instant {
        let mut done = now;
        let last = self.zones[zi as usize]
            .pieces
            .last()
            .map(|p| (p.pz, p.frontier_unit()));
        if let Some((last_pz, frontier_unit)) = last {
            let refs: Vec<PieceRef> = self.zones[zi as usize]
                .pieces
                .iter()
                .map(Piece::as_ref)
                .collect();
            let view = ResetView {
                physical_zone: last_pz,
                programmed_units: frontier_unit,
                pieces: &refs,
            };
            match self.firmware.on_host_reset(now, &view) {
                ResetDecision::EraseNow(scope) => {
                    let units = match scope {
                        EraseScope::ProgrammedBlocks => frontier_unit,
                        EraseScope::AllBlocks => u64::MAX,
                    };
                    let layout = self.layout;
                    let mut erased = false;
                    for addr in layout.blocks_holding(last_pz, units) {
                        done = done.max(self.nand.erase_block(now, addr));
                        erased = true;
                    }
                    self.counters.zone_resets_executed += erased as u64;
                    self.phys_high[last_pz as usize] = 0;
                    // The logical zone keeps its physical zone, now erased.
                    let whole = Piece::whole_zone(last_pz, self.cap_units, layout.unit_bytes);
                    self.zones[zi as usize].pieces = smallvec![whole];
                }
                ResetDecision::Unlink {
                    erase_now,
                    erase_background,
                } => {
                    // Staged data is dropped; the programmed units wait for the policy.
                    self.unlink_pieces(zi);
                    for order in &erase_now {
                        done = done.max(self.execute(now, order));
                    }
                    for order in &erase_background {
                        self.execute(now, order);
                    }
                }
            }
        }
        self.counters.zone_resets_requested += 1;
        self.occupancy_epoch += 1;
        self.set_state(zi, ZoneState::Empty);
        let z = &mut self.zones[zi as usize];
        z.wp = 0;
        z.data_lbas = 0;
        z.units_streamed = 0;
        let b = self.buffer_units as usize;
        self.buffer_release[zi as usize * b..(zi as usize + 1) * b].fill(Instant::ZERO);
        if let Some(cache) = &mut self.cache {
            cache.drop_zone(zi, now);
        }
        if let Some(store) = &mut self.data {
            store.clear(zi);
        }
        done
    }
}
