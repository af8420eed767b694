//! The conventional SSD against a reference model (a flat array of bytes), garbage collection
//! that never loses data, write amplification, wear levelling, preconditioning, and timing that
//! follows from the NAND model by hand.

use crate::metrics::series::Sampling;
use proptest::prelude::*;

use super::*;
use crate::device::{Command, Data, DeviceModel, Op, Status};
use crate::firmware::FirmwareReport;
use crate::nand::{Energy, NandGeometry, NandTiming};
use crate::time::Instant;

const T_R: u64 = 50_000;
const T_PROG: u64 = 500_000;
const T_ERASE: u64 = 3_000_000;

/// 2 channels x 2 dies, 16 KiB pages, 4-page blocks (64 KiB), 16 superblocks of 256 KiB.
fn nand(blocks_per_die: u32) -> NandSpec {
    NandSpec {
        geometry: NandGeometry {
            channels: 2,
            dies_per_channel: 2,
            blocks_per_die,
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
            // 1000 MB/s: one byte per ns.
            channel_rate_mb_s: 1000,
            host_rate_mb_s: 4000,
            erase_suspend: None,
            read_priority: false,
        },
        energy: Energy {
            read_nj_per_page: 1.0,
            program_nj_per_page: 10.0,
            erase_nj_per_block: 100.0,
        },
        aging: None,
            controller: Default::default(),
    }
}

pub(crate) fn small_spec(lba: u64, op_percent: f64, buffer_units: u32) -> FtlSpec {
    let nand = nand(16);
    let logical_units = FtlSpec::logical_units_for(&nand, 4096, op_percent, 2).unwrap();
    FtlSpec {
        name: "ftl-test".into(),
        nand,
        lba_size_bytes: lba,
        mapping_unit_bytes: 4096,
        over_provisioning_percent: op_percent,
        logical_units,
        write_buffer_units: buffer_units,
        victim: VictimChoice::Greedy,
        gc_free_superblocks: 2,
        background_gc_free_superblocks: 3,
        wear_leveling_threshold: 0,
        overheads: FtlOverheads::default(),
    }
}

fn t(ns: u64) -> Instant {
    Instant::from_ns(ns)
}

fn pattern(seed: u64, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (seed.wrapping_mul(131) as usize + i * 7) as u8 | 1)
        .collect()
}

#[derive(Clone, Debug)]
enum Step {
    Write { lba: u64, nlb: u64 },
    Trim { lba: u64, nlb: u64 },
    Read { lba: u64, nlb: u64 },
    Flush,
    Idle(u64),
}

fn steps(ns_lbas: u64, max_nlb: u64, n: usize) -> impl Strategy<Value = Vec<Step>> {
    let range = move || {
        (0..ns_lbas, 1..=max_nlb).prop_map(move |(lba, nlb)| {
            (
                lba.min(ns_lbas - 1),
                nlb.min(ns_lbas - lba.min(ns_lbas - 1)),
            )
        })
    };
    let step = prop_oneof![
        6 => range().prop_map(|(lba, nlb)| Step::Write { lba, nlb }),
        1 => range().prop_map(|(lba, nlb)| Step::Trim { lba, nlb }),
        3 => range().prop_map(|(lba, nlb)| Step::Read { lba, nlb }),
        1 => Just(Step::Flush),
        1 => (1u64..20_000_000).prop_map(Step::Idle),
    ];
    prop::collection::vec(step, 1..n)
}

/// Runs `steps` on the device and on a flat reference array, comparing every read and checking
/// the device's invariants after every command. Returns the device.
fn run_against_reference(spec: &FtlSpec, steps: &[Step]) -> Ftl {
    let mut dev = Ftl::new(spec, true, Sampling::every(Duration::from_ms(1)));
    let lba = spec.lba_size_bytes;
    let lpu = spec.mapping_unit_bytes / lba;
    let mut reference = vec![0u8; (spec.namespace_lbas() * lba) as usize];
    let mut now = 0u64;
    let mut done = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        now += 1_000;
        match *step {
            Step::Write { lba: slba, nlb } => {
                let data = pattern(i as u64, (nlb * lba) as usize);
                let cmd = Command::write(slba, nlb).with_data(Data::Out(&data));
                let a = dev.submit(t(now), cmd).expect("in range");
                assert!(a.done.unwrap() >= t(now));
                let at = (slba * lba) as usize;
                reference[at..at + data.len()].copy_from_slice(&data);
            }
            Step::Trim { lba: slba, nlb } => {
                dev.submit(t(now), Command::new(Op::Trim, slba, nlb))
                    .expect("in range");
                // Whole mapping units only.
                let (first, last) = (slba.div_ceil(lpu), (slba + nlb) / lpu);
                for u in first..last {
                    let at = (u * lpu * lba) as usize;
                    reference[at..at + (lpu * lba) as usize].fill(0);
                }
            }
            Step::Read { lba: slba, nlb } => {
                let mut buf = vec![0xEE; (nlb * lba) as usize];
                let a = dev
                    .submit(
                        t(now),
                        Command::read(slba, nlb).with_data(Data::In(&mut buf)),
                    )
                    .expect("in range");
                assert!(a.done.unwrap() > t(now));
                let at = (slba * lba) as usize;
                assert_eq!(
                    buf,
                    reference[at..at + buf.len()],
                    "step {i}: read of {slba}+{nlb}"
                );
            }
            Step::Flush => {
                let a = dev.submit(t(now), Command::new(Op::Flush, 0, 0)).unwrap();
                assert!(a.done.unwrap() >= t(now).max(dev.programs_done));
            }
            Step::Idle(ns) => {
                now += ns;
                crate::device::catch_up(&mut dev, &mut Some(t(now)), t(now), &mut done);
            }
        }
        dev.check_invariants();
    }
    // Every unit the reference holds non-zero data for is mapped and reads back.
    for u in 0..spec.logical_units {
        let at = (u * spec.mapping_unit_bytes) as usize;
        let mut buf = vec![0u8; spec.mapping_unit_bytes as usize];
        now += 1_000;
        dev.submit(
            t(now),
            Command::read(u * lpu, lpu).with_data(Data::In(&mut buf)),
        )
        .unwrap();
        assert_eq!(buf, reference[at..at + buf.len()], "unit {u} at the end");
    }
    dev
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// 4 KiB LBAs: every write is whole mapping units.
    #[test]
    fn matches_the_reference_with_4k_lbas(steps in steps(small_spec(4096, 50.0, 0).namespace_lbas(), 24, 400)) {
        run_against_reference(&small_spec(4096, 50.0, 0), &steps);
    }

    /// 512-byte LBAs: writes cover parts of mapping units (read-modify-write), trims leave
    /// partly covered units alone; with a write buffer.
    #[test]
    fn matches_the_reference_with_512b_lbas_and_a_buffer(steps in steps(small_spec(512, 50.0, 4).namespace_lbas(), 150, 400)) {
        run_against_reference(&small_spec(512, 50.0, 4), &steps);
    }
}

/// Random 4 KiB overwrites of the whole logical space, many times over: garbage collection
/// runs hundreds of times and every unit still reads back its last write.
#[test]
fn garbage_collection_never_loses_a_valid_unit() {
    let spec = small_spec(4096, 50.0, 2);
    let units = spec.logical_units;
    let mut state = 12345u64;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        state >> 33
    };
    let steps: Vec<Step> = (0..units * 8)
        .map(|_| Step::Write {
            lba: next() % units,
            nlb: 1,
        })
        .collect();
    let dev = run_against_reference(&spec, &steps);
    let r = dev.ftl_report(t(0));
    assert!(
        r.gc_erased_superblocks > 100,
        "GC ran {} times",
        r.gc_erased_superblocks
    );
    assert!(r.gc_copied_units > 0);
    assert!(r.waf.unwrap() > 1.0);
}

fn write(dev: &mut Ftl, now: u64, lba: u64, nlb: u64) -> Instant {
    dev.submit(t(now), Command::write(lba, nlb))
        .unwrap()
        .done
        .unwrap()
}

#[test]
fn a_sequential_fill_has_a_waf_of_one() {
    let spec = small_spec(4096, 50.0, 0);
    let mut dev = Ftl::new(&spec, false, Sampling::every(Duration::from_ms(1)));
    // Whole program units (4 mapping units) at a time, the whole logical space rounded down.
    let lbas = spec.namespace_lbas() / 4 * 4;
    let mut now = 0;
    for lba in (0..lbas).step_by(4) {
        now = write(&mut dev, now, lba, 4).ns();
    }
    let r = dev.report(t(now));
    let host = r.counters.host_write_bytes;
    assert_eq!(
        r.nand.page_programs * r.page_size_bytes,
        host,
        "NAND bytes = host bytes"
    );
    assert_eq!(r.nand.block_erases, 0);
    match r.firmware {
        Some(FirmwareReport::Ftl(f)) => {
            assert_eq!(f.gc_copied_units, 0);
            assert_eq!(f.waf, Some(1.0));
        }
        other => panic!("{other:?}"),
    }
}

/// QD1 golden timings: a 4 KiB write that fills nothing completes when its data has crossed
/// the host link; the fourth fills a page and waits for the channel and tPROG; a read of it
/// takes tR and the two transfers.
#[test]
fn golden_qd1_write_and_read_timing() {
    let mut dev = Ftl::new(
        &small_spec(4096, 50.0, 0),
        false,
        Sampling::every(Duration::from_ms(1)),
    );
    let host_4k = 4096 / 4; // 4000 MB/s: 1.024 us
    assert_eq!(write(&mut dev, 0, 0, 1), t(host_4k));
    assert_eq!(write(&mut dev, 10_000, 1, 1), t(10_000 + host_4k));
    assert_eq!(write(&mut dev, 20_000, 2, 1), t(20_000 + host_4k));
    // The page fills: 16 KiB over the channel (16.384 us), then tPROG.
    let filled = write(&mut dev, 30_000, 3, 1);
    assert_eq!(filled, t(30_000 + host_4k + 16_384 + T_PROG));
    let at = filled.ns() + 1_000;
    let read = dev
        .submit(t(at), Command::read(2, 1))
        .unwrap()
        .done
        .unwrap();
    assert_eq!(read, t(at + T_R + 4_096 + host_4k));
    // Never written: only the host transfer.
    let empty = dev.submit(t(at + 200_000), Command::read(100, 1)).unwrap();
    assert_eq!(empty.done.unwrap(), t(at + 200_000 + host_4k));
}

/// With a write buffer, writes complete once buffered until the buffer is full of units
/// still being programmed.
#[test]
fn a_write_buffer_completes_writes_early_until_it_fills() {
    let mut dev = Ftl::new(
        &small_spec(4096, 50.0, 2),
        false,
        Sampling::every(Duration::from_ms(1)),
    );
    let host_16k = 16_384 / 4;
    // Four 16 KiB writes at once: two go into the buffer; the third waits for the first program.
    let a = write(&mut dev, 0, 0, 4);
    let b = write(&mut dev, 0, 4, 4);
    let c = write(&mut dev, 0, 8, 4);
    assert_eq!(a, t(host_16k));
    assert_eq!(b, t(2 * host_16k));
    let first_programmed = host_16k + 16_384 + T_PROG;
    assert_eq!(c, t(first_programmed));
}

#[test]
fn zone_commands_are_invalid_opcodes_and_ranges_are_checked() {
    let spec = small_spec(4096, 50.0, 0);
    let mut dev = Ftl::new(&spec, false, Sampling::every(Duration::from_ms(1)));
    assert_eq!(
        dev.submit(t(0), Command::append(0, 1)),
        Err(Status::InvalidOpcode)
    );
    assert_eq!(
        dev.submit(t(0), Command::zone(crate::device::ZoneAction::Reset, 0)),
        Err(Status::InvalidOpcode)
    );
    let ns = spec.namespace_lbas();
    assert_eq!(
        dev.submit(t(0), Command::write(ns - 1, 2)),
        Err(Status::LbaOutOfRange)
    );
    assert_eq!(
        dev.submit(t(0), Command::read(0, 0)),
        Err(Status::InvalidField)
    );
    assert_eq!(
        dev.submit(t(0), Command::read(0, 1).on(1)),
        Err(Status::InvalidNamespace)
    );
    assert!(dev.info().zoned.is_none());
    assert_eq!(
        dev.report_zones(0, 0, crate::device::ReportFilter::All, false, 1),
        Err(Status::InvalidOpcode)
    );
}

/// Background GC runs only in idle time, and raises the free superblocks to its threshold.
#[test]
fn background_collection_uses_idle_time() {
    let spec = small_spec(4096, 50.0, 0);
    let mut dev = Ftl::new(&spec, false, Sampling::every(Duration::from_ms(1)));
    let units = spec.logical_units;
    let mut now = 0;
    // Fill, then overwrite half: free superblocks fall to the foreground threshold.
    for lpn in (0..units).chain(0..units / 2) {
        now = write(&mut dev, now, lpn, 1).ns();
    }
    assert!(dev.free_superblocks() < spec.background_gc_free_superblocks);
    let before = dev.ftl.background_collections;
    let mut done = Vec::new();
    let mut wake = Some(t(now));
    crate::device::catch_up(&mut dev, &mut wake, t(now + 10_000_000_000), &mut done);
    assert!(dev.ftl.background_collections > before);
    assert_eq!(dev.free_superblocks(), spec.background_gc_free_superblocks);
    dev.check_invariants();
}

#[test]
fn static_wear_levelling_bounds_the_spread_of_erase_counts() {
    // Half the space holds cold data written once; the other half is overwritten many times.
    let spread = |threshold: u32| {
        let mut spec = small_spec(4096, 50.0, 0);
        spec.wear_leveling_threshold = threshold;
        let mut dev = Ftl::new(&spec, false, Sampling::every(Duration::from_ms(1)));
        let units = spec.logical_units;
        let mut now = 0;
        for lpn in 0..units {
            now = write(&mut dev, now, lpn, 1).ns();
        }
        for round in 0..60 {
            for lpn in units / 2..units {
                let _ = round;
                now = write(&mut dev, now, lpn, 1).ns();
            }
        }
        dev.check_invariants();
        let counts: Vec<u32> = dev.sbs.iter().map(|s| s.erases).collect();
        (
            counts.iter().max().unwrap() - counts.iter().min().unwrap(),
            dev.ftl.wear_leveling_moves,
        )
    };
    let (without, moves0) = spread(0);
    let (with, moves) = spread(8);
    assert_eq!(moves0, 0);
    assert!(moves > 0);
    assert!(
        with < without,
        "spread {with} with levelling, {without} without"
    );
    assert!(with <= 8 + 2, "spread {with}");
}

#[test]
fn preconditioning_reaches_steady_state_without_simulated_time() {
    let spec = small_spec(4096, 50.0, 0);
    let mut dev = Ftl::new(&spec, false, Sampling::every(Duration::from_ms(1)));
    let plan = PreconditionPlan {
        fill_units: spec.logical_units,
        random_overwrite: true,
        block_units: 1,
        round_units: spec.logical_units / 2,
        window: 5,
        tolerance: 0.2,
        slope_tolerance: 0.1,
        max_rounds: 200,
        seed: 1,
    };
    dev.precondition(&plan);
    let p = dev.precondition.clone().unwrap();
    assert!(p.steady_state, "{p:?}");
    assert!(p.round_waf.last().unwrap() > &1.0);
    assert_eq!(dev.idle_at(), Instant::ZERO, "no simulated time passed");
    assert!(dev.nand.counters.block_erases > 0);
    dev.check_invariants();
    // Every unit is mapped.
    assert!((0..spec.logical_units as u32).all(|u| dev.map.get(u).is_some()));
}

#[test]
fn the_memory_of_a_4tb_device() {
    // zn540's NAND (32 dies, 64 MiB blocks) at 7% over-provisioning.
    let mut n = nand(1994);
    n.geometry = NandGeometry {
        channels: 8,
        dies_per_channel: 4,
        blocks_per_die: 1994,
        pages_per_block: 2048,
        page_size_bytes: 32 * 1024,
        pages_per_program: 1,
    };
    let logical = FtlSpec::logical_units_for(&n, 4096, 7.0, 2).unwrap();
    let spec = FtlSpec {
        logical_units: logical,
        nand: n,
        over_provisioning_percent: 7.0,
        ..small_spec(4096, 50.0, 0)
    };
    // 4.0 TB logical: 4 bytes per 4 KiB unit is 3.6 GiB of forward map, 3.9 GiB of reverse.
    let logical_bytes = logical * 4096;
    assert!(
        (3_990_000_000_000..4_010_000_000_000).contains(&logical_bytes),
        "{logical_bytes}"
    );
    let gib = spec.map_bytes() as f64 / (1u64 << 30) as f64;
    assert!((7.5..7.8).contains(&gib), "{gib} GiB");
}
