//! The device seam: the one interface every device model implements (the ZNS device, the
//! conventional SSD, host-side layers that present a device such as eZNS v-zones) and every
//! front end drives (`zonelab run`, the fio engine, the block device, Python).
//!
//! A command is submitted at a simulated time and either completes at a time known at once (the
//! NAND timelines decide it) or later, reported by [`DeviceModel::advance`]. State changes take
//! effect at submission, in submission order, as one NVMe queue pair gives them. Submission times
//! never go backwards. Background work (idle-time erases, daemons, device GC) happens only inside
//! `advance`, which every front end calls as its time moves, so every front end sees it.

pub mod faults;
pub mod report;
mod status;
mod zone;

use hdrhistogram::Histogram;

pub use report::{FirmwareReport, LayerReport};
pub use status::Status;
pub use zone::{
    ReportFilter, ZoneAction, ZoneDescriptor, ZoneReport, ZoneState, format_libzbd, format_nvme_cli,
};

use crate::nand::{DieSet, EnergyNj, NandCounters, WearSummary};
use crate::time::{Duration, Instant};

/// Zoned namespaces: their zones and limits. All namespaces of a device share one shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZonedInfo {
    pub zone_size_lbas: u64,
    pub zone_capacity_lbas: u64,
    pub zone_count: u32,
    /// Max Open Resources; None: no limit.
    pub max_open_zones: Option<u32>,
    /// Max Active Resources; None: no limit.
    pub max_active_zones: Option<u32>,
    /// Zone Append Size Limit in LBAs; None: no limit.
    pub zone_append_size_limit_lbas: Option<u64>,
}

impl ZonedInfo {
    /// The tighter of the open and active limits (what a host can keep writing at once).
    pub fn open_limit(&self) -> Option<u32> {
        match (self.max_open_zones, self.max_active_zones) {
            (Some(o), Some(a)) => Some(o.min(a)),
            (o, a) => o.or(a),
        }
    }
}

/// What a host learns from Identify: the block size, the size of each namespace and, for a zoned
/// device, its zones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    pub name: String,
    pub lba_size_bytes: u64,
    pub namespace_lbas: u64,
    pub namespaces: u32,
    /// None: a conventional block device.
    pub zoned: Option<ZonedInfo>,
}

impl DeviceInfo {
    pub fn zoned(&self) -> Option<&ZonedInfo> {
        self.zoned.as_ref()
    }
    pub fn namespace_bytes(&self) -> u64 {
        self.namespace_lbas * self.lba_size_bytes
    }
}

/// NVMe commands, by what they do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Read,
    Write,
    /// Zone Append: `slba` names the zone; the LBA written comes back in [`Accepted::lba`].
    Append,
    /// Zone Management Send on the zone starting at `slba`.
    ZoneMgmt(ZoneAction),
    /// Zone Management Send with Select All.
    ZoneMgmtAll(ZoneAction),
    /// Dataset Management, deallocate.
    Trim,
    /// Flush: completes once everything written before it is on NAND.
    Flush,
}

/// Bytes a command carries. With data retention off a device ignores them.
#[derive(Debug, Default)]
pub enum Data<'a> {
    #[default]
    None,
    /// A write's bytes (exactly `nlb` LBAs).
    Out(&'a [u8]),
    /// A read's buffer (exactly `nlb` LBAs), filled at submission.
    In(&'a mut [u8]),
}

#[derive(Debug)]
pub struct Command<'a> {
    pub nsid: u32,
    pub op: Op,
    pub slba: u64,
    pub nlb: u64,
    pub data: Data<'a>,
    /// The submitter's name for the command; a completion reported later carries it.
    pub tag: u64,
}

impl<'a> Command<'a> {
    pub fn new(op: Op, slba: u64, nlb: u64) -> Self {
        Command {
            nsid: 0,
            op,
            slba,
            nlb,
            data: Data::None,
            tag: 0,
        }
    }
    pub fn read(slba: u64, nlb: u64) -> Self {
        Command::new(Op::Read, slba, nlb)
    }
    pub fn write(slba: u64, nlb: u64) -> Self {
        Command::new(Op::Write, slba, nlb)
    }
    pub fn append(zslba: u64, nlb: u64) -> Self {
        Command::new(Op::Append, zslba, nlb)
    }
    pub fn zone(action: ZoneAction, zslba: u64) -> Self {
        Command::new(Op::ZoneMgmt(action), zslba, 0)
    }
    pub fn with_data(mut self, data: Data<'a>) -> Self {
        self.data = data;
        self
    }
    pub fn on(mut self, nsid: u32) -> Self {
        self.nsid = nsid;
        self
    }
    pub fn tagged(mut self, tag: u64) -> Self {
        self.tag = tag;
        self
    }
}

/// A command the device took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Accepted {
    /// When it completes; None: [`DeviceModel::advance`] reports it later under its tag.
    pub done: Option<Instant>,
    /// Zone Append: the LBA written. Otherwise the command's `slba`.
    pub lba: u64,
    /// When the device started on it (after blocking erases ahead of it).
    pub start: Instant,
    /// How long erases held it up.
    pub erase_wait: Duration,
}

/// A completion reported by [`DeviceModel::advance`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completed {
    pub tag: u64,
    pub done: Instant,
}

/// Counts of host-visible commands and of the device's own work since the last
/// [`DeviceModel::reset_counters`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DeviceCounters {
    pub host_read_bytes: u64,
    pub host_write_bytes: u64,
    /// Zones the host asked to reset (Select All counts each zone it applies to).
    pub zone_resets_requested: u64,
    /// Zones whose blocks were erased for a reset, at once (synchronous) or later (mapping
    /// policies); resets of zones with nothing programmed erase nothing and are not counted.
    pub zone_resets_executed: u64,
    pub zone_finishes: u64,
    /// Zones the controller closed to free an open resource.
    pub implicit_closes: u64,
    /// The most zones open at once.
    pub open_zones_max: u32,
    /// The most zones active at once.
    pub active_zones_max: u32,
    /// Program units the firmware copied to compact a physical zone (ReZNS out of space).
    pub compacted_units: u64,
    pub trims: u64,
    pub flushes: u64,
    /// Filler a device that pads finished zones programmed (`finish_pads_zone`).
    pub finish_padding_bytes: u64,
}

/// Two devices' counts together (a device made of several): the sums, and the larger of the
/// maxima. A new counter goes here beside its field.
impl std::ops::AddAssign<&DeviceCounters> for DeviceCounters {
    fn add_assign(&mut self, o: &DeviceCounters) {
        self.host_read_bytes += o.host_read_bytes;
        self.host_write_bytes += o.host_write_bytes;
        self.zone_resets_requested += o.zone_resets_requested;
        self.zone_resets_executed += o.zone_resets_executed;
        self.zone_finishes += o.zone_finishes;
        self.implicit_closes += o.implicit_closes;
        self.open_zones_max = self.open_zones_max.max(o.open_zones_max);
        self.active_zones_max = self.active_zones_max.max(o.active_zones_max);
        self.compacted_units += o.compacted_units;
        self.trims += o.trims;
        self.flushes += o.flushes;
        self.finish_padding_bytes += o.finish_padding_bytes;
    }
}

/// Everything a device reports about itself.
pub struct DeviceReport {
    pub counters: DeviceCounters,
    pub nand: NandCounters,
    pub page_size_bytes: u64,
    pub energy: EnergyNj,
    pub wear: WearSummary,
    /// Per foreground read, write or append: how long erases held it up.
    pub erase_wait: Histogram<u64>,
    pub firmware: Option<FirmwareReport>,
}

/// The device seam.
pub trait DeviceModel: Send {
    fn info(&self) -> &DeviceInfo;

    /// The firmware policy (or FTL) the model runs, for reports.
    fn policy_name(&self) -> &'static str;

    /// Takes a command at `now` (never earlier than the last submission or advance).
    fn submit(&mut self, now: Instant, cmd: Command<'_>) -> Result<Accepted, Status>;

    /// Whether `advance` can ever do anything (background work or late completions): front ends
    /// skip calling it for models that never do.
    fn has_background_work(&self) -> bool {
        true
    }

    /// Lets the device do background work up to `now` and hands over completions that became
    /// known. Returns when it next wants to be advanced (a background erase ends, a timer is due,
    /// a pending completion becomes known), if ever.
    fn advance(&mut self, now: Instant, done: &mut Vec<Completed>) -> Option<Instant>;

    /// One zone's descriptor (zoned devices; `zone` < zone_count).
    fn zone(&self, nsid: u32, zone: u32) -> ZoneDescriptor;

    /// Whether the model keeps the bytes written (reads return them) or only their timing.
    fn retains_data(&self) -> bool;

    /// Copies what a read of `buf.len()` bytes from `slba` would return now into `buf`, without
    /// time, counters or checks beyond the range (a layer above that queues a read fills the
    /// host's buffer at submission with this, then times the read when it goes to the device).
    /// Zeros without data retention. Models no layer can queue reads over refuse it.
    fn peek(&self, _nsid: u32, _slba: u64, _buf: &mut [u8]) -> Result<(), Status> {
        Err(Status::InvalidOpcode)
    }

    /// Zone Management Receive: Report Zones from the zone holding `slba`.
    fn report_zones(
        &self,
        nsid: u32,
        slba: u64,
        filter: ReportFilter,
        partial: bool,
        max_descriptors: usize,
    ) -> Result<ZoneReport, Status>;

    /// LBAs of host data in a zone, from its start (a simulator convenience: what a host that
    /// remembers its writes knows; below the write pointer after a Finish).
    fn written_lbas(&self, nsid: u32, zone: u32) -> u64;

    /// A hint that a command for zone `zone` is coming: a model may start bringing that zone's
    /// state into the CPU cache. It changes nothing in the model (random reads over many zones
    /// otherwise wait on a cache miss per command).
    fn prefetch_zone(&self, _nsid: u32, _zone: u32) {}

    /// A hint that a command for `lba` is coming: a model may start bringing that address's
    /// state (a conventional SSD's map entry) into the CPU cache. It changes nothing in the model.
    fn prefetch_lba(&self, _nsid: u32, _lba: u64) {}

    /// Changes whenever some zone goes from holding no data to holding some, or back: hosts cache
    /// zone lists against it.
    fn occupancy_epoch(&self) -> u64;

    /// When everything submitted so far is done and the device is idle.
    fn idle_at(&self) -> Instant;

    fn report(&self, now: Instant) -> DeviceReport;

    /// Starts a new measurement phase: counters go back to zero (wear stays).
    fn reset_counters(&mut self);

    /// Turns the per-command record of dies used on or off.
    fn set_tracing(&mut self, on: bool);

    /// With tracing on: the dies the commands since the last call used.
    fn take_touched(&mut self) -> Option<DieSet>;

    /// Checks every invariant of the model (whole-device scans: tests and debug builds).
    fn check_invariants(&self);

    /// A media fault at run time: zone `zone` goes Read Only or Offline now
    /// ([`faults::Faulty`]). Models without zones of their own refuse it.
    fn inject_fault(&mut self, _zone: u32, _state: ZoneState) -> Result<(), Status> {
        Err(Status::InvalidOpcode)
    }

    /// A zone fault on drive `drive` of a device made of several (an array); a single device
    /// has none.
    fn inject_drive_fault(
        &mut self,
        _drive: u32,
        _zone: u32,
        _state: ZoneState,
    ) -> Result<(), Status> {
        Err(Status::InvalidField)
    }

    /// A die slowed by a fault at run time: operations booked on NAND die `die` from now on take
    /// `permille` / 1000 times their NAND time (1000: full speed again). Models without NAND
    /// of their own refuse it.
    fn slow_die(&mut self, _die: u32, _permille: u32) -> Result<(), Status> {
        Err(Status::InvalidOpcode)
    }

    /// Sets zones of namespace 0 up as if written, at no simulated time (a `[prefill]` that a
    /// layer above passes down): per zone, the LBAs written from its start, in order. Zoned
    /// models a layer can stack on take it (the config lets no other be stacked on).
    fn prefill_zones(&mut self, plan: &[(u32, u64)]) {
        assert!(plan.is_empty(), "{}: no zones to prefill", self.info().name);
    }

    /// The model itself, for code above the seam that needs one kind of model (device state
    /// files, which hold ZNS devices only): the seam names no model and no file format.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// Advances `device` through every time it asked for up to `now`, then to `now`: background
/// work that would have started in between does, as it would have on a device left alone.
pub fn catch_up(
    device: &mut dyn DeviceModel,
    wake: &mut Option<Instant>,
    now: Instant,
    done: &mut Vec<Completed>,
) {
    while let Some(t) = *wake
        && t < now
    {
        *wake = device.advance(t, done);
        if *wake == Some(t) {
            break;
        }
    }
    *wake = device.advance(now, done);
}

#[cfg(test)]
mod tests;
