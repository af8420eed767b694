//! What the NAND did, counted: operations, and the energy they took.

use super::Energy;

/// Operation counts since the start (or the last [`Nand::reset_counters`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NandCounters {
    pub page_reads: u64,
    pub page_programs: u64,
    pub block_erases: u64,
    /// Reads that suspended an erase.
    pub erase_suspends: u64,
    /// Extra senses of read retries (aging only).
    pub read_retries: u64,
    /// Queued programs a read went ahead of (read priority), and how far they moved in all.
    pub programs_pushed: u64,
    pub program_push_ns: u64,
}

/// Two devices' NAND work together. A new counter goes here beside its field.
impl std::ops::AddAssign<&NandCounters> for NandCounters {
    fn add_assign(&mut self, o: &NandCounters) {
        self.page_reads += o.page_reads;
        self.page_programs += o.page_programs;
        self.block_erases += o.block_erases;
        self.erase_suspends += o.erase_suspends;
        self.read_retries += o.read_retries;
        self.programs_pushed += o.programs_pushed;
        self.program_push_ns += o.program_push_ns;
    }
}

/// Energy by kind, in nanojoules.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EnergyNj {
    pub read: f64,
    pub program: f64,
    pub erase: f64,
}

impl std::ops::AddAssign<&EnergyNj> for EnergyNj {
    fn add_assign(&mut self, o: &EnergyNj) {
        self.read += o.read;
        self.program += o.program;
        self.erase += o.erase;
    }
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
