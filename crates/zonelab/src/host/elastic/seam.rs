//! The device seam of the eZNS layer: commands in through v-zones, zone reports, background
//! work and reports, as every device model gives them to the front ends.

use super::Elastic;
use crate::device::{
    Accepted, Command, Completed, Data, DeviceInfo, DeviceModel, DeviceReport, Op, ReportFilter,
    Status, ZoneDescriptor, ZoneReport,
};
use crate::firmware::FirmwareReport;
use crate::nand::DieSet;
use crate::time::{Duration, Instant};

impl DeviceModel for Elastic {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn policy_name(&self) -> &'static str {
        "ezns"
    }

    fn submit(&mut self, now: Instant, cmd: Command<'_>) -> Result<Accepted, Status> {
        if cmd.nsid >= self.spec.namespaces {
            return Err(Status::InvalidNamespace);
        }
        let ns = cmd.nsid;
        let (slba, nlb, tag) = (cmd.slba, cmd.nlb, cmd.tag);
        let lba_bytes = self.hal.lba_bytes;
        let len_ok = |len: usize| nlb.checked_mul(lba_bytes) == Some(len as u64);
        let (done, lba) = match (cmd.op, cmd.data) {
            (Op::Read, data) => {
                let buf = match data {
                    Data::In(b) if !len_ok(b.len()) => return Err(Status::InvalidField),
                    Data::In(b) => Some(b),
                    _ => None,
                };
                (self.read(now, ns, slba, nlb, buf, tag)?, slba)
            }
            (op @ (Op::Write | Op::Append), data) => {
                let bytes = match data {
                    Data::Out(d) if !len_ok(d.len()) => return Err(Status::InvalidField),
                    Data::Out(d) => Some(d),
                    _ => None,
                };
                self.write(now, ns, slba, nlb, bytes, op == Op::Append, tag)?
            }
            (Op::ZoneMgmt(action), _) => {
                let (zone, effect) = self.lz[ns as usize].manage(slba, action)?;
                let done = self.manage(now, ns, zone, effect, tag);
                if done.is_none() {
                    self.defer(tag, 1, now);
                }
                (done, slba)
            }
            (Op::ZoneMgmtAll(action), _) => {
                let mut done = now;
                let mut parts = 0;
                for zone in 0..self.per_ns {
                    if action.select_all_applies(self.lz[ns as usize].state(zone)) {
                        let effect = self.lz[ns as usize].apply(zone, action)?;
                        match self.manage(now, ns, zone, effect, tag) {
                            Some(d) => done = done.max(d),
                            None => parts += 1,
                        }
                    }
                }
                if parts > 0 {
                    self.defer(tag, parts, done);
                    (None, 0)
                } else {
                    (Some(done), 0)
                }
            }
            (Op::Trim, _) => (Some(now), slba),
            (Op::Flush, _) => (Some(self.dev.flush(now)?), 0),
        };
        Ok(Accepted {
            done,
            lba,
            start: now,
            erase_wait: Duration::ZERO,
        })
    }

    fn has_background_work(&self) -> bool {
        true
    }

    fn retains_data(&self) -> bool {
        self.retain
    }

    fn advance(&mut self, now: Instant, done: &mut Vec<Completed>) -> Option<Instant> {
        let inner = if self.dev.has_background_work() {
            self.dev.advance(now, done)
        } else {
            None
        };
        if self.known.is_empty() && self.wake.is_none_or(|w| now < w) {
            return min_time(self.wake, inner);
        }
        self.run_due(now);
        done.append(&mut self.known);
        min_time(self.wake, inner)
    }

    fn zone(&self, nsid: u32, zone: u32) -> ZoneDescriptor {
        self.lz[nsid as usize].descriptor(zone)
    }

    fn report_zones(
        &self,
        nsid: u32,
        slba: u64,
        filter: ReportFilter,
        partial: bool,
        max_descriptors: usize,
    ) -> Result<ZoneReport, Status> {
        if nsid >= self.spec.namespaces {
            return Err(Status::InvalidNamespace);
        }
        self.lz[nsid as usize].report(slba, filter, partial, max_descriptors)
    }

    fn written_lbas(&self, nsid: u32, zone: u32) -> u64 {
        self.lz[nsid as usize].data(zone)
    }

    fn occupancy_epoch(&self) -> u64 {
        self.lz.iter().map(|l| l.epoch).sum()
    }

    fn idle_at(&self) -> Instant {
        self.dev.idle_at()
    }

    fn report(&self, now: Instant) -> DeviceReport {
        let mut r = self.dev.report(now);
        r.firmware = Some(FirmwareReport::Elastic(self.elastic_report()));
        r
    }

    fn reset_counters(&mut self) {
        self.dev.reset_counters();
    }

    fn set_tracing(&mut self, on: bool) {
        self.dev.set_tracing(on);
    }

    fn take_touched(&mut self) -> Option<DieSet> {
        self.dev.take_touched()
    }

    fn check_invariants(&self) {
        self.dev.check_invariants();
        self.check_layer();
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

pub(super) fn min_time(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}
