//! The zone rules a host-side layer presents for its logical zones (v-zones), as the ZNS device
//! presents them for its own (zns-semantics.md, QEMU's check order): LBA range, append start and
//! state, write pointer, zone boundary, active resources. The host-visible state changes at
//! submission; the layer realises it on the physical zones when it dispatches.
//!
//! The open limit equals the active limit (eZNS exposes both as the v-zones a namespace may hold
//! active), so an implicit open never has to close another zone.

use crate::device::{
    Accepted, Command, Data, Op, ReportFilter, Status, ZoneAction, ZoneDescriptor, ZoneReport,
    ZoneState,
};
use crate::time::{Duration, Instant};

#[derive(Clone, Copy, Debug)]
struct LZone {
    state: ZoneState,
    /// Write pointer, in LBAs from the zone start.
    wp: u64,
    /// LBAs holding host data (below the write pointer; less after a Finish).
    data: u64,
}

/// What a zone management command asks the layer to do physically.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Nothing beyond the state change.
    None,
    /// Finish the zone's open physical zones.
    Finish,
    /// Reset the zone's physical zones.
    Reset,
}

/// The logical zones of one namespace.
pub struct LogicalZones {
    zones: Vec<LZone>,
    zone_lbas: u64,
    zone_shift: u32,
    cap_lbas: u64,
    max_active: u32,
    active: u32,
    /// Changes whenever a zone gains its first data or loses it.
    pub epoch: u64,
}

impl LogicalZones {
    /// `count` zones of `zone_lbas` (a power of two) holding `cap_lbas` each, at most
    /// `max_active` active at once.
    pub fn new(count: u32, zone_lbas: u64, cap_lbas: u64, max_active: u32) -> Self {
        assert!(zone_lbas.is_power_of_two() && cap_lbas <= zone_lbas);
        LogicalZones {
            zones: vec![
                LZone {
                    state: ZoneState::Empty,
                    wp: 0,
                    data: 0,
                };
                count as usize
            ],
            zone_lbas,
            zone_shift: zone_lbas.trailing_zeros(),
            cap_lbas,
            max_active,
            active: 0,
            epoch: 0,
        }
    }

    pub fn count(&self) -> u32 {
        self.zones.len() as u32
    }
    pub fn zone_lbas(&self) -> u64 {
        self.zone_lbas
    }
    pub fn cap_lbas(&self) -> u64 {
        self.cap_lbas
    }
    pub fn namespace_lbas(&self) -> u64 {
        self.zone_lbas * self.zones.len() as u64
    }
    pub fn active(&self) -> u32 {
        self.active
    }
    pub fn state(&self, zone: u32) -> ZoneState {
        self.zones[zone as usize].state
    }
    pub fn wp(&self, zone: u32) -> u64 {
        self.zones[zone as usize].wp
    }
    /// LBAs of host data in the zone.
    pub fn data(&self, zone: u32) -> u64 {
        self.zones[zone as usize].data
    }

    #[inline]
    pub fn zone_of(&self, lba: u64) -> u32 {
        (lba >> self.zone_shift) as u32
    }

    fn set_state(&mut self, zone: u32, new: ZoneState) {
        let z = &mut self.zones[zone as usize];
        if z.state.is_active() {
            self.active -= 1;
        }
        if new.is_active() {
            self.active += 1;
        }
        z.state = new;
    }

    /// A fault took `zone` into `state` (Read Only or Offline): it keeps its data and write
    /// pointer but takes no more writes or state changes.
    pub fn force(&mut self, zone: u32, state: ZoneState) {
        self.set_state(zone, state);
    }

    fn check_range(&self, slba: u64, nlb: u64) -> Result<(), Status> {
        if nlb == 0 {
            return Err(Status::InvalidField);
        }
        match slba.checked_add(nlb) {
            Some(end) if end <= self.namespace_lbas() => Ok(()),
            _ => Err(Status::LbaOutOfRange),
        }
    }

    /// A read of `nlb` LBAs at `slba`: its zone and offset in it.
    pub fn read(&self, slba: u64, nlb: u64) -> Result<(u32, u64), Status> {
        self.check_range(slba, nlb)?;
        let zone = self.zone_of(slba);
        if self.state(zone) == ZoneState::Offline {
            return Err(Status::ZoneIsOffline);
        }
        let offset = slba - ((zone as u64) << self.zone_shift);
        if offset + nlb > self.zone_lbas {
            return Err(Status::ZoneBoundaryError);
        }
        Ok((zone, offset))
    }

    /// A write (at `slba`, the write pointer) or an append (to the zone starting at `slba`) of
    /// `nlb` LBAs: checks it, opens the zone implicitly and moves its write pointer. Returns
    /// the zone and the offset written at.
    pub fn write(&mut self, slba: u64, nlb: u64, append: bool) -> Result<(u32, u64), Status> {
        self.check_range(slba, nlb)?;
        let zone = self.zone_of(slba);
        let zslba = (zone as u64) << self.zone_shift;
        if append && slba != zslba {
            return Err(Status::InvalidField);
        }
        let z = self.zones[zone as usize];
        match z.state {
            ZoneState::Full => return Err(Status::ZoneIsFull),
            ZoneState::ReadOnly => return Err(Status::ZoneIsReadOnly),
            ZoneState::Offline => return Err(Status::ZoneIsOffline),
            _ => {}
        }
        let offset = if append { z.wp } else { slba - zslba };
        if offset != z.wp {
            return Err(Status::ZoneInvalidWrite);
        }
        if offset + nlb > self.cap_lbas {
            return Err(Status::ZoneBoundaryError);
        }
        if z.state == ZoneState::Empty && self.active >= self.max_active {
            return Err(Status::TooManyActiveZones);
        }
        if z.state != ZoneState::ExplicitlyOpened {
            self.set_state(zone, ZoneState::ImplicitlyOpened);
        }
        if z.data == 0 {
            self.epoch += 1;
        }
        let z = &mut self.zones[zone as usize];
        z.wp += nlb;
        z.data = z.wp;
        if z.wp == self.cap_lbas {
            self.set_state(zone, ZoneState::Full);
        }
        Ok((zone, offset))
    }

    /// Zone Management Send on the zone starting at `slba`.
    pub fn manage(&mut self, slba: u64, action: ZoneAction) -> Result<(u32, Effect), Status> {
        if slba >= self.namespace_lbas() {
            return Err(Status::LbaOutOfRange);
        }
        if !slba.is_multiple_of(self.zone_lbas) {
            return Err(Status::InvalidField);
        }
        let zone = self.zone_of(slba);
        Ok((zone, self.apply(zone, action)?))
    }

    /// Applies `action` to `zone` (also for Select All).
    pub fn apply(&mut self, zone: u32, action: ZoneAction) -> Result<Effect, Status> {
        use ZoneState::*;
        let state = self.zones[zone as usize].state;
        Ok(match (action, state) {
            (ZoneAction::Open, ExplicitlyOpened) => Effect::None,
            (ZoneAction::Open, Empty | Closed | ImplicitlyOpened) => {
                if state == Empty && self.active >= self.max_active {
                    return Err(Status::TooManyActiveZones);
                }
                self.set_state(zone, ExplicitlyOpened);
                Effect::None
            }
            (ZoneAction::Close, Closed) => Effect::None,
            (ZoneAction::Close, ImplicitlyOpened | ExplicitlyOpened) => {
                self.set_state(zone, Closed);
                Effect::None
            }
            (ZoneAction::Finish, Full) => Effect::None,
            (ZoneAction::Finish, Empty | ImplicitlyOpened | ExplicitlyOpened | Closed) => {
                self.set_state(zone, Full);
                self.zones[zone as usize].wp = self.cap_lbas;
                Effect::Finish
            }
            (ZoneAction::Reset, Empty) => Effect::None,
            (ZoneAction::Reset, ImplicitlyOpened | ExplicitlyOpened | Closed | Full) => {
                self.set_state(zone, Empty);
                let z = &mut self.zones[zone as usize];
                if z.data > 0 {
                    self.epoch += 1;
                }
                z.wp = 0;
                z.data = 0;
                Effect::Reset
            }
            _ => return Err(Status::InvalidZoneStateTransition),
        })
    }

    /// Sets `zone` as if `lbas` had been written and the zone closed (prefill).
    pub fn prefill(&mut self, zone: u32, lbas: u64) {
        assert!(self.zones[zone as usize].state == ZoneState::Empty && lbas <= self.cap_lbas);
        if lbas == 0 {
            return;
        }
        self.epoch += 1;
        let z = &mut self.zones[zone as usize];
        z.wp = lbas;
        z.data = lbas;
        let state = if lbas == self.cap_lbas {
            ZoneState::Full
        } else {
            ZoneState::Closed
        };
        self.set_state(zone, state);
    }

    pub fn descriptor(&self, zone: u32) -> ZoneDescriptor {
        let z = &self.zones[zone as usize];
        let zslba = (zone as u64) << self.zone_shift;
        ZoneDescriptor {
            state: z.state,
            zslba,
            capacity_lbas: self.cap_lbas,
            wp: zslba + z.wp,
        }
    }

    pub fn report(
        &self,
        slba: u64,
        filter: ReportFilter,
        partial: bool,
        max: usize,
    ) -> Result<ZoneReport, Status> {
        if slba >= self.namespace_lbas() {
            return Err(Status::LbaOutOfRange);
        }
        let mut descriptors = Vec::new();
        let mut matching = 0;
        for zone in self.zone_of(slba)..self.count() {
            let d = self.descriptor(zone);
            if filter.matches(d.state) {
                matching += 1;
                if descriptors.len() < max {
                    descriptors.push(d);
                }
            }
        }
        Ok(ZoneReport {
            zone_count: if partial {
                descriptors.len() as u64
            } else {
                matching
            },
            descriptors,
        })
    }

    /// Checks the counts against the zones (tests).
    pub fn check(&self) {
        let active = self.zones.iter().filter(|z| z.state.is_active()).count() as u32;
        assert_eq!(active, self.active, "active logical zones");
        assert!(active <= self.max_active, "active limit");
        for z in &self.zones {
            assert!(z.data <= z.wp && z.wp <= self.cap_lbas);
        }
    }
}

/// A layer whose logical zones ([`LogicalZones`]) live on device zones: it does the physical
/// reads, writes and zone operations; [`submit`] checks a command against the zone rules and
/// calls them. Each returns when it is done and how long erases held it up.
/// Inside a layer's `impl DeviceModel`: the zone queries answered from its logical zones,
/// `self.lz` (one namespace): `zone`, `report_zones`, `written_lbas`, `occupancy_epoch`.
macro_rules! zone_queries {
    () => {
        fn zone(&self, _nsid: u32, zone: u32) -> $crate::device::ZoneDescriptor {
            self.lz.descriptor(zone)
        }

        fn report_zones(
            &self,
            nsid: u32,
            slba: u64,
            filter: $crate::device::ReportFilter,
            partial: bool,
            max_descriptors: usize,
        ) -> Result<$crate::device::ZoneReport, $crate::device::Status> {
            if nsid != 0 {
                return Err($crate::device::Status::InvalidNamespace);
            }
            self.lz.report(slba, filter, partial, max_descriptors)
        }

        fn written_lbas(&self, _nsid: u32, zone: u32) -> u64 {
            self.lz.data(zone)
        }

        fn occupancy_epoch(&self) -> u64 {
            self.lz.epoch
        }

        fn peek(&self, nsid: u32, slba: u64, buf: &mut [u8]) -> Result<(), $crate::device::Status> {
            if nsid != 0 {
                return Err($crate::device::Status::InvalidNamespace);
            }
            let lbas = buf.len() as u64 / $crate::host::lzone::ZoneBackend::lba_bytes(self);
            let (zone, offset) = self.lz.read(slba, lbas)?;
            $crate::host::lzone::ZoneBackend::peek(self, zone, offset, buf)
        }
    };
}
pub(crate) use zone_queries;

/// Inside the `impl DeviceModel` of a layer over one device, `self.dev`: its background work,
/// time, report, counters, tracing and dies used are the device's.
macro_rules! one_device_below {
    () => {
        fn has_background_work(&self) -> bool {
            self.dev.has_background_work()
        }

        fn advance(
            &mut self,
            now: $crate::time::Instant,
            done: &mut Vec<$crate::device::Completed>,
        ) -> Option<$crate::time::Instant> {
            self.dev.advance(now, done)
        }

        fn idle_at(&self) -> $crate::time::Instant {
            self.dev.idle_at()
        }

        fn retains_data(&self) -> bool {
            self.dev.retains_data()
        }

        fn report(&self, now: $crate::time::Instant) -> $crate::device::DeviceReport {
            self.dev.report(now)
        }

        fn reset_counters(&mut self) {
            self.dev.reset_counters();
        }

        fn set_tracing(&mut self, on: bool) {
            self.dev.set_tracing(on);
        }

        fn take_touched(&mut self) -> Option<$crate::nand::DieSet> {
            self.dev.take_touched()
        }
    };
}
pub(crate) use one_device_below;

/// When a command to the device under a layer completes: at submission. A layer over
/// `dyn DeviceModel` has no way to hand on a completion the device reports later (through
/// `advance`), and the devices it stacks on (a ZNS drive, an array, static zones, the FTL)
/// report every command at once.
pub fn at_submission(a: &Accepted) -> Instant {
    a.done
        .expect("the device under a layer completes commands at submission")
}

pub trait ZoneBackend {
    fn zones(&mut self) -> &mut LogicalZones;
    fn lba_bytes(&self) -> u64;
    fn read(
        &mut self,
        now: Instant,
        zone: u32,
        offset: u64,
        nlb: u64,
        buf: Option<&mut [u8]>,
    ) -> Result<(Instant, Duration), Status>;
    fn write(
        &mut self,
        now: Instant,
        zone: u32,
        offset: u64,
        nlb: u64,
        data: Option<&[u8]>,
    ) -> Result<(Instant, Duration), Status>;
    /// What `read` of `buf.len()` bytes at `offset` of `zone` puts in its buffer, without time
    /// or counters ([`crate::device::DeviceModel::peek`]).
    fn peek(&self, zone: u32, offset: u64, buf: &mut [u8]) -> Result<(), Status>;
    fn manage(&mut self, now: Instant, zone: u32, effect: Effect) -> Result<Instant, Status>;
    fn flush(&mut self, now: Instant) -> Result<Instant, Status>;
}

/// A command on `layer`'s logical zones (namespace 0), completed at once.
pub fn submit(
    layer: &mut impl ZoneBackend,
    now: Instant,
    cmd: Command<'_>,
) -> Result<Accepted, Status> {
    if cmd.nsid != 0 {
        return Err(Status::InvalidNamespace);
    }
    let (slba, nlb, lba_bytes) = (cmd.slba, cmd.nlb, layer.lba_bytes());
    let check_len = |len: usize| match nlb.checked_mul(lba_bytes) == Some(len as u64) {
        true => Ok(()),
        false => Err(Status::InvalidField),
    };
    let ((done, erase_wait), lba) = match (cmd.op, cmd.data) {
        (Op::Read, data) => {
            let buf = match data {
                Data::In(b) => {
                    check_len(b.len())?;
                    Some(b)
                }
                _ => None,
            };
            let (zone, offset) = layer.zones().read(slba, nlb)?;
            (layer.read(now, zone, offset, nlb, buf)?, slba)
        }
        (op @ (Op::Write | Op::Append), data) => {
            let bytes = match data {
                Data::Out(d) => {
                    check_len(d.len())?;
                    Some(d)
                }
                _ => None,
            };
            let (zone, offset) = layer.zones().write(slba, nlb, op == Op::Append)?;
            let done = layer.write(now, zone, offset, nlb, bytes)?;
            (done, zone as u64 * layer.zones().zone_lbas() + offset)
        }
        (Op::ZoneMgmt(action), _) => {
            let (zone, effect) = layer.zones().manage(slba, action)?;
            ((layer.manage(now, zone, effect)?, Duration::ZERO), slba)
        }
        (Op::ZoneMgmtAll(action), _) => {
            let mut done = now;
            for zone in 0..layer.zones().count() {
                if action.select_all_applies(layer.zones().state(zone)) {
                    let effect = layer.zones().apply(zone, action)?;
                    done = done.max(layer.manage(now, zone, effect)?);
                }
            }
            ((done, Duration::ZERO), 0)
        }
        (Op::Trim, _) => ((now, Duration::ZERO), slba),
        (Op::Flush, _) => ((layer.flush(now)?, Duration::ZERO), 0),
    };
    Ok(Accepted {
        done: Some(done),
        lba,
        start: now,
        erase_wait,
    })
}
