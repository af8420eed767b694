//! Device tests: every status code and transition, and timing against hand-computed values.
//! The property tests against a reference model of the zone rules are in `reference_tests.rs`.

use super::*;
use crate::device::{Accepted, DeviceModel, ReportFilter, Status, ZoneAction, ZoneState};
use crate::firmware;
use crate::nand::{Energy, NandGeometry, NandSpec, NandTiming};
use crate::time::{Duration, Instant};

pub(crate) const LBA: u64 = 4096;
const T_R: u64 = 50_000;
const T_PROG: u64 = 500_000;
const T_ERASE: u64 = 3_000_000;

/// 4 dies on 2 channels, 16 KiB pages, 4 pages per block, one block per die per zone:
/// zones of 256 KiB (64 LBAs) with 192 KiB (48 LBAs) capacity, 8 zones, 3 open, 4 active.
pub(crate) fn small_spec(buffer_units: u32, dies_per_zone: u32) -> ZnsSpec {
    let blocks_per_zone = 4;
    let groups = 4 / dies_per_zone;
    ZnsSpec {
        name: "test".into(),
        nand: NandSpec {
            geometry: NandGeometry {
                channels: 2,
                dies_per_channel: 2,
                blocks_per_die: 8 * blocks_per_zone / dies_per_zone / groups,
                pages_per_block: 4,
                page_size_bytes: 16 * 1024,
                pages_per_program: 1,
            },
            timing: NandTiming {
                read_latency: Duration::from_ns(T_R),
                read_4k_latency: Duration::from_ns(T_R),
                channel_op: Duration::ZERO,
                program_latency: Duration::from_ns(T_PROG),
                erase_latency: Duration::from_ns(T_ERASE),
                channel_rate_mb_s: 800,
                host_rate_mb_s: 3200,
                erase_suspend: None,
                read_priority: false,
                cache_read: true,
            },
            energy: Energy {
                read_nj_per_page: 1.0,
                program_nj_per_page: 10.0,
                erase_nj_per_block: 100.0,
            },
            aging: None,
            controller: Default::default(),
        },
        zones: ZoneGeometry {
            lba_size_bytes: LBA,
            dies_per_zone,
            zone_size_bytes: 256 * 1024,
            zone_capacity_bytes: 192 * 1024,
            zone_count: 8,
            max_open_zones: Some(3),
            max_active_zones: Some(4),
            zone_append_size_limit_bytes: Some(64 * 1024),
        },
        overheads: Overheads::default(),
        write_buffer_units_per_zone: buffer_units,
        write_cache_units: 0,
        finish_pads_zone: false,
    }
}

/// A time in ns as an instant (tests write times as plain numbers).
pub(crate) fn at(ns: u64) -> Instant {
    Instant::from_ns(ns)
}

/// Completion and idle times as plain numbers.
pub(crate) trait Ns {
    fn done_ns(&self) -> u64;
}

impl Ns for crate::device::Accepted {
    fn done_ns(&self) -> u64 {
        self.done.expect("the ZNS device completes at once").ns()
    }
}

impl Device {
    pub(crate) fn idle_at_ns(&self) -> u64 {
        crate::device::DeviceModel::idle_at(self).ns()
    }
}

pub(super) fn device() -> Device {
    Device::new(&small_spec(0, 4), firmware::synchronous(false), true)
}

pub(super) const ZONE: u64 = 64; // LBAs per zone
pub(super) const CAP: u64 = 48; // LBAs of capacity

pub(super) fn zslba(z: u64) -> u64 {
    z * ZONE
}

fn open(d: &mut Device, z: u64) -> Result<Accepted, Status> {
    d.zone_mgmt_send(at(0), zslba(z), ZoneAction::Open, false)
}

fn act(d: &mut Device, z: u64, a: ZoneAction) -> Result<Accepted, Status> {
    d.zone_mgmt_send(at(0), zslba(z), a, false)
}

fn state(d: &Device, z: u64) -> ZoneState {
    d.zone_descriptor(z as u32).state
}

#[test]
fn writes_follow_the_write_pointer() {
    let mut d = device();
    assert_eq!(
        d.write(at(0), zslba(0) + 1, 1, None),
        Err(Status::ZoneInvalidWrite)
    );
    d.write(at(0), zslba(0), 4, None).unwrap();
    assert_eq!(state(&d, 0), ZoneState::ImplicitlyOpened);
    assert_eq!(d.zone_descriptor(0).wp, 4);
    assert_eq!(
        d.write(at(0), zslba(0), 1, None),
        Err(Status::ZoneInvalidWrite)
    );
    assert_eq!(
        d.write(at(0), zslba(0) + 4, CAP, None),
        Err(Status::ZoneBoundaryError)
    );
    d.write(at(0), zslba(0) + 4, CAP - 4, None).unwrap();
    assert_eq!(state(&d, 0), ZoneState::Full);
    assert_eq!(d.open_zones(), 0);
    assert_eq!(d.active_zones(), 0);
    assert_eq!(
        d.write(at(0), zslba(0) + CAP, 1, None),
        Err(Status::ZoneIsFull)
    );
    d.check_invariants();
}

#[test]
fn generic_errors() {
    let mut d = device();
    assert_eq!(
        d.write(at(0), zslba(8), 1, None),
        Err(Status::LbaOutOfRange)
    );
    assert_eq!(
        d.read(at(0), zslba(8) - 1, 2, None),
        Err(Status::LbaOutOfRange)
    );
    assert_eq!(d.read(at(0), u64::MAX, 2, None), Err(Status::LbaOutOfRange));
    assert_eq!(
        d.write(at(0), 0, u64::MAX, None),
        Err(Status::LbaOutOfRange)
    );
    assert_eq!(
        d.write(at(0), 0, u64::MAX / 2, Some(&[0u8; 4096])),
        Err(Status::InvalidField)
    );
    assert_eq!(
        d.append(at(0), 0, u64::MAX, None),
        Err(Status::LbaOutOfRange)
    );
    assert_eq!(d.write(at(0), 0, 0, None), Err(Status::InvalidField));
    assert_eq!(
        d.write(at(0), 0, 1, Some(&[0u8; 10])),
        Err(Status::InvalidField)
    );
    assert_eq!(
        d.read(at(0), ZONE - 1, 2, None),
        Err(Status::ZoneBoundaryError)
    );
    assert_eq!(d.append(at(0), 1, 1, None), Err(Status::InvalidField));
    assert_eq!(
        d.append(at(0), 0, 17, None),
        Err(Status::InvalidField),
        "above ZASL 64 KiB"
    );
    assert_eq!(
        d.zone_mgmt_send(at(0), 1, ZoneAction::Open, false),
        Err(Status::InvalidField)
    );
    assert_eq!(
        d.zone_mgmt_send(at(0), zslba(8), ZoneAction::Open, false),
        Err(Status::LbaOutOfRange)
    );
    assert_eq!(
        d.report_zones(0, zslba(8), ReportFilter::All, false, 10),
        Err(Status::LbaOutOfRange)
    );
}

#[test]
fn append_returns_the_lba_it_wrote() {
    let mut d = device();
    assert_eq!(d.append(at(0), zslba(2), 3, None).unwrap().lba, zslba(2));
    assert_eq!(
        d.append(at(0), zslba(2), 2, None).unwrap().lba,
        zslba(2) + 3
    );
    d.append(at(0), zslba(2), 16, None).unwrap();
    d.append(at(0), zslba(2), 16, None).unwrap();
    assert_eq!(
        d.append(at(0), zslba(2), 12, None),
        Err(Status::ZoneBoundaryError),
        "37 + 12 > 48"
    );
    assert_eq!(
        d.append(at(0), zslba(2), 11, None).unwrap().lba,
        zslba(2) + 37
    );
    assert_eq!(d.append(at(0), zslba(2), 1, None), Err(Status::ZoneIsFull));
}

#[test]
fn open_and_active_limits() {
    let mut d = device();
    for z in 0..3 {
        open(&mut d, z).unwrap();
    }
    // Every open zone is explicitly opened: nothing to close implicitly.
    assert_eq!(
        d.write(at(0), zslba(3), 1, None),
        Err(Status::TooManyOpenZones)
    );
    assert_eq!(open(&mut d, 3), Err(Status::TooManyOpenZones));
    act(&mut d, 0, ZoneAction::Close).unwrap();
    d.write(at(0), zslba(3), 1, None).unwrap();
    assert_eq!(d.active_zones(), 4);
    // Four active (0 closed, 1, 2, 3 open): an empty zone cannot become active.
    assert_eq!(
        d.write(at(0), zslba(4), 1, None),
        Err(Status::TooManyActiveZones)
    );
    assert_eq!(open(&mut d, 4), Err(Status::TooManyActiveZones));
    // A closed zone needs only an open resource; zone 3 is implicitly opened and gets closed.
    d.write(at(0), zslba(0), 1, None).unwrap();
    assert_eq!(state(&d, 3), ZoneState::Closed);
    assert_eq!(d.counters().implicit_closes, 1);
    d.check_invariants();
}

#[test]
fn implicit_close_picks_the_least_recently_used_implicitly_opened_zone() {
    let mut d = device();
    d.write(at(0), zslba(0), 1, None).unwrap();
    d.write(at(0), zslba(1), 1, None).unwrap();
    d.write(at(0), zslba(2), 1, None).unwrap();
    d.write(at(0), zslba(0) + 1, 1, None).unwrap(); // zone 0 used again: zone 1 is now the oldest
    d.write(at(0), zslba(3), 1, None).unwrap();
    assert_eq!(state(&d, 1), ZoneState::Closed);
    assert_eq!(state(&d, 0), ZoneState::ImplicitlyOpened);
    d.check_invariants();
}

#[test]
fn management_transitions() {
    use ZoneAction::*;
    let mut d = device();
    assert_eq!(
        act(&mut d, 0, Close),
        Err(Status::InvalidZoneStateTransition),
        "close an empty zone"
    );
    act(&mut d, 0, Reset).unwrap(); // Empty -> Empty is success
    open(&mut d, 0).unwrap();
    open(&mut d, 0).unwrap(); // ExplOpen -> ExplOpen
    assert_eq!(state(&d, 0), ZoneState::ExplicitlyOpened);
    d.write(at(0), zslba(0), 2, None).unwrap();
    assert_eq!(
        state(&d, 0),
        ZoneState::ExplicitlyOpened,
        "writes keep an explicit open"
    );
    act(&mut d, 0, Close).unwrap();
    act(&mut d, 0, Close).unwrap(); // Closed -> Closed
    assert_eq!(state(&d, 0), ZoneState::Closed);
    act(&mut d, 0, Finish).unwrap();
    assert_eq!(state(&d, 0), ZoneState::Full);
    assert_eq!(d.zone_descriptor(0).wp, zslba(0) + CAP);
    act(&mut d, 0, Finish).unwrap(); // Full -> Full
    assert_eq!(
        act(&mut d, 0, Open),
        Err(Status::InvalidZoneStateTransition)
    );
    assert_eq!(
        act(&mut d, 0, Close),
        Err(Status::InvalidZoneStateTransition)
    );
    act(&mut d, 1, Finish).unwrap(); // Empty -> Full
    assert_eq!(state(&d, 1), ZoneState::Full);
    act(&mut d, 0, Reset).unwrap();
    assert_eq!(state(&d, 0), ZoneState::Empty);
    assert_eq!(d.zone_descriptor(0).wp, zslba(0));
    assert_eq!(
        act(&mut d, 0, Offline),
        Err(Status::InvalidZoneStateTransition)
    );
    d.check_invariants();
}

#[test]
fn read_only_and_offline_zones() {
    use ZoneAction::*;
    let mut d = device();
    d.write(at(0), zslba(5), 2, Some(&[7u8; 2 * LBA as usize]))
        .unwrap();
    d.inject_fault(5, ZoneState::ReadOnly);
    assert_eq!(d.open_zones(), 0);
    assert_eq!(
        d.write(at(0), zslba(5) + 2, 1, None),
        Err(Status::ZoneIsReadOnly)
    );
    assert_eq!(
        d.append(at(0), zslba(5), 1, None),
        Err(Status::ZoneIsReadOnly)
    );
    let mut buf = vec![0u8; LBA as usize];
    d.read(at(0), zslba(5), 1, Some(&mut buf)).unwrap();
    assert_eq!(
        buf,
        vec![7u8; LBA as usize],
        "read only zones stay readable"
    );
    for a in [Open, Close, Finish, Reset] {
        assert_eq!(
            act(&mut d, 5, a),
            Err(Status::InvalidZoneStateTransition),
            "{a:?}"
        );
    }
    act(&mut d, 5, Offline).unwrap();
    act(&mut d, 5, Offline).unwrap();
    assert_eq!(state(&d, 5), ZoneState::Offline);
    assert_eq!(d.read(at(0), zslba(5), 1, None), Err(Status::ZoneIsOffline));
    assert_eq!(
        d.write(at(0), zslba(5), 1, None),
        Err(Status::ZoneIsOffline)
    );
    d.check_invariants();
}

#[test]
fn select_all_applies_to_matching_states_only() {
    use ZoneAction::*;
    let mut d = device();
    d.write(at(0), zslba(0), 1, None).unwrap();
    d.write(at(0), zslba(1), 1, None).unwrap();
    act(&mut d, 2, Finish).unwrap();
    d.zone_mgmt_send(at(0), 0, Close, true).unwrap();
    assert_eq!(
        (state(&d, 0), state(&d, 1)),
        (ZoneState::Closed, ZoneState::Closed)
    );
    d.zone_mgmt_send(at(0), 0, Open, true).unwrap();
    assert_eq!(
        (state(&d, 0), state(&d, 1)),
        (ZoneState::ExplicitlyOpened, ZoneState::ExplicitlyOpened)
    );
    assert_eq!(
        state(&d, 3),
        ZoneState::Empty,
        "select all open leaves empty zones alone"
    );
    d.zone_mgmt_send(at(0), 0, Finish, true).unwrap();
    assert_eq!(state(&d, 0), ZoneState::Full);
    d.zone_mgmt_send(at(0), 0, Reset, true).unwrap();
    assert!((0..8).all(|z| state(&d, z) == ZoneState::Empty));
    assert_eq!(d.counters().zone_resets_requested, 3);
    d.check_invariants();
}

#[test]
fn report_zones_filters_and_counts() {
    let mut d = device();
    d.write(at(0), zslba(1), 3, None).unwrap();
    act(&mut d, 2, ZoneAction::Finish).unwrap();
    let all = d.report_zones(0, 0, ReportFilter::All, false, 3).unwrap();
    assert_eq!(all.zone_count, 8);
    assert_eq!(all.descriptors.len(), 3);
    assert_eq!(all.descriptors[1].wp, zslba(1) + 3);
    assert_eq!(all.descriptors[1].capacity_lbas, CAP);
    let partial = d.report_zones(0, 0, ReportFilter::All, true, 3).unwrap();
    assert_eq!(partial.zone_count, 3);
    let empty = d
        .report_zones(
            0,
            zslba(1),
            ReportFilter::State(ZoneState::Empty),
            false,
            100,
        )
        .unwrap();
    assert_eq!(empty.zone_count, 5);
    assert!(
        empty
            .descriptors
            .iter()
            .all(|z| z.state == ZoneState::Empty && z.zslba >= zslba(3))
    );
    let text = crate::device::format_nvme_cli(&all);
    assert!(text.starts_with("nr_zones: 8\n"));
    assert!(text.contains("State: IMP_OPENED"));
    let zbd = crate::device::format_libzbd(&all, ZONE, LBA);
    assert!(zbd.contains("Zone 00001: swr, ofst 00000000262144, len 00000000262144, cap 00000000196608, wp 00000000274432, oi"));
}

#[test]
fn retained_data_reads_back_and_unwritten_reads_zero() {
    let mut d = device();
    let data: Vec<u8> = (0..3 * LBA).map(|i| (i % 251) as u8).collect();
    d.write(at(0), zslba(4), 3, Some(&data)).unwrap();
    let mut buf = vec![0xffu8; 5 * LBA as usize];
    d.read(at(0), zslba(4), 5, Some(&mut buf)).unwrap();
    assert_eq!(&buf[..data.len()], &data[..]);
    assert!(buf[data.len()..].iter().all(|&b| b == 0));
    act(&mut d, 4, ZoneAction::Reset).unwrap();
    d.read(at(0), zslba(4), 5, Some(&mut buf)).unwrap();
    assert!(buf.iter().all(|&b| b == 0), "reset zones read as zeros");
}

// ---- timing ----

fn transfer(bytes: u64, rate_mb_s: u64) -> u64 {
    bytes * 1000 / rate_mb_s
}

#[test]
fn idle_4k_read_costs_tr_plus_transfer() {
    let mut d = device();
    d.write(at(0), zslba(0), CAP, None).unwrap();
    let t0 = d.idle_at_ns();
    let c = d.read(at(t0), zslba(0), 1, None).unwrap();
    assert_eq!(
        c.done_ns() - t0,
        T_R + transfer(LBA, 800) + transfer(LBA, 3200)
    );
}

#[test]
fn reads_of_unwritten_lbas_touch_no_nand() {
    let mut d = device();
    let c = d.read(at(0), zslba(0), 1, None).unwrap();
    assert_eq!(c.done_ns(), transfer(LBA, 3200));
    assert_eq!(d.nand_counters().page_reads, 0);
}

#[test]
fn a_read_running_past_the_data_senses_only_what_is_written() {
    // One page written; a read of its last LBA and the 60 after it, to the zone's end. The
    // first chunk is sensed and crosses the channel and the host link; the zeros after it, from
    // the controller, are ready at once, but no gap on the host link before that transfer is
    // long enough for them, so they follow it.
    let mut d = device();
    d.write(at(0), 0, 4, None).unwrap();
    let t0 = d.idle_at_ns();
    let reads = d.nand_counters().page_reads;
    let c = d.read(at(t0), 3, ZONE - 3, None).unwrap();
    let zeros = (ZONE - 4) * LBA;
    assert!(transfer(zeros, 3200) > T_R + transfer(LBA, 800));
    assert_eq!(
        c.done_ns() - t0,
        T_R + transfer(LBA, 800) + transfer(LBA, 3200) + transfer(zeros, 3200)
    );
    assert_eq!(d.nand_counters().page_reads, reads + 1);
}

#[test]
fn striped_pages_complete_in_parallel_and_one_die_serialises() {
    // Four 16 KiB pages: on four dies (two per channel) against all on one die.
    let page = 16 * 1024;
    let mut striped = device();
    striped.write(at(0), 0, CAP, None).unwrap();
    let t0 = striped.idle_at_ns();
    let parallel = striped.read(at(t0), 0, 16, None).unwrap().done_ns() - t0;
    // Dies sense together; each channel then moves two pages one after the other, and the last
    // two pages, ready together, share the host link.
    let expect = T_R + 2 * transfer(page, 800) + 2 * transfer(page, 3200);
    assert_eq!(parallel, expect);

    let mut single = Device::new(&small_spec(0, 1), firmware::synchronous(false), false);
    single.write(at(0), 0, CAP, None).unwrap();
    let t0 = single.idle_at_ns();
    let serial = single.read(at(t0), 0, 16, None).unwrap().done_ns() - t0;
    // One die senses one page at a time; each page crosses the channel while the next is
    // sensed (cache read), so only the last transfer adds to the four tR.
    assert_eq!(serial, 4 * T_R + transfer(page, 800) + transfer(page, 3200));
    assert!(serial > 2 * parallel);
}

#[test]
fn writes_wait_for_programs_without_a_buffer_and_complete_early_with_one() {
    let page = 16 * 1024;
    let mut d = device();
    // One full page: host transfer, channel transfer, tPROG.
    let c = d.write(at(0), 0, 4, None).unwrap();
    assert_eq!(
        c.done_ns(),
        transfer(page, 3200) + transfer(page, 800) + T_PROG
    );
    // A partial page waits in the controller: done when its data has arrived.
    let t = d.idle_at_ns();
    let c = d.write(at(t), 4, 1, None).unwrap();
    assert_eq!(c.done_ns() - t, transfer(LBA, 3200));

    let mut buffered = Device::new(&small_spec(2, 4), firmware::synchronous(false), false);
    let c = buffered.write(at(0), 0, 8, None).unwrap();
    assert_eq!(
        c.done_ns(),
        transfer(2 * page, 3200),
        "two units fit the buffer"
    );
    // The buffer holds two units and both are still programming: the next unit waits for one.
    let c = buffered.write(at(c.done_ns()), 8, 4, None).unwrap();
    let first_programmed = transfer(2 * page, 3200) + transfer(page, 800) + T_PROG;
    assert_eq!(c.done_ns(), first_programmed);
}

#[test]
fn reset_erases_programmed_blocks_holding_their_dies() {
    let mut d = device();
    d.write(at(0), 0, 8, None).unwrap(); // two pages: blocks on dies 0 and 1
    let t0 = d.idle_at_ns();
    let c = act(&mut d, 0, ZoneAction::Reset)
        .map(|_| ())
        .map(|_| d.idle_at_ns())
        .unwrap();
    assert_eq!(c, t0 + T_ERASE);
    assert_eq!(d.nand_counters().block_erases, 2);
    assert_eq!(d.counters().zone_resets_executed, 1);
    // A read on die 0 issued during the erase waits for it.
    let mut d = device();
    d.write(at(0), zslba(1), CAP, None).unwrap(); // zone 1 also lives on dies 0..3
    d.write(at(0), 0, 8, None).unwrap();
    let t0 = d.idle_at_ns();
    d.zone_mgmt_send(at(t0), 0, ZoneAction::Reset, false)
        .unwrap();
    let r = d.read(at(t0 + 1), zslba(1), 1, None).unwrap();
    assert_eq!(
        r.done_ns(),
        t0 + T_ERASE + T_R + transfer(LBA, 800) + transfer(LBA, 3200)
    );
}

#[test]
fn erase_all_blocks_option_and_empty_resets() {
    let mut d = Device::new(&small_spec(0, 4), firmware::synchronous(true), false);
    d.write(at(0), 0, 4, None).unwrap();
    act(&mut d, 0, ZoneAction::Reset).unwrap();
    assert_eq!(
        d.nand_counters().block_erases,
        4,
        "one block on each of four dies"
    );
    act(&mut d, 0, ZoneAction::Reset).unwrap();
    assert_eq!(
        d.nand_counters().block_erases,
        4,
        "an empty zone erases nothing"
    );
    assert_eq!(d.counters().zone_resets_requested, 2);
    assert_eq!(d.counters().zone_resets_executed, 1);
    let w = d.wear();
    assert_eq!((w.min, w.max), (0, 1));
    assert_eq!(w.histogram[&1], 4);
}

#[test]
fn finish_pads_the_partial_unit_and_counts_energy() {
    let mut d = device();
    d.write(at(0), 0, 2, None).unwrap(); // half a page, staged
    assert_eq!(d.nand_counters().page_programs, 0);
    act(&mut d, 0, ZoneAction::Finish).unwrap();
    assert_eq!(d.nand_counters().page_programs, 1);
    let e = d.energy();
    assert_eq!(e.program, 10.0);
    act(&mut d, 0, ZoneAction::Reset).unwrap();
    assert_eq!(d.energy().erase, 100.0);
}
