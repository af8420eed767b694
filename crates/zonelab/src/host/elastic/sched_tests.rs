//! Property test: the hierarchical scheduler never starves a tenant with pending I/O.
//!
//! Random mixes of two or four tenants (one per namespace), each idle, a reader or a writer with
//! a random queue depth and request sizes, random weighted round-robin weights, the scheduler
//! on, on the tiny small-zone device of `tests.rs`; every tenant keeps its queue full for 1 s of
//! simulated time. Every command completes within `bound` of its submission, so a tenant with
//! pending I/O completes one within `bound` of any instant.
//!
//! The bound. The scheduler holds a command only for its group's read window or its v-zone's
//! tokens, and at any instant it dispatches, in weighted round-robin rounds until nothing more
//! can go, every queued command that may go: weights order the dispatches of one instant, they
//! never defer one. A write waiting for tokens goes within one refresh period plus the time
//! the bucket takes to fill, `bucket_lbas_per_width x delay` (tokens come at width / delay, the
//! bucket holds `bucket_lbas_per_width x width`; delay = the largest the monitor reported). A
//! read waiting for its window goes when a read in flight completes. A command on the device
//! completes at the latest after everything that can be booked on its die before it: every
//! program unit the shared cache holds plus every unit of the commands outstanding, each one
//! die program (unit transfer + tPROG), one page read per outstanding read page, and the lazy
//! erases of one v-zone per tenant (its physical zones' blocks), plus the host transfer of all
//! outstanding bytes (`t_dev`). So: latency <= refresh + bucket x delay + 2 x t_dev (one t_dev
//! for what the queued command waits on, one for its own service).

use proptest::prelude::*;

use super::seam::min_time;
use super::tests::{CAP, at, layer, settle};
use super::*;
use crate::device::DeviceModel;
use crate::device::{Command, Data, ZoneAction};

#[derive(Clone, Copy, Debug)]
enum Role {
    Idle,
    Reader,
    Writer,
}

fn role() -> impl Strategy<Value = Role> {
    prop_oneof![Just(Role::Idle), Just(Role::Reader), Just(Role::Writer)]
}

/// The tenant's largest request, LBAs.
const MAX_NLB: u64 = 8;
const MAX_QD: u64 = 4;
const RUN_NS: u64 = 1_000_000_000;
const STEP_NS: u64 = 50_000;

/// xorshift64: the run's request sizes and offsets, from the case's seed.
fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

struct Tenant {
    role: Role,
    qd: u64,
    /// (submitted, completes at; None while the layer holds it) per outstanding command.
    out: Vec<(u64, u64, Option<u64>)>,
    /// The write pointer of the writer's v-zone 0 as the host sees it.
    wp: u64,
    completed: u64,
}

/// `t_dev` of the module comment for the tiny device with `tenants` tenants at most.
fn t_dev(e: &Elastic, tenants: u64) -> u64 {
    let drive = e.device().as_any().downcast_ref::<crate::zns::Device>();
    let spec = drive.expect("the tests' device").spec();
    let g = &spec.nand.geometry;
    let t = &spec.nand.timing;
    let unit_bytes = g.program_unit_bytes();
    let unit_lbas = unit_bytes / 4096;
    let out_lbas = tenants * MAX_QD * MAX_NLB;
    let units = spec.write_cache_units as u64 + out_lbas.div_ceil(unit_lbas);
    let xfer = |bytes: u64| Duration::transfer(bytes, t.channel_rate_mb_s).ns();
    let program = units * (xfer(unit_bytes) + t.program_latency.ns());
    let page = g.page_size_bytes;
    let reads = (out_lbas * 4096).div_ceil(page) * (t.read_latency.ns() + xfer(page));
    let erases = tenants
        * e.spec.zones_per_vzone as u64
        * spec.blocks_per_zone() as u64
        * t.erase_latency.ns();
    let host = Duration::transfer(out_lbas * 4096, spec.nand.timing.host_rate_mb_s).ns();
    program + reads + erases + host
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn the_scheduler_never_starves_a_tenant_with_pending_io(
        four in any::<bool>(),
        roles in proptest::collection::vec(role(), 4),
        weights in proptest::collection::vec(1..5u32, 4),
        qds in proptest::collection::vec(1..=MAX_QD, 4),
        seed in 1..u64::MAX,
    ) {
        let n = if four { 4 } else { 2 };
        let w: Vec<String> = weights[..n].iter().map(|w| w.to_string()).collect();
        let ns_set = format!("layer.namespaces={n}");
        let w_set = format!("layer.weights=[{}]", w.join(", "));
        let mut e = layer(&[&ns_set, &w_set], false);
        prop_assert!(e.spec.sched.read_cc && e.spec.sched.write_admission);
        let mut tenants: Vec<Tenant> = (0..n)
            .map(|i| Tenant { role: roles[i], qd: qds[i], out: Vec::new(), wp: 0, completed: 0 })
            .collect();
        let mut wake = None;
        let mut done = Vec::new();
        let mut tag = 0u64;
        // Readers read v-zone 0 of their namespace, written first.
        for (ns, t) in tenants.iter().enumerate() {
            if matches!(t.role, Role::Reader) {
                tag += 1;
                let data = vec![1u8; (CAP * 4096) as usize];
                e.submit(at(0), Command::write(0, CAP).on(ns as u32).tagged(tag).with_data(Data::Out(&data))).unwrap();
            }
        }
        let start = 200_000_000u64;
        settle(&mut e, &mut wake, start, &mut done);
        done.clear();
        let mut rng = seed;
        let mut worst = 0u64;
        let mut now = start;
        while now < start + RUN_NS {
            settle(&mut e, &mut wake, now, &mut done);
            for c in done.drain(..) {
                let t = tenants.iter_mut().flat_map(|t| t.out.iter_mut()).find(|o| o.1 == c.tag);
                let o = t.expect("a completion of an outstanding command");
                o.2 = Some(c.done.ns());
            }
            for t in tenants.iter_mut() {
                let before = t.out.len();
                t.out.retain(|o| o.2.is_none_or(|d| d > now));
                t.completed += (before - t.out.len()) as u64;
            }
            for (ns, t) in tenants.iter_mut().enumerate() {
                let ns = ns as u32;
                while (t.out.len() as u64) < t.qd {
                    let nlb = next(&mut rng) % MAX_NLB + 1;
                    tag += 1;
                    let a = match t.role {
                        Role::Idle => break,
                        Role::Reader => {
                            let lba = next(&mut rng) % (CAP - nlb);
                            e.submit(at(now), Command::read(lba, nlb).on(ns).tagged(tag)).unwrap()
                        }
                        Role::Writer if t.wp == CAP => {
                            if !t.out.is_empty() {
                                break;
                            }
                            t.wp = 0;
                            e.submit(at(now), Command::zone(ZoneAction::Reset, 0).on(ns).tagged(tag)).unwrap()
                        }
                        Role::Writer => {
                            let nlb = nlb.min(CAP - t.wp);
                            t.wp += nlb;
                            e.submit(at(now), Command::write(t.wp - nlb, nlb).on(ns).tagged(tag)).unwrap()
                        }
                    };
                    t.out.push((now, tag, a.done.map(Instant::ns)));
                }
            }
            wake = min_time(wake, e.advance(at(now), &mut done));
            for t in &tenants {
                for o in &t.out {
                    // Its latency if known, else how long it has waited so far.
                    worst = worst.max(o.2.unwrap_or(now) - o.0);
                }
            }
            now += STEP_NS;
        }
        let delay_max = e.adm.delay_max
            .max(e.spec.sched.admission.initial_delay.ns());
        let p = &e.spec.sched.admission;
        let bound = p.refresh.ns() + p.bucket_lbas_per_width * delay_max
            + 2 * t_dev(&e, n as u64) + STEP_NS;
        prop_assert!(worst <= bound, "a command waited {} ns, bound {} ns", worst, bound);
        for (ns, t) in tenants.iter().enumerate() {
            if !matches!(t.role, Role::Idle) {
                prop_assert!(t.completed > 0, "tenant ns{} completed nothing", ns);
            }
        }
    }
}
