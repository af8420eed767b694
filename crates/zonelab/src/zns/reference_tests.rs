//! The device against a small, independent reference model of the zone rules: random command
//! sequences, every status and every byte read compared.

use super::device_tests::{CAP, LBA, ZONE, at, device, zslba};
use crate::device::{Status, ZoneAction, ZoneState};

mod model {
    //! A deliberately plain model of the ZNS zone rules in ../shared/reference/zns-semantics.md,
    //! written apart from the device.
    use crate::device::{Status, ZoneAction, ZoneState};

    #[derive(Clone)]
    pub struct Zone {
        pub state: ZoneState,
        pub wp: u64,
        pub data: Vec<u8>,
        pub used: u64,
    }

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
        pub fn new(
            n: usize,
            zone_lbas: u64,
            cap: u64,
            lba: u64,
            max_open: usize,
            max_active: usize,
            zasl_lbas: u64,
        ) -> Self {
            let z = Zone {
                state: ZoneState::Empty,
                wp: 0,
                data: vec![],
                used: 0,
            };
            Model {
                zones: vec![z; n],
                zone_lbas,
                cap,
                lba,
                max_open,
                max_active,
                zasl_lbas,
                clock: 0,
            }
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
            if slba + nlb > self.zones.len() as u64 * self.zone_lbas {
                return Err(Status::LbaOutOfRange);
            }
            Ok((slba / self.zone_lbas) as usize)
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
            let data = &self.zones[z].data;
            for (i, b) in out.iter_mut().enumerate() {
                if let Some(&v) = data.get(start + i) {
                    *b = v;
                }
            }
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

        pub fn manage_all(&mut self, action: ZoneAction) -> Result<(), Status> {
            for z in 0..self.zones.len() {
                if action.select_all_applies(self.zones[z].state) {
                    self.manage(z, action)?;
                }
            }
            Ok(())
        }
    }
}

mod properties {
    use super::model::Model;
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    pub enum Cmd {
        /// Write at the write pointer plus `skew` (0 is legal).
        Write {
            zone: u64,
            skew: u64,
            nlb: u64,
        },
        Append {
            zone: u64,
            misalign: bool,
            nlb: u64,
        },
        Read {
            zone: u64,
            offset: u64,
            nlb: u64,
        },
        Manage {
            zone: u64,
            action: ZoneAction,
            all: bool,
        },
        Fault {
            zone: u64,
            offline: bool,
        },
    }

    fn action() -> impl Strategy<Value = ZoneAction> {
        prop_oneof![
            Just(ZoneAction::Open),
            Just(ZoneAction::Close),
            Just(ZoneAction::Finish),
            Just(ZoneAction::Reset),
            Just(ZoneAction::Offline),
        ]
    }

    pub fn cmd() -> impl Strategy<Value = Cmd> {
        prop_oneof![
            6 => (0..9u64, prop_oneof![4 => Just(0u64), 1 => 1..3u64], 1..20u64)
                .prop_map(|(zone, skew, nlb)| Cmd::Write { zone, skew, nlb }),
            3 => (0..9u64, proptest::bool::weighted(0.1), 1..20u64)
                .prop_map(|(zone, misalign, nlb)| Cmd::Append { zone, misalign, nlb }),
            3 => (0..9u64, 0..64u64, 1..20u64).prop_map(|(zone, offset, nlb)| Cmd::Read { zone, offset, nlb }),
            4 => (0..9u64, action(), proptest::bool::weighted(0.15))
                .prop_map(|(zone, action, all)| Cmd::Manage { zone, action, all }),
            1 => (0..8u64, any::<bool>()).prop_map(|(zone, offline)| Cmd::Fault { zone, offline }),
        ]
    }

    fn payload(i: usize, nlb: u64) -> Vec<u8> {
        (0..nlb * LBA)
            .map(|b| (b as usize * 31 + i * 7) as u8)
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: crate::test_cases(256), ..ProptestConfig::default() })]

        #[test]
        fn device_matches_the_reference_model(cmds in proptest::collection::vec(cmd(), 1..120)) {
            let mut dev = device();
            let mut model = Model::new(8, ZONE, CAP, LBA, 3, 4, 16);
            let mut now = 0u64;
            for (i, c) in cmds.iter().enumerate() {
                now += 1000;
                match *c {
                    Cmd::Write { zone, skew, nlb } => {
                        let slba = if zone < 8 { dev.zone_descriptor(zone as u32).wp + skew } else { zslba(zone) };
                        let data = payload(i, nlb);
                        let got = dev.write(at(now), slba, nlb, Some(&data)).map(|_| ());
                        prop_assert_eq!(got, model.write(slba, nlb, &data), "cmd {} {:?}", i, c);
                    }
                    Cmd::Append { zone, misalign, nlb } => {
                        let slba = zslba(zone) + misalign as u64;
                        let data = payload(i, nlb);
                        let got = dev.append(at(now), slba, nlb, Some(&data)).map(|a| a.lba);
                        prop_assert_eq!(got, model.append(slba, nlb, &data), "cmd {} {:?}", i, c);
                    }
                    Cmd::Read { zone, offset, nlb } => {
                        let slba = zslba(zone) + offset;
                        let mut buf = vec![0u8; (nlb * LBA) as usize];
                        let got = dev.read(at(now), slba, nlb, Some(&mut buf)).map(|_| buf);
                        prop_assert_eq!(got, model.read(slba, nlb), "cmd {} {:?}", i, c);
                    }
                    Cmd::Manage { zone, action, all } => {
                        let got = dev.zone_mgmt_send(at(now), zslba(zone), action, all).map(|_| ());
                        let want = if all {
                            model.manage_all(action)
                        } else if zone >= 8 {
                            Err(Status::LbaOutOfRange)
                        } else {
                            model.manage(zone as usize, action)
                        };
                        prop_assert_eq!(got, want, "cmd {} {:?}", i, c);
                    }
                    Cmd::Fault { zone, offline } => {
                        let s = if offline { ZoneState::Offline } else { ZoneState::ReadOnly };
                        dev.inject_fault(zone as u32, s);
                        model.zones[zone as usize].state = s;
                    }
                }
                dev.check_invariants();
                prop_assert_eq!(dev.open_zones() as usize, model.open());
                prop_assert_eq!(dev.active_zones() as usize, model.active());
                for z in 0..8u64 {
                    let d = dev.zone_descriptor(z as u32);
                    prop_assert_eq!(d.state, model.zones[z as usize].state, "zone {} after cmd {}", z, i);
                    prop_assert_eq!(d.wp - d.zslba, model.zones[z as usize].wp, "zone {} wp after cmd {}", z, i);
                }
            }
        }
    }
}
