//! The zone pool and the Preemptive Zone Reset state machine, every transition and threshold edge.

use super::*;
use crate::metrics::series::Sampling;
use crate::time::Duration;
use crate::time::Instant;

fn at(ns: u64) -> Instant {
    Instant::from_ns(ns)
}

/// 8 zones of 4 rows, 2 units per row; T_free = 2.
fn pool(wp: bool) -> ZonePool {
    ZonePool::new(8, 2, wp, 4, 2, Sampling::every(Duration::from_ms(500)))
}

fn preemptive(t_invalid: u32) -> Preemptive {
    Preemptive::new(pool(true), t_invalid, IdleScope::Device)
}

struct FakeIdle {
    nand: Nand,
    layout: Layout,
}

impl FakeIdle {
    fn new() -> Self {
        let spec = crate::zns::test_spec(0, 4);
        FakeIdle {
            nand: Nand::new(&spec.nand.geometry, &spec.nand.timing),
            layout: spec.layout(),
        }
    }
    fn view(&self, now: Instant, device_idle: bool) -> IdleView<'_> {
        IdleView {
            now,
            device_idle,
            nand: &self.nand,
            layout: &self.layout,
        }
    }
}

fn pool_report(p: &dyn ResetPolicy, now: Instant) -> PoolReport {
    match p.report(now) {
        Some(FirmwareReport::ZoneMapping(r)) => r,
        other => panic!("expected a zone-mapping report, got {other:?}"),
    }
}

fn reset(p: &mut dyn ResetPolicy, zone: u32, units: u64) {
    let d = p.on_host_reset(
        Instant::ZERO,
        &ResetView {
            physical_zone: zone,
            programmed_units: units,
            pieces: &[],
        },
    );
    assert_eq!(d, ResetDecision::unlink());
}

#[test]
fn allocation_takes_free_zones_in_order_and_keeps_the_total() {
    let mut p = pool(false);
    assert_eq!((p.take_free(at(0)), p.take_free(at(0))), (0, 1));
    assert_eq!(p.free_zones(), 6);
    p.invalidate(at(0), 0, 1);
    assert_eq!((p.free_zones(), p.invalid_zones()), (6, 1));
}

#[test]
fn full_erases_run_only_at_or_below_t_free_and_stop_above_it() {
    let mut p = pool(false);
    for _ in 0..5 {
        p.take_free(at(0));
    }
    for z in 0..3 {
        p.invalidate(at(0), z, 8);
    }
    // Z_free = 3 > T_free = 2: no erase needed.
    assert!(p.full_erases_for_allocation(at(0)).is_empty());
    p.take_free(at(0));
    // Z_free = 2 = T_free: erase until Z_free = 3, head first, every row (no WP optimisation).
    let orders = p.full_erases_for_allocation(at(0));
    assert_eq!(orders.len(), 1);
    assert_eq!(
        orders[0],
        EraseOrder {
            zone: 0,
            rows: 0..4,
            programmed_only: None,
            frees_zone: true,
            kind: EraseKind::Full
        }
    );
    assert_eq!((p.free_zones(), p.invalid_zones()), (3, 2));
}

#[test]
fn wp_optimisation_erases_only_rows_with_programmed_units() {
    let mut p = pool(true);
    p.take_free(at(0));
    p.take_free(at(0));
    p.invalidate(at(0), 0, 3); // units 0..3: rows 0 and 1
    p.invalidate(at(0), 1, 0); // nothing programmed: free at once
    assert_eq!((p.free_zones(), p.invalid_zones()), (7, 1));
    let a = p.partial_step(at(0)).unwrap();
    assert_eq!(
        (a.rows, a.programmed_only, a.frees_zone, a.kind),
        (0..1, Some(3), false, EraseKind::Partial)
    );
    let b = p.partial_step(at(0)).unwrap();
    assert_eq!((b.rows, b.frees_zone), (1..2, true));
    assert_eq!(p.partial_step(at(0)), None);
    assert_eq!((p.free_zones(), p.invalid_zones()), (8, 0));
}

#[test]
fn s0_to_s1_at_t_invalid_and_back() {
    let idle = FakeIdle::new();
    let mut p = preemptive(2);
    for _ in 0..3 {
        p.allocate(at(0), 8);
    }
    reset(&mut p, 0, 2);
    assert_eq!(p.state(), PoolState::S0, "1 invalid < T_invalid 2");
    assert_eq!(
        p.on_idle(&idle.view(at(0), true)),
        None,
        "S0 does no partial erase"
    );
    reset(&mut p, 1, 2);
    assert_eq!(p.state(), PoolState::S1, "2 invalid = T_invalid");
    // Busy device: nothing.
    assert_eq!(p.on_idle(&idle.view(at(0), false)), None);
    // Idle: one row (zone 0 has one row of programmed units).
    let o = p.on_idle(&idle.view(at(0), true)).unwrap();
    assert_eq!((o.zone, o.rows.clone(), o.frees_zone), (0, 0..1, true));
    assert_eq!(p.state(), PoolState::S0, "1 invalid left, below T_invalid");
    let r = pool_report(&p, at(10));
    assert_eq!(
        (r.partial_zone_erases, r.zones_freed, r.invalid_zones),
        (1, 1, 1)
    );
}

#[test]
fn s2_at_t_free_then_back_to_s1_or_s0() {
    let mut p = preemptive(1);
    for _ in 0..5 {
        p.allocate(at(0), 8);
    }
    reset(&mut p, 0, 8);
    reset(&mut p, 1, 8);
    assert_eq!(p.state(), PoolState::S1);
    // Z_free = 3 > T_free: the allocation needs no erase.
    let a = p.allocate(at(0), 8);
    assert!(a.erase_first.is_empty());
    assert_eq!(p.state(), PoolState::S1);
    // Z_free = 2 = T_free: S2 erases the head invalid zone whole, then hands out a zone.
    let a = p.allocate(at(100), 8);
    assert_eq!(a.erase_first.len(), 1);
    assert_eq!(a.erase_first[0].kind, EraseKind::Full);
    assert_eq!(a.erase_first[0].rows, 0..4);
    assert_eq!(p.state(), PoolState::S2);
    assert_eq!(
        p.on_idle(&FakeIdle::new().view(at(100), true)),
        None,
        "no partial erases in S2"
    );
    p.blocking_erases_end(at(5000));
    assert_eq!(p.state(), PoolState::S1, "zone 1 is still invalid");
    let r = pool_report(&p, at(6000));
    assert_eq!(r.time_in_s2_ns, 4900);
    assert_eq!(r.full_zone_erases, 1);
}

#[test]
fn s2_always_yields_a_free_zone() {
    // T_free = 0, every zone used once: each allocation must erase an invalid zone first.
    let mut p = Preemptive::new(
        ZonePool::new(3, 0, false, 2, 1, Sampling::every(Duration::from_ms(500))),
        1,
        IdleScope::Device,
    );
    for z in 0..3 {
        assert_eq!(p.allocate(at(0), 8).zone, z);
    }
    for round in 0..10u32 {
        reset(&mut p, round % 3, 2);
        let a = p.allocate(at(0), 8);
        assert_eq!(a.erase_first.len(), 1);
        assert_eq!(a.zone, round % 3, "the erased zone is the one handed out");
        p.blocking_erases_end(at(1));
    }
}

#[test]
fn mapping_never_erases_in_idle_time() {
    let mut m = Mapping::new(pool(false));
    for _ in 0..6 {
        m.allocate(at(0), 8);
    }
    reset(&mut m, 0, 8);
    assert!(!m.has_background_work());
    assert_eq!(m.on_idle(&FakeIdle::new().view(at(0), true)), None);
    let a = m.allocate(at(0), 8);
    assert_eq!(a.erase_first.len(), 1, "Z_free = 2 = T_free");
    assert_eq!(
        a.erase_first[0].programmed_only, None,
        "the paper's mapping erases every block"
    );
}

#[test]
fn s2_erases_every_zone_it_needs_or_one_per_allocation() {
    // 8 zones, T_free = 2: seven in use (Z_free = 1), then the host resets three at once.
    let after_burst = |s2: S2Erases| {
        let mut m = Mapping::new(pool(false).with_s2_erases(s2));
        for _ in 0..7 {
            m.allocate(at(0), 8);
        }
        for z in 0..3 {
            reset(&mut m, z, 8);
        }
        (0..3)
            .map(|_| {
                let n = m.allocate(at(0), 8).erase_first.len();
                m.blocking_erases_end(at(1));
                n
            })
            .collect::<Vec<_>>()
    };
    // Until Z_free > T_free: the first allocation erases two of the burst, the next one the third.
    assert_eq!(after_burst(S2Erases::UntilAboveTFree), [2, 1, 0]);
    // One per allocation: each allocation waits for its own zone's erase only.
    assert_eq!(after_burst(S2Erases::OnePerAllocation), [1, 1, 1]);
    assert_eq!(S2Erases::default(), S2Erases::OnePerAllocation);
}
