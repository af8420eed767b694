//! Faults at run time, as a wrapper over any device model: a zone that goes Read Only or
//! Offline at a time (a media fault, as ZNS 1.1 section 2.1.1.6 lets a controller report), a die
//! that runs slower for a window (operations booked on it take longer, as on a die retrying
//! reads or programs), and commands that fail with a given NVMe status at a rate over a window
//! of time (what a host's error handling sees from a drive with a weak block). The host layers and front ends see them
//! as a drive's errors, through the same seam as everything else. Which command fails is drawn
//! from the run's seed, so a run with faults is as reproducible as one without.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::{
    Accepted, Command, Completed, DeviceInfo, DeviceModel, DeviceReport, Op, ReportFilter, Status,
    ZoneDescriptor, ZoneReport, ZoneState,
};
use crate::nand::DieSet;
use crate::time::Instant;

/// A zone that changes condition at a time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ZoneFault {
    pub at: Instant,
    pub zone: u32,
    /// Read Only or Offline.
    pub state: ZoneState,
    /// Only this drive's zone, on a device of several drives (an array).
    pub drive: Option<u32>,
}

/// A NAND die whose operations take `permille` / 1000 times as long from `from` until `until`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DieFault {
    pub from: Instant,
    pub until: Instant,
    pub die: u32,
    pub permille: u32,
}

/// Which commands a [`CommandFault`] may fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultOps {
    Reads,
    /// Writes and Zone Appends.
    Writes,
    /// Reads, writes and appends.
    Data,
}

impl FaultOps {
    fn matches(self, op: Op) -> bool {
        match self {
            FaultOps::Reads => op == Op::Read,
            FaultOps::Writes => matches!(op, Op::Write | Op::Append),
            FaultOps::Data => matches!(op, Op::Read | Op::Write | Op::Append),
        }
    }
}

/// Commands that fail, each with probability `rate`, from `from` until `until`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CommandFault {
    pub from: Instant,
    pub until: Instant,
    pub ops: FaultOps,
    pub status: Status,
    /// 0 < rate <= 1.
    pub rate: f64,
}

/// Every fault of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FaultPlan {
    /// In time order.
    pub zones: Vec<ZoneFault>,
    pub dies: Vec<DieFault>,
    pub commands: Vec<CommandFault>,
    /// Draws which commands fail (from the run's seed).
    pub seed: u64,
}

impl FaultPlan {
    pub fn is_empty(&self) -> bool {
        self.zones.is_empty() && self.dies.is_empty() && self.commands.is_empty()
    }

    /// The plan with its times counted from `start` instead of from 0.
    pub fn after(&self, start: Instant) -> FaultPlan {
        let shift = |t: Instant| {
            if t == Instant::NEVER {
                t
            } else {
                start + t.since(Instant::ZERO)
            }
        };
        FaultPlan {
            zones: self
                .zones
                .iter()
                .map(|f| ZoneFault {
                    at: shift(f.at),
                    ..*f
                })
                .collect(),
            dies: self
                .dies
                .iter()
                .map(|f| DieFault {
                    from: shift(f.from),
                    until: shift(f.until),
                    ..*f
                })
                .collect(),
            commands: self
                .commands
                .iter()
                .map(|f| CommandFault {
                    from: shift(f.from),
                    until: shift(f.until),
                    ..*f
                })
                .collect(),
            seed: self.seed,
        }
    }
}

/// A device with faults injected as its run goes on.
pub struct Faulty {
    inner: Box<dyn DeviceModel>,
    plan: FaultPlan,
    /// The zone faults not applied yet start here.
    next_zone: usize,
    /// Die speed changes (time, die, permille) in time order, and the next to apply.
    die_changes: Vec<(Instant, u32, u32)>,
    next_die: usize,
    rng: Pcg64Mcg,
    /// Commands failed by the plan (not by the device).
    injected: u64,
}

impl Faulty {
    /// `inner` with `plan`'s faults; zone faults must name zones `inner` has.
    pub fn new(inner: Box<dyn DeviceModel>, mut plan: FaultPlan) -> Self {
        plan.zones.sort_by_key(|f| f.at);
        let mut die_changes: Vec<(Instant, u32, u32)> = plan
            .dies
            .iter()
            .flat_map(|f| [(f.from, f.die, f.permille), (f.until, f.die, 1000)])
            .filter(|&(t, ..)| t != Instant::NEVER)
            .collect();
        // Stable: at one time, a window's end before the next window's start.
        die_changes.sort_by_key(|&(t, _, p)| (t, p != 1000));
        let rng = Pcg64Mcg::seed_from_u64(plan.seed);
        Faulty {
            inner,
            plan,
            next_zone: 0,
            die_changes,
            next_die: 0,
            rng,
            injected: 0,
        }
    }

    /// Commands the plan failed so far.
    pub fn injected(&self) -> u64 {
        self.injected
    }

    /// Applies the zone faults due at `now`.
    fn apply_due(&mut self, now: Instant) {
        while let Some(f) = self.plan.zones.get(self.next_zone)
            && f.at <= now
        {
            let f = *f;
            self.next_zone += 1;
            match f.drive {
                None => self.inner.inject_fault(f.zone, f.state),
                Some(d) => self.inner.inject_drive_fault(d, f.zone, f.state),
            }
            .expect("zone faults are checked against the device when the run is built");
        }
        while let Some(&(at, die, permille)) = self.die_changes.get(self.next_die)
            && at <= now
        {
            self.next_die += 1;
            self.inner
                .slow_die(die, permille)
                .expect("die faults are checked against the device when the run is built");
        }
    }

    /// When the next zone or die fault is due.
    fn next_fault(&self) -> Option<Instant> {
        let zone = self.plan.zones.get(self.next_zone).map(|f| f.at);
        let die = self.die_changes.get(self.next_die).map(|c| c.0);
        earliest(zone, die)
    }

    /// The status a command meets at `now`, if the plan fails it.
    fn failure(&mut self, now: Instant, op: Op) -> Option<Status> {
        for f in &self.plan.commands {
            if f.from <= now && now < f.until && f.ops.matches(op) {
                // One draw per matching window, in plan order: reproducible from the seed.
                if self.rng.random::<f64>() < f.rate {
                    return Some(f.status);
                }
            }
        }
        None
    }
}

fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

impl DeviceModel for Faulty {
    fn info(&self) -> &DeviceInfo {
        self.inner.info()
    }

    fn policy_name(&self) -> &'static str {
        self.inner.policy_name()
    }

    fn submit(&mut self, now: Instant, cmd: Command<'_>) -> Result<Accepted, Status> {
        self.apply_due(now);
        if let Some(status) = self.failure(now, cmd.op) {
            self.injected += 1;
            return Err(status);
        }
        self.inner.submit(now, cmd)
    }

    fn has_background_work(&self) -> bool {
        self.inner.has_background_work() || self.next_fault().is_some()
    }

    fn retains_data(&self) -> bool {
        self.inner.retains_data()
    }

    fn peek(&self, nsid: u32, slba: u64, buf: &mut [u8]) -> Result<(), Status> {
        self.inner.peek(nsid, slba, buf)
    }

    fn advance(&mut self, now: Instant, done: &mut Vec<Completed>) -> Option<Instant> {
        self.apply_due(now);
        let inner = self.inner.advance(now, done);
        earliest(inner, self.next_fault())
    }

    fn zone(&self, nsid: u32, zone: u32) -> ZoneDescriptor {
        self.inner.zone(nsid, zone)
    }

    fn report_zones(
        &self,
        nsid: u32,
        slba: u64,
        filter: ReportFilter,
        partial: bool,
        max_descriptors: usize,
    ) -> Result<ZoneReport, Status> {
        self.inner
            .report_zones(nsid, slba, filter, partial, max_descriptors)
    }

    fn written_lbas(&self, nsid: u32, zone: u32) -> u64 {
        self.inner.written_lbas(nsid, zone)
    }

    fn prefetch_zone(&self, nsid: u32, zone: u32) {
        self.inner.prefetch_zone(nsid, zone);
    }

    fn prefetch_lba(&self, nsid: u32, lba: u64) {
        self.inner.prefetch_lba(nsid, lba);
    }

    fn occupancy_epoch(&self) -> u64 {
        self.inner.occupancy_epoch()
    }

    fn idle_at(&self) -> Instant {
        self.inner.idle_at()
    }

    fn report(&self, now: Instant) -> DeviceReport {
        self.inner.report(now)
    }

    fn reset_counters(&mut self) {
        self.inner.reset_counters();
        self.injected = 0;
    }

    fn set_tracing(&mut self, on: bool) {
        self.inner.set_tracing(on);
    }

    fn take_touched(&mut self) -> Option<DieSet> {
        self.inner.take_touched()
    }

    fn check_invariants(&self) {
        self.inner.check_invariants();
        assert!(self.next_zone <= self.plan.zones.len());
        assert!(self.next_die <= self.die_changes.len());
    }

    fn inject_fault(&mut self, zone: u32, state: ZoneState) -> Result<(), Status> {
        self.inner.inject_fault(zone, state)
    }

    fn inject_drive_fault(
        &mut self,
        drive: u32,
        zone: u32,
        state: ZoneState,
    ) -> Result<(), Status> {
        self.inner.inject_drive_fault(drive, zone, state)
    }

    fn slow_die(&mut self, die: u32, permille: u32) -> Result<(), Status> {
        self.inner.slow_die(die, permille)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests;
