//! Where a physical zone's program units live: page-interleaved striping over `dies_per_zone`
//! dies. Zone `p` lives on die group `p % groups` (the `dies_per_zone` consecutive dies of that
//! group) and on the blocks of slot `p / groups` there. Program unit `j` of a zone goes to die
//! `j % dies_per_zone` of its group; consecutive dies sit on different channels. One-die zones
//! (small-zone SSDs) and 32-die zones (Cosmos+) are the two ends of the same layout.

use super::NandGeometry;
pub use crate::divisor::Divisor;

/// Where one program unit of a physical zone lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnitAddress {
    pub die: u32,
    /// Block index on that die.
    pub block: u32,
}

#[derive(Clone, Copy, Debug)]
pub struct Layout {
    channels: u32,
    dies_per_zone: u32,
    groups: u32,
    per_zone: Divisor,
    per_group: Divisor,
    per_block: Divisor,
    blocks_per_zone_per_die: u32,
    units_per_block: u32,
    pub blocks_per_die: u32,
    pub unit_bytes: u64,
    pub unit_div: Divisor,
    pub page_bytes: u64,
    pub page_div: Divisor,
    pub pages_per_unit: u32,
}

impl Layout {
    /// Zones of `blocks_per_zone_per_die` blocks on each of `dies_per_zone` dies.
    pub fn new(geo: &NandGeometry, dies_per_zone: u32, blocks_per_zone_per_die: u32) -> Self {
        Layout {
            channels: geo.channels,
            dies_per_zone,
            groups: geo.dies() / dies_per_zone,
            per_zone: Divisor::new(dies_per_zone as u64),
            per_group: Divisor::new((geo.dies() / dies_per_zone) as u64),
            per_block: Divisor::new(geo.units_per_block() as u64),
            blocks_per_zone_per_die,
            units_per_block: geo.units_per_block(),
            blocks_per_die: geo.blocks_per_die,
            unit_bytes: geo.program_unit_bytes(),
            unit_div: Divisor::new(geo.program_unit_bytes()),
            page_bytes: geo.page_size_bytes,
            page_div: Divisor::new(geo.page_size_bytes),
            pages_per_unit: geo.pages_per_program,
        }
    }

    pub fn channel_of(&self, die: u32) -> u32 {
        die % self.channels
    }

    #[inline]
    pub fn unit(&self, zone: u32, unit: u64) -> UnitAddress {
        let group = self.per_group.rest(zone as u64) as u32;
        let slot = self.per_group.quot(zone as u64) as u32;
        let die = group * self.dies_per_zone + self.per_zone.rest(unit) as u32;
        let unit_on_die = self.per_zone.quot(unit);
        let block = slot * self.blocks_per_zone_per_die + self.per_block.quot(unit_on_die) as u32;
        UnitAddress { die, block }
    }

    /// Program unit `unit` of a zone: its index within its block.
    #[inline]
    pub fn unit_in_block(&self, unit: u64) -> u32 {
        self.per_block.rest(self.per_zone.quot(unit)) as u32
    }

    /// The blocks that hold units `0..units` of `zone` (all of them with `units == u64::MAX`),
    /// die by die.
    pub fn blocks_holding(&self, zone: u32, units: u64) -> impl Iterator<Item = UnitAddress> + '_ {
        let d = self.dies_per_zone as u64;
        (0..self.dies_per_zone).flat_map(move |i| {
            let units_on_die = if units <= i as u64 {
                0
            } else {
                (units - i as u64).div_ceil(d)
            };
            let blocks = units_on_die
                .div_ceil(self.units_per_block as u64)
                .min(self.blocks_per_zone_per_die as u64) as u32;
            let first = self.unit(zone, i as u64);
            (0..blocks).map(move |b| UnitAddress {
                die: first.die,
                block: first.block + b,
            })
        })
    }

    /// Erase rows of a zone: row `r` is block `r` of the zone on each die of its stripe, erased in
    /// parallel (Cosmos+'s 128 MiB "erase block" is one row of a 32-die zone).
    pub fn rows_per_zone(&self) -> u32 {
        self.blocks_per_zone_per_die
    }

    /// Program units one row holds.
    pub fn units_per_row(&self) -> u64 {
        self.units_per_block as u64 * self.dies_per_zone as u64
    }

    /// The blocks of row `row` of `zone`; with `programmed = Some(units)` only those holding one
    /// of the first `units` program units (the write-pointer optimisation).
    pub fn row_blocks(
        &self,
        zone: u32,
        row: u32,
        programmed: Option<u64>,
    ) -> impl Iterator<Item = UnitAddress> + '_ {
        let units = programmed.unwrap_or(u64::MAX);
        self.blocks_holding(zone, units)
            .filter(move |a| a.block % self.blocks_per_zone_per_die == row)
    }

    /// Die groups: zones sit on group `zone % groups` (one die each for one-die zones).
    pub fn groups(&self) -> u32 {
        self.groups
    }

    /// Dies a zone's units are striped over.
    pub fn dies_of(&self, zone: u32) -> std::ops::Range<u32> {
        let first = (zone % self.groups) * self.dies_per_zone;
        first..first + self.dies_per_zone
    }
}
