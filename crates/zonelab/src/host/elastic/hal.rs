//! eZNS's hardware abstraction (ezns.md, "Zone arbiter"): what the layer learns of the device
//! and builds on: the active limit (MAR), the physical zone's size and capacity, and how many
//! dies there are. From these it fixes the header every physical zone starts with (the
//! allocator's reservation and metadata) and the usable LBAs after it.

use crate::device::DeviceInfo;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hal {
    pub lba_bytes: u64,
    /// Physical zone size (the LBA stride between zones) and capacity.
    pub pz_lbas: u64,
    pub pz_cap_lbas: u64,
    pub zone_count: u32,
    /// Max Active Resources.
    pub mar: u32,
    pub dies: u32,
    /// LBAs at the start of each physical zone the allocator writes when it reserves the zone:
    /// the reservation block and the allocation history after it (one largest stripe).
    pub header_lbas: u64,
    /// LBAs of a physical zone that hold v-zone data: whole largest stripes after the header.
    pub usable_lbas: u64,
}

impl Hal {
    /// What the layer builds on over `device` (a zoned model: a ZNS drive or a layer) with
    /// `dies` NAND dies under it; `None` for a device without zones.
    pub fn probe(device: &DeviceInfo, dies: u32, max_stripe_lbas: u64) -> Option<Hal> {
        let z = device.zoned()?;
        let cap = z.zone_capacity_lbas;
        let header = max_stripe_lbas;
        Some(Hal {
            lba_bytes: device.lba_size_bytes,
            pz_lbas: z.zone_size_lbas,
            pz_cap_lbas: cap,
            zone_count: z.zone_count,
            mar: z.max_active_zones.unwrap_or(z.zone_count),
            dies,
            header_lbas: header,
            usable_lbas: cap.saturating_sub(header) / max_stripe_lbas * max_stripe_lbas,
        })
    }

    /// A physical zone's first LBA on the device.
    #[inline]
    pub fn zslba(&self, pz: u32) -> u64 {
        pz as u64 * self.pz_lbas
    }

    /// Where v-zone data at offset `offset` of physical zone `pz` lives on the device.
    #[inline]
    pub fn data_lba(&self, pz: u32, offset: u64) -> u64 {
        self.zslba(pz) + self.header_lbas + offset
    }
}
