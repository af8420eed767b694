//! NAND flash: addressing of physical zones onto dies and blocks, the per-die, per-channel and
//! host-link timelines, and the operation counters that energy and wear are computed from.
//!
//! Each resource keeps the time it next becomes free. A page read holds its die for tR and then
//! the channel (and the die's register) for the transfer; a program moves a program unit over the
//! channel and then holds the die for tPROG; an erase holds the die for tBERS. Completion times
//! follow in O(1) per page, which is what lets the simulator run far faster than real time.

use std::collections::BTreeMap;

use crate::config::{Energy, Geometry, Timing};
use crate::units::transfer_ns;

/// Where one program unit of a physical zone lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnitAddress {
    pub die: u32,
    /// Block index on that die.
    pub block: u32,
}

/// Maps physical zones onto dies and blocks. Zone `p` lives on die group `p % groups`, the
/// `dies_per_zone` consecutive dies of that group, and on the blocks of slot `p / groups` there.
/// Program unit `j` of a zone goes to die `j % dies_per_zone` of its group (page-interleaved
/// striping); consecutive dies sit on different channels.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    channels: u32,
    dies_per_zone: u32,
    groups: u32,
    blocks_per_zone_per_die: u32,
    units_per_block: u32,
    pub blocks_per_die: u32,
    pub unit_bytes: u64,
    pub page_bytes: u64,
    pub pages_per_unit: u32,
}

impl Layout {
    pub fn new(geo: &Geometry) -> Self {
        Layout {
            channels: geo.channels,
            dies_per_zone: geo.dies_per_zone,
            groups: geo.die_groups(),
            blocks_per_zone_per_die: geo.blocks_per_zone_per_die(),
            units_per_block: geo.units_per_block(),
            blocks_per_die: geo.blocks_per_die,
            unit_bytes: geo.program_unit_bytes(),
            page_bytes: geo.page_size_bytes,
            pages_per_unit: geo.pages_per_program,
        }
    }

    pub fn channel_of(&self, die: u32) -> u32 {
        die % self.channels
    }

    #[inline]
    pub fn unit(&self, zone: u32, unit: u64) -> UnitAddress {
        let d = self.dies_per_zone as u64;
        let die = (zone % self.groups) * self.dies_per_zone + (unit % d) as u32;
        let unit_on_die = unit / d;
        let block = (zone / self.groups) * self.blocks_per_zone_per_die
            + (unit_on_die / self.units_per_block as u64) as u32;
        UnitAddress { die, block }
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

    /// Dies a zone's units are striped over.
    pub fn dies_of(&self, zone: u32) -> std::ops::Range<u32> {
        let first = (zone % self.groups) * self.dies_per_zone;
        first..first + self.dies_per_zone
    }
}

/// Operation counts since the start (or the last [`Nand::reset_counters`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NandCounters {
    pub page_reads: u64,
    pub page_programs: u64,
    pub block_erases: u64,
}

/// Energy by kind, in nanojoules.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EnergyNj {
    pub read: f64,
    pub program: f64,
    pub erase: f64,
}

impl EnergyNj {
    pub fn of(counters: &NandCounters, energy: &Energy) -> Self {
        EnergyNj {
            read: counters.page_reads as f64 * energy.read_nj_per_page,
            program: counters.page_programs as f64 * energy.program_nj_per_page,
            erase: counters.block_erases as f64 * energy.erase_nj_per_block,
        }
    }
    pub fn total(&self) -> f64 {
        self.read + self.program + self.erase
    }
}

/// Per-block erase counts summarised.
#[derive(Clone, Debug, PartialEq)]
pub struct WearSummary {
    pub min: u32,
    pub mean: f64,
    pub max: u32,
    /// erase count -> number of blocks with that count.
    pub histogram: BTreeMap<u32, u64>,
}

pub struct Nand {
    timing: Timing,
    pub layout: Layout,
    die_free_ns: Vec<u64>,
    channel_free_ns: Vec<u64>,
    host_in_free_ns: u64,
    host_out_free_ns: u64,
    erase_counts: Vec<u32>,
    /// Per die, when its latest erase ends: to tell how long foreground work waited on erases.
    erase_end_ns: Vec<u64>,
    /// The longest wait on an erase of any operation since [`Nand::take_erase_wait`].
    erase_wait_ns: u64,
    pub counters: NandCounters,
}

impl Nand {
    pub fn new(geo: &Geometry, timing: &Timing) -> Self {
        Nand {
            timing: timing.clone(),
            layout: Layout::new(geo),
            die_free_ns: vec![0; geo.dies() as usize],
            channel_free_ns: vec![0; geo.channels as usize],
            host_in_free_ns: 0,
            host_out_free_ns: 0,
            erase_counts: vec![0; geo.total_blocks() as usize],
            erase_end_ns: vec![0; geo.dies() as usize],
            erase_wait_ns: 0,
            counters: NandCounters::default(),
        }
    }

    /// Host to device transfer of a write's data; returns when it has all arrived.
    pub fn host_in(&mut self, ready_ns: u64, bytes: u64) -> u64 {
        let start = ready_ns.max(self.host_in_free_ns);
        self.host_in_free_ns = start + transfer_ns(bytes, self.timing.host_rate_mb_s);
        self.host_in_free_ns
    }

    /// Device to host transfer of read data.
    pub fn host_out(&mut self, ready_ns: u64, bytes: u64) -> u64 {
        let start = ready_ns.max(self.host_out_free_ns);
        self.host_out_free_ns = start + transfer_ns(bytes, self.timing.host_rate_mb_s);
        self.host_out_free_ns
    }

    /// Notes how long an operation ready at `ready_ns` that starts at `start_ns` on die `d` waited
    /// for an erase there.
    #[inline]
    fn note_erase_wait(&mut self, d: usize, ready_ns: u64, start_ns: u64) {
        let e = self.erase_end_ns[d];
        if e > ready_ns {
            self.erase_wait_ns = self.erase_wait_ns.max(start_ns.min(e) - ready_ns);
        }
    }

    /// The longest erase wait since the last call, and a fresh start.
    pub fn take_erase_wait(&mut self) -> u64 {
        std::mem::take(&mut self.erase_wait_ns)
    }

    /// Reads one page on `die` and moves `bytes` of it over the channel; returns when the data
    /// is in the controller.
    pub fn read_page(&mut self, now_ns: u64, die: u32, bytes: u64) -> u64 {
        let ch = self.layout.channel_of(die) as usize;
        let d = die as usize;
        let begin = now_ns.max(self.die_free_ns[d]);
        self.note_erase_wait(d, now_ns, begin);
        let sensed = begin + self.timing.read_latency_ns;
        let start = sensed.max(self.channel_free_ns[ch]);
        let done = start + transfer_ns(bytes, self.timing.channel_rate_mb_s);
        self.channel_free_ns[ch] = done;
        self.die_free_ns[d] = done;
        self.counters.page_reads += 1;
        done
    }

    /// Programs one program unit at `addr` once its data is ready; returns when it is durable.
    pub fn program_unit(&mut self, ready_ns: u64, addr: UnitAddress) -> u64 {
        let ch = self.layout.channel_of(addr.die) as usize;
        let d = addr.die as usize;
        let start = ready_ns
            .max(self.die_free_ns[d])
            .max(self.channel_free_ns[ch]);
        self.note_erase_wait(d, ready_ns, start);
        let loaded = start + transfer_ns(self.layout.unit_bytes, self.timing.channel_rate_mb_s);
        self.channel_free_ns[ch] = loaded;
        self.die_free_ns[d] = loaded + self.timing.program_latency_ns;
        self.counters.page_programs += self.layout.pages_per_unit as u64;
        self.die_free_ns[d]
    }

    /// Erases one block; the die is held for tBERS. Returns when the erase is done.
    pub fn erase_block(&mut self, now_ns: u64, addr: UnitAddress) -> u64 {
        let d = addr.die as usize;
        let done = now_ns.max(self.die_free_ns[d]) + self.timing.erase_latency_ns;
        self.die_free_ns[d] = done;
        self.erase_end_ns[d] = done;
        self.erase_counts[d * self.layout.blocks_per_die as usize + addr.block as usize] += 1;
        self.counters.block_erases += 1;
        done
    }

    /// When every die, channel and link is idle.
    pub fn idle_at_ns(&self) -> u64 {
        let dies = self.die_free_ns.iter().copied().max().unwrap_or(0);
        let channels = self.channel_free_ns.iter().copied().max().unwrap_or(0);
        dies.max(channels)
            .max(self.host_in_free_ns)
            .max(self.host_out_free_ns)
    }

    pub fn die_free_ns(&self, die: u32) -> u64 {
        self.die_free_ns[die as usize]
    }

    pub fn reset_counters(&mut self) {
        self.counters = NandCounters::default();
    }

    pub fn wear(&self) -> WearSummary {
        let mut histogram = BTreeMap::new();
        let (mut min, mut max, mut sum) = (u32::MAX, 0, 0u64);
        for &c in &self.erase_counts {
            *histogram.entry(c).or_insert(0u64) += 1;
            min = min.min(c);
            max = max.max(c);
            sum += c as u64;
        }
        WearSummary {
            min: if self.erase_counts.is_empty() { 0 } else { min },
            mean: sum as f64 / self.erase_counts.len().max(1) as f64,
            max,
            histogram,
        }
    }
}

#[cfg(test)]
mod tests;
