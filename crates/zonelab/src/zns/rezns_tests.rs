//! ReZNS (Lee et al., ReZNS, Appl. Sci. 2024) on the device: the Figure 2 walkthrough block by block, the
//! 25% threshold edge, spare-list order, ReGC and zombie detection.

use super::device_tests::small_spec;
use super::*;
use crate::device::{ZoneAction, ZoneState};
use crate::firmware::{FirmwareReport, PieceRef, PolicySpec, RenewableReport, RenewableSettings};
use crate::metrics::series::Sampling;
use crate::time::{Duration, Instant, NS_PER_S};
use crate::zns::device_tests::at;

const MIN: u64 = 60 * NS_PER_S;
const HOUR: u64 = 60 * MIN;
/// Figure 2's geometry: zones of ten blocks on one die, two one-page units per block.
const BLOCK_LBAS: u64 = 8;
const ZONE_LBAS: u64 = 10 * BLOCK_LBAS;

fn figure2_spec() -> ZnsSpec {
    let mut spec = small_spec(0, 1);
    let g = &mut spec.nand.geometry;
    g.channels = 1;
    g.dies_per_channel = 1;
    g.pages_per_block = 2;
    g.blocks_per_die = 40;
    let z = &mut spec.zones;
    z.dies_per_zone = 1;
    z.zone_size_bytes = ZONE_LBAS * 4096;
    z.zone_capacity_bytes = ZONE_LBAS * 4096;
    z.zone_count = 4;
    z.max_open_zones = None;
    z.max_active_zones = None;
    z.zone_append_size_limit_bytes = None;
    spec
}

fn renewable(threshold: f64, regc_fraction: f64, scan_ns: u64, idle_ns: u64) -> PolicySpec {
    PolicySpec::Renewable {
        settings: RenewableSettings {
            threshold,
            regc_fraction,
            zombie_scan_period: Duration::from_ns(scan_ns),
            zombie_idle: Duration::from_ns(idle_ns),
        },
        erase_all_blocks: true,
    }
}

fn device(spec: &ZnsSpec, config: &PolicySpec) -> Device {
    Device::build(spec, config, true, Sampling::every(Duration::from_ms(500)))
}

fn report(d: &Device) -> RenewableReport {
    match d.firmware.report(Instant::ZERO) {
        Some(FirmwareReport::Renewable(r)) => r,
        other => panic!("expected a renewable report, got {other:?}"),
    }
}

/// Blocks (two units each) of a piece: (physical zone, first block, blocks programmed).
fn blocks(p: &PieceRef) -> (u32, u64, u64) {
    (p.zone, p.start_unit / 2, (p.end_unit - p.start_unit) / 2)
}

/// The byte the tests store at byte `offset` of zone `zone`: each 4 KiB LBA is distinct.
fn pattern(zone: u64, offset: u64) -> u8 {
    ((offset / 4096) * 7 + zone * 31 + offset % 13) as u8
}

fn write_blocks(d: &mut Device, t: u64, zone: u64, n: u64) {
    let wp = d.zone_descriptor(zone as u32).wp;
    let from = (wp - zone * ZONE_LBAS) * 4096;
    let data: Vec<u8> = (from..from + n * BLOCK_LBAS * 4096)
        .map(|o| pattern(zone, o))
        .collect();
    d.write(at(t), wp, n * BLOCK_LBAS, Some(&data)).unwrap();
}

/// Every byte of `zone` reads back as [`pattern`] wrote it.
fn assert_reads_back(d: &mut Device, zone: u64, t: u64) {
    let lbas = d.zone_data_lbas(zone as u32);
    let mut buf = vec![0u8; (lbas * 4096) as usize];
    d.read(at(t), zone * ZONE_LBAS, lbas, Some(&mut buf))
        .unwrap();
    let wrong = buf
        .iter()
        .enumerate()
        .position(|(o, &b)| b != pattern(zone, o as u64));
    assert_eq!(wrong, None, "zone {zone}: first wrong byte");
}

#[test]
fn figure_2_walkthrough() {
    let spec = figure2_spec();
    let mut d = device(&spec, &renewable(0.25, 0.5, HOUR, HOUR));
    // (1) App1, App2 and App3 create zones 0, 1 and 2 (they get physical zones 0, 1 and 2).
    // App1 writes four blocks and quits without a reset.
    for zone in 0..3 {
        d.zone_mgmt_send(at(0), zone * ZONE_LBAS, ZoneAction::Open, false)
            .unwrap();
        assert_eq!(d.physical_zone(zone as u32), Some(zone as u32));
    }
    write_blocks(&mut d, 0, 0, 4);
    // (2) App3 writes three blocks and resets its zone; (3) 70% of it is unwritten, so it becomes
    // an Rzone on the spare-list instead of being erased.
    write_blocks(&mut d, MIN, 2, 3);
    d.zone_mgmt_send(at(2 * MIN), 2 * ZONE_LBAS, ZoneAction::Reset, false)
        .unwrap();
    assert_eq!(d.nand_counters().block_erases, 0, "no erase for an Rzone");
    // (4) Thirty minutes later App2 writes nine blocks.
    write_blocks(&mut d, 30 * MIN, 1, 9);
    // (5) At the hourly scan App1's zone, unwritten for an hour, is a zombie: its six unwritten
    // blocks go on the spare-list. App2's zone, written 30 minutes ago, is not.
    d.background(at(HOUR)).map(|x| x.ns());
    let r = report(&d);
    assert_eq!(r.zombie_reclaims, 1);
    assert_eq!(
        d.zone_descriptor(0).state,
        ZoneState::ExplicitlyOpened,
        "the host sees nothing"
    );
    // (6) App2 writes nine more blocks: the last block of its zone...
    write_blocks(&mut d, HOUR + MIN, 1, 1);
    assert_eq!(d.zone_descriptor(1).state, ZoneState::Full);
    // ... then a new zone (zone 3). (7) It gets Zone2 (70% left) before Zone0 (60%) and a fresh
    // zone, and writes seven blocks there; (8) the eighth goes to Zone0, which lends the three
    // blocks zone 3 still needs to reach ten.
    write_blocks(&mut d, HOUR + 2 * MIN, 3, 8);

    assert_eq!(
        d.zone_pieces(0).iter().map(blocks).collect::<Vec<_>>(),
        [(0, 0, 4)]
    );
    assert_eq!(
        d.zone_pieces(1).iter().map(blocks).collect::<Vec<_>>(),
        [(1, 0, 10)]
    );
    assert!(d.zone_pieces(2).is_empty(), "the reset zone holds nothing");
    let z3 = d.zone_pieces(3);
    assert_eq!(
        z3.iter().map(blocks).collect::<Vec<_>>(),
        [(2, 3, 7), (0, 4, 1)]
    );
    assert_eq!(z3[1].reserved_end_unit, 14, "Zone0 lends blocks 4, 5 and 6");
    // Zone0's last three blocks (30%) stay on the spare-list; zone 3 is a full-size zone.
    assert_eq!(
        d.zone_descriptor(3).wp - d.zone_descriptor(3).zslba,
        8 * BLOCK_LBAS
    );
    let r = report(&d);
    assert_eq!((r.host_resets, r.rzone_resets, r.zones_erased), (1, 1, 0));
    assert_eq!(
        r.units_recycled,
        14 + 6,
        "seven blocks of Zone2 and three of Zone0"
    );
    assert_eq!(d.nand_counters().block_erases, 0);
    // Every byte reads back where the host wrote it.
    for zone in [0u64, 1, 3] {
        assert_reads_back(&mut d, zone, 2 * HOUR);
    }
    d.check_invariants();
    // Zone 3 is a normal zone to the host: it fills at ten blocks.
    write_blocks(&mut d, 2 * HOUR, 3, 2);
    assert_eq!(d.zone_descriptor(3).state, ZoneState::Full);
    assert_eq!(
        d.zone_pieces(3).iter().map(blocks).collect::<Vec<_>>(),
        [(2, 3, 7), (0, 4, 3)]
    );
}

#[test]
fn threshold_edge_at_25_percent() {
    let spec = figure2_spec();
    // Remaining exactly 25% (7.5 blocks written is not possible in whole blocks: use units).
    for (written_units, rzone) in [(15, false), (14, true)] {
        let mut d = device(&spec, &renewable(0.25, 0.5, 0, HOUR));
        let data = vec![1u8; (written_units * 4 * 4096) as usize];
        d.write(at(0), 0, written_units * 4, Some(&data)).unwrap();
        d.zone_mgmt_send(at(1), 0, ZoneAction::Reset, false)
            .unwrap();
        let r = report(&d);
        assert_eq!(
            r.rzone_resets, rzone as u64,
            "{written_units} of 20 units written"
        );
        assert_eq!(r.zones_erased, !rzone as u64);
        assert_eq!(d.nand_counters().block_erases, if rzone { 0 } else { 10 });
    }
}

#[test]
fn spare_list_is_sorted_by_remaining_capacity_and_regc_releases_the_smallest() {
    let spec = figure2_spec();
    // ReGC above half of the four zones: at most two Rzones.
    let mut d = device(&spec, &renewable(0.25, 0.5, 0, HOUR));
    for (zone, blocks) in [(0u64, 5u64), (1, 2), (2, 4)] {
        write_blocks(&mut d, 0, zone, blocks);
    }
    d.zone_mgmt_send(at(1), 0, ZoneAction::Reset, false)
        .unwrap(); // 50% left
    d.zone_mgmt_send(at(2), ZONE_LBAS, ZoneAction::Reset, false)
        .unwrap(); // 80% left
    let r = report(&d);
    assert_eq!((r.rzone_resets, r.regc_releases), (2, 0));
    assert_eq!(r.spare_list, [(1, 16), (0, 10)], "largest remainder first");
    // A third Rzone (60% left) puts three on the list: ReGC releases the 50% one and erases it.
    d.zone_mgmt_send(at(3), 2 * ZONE_LBAS, ZoneAction::Reset, false)
        .unwrap();
    let r = report(&d);
    assert_eq!((r.rzone_resets, r.regc_releases, r.zones_erased), (3, 1, 1));
    assert_eq!(d.nand_counters().block_erases, 10);
    // The spare-list length over time (firmware_over_time.csv): one interval here, its last value.
    let lengths: Vec<u32> = r.spare_samples.iter().map(|s| s.spare_zones).collect();
    assert_eq!(lengths, [2], "{:?}", r.spare_samples);
    // The next zone to need space gets the 80% Rzone (physical zone 1) first.
    write_blocks(&mut d, 10, 3, 1);
    assert_eq!(d.zone_pieces(3)[0].zone, 1);
    assert_eq!(d.zone_pieces(3)[0].start_unit, 4);
    d.check_invariants();
}

#[test]
fn zombies_are_zones_idle_past_the_threshold_at_a_scan() {
    let spec = figure2_spec();
    let mut d = device(&spec, &renewable(0.25, 0.5, 10 * MIN, 30 * MIN));
    write_blocks(&mut d, 0, 0, 2);
    // Partial unit staged in zone 2: it stays staged, and the zone keeps that unit, when the
    // zone is reclaimed (padding it would cost the zone a unit its capacity never counted).
    d.write(at(0), 2 * ZONE_LBAS, 2, Some(&[9u8; 2 * 4096]))
        .unwrap();
    write_blocks(&mut d, 25 * MIN, 1, 2);
    assert_eq!(
        d.background(at(29 * MIN)).map(|x| x.ns()),
        Some(30 * MIN),
        "the next scan"
    );
    assert_eq!(
        report(&d).zombie_reclaims,
        0,
        "scans at 10 and 20 min found nobody idle 30 min"
    );
    d.background(at(30 * MIN)).map(|x| x.ns());
    let r = report(&d);
    assert_eq!(
        r.zombie_reclaims, 2,
        "zones 0 and 2, written at 0; zone 1 only 5 min ago"
    );
    assert_eq!(r.spare_zones, 2);
    assert_eq!(
        d.nand_counters().page_programs,
        4 + 4,
        "zones 0 and 1; zone 2's partial unit is not padded"
    );
    // The host writes a zombie again: it fills the unit it kept and loses no byte.
    d.write(at(31 * MIN), 2 * ZONE_LBAS + 2, 1, Some(&[7u8; 4096]))
        .unwrap();
    let mut buf = vec![0u8; 3 * 4096];
    d.read(at(32 * MIN), 2 * ZONE_LBAS, 3, Some(&mut buf))
        .unwrap();
    assert!(buf[..2 * 4096].iter().all(|&b| b == 9) && buf[2 * 4096..].iter().all(|&b| b == 7));
    assert_eq!(d.zone_pieces(2).len(), 1);
    // Past that unit it gets new space like any zone that outgrew its piece.
    d.write(at(33 * MIN), 2 * ZONE_LBAS + 3, 4, Some(&[5u8; 4 * 4096]))
        .unwrap();
    assert_eq!(d.zone_pieces(2).len(), 2);
    d.check_invariants();
}

#[test]
fn when_pieces_pin_every_zone_the_least_live_one_is_compacted_in_place() {
    let spec = figure2_spec();
    // Every reset keeps its zone (threshold 0) and ReGC never runs.
    let mut d = device(&spec, &renewable(0.0, 1.0, 0, HOUR));
    write_blocks(&mut d, 0, 0, 2);
    d.zone_mgmt_send(at(1), 0, ZoneAction::Reset, false)
        .unwrap();
    // Zones 1, 2 and 3 each take the previous Rzone's 8 blocks and 2 blocks of a fresh zone.
    for zone in 1..4 {
        write_blocks(&mut d, 10 * zone, zone, 10);
    }
    assert_eq!(
        d.zone_pieces(3).iter().map(blocks).collect::<Vec<_>>(),
        [(2, 2, 8), (3, 0, 2)]
    );
    // Zone 0 takes physical zone 3's 8 free blocks, then nothing is left: physical zone 0 (zone
    // 1's 8 blocks after 2 dead ones) is compacted and lends its last 2 blocks.
    write_blocks(&mut d, 100, 0, 10);
    assert_eq!(
        d.zone_pieces(1).iter().map(blocks).collect::<Vec<_>>(),
        [(0, 0, 8), (1, 0, 2)]
    );
    assert_eq!(
        d.zone_pieces(0).iter().map(blocks).collect::<Vec<_>>(),
        [(3, 2, 8), (0, 8, 2)]
    );
    assert_eq!(report(&d).compactions, 1);
    assert_eq!(d.counters().compacted_units, 16);
    for zone in 0..4u64 {
        assert_reads_back(&mut d, zone, 1_000);
    }
    d.check_invariants();
}

/// Regression (issue 36, defect 1): tiny zones (48 KiB of 256 KiB in 32 KiB units), writers
/// that abandon zones part-written, and a zombie daemon: compaction and zombie reclaims padded
/// partial units, zones came to need more units than their capacity, and `zonelab run` aborted
/// ("a physical zone with room to compact"). The run ends, with no command refused.
#[test]
fn abandoned_tiny_zones_never_over_commit() {
    let text = r#"
        preset = "rezns-40g"
        [device.geometry]
        pages_per_block = 4
        [device.zones]
        dies_per_zone = 1
        zone_size_bytes = "256KiB"
        zone_capacity_bytes = "48KiB"
        zone_count = 8
        [device.timing]
        write_buffer_units_per_zone = 0
        [firmware]
        policy = "renewable"
        [[job]]
        rw = "write"
        bs = "8KiB"
        size = "2z"
        zone_fill = "40KiB"
        zone_fill_action = "abandon"
        io_size = "4096KiB"
        thinktime = "1ms"
        startdelay = "1ms"
        [[job]]
        rw = "write"
        bs = "4KiB"
        offset = "2z"
        size = "3z"
        thinktime = "1ms"
        startdelay = "5ms"
        [[job]]
        rw = "write"
        bs = "16KiB"
        offset = "5z"
        io_size = "4096KiB"
    "#;
    let cfg = crate::config::ExperimentConfig::parse(text, &[]).unwrap();
    let exp = cfg.validate("issue36").unwrap();
    let out =
        crate::experiment::run(&exp, crate::experiment::Inputs::default(), 0, &mut |_| {}).unwrap();
    assert_eq!(out.summary.errors_total, 0, "{:?}", out.summary.errors);
    out.device.check_invariants();
}
