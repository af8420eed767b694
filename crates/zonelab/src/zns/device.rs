//! The ZNS device's state and its side of the device seam.

use hdrhistogram::Histogram;
use smallvec::{SmallVec, smallvec};

use super::ZnsSpec;
use super::cache::SharedCache;
use super::pieces::Piece;
use super::state::Zone;
use super::store::ZoneStore;
use crate::device::{
    Accepted, Command, Completed, Data, DeviceCounters, DeviceInfo, DeviceModel, DeviceReport, Op,
    ReportFilter, Status, ZoneDescriptor, ZoneReport, ZoneState,
};
use crate::firmware::{self, Firmware, PieceRef, PolicySpec};
use crate::metrics::Recorder;
use crate::metrics::series::Sampling;
use crate::nand::{DieSet, Divisor, EnergyNj, Layout, Nand, NandCounters, WearSummary};
use crate::time::Instant;

pub struct Device {
    pub(super) spec: ZnsSpec,
    info: DeviceInfo,
    pub(super) nand: Nand,
    pub(super) layout: Layout,
    pub(super) zones: Vec<Zone>,
    /// Per physical zone, one past the highest unit programmed since its last erase.
    pub(super) phys_high: Vec<u64>,
    /// Per physical zone, how many pieces of logical zones map to it.
    pub(super) owners: Vec<u32>,
    /// Program units in a zone's capacity.
    pub(super) cap_units: u64,
    pub(super) firmware: Firmware,
    pub(super) open_zones: u32,
    pub(super) active_zones: u32,
    /// Open zones, and each zone's position in that list.
    pub(super) open_list: Vec<u32>,
    pub(super) open_pos: Vec<u32>,
    pub(super) sequence: u64,
    /// Changes whenever a zone gains its first data or loses it.
    pub(super) occupancy_epoch: u64,
    /// Per logical zone, the bytes written below `data_lbas` (with data retention only).
    pub(super) data: Option<ZoneStore>,
    pub(super) zone_lbas: u64,
    pub(super) zone_div: Divisor,
    pub(super) namespace_lbas: u64,
    pub(super) cap_lbas: u64,
    pub(super) lba_bytes: u64,
    pub(super) buffer_units: u64,
    /// Write buffer rings, `buffer_units` per zone: when each slot's unit leaves the buffer.
    pub(super) buffer_release: Vec<Instant>,
    /// The write cache shared by all dies, if the device has one.
    pub(super) cache: Option<SharedCache>,
    pub(super) counters: DeviceCounters,
    /// Foreground commands cannot start before this (blocking erases).
    pub(super) blocked_until: Instant,
    /// When the last foreground command submitted completes.
    pub(super) busy_until: Instant,
    /// When the background erase in progress ends.
    pub(super) background_until: Instant,
    /// When every program booked so far is done (what a Flush waits for).
    pub(super) programs_done: Instant,
    /// The latest submission time: time never goes backwards.
    pub(super) last_now: Instant,
    /// Per foreground command, how long erases held it up (ns).
    erase_wait: Recorder,
}

impl Device {
    pub fn new(spec: &ZnsSpec, firmware: Firmware, retain_data: bool) -> Self {
        let z = &spec.zones;
        let n = z.zone_count as usize;
        let layout = spec.layout();
        let cap_units = spec.capacity_units();
        let buffer_units = spec.write_buffer_units_per_zone as u64;
        let static_mapping = firmware.static_mapping();
        let zones: Vec<Zone> = (0..z.zone_count)
            .map(|pz| {
                Zone::new(if static_mapping {
                    smallvec![Piece::whole_zone(pz, cap_units, layout.unit_bytes)]
                } else {
                    SmallVec::new()
                })
            })
            .collect();
        Device {
            info: spec.info(),
            nand: Nand::from_spec(&spec.nand),
            layout,
            zones,
            phys_high: vec![0; n],
            owners: vec![static_mapping as u32; n],
            cap_units,
            firmware,
            open_zones: 0,
            active_zones: 0,
            open_list: Vec::new(),
            open_pos: vec![u32::MAX; n],
            sequence: 0,
            occupancy_epoch: 0,
            data: retain_data.then(|| ZoneStore::new(n, z.zone_capacity_bytes)),
            zone_lbas: spec.zone_size_lbas(),
            zone_div: Divisor::new(spec.zone_size_lbas()),
            namespace_lbas: spec.zone_size_lbas() * z.zone_count as u64,
            cap_lbas: spec.zone_capacity_lbas(),
            lba_bytes: z.lba_size_bytes,
            buffer_units,
            buffer_release: vec![Instant::ZERO; n * buffer_units as usize],
            cache: (spec.write_cache_units > 0)
                .then(|| SharedCache::new(spec.write_cache_units, n)),
            counters: DeviceCounters::default(),
            blocked_until: Instant::ZERO,
            busy_until: Instant::ZERO,
            background_until: Instant::ZERO,
            programs_done: Instant::ZERO,
            last_now: Instant::ZERO,
            erase_wait: Recorder::default(),
            spec: spec.clone(),
        }
    }

    /// A device running the policy `policy` names; its firmware samples its queues as the
    /// run's time series do (`sampling`).
    pub fn build(
        spec: &ZnsSpec,
        policy: &PolicySpec,
        retain_data: bool,
        sampling: Sampling,
    ) -> Self {
        let policy = firmware::build(
            policy,
            &spec.layout(),
            spec.zones.zone_count,
            spec.capacity_units(),
            sampling,
        );
        Device::new(spec, policy, retain_data)
    }

    pub fn spec(&self) -> &ZnsSpec {
        &self.spec
    }
    pub fn zone_count(&self) -> u32 {
        self.spec.zones.zone_count
    }
    pub fn zone_size_lbas(&self) -> u64 {
        self.zone_lbas
    }
    pub fn zone_capacity_lbas(&self) -> u64 {
        self.cap_lbas
    }
    pub fn namespace_lbas(&self) -> u64 {
        self.namespace_lbas
    }
    pub fn open_zones(&self) -> u32 {
        self.open_zones
    }
    pub fn active_zones(&self) -> u32 {
        self.active_zones
    }
    pub fn counters(&self) -> &DeviceCounters {
        &self.counters
    }
    pub fn nand_counters(&self) -> &NandCounters {
        &self.nand.counters
    }
    pub fn energy(&self) -> EnergyNj {
        EnergyNj::of(&self.nand.counters, &self.spec.nand.energy)
    }
    pub fn wear(&self) -> WearSummary {
        self.nand.wear()
    }
    pub fn retains_data(&self) -> bool {
        self.data.is_some()
    }

    /// The physical zone logical zone `zone` writes into now (its last piece), if any.
    pub fn physical_zone(&self, zone: u32) -> Option<u32> {
        self.zones[zone as usize].pieces.last().map(|p| p.pz)
    }

    /// Where logical zone `zone`'s bytes live, piece by piece.
    pub fn zone_pieces(&self, zone: u32) -> Vec<PieceRef> {
        self.zones[zone as usize]
            .pieces
            .iter()
            .map(Piece::as_ref)
            .collect()
    }

    pub fn zone_descriptor(&self, zone: u32) -> ZoneDescriptor {
        let z = &self.zones[zone as usize];
        let zslba = zone as u64 * self.zone_lbas;
        ZoneDescriptor {
            state: z.state,
            zslba,
            capacity_lbas: self.cap_lbas,
            wp: zslba + z.wp,
        }
    }

    /// Copies the retained bytes of `buf.len()` bytes from `slba` into `buf`, without timing or
    /// counters (a host layer that queues a read fills the host's buffer at submission with
    /// this, then times the read when it reaches the device). Zeros without data retention.
    pub fn peek(&self, slba: u64, buf: &mut [u8]) {
        let zi = self.zone_div.quot(slba) as u32;
        let offset = (slba - zi as u64 * self.zone_lbas) * self.lba_bytes;
        match &self.data {
            Some(store) => store.read(zi, offset as usize, buf),
            None => buf.fill(0),
        }
    }

    /// Cache slots held by units still filling (tests of the shared write cache).
    pub fn cache_slots_held(&self) -> Option<u32> {
        self.cache.as_ref().map(SharedCache::held)
    }

    /// LBAs of host data in the zone (what a read below the write pointer returns).
    pub fn zone_data_lbas(&self, zone: u32) -> u64 {
        self.zones[zone as usize].data_lbas
    }

    /// Takes a submission time: never earlier than the last one, and the NAND's horizon.
    #[inline]
    pub(super) fn enter(&mut self, now: Instant) -> Instant {
        debug_assert!(
            now >= self.last_now,
            "time went backwards: {now:?} < {:?}",
            self.last_now
        );
        let now = now.max(self.last_now);
        self.last_now = now;
        self.nand.set_now(now);
        now
    }

    /// Start time of a foreground command submitted at `now`: blocking erases hold it.
    pub(super) fn foreground_start(&self, now: Instant) -> Instant {
        now.max(self.blocked_until)
    }

    /// Bookkeeping at the end of a foreground I/O command: busy time and erase wait.
    pub(super) fn foreground_done(
        &mut self,
        now: Instant,
        start: Instant,
        done: Instant,
        lba: u64,
    ) -> Accepted {
        self.busy_until = self.busy_until.max(done);
        let wait = (start - now).max(self.nand.take_erase_wait());
        self.erase_wait.record(wait.ns());
        Accepted {
            done: Some(done),
            lba,
            start,
            erase_wait: wait,
        }
    }

    /// How long foreground commands waited on erases (one sample per read, write or append).
    pub fn erase_wait_histogram(&self) -> Histogram<u64> {
        self.erase_wait.histogram()
    }

    /// Puts a zone in Read Only or Offline, as a media fault would; its resources are released.
    pub fn inject_fault(&mut self, zone: u32, state: ZoneState) {
        assert!(
            matches!(state, ZoneState::ReadOnly | ZoneState::Offline),
            "faults are Read Only or Offline"
        );
        self.occupancy_epoch += 1;
        self.set_state(zone, state);
    }

    fn reports(&self, slba: u64, filter: ReportFilter, partial: bool, max: usize) -> ZoneReport {
        let first = (slba / self.zone_lbas) as u32;
        let mut descriptors = Vec::new();
        let mut matching = 0u64;
        for zi in first..self.spec.zones.zone_count {
            let d = self.zone_descriptor(zi);
            if filter.matches(d.state) {
                matching += 1;
                if descriptors.len() < max {
                    descriptors.push(d);
                }
            }
        }
        ZoneReport {
            zone_count: if partial {
                descriptors.len() as u64
            } else {
                matching
            },
            descriptors,
        }
    }

    /// Checks every invariant of the zone state machine and the piece map; panics with the
    /// broken one. A whole-device scan: tests and debug builds.
    pub fn check_invariants(&self) {
        self.check_resources();
        self.nand.check_invariants();
        let unit = self.layout.unit_bytes;
        for (i, z) in self.zones.iter().enumerate() {
            assert!(
                z.wp <= self.cap_lbas,
                "zone {i}: write pointer beyond capacity"
            );
            assert!(z.data_lbas <= z.wp, "zone {i}: data beyond write pointer");
            match z.state {
                ZoneState::Empty => {
                    assert_eq!(z.wp, 0, "zone {i}: empty zone with a write pointer")
                }
                ZoneState::Full => {
                    assert_eq!(z.wp, self.cap_lbas, "zone {i}: full zone not at capacity")
                }
                _ => {}
            }
            self.check_pieces(i, z, unit);
            if let Some(last) = z.pieces.last() {
                assert_eq!(
                    z.units_streamed,
                    last.stream_base + last.programmed_units,
                    "zone {i}: write stream position"
                );
            }
            if let Some(store) = &self.data {
                assert_eq!(
                    store.len(i as u32) as u64,
                    z.data_lbas * self.lba_bytes,
                    "zone {i}: retained data length"
                );
            }
        }
        assert_eq!(
            self.scanned_owners(),
            self.owners,
            "owner counts per physical zone"
        );
    }

    /// Zone `i`'s pieces: in order, within their space and the physical frontier, within the
    /// zone's share of the device, and holding what the host wrote.
    fn check_pieces(&self, i: usize, z: &Zone, unit: u64) {
        let stored: u64 = z
            .pieces
            .iter()
            .map(|p| p.programmed_units * unit + p.staged_bytes)
            .sum();
        let mut expect = 0;
        for p in &z.pieces {
            assert_eq!(p.lstart, expect, "zone {i}: pieces cover the zone in order");
            assert!(p.data <= p.cap, "zone {i}: piece holds more than its space");
            assert!(
                p.programmed_units == 0 || p.frontier_unit() <= self.phys_high[p.pz as usize],
                "zone {i}: programmed beyond the physical frontier"
            );
            expect += p.cap;
        }
        // The firmware never promises space it cannot deliver: the units a zone's pieces
        // take, plus those its unwritten capacity still needs, stay within the zone's
        // share of the device (so live data plus reservations always fit).
        let taken: u64 = z.pieces.iter().map(|p| p.data.div_ceil(unit)).sum();
        // (Counted from the end of the unit the data reaches: a partial unit is taken.)
        let written = (z.data_lbas * self.lba_bytes).next_multiple_of(unit);
        let to_come = match z.state {
            ZoneState::Full | ZoneState::ReadOnly | ZoneState::Offline => 0,
            _ => (self.cap_lbas * self.lba_bytes)
                .saturating_sub(written)
                .div_ceil(unit),
        };
        assert!(
            z.pieces.len() <= 1 || taken + to_come <= self.cap_units,
            "zone {i}: {taken} units taken and {to_come} to come exceed the zone's {}",
            self.cap_units
        );
        assert!(
            stored >= z.data_lbas * self.lba_bytes,
            "zone {i}: NAND holds less than the host wrote"
        );
    }

    /// Logical zones mapping to each physical zone, counted from every zone's pieces.
    pub(super) fn scanned_owners(&self) -> Vec<u32> {
        let mut owners = vec![0u32; self.owners.len()];
        for p in self.zones.iter().flat_map(|z| &z.pieces) {
            owners[p.pz as usize] += 1;
        }
        owners
    }
}

impl DeviceModel for Device {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn policy_name(&self) -> &'static str {
        self.firmware.name()
    }

    fn retains_data(&self) -> bool {
        self.data.is_some()
    }

    fn peek(&self, nsid: u32, slba: u64, buf: &mut [u8]) -> Result<(), Status> {
        let lbas = buf.len() as u64 / self.lba_bytes;
        if nsid != 0
            || slba
                .checked_add(lbas)
                .is_none_or(|end| end > self.info.namespace_lbas)
        {
            return Err(Status::LbaOutOfRange);
        }
        Device::peek(self, slba, buf);
        Ok(())
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
            (Op::Append, Data::Out(data)) => self.append(now, slba, nlb, Some(data)),
            (Op::Append, _) => self.append(now, slba, nlb, None),
            (Op::ZoneMgmt(action), _) => self.zone_mgmt_send(now, slba, action, false),
            (Op::ZoneMgmtAll(action), _) => self.zone_mgmt_send(now, 0, action, true),
            (Op::Trim, _) => self.trim(now, slba, nlb),
            (Op::Flush, _) => self.flush(now),
        }
    }

    fn has_background_work(&self) -> bool {
        self.firmware.has_background_work()
    }

    fn prefill_zones(&mut self, plan: &[(u32, u64)]) {
        self.prefill(&super::PrefillPlan {
            zones: plan.to_vec(),
        });
    }

    fn advance(&mut self, now: Instant, _done: &mut Vec<Completed>) -> Option<Instant> {
        self.background(now)
    }

    fn zone(&self, _nsid: u32, zone: u32) -> ZoneDescriptor {
        self.zone_descriptor(zone)
    }

    fn report_zones(
        &self,
        nsid: u32,
        slba: u64,
        filter: ReportFilter,
        partial: bool,
        max_descriptors: usize,
    ) -> Result<ZoneReport, Status> {
        if nsid != 0 {
            return Err(Status::InvalidNamespace);
        }
        if slba >= self.namespace_lbas() {
            return Err(Status::LbaOutOfRange);
        }
        Ok(self.reports(slba, filter, partial, max_descriptors))
    }

    fn written_lbas(&self, _nsid: u32, zone: u32) -> u64 {
        if self.zones[zone as usize].state == ZoneState::Offline {
            0
        } else {
            self.zones[zone as usize].data_lbas
        }
    }

    fn occupancy_epoch(&self) -> u64 {
        self.occupancy_epoch
    }

    #[inline]
    fn prefetch_zone(&self, _nsid: u32, zone: u32) {
        if let Some(z) = self.zones.get(zone as usize) {
            crate::prefetch::prefetch(z);
        }
    }

    fn idle_at(&self) -> Instant {
        self.nand
            .idle_at()
            .max(self.busy_until)
            .max(self.blocked_until)
            .max(self.last_now)
    }

    fn report(&self, now: Instant) -> DeviceReport {
        DeviceReport {
            counters: self.counters,
            nand: self.nand.counters,
            page_size_bytes: self.spec.nand.geometry.page_size_bytes,
            energy: self.energy(),
            wear: self.wear(),
            erase_wait: self.erase_wait.histogram(),
            firmware: self.firmware.report(now),
        }
    }

    fn reset_counters(&mut self) {
        self.counters = DeviceCounters::default();
        self.nand.reset_counters();
        self.nand.take_erase_wait();
        self.erase_wait = Recorder::default();
    }

    fn set_tracing(&mut self, on: bool) {
        self.nand.set_tracing(on);
    }

    fn take_touched(&mut self) -> Option<DieSet> {
        self.nand.take_touched()
    }

    fn check_invariants(&self) {
        Device::check_invariants(self);
    }

    fn inject_fault(&mut self, zone: u32, state: ZoneState) -> Result<(), Status> {
        if zone >= self.spec.zones.zone_count
            || !matches!(state, ZoneState::ReadOnly | ZoneState::Offline)
        {
            return Err(Status::InvalidField);
        }
        Device::inject_fault(self, zone, state);
        Ok(())
    }

    fn slow_die(&mut self, die: u32, permille: u32) -> Result<(), Status> {
        let set = self.nand.set_die_slowdown(die, permille);
        set.then_some(()).ok_or(Status::InvalidField)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
