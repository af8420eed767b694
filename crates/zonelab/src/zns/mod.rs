//! The ZNS device model: the zone state machine with its open and active resources, every NVMe
//! status the ZNS command set defines, logical zones mapped onto pieces of physical zones by a
//! firmware policy, NAND timing for each command, background firmware work, and optional data
//! retention. It implements the device seam ([`crate::device::DeviceModel`]).
//!
//! The module tree follows a command through the device:
//! - `device`: the device's state and the seam;
//! - `state`: zone states, open and active resources, implicit closes;
//! - `io`: reads, writes and appends, and their NAND timing;
//! - `pieces`: where a logical zone's bytes live (pieces of physical zones) and how a write
//!   stream programs them, with the optional per-zone write buffer;
//! - `mgmt`: zone management (open, close, finish, reset, offline);
//! - `cache`: the write cache shared by all dies (small-zone SSDs such as eZNS's);
//! - `background`: erases the firmware orders, compaction, idle time and timers;
//! - `prefill`: setting a device up as if data had been written, in O(zones);
//! - `store`: the retained bytes.

mod background;
mod cache;
mod device;
mod io;
mod mgmt;
mod persist;
mod pieces;
mod prefill;
mod state;
mod store;

pub use device::Device;
pub use persist::ZnsState;
pub use prefill::{PrefillPattern, PrefillPlan};

use crate::device::{DeviceInfo, ZonedInfo};
use crate::nand::{Layout, NandSpec};
use crate::time::Duration;

/// The zones a ZNS namespace exposes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZoneGeometry {
    pub lba_size_bytes: u64,
    /// Stripe width: how many dies one zone's program units are interleaved over.
    pub dies_per_zone: u32,
    pub zone_size_bytes: u64,
    pub zone_capacity_bytes: u64,
    pub zone_count: u32,
    pub max_open_zones: Option<u32>,
    pub max_active_zones: Option<u32>,
    pub zone_append_size_limit_bytes: Option<u64>,
}

/// Firmware time a command costs before it reaches the NAND.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overheads {
    pub read: Duration,
    pub write: Duration,
    /// A zone management command that touches no NAND.
    pub zone_mgmt: Duration,
    pub append: Duration,
    /// A zone reset, before the erases it orders.
    pub reset: Duration,
}

/// A validated ZNS device: everything the model needs, nothing it must re-check.
#[derive(Clone, Debug, PartialEq)]
pub struct ZnsSpec {
    pub name: String,
    pub nand: NandSpec,
    pub zones: ZoneGeometry,
    pub overheads: Overheads,
    /// Per-zone write buffer in program units; with it, writes complete once buffered.
    pub write_buffer_units_per_zone: u32,
    /// A write cache shared by all dies, in program units (0: none); with it, writes complete
    /// once cached and the cache drains to NAND in the background (`cache`).
    pub write_cache_units: u32,
    /// Finish programs the zone's unwritten space with filler (the ZN540's finish time falls
    /// linearly with the zone's occupancy, from 0.91 s nearly empty to 2.6 ms nearly full).
    pub finish_pads_zone: bool,
}

impl ZnsSpec {
    pub fn blocks_per_zone(&self) -> u32 {
        (self.zones.zone_size_bytes / self.nand.geometry.block_size_bytes()) as u32
    }
    /// Blocks one zone uses on each die of its stripe.
    pub fn blocks_per_zone_per_die(&self) -> u32 {
        self.blocks_per_zone() / self.zones.dies_per_zone
    }
    pub fn layout(&self) -> Layout {
        Layout::new(
            &self.nand.geometry,
            self.zones.dies_per_zone,
            self.blocks_per_zone_per_die(),
        )
    }
    pub fn zone_size_lbas(&self) -> u64 {
        self.zones.zone_size_bytes / self.zones.lba_size_bytes
    }
    pub fn zone_capacity_lbas(&self) -> u64 {
        self.zones.zone_capacity_bytes / self.zones.lba_size_bytes
    }
    /// Program units in a zone's capacity.
    pub fn capacity_units(&self) -> u64 {
        self.zones
            .zone_capacity_bytes
            .div_ceil(self.nand.geometry.program_unit_bytes())
    }
    pub fn info(&self) -> DeviceInfo {
        let z = &self.zones;
        DeviceInfo {
            name: self.name.clone(),
            lba_size_bytes: z.lba_size_bytes,
            namespace_lbas: self.zone_size_lbas() * z.zone_count as u64,
            namespaces: 1,
            zoned: Some(ZonedInfo {
                zone_size_lbas: self.zone_size_lbas(),
                zone_capacity_lbas: self.zone_capacity_lbas(),
                zone_count: z.zone_count,
                max_open_zones: z.max_open_zones,
                max_active_zones: z.max_active_zones,
                zone_append_size_limit_lbas: z
                    .zone_append_size_limit_bytes
                    .map(|b| b / z.lba_size_bytes),
            }),
        }
    }
}

#[cfg(test)]
pub(crate) use device_tests::small_spec as test_spec;

#[cfg(test)]
mod device_tests;
#[cfg(test)]
mod policy_tests;
#[cfg(test)]
mod reference_tests;
#[cfg(test)]
mod rezns_tests;
#[cfg(test)]
mod smallzone_tests;
