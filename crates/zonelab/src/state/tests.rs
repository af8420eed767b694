//! State files: a device saved and restored mid-stream behaves exactly as the one that went on
//! (every policy, with data); damaged, foreign and mismatched files are refused.

use crate::metrics::series::Sampling;
use proptest::prelude::*;

use super::*;
use crate::config::ExperimentConfig;
use crate::device::{DeviceModel, Status, ZoneAction, ZoneState};
use crate::firmware::{
    EraseTiming, IdleScope, InvalidOrder, PairSpec, PlacementKind, PolicySpec, RenewableSettings,
    S2Erases,
};
use crate::time::Duration;
use crate::zns::test_spec;

const LBA: u64 = 4096;
const ZONE: u64 = 64;

fn policies(t_free: u32) -> Vec<PolicySpec> {
    vec![
        PolicySpec::Synchronous {
            erase_all_blocks: t_free % 2 == 1,
        },
        PolicySpec::Mapping {
            t_free,
            s2_erases: S2Erases::OnePerAllocation,
            wp_optimisation: t_free.is_multiple_of(2),
        },
        PolicySpec::Preemptive {
            t_free,
            s2_erases: S2Erases::default(),
            t_invalid: 1,
            wp_optimisation: true,
            idle: IdleScope::ZoneDies,
        },
        PolicySpec::Preemptive {
            t_free,
            s2_erases: S2Erases::OnePerAllocation,
            t_invalid: 2,
            wp_optimisation: false,
            idle: IdleScope::Device,
        },
        PolicySpec::Renewable {
            settings: RenewableSettings {
                threshold: 0.25,
                regc_fraction: 0.25,
                zombie_scan_period: Duration::from_ns(1_000_000),
                zombie_idle: Duration::from_ns(2_000_000),
            },
            erase_all_blocks: false,
        },
        // Pairs the papers do not name: renewable placement with preemptive erasing, and the
        // least-worn placement with wear-ordered on-demand erases.
        PolicySpec::Pair(PairSpec {
            t_free,
            t_invalid: 1,
            renewable: RenewableSettings {
                zombie_scan_period: Duration::from_ns(1_000_000),
                zombie_idle: Duration::from_ns(2_000_000),
                ..RenewableSettings::default()
            },
            ..PairSpec::new(PlacementKind::Renewable, EraseTiming::Preemptive)
        }),
        PolicySpec::Pair(PairSpec {
            t_free,
            invalid_order: InvalidOrder::LeastWorn,
            ..PairSpec::new(PlacementKind::LeastWorn, EraseTiming::OnDemand)
        }),
    ]
}

#[derive(Clone, Debug)]
enum Cmd {
    Write { zone: u64, nlb: u64 },
    Append { zone: u64, nlb: u64 },
    Read { zone: u64, offset: u64, nlb: u64 },
    Manage { zone: u64, action: ZoneAction },
    Idle { ns: u64 },
    Save,
}

fn cmd() -> impl Strategy<Value = Cmd> {
    let action = prop_oneof![
        Just(ZoneAction::Open),
        Just(ZoneAction::Close),
        Just(ZoneAction::Finish),
        Just(ZoneAction::Reset),
    ];
    prop_oneof![
        5 => (0..8u64, 1..24u64).prop_map(|(zone, nlb)| Cmd::Write { zone, nlb }),
        2 => (0..8u64, 1..16u64).prop_map(|(zone, nlb)| Cmd::Append { zone, nlb }),
        3 => (0..8u64, 0..60u64, 1..4u64).prop_map(|(zone, offset, nlb)| Cmd::Read { zone, offset, nlb }),
        3 => (0..8u64, action).prop_map(|(zone, action)| Cmd::Manage { zone, action }),
        2 => (0..8_000_000u64).prop_map(|ns| Cmd::Idle { ns }),
        1 => Just(Cmd::Save),
    ]
}

/// Runs one command; the result as bytes (data read, LBA appended) or the status.
fn apply(d: &mut Device, now: &mut u64, i: usize, c: &Cmd) -> Result<Vec<u8>, Status> {
    *now += 1_000;
    let at = Instant::from_ns(*now);
    match *c {
        Cmd::Write { zone, nlb } => {
            let wp = d.zone_descriptor(zone as u32).wp;
            let data: Vec<u8> = (0..nlb * LBA).map(|b| (b as usize + i) as u8).collect();
            d.write(at, wp, nlb, Some(&data)).map(|_| vec![])
        }
        Cmd::Append { zone, nlb } => {
            let data = vec![i as u8 | 1; (nlb * LBA) as usize];
            d.append(at, zone * ZONE, nlb, Some(&data))
                .map(|a| a.lba.to_le_bytes().to_vec())
        }
        Cmd::Read { zone, offset, nlb } => {
            let mut buf = vec![0u8; (nlb * LBA) as usize];
            d.read(at, zone * ZONE + offset, nlb, Some(&mut buf))
                .map(|a| {
                    buf.extend_from_slice(&a.done.unwrap().ns().to_le_bytes());
                    buf
                })
        }
        Cmd::Manage { zone, action } => d
            .zone_mgmt_send(at, zone * ZONE, action, false)
            .map(|a| a.done.unwrap().ns().to_le_bytes().to_vec()),
        Cmd::Idle { ns } => {
            let end = *now + ns;
            let mut t = *now;
            while let Some(next) = d
                .advance(Instant::from_ns(t), &mut Vec::new())
                .map(|x| x.ns())
            {
                if next > end {
                    break;
                }
                t = next.max(t + 1);
            }
            *now = end;
            Ok(vec![])
        }
        Cmd::Save => Ok(vec![]),
    }
}

fn round_trip(d: &Device, policy: &PolicySpec) -> Device {
    let s = postcard::to_stdvec(&d.save()).unwrap();
    let back: ZnsState<'_> = postcard::from_bytes(&s).unwrap();
    let r = Device::restore(
        &test_spec(0, 2),
        policy,
        true,
        Sampling::every(Duration::from_ms(500)),
        back,
    )
    .expect("a saved state restores");
    r.check_invariants();
    r
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Saved and restored at random points, a device answers every later command exactly as
    /// the device that was never saved: statuses, completion times, data, zones, counters.
    #[test]
    fn a_restored_device_behaves_as_the_original(cmds in prop::collection::vec(cmd(), 1..120), t_free in 0..7u32) {
        for policy in policies(t_free) {
            let build = || Device::build(&test_spec(0, 2), &policy, true, Sampling::every(Duration::from_ms(500)));
            let (mut a, mut b) = (build(), build());
            let (mut ta, mut tb) = (0, 0);
            for (i, c) in cmds.iter().enumerate() {
                if matches!(c, Cmd::Save) {
                    b = round_trip(&b, &policy);
                }
                let (ra, rb) = (apply(&mut a, &mut ta, i, c), apply(&mut b, &mut tb, i, c));
                prop_assert_eq!(&ra, &rb, "cmd {} {:?} under {}", i, c, policy.name());
                for z in 0..8 {
                    prop_assert_eq!(a.zone_descriptor(z), b.zone_descriptor(z));
                }
                prop_assert_eq!(a.counters(), b.counters());
                prop_assert_eq!(a.nand_counters(), b.nand_counters());
                prop_assert_eq!(a.idle_at_ns(), b.idle_at_ns());
            }
            prop_assert_eq!(a.wear(), b.wear());
            let (ra, rb) = (a.report(Instant::from_ns(ta)), b.report(Instant::from_ns(tb)));
            prop_assert_eq!(ra.firmware, rb.firmware);
        }
    }
}

fn experiment(extra: &str) -> (ExperimentConfig, Experiment) {
    let text = format!(
        "preset = \"rezns-40g\"\n[device.zones]\nzone_count = 8\n[data]\nretention = true\n{extra}"
    );
    let cfg = ExperimentConfig::parse(&text, &[]).unwrap();
    let exp = cfg.validate_device("state-test").unwrap();
    (cfg, exp)
}

/// A device with data in zone 0 and zone 1 half written, saved at `now`.
fn saved_file() -> (ExperimentConfig, Experiment, Vec<u8>) {
    let (cfg, exp) = experiment("");
    let mut d = crate::experiment::build_device(&exp);
    let data: Vec<u8> = (0..1 << 20).map(|i| (i % 251) as u8 + 1).collect();
    d.submit(
        Instant::ZERO,
        crate::device::Command::write(0, 256).with_data(crate::device::Data::Out(&data)),
    )
    .unwrap();
    let bytes = encode(&identity(&cfg), Instant::from_ns(5), &*d).unwrap();
    (cfg, exp, bytes)
}

#[test]
fn a_state_file_round_trips_zones_data_and_the_clock() {
    let (cfg, exp, bytes) = saved_file();
    let saved = decode(&bytes).unwrap();
    assert_eq!(saved.now, Instant::from_ns(5));
    check_identity(&saved.identity, &identity(&cfg)).unwrap();
    let d = restore(&exp, saved.device).unwrap();
    assert_eq!(d.zone(0, 0).wp, 256);
    assert_eq!(d.zone(0, 0).state, ZoneState::ImplicitlyOpened);
    let mut back = vec![0u8; 4096];
    let mut d = d;
    let t = d.idle_at();
    d.submit(
        t,
        crate::device::Command::read(255, 1).with_data(crate::device::Data::In(&mut back)),
    )
    .unwrap();
    let want: Vec<u8> = (255 * 4096..256 * 4096)
        .map(|i| (i % 251) as u8 + 1)
        .collect();
    assert_eq!(back, want);
}

#[test]
fn damaged_files_are_refused_saying_why() {
    let (_, _, bytes) = saved_file();
    assert_eq!(decode(b"hello").err(), Some(StateError::NotAStateFile));
    let mut flipped = bytes.clone();
    let k = flipped.len() - 100;
    flipped[k] ^= 0x40;
    assert_eq!(decode(&flipped).err(), Some(StateError::Checksum));
    assert!(matches!(
        decode(&bytes[..bytes.len() - 1]).err(),
        Some(StateError::Truncated { .. })
    ));
    // Every byte of the length field flipped in turn: a damaged header, never "truncated".
    for at in 16..24 {
        let mut length = bytes.clone();
        length[at] ^= 0x01;
        assert!(
            matches!(
                decode(&length).err(),
                Some(StateError::HeaderLength { holds, .. }) if holds == bytes.len() as u64 - 24
            ),
            "byte {at}: {:?}",
            decode(&length).err()
        );
    }
    for at in 12..16 {
        let mut crc = bytes.clone();
        crc[at] ^= 0x01;
        assert_eq!(decode(&crc).err(), Some(StateError::Checksum), "byte {at}");
    }
    let mut version = bytes.clone();
    version[8] = 99;
    assert_eq!(
        decode(&version).err(),
        Some(StateError::Version {
            found: 99,
            expected: FORMAT_VERSION
        })
    );
}

#[test]
fn a_state_of_another_device_is_refused_naming_the_setting() {
    let (_, _, bytes) = saved_file();
    let saved = decode(&bytes).unwrap();
    let text =
        "preset = \"rezns-40g\"\n[device.zones]\nzone_count = 16\n[data]\nretention = true\n";
    let other = ExperimentConfig::parse(text, &[]).unwrap();
    let err = check_identity(&saved.identity, &identity(&other)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the state file holds another device: `device.zones: zone_count = 8` in the file, \
         `device.zones: zone_count = 16` here"
    );
    // Restored into the other device anyway (identity skipped), the shapes do not fit.
    let exp = other.validate_device("x").unwrap();
    let err = restore(&exp, saved.device).err().unwrap();
    assert!(matches!(err, StateError::Invalid(_)), "{err}");
}

#[test]
fn prefilled_zeros_take_no_room() {
    let (cfg, exp) = experiment("[prefill]\nfraction = 1.0\n");
    let d = crate::experiment::build_device(&exp);
    let bytes = encode(&identity(&cfg), Instant::ZERO, &*d).unwrap();
    // 8 zones of 64 MiB with 512 MiB of zeros retained: a few KiB of state.
    assert!(bytes.len() < 64 << 10, "{} bytes", bytes.len());
    let d = restore(&exp, decode(&bytes).unwrap().device).unwrap();
    assert_eq!(d.zone(0, 7).state, ZoneState::Full);
    d.check_invariants();
}

/// With aging on, a restored device keeps its blocks' data ages and its retry draws: reads
/// after the restore take exactly as long as on the device that never stopped.
#[test]
fn an_aged_device_keeps_its_data_ages_and_retry_draws() {
    let aging = "[device.aging]\nretry_base = 0.3\nretry_retention_weight = 0.5\nretention_limit = \"1s\"\n";
    let (cfg, exp) = experiment(aging);
    let mut d = crate::experiment::build_device(&exp);
    let data = vec![7u8; 1 << 20];
    let mut now = Instant::ZERO;
    for zone in 0..2u64 {
        let lba = zone * d.info().zoned.as_ref().unwrap().zone_size_lbas;
        let c = crate::device::Command::write(lba, 256).with_data(crate::device::Data::Out(&data));
        now = d.submit(now, c).unwrap().done.unwrap();
    }
    let reads = |d: &mut Box<dyn crate::device::DeviceModel>, mut t: Instant| {
        let mut out = Vec::new();
        let mut buf = vec![0u8; 4096];
        for k in 0..64u64 {
            let c = crate::device::Command::read(k * 4 % 256, 1)
                .with_data(crate::device::Data::In(&mut buf));
            let done = d.submit(t, c).unwrap().done.unwrap();
            out.push((done - t).ns());
            t = done + crate::time::Duration::from_ms(20);
        }
        out
    };
    let bytes = encode(&identity(&cfg), now, &*d).unwrap();
    let mut restored = restore(&exp, decode(&bytes).unwrap().device).unwrap();
    let later = now + crate::time::Duration::from_ms(500);
    let original = reads(&mut d, later);
    assert!(
        original.iter().any(|&l| l != original[0]),
        "retries vary the read latency: {original:?}"
    );
    assert_eq!(reads(&mut restored, later), original);
    // Restored into a device without aging, the state is refused, saying why.
    let (_, plain) = experiment("");
    let err = restore(&plain, decode(&bytes).unwrap().device)
        .err()
        .unwrap();
    assert!(err.to_string().contains("aging"), "{err}");
}

/// Regression (issue 36, defect 2): with a zone capacity that is not a multiple of the program
/// unit (65532 KiB in 32 KiB units), a whole-zone piece holds the capacity rounded up to whole
/// units, and restoring refused every synchronous-policy state file ("pieces do not hold the
/// zone's data"): the device could be saved but never loaded again. Save -> load -> the same
/// file, on every policy.
#[test]
fn a_capacity_not_a_multiple_of_the_unit_loads_again() {
    for policy in [
        "synchronous",
        "mapping",
        "preemptive",
        "renewable",
        "round_robin",
    ] {
        let text = format!(
            "preset = \"rezns-40g\"\n[device.zones]\nzone_count = 4\nzone_capacity_bytes = \"65532KiB\"\n[data]\nretention = true\n[firmware]\npolicy = \"{policy}\"\n"
        );
        let cfg = ExperimentConfig::parse(&text, &[]).unwrap();
        let exp = cfg.validate_device("state-test").unwrap();
        let mut d = crate::experiment::build_device(&exp);
        let data = vec![7u8; 64 << 20];
        let lbas = 65532 / 4;
        d.submit(
            Instant::ZERO,
            crate::device::Command::write(0, lbas)
                .with_data(crate::device::Data::Out(&data[..(lbas * 4096) as usize])),
        )
        .unwrap();
        let bytes = encode(&identity(&cfg), Instant::from_ns(5), &*d).unwrap();
        let back = restore(&exp, decode(&bytes).unwrap().device)
            .unwrap_or_else(|e| panic!("{policy}: {e}"));
        assert_eq!(
            encode(&identity(&cfg), Instant::from_ns(5), &*back).unwrap(),
            bytes,
            "{policy}"
        );
    }
}

#[test]
fn saves_as_says_whether_a_device_would_save_as_exactly_a_file() {
    let (cfg, exp, bytes) = saved_file();
    let id = identity(&cfg);
    let at = Instant::from_ns(5);
    let back = restore(&exp, decode(&bytes).unwrap().device).unwrap();
    assert!(saves_as(&bytes, &id, at, &*back).unwrap());
    // Another clock, another identity, or any byte of the file changed: not the same file.
    assert!(!saves_as(&bytes, &id, Instant::from_ns(6), &*back).unwrap());
    assert!(!saves_as(&bytes, "another", at, &*back).unwrap());
    for at_byte in [0, 8, 12, 16, HEADER_BYTES, bytes.len() / 2, bytes.len() - 1] {
        let mut changed = bytes.clone();
        changed[at_byte] ^= 1;
        assert!(
            !saves_as(&changed, &id, at, &*back).unwrap(),
            "byte {at_byte}"
        );
    }
    // A file cut short, or with a byte more.
    assert!(!saves_as(&bytes[..bytes.len() - 1], &id, at, &*back).unwrap());
    assert!(!saves_as(&[bytes.as_slice(), &[0]].concat(), &id, at, &*back).unwrap());
    assert!(!saves_as(&bytes[..10], &id, at, &*back).unwrap());
    // The device written further.
    let mut d = back;
    let t = d.idle_at();
    d.submit(
        t,
        crate::device::Command::write(256, 1).with_data(crate::device::Data::Out(&[9; 4096])),
    )
    .unwrap();
    assert!(!saves_as(&bytes, &id, at, &*d).unwrap());
}

#[test]
fn a_state_file_streamed_is_the_one_built_in_memory_and_a_failed_write_is_an_error() {
    let (cfg, exp, bytes) = saved_file();
    let d = restore(&exp, decode(&bytes).unwrap().device).unwrap();
    let mut streamed = Vec::new();
    encode_to(&mut streamed, &identity(&cfg), Instant::from_ns(5), &*d).unwrap();
    assert_eq!(streamed, bytes);
    // A writer that takes a few bytes and then fails (a full disk): its error, not a panic.
    struct Full(usize);
    impl std::io::Write for Full {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.0 == 0 {
                return Err(std::io::Error::from(std::io::ErrorKind::StorageFull));
            }
            let n = buf.len().min(self.0);
            self.0 -= n;
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    for room in [0, HEADER_BYTES, HEADER_BYTES + 100, bytes.len() - 1] {
        let e = encode_to(&mut Full(room), &identity(&cfg), Instant::from_ns(5), &*d).unwrap_err();
        assert!(matches!(e, StateError::Write(_)), "room {room}: {e}");
    }
    encode_to(
        &mut Full(bytes.len()),
        &identity(&cfg),
        Instant::from_ns(5),
        &*d,
    )
    .unwrap();
}
