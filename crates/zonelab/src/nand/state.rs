//! A NAND's timelines, calendars, wear and counters as a device state file keeps them.

use super::controller::ControllerState;
use super::wear::WearTable;
use super::{Calendar, Die, Nand, NandCounters, aging, priority};
use crate::time::{Duration, Instant};

/// What [`Nand::save`] keeps.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct NandState {
    dies: Vec<Die>,
    channels: Vec<Calendar>,
    host_in: Calendar,
    host_out: Calendar,
    horizon: Instant,
    idle: u64,
    erase_counts: Vec<u32>,
    counters: NandCounters,
    programs: Vec<priority::ProgramQueue>,
    /// With aging on: when each block's data was programmed, and the retry draws so far.
    aging: Option<aging::AgingState>,
    controller: ControllerState,
}

impl Nand {
    /// The timelines, calendars, wear and counters, as a device state file keeps them (the
    /// geometry and timing come from the device's configuration).
    pub fn save(&self) -> NandState {
        NandState {
            dies: self.dies.clone(),
            channels: self.channels.iter().map(Calendar::saved).collect(),
            host_in: self.host_in.saved(),
            host_out: self.host_out.saved(),
            horizon: self.horizon,
            idle: self.idle,
            erase_counts: self.erase_counts.clone(),
            counters: self.counters,
            programs: self.programs.clone(),
            aging: self.aging.as_ref().map(|a| a.save()),
            controller: self.controller.save(),
        }
    }

    /// Takes the state [`Nand::save`] gave, after checking it fits this geometry; on error
    /// nothing has changed.
    pub fn restore(&mut self, s: NandState) -> Result<(), String> {
        if s.dies.len() != self.dies.len()
            || s.channels.len() != self.channels.len()
            || s.erase_counts.len() != self.erase_counts.len()
        {
            return Err(format!(
                "NAND state for {} dies, {} channels and {} blocks; the device has {}, {} and {}",
                s.dies.len(),
                s.channels.len(),
                s.erase_counts.len(),
                self.dies.len(),
                self.channels.len(),
                self.erase_counts.len()
            ));
        }
        if s.programs.len() != self.programs.len() {
            return Err(format!(
                "NAND state saved with read priority {}; the device has it {}",
                if s.programs.is_empty() { "off" } else { "on" },
                if self.programs.is_empty() {
                    "off"
                } else {
                    "on"
                },
            ));
        }
        if !s
            .channels
            .iter()
            .chain([&s.host_in, &s.host_out])
            .all(Calendar::well_formed)
        {
            return Err("NAND state: a channel calendar is malformed".into());
        }
        match (&mut self.aging, s.aging) {
            (Some(a), Some(saved)) => a.restore(saved)?,
            (None, None) => {}
            (mine, _) => {
                return Err(format!(
                    "NAND state saved with aging {}; the device has it {}",
                    if mine.is_some() { "off" } else { "on" },
                    if mine.is_some() { "on" } else { "off" },
                ));
            }
        }
        self.controller.restore(s.controller);
        self.dies = s.dies;
        self.channels = s.channels;
        self.host_in = s.host_in;
        self.host_out = s.host_out;
        self.horizon = s.horizon;
        self.idle = s.idle;
        self.erase_counts = s.erase_counts;
        self.wear = WearTable::of(&self.erase_counts);
        self.counters = s.counters;
        self.programs = s.programs;
        self.erase_wait = Duration::ZERO;
        Ok(())
    }
}
