//! Work the firmware orders beside the host's commands: erases (now, blocking, or in idle time),
//! in-place compaction when every physical zone is pinned, and the policy's timers (ReZNS's
//! zombie daemon). The policy decides; the device applies.

use super::device::Device;
use crate::firmware::{CompactionCandidate, EraseOrder, IdleView, ZombieCandidate};
use crate::time::Instant;

impl Device {
    /// Erases what `order` names, starting at `now`; returns when the last erase ends.
    pub(super) fn execute(&mut self, now: Instant, order: &EraseOrder) -> Instant {
        let layout = self.layout;
        let mut done = now;
        for row in order.rows.clone() {
            for addr in layout.row_blocks(order.zone, row, order.programmed_only) {
                done = done.max(self.nand.erase_block(now, addr));
            }
        }
        if order.frees_zone {
            assert_eq!(
                self.owners[order.zone as usize], 0,
                "physical zone {} erased while a logical zone still maps to it",
                order.zone
            );
            // The counts themselves against a scan of every piece: debug builds and tests only
            // (O(zones), the cost the counts exist to avoid in release).
            debug_assert_eq!(
                self.scanned_owners(),
                self.owners,
                "owner counts per physical zone"
            );
            self.counters.zone_resets_executed += 1;
            self.phys_high[order.zone as usize] = 0;
        }
        done
    }

    /// Every physical zone is pinned by live pieces (ReZNS can get here; the paper does not say
    /// what then). The policy picks a zone; pieces still being written into it give back the
    /// units they reserved beyond their data (a partial unit stays staged, and reserved); its
    /// programmed units are read into the controller, the zone is erased, and they are written
    /// back from unit 0. Foreground I/O waits for all of it. Nothing is padded, so every
    /// logical zone keeps needing at most its capacity in units, and live data always fits
    /// (the invariant `check_invariants` asserts): a zone with room to compact always exists
    /// when the firmware has no space left.
    pub(super) fn compact(&mut self, now: Instant) {
        let victim = self.compaction_victim();
        let start = self.foreground_start(now);
        // Every piece in the victim, in the order of its units there.
        let mut owners: Vec<(usize, usize)> = Vec::new();
        for (zi, z) in self.zones.iter().enumerate() {
            for (k, p) in z.pieces.iter().enumerate() {
                if p.pz == victim {
                    owners.push((zi, k));
                }
            }
        }
        owners.sort_by_key(|&(zi, k)| self.zones[zi].pieces[k].punit);
        let erased = self.read_and_erase(victim, &owners, start);
        let (next, programmed_end, done) = self.program_back(victim, &owners, erased);
        self.programs_done = self.programs_done.max(done);
        self.phys_high[victim as usize] = programmed_end;
        self.counters.compacted_units += next;
        self.blocked_until = self.blocked_until.max(done);
        self.firmware.compacted(victim, next);
    }

    /// The physical zone the policy picks to compact, with the pieces still being written into
    /// it given back the units they reserved beyond their data.
    fn compaction_victim(&mut self) -> u32 {
        let unit = self.layout.unit_bytes;
        let mut live: Vec<CompactionCandidate> = (0..self.phys_high.len() as u32)
            .map(|zone| CompactionCandidate {
                zone,
                live_units: 0,
                capacity_units: self.cap_units,
                closed: true,
                pinned: false,
            })
            .collect();
        for z in &self.zones {
            for p in &z.pieces {
                let c = &mut live[p.pz as usize];
                c.live_units += p.data.div_ceil(unit);
                c.closed &= p.data == p.cap;
                c.pinned = true;
            }
        }
        let victim = self
            .firmware
            .compaction_victim(&live)
            .expect("a physical zone with room to compact: live data never fills every zone");
        let open: Vec<u32> = (0..self.zones.len() as u32)
            .filter(|&zi| {
                let z = &self.zones[zi as usize];
                z.pieces
                    .last()
                    .is_some_and(|p| p.pz == victim && p.data < p.cap)
            })
            .collect();
        for zi in open {
            self.release_unused(zi);
        }
        victim
    }

    /// Reads the victim's programmed units (`owners`' pieces) into the controller from `start`
    /// (staged bytes are there already), then erases it; returns when the erase ends.
    fn read_and_erase(
        &mut self,
        victim: u32,
        owners: &[(usize, usize)],
        start: Instant,
    ) -> Instant {
        let layout = self.layout;
        let pages = layout.pages_per_unit as u64;
        let mut in_ram = start;
        for &(zi, k) in owners {
            let p = &self.zones[zi].pieces[k];
            for j in 0..p.programmed_units {
                let die = layout.unit(victim, p.punit + j).die;
                for _ in 0..pages {
                    in_ram = in_ram.max(self.nand.read_page(start, die, layout.page_bytes));
                }
            }
        }
        let mut erased = in_ram;
        for addr in layout.blocks_holding(victim, self.phys_high[victim as usize]) {
            erased = erased.max(self.nand.erase_block(in_ram, addr));
        }
        erased
    }

    /// Programs `owners`' pieces back into the erased victim from unit 0, starting at `erased`.
    /// Returns (units reserved, the programmed frontier, when the last program ends).
    fn program_back(
        &mut self,
        victim: u32,
        owners: &[(usize, usize)],
        erased: Instant,
    ) -> (u64, u64, Instant) {
        let layout = self.layout;
        let unit = layout.unit_bytes;
        let mut next = 0;
        // The programmed frontier: a staged partial unit is reserved (in `next`) but not
        // programmed, so a reset that drops it leaves its unit erased, to be handed out again
        // without an erase (counting it here made that a unit "handed out over programmed
        // units": the swarm's seed 223204).
        let mut programmed_end = 0;
        let mut done = erased;
        for &(zi, k) in owners {
            let p = &mut self.zones[zi].pieces[k];
            // What was programmed is programmed again; a staged partial unit stays staged.
            let units = p.programmed_units;
            for j in 0..units {
                let programmed = self
                    .nand
                    .program_unit(erased, layout.unit(victim, next + j));
                done = done.max(programmed);
            }
            p.punit = next;
            p.reserved_units = units + (p.staged_bytes > 0) as u64;
            p.cap = p.cap.min(p.reserved_units * unit);
            let base = p.stream_base;
            let reserved = p.reserved_units;
            let z = &mut self.zones[zi];
            if k + 1 == z.pieces.len() {
                z.units_streamed = base + units;
            }
            if units > 0 {
                programmed_end = next + units;
            }
            next += reserved;
        }
        (next, programmed_end, done)
    }

    /// Offers the firmware the device's idle time and its timers at `now`. Returns when to call
    /// again (a background erase ends, or a timer is due).
    pub(super) fn background(&mut self, now: Instant) -> Option<Instant> {
        if !self.firmware.has_background_work() {
            return None;
        }
        let now = self.enter(now);
        if self.firmware.next_timer().is_some_and(|t| t <= now) {
            self.run_timer(now);
        }
        let timer = self.firmware.next_timer();
        let earliest = |t: Instant| Some(timer.map_or(t, |timer| timer.min(t)));
        if self.background_until > now {
            return earliest(self.background_until);
        }
        let view = IdleView {
            now,
            device_idle: self.busy_until <= now
                && self.blocked_until <= now
                && self.nand.idle_at() <= now,
            nand: &self.nand,
            layout: &self.layout,
        };
        match self.firmware.on_idle(&view) {
            Some(order) => {
                let done = self.execute(now, &order);
                self.background_until = done;
                earliest(done)
            }
            None => timer,
        }
    }

    /// A firmware timer is due: show it the zones still holding unwritten space and close the
    /// pieces of those it reclaims (zombie zones). A scan of every zone, once per period.
    fn run_timer(&mut self, now: Instant) {
        let candidates: Vec<ZombieCandidate> = self
            .zones
            .iter()
            .enumerate()
            .filter(|(_, z)| z.state.is_active())
            .filter_map(|(i, z)| {
                let p = z.pieces.last()?;
                (p.data < p.cap).then(|| ZombieCandidate {
                    logical_zone: i as u32,
                    idle_since: z.last_write,
                    piece: p.as_ref(),
                    staged: p.staged_bytes > 0,
                })
            })
            .collect();
        let decision = self.firmware.on_timer(now, &candidates);
        for zi in decision.reclaimed {
            self.release_unused(zi);
        }
        for order in &decision.erase_background {
            self.execute(now, order);
        }
    }
}
