//! A deliberately plain model of the ZNS zone rules (NVMe ZNS 1.1, sections 2.1 and 5; QEMU's
//! order of checks), written apart from the device: every zone's state, write pointer and
//! bytes, the open and active resources, and the status each command returns. The device's
//! property tests (`zns::reference_tests`) and the seed swarm feed the device and this model the
//! same commands and compare statuses, states, write pointers and every byte read.

use crate::device::{Status, ZoneAction, ZoneState};

/// A namespace's zone resources; None: no limit.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    pub max_open_zones: Option<u32>,
    pub max_active_zones: Option<u32>,
    pub zone_append_size_limit_lbas: Option<u64>,
}

#[derive(Clone, Debug)]
pub struct Zone {
    pub state: ZoneState,
    /// Write pointer, in LBAs from the zone's start.
    pub wp: u64,
    pub data: Vec<u8>,
    /// When the zone was last opened or written (the device closes the least recent first).
    pub used: u64,
}

/// The zone rules of one namespace.
#[derive(Clone, Debug)]
pub struct Model {
    pub zones: Vec<Zone>,
    pub zone_lbas: u64,
    pub cap: u64,
    pub lba: u64,
    pub max_open: usize,
    pub max_active: usize,
    pub zasl_lbas: u64,
    clock: u64,
}

impl Model {
    pub fn new(zones: usize, zone_lbas: u64, cap: u64, lba: u64, limits: Limits) -> Self {
        let z = Zone {
            state: ZoneState::Empty,
            wp: 0,
            data: vec![],
            used: 0,
        };
        let limit = |l: Option<u32>| l.map_or(usize::MAX, |v| v as usize);
        Model {
            zones: vec![z; zones],
            zone_lbas,
            cap,
            lba,
            max_open: limit(limits.max_open_zones),
            max_active: limit(limits.max_active_zones),
            zasl_lbas: limits.zone_append_size_limit_lbas.unwrap_or(u64::MAX),
            clock: 0,
        }
    }

    /// The model of a zoned device as it describes itself.
    pub fn of(info: &crate::device::DeviceInfo) -> Option<Self> {
        let z = info.zoned()?;
        Some(Model::new(
            z.zone_count as usize,
            z.zone_size_lbas,
            z.zone_capacity_lbas,
            info.lba_size_bytes,
            Limits {
                max_open_zones: z.max_open_zones,
                max_active_zones: z.max_active_zones,
                zone_append_size_limit_lbas: z.zone_append_size_limit_lbas,
            },
        ))
    }

    fn count(&self, f: impl Fn(ZoneState) -> bool) -> usize {
        self.zones.iter().filter(|z| f(z.state)).count()
    }
    pub fn open(&self) -> usize {
        self.count(|s| matches!(s, ZoneState::ImplicitlyOpened | ZoneState::ExplicitlyOpened))
    }
    pub fn active(&self) -> usize {
        self.count(|s| {
            matches!(
                s,
                ZoneState::ImplicitlyOpened | ZoneState::ExplicitlyOpened | ZoneState::Closed
            )
        })
    }

    fn make_room(&mut self, z: usize) -> Result<(), Status> {
        let s = self.zones[z].state;
        if matches!(s, ZoneState::ImplicitlyOpened | ZoneState::ExplicitlyOpened) {
            return Ok(());
        }
        if s == ZoneState::Empty && self.active() >= self.max_active {
            return Err(Status::TooManyActiveZones);
        }
        if self.open() >= self.max_open {
            let victim = (0..self.zones.len())
                .filter(|&i| self.zones[i].state == ZoneState::ImplicitlyOpened)
                .min_by_key(|&i| self.zones[i].used)
                .ok_or(Status::TooManyOpenZones)?;
            self.zones[victim].state = ZoneState::Closed;
        }
        Ok(())
    }

    fn write_checked(&mut self, z: usize, nlb: u64, data: &[u8]) -> Result<u64, Status> {
        self.make_room(z)?;
        self.clock += 1;
        let zone = &mut self.zones[z];
        if zone.state != ZoneState::ExplicitlyOpened {
            zone.state = ZoneState::ImplicitlyOpened;
        }
        let at = zone.wp;
        zone.wp += nlb;
        zone.data.extend_from_slice(data);
        zone.used = self.clock;
        if zone.wp == self.cap {
            zone.state = ZoneState::Full;
        }
        Ok(at)
    }

    fn writable(s: ZoneState) -> Result<(), Status> {
        match s {
            ZoneState::Full => Err(Status::ZoneIsFull),
            ZoneState::ReadOnly => Err(Status::ZoneIsReadOnly),
            ZoneState::Offline => Err(Status::ZoneIsOffline),
            _ => Ok(()),
        }
    }

    pub fn write(&mut self, slba: u64, nlb: u64, data: &[u8]) -> Result<(), Status> {
        let z = self.range(slba, nlb)?;
        Self::writable(self.zones[z].state)?;
        if slba % self.zone_lbas != self.zones[z].wp {
            return Err(Status::ZoneInvalidWrite);
        }
        if self.zones[z].wp + nlb > self.cap {
            return Err(Status::ZoneBoundaryError);
        }
        self.write_checked(z, nlb, data).map(|_| ())
    }

    /// Zone Append; the LBA written.
    pub fn append(&mut self, zslba: u64, nlb: u64, data: &[u8]) -> Result<u64, Status> {
        let z = self.range(zslba, nlb)?;
        if !zslba.is_multiple_of(self.zone_lbas) || nlb > self.zasl_lbas {
            return Err(Status::InvalidField);
        }
        Self::writable(self.zones[z].state)?;
        if self.zones[z].wp + nlb > self.cap {
            return Err(Status::ZoneBoundaryError);
        }
        self.write_checked(z, nlb, data).map(|at| zslba + at)
    }

    fn range(&self, slba: u64, nlb: u64) -> Result<usize, Status> {
        if nlb == 0 {
            return Err(Status::InvalidField);
        }
        match slba.checked_add(nlb) {
            Some(end) if end <= self.zones.len() as u64 * self.zone_lbas => {
                Ok((slba / self.zone_lbas) as usize)
            }
            _ => Err(Status::LbaOutOfRange),
        }
    }

    pub fn read(&self, slba: u64, nlb: u64) -> Result<Vec<u8>, Status> {
        let z = self.range(slba, nlb)?;
        if self.zones[z].state == ZoneState::Offline {
            return Err(Status::ZoneIsOffline);
        }
        if slba % self.zone_lbas + nlb > self.zone_lbas {
            return Err(Status::ZoneBoundaryError);
        }
        let start = ((slba % self.zone_lbas) * self.lba) as usize;
        let mut out = vec![0u8; (nlb * self.lba) as usize];
        // What the zone holds of the range; the rest reads as zeros.
        let data = &self.zones[z].data;
        let held = data.len().saturating_sub(start).min(out.len());
        out[..held].copy_from_slice(&data[start.min(data.len())..][..held]);
        Ok(out)
    }

    pub fn manage(&mut self, z: usize, action: ZoneAction) -> Result<(), Status> {
        use ZoneState::*;
        let s = self.zones[z].state;
        match action {
            ZoneAction::Open => match s {
                ExplicitlyOpened => {}
                Empty | Closed | ImplicitlyOpened => {
                    self.make_room(z)?;
                    self.clock += 1;
                    self.zones[z].state = ExplicitlyOpened;
                    self.zones[z].used = self.clock;
                }
                _ => return Err(Status::InvalidZoneStateTransition),
            },
            ZoneAction::Close => match s {
                Closed => {}
                ImplicitlyOpened | ExplicitlyOpened => self.zones[z].state = Closed,
                _ => return Err(Status::InvalidZoneStateTransition),
            },
            ZoneAction::Finish => match s {
                Full => {}
                Empty | ImplicitlyOpened | ExplicitlyOpened | Closed => {
                    self.zones[z].state = Full;
                    self.zones[z].wp = self.cap;
                }
                _ => return Err(Status::InvalidZoneStateTransition),
            },
            ZoneAction::Reset => match s {
                Empty => {}
                ImplicitlyOpened | ExplicitlyOpened | Closed | Full => {
                    self.zones[z] = Zone {
                        state: Empty,
                        wp: 0,
                        data: vec![],
                        used: 0,
                    };
                }
                _ => return Err(Status::InvalidZoneStateTransition),
            },
            ZoneAction::Offline => match s {
                Offline => {}
                ReadOnly => self.zones[z].state = Offline,
                _ => return Err(Status::InvalidZoneStateTransition),
            },
        }
        Ok(())
    }

    /// Select All: zone by zone; a failure part-way keeps what the zones before it did.
    pub fn manage_all(&mut self, action: ZoneAction) -> Result<(), Status> {
        for z in 0..self.zones.len() {
            if action.select_all_applies(self.zones[z].state) {
                self.manage(z, action)?;
            }
        }
        Ok(())
    }

    /// Zone Management Send on the zone starting at `zslba` (or every zone with `all`).
    pub fn manage_at(&mut self, zslba: u64, action: ZoneAction, all: bool) -> Result<(), Status> {
        if all {
            return self.manage_all(action);
        }
        if zslba >= self.zones.len() as u64 * self.zone_lbas {
            return Err(Status::LbaOutOfRange);
        }
        if !zslba.is_multiple_of(self.zone_lbas) {
            return Err(Status::InvalidField);
        }
        self.manage((zslba / self.zone_lbas) as usize, action)
    }
}
