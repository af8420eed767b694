//! Firmware policies: what the device does with the blocks of a zone the host resets.
//! A policy decides; the device applies the decision to its NAND timelines and counters.

mod synchronous;

pub use synchronous::Synchronous;

use crate::config::FirmwareConfig;

/// What a policy sees of a physical zone the host has just reset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResetView {
    pub physical_zone: u32,
    /// Program units written to NAND in this zone since its last erase.
    pub programmed_units: u64,
}

/// Which blocks of the zone to erase before the reset completes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EraseScope {
    /// Only blocks holding programmed units.
    ProgrammedBlocks,
    /// Every block of the zone.
    AllBlocks,
}

/// A zone-reset policy. One file per policy in this module.
pub trait ResetPolicy: Send {
    fn name(&self) -> &'static str;
    fn on_host_reset(&mut self, zone: &ResetView) -> EraseScope;
}

pub fn build(config: &FirmwareConfig) -> Box<dyn ResetPolicy> {
    match *config {
        FirmwareConfig::Synchronous { erase_all_blocks } => {
            Box::new(Synchronous { erase_all_blocks })
        }
    }
}
