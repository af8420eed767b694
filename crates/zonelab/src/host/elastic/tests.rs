//! eZNS tests on a tiny small-zone device: address translation and data across stripe-group
//! changes and reclaim (property test against a reference of the host's view), no die collision
//! inside a stripe group, spares conserved at every step, local and global overdrive, reclaim,
//! the scheduler serving every tenant, determinism, and configuration errors.

use proptest::prelude::*;

use super::seam::min_time;
use super::*;
use crate::config::ExperimentConfig;
use crate::device::DeviceModel;
use crate::device::{Accepted, Command, Data, Status};
use crate::device::{ZoneAction, ZoneState, catch_up};
use crate::experiment::{Inputs, build_device};
use crate::firmware::FirmwareReport;

/// 8 one-die zones per die x 16 dies (4 channels), zones of 32 LBAs (2 blocks of 4 x 16 KiB
/// pages), 16 active, a 32-unit shared cache, round-robin placement.
pub(crate) const DEVICE: &str = r#"
[device]
name = "tiny-smallzone"
source = "test"
[device.geometry]
channels = 4
dies_per_channel = 4
blocks_per_die = 16
pages_per_block = 4
page_size_bytes = "16KiB"
lba_size_bytes = 4096
[device.zones]
dies_per_zone = 1
zone_size_bytes = "128KiB"
zone_capacity_bytes = "128KiB"
max_open_zones = 16
max_active_zones = 16
[device.timing]
read_latency_ns = 50000
program_latency_ns = 500000
erase_latency_ns = 3000000
channel_rate_mb_s = 800
host_rate_mb_s = 3200
write_cache_units = 32
[device.energy]
read_nj_per_page = 1.0
program_nj_per_page = 10.0
erase_nj_per_block = 100.0
[firmware]
policy = "round_robin"
"#;

/// Two namespaces; v-zones of 4 physical zones; 2 active v-zones each; essentials 8 (minimum
/// width 2), spares 8; 8 KiB largest stripe (2 LBAs): 30 usable LBAs per zone, v-zones of 120.
const LAYER: &str = r#"
[layer]
kind = "ezns"
namespaces = 2
zones_per_vzone = 4
max_active_vzones = 2
essentials = 8
spares = 8
max_stripe_size = "8KiB"
redistribute_every = 4
reclaim_cycles = 2
reclaim_wait = "1ms"
"#;

pub(super) const CAP: u64 = 120;
const ZONE: u64 = 128;

/// What the layer is tested over: the tiny drive, an array of two, static zones of two of its
/// zones, zones of its size emulated over a conventional SSD of its NAND.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Under {
    Drive,
    Array,
    Static,
    Emulated,
}

impl Under {
    fn toml(self) -> String {
        let over = match self {
            Under::Drive => "",
            Under::Array => "[layer.over]\nkind = \"array\"\ndrives = 2\nstripe_size = \"8KiB\"\n",
            Under::Static => {
                "[layer.over]\nkind = \"static\"\nzones_per_logical = 2\nstripe_width = 2\nstripe_size = \"8KiB\"\n"
            }
            Under::Emulated => {
                "[layer.over]\nkind = \"emulated\"\nzone_size = \"128KiB\"\nmax_active = 16\n"
            }
        };
        let device = match self {
            Under::Emulated => crate::testing::fixtures::TINY_CONVENTIONAL,
            _ => DEVICE,
        };
        format!("{device}\n{LAYER}\n{over}")
    }

    /// Settings the layer needs over it: static zones of two zones have half the active limit;
    /// the conventional SSD gets the drive's 16 dies.
    fn overrides(self) -> &'static [&'static str] {
        match self {
            Under::Static => &["layer.essentials=4", "layer.spares=4"],
            Under::Emulated => &[
                "device.geometry.channels=4",
                "device.geometry.dies_per_channel=4",
            ],
            _ => &[],
        }
    }
}

pub(super) fn layer(overrides: &[&str], retention: bool) -> Elastic {
    layer_over(Under::Drive, overrides, retention)
}

/// The layer over `under`, built as a run builds it.
pub(super) fn layer_over(under: Under, overrides: &[&str], retention: bool) -> Elastic {
    let text = format!("[data]\nretention = {retention}\n{}", under.toml());
    let o: Vec<String> = (under.overrides().iter().chain(overrides))
        .map(|s| s.to_string())
        .collect();
    let exp = ExperimentConfig::parse(&text, &o)
        .unwrap()
        .validate_device("t")
        .unwrap();
    let Some(crate::host::LayerSpec::Elastic(spec, over)) = &exp.layer else {
        panic!("an eZNS layer")
    };
    let sampling = exp.sampling();
    let dev: Below = match (&exp.device, over) {
        (crate::experiment::DeviceSpec::Zns(zns), over) => {
            let mut make = || crate::zns::Device::build(zns, &exp.firmware, retention, sampling);
            match over {
                Some(o) => o.build(&mut make, &[], sampling).into(),
                None => make().into(),
            }
        }
        (crate::experiment::DeviceSpec::Conventional(c), Some(o)) => {
            let ftl = crate::ftl::Ftl::new(c, retention, sampling);
            o.build_over_block(Box::new(ftl), sampling).into()
        }
        _ => panic!("eZNS over a conventional device sits on emulated zones"),
    };
    Elastic::new(dev, spec, sampling)
}

pub(super) fn at(ns: u64) -> Instant {
    Instant::from_ns(ns)
}

/// Drives `e` to `now`, collecting completions.
pub(super) fn settle(
    e: &mut Elastic,
    wake: &mut Option<Instant>,
    now: u64,
    done: &mut Vec<Completed>,
) {
    catch_up(e, wake, at(now), done);
}

fn write(e: &mut Elastic, now: u64, ns: u32, zone: u64, nlb: u64, fill: u8, tag: u64) -> Accepted {
    let wp = e.zone(ns, zone as u32).wp;
    let data = vec![fill; (nlb * 4096) as usize];
    e.submit(
        at(now),
        Command::write(wp, nlb)
            .on(ns)
            .tagged(tag)
            .with_data(Data::Out(&data)),
    )
    .unwrap()
}

fn read(e: &mut Elastic, now: u64, ns: u32, lba: u64, nlb: u64, tag: u64) -> Vec<u8> {
    let mut buf = vec![0xeeu8; (nlb * 4096) as usize];
    e.submit(
        at(now),
        Command::read(lba, nlb)
            .on(ns)
            .tagged(tag)
            .with_data(Data::In(&mut buf)),
    )
    .unwrap();
    buf
}

fn no_collision(e: &Elastic) {
    if e.device()
        .as_any()
        .downcast_ref::<crate::zns::Device>()
        .is_none()
    {
        return;
    }
    for dies in e.open_group_dies() {
        let mut d = dies.clone();
        d.sort_unstable();
        d.dedup();
        assert_eq!(d.len(), dies.len(), "dies {dies:?} of one stripe group");
    }
}

#[test]
fn a_v_zone_is_striped_over_groups_and_reads_back() {
    let mut e = layer(&[], true);
    let info = e.info().clone();
    let z = info.zoned.clone().unwrap();
    assert_eq!(
        (z.zone_size_lbas, z.zone_capacity_lbas, info.namespaces),
        (ZONE, CAP, 2)
    );
    assert_eq!(e.hal().usable_lbas, 30);
    // 100 LBAs in writes of 7: several groups, each 2 wide or more.
    let mut lba = 0;
    let mut tag = 1;
    while lba < 100 {
        let n = 7.min(100 - lba);
        let a = write(&mut e, 1_000_000 * tag, 1, 0, n, lba as u8, tag);
        assert!(
            a.done.is_some(),
            "the first token bucket covers small writes"
        );
        lba += n;
        tag += 1;
        no_collision(&e);
    }
    e.check_invariants();
    // Every LBA has one place on the device.
    let mut places: Vec<u64> = (0..100).map(|l| e.locate(1, l).expect("sent")).collect();
    places.sort_unstable();
    places.dedup();
    assert_eq!(places.len(), 100);
    for start in (0..100).step_by(7) {
        let n = 7.min(100 - start);
        let buf = read(&mut e, 1_000_000_000, 1, start, n, 500 + start);
        for (k, chunk) in buf.chunks(4096).enumerate() {
            let want = ((start + k as u64) / 7 * 7) as u8;
            assert!(chunk.iter().all(|&b| b == want), "LBA {}", start + k as u64);
        }
    }
}

#[derive(Clone, Debug)]
enum Cmd {
    Write {
        ns: u32,
        zone: u64,
        nlb: u64,
    },
    Read {
        ns: u32,
        zone: u64,
        offset: u64,
        nlb: u64,
    },
    Manage {
        ns: u32,
        zone: u64,
        action: ZoneAction,
    },
    Idle {
        us: u64,
    },
}

fn cmd() -> impl Strategy<Value = Cmd> {
    let action = prop_oneof![
        Just(ZoneAction::Open),
        Just(ZoneAction::Close),
        Just(ZoneAction::Finish),
        Just(ZoneAction::Reset),
    ];
    prop_oneof![
        8 => (0..2u32, 0..3u64, 1..40u64).prop_map(|(ns, zone, nlb)| Cmd::Write { ns, zone, nlb }),
        4 => (0..2u32, 0..3u64, 0..CAP, 1..20u64).prop_map(|(ns, zone, offset, nlb)| Cmd::Read { ns, zone, offset, nlb }),
        1 => (0..2u32, 0..3u64, action).prop_map(|(ns, zone, action)| Cmd::Manage { ns, zone, action }),
        2 => (0..20_000u64).prop_map(|us| Cmd::Idle { us }),
    ]
}

/// What the host sees of one v-zone.
#[derive(Clone, Default)]
struct Model {
    data: Vec<u8>,
    full: bool,
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Random commands on two namespaces, with idle time, the scheduler on and off, reclaim
    /// after 1 ms idle, over each device the layer stacks on: every command the host may issue
    /// is accepted, every read returns what was written (zeros elsewhere), every LBA sent to
    /// the device has one place, no stripe group has two zones on one die (over a drive),
    /// spares are conserved, and every queued command completes.
    #[test]
    fn v_zones_keep_their_data_through_overdrive_and_reclaim(
        cmds in proptest::collection::vec(cmd(), 1..120),
        scheduler in any::<bool>(),
        under in prop_oneof![Just(Under::Drive), Just(Under::Array), Just(Under::Static), Just(Under::Emulated)],
    ) {
        let mut e = layer_over(under, &[], true);
        let z = e.info().zoned.clone().expect("v-zones");
        let (zone_lbas, cap) = (z.zone_size_lbas, z.zone_capacity_lbas);
        if !scheduler {
            e.spec.sched.read_cc = false;
            e.spec.sched.write_admission = false;
        }
        let mut model = vec![vec![Model::default(); 3]; 2];
        let mut now = 0u64;
        let mut wake = None;
        let mut done = Vec::new();
        let mut outstanding = std::collections::HashSet::new();
        for (i, c) in cmds.iter().enumerate() {
            now += 1_000;
            let tag = i as u64 + 1;
            settle(&mut e, &mut wake, now, &mut done);
            match *c {
                Cmd::Write { ns, zone, nlb } => {
                    let state = e.zone(ns, zone as u32).state;
                    let m = &model[ns as usize][zone as usize];
                    let have = m.data.len() as u64 / 4096;
                    if m.full || state == ZoneState::Full {
                        continue;
                    }
                    if state == ZoneState::Empty && e.lz[ns as usize].active() >= 2 {
                        continue;
                    }
                    let nlb = nlb.min(cap - have);
                    if nlb == 0 {
                        continue;
                    }
                    let fill = (tag % 251) as u8 + 1;
                    let a = write(&mut e, now, ns, zone, nlb, fill, tag);
                    if a.done.is_none() {
                        outstanding.insert(tag);
                    }
                    let m = &mut model[ns as usize][zone as usize];
                    m.data.extend(std::iter::repeat_n(fill, (nlb * 4096) as usize));
                    if m.data.len() as u64 == cap * 4096 {
                        m.full = true;
                    }
                }
                Cmd::Read { ns, zone, offset, nlb } => {
                    let nlb = nlb.min(zone_lbas - offset);
                    let mut buf = vec![0xeeu8; (nlb * 4096) as usize];
                    let a = e.submit(at(now), Command::read(zone * zone_lbas + offset, nlb).on(ns).tagged(tag).with_data(Data::In(&mut buf))).unwrap();
                    if a.done.is_none() {
                        outstanding.insert(tag);
                    }
                    let m = &model[ns as usize][zone as usize];
                    for (k, chunk) in buf.chunks(4096).enumerate() {
                        let at = ((offset + k as u64) * 4096) as usize;
                        let want = m.data.get(at).copied().unwrap_or(0);
                        prop_assert!(chunk.iter().all(|&b| b == want), "cmd {} read ns {} zone {} LBA {}: want {}", i, ns, zone, offset + k as u64, want);
                    }
                }
                Cmd::Manage { ns, zone, action } => {
                    let r = e.submit(at(now), Command::zone(action, zone * zone_lbas).on(ns).tagged(tag));
                    match r {
                        Ok(a) => {
                            if a.done.is_none() {
                                outstanding.insert(tag);
                            }
                            let m = &mut model[ns as usize][zone as usize];
                            match action {
                                ZoneAction::Reset => *m = Model::default(),
                                ZoneAction::Finish => m.full = true,
                                _ => {}
                            }
                        }
                        Err(s) => prop_assert!(matches!(s, Status::TooManyActiveZones | Status::InvalidZoneStateTransition), "{:?}", s),
                    }
                }
                Cmd::Idle { us } => {
                    now += us * 1_000;
                    settle(&mut e, &mut wake, now, &mut done);
                }
            }
            // A queued command makes the layer ask for a wake-up.
            wake = min_time(wake, e.advance(at(now), &mut done));
            for c in done.drain(..) {
                prop_assert!(outstanding.remove(&c.tag), "completion of tag {} reported once", c.tag);
                prop_assert!(c.done.ns() >= now.saturating_sub(50_000_000) , "sane time");
            }
            e.check_invariants();
            no_collision(&e);
            for ns in 0..2u32 {
                let mut places = Vec::new();
                for zone in 0..3u64 {
                    for l in 0..cap {
                        if let Some(p) = e.locate(ns, zone * zone_lbas + l) {
                            places.push(p);
                        }
                    }
                }
                let n = places.len();
                places.sort_unstable();
                places.dedup();
                prop_assert_eq!(places.len(), n, "two LBAs in one place");
            }
        }
        // Everything queued completes.
        for _ in 0..10_000 {
            if outstanding.is_empty() {
                break;
            }
            now += 1_000_000;
            settle(&mut e, &mut wake, now, &mut done);
            for c in done.drain(..) {
                outstanding.remove(&c.tag);
            }
        }
        prop_assert!(outstanding.is_empty(), "commands never completed: {:?}", outstanding);
        e.check_invariants();
    }
}

/// Writes `groups` stripe groups' worth into successive v-zones of `ns` (resetting them when
/// the namespace runs out), as fast as the layer lets them go.
fn write_groups(e: &mut Elastic, now: &mut u64, ns: u32, lbas: u64, tag: &mut u64) {
    let mut written = 0;
    let mut zone = 0u64;
    while written < lbas {
        let d = e.zone(ns, zone as u32);
        if d.state == ZoneState::Full {
            e.submit(
                at(*now),
                Command::zone(ZoneAction::Reset, zone * ZONE)
                    .on(ns)
                    .tagged(*tag),
            )
            .unwrap();
            *tag += 1;
        }
        let room = CAP - (e.zone(ns, zone as u32).wp - zone * ZONE);
        let n = room.min(8).min(lbas - written);
        let a = write(e, *now, ns, zone, n, 1, *tag);
        *tag += 1;
        *now = a.done.map_or(*now + 1_000_000, |d| d.ns().max(*now + 1));
        let mut wake = None;
        let mut done = Vec::new();
        catch_up(e, &mut wake, at(*now), &mut done);
        written += n;
        if e.zone(ns, zone as u32).state == ZoneState::Full {
            zone = (zone + 1) % 2;
        }
        e.check_invariants();
    }
}

#[test]
fn an_idle_namespace_lends_its_spares_and_recalls_them() {
    let mut e = layer(&[], false);
    let (mut now, mut tag) = (0, 1);
    // Namespace 1 writes alone: namespace 0 allocates nothing and is inactive.
    write_groups(&mut e, &mut now, 1, 600, &mut tag);
    let s = e.spares();
    assert_eq!(s[0].1, 0, "namespace 0 lent all its spares");
    assert_eq!(s[1].1, 8, "namespace 1 borrowed them");
    assert!(e.widths(1).keys().any(|&w| w == 4), "{:?}", e.widths(1));
    // Namespace 0 writes again: the loan is recalled.
    write_groups(&mut e, &mut now, 0, 60, &mut tag);
    let s = e.spares();
    assert_eq!(s[0].1 + s[1].1, 8);
    assert!(s[0].1 > 0, "namespace 0 got spares back: {s:?}");
    let r = e.elastic_report();
    assert!(r.spares_lent >= 4 && r.spares_returned > 0);
}

#[test]
fn an_idle_overdriven_group_is_compacted_and_its_data_stays() {
    let mut e = layer(&[], true);
    let (mut now, mut tag) = (0, 1);
    // Namespace 0 opens one wide group (one active v-zone, spares free) and stops.
    for k in 0..4 {
        write(&mut e, now, 0, 0, 5, 10 + k, tag);
        tag += 1;
        now += 10_000;
    }
    let used = e.spares()[0].0;
    assert!(used > 0, "the group is overdriven");
    // Namespace 1 keeps allocating: cycles pass, namespace 0 has been idle over 1 ms.
    now += 5_000_000;
    write_groups(&mut e, &mut now, 1, 900, &mut tag);
    let mut wake = None;
    let mut done = Vec::new();
    now += 100_000_000;
    catch_up(&mut e, &mut wake, at(now), &mut done);
    let r = e.elastic_report();
    assert!(r.reclaims >= 1, "reclaimed: {}", r.reclaims);
    assert_eq!(e.spares()[0].0, 0, "the narrower group holds no spares");
    e.check_invariants();
    let buf = read(&mut e, now, 0, 0, 20, tag);
    for (k, chunk) in buf.chunks(4096).enumerate() {
        let want = 10 + (k / 5) as u8;
        assert!(chunk.iter().all(|&b| b == want), "LBA {k} after reclaim");
    }
}

#[test]
fn local_overdrive_widens_groups_of_a_namespace_with_few_active_v_zones() {
    let mut e = layer(&[], false);
    let (mut now, mut tag) = (0, 1);
    write_groups(&mut e, &mut now, 0, 400, &mut tag);
    // One active v-zone at a time: the estimate falls towards 1 and groups widen to base +
    // all 4 spares = 6, rounded down to 4.
    assert!(e.widths(0).contains_key(&4), "{:?}", e.widths(0));
    let mut off = layer(&["layer.local_overdrive=false"], false);
    let (mut now, mut tag) = (0, 1);
    write_groups(&mut off, &mut now, 0, 400, &mut tag);
    assert_eq!(off.widths(0).keys().copied().collect::<Vec<_>>(), vec![2]);
}

fn experiment(jobs: &str, overrides: &[&str]) -> crate::experiment::Experiment {
    let text = format!("{jobs}\n{DEVICE}\n{LAYER}");
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    ExperimentConfig::parse(&text, &o)
        .unwrap()
        .validate("t")
        .unwrap()
}

const READERS: &str = r#"
seed = 5
[prefill]
size = "4z"
namespaces = [1, 0]
[[job]]
name = "wide"
namespace = 1
rw = "randread"
bs = "32KiB"
iodepth = 32
size = "1z"
runtime = "200ms"
time_based = true
[[job]]
name = "narrow"
namespace = 0
rw = "randread"
bs = "8KiB"
iodepth = 1
size = "1z"
runtime = "200ms"
time_based = true
"#;

fn tenant_reads(out: &crate::experiment::RunOutput, tenant: &str) -> u64 {
    out.summary
        .table
        .iter()
        .filter(|r| r.tenant == tenant && r.op == crate::metrics::OpKind::Read)
        .map(|r| r.summary.count)
        .sum()
}

#[test]
fn read_congestion_control_keeps_a_narrow_reader_going_beside_a_wide_one() {
    let run = |cc: bool| {
        let exp = experiment(
            READERS,
            &[
                "layer.local_overdrive=false",
                "layer.fixed_width=[2, 4]",
                &format!("layer.read_cc={cc}"),
            ],
        );
        crate::experiment::run(&exp, Inputs::default(), 0, &mut |_| {}).unwrap()
    };
    let off = run(false);
    let on = run(true);
    let (narrow_off, narrow_on) = (tenant_reads(&off, "ns0"), tenant_reads(&on, "ns0"));
    assert!(narrow_on > 0 && narrow_off > 0, "no tenant starves");
    assert!(
        narrow_on > narrow_off,
        "narrow reader: {narrow_off} reads without, {narrow_on} with congestion control"
    );
    let Some(FirmwareReport::Elastic(r)) = &on.summary.firmware else {
        panic!("an eZNS report")
    };
    assert!(r.reads_queued > 0);
}

#[test]
fn the_same_seed_gives_the_same_run() {
    let jobs = r#"
seed = 9
[[job]]
name = "w"
namespace = 1
rw = "write"
bs = "28KiB"
iodepth = 4
numjobs = 2
size = "4z"
runtime = "300ms"
time_based = true
[[job]]
name = "r"
namespace = 0
rw = "randread"
bs = "4KiB"
iodepth = 8
size = "2z"
runtime = "300ms"
time_based = true
[prefill]
size = "2z"
namespaces = [0]
"#;
    let run = || {
        let exp = experiment(jobs, &[]);
        let out = crate::experiment::run(&exp, Inputs::default(), 0, &mut |_| {}).unwrap();
        out.device.check_invariants();
        serde_json::to_string(&out.summary).unwrap()
    };
    let a = run();
    assert_eq!(a, run());
    assert!(a.contains("\"ns1\""), "metrics per namespace");
}

#[test]
fn a_queued_write_completes_through_the_kernel() {
    // A tiny bucket: most writes wait for tokens; every one of them completes.
    let exp = experiment(
        "[[job]]\nnamespace = 0\nrw = \"write\"\nbs = \"32KiB\"\niodepth = 4\nsize = \"1z\"\nio_size = \"2MiB\"\n",
        &[
            "layer.bucket_per_width=\"4KiB\"",
            "layer.initial_delay=\"200us\"",
        ],
    );
    let device = build_device(&exp);
    let out = crate::experiment::run_on(&exp, device, Inputs::default(), 0, &mut |_| {}).unwrap();
    let w = &out.summary.ops["write"];
    assert_eq!(w.count, 64);
    let Some(FirmwareReport::Elastic(r)) = &out.summary.firmware else {
        panic!("an eZNS report")
    };
    assert!(r.writes_queued > 0);
}

#[test]
fn bad_layer_settings_name_the_field() {
    for (set, field) in [
        ("layer.essentials=2", "layer.essentials"),
        ("layer.spares=100", "layer.spares"),
        ("layer.zones_per_vzone=3", "layer.zones_per_vzone"),
        ("layer.max_stripe_size=\"6KiB\"", "layer.max_stripe_size"),
        ("layer.weights=[1]", "layer.weights"),
        ("layer.fixed_width=[3]", "layer.fixed_width[0]"),
        (
            "layer.vzones_per_namespace=100",
            "layer.vzones_per_namespace",
        ),
        ("layer.token_refresh=\"0s\"", "layer.token_refresh"),
        ("layer.bogus=1", "layer"),
    ] {
        let text = format!("[[job]]\nrw = \"read\"\nbs = \"4KiB\"\n{DEVICE}\n{LAYER}");
        let err = ExperimentConfig::parse(&text, &[set.to_string()])
            .and_then(|c| c.validate("t"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(field), "{set}: {err}");
    }
    let text = format!("[[job]]\nnamespace = 2\nrw = \"read\"\nbs = \"4KiB\"\n{DEVICE}\n{LAYER}");
    let err = ExperimentConfig::parse(&text, &[])
        .unwrap()
        .validate("t")
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("job[0].namespace"), "{err}");
}
