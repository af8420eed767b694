//! The device against a small, independent reference model of the zone rules: random command
//! sequences, every status and every byte read compared. The model is
//! [`crate::testing::reference`], which the seed swarm uses too.

use super::device_tests::{CAP, LBA, ZONE, at, device, zslba};
use crate::device::{Status, ZoneAction, ZoneState};

mod properties {
    use super::*;
    use crate::testing::reference::{Limits, Model};
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
            let limits = Limits {
                max_open_zones: Some(3),
                max_active_zones: Some(4),
                zone_append_size_limit_lbas: Some(16),
            };
            let mut model = Model::new(8, ZONE, CAP, LBA, limits);
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
