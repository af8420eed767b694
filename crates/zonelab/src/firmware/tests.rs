//! The zone pool and the Preemptive Zone Reset state machine, every transition and threshold edge.

use super::erase::{AnyScheduler, OnDemand, Preemptive};
use super::placement::{AnyPlacement, FreeList, Pick};
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

fn preemptive(t_invalid: u32) -> Firmware {
    Firmware::of(
        AnyPlacement::Free(FreeList::new(8, Pick::Oldest)),
        AnyScheduler::Preemptive(Preemptive::new(pool(true), t_invalid, IdleScope::Device)),
    )
}

fn mapping(pool: ZonePool) -> Firmware {
    Firmware::of(
        AnyPlacement::Free(FreeList::new(8, Pick::Oldest)),
        AnyScheduler::OnDemand(OnDemand { pool }),
    )
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
    fn wear(&self) -> WearView<'_> {
        WearView {
            nand: &self.nand,
            layout: &self.layout,
        }
    }
}

/// Allocates `need_units` with a fresh NAND's wear.
fn allocate(f: &mut Firmware, now: Instant, need_units: u64) -> Allocation {
    let fresh = FakeIdle::new();
    f.allocate(now, need_units, &fresh.wear())
}

fn state(f: &Firmware) -> PoolState {
    f.pool_state().expect("a scheduler with a pool")
}

fn pool_report(p: &Firmware, now: Instant) -> PoolReport {
    match p.report(now) {
        Some(FirmwareReport::ZoneMapping(r)) => r,
        other => panic!("expected a zone-mapping report, got {other:?}"),
    }
}

fn reset(p: &mut Firmware, zone: u32, units: u64) {
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
    let mut m = mapping(pool(false));
    assert_eq!(
        (
            allocate(&mut m, at(0), 8).zone,
            allocate(&mut m, at(0), 8).zone
        ),
        (0, 1)
    );
    reset(&mut m, 0, 1);
    let r = pool_report(&m, at(0));
    assert_eq!((r.free_zones, r.invalid_zones), (6, 1));
}

#[test]
fn full_erases_run_only_at_or_below_t_free_and_stop_above_it() {
    let wear = FakeIdle::new();
    let mut p = pool(false).with_s2_erases(S2Erases::UntilAboveTFree);
    for z in 0..3 {
        p.invalidate(at(0), z, 8, 3);
    }
    // Z_free = 3 > T_free = 2: no erase needed.
    assert!(
        p.full_erases_for_allocation(at(0), 3, &wear.wear())
            .is_empty()
    );
    // Z_free = 2 = T_free: erase until Z_free = 3, head first, every row (no WP optimisation).
    let orders = p.full_erases_for_allocation(at(0), 2, &wear.wear());
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
    assert_eq!(p.invalid_zones(), 2);
    assert_eq!(p.report(at(0), 3).free_zones, 3);
}

#[test]
fn wp_optimisation_erases_only_rows_with_programmed_units() {
    let mut p = pool(true);
    assert!(!p.invalidate(at(0), 0, 3, 6)); // units 0..3: rows 0 and 1
    assert!(p.invalidate(at(0), 1, 0, 6)); // nothing programmed: free at once
    assert_eq!(p.invalid_zones(), 1);
    let a = p.partial_step(at(0), 7).unwrap();
    assert_eq!(
        (a.rows, a.programmed_only, a.frees_zone, a.kind),
        (0..1, Some(3), false, EraseKind::Partial)
    );
    let b = p.partial_step(at(0), 7).unwrap();
    assert_eq!((b.rows, b.frees_zone), (1..2, true));
    assert_eq!(p.partial_step(at(0), 8), None);
    assert_eq!(p.invalid_zones(), 0);
}

#[test]
fn s0_to_s1_at_t_invalid_and_back() {
    let idle = FakeIdle::new();
    let mut p = preemptive(2);
    for _ in 0..3 {
        allocate(&mut p, at(0), 8);
    }
    reset(&mut p, 0, 2);
    assert_eq!(state(&p), PoolState::S0, "1 invalid < T_invalid 2");
    assert_eq!(
        p.on_idle(&idle.view(at(0), true)),
        None,
        "S0 does no partial erase"
    );
    reset(&mut p, 1, 2);
    assert_eq!(state(&p), PoolState::S1, "2 invalid = T_invalid");
    // Busy device: nothing.
    assert_eq!(p.on_idle(&idle.view(at(0), false)), None);
    // Idle: one row (zone 0 has one row of programmed units).
    let o = p.on_idle(&idle.view(at(0), true)).unwrap();
    assert_eq!((o.zone, o.rows.clone(), o.frees_zone), (0, 0..1, true));
    assert_eq!(state(&p), PoolState::S0, "1 invalid left, below T_invalid");
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
        allocate(&mut p, at(0), 8);
    }
    reset(&mut p, 0, 8);
    reset(&mut p, 1, 8);
    assert_eq!(state(&p), PoolState::S1);
    // Z_free = 3 > T_free: the allocation needs no erase.
    let a = allocate(&mut p, at(0), 8);
    assert!(a.erase_first.is_empty());
    assert_eq!(state(&p), PoolState::S1);
    // Z_free = 2 = T_free: S2 erases the head invalid zone whole, then hands out a zone.
    let a = allocate(&mut p, at(100), 8);
    assert_eq!(a.erase_first.len(), 1);
    assert_eq!(a.erase_first[0].kind, EraseKind::Full);
    assert_eq!(a.erase_first[0].rows, 0..4);
    assert_eq!(state(&p), PoolState::S2);
    assert_eq!(
        p.on_idle(&FakeIdle::new().view(at(100), true)),
        None,
        "no partial erases in S2"
    );
    p.blocking_erases_end(at(5000));
    assert_eq!(state(&p), PoolState::S1, "zone 1 is still invalid");
    let r = pool_report(&p, at(6000));
    assert_eq!(r.time_in_s2_ns, 4900);
    assert_eq!(r.full_zone_erases, 1);
}

#[test]
fn s2_always_yields_a_free_zone() {
    // T_free = 0, every zone used once: each allocation must erase an invalid zone first.
    let mut p = Firmware::of(
        AnyPlacement::Free(FreeList::new(3, Pick::Oldest)),
        AnyScheduler::Preemptive(Preemptive::new(
            ZonePool::new(3, 0, false, 2, 1, Sampling::every(Duration::from_ms(500))),
            1,
            IdleScope::Device,
        )),
    );
    for z in 0..3 {
        assert_eq!(allocate(&mut p, at(0), 8).zone, z);
    }
    for round in 0..10u32 {
        reset(&mut p, round % 3, 2);
        let a = allocate(&mut p, at(0), 8);
        assert_eq!(a.erase_first.len(), 1);
        assert_eq!(a.zone, round % 3, "the erased zone is the one handed out");
        p.blocking_erases_end(at(1));
    }
}

#[test]
fn mapping_never_erases_in_idle_time() {
    let mut m = mapping(pool(false));
    for _ in 0..6 {
        allocate(&mut m, at(0), 8);
    }
    reset(&mut m, 0, 8);
    assert!(!m.has_background_work());
    assert_eq!(m.on_idle(&FakeIdle::new().view(at(0), true)), None);
    let a = allocate(&mut m, at(0), 8);
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
        let mut m = mapping(pool(false).with_s2_erases(s2));
        for _ in 0..7 {
            allocate(&mut m, at(0), 8);
        }
        for z in 0..3 {
            reset(&mut m, z, 8);
        }
        (0..3)
            .map(|_| {
                let n = allocate(&mut m, at(0), 8).erase_first.len();
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

/// Erases every block of physical zone `zone` `times` times on `f`'s NAND.
fn wear_out(f: &mut FakeIdle, zone: u32, times: u32) {
    let blocks: Vec<_> = f.layout.blocks_holding(zone, u64::MAX).collect();
    for _ in 0..times {
        for &a in &blocks {
            f.nand.count_erase(a);
        }
    }
}

#[test]
fn least_worn_placement_takes_the_free_zone_erased_least() {
    let mut nand = FakeIdle::new();
    wear_out(&mut nand, 0, 2);
    wear_out(&mut nand, 1, 1);
    assert_eq!(nand.wear().zone_erases(0), 2);
    let mut p = FreeList::new(3, Pick::LeastWorn);
    use placement::Placement;
    let order: Vec<u32> = (0..3)
        .map(|_| p.allocate(at(0), 8, &nand.wear()).zone)
        .collect();
    assert_eq!(order, [2, 1, 0], "fewest erases first");
    p.erased(0);
    p.erased(2);
    wear_out(&mut nand, 2, 5);
    assert_eq!(
        p.allocate(at(0), 8, &nand.wear()).zone,
        0,
        "zone 2 is now the most worn"
    );
}

#[test]
fn a_wear_ordered_pool_erases_the_least_worn_invalid_zone_first() {
    let mut nand = FakeIdle::new();
    wear_out(&mut nand, 0, 3);
    let erase_order = |order: InvalidOrder| {
        let mut p = pool(false).with_order(order);
        p.invalidate(at(0), 0, 8, 0);
        p.invalidate(at(0), 1, 8, 0);
        let first = p.full_erases_for_allocation(at(0), 0, &nand.wear());
        (first[0].zone, p.head_invalid_zone(&nand.wear()))
    };
    assert_eq!(erase_order(InvalidOrder::Fifo), (0, Some(1)));
    assert_eq!(
        erase_order(InvalidOrder::LeastWorn),
        (1, Some(0)),
        "the worn zone rests"
    );
}

#[test]
fn round_robin_reads_wear_from_the_nand() {
    let mut nand = FakeIdle::new();
    let groups = nand.layout.groups();
    // Zone 0 and zone `groups` share group 0; wear zone 0 out.
    wear_out(&mut nand, 0, 1);
    let mut p = placement::RoundRobin::new(&nand.layout, 2 * groups);
    use placement::Placement;
    assert_eq!(p.allocate(at(0), 8, &nand.wear()).zone, groups);
    assert_eq!(p.next_group(), 1 % groups);
}
