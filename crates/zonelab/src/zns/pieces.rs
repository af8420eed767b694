//! Where a logical zone's bytes live: a chain of pieces, each a run of program units of one
//! physical zone, and how a zone's write stream programs them. The synchronous policy gives each
//! logical zone one piece covering its own physical zone; the mapping policies one piece of a
//! physical zone they choose; ReZNS may chain several.
//!
//! A write's bytes are staged in the controller until they fill a program unit, which is then
//! programmed. With a write buffer of `B` units per zone (NVMeVirt's ZN540 model), a write
//! completes once its bytes are buffered: unit `j` takes the buffer slot unit `j - B` held, so it
//! waits for that unit's program to finish.

use super::cache::SharedCache;
use super::device::Device;
use crate::firmware::PieceRef;
use crate::nand::{Layout, Nand};
use crate::time::Instant;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct Piece {
    /// Logical byte offset in the zone where the piece starts.
    pub lstart: u64,
    /// Physical zone and first program unit in it.
    pub pz: u32,
    pub punit: u64,
    /// Bytes the piece can hold (shrunk to its data when it is closed early).
    pub cap: u64,
    /// Units the firmware handed out for it (from `punit`).
    pub reserved_units: u64,
    /// Host bytes written into the piece.
    pub data: u64,
    /// Program units written to NAND (or scheduled), from `punit`.
    pub programmed_units: u64,
    /// Bytes of the next unit waiting in the controller for the unit to fill.
    pub staged_bytes: u64,
    /// The zone's stream position of this piece's first unit (for the write buffer ring).
    pub stream_base: u64,
}

impl Piece {
    pub fn new(
        lstart: u64,
        pz: u32,
        punit: u64,
        reserved_units: u64,
        cap: u64,
        stream_base: u64,
    ) -> Self {
        Piece {
            lstart,
            pz,
            punit,
            cap,
            reserved_units,
            data: 0,
            programmed_units: 0,
            staged_bytes: 0,
            stream_base,
        }
    }

    /// The one piece of a statically mapped zone: all of physical zone `pz`.
    pub fn whole_zone(pz: u32, cap_units: u64, unit_bytes: u64) -> Self {
        Piece::new(0, pz, 0, cap_units, cap_units * unit_bytes, 0)
    }

    pub fn as_ref(&self) -> PieceRef {
        PieceRef {
            zone: self.pz,
            start_unit: self.punit,
            end_unit: self.frontier_unit(),
            reserved_end_unit: self.punit + self.reserved_units,
        }
    }

    /// The first unit of the physical zone this piece has not programmed.
    pub fn frontier_unit(&self) -> u64 {
        self.punit + self.programmed_units
    }
}

/// What a write stream needs beside its piece: the NAND, the physical frontier of the piece's
/// zone, the zone's buffer ring (empty without a write buffer) and stream position.
pub(super) struct Stream<'a> {
    pub nand: &'a mut Nand,
    pub layout: &'a Layout,
    pub phys_high: &'a mut u64,
    pub ring: &'a mut [Instant],
    pub streamed: &'a mut u64,
    pub programs_done: &'a mut Instant,
    /// The write cache shared by all dies, if the device has one, and the logical zone.
    pub cache: Option<(&'a mut SharedCache, u32)>,
}

/// Appends `bytes` that arrived at `arrived` to the write stream of `piece`, programming every
/// unit they complete. Returns when the host may consider them written: once buffered (with a
/// write buffer) or once their full units are programmed (without).
pub(super) fn program_piece(
    s: Stream<'_>,
    piece: &mut Piece,
    bytes: u64,
    arrived: Instant,
) -> Instant {
    let unit = s.layout.unit_bytes;
    let b = s.ring.len() as u64;
    let first = piece.programmed_units;
    let total = piece.staged_bytes + bytes;
    // Most writes only add to the unit being staged: no division for them.
    let (full, rest) = if total < unit {
        (0, total)
    } else {
        (total / unit, total % unit)
    };
    let mut done = arrived;
    if let Some((cache, zone)) = s.cache {
        let now = s.nand.now();
        for j in first..first + full {
            let cached = cache.full(zone, arrived);
            done = done.max(cached);
            let programmed = s
                .nand
                .program_unit(cached, s.layout.unit(piece.pz, piece.punit + j));
            *s.programs_done = (*s.programs_done).max(programmed);
            cache.programmed(zone, piece.stream_base + j, programmed, now);
        }
        if rest != 0 {
            done = done.max(cache.filling(zone, arrived));
        }
        piece.programmed_units += full;
        *s.streamed = piece.stream_base + piece.programmed_units;
        piece.staged_bytes = rest;
        if full > 0 {
            *s.phys_high = (*s.phys_high).max(piece.frontier_unit());
        }
        return done;
    }
    for j in first..first + full {
        // The unit's buffer slot (with a write buffer): it waits for the unit before it there.
        let slot = (b > 0).then(|| ((piece.stream_base + j) % b) as usize);
        let accepted = slot.map_or(arrived, |i| arrived.max(s.ring[i]));
        let addr = s.layout.unit(piece.pz, piece.punit + j);
        let in_block = s.layout.unit_in_block(piece.punit + j);
        let programmed = s.nand.program_unit_at(accepted, addr, in_block);
        *s.programs_done = (*s.programs_done).max(programmed);
        done = done.max(match slot {
            Some(i) => {
                s.ring[i] = programmed;
                accepted
            }
            None => programmed,
        });
    }
    if b > 0 && rest != 0 {
        // The partial unit also needs a buffer slot.
        done = done.max(s.ring[((piece.stream_base + first + full) % b) as usize]);
    }
    piece.programmed_units += full;
    *s.streamed = piece.stream_base + piece.programmed_units;
    piece.staged_bytes = rest;
    // Only programmed units raise the frontier: a piece that has programmed nothing
    // yet starts past units the firmware may still hand out (a reset gave them back).
    if full > 0 {
        *s.phys_high = (*s.phys_high).max(piece.frontier_unit());
    }
    done
}

impl Device {
    /// The write stream of logical zone `zi`'s last piece, split from the piece itself.
    pub(super) fn program_last_piece(&mut self, zi: u32, bytes: u64, arrived: Instant) -> Instant {
        let b = self.buffer_units as usize;
        let zone = &mut self.zones[zi as usize];
        let piece = zone.pieces.last_mut().expect("a piece to write into");
        let ring = if b > 0 {
            &mut self.buffer_release[zi as usize * b..(zi as usize + 1) * b]
        } else {
            &mut []
        };
        program_piece(
            Stream {
                nand: &mut self.nand,
                layout: &self.layout,
                phys_high: &mut self.phys_high[piece.pz as usize],
                ring,
                streamed: &mut zone.units_streamed,
                programs_done: &mut self.programs_done,
                cache: self.cache.as_mut().map(|c| (c, zi)),
            },
            piece,
            bytes,
            arrived,
        )
    }

    /// Writes `bytes` from logical offset `position` of zone `zi` into its pieces, taking new
    /// space from the firmware when the last piece is full. Returns the write's completion.
    pub(super) fn write_pieces(
        &mut self,
        now: Instant,
        zi: u32,
        mut position: u64,
        mut bytes: u64,
        arrived: Instant,
    ) -> Instant {
        let mut done = arrived;
        while bytes > 0 {
            let last = self.zones[zi as usize]
                .pieces
                .last()
                .expect("a piece to write into");
            if last.lstart + last.cap <= position {
                self.allocate(now, zi, position);
                continue;
            }
            assert_eq!(
                last.lstart + last.data,
                position,
                "writes continue the piece"
            );
            let chunk = bytes.min(last.lstart + last.cap - position);
            done = done.max(self.program_last_piece(zi, chunk, arrived));
            self.zones[zi as usize]
                .pieces
                .last_mut()
                .expect("a piece")
                .data += chunk;
            position += chunk;
            bytes -= chunk;
        }
        done
    }

    /// The common write on a device without a write buffer or cache: its bytes fit in the last
    /// piece and do not complete the unit being staged, so nothing is programmed and the write
    /// is done when its data has arrived. Stages them and returns true if the write is one;
    /// otherwise changes nothing and the write goes through [`Device::write_pieces`]. The state
    /// left is the one [`program_piece`] leaves for such a write. (Three 4 KiB writes of four
    /// into a 16 KiB unit are such writes: BENCHMARKS.md, "What the hot path does".)
    #[inline]
    pub(super) fn stage_only(&mut self, zi: u32, position: u64, bytes: u64) -> bool {
        if self.buffer_units != 0 || self.cache.is_some() {
            return false;
        }
        let Some(last) = self.zones[zi as usize].pieces.last_mut() else {
            return false;
        };
        if position + bytes > last.lstart + last.cap
            || last.staged_bytes + bytes >= self.layout.unit_bytes
        {
            return false;
        }
        assert_eq!(
            last.lstart + last.data,
            position,
            "writes continue the piece"
        );
        // Nothing programmed, so the stream position (`units_streamed`, kept equal to the last
        // piece's `stream_base + programmed_units`: `check_invariants`) stays where it is.
        last.staged_bytes += bytes;
        last.data += bytes;
        true
    }

    /// Gives logical zone `zi`, written at logical byte `position`, a new piece from the
    /// firmware, first running the blocking erases it orders.
    pub(super) fn allocate(&mut self, now: Instant, zi: u32, position: u64) {
        let unit = self.layout.unit_bytes;
        let remaining = self.cap_lbas * self.lba_bytes - position;
        if !self.firmware.has_space() {
            self.compact(now);
        }
        let wear = crate::firmware::WearView {
            nand: &self.nand,
            layout: &self.layout,
        };
        let allocation = self.firmware.allocate(now, remaining.div_ceil(unit), &wear);
        if !allocation.erase_first.is_empty() {
            let start = self.foreground_start(now);
            let mut done = start;
            for order in &allocation.erase_first {
                done = done.max(self.execute(start, order));
            }
            self.blocked_until = done;
            self.firmware.blocking_erases_end(done);
        }
        let pz = allocation.zone;
        assert!(
            allocation.start_unit >= self.phys_high[pz as usize],
            "physical zone {pz}: unit {} handed out over programmed units (up to {})",
            allocation.start_unit,
            self.phys_high[pz as usize]
        );
        assert!(
            allocation.units > 0 && allocation.start_unit + allocation.units <= self.cap_units,
            "physical zone {pz}: units {}+{} outside its {} units",
            allocation.start_unit,
            allocation.units,
            self.cap_units
        );
        let cap = (allocation.units * unit).min(remaining);
        let base = self.zones[zi as usize].units_streamed;
        let piece = Piece::new(
            position,
            pz,
            allocation.start_unit,
            allocation.units,
            cap,
            base,
        );
        self.owners[pz as usize] += 1;
        self.zones[zi as usize].pieces.push(piece);
    }

    /// Drops every piece of logical zone `zi` (a reset unlinks it from its physical zones).
    pub(super) fn unlink_pieces(&mut self, zi: u32) {
        for p in std::mem::take(&mut self.zones[zi as usize].pieces) {
            self.owners[p.pz as usize] -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::device_tests::{LBA, at, small_spec};
    use super::*;
    use crate::firmware;

    /// A device without a write buffer (where writes may take the staging shortcut) whose zone
    /// 0 has taken `writes` (in LBAs) at its write pointer.
    fn written(writes: &[u64]) -> Device {
        let mut d = Device::new(&small_spec(0, 4), firmware::synchronous(false), false);
        let mut wp = 0;
        for (i, &n) in writes.iter().enumerate() {
            d.write(at(i as u64 * 1_000), wp, n, None).unwrap();
            wp += n;
        }
        d
    }

    /// What a write can change in the zone's stream, as text.
    fn stream_state(d: &Device) -> String {
        format!("{:?} {:?} {:?}", d.zones[0], d.phys_high, d.programs_done)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: crate::test_cases(256), ..ProptestConfig::default() })]

        /// The staging shortcut leaves the state the general path leaves, and completes the
        /// write when its data has arrived; when it does not apply it changes nothing.
        #[test]
        fn staging_shortcut_matches_the_general_path(
            writes in proptest::collection::vec(1..6u64, 1..8),
            nlb in 1..6u64,
        ) {
            let wp: u64 = writes.iter().sum();
            prop_assume!(wp + nlb <= 48);
            let (mut short, mut general) = (written(&writes), written(&writes));
            let (position, bytes) = (wp * LBA, nlb * LBA);
            let arrived = at(1_000_000);
            let before = stream_state(&short);
            if short.stage_only(0, position, bytes) {
                let done = general.write_pieces(at(999_000), 0, position, bytes, arrived);
                prop_assert_eq!(done, arrived);
                prop_assert_eq!(stream_state(&short), stream_state(&general));
            } else {
                prop_assert_eq!(stream_state(&short), before);
            }
        }
    }
}
