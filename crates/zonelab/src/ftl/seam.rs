//! The conventional SSD's side of the device seam: commands in, completions, reports and
//! state out, as every front end drives it.

use super::device::Ftl;
use super::report::{FtlCounters, FtlSeries};
use crate::device::{
    Accepted, Command, Completed, Data, DeviceCounters, DeviceInfo, DeviceModel, DeviceReport, Op,
    ReportFilter, Status, ZoneDescriptor, ZoneReport,
};
use crate::firmware::FirmwareReport;
use crate::nand::{DieSet, EnergyNj};
use crate::time::Instant;

impl DeviceModel for Ftl {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn policy_name(&self) -> &'static str {
        match self.spec.victim {
            super::VictimChoice::Greedy => "ftl-greedy",
            super::VictimChoice::CostBenefit => "ftl-cost-benefit",
        }
    }

    fn submit(&mut self, now: Instant, cmd: Command<'_>) -> Result<Accepted, Status> {
        if cmd.nsid != 0 {
            return Err(Status::InvalidNamespace);
        }
        let (slba, nlb) = (cmd.slba, cmd.nlb);
        match (cmd.op, cmd.data) {
            (Op::Read, Data::In(buf)) => self.read(now, slba, nlb, Some(buf)),
            (Op::Read, _) => self.read(now, slba, nlb, None),
            (Op::Write, Data::Out(data)) => self.write(now, slba, nlb, Some(data)),
            (Op::Write, _) => self.write(now, slba, nlb, None),
            (Op::Trim, _) => self.trim(now, slba, nlb),
            (Op::Flush, _) => self.flush(now),
            // Zone Append and Zone Management belong to the Zoned command set.
            (Op::Append | Op::ZoneMgmt(_) | Op::ZoneMgmtAll(_), _) => Err(Status::InvalidOpcode),
        }
    }

    fn retains_data(&self) -> bool {
        self.data.is_some()
    }

    fn peek(&self, nsid: u32, slba: u64, buf: &mut [u8]) -> Result<(), Status> {
        let lbas = buf.len() as u64 / self.geo.lba_bytes;
        if nsid != 0
            || slba
                .checked_add(lbas)
                .is_none_or(|end| end > self.info.namespace_lbas)
        {
            return Err(Status::LbaOutOfRange);
        }
        match &self.data {
            Some(store) => store.read(slba * self.geo.lba_bytes, buf),
            None => buf.fill(0),
        }
        Ok(())
    }

    fn advance(&mut self, now: Instant, _done: &mut Vec<Completed>) -> Option<Instant> {
        self.background(now)
    }

    #[inline]
    fn prefetch_lba(&self, _nsid: u32, lba: u64) {
        self.map.prefetch((lba / self.geo.lbas_per_unit) as u32);
    }

    fn zone(&self, _nsid: u32, zone: u32) -> ZoneDescriptor {
        panic!("zone {zone}: a conventional device has no zones (callers check DeviceInfo::zoned)")
    }

    fn report_zones(
        &self,
        _nsid: u32,
        _slba: u64,
        _filter: ReportFilter,
        _partial: bool,
        _max_descriptors: usize,
    ) -> Result<ZoneReport, Status> {
        Err(Status::InvalidOpcode)
    }

    fn written_lbas(&self, _nsid: u32, _zone: u32) -> u64 {
        0
    }

    fn occupancy_epoch(&self) -> u64 {
        0
    }

    fn idle_at(&self) -> Instant {
        self.nand.idle_at().max(self.busy_until)
    }

    fn report(&self, now: Instant) -> DeviceReport {
        DeviceReport {
            counters: self.counters,
            nand: self.nand.counters,
            page_size_bytes: self.spec.nand.geometry.page_size_bytes,
            energy: EnergyNj::of(&self.nand.counters, &self.spec.nand.energy),
            wear: self.nand.wear(),
            erase_wait: self.erase_wait.clone(),
            firmware: Some(FirmwareReport::Ftl(self.ftl_report(now))),
        }
    }

    fn reset_counters(&mut self) {
        self.counters = DeviceCounters::default();
        self.nand.reset_counters();
        self.nand.take_erase_wait();
        self.erase_wait.reset();
        self.ftl = FtlCounters::default();
        self.series = FtlSeries::new(self.last_now, self.series.sampling());
        self.series.free(self.last_now, self.free.len() as u32);
    }

    fn set_tracing(&mut self, on: bool) {
        self.nand.set_tracing(on);
    }

    fn take_touched(&mut self) -> Option<DieSet> {
        self.nand.take_touched()
    }

    fn check_invariants(&self) {
        Ftl::check_invariants(self);
    }

    fn slow_die(&mut self, die: u32, permille: u32) -> Result<(), Status> {
        let set = self.nand.set_die_slowdown(die, permille);
        set.then_some(()).ok_or(Status::InvalidField)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
