//! State files of the conventional SSD: saved and restored at random points (through the
//! encoded bytes), a device answers every later command exactly as the one that went on,
//! through garbage collection, trims, flushes and idle time; damaged states are refused.

use proptest::prelude::*;

use super::tests::small_spec;
use super::{Ftl, FtlSpec, FtlState, VictimChoice};
use crate::device::{Command, Data, DeviceModel, Op, Status};
use crate::firmware::FirmwareReport;
use crate::metrics::series::Sampling;
use crate::time::{Duration, Instant};

#[derive(Clone, Debug)]
enum Cmd {
    Write { lba: u64, nlb: u64 },
    Read { lba: u64, nlb: u64 },
    Trim { lba: u64, nlb: u64 },
    Flush,
    Idle { ns: u64 },
    Save,
}

fn cmd() -> impl Strategy<Value = Cmd> {
    prop_oneof![
        8 => (0..1_000u64, 1..64u64).prop_map(|(lba, nlb)| Cmd::Write { lba, nlb }),
        3 => (0..1_000u64, 1..16u64).prop_map(|(lba, nlb)| Cmd::Read { lba, nlb }),
        1 => (0..1_000u64, 1..64u64).prop_map(|(lba, nlb)| Cmd::Trim { lba, nlb }),
        1 => Just(Cmd::Flush),
        2 => (0..20_000_000u64).prop_map(|ns| Cmd::Idle { ns }),
        1 => Just(Cmd::Save),
    ]
}

fn sampling() -> Sampling {
    Sampling::every(Duration::from_ms(500))
}

/// Runs one command; the result as bytes (data read and completion time) or the status.
fn apply(d: &mut Ftl, now: &mut u64, i: usize, c: &Cmd) -> Result<Vec<u8>, Status> {
    *now += 1_000;
    let at = Instant::from_ns(*now);
    let lba_bytes = d.info().lba_size_bytes;
    let lbas = d.info().namespace_lbas;
    let range = |lba: u64, nlb: u64| (lba % lbas, nlb.min(lbas - lba % lbas));
    let done = |a: crate::device::Accepted| a.done.expect("at once").ns().to_le_bytes().to_vec();
    match *c {
        Cmd::Write { lba, nlb } => {
            let (lba, nlb) = range(lba, nlb);
            let data: Vec<u8> = (0..nlb * lba_bytes)
                .map(|b| (b as usize + i) as u8)
                .collect();
            let cmd = Command::write(lba, nlb).with_data(Data::Out(&data));
            d.submit(at, cmd).map(done)
        }
        Cmd::Read { lba, nlb } => {
            let (lba, nlb) = range(lba, nlb);
            let mut buf = vec![0u8; (nlb * lba_bytes) as usize];
            let cmd = Command::read(lba, nlb).with_data(Data::In(&mut buf));
            let mut out = d.submit(at, cmd).map(done)?;
            out.extend_from_slice(&buf);
            Ok(out)
        }
        Cmd::Trim { lba, nlb } => {
            let (lba, nlb) = range(lba, nlb);
            d.submit(at, Command::new(Op::Trim, lba, nlb)).map(done)
        }
        Cmd::Flush => d.submit(at, Command::new(Op::Flush, 0, 0)).map(done),
        Cmd::Idle { ns } => {
            let end = *now + ns;
            let mut t = *now;
            while let Some(next) = d.advance(Instant::from_ns(t), &mut Vec::new()) {
                if next.ns() > end {
                    break;
                }
                t = next.ns().max(t + 1);
            }
            *now = end;
            Ok(vec![])
        }
        Cmd::Save => Ok(vec![]),
    }
}

fn round_trip(d: &Ftl, spec: &FtlSpec) -> Ftl {
    let bytes = postcard::to_stdvec(&d.save()).unwrap();
    let back: FtlState<'_> = postcard::from_bytes(&bytes).unwrap();
    let r = Ftl::restore(spec, true, sampling(), back).expect("a saved state restores");
    r.check_invariants();
    assert_eq!(
        postcard::to_stdvec(&r.save()).unwrap(),
        bytes,
        "a restored device saves as it was saved"
    );
    r
}

/// The FTL's report without its series (they restart with the process that loads the file).
fn ftl_report(d: &Ftl, now: u64) -> Option<FirmwareReport> {
    let mut r = d.report(Instant::from_ns(now)).firmware;
    if let Some(FirmwareReport::Ftl(f)) = &mut r {
        f.samples.clear();
    }
    r
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Saved and restored at random points after its collector has started, a device answers
    /// every later command exactly as the device that was never saved: statuses, completion times, data, counters, the FTL's
    /// report; with 4 KiB and 512-byte LBAs, with and without a write buffer, either victim policy.
    #[test]
    fn a_restored_ssd_behaves_as_the_original(
        cmds in prop::collection::vec(cmd(), 1..150),
        lba in prop_oneof![Just(4096u64), Just(512)],
        buffer in 0..3u32,
        cost_benefit in any::<bool>(),
    ) {
        let mut spec = small_spec(lba, 50.0, buffer);
        if cost_benefit {
            spec.victim = VictimChoice::CostBenefit;
        }
        let (mut a, mut b) = (Ftl::new(&spec, true, sampling()), Ftl::new(&spec, true, sampling()));
        let (mut ta, mut tb) = (0, 0);
        wear(&mut a, &mut ta);
        wear(&mut b, &mut tb);
        for (i, c) in cmds.iter().enumerate() {
            if matches!(c, Cmd::Save) {
                b = round_trip(&b, &spec);
            }
            let (ra, rb) = (apply(&mut a, &mut ta, i, c), apply(&mut b, &mut tb, i, c));
            prop_assert_eq!(&ra, &rb, "cmd {} {:?}", i, c);
            let (pa, pb) = (a.report(Instant::from_ns(ta)), b.report(Instant::from_ns(tb)));
            prop_assert_eq!(pa.counters, pb.counters);
            prop_assert_eq!(pa.nand, pb.nand);
            prop_assert_eq!(a.idle_at(), b.idle_at());
        }
        prop_assert_eq!(a.report(Instant::from_ns(ta)).wear, b.report(Instant::from_ns(tb)).wear);
        prop_assert_eq!(ftl_report(&a, ta), ftl_report(&b, tb));
    }
}

/// `d` after writes of twice its logical space, a mapping unit at a time: in order, then
/// scattered, so the second pass leaves superblocks partly valid and garbage collection copies
/// units (asserted): what follows starts from a collector's state.
fn wear(d: &mut Ftl, now: &mut u64) {
    let unit = d.spec().mapping_unit_bytes / d.info().lba_size_bytes;
    let units = d.info().namespace_lbas / unit;
    for i in 0..2 * units {
        let k = if i < units { i } else { i * 7919 % units };
        let c = Cmd::Write {
            lba: k * unit,
            nlb: unit,
        };
        apply(d, now, i as usize, &c).unwrap();
    }
    let Some(FirmwareReport::Ftl(r)) = d.report(Instant::from_ns(*now)).firmware else {
        unreachable!()
    };
    assert!(r.gc_copied_units > 0, "the device collected garbage");
}

/// A device that has collected garbage.
fn worn() -> (FtlSpec, Ftl) {
    let spec = small_spec(4096, 50.0, 2);
    let mut d = Ftl::new(&spec, true, sampling());
    wear(&mut d, &mut 0);
    (spec, d)
}

#[test]
fn damaged_states_are_refused_saying_why() {
    let (spec, d) = worn();
    let restore = |edit: &dyn Fn(&mut FtlState<'_>)| {
        let mut s = d.save();
        edit(&mut s);
        Ftl::restore(&spec, true, sampling(), s).err()
    };
    assert_eq!(restore(&|_| {}), None, "the state as saved");
    type Edit = dyn Fn(&mut FtlState<'_>);
    let cases: [(&str, &Edit); 6] = [
        ("slot entry", &|s| s.map[0].1[0] = u32::MAX),
        ("held twice", &|s| {
            let first = s.map[0].1[0];
            s.map.push((681, vec![first]));
        }),
        ("valid count", &|s| {
            s.sbs[(s.map[0].1[0] - 1) as usize / 64].valid += 1
        }),
        ("free list", &|s| s.free.push(s.free[0])),
        ("superblocks", &|s| {
            s.sbs.pop();
        }),
        ("holds data but", &|s| {
            let _ = s.data.take();
        }),
    ];
    for (want, edit) in cases {
        let got = restore(edit).unwrap_or_else(|| panic!("{want}: accepted"));
        let expect = if want == "holds data but" {
            "keeps data but"
        } else {
            want
        };
        assert!(got.contains(expect), "{want}: {got}");
    }
}
