//! What a NAND array is: its geometry, its timing and its energy per operation, validated by
//! `config` and owned here. Every device model built on NAND (the ZNS device, the conventional
//! SSD) takes a [`NandSpec`].

use crate::time::Duration;

/// Dies, blocks and pages. Planes are folded into the die.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NandGeometry {
    pub channels: u32,
    pub dies_per_channel: u32,
    pub blocks_per_die: u32,
    pub pages_per_block: u32,
    pub page_size_bytes: u64,
    /// Pages programmed together on one die (one-shot TLC programming); also the striping unit.
    pub pages_per_program: u32,
}

impl NandGeometry {
    pub fn dies(&self) -> u32 {
        self.channels * self.dies_per_channel
    }
    pub fn block_size_bytes(&self) -> u64 {
        self.page_size_bytes * self.pages_per_block as u64
    }
    pub fn program_unit_bytes(&self) -> u64 {
        self.page_size_bytes * self.pages_per_program as u64
    }
    pub fn units_per_block(&self) -> u32 {
        self.pages_per_block / self.pages_per_program
    }
    pub fn total_blocks(&self) -> u64 {
        self.dies() as u64 * self.blocks_per_die as u64
    }
    pub fn capacity_bytes(&self) -> u64 {
        self.total_blocks() * self.block_size_bytes()
    }
    /// Index of block `addr` among all blocks, die by die (as erase counts are kept).
    #[inline]
    pub fn block_index(&self, addr: super::UnitAddress) -> usize {
        addr.die as usize * self.blocks_per_die as usize + addr.block as usize
    }
    /// Die `die` sits on channel `die % channels`, so consecutive dies use different channels.
    pub fn channel_of(&self, die: u32) -> u32 {
        die % self.channels
    }
}

/// Erase suspend (optional): a read that reaches a die in the middle of an erase suspends it,
/// is served, and the erase resumes, paying `suspend` before the read and `resume` after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EraseSuspend {
    pub suspend: Duration,
    pub resume: Duration,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NandTiming {
    /// tR: array to page register.
    pub read_latency: Duration,
    /// tR of a read that takes at most 4 KiB of a page (a partial-page read senses less of the
    /// word line; NVMeVirt's `NAND_4KB_READ_LATENCY`). Equal to `read_latency` where a source
    /// gives no such figure.
    pub read_4k_latency: Duration,
    /// tPROG for one program unit.
    pub program_latency: Duration,
    /// tBERS for one block.
    pub erase_latency: Duration,
    /// NAND channel (die to controller) rate, MB/s (10^6 B).
    pub channel_rate_mb_s: u64,
    /// Host interface (PCIe) rate per direction, MB/s (10^6 B).
    pub host_rate_mb_s: u64,
    /// Channel time each NAND operation takes beyond its data: command and address cycles,
    /// status polls, the data-out turnaround (ONFI), ECC hand-off.
    pub channel_op: Duration,
    pub erase_suspend: Option<EraseSuspend>,
    /// A die serves queued reads before queued programs (see `nand::priority`).
    pub read_priority: bool,
    /// A die senses its next page while the last one leaves over the channel (ONFI cache
    /// read); without, it is held until its page has left.
    pub cache_read: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Energy {
    pub read_nj_per_page: f64,
    pub program_nj_per_page: f64,
    pub erase_nj_per_block: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct NandSpec {
    pub geometry: NandGeometry,
    pub timing: NandTiming,
    pub energy: Energy,
    /// Page types and read retries (None: NAND that never varies).
    pub aging: Option<super::AgingSpec>,
    /// The controller's firmware: its cores and jitter.
    pub controller: super::ControllerSpec,
}
