//! The conventional SSD: a page-mapped flash translation layer behind the block interface
//! (read, write, trim, flush), on the same NAND model as the ZNS device. It is what Shin et al. (NVMSA 2020)
//! (Shin et al., NVMSA 2020) compares its ZNS prototype with, and what "the block interface tax"
//! is measured on: over-provisioning, a DRAM mapping table and device garbage collection.
//!
//! - **Mapping.** The logical space is cut into mapping units (4 KiB by default); a table holds
//!   one 4-byte physical address per unit (the DRAM a real drive spends: 4 bytes per 4 KiB, about
//!   0.1% of capacity, 3.64 GiB for a 4 TB drive) and the NAND's spare area the logical unit of each
//!   physical slot (here a second table of 4 bytes per physical slot). Writes smaller than a unit
//!   read the old unit first (read-modify-write).
//! - **Superblocks.** Block `b` of every die forms superblock `b`; writes fill it program unit by
//!   program unit, die after die (unit `j` on die `j % dies`), so a stream uses every die. Host
//!   writes and garbage-collection copies fill separate superblocks.
//! - **Write buffer.** With `write_buffer_bytes`, writes complete once their data is in DRAM; a
//!   program unit enters the buffer only when the unit `B` before it in the host stream has been
//!   programmed (as the ZNS device's per-zone buffer). Without it, a write completes when the
//!   units it filled are programmed.
//! - **Garbage collection.** When free superblocks fall below `gc_free_superblocks`, the write
//!   that needs space runs foreground GC: a victim chosen by a policy ([`victim`]: greedy or
//!   cost-benefit, one file each) has its valid units read and written to the GC superblock, then
//!   its blocks are erased. Below `background_gc_free_superblocks`, the device collects one victim
//!   at a time in idle time (through [`crate::device::DeviceModel::advance`]). Both book their
//!   reads, programs and erases on the NAND timelines, so host I/O waits for them where they share
//!   dies and channels.
//! - **Wear levelling.** Dynamic: a new superblock is the free one erased least. Static (with
//!   `wear_leveling_threshold`): when the most-erased superblock is that many erases ahead of the
//!   least-erased closed one, the latter is collected next, moving its cold data.
//!
//! The module tree: `device` (state and the seam), `map` (the two tables), `io` (read, write,
//! trim, flush and their timing), `gc` (collection and wear levelling), `victim` (policies),
//! `precondition` (fill and overwrite to steady state without simulated time), `store` (retained
//! bytes), `report` (the FTL's counters and series).

mod device;
mod gc;
mod gc_stream;
mod io;
mod map;
mod persist;
mod precondition;
mod report;
mod seam;
mod store;
pub mod victim;

pub use crate::device::report::ftl::{FtlReport, FtlSample, PreconditionReport};
pub use device::Ftl;
pub(crate) use map::huge_pages;
pub use persist::FtlState;
pub use precondition::PreconditionPlan;
pub use victim::{Candidate, VictimChoice, VictimPolicy};

use crate::device::DeviceInfo;
use crate::nand::NandSpec;
use crate::time::Duration;

/// Firmware time a command costs before it reaches the NAND.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FtlOverheads {
    pub read: Duration,
    /// Writes, trims and flushes.
    pub write: Duration,
}

/// A validated conventional SSD.
#[derive(Clone, Debug, PartialEq)]
pub struct FtlSpec {
    pub name: String,
    pub nand: NandSpec,
    pub lba_size_bytes: u64,
    /// Bytes one map entry covers.
    pub mapping_unit_bytes: u64,
    /// (physical - logical) / logical, in percent.
    pub over_provisioning_percent: f64,
    /// Logical capacity in mapping units (follows from the NAND and the over-provisioning).
    pub logical_units: u64,
    /// DRAM write buffer, in program units (0: none).
    pub write_buffer_units: u32,
    pub victim: VictimChoice,
    /// Foreground GC keeps at least this many superblocks free.
    pub gc_free_superblocks: u32,
    /// Background GC, in idle time, keeps this many free.
    pub background_gc_free_superblocks: u32,
    /// Static wear levelling once erase counts spread this far (0: off).
    pub wear_leveling_threshold: u32,
    pub overheads: FtlOverheads,
}

impl FtlSpec {
    pub fn superblocks(&self) -> u32 {
        self.nand.geometry.blocks_per_die
    }
    /// Mapping units one superblock holds.
    pub fn units_per_superblock(&self) -> u64 {
        self.nand.geometry.dies() as u64 * self.nand.geometry.block_size_bytes()
            / self.mapping_unit_bytes
    }
    pub fn physical_units(&self) -> u64 {
        self.superblocks() as u64 * self.units_per_superblock()
    }
    pub fn namespace_lbas(&self) -> u64 {
        self.logical_units * self.mapping_unit_bytes / self.lba_size_bytes
    }
    /// Bytes of the two mapping tables when every unit is mapped (4 bytes per logical unit and
    /// per physical slot).
    pub fn map_bytes(&self) -> u64 {
        4 * (self.logical_units + self.physical_units())
    }
    pub fn info(&self) -> DeviceInfo {
        DeviceInfo {
            name: self.name.clone(),
            lba_size_bytes: self.lba_size_bytes,
            namespace_lbas: self.namespace_lbas(),
            namespaces: 1,
            zoned: None,
        }
    }

    /// The logical units the NAND can offer at `op_percent` over-provisioning, or why it cannot
    /// run: the physical space must leave room for the free superblocks GC keeps and the two
    /// open ones after the logical space is full. Errors are (field, message).
    pub fn logical_units_for(
        nand: &NandSpec,
        mapping_unit_bytes: u64,
        op_percent: f64,
        gc_free_superblocks: u32,
    ) -> Result<u64, String> {
        let per_sb =
            nand.geometry.dies() as u64 * nand.geometry.block_size_bytes() / mapping_unit_bytes;
        let physical = nand.geometry.blocks_per_die as u64 * per_sb;
        let logical = (physical as f64 / (1.0 + op_percent / 100.0)).floor() as u64;
        let reserve = gc_free_superblocks as u64 + 3;
        if physical < logical + reserve * per_sb {
            let spare_sbs = (physical - logical) as f64 / per_sb as f64;
            return Err(format!(
                "{op_percent}% leaves {spare_sbs:.1} superblocks spare; garbage collection needs at least {reserve} (gc_free_superblocks + 3): raise the over-provisioning or use more, smaller blocks"
            ));
        }
        if physical >= u32::MAX as u64 {
            return Err(format!(
                "{physical} physical mapping units do not fit the 4-byte map entries; use a larger mapping_unit_bytes"
            ));
        }
        if logical == 0 {
            return Err("leaves no logical space".into());
        }
        Ok(logical)
    }
}

#[cfg(test)]
mod persist_tests;
#[cfg(test)]
mod run_tests;
#[cfg(test)]
mod tests;
