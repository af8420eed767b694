//! The drive array against the zone reference model, its striping, its speed-up with drives,
//! its die numbering, and its configuration.

use proptest::prelude::*;

use super::*;
use crate::config::ExperimentConfig;
use crate::experiment::{Experiment, build_device};
use crate::testing::fixtures::TinyDevice;
use crate::testing::reference::Model;

/// The tiny device (16 zones of 256 KiB over 4 dies, 4 active), `drives` of them striped
/// 16 KiB at a time, data kept.
fn experiment(drives: u32, extra: &str) -> Result<Experiment, crate::ConfigError> {
    let device = TinyDevice {
        retention: true,
        ..TinyDevice::default()
    };
    let text = format!(
        "seed = 3\n{}\n[layer]\nkind = \"array\"\ndrives = {drives}\nstripe_size = \"16KiB\"\n{extra}",
        device.toml()
    );
    ExperimentConfig::parse(&text, &[])?.validate_device("t")
}

fn array(drives: u32) -> Box<dyn DeviceModel> {
    build_device(&experiment(drives, "").unwrap())
}

/// `drives` tiny drives, RAID-5 of zones.
fn raid5(drives: u32) -> Box<dyn DeviceModel> {
    build_device(&experiment(drives, "parity = true\n").unwrap())
}

/// Zone `zone` of `a` written with `lbas` LBAs of a pattern, returned.
fn fill(a: &mut dyn DeviceModel, zone: u64, lbas: u64) -> Vec<u8> {
    let zone_lbas = a.info().zoned().unwrap().zone_size_lbas;
    let data: Vec<u8> = (0..lbas * LBA).map(|b| (b * 7 / 3) as u8).collect();
    a.submit(
        Instant::ZERO,
        Command::write(zone * zone_lbas, lbas).with_data(Data::Out(&data)),
    )
    .unwrap();
    data
}

fn read_back(a: &mut dyn DeviceModel, zone: u64, lbas: u64) -> Result<Vec<u8>, Status> {
    let zone_lbas = a.info().zoned().unwrap().zone_size_lbas;
    let mut buf = vec![0u8; (lbas * LBA) as usize];
    a.submit(
        Instant::from_ns(1),
        Command::read(zone * zone_lbas, lbas).with_data(Data::In(&mut buf)),
    )
    .map(|_| buf)
}

#[test]
fn raid5_rebuilds_a_lost_drive_zone_from_the_rest_of_each_row() {
    let mut a = raid5(3);
    let z = a.info().zoned().unwrap().clone();
    assert_eq!(
        z.zone_capacity_lbas,
        2 * 64,
        "two data drives' worth of each row"
    );
    // Two whole rows (2 x 8 LBAs) and half of the third: its parity is not written yet.
    let data = fill(a.as_mut(), 1, 20);
    a.check_invariants();
    a.inject_drive_fault(1, 1, ZoneState::Offline).unwrap();
    assert_eq!(
        a.zone(0, 1).state,
        ZoneState::ReadOnly,
        "readable, no more writes"
    );
    assert_eq!(
        read_back(a.as_mut(), 1, 16).unwrap(),
        data[..(16 * LBA) as usize]
    );
    // Row 2's first data stripe is on drive (3 - 1 - 2 % 3 + 1) % 3 = 1: lost, no parity.
    assert_eq!(
        read_back(a.as_mut(), 1, 20),
        Err(Status::UnrecoveredReadError)
    );
    assert_eq!(
        a.submit(
            Instant::from_ns(2),
            Command::write(z.zone_size_lbas + 20, 4)
        )
        .map(|_| ()),
        Err(Status::ZoneIsReadOnly)
    );
    // Finished first, the partial row has its parity and every byte comes back.
    let mut b = raid5(3);
    let data = fill(b.as_mut(), 1, 20);
    b.submit(
        Instant::from_ns(1),
        Command::zone(ZoneAction::Finish, z.zone_size_lbas),
    )
    .unwrap();
    b.check_invariants();
    b.inject_drive_fault(1, 1, ZoneState::Offline).unwrap();
    assert_eq!(read_back(b.as_mut(), 1, 20).unwrap(), data);
    // A second drive's zone gone: the logical zone is.
    b.inject_drive_fault(2, 1, ZoneState::Offline).unwrap();
    assert_eq!(b.zone(0, 1).state, ZoneState::Offline);
}

#[test]
fn raid5_writes_one_parity_stripe_per_row() {
    let mut a = raid5(4);
    fill(a.as_mut(), 0, 3 * 12);
    let array = a.as_any().downcast_ref::<DriveArray>().unwrap();
    // Three rows of three data stripes and one parity stripe: 4 LBAs a stripe on every drive.
    let per: Vec<u64> = array
        .drives()
        .iter()
        .map(|d| d.written_lbas(0, 0))
        .collect();
    assert_eq!(per, [12, 12, 12, 12]);
    let written: u64 = a.report(Instant::from_ns(1)).counters.host_write_bytes / LBA;
    assert_eq!(written, 48, "36 LBAs of data and 12 of parity");
}

const LBA: u64 = 4096;

#[test]
fn a_logical_zone_is_every_drives_zone_striped() {
    let mut a = array(4);
    let z = a.info().zoned().unwrap().clone();
    assert_eq!(z.zone_capacity_lbas, 4 * 64, "four drive zones of 64 LBAs");
    assert_eq!((z.zone_size_lbas, z.zone_count), (256, 16));
    // 64 KiB at zone 1: one 16 KiB stripe on each drive.
    let data: Vec<u8> = (0..16 * LBA).map(|b| (b / LBA) as u8).collect();
    a.submit(
        Instant::ZERO,
        Command::write(256, 16).with_data(Data::Out(&data)),
    )
    .unwrap();
    let array = a.as_any().downcast_ref::<DriveArray>().unwrap();
    for (i, d) in array.drives().iter().enumerate() {
        assert_eq!(d.written_lbas(0, 1), 4, "drive {i}");
    }
    let mut buf = vec![0u8; (4 * LBA) as usize];
    let mut back = vec![0u8; (16 * LBA) as usize];
    a.submit(
        Instant::from_ns(1),
        Command::read(256, 16).with_data(Data::In(&mut back)),
    )
    .unwrap();
    assert_eq!(
        back, data,
        "a striped read gathers what the write scattered"
    );
    a.submit(
        Instant::from_ns(2),
        Command::read(256 + 8, 4).with_data(Data::In(&mut buf)),
    )
    .unwrap();
    assert!(buf.chunks(LBA as usize).map(|c| c[0]).eq(8..12));
    a.check_invariants();
}

#[test]
fn sequential_writes_go_faster_on_more_drives() {
    // Each drive's zones stripe over its own 4 dies: two drives program twice as many at once.
    let time = |drives: u32| {
        let mut a = array(drives);
        let cap = a.info().zoned().unwrap().zone_capacity_lbas;
        let zone_lbas = a.info().zoned().unwrap().zone_size_lbas;
        // 256 KiB writes, one after another: each spreads over every drive's dies.
        let mut done = Instant::ZERO;
        for zone in 0..4u64 {
            for k in 0..cap / 64 {
                let acc = a.submit(done, Command::write(zone * zone_lbas + k * 64, 64));
                done = acc.unwrap().done.unwrap();
            }
        }
        // Bytes per simulated second.
        (4 * cap * LBA) as f64 / done.secs_f64()
    };
    let (one, two) = (time(1), time(2));
    assert!(
        two > 1.8 * one,
        "two drives {two:.0} B/s against one {one:.0} B/s"
    );
}

#[test]
fn array_dies_count_across_drives() {
    let exp = experiment(2, "[[faults.dies]]\ndie = 4\nfactor = 10.0\n").unwrap();
    let mut a = build_device(&exp);
    let start = a.idle_at();
    // A stripe on drive 0, then one on drive 1, whose die 0 (array die 4) is slow.
    let mut c = Vec::new();
    a.advance(start, &mut c);
    let t0 = a.submit(start, Command::write(0, 4)).unwrap().done.unwrap() - start;
    let t1 = a.submit(start, Command::write(4, 4)).unwrap().done.unwrap() - start;
    assert!(
        t1.ns() > 5 * t0.ns(),
        "drive 1's slow die: {t1} against {t0}"
    );
    // Die 8 is past the two drives' 8 dies.
    let err = experiment(2, "[[faults.dies]]\ndie = 8\nfactor = 2.0\n").unwrap_err();
    assert!(err.to_string().contains("faults.dies[0].die"), "{err}");
}

#[test]
fn bad_arrays_are_refused_naming_the_field() {
    for (extra, field) in [
        ("", "layer.drives"),
        ("stripe_size = \"1000\"", "layer.stripe_size"),
        ("parity = true", "layer.parity"),
        (
            "[[faults.zones]]\nat = \"1ms\"\nzone = 1\nstate = \"offline\"\ndrive = 2",
            "faults.zones[0].drive",
        ),
    ] {
        let drives = if extra.is_empty() { 0 } else { 2 };
        let text = format!(
            "{}\n[layer]\nkind = \"array\"\ndrives = {drives}\n{extra}\n",
            TinyDevice::default().toml()
        );
        let err = ExperimentConfig::parse(&text, &[])
            .and_then(|c| c.validate_device("t"))
            .unwrap_err();
        assert!(err.to_string().contains(field), "{extra}: {err}");
    }
    // A drive's zone fault needs an array.
    let text = format!(
        "{}\n[[faults.zones]]\nat = \"1ms\"\nzone = 1\nstate = \"offline\"\ndrive = 0\n",
        TinyDevice::default().toml()
    );
    let err = ExperimentConfig::parse(&text, &[])
        .and_then(|c| c.validate_device("t"))
        .unwrap_err();
    assert!(err.to_string().contains("faults.zones[0].drive"), "{err}");
}

mod properties {
    use super::*;
    use crate::device::{ZoneAction, ZoneState};

    #[derive(Clone, Debug)]
    enum Cmd {
        Write { zone: u32, skew: u64, nlb: u64 },
        Append { zone: u32, nlb: u64 },
        Read { zone: u32, offset: u64, nlb: u64 },
        Manage { zone: u32, action: ZoneAction },
        Fault { zone: u32, offline: bool },
    }

    fn cmd() -> impl Strategy<Value = Cmd> {
        let action = prop_oneof![
            Just(ZoneAction::Open),
            Just(ZoneAction::Close),
            Just(ZoneAction::Finish),
            Just(ZoneAction::Reset),
        ];
        prop_oneof![
            6 => (0..6u32, prop_oneof![4 => Just(0u64), 1 => 1..3u64], 1..40u64)
                .prop_map(|(zone, skew, nlb)| Cmd::Write { zone, skew, nlb }),
            2 => (0..6u32, 1..40u64).prop_map(|(zone, nlb)| Cmd::Append { zone, nlb }),
            3 => (0..6u32, 0..200u64, 1..40u64)
                .prop_map(|(zone, offset, nlb)| Cmd::Read { zone, offset, nlb }),
            3 => (0..6u32, action).prop_map(|(zone, action)| Cmd::Manage { zone, action }),
            1 => (0..6u32, any::<bool>()).prop_map(|(zone, offline)| Cmd::Fault { zone, offline }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: crate::test_cases(64), ..ProptestConfig::default() })]

        /// Three drives under one host, with or without parity, follow the zone rules of one
        /// namespace: every status, state, write pointer and byte read as the reference model
        /// says.
        #[test]
        fn the_array_matches_the_reference_model(
            cmds in proptest::collection::vec(cmd(), 1..80),
            parity in any::<bool>(),
        ) {
            let mut a = if parity { raid5(3) } else { array(3) };
            let mut model = Model::of(a.info()).unwrap();
            let zone_lbas = model.zone_lbas;
            for (i, c) in cmds.iter().enumerate() {
                let now = Instant::from_ns(1_000 * (i as u64 + 1));
                let mut c2 = Vec::new();
                a.advance(now, &mut c2);
                let data: Vec<u8> = (0..64 * LBA).map(|b| (b as usize * 7 + i) as u8).collect();
                match *c {
                    Cmd::Write { zone, skew, nlb } => {
                        let slba = a.zone(0, zone).wp + skew;
                        let d = &data[..(nlb * LBA) as usize];
                        let got = a.submit(now, Command::write(slba, nlb).with_data(Data::Out(d))).map(|_| ());
                        prop_assert_eq!(got, model.write(slba, nlb, d), "cmd {} {:?}", i, c);
                    }
                    Cmd::Append { zone, nlb } => {
                        let zslba = zone as u64 * zone_lbas;
                        let d = &data[..(nlb * LBA) as usize];
                        let got = a.submit(now, Command::append(zslba, nlb).with_data(Data::Out(d))).map(|x| x.lba);
                        prop_assert_eq!(got, model.append(zslba, nlb, d), "cmd {} {:?}", i, c);
                    }
                    Cmd::Read { zone, offset, nlb } => {
                        let slba = zone as u64 * zone_lbas + offset;
                        let mut buf = vec![0u8; (nlb * LBA) as usize];
                        let got = a.submit(now, Command::read(slba, nlb).with_data(Data::In(&mut buf))).map(|_| buf);
                        prop_assert_eq!(got, model.read(slba, nlb), "cmd {} {:?}", i, c);
                    }
                    Cmd::Manage { zone, action } => {
                        let got = a.submit(now, Command::zone(action, zone as u64 * zone_lbas)).map(|_| ());
                        prop_assert_eq!(got, model.manage(zone as usize, action), "cmd {} {:?}", i, c);
                    }
                    Cmd::Fault { zone, offline } => {
                        let s = if offline { ZoneState::Offline } else { ZoneState::ReadOnly };
                        a.inject_fault(zone, s).unwrap();
                        model.zones[zone as usize].state = s;
                    }
                }
                a.check_invariants();
                for z in 0..6u32 {
                    let d = a.zone(0, z);
                    prop_assert_eq!(d.state, model.zones[z as usize].state, "zone {} after cmd {}", z, i);
                    prop_assert_eq!(d.wp - d.zslba, model.zones[z as usize].wp, "zone {} wp after cmd {}", z, i);
                }
            }
        }
    }
}
