//! The zone-mapping policies on the device: host-visible behaviour identical to the synchronous
//! policy, the write-pointer optimisation, erase-before-reuse, and the one-row bound on waits.

use crate::metrics::series::Sampling;
use proptest::prelude::*;

use super::device_tests::small_spec;
use super::*;
use crate::device::Status;
use crate::device::{ZoneAction, ZoneState};
use crate::firmware::PolicySpec;
use crate::firmware::{IdleScope, InvalidOrder, PairSpec, RenewableSettings, S2Erases};
use crate::time::Duration;
use crate::zns::device_tests::{Ns, at};

const LBA: u64 = 4096;
const ZONE: u64 = 64;
const CAP: u64 = 48;

/// Two dies per zone: every zone has two erase rows of one block per die.
fn spec() -> ZnsSpec {
    small_spec(0, 2)
}

fn device(config: &PolicySpec) -> Device {
    let spec = spec();
    Device::build(&spec, config, true, Sampling::every(Duration::from_ms(500)))
}

fn mapping(t_free: u32, wp: bool) -> PolicySpec {
    PolicySpec::Mapping {
        t_free,
        s2_erases: S2Erases::default(),
        wp_optimisation: wp,
    }
}

fn preemptive(t_free: u32, wp: bool, idle: IdleScope) -> PolicySpec {
    PolicySpec::Preemptive {
        t_free,
        s2_erases: S2Erases::default(),
        t_invalid: 1,
        wp_optimisation: wp,
        idle,
    }
}

fn sync() -> PolicySpec {
    PolicySpec::Synchronous {
        erase_all_blocks: false,
    }
}

#[test]
fn a_reset_under_mapping_is_immediate_and_the_erase_comes_later() {
    let mut d = device(&mapping(1, false));
    d.write(at(0), 0, CAP, None).unwrap();
    let t = d.idle_at_ns();
    let c = d
        .zone_mgmt_send(at(t), 0, ZoneAction::Reset, false)
        .unwrap();
    assert_eq!(c.done_ns(), t, "no erase at reset time");
    assert_eq!(d.nand_counters().block_erases, 0);
    assert_eq!(d.zone_descriptor(0).state, ZoneState::Empty);
    assert_eq!(d.physical_zone(0), None);
    // Zones 1..=6 take free zones; Z_free goes 7 -> 1 (each allocation found Z_free > T_free).
    for z in 1..=6u64 {
        d.write(at(t), z * ZONE, CAP, None).unwrap();
    }
    assert_eq!(d.nand_counters().block_erases, 0);
    // Z_free = 1 = T_free: the next allocation first erases zone 0's old blocks, blocking.
    let t2 = d.idle_at_ns();
    let w = d.write(at(t2), 0, 1, None).unwrap();
    assert_eq!(
        d.nand_counters().block_erases,
        4,
        "both rows, both dies: every block"
    );
    assert!(
        w.done_ns() >= t2 + 2 * 3_000_000,
        "the write waited for two erases per die"
    );
    assert_eq!(d.counters().zone_resets_executed, 1);
    d.check_invariants();
}

#[test]
fn wp_optimisation_erases_exactly_the_programmed_blocks() {
    for (wp, expected) in [(true, 3), (false, 4)] {
        let mut d = device(&preemptive(6, wp, IdleScope::Device));
        // 36 LBAs = 9 pages of 16 KiB: units 0..9 over 2 dies, 4 units per block:
        // die 0 holds units 0, 2, 4, 6, 8 (blocks 0 and 1), die 1 holds 1, 3, 5, 7 (block 0).
        d.write(at(0), 0, 36, None).unwrap();
        d.zone_mgmt_send(at(0), 0, ZoneAction::Reset, false)
            .unwrap();
        let mut t = d.idle_at_ns();
        while let Some(next) = d.background(at(t)).map(|x| x.ns()) {
            t = next.max(t + 1);
            if d.nand_counters().block_erases >= 4 {
                break;
            }
        }
        assert_eq!(
            d.nand_counters().block_erases,
            expected,
            "wp optimisation {wp}"
        );
        assert_eq!(d.counters().zone_resets_executed, 1);
    }
}

#[test]
fn a_reused_zone_is_programmed_only_after_its_erase() {
    // T_free = 7: every allocation after the first needs an erase first.
    let mut d = device(&mapping(7, false));
    d.write(at(0), 0, CAP, None).unwrap();
    let t = d.idle_at_ns();
    d.zone_mgmt_send(at(t), 0, ZoneAction::Reset, false)
        .unwrap();
    let w = d.write(at(t), ZONE, 4, None).unwrap();
    // Erase of zone 0 (2 rows per die, 3 ms each) then one page program on zone 0's old dies.
    assert_eq!(d.nand_counters().block_erases, 4);
    assert!(
        w.done_ns() >= t + 6_000_000 + 500_000,
        "{}",
        w.done_ns() - t
    );
    let wait = d.erase_wait_histogram();
    assert!(wait.max() >= 6_000_000);
}

#[test]
fn a_foreground_request_in_s1_waits_for_one_row_at_most() {
    let mut d = device(&preemptive(0, false, IdleScope::Device));
    // Logical zones 0 and 2 get physical zones 0 and 1... zone 1 goes on dies 2 and 3, so write
    // three zones: physical zone 2 shares dies 0 and 1 with physical zone 0.
    d.write(at(0), 0, CAP, None).unwrap();
    d.write(at(0), ZONE, CAP, None).unwrap();
    d.write(at(0), 2 * ZONE, CAP, None).unwrap();
    assert_eq!(d.physical_zone(2), Some(2));
    let t = d.idle_at_ns();
    d.zone_mgmt_send(at(t), 0, ZoneAction::Reset, false)
        .unwrap();
    // Idle: the first row starts now.
    let end = d
        .background(at(t))
        .map(|x| x.ns())
        .expect("a row erase starts");
    assert_eq!(end, t + 3_000_000);
    // A read arriving during the erase waits for that row, then goes first.
    let r = d.read(at(t + 1_000), 2 * ZONE, 1, None).unwrap();
    assert_eq!(r.done_ns(), t + 3_000_000 + 50_000 + 5_120 + 1_280);
    let waited = d.erase_wait_histogram().max();
    assert!(
        (2_999_000..=3_002_000).contains(&waited),
        "{waited}: the rest of the row erase"
    );
    // The erase ended but the read still runs: no second row yet.
    assert_eq!(d.background(at(end)).map(|x| x.ns()), None);
    assert_eq!(
        d.nand_counters().block_erases,
        2,
        "one row = one block on each of two dies"
    );
    let again = d
        .background(at(r.done_ns()))
        .map(|x| x.ns())
        .expect("idle again: next row");
    assert_eq!(again, r.done_ns() + 3_000_000);
    assert_eq!(d.nand_counters().block_erases, 4);
    assert!(
        d.erase_wait_histogram().max() <= 3_003_000,
        "one row erase at most (HDR rounds up 0.1%)"
    );
}

#[test]
fn zone_dies_idle_scope_erases_while_other_dies_work() {
    let mut d = device(&preemptive(0, false, IdleScope::ZoneDies));
    d.write(at(0), 0, CAP, None).unwrap(); // zone 0: dies 0, 1
    d.write(at(0), ZONE, CAP, None).unwrap(); // zone 1: dies 2, 3
    let t = d.idle_at_ns();
    d.zone_mgmt_send(at(t), 0, ZoneAction::Reset, false)
        .unwrap();
    // A long read on zone 1's dies keeps the device busy but not zone 0's dies.
    d.read(at(t), ZONE, 16, None).unwrap();
    assert!(
        d.background(at(t)).map(|x| x.ns()).is_some(),
        "zone 0's dies are idle"
    );
    let mut whole = device(&preemptive(0, false, IdleScope::Device));
    whole.write(at(0), 0, CAP, None).unwrap();
    whole.write(at(0), ZONE, CAP, None).unwrap();
    whole
        .zone_mgmt_send(at(t), 0, ZoneAction::Reset, false)
        .unwrap();
    whole.read(at(t), ZONE, 16, None).unwrap();
    assert_eq!(
        whole.background(at(t)).map(|x| x.ns()),
        None,
        "the device is busy"
    );
}

#[derive(Clone, Debug)]
enum Cmd {
    Write { zone: u64, nlb: u64 },
    Append { zone: u64, nlb: u64 },
    Read { zone: u64, offset: u64, nlb: u64 },
    Manage { zone: u64, action: ZoneAction },
    Idle { ns: u64 },
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
    ]
}

/// Runs `cmds`, with idle time in between, on the synchronous, mapping, preemptive and renewable
/// firmware (zombie reclaims and ReGC included), every other valid pair of placement and erase
/// scheduler, the round-robin placement with a shared write cache, and preemptive with erase
/// suspend and read priority on, all with data retention:
/// statuses, states, write pointers and data read back are the same (the synchronous device
/// itself is checked against the reference model in `reference_tests`).
fn every_policy_agrees(cmds: &[Cmd], t_free: u32) -> Result<(), TestCaseError> {
    let configs = [
        sync(),
        mapping(t_free, false),
        preemptive(t_free, true, IdleScope::Device),
        preemptive(t_free, false, IdleScope::ZoneDies),
        // ReZNS with a zombie scan every 1 ms (zombies after 2 ms idle) and ReGC past 2 zones.
        PolicySpec::Renewable {
            settings: RenewableSettings {
                threshold: t_free as f64 / 8.0,
                regc_fraction: 0.25,
                zombie_scan_period: Duration::from_ns(1_000_000),
                zombie_idle: Duration::from_ns(2_000_000),
            },
            erase_all_blocks: t_free.is_multiple_of(2),
        },
    ];
    let mut devices: Vec<Device> = configs.iter().map(device).collect();
    // Every other pair of placement and erase scheduler, with the same ReZNS settings, wear
    // levelling of the invalid queue on even thresholds.
    let named: Vec<&str> = configs.iter().map(PolicySpec::name).collect();
    for mut pair in
        PairSpec::all().filter(|p| !named.contains(&p.name()) && p.name() != "round_robin")
    {
        pair.t_free = t_free;
        pair.renewable = match &configs[4] {
            PolicySpec::Renewable { settings, .. } => *settings,
            _ => unreachable!("configs[4] is renewable"),
        };
        pair.erase_all_blocks = t_free.is_multiple_of(2);
        if t_free.is_multiple_of(2) {
            pair.invalid_order = InvalidOrder::LeastWorn;
        }
        devices.push(device(&PolicySpec::Pair(pair)));
    }
    // The small-zone SSD's placement, with a write cache shared by all dies.
    let mut cached = spec();
    cached.write_cache_units = 4 + t_free;
    devices.push(Device::build(
        &cached,
        &PolicySpec::RoundRobin,
        true,
        Sampling::every(Duration::from_ms(500)),
    ));
    // Preemptive with the optional timing: erase suspend and read priority.
    let mut optional = spec();
    optional.nand.timing.read_priority = true;
    optional.nand.timing.erase_suspend = Some(crate::nand::EraseSuspend {
        suspend: Duration::from_us(20),
        resume: Duration::from_us(30),
    });
    devices.push(Device::build(
        &optional,
        &preemptive(t_free, true, IdleScope::Device),
        true,
        Sampling::every(Duration::from_ms(500)),
    ));
    let mut now = 0u64;
    for (i, c) in cmds.iter().enumerate() {
        now += 1_000;
        let mut results = Vec::new();
        for d in devices.iter_mut() {
            let r: Result<Vec<u8>, Status> = match *c {
                Cmd::Write { zone, nlb } => {
                    let wp = d.zone_descriptor(zone as u32).wp;
                    let data: Vec<u8> = (0..nlb * LBA).map(|b| (b as usize + i) as u8).collect();
                    d.write(at(now), wp, nlb, Some(&data)).map(|_| vec![])
                }
                Cmd::Append { zone, nlb } => {
                    let data = vec![i as u8; (nlb * LBA) as usize];
                    d.append(at(now), zone * ZONE, nlb, Some(&data))
                        .map(|a| a.lba.to_le_bytes().to_vec())
                }
                Cmd::Read { zone, offset, nlb } => {
                    let mut buf = vec![0u8; (nlb * LBA) as usize];
                    d.read(at(now), zone * ZONE + offset, nlb, Some(&mut buf))
                        .map(|_| buf)
                }
                Cmd::Manage { zone, action } => d
                    .zone_mgmt_send(at(now), zone * ZONE, action, false)
                    .map(|_| vec![]),
                Cmd::Idle { ns } => {
                    let end = now + ns;
                    let mut t = now;
                    while let Some(next) = d.background(at(t)).map(|x| x.ns()) {
                        if next > end {
                            break;
                        }
                        t = next.max(t + 1);
                    }
                    Ok(vec![])
                }
            };
            d.check_invariants();
            results.push(r);
        }
        if let Cmd::Idle { ns } = c {
            now += ns;
        }
        for (k, r) in results.iter().enumerate().skip(1) {
            prop_assert_eq!(r, &results[0], "cmd {} {:?}: policy {} differs", i, c, k);
        }
        for z in 0..8u32 {
            let want = devices[0].zone_descriptor(z);
            for d in &devices[1..] {
                prop_assert_eq!(d.zone_descriptor(z), want, "zone {} after cmd {}", z, i);
            }
        }
    }
    // A long run (ZONELAB_FUZZ_STATS=1) counts the device commands it applied.
    if std::env::var_os("ZONELAB_FUZZ_STATS").is_some() {
        let host = cmds
            .iter()
            .filter(|c| !matches!(c, Cmd::Idle { .. }))
            .count();
        eprintln!("FUZZ_DEVICE_COMMANDS {}", host * devices.len());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: crate::test_cases(128),
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_policy_looks_the_same_to_the_host(cmds in proptest::collection::vec(cmd(), 1..150), t_free in 0..7u32) {
        every_policy_agrees(&cmds, t_free)?;
    }
}

/// A stream that once made the renewable policy panic: every physical zone pinned by live
/// pieces, none closed with room to compact, while below-threshold remainders sat unused.
#[test]
fn renewable_uses_below_threshold_remainders_before_compacting() {
    use Cmd::*;
    use ZoneAction::*;
    let cmds = [
        Write { zone: 1, nlb: 9 },
        Write { zone: 5, nlb: 13 },
        Write { zone: 5, nlb: 4 },
        Write { zone: 5, nlb: 8 },
        Write { zone: 5, nlb: 23 },
        Write { zone: 6, nlb: 9 },
        Write { zone: 0, nlb: 7 },
        Write { zone: 1, nlb: 21 },
        Read {
            zone: 0,
            offset: 0,
            nlb: 1,
        },
        Write { zone: 4, nlb: 17 },
        Write { zone: 1, nlb: 18 },
        Write { zone: 0, nlb: 14 },
        Write { zone: 4, nlb: 16 },
        Manage {
            zone: 4,
            action: Finish,
        },
        Manage {
            zone: 2,
            action: Open,
        },
        Idle { ns: 2_984_000 },
        Write { zone: 6, nlb: 1 },
        Read {
            zone: 0,
            offset: 0,
            nlb: 1,
        },
        Manage {
            zone: 0,
            action: Finish,
        },
        Write { zone: 3, nlb: 4 },
        Write { zone: 3, nlb: 16 },
        Write { zone: 3, nlb: 17 },
        Write { zone: 7, nlb: 1 },
        Write { zone: 2, nlb: 23 },
        Write { zone: 2, nlb: 14 },
    ];
    every_policy_agrees(&cmds, 3).unwrap();
}

/// Erase suspend (off by default): a read that meets a background erase on its die suspends it
/// instead of waiting for it, and the erase ends later by the read's time plus the suspend and
/// resume costs.
#[test]
fn a_read_suspends_a_background_erase() {
    use crate::nand::EraseSuspend;
    for suspend in [false, true] {
        let mut spec = spec();
        spec.nand.timing.erase_suspend = suspend.then_some(EraseSuspend {
            suspend: Duration::from_us(20),
            resume: Duration::from_us(30),
        });
        let mut d = Device::build(
            &spec,
            &preemptive(0, true, IdleScope::Device),
            false,
            Sampling::every(Duration::from_ms(500)),
        );
        // Logical zones 0, 1, 2 take physical zones 0, 1, 2 in turn: 0 and 2 share dies 0 and 1.
        for z in 0..3 {
            d.write(at(0), z * ZONE, CAP, None).unwrap();
        }
        assert_eq!(d.physical_zone(2), Some(2));
        let t = d.idle_at_ns();
        d.zone_mgmt_send(at(t), 0, ZoneAction::Reset, false)
            .unwrap();
        let erase_end = d.background(at(t)).expect("a partial erase starts").ns();
        assert_eq!(erase_end, t + 3_000_000);
        // Read zone 2 1 ms into the erase of zone 0's blocks.
        let r = d.read(at(t + 1_000_000), 2 * ZONE, 1, None).unwrap();
        let waited = r.erase_wait.ns();
        if suspend {
            assert_eq!(waited, 20_000, "only the suspend cost");
            assert!(r.done_ns() < t + 1_200_000);
            assert_eq!(d.nand_counters().erase_suspends, 1);
        } else {
            assert_eq!(waited, 2_000_000, "the rest of the erase");
            assert!(r.done_ns() > t + 3_000_000);
        }
    }
}

/// A stream that once made the renewable policy panic in compaction: row-rounded reservations of
/// pieces still being written pinned every physical zone, and no zone was closed with room to
/// compact. The victim's open pieces are now closed at their data, giving their units back.
#[test]
fn renewable_compacts_a_zone_that_open_pieces_pin() {
    use Cmd::*;
    use ZoneAction::*;
    let cmds = [
        Write { zone: 0, nlb: 9 },
        Idle { ns: 2_998_000 },
        Write { zone: 6, nlb: 19 },
        Write { zone: 6, nlb: 18 },
        Write { zone: 7, nlb: 16 },
        Append { zone: 3, nlb: 9 },
        Write { zone: 7, nlb: 1 },
        Idle { ns: 2_994_000 },
        Write { zone: 0, nlb: 15 },
        Write { zone: 6, nlb: 8 },
        Write { zone: 0, nlb: 21 },
        Append { zone: 0, nlb: 3 },
        Write { zone: 2, nlb: 22 },
        Idle { ns: 923_526 },
        Manage {
            zone: 6,
            action: Finish,
        },
        Write { zone: 3, nlb: 2 },
        Append { zone: 2, nlb: 15 },
        Write { zone: 3, nlb: 11 },
        Idle { ns: 2_065_474 },
        Append { zone: 2, nlb: 11 },
        Write { zone: 5, nlb: 1 },
        Write { zone: 2, nlb: 1 },
        Write { zone: 1, nlb: 14 },
        Manage {
            zone: 5,
            action: Finish,
        },
        Append { zone: 4, nlb: 9 },
        Write { zone: 1, nlb: 15 },
        Write { zone: 1, nlb: 4 },
        Write { zone: 4, nlb: 16 },
        Write { zone: 3, nlb: 13 },
        Idle { ns: 2_989_000 },
        Manage {
            zone: 5,
            action: Reset,
        },
        Write { zone: 4, nlb: 1 },
        Append { zone: 1, nlb: 1 },
        Manage {
            zone: 4,
            action: Finish,
        },
        Write { zone: 5, nlb: 15 },
        Write { zone: 0, nlb: 1 },
        Write { zone: 5, nlb: 17 },
        Append { zone: 5, nlb: 5 },
        Write { zone: 5, nlb: 4 },
    ];
    every_policy_agrees(&cmds, 0).unwrap();
}

/// A stream that once made the renewable policy hand out units over programmed ones: a piece
/// that had programmed nothing still raised its physical zone's frontier to its first unit, so
/// units a reset gave back below it looked programmed.
#[test]
fn a_piece_that_programmed_nothing_leaves_the_frontier() {
    use Cmd::*;
    use ZoneAction::*;
    let cmds = [
        Append { zone: 6, nlb: 1 },
        Write { zone: 7, nlb: 3 },
        Write { zone: 1, nlb: 1 },
        Idle { ns: 2996000 },
        Append { zone: 6, nlb: 1 },
        Manage {
            zone: 6,
            action: Finish,
        },
        Write { zone: 1, nlb: 1 },
        Idle { ns: 2996000 },
        Write { zone: 7, nlb: 13 },
        Read {
            zone: 0,
            offset: 0,
            nlb: 1,
        },
        Write { zone: 1, nlb: 5 },
        Write { zone: 0, nlb: 18 },
        Write { zone: 0, nlb: 11 },
        Write { zone: 0, nlb: 10 },
        Idle { ns: 2993000 },
        Write { zone: 1, nlb: 17 },
        Idle { ns: 2998000 },
        Write { zone: 0, nlb: 8 },
        Read {
            zone: 0,
            offset: 0,
            nlb: 1,
        },
        Write { zone: 7, nlb: 1 },
        Idle { ns: 2996000 },
        Append { zone: 4, nlb: 9 },
        Write { zone: 4, nlb: 8 },
        Manage {
            zone: 4,
            action: Finish,
        },
        Write { zone: 7, nlb: 1 },
        Write { zone: 0, nlb: 1 },
        Write { zone: 0, nlb: 1 },
        Append { zone: 0, nlb: 1 },
        Write { zone: 0, nlb: 1 },
        Write { zone: 0, nlb: 1 },
        Manage {
            zone: 1,
            action: Finish,
        },
        Write { zone: 2, nlb: 1 },
        Write { zone: 0, nlb: 1 },
        Write { zone: 3, nlb: 1 },
        Manage {
            zone: 0,
            action: Reset,
        },
        Idle { ns: 3985000 },
        Write { zone: 0, nlb: 1 },
        Write { zone: 0, nlb: 1 },
    ];
    every_policy_agrees(&cmds, 0).unwrap();
}
