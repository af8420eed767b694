//! Zone states and the open and active resources (zns-semantics.md): a zone holds an active
//! resource while Implicitly Opened, Explicitly Opened or Closed, and an open resource while
//! opened. When Max Open Resources would be exceeded by an implicit open, the controller closes
//! the least recently used implicitly opened zone.

use smallvec::SmallVec;

use super::device::Device;
use super::pieces::Piece;
use crate::device::{Status, ZoneState};
use crate::time::Instant;

/// Not in the open list.
const NOT_OPEN: u32 = u32::MAX;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct Zone {
    pub state: ZoneState,
    /// Write pointer, in LBAs from the zone start.
    pub wp: u64,
    /// LBAs holding host data (below the write pointer; less after a Finish).
    pub data_lbas: u64,
    /// Last time (as a command sequence number) the zone was opened or written: the controller
    /// implicitly closes the least recently used implicitly opened zone.
    pub last_use: u64,
    /// When the host last wrote the zone (for zombie detection).
    pub last_write: Instant,
    /// Program units this zone's write stream has programmed since its last reset (indexes the
    /// write buffer ring).
    pub units_streamed: u64,
    /// Where the zone's bytes live, in logical order. Empty: no physical space yet. Most zones
    /// have one piece, kept inline.
    pub pieces: SmallVec<[Piece; 1]>,
}

impl Zone {
    pub fn new(pieces: SmallVec<[Piece; 1]>) -> Self {
        Zone {
            state: ZoneState::Empty,
            wp: 0,
            data_lbas: 0,
            last_use: 0,
            last_write: Instant::ZERO,
            units_streamed: 0,
            pieces,
        }
    }
}

impl Device {
    pub(super) fn set_state(&mut self, zi: u32, new: ZoneState) {
        let old = self.zones[zi as usize].state;
        if old == new {
            return;
        }
        if old.is_open() {
            self.open_zones -= 1;
            self.remove_open(zi);
        }
        if old.is_active() {
            self.active_zones -= 1;
        }
        if new.is_open() {
            self.open_zones += 1;
            self.open_pos[zi as usize] = self.open_list.len() as u32;
            self.open_list.push(zi);
        }
        if new.is_active() {
            self.active_zones += 1;
        }
        self.counters.open_zones_max = self.counters.open_zones_max.max(self.open_zones);
        self.counters.active_zones_max = self.counters.active_zones_max.max(self.active_zones);
        self.zones[zi as usize].state = new;
    }

    fn remove_open(&mut self, zi: u32) {
        let pos = std::mem::replace(&mut self.open_pos[zi as usize], NOT_OPEN);
        debug_assert_ne!(pos, NOT_OPEN, "zone {zi} open but not in the open list");
        self.open_list.swap_remove(pos as usize);
        if let Some(&moved) = self.open_list.get(pos as usize) {
            self.open_pos[moved as usize] = pos;
        }
    }

    /// Makes sure zone `zi` may become open: takes an active resource if it has none and an open
    /// resource, implicitly closing the least recently used implicitly opened zone if need be.
    pub(super) fn acquire_open(&mut self, zi: u32) -> Result<(), Status> {
        let state = self.zones[zi as usize].state;
        if state.is_open() {
            return Ok(());
        }
        let z = &self.spec.zones;
        if state == ZoneState::Empty && z.max_active_zones.is_some_and(|m| self.active_zones >= m) {
            return Err(Status::TooManyActiveZones);
        }
        if z.max_open_zones.is_some_and(|m| self.open_zones >= m) {
            let victim = self
                .open_list
                .iter()
                .copied()
                .filter(|&z| self.zones[z as usize].state == ZoneState::ImplicitlyOpened)
                .min_by_key(|&z| self.zones[z as usize].last_use)
                .ok_or(Status::TooManyOpenZones)?;
            self.set_state(victim, ZoneState::Closed);
            self.counters.implicit_closes += 1;
        }
        Ok(())
    }

    /// Checks the open list and counts against the zones (part of the invariant scan).
    pub(super) fn check_resources(&self) {
        let open = self.zones.iter().filter(|z| z.state.is_open()).count() as u32;
        let active = self.zones.iter().filter(|z| z.state.is_active()).count() as u32;
        assert_eq!(open, self.open_zones, "open zone count");
        assert_eq!(active, self.active_zones, "active zone count");
        assert_eq!(self.open_list.len() as u32, open, "open list");
        for (i, &z) in self.open_list.iter().enumerate() {
            assert_eq!(self.open_pos[z as usize], i as u32, "open list position");
        }
        if let Some(m) = self.spec.zones.max_open_zones {
            assert!(open <= m, "{open} open zones exceed the limit {m}");
        }
        if let Some(m) = self.spec.zones.max_active_zones {
            assert!(active <= m, "{active} active zones exceed the limit {m}");
        }
    }
}
