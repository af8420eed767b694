use super::*;

fn geometry() -> NandGeometry {
    NandGeometry {
        channels: 2,
        dies_per_channel: 2,
        blocks_per_die: 8,
        pages_per_block: 4,
        page_size_bytes: 16384,
        pages_per_program: 2,
    }
}

fn timing(suspend: Option<EraseSuspend>) -> NandTiming {
    NandTiming {
        read_latency: Duration::from_ns(10_000),
            read_4k_latency: Duration::from_ns(10_000),
            channel_op: Duration::ZERO,
        program_latency: Duration::from_ns(100_000),
        erase_latency: Duration::from_ns(1_000_000),
        // 1000 MB/s: one byte per ns.
        channel_rate_mb_s: 1000,
        host_rate_mb_s: 4000,
        erase_suspend: suspend,
        read_priority: false,
    }
}

fn t(ns: u64) -> Instant {
    Instant::from_ns(ns)
}

#[test]
fn large_zones_stripe_units_over_every_die_and_channel() {
    let l = Layout::new(&geometry(), 4, 4);
    // Zone 0 and zone 1 both use dies 0..3; units interleave die by die.
    let dies: Vec<u32> = (0..8).map(|j| l.unit(0, j).die).collect();
    assert_eq!(dies, [0, 1, 2, 3, 0, 1, 2, 3]);
    assert_eq!(l.channel_of(0), 0);
    assert_eq!(l.channel_of(1), 1);
    // Two units of two pages fill a 4-page block: units 0..7 use block 0, zone 1 uses block 4.
    assert!((0..8).all(|j| l.unit(0, j).block == 0));
    assert_eq!(l.unit(1, 0).block, 4);
    assert_eq!(l.dies_of(5), 0..4);
}

#[test]
fn small_zones_live_on_one_die() {
    let l = Layout::new(&geometry(), 1, 4);
    assert!((0..8).all(|j| l.unit(2, j).die == 2));
    // Four blocks per zone on its die; zone 6 is the second zone of die 2.
    assert_eq!(l.unit(2, 0).block, 0);
    assert_eq!(l.unit(2, 7).block, 3);
    assert_eq!(l.unit(6, 0), UnitAddress { die: 2, block: 4 });
}

#[test]
fn blocks_holding_covers_programmed_units_only() {
    let l = Layout::new(&geometry(), 1, 4);
    let blocks: Vec<u32> = l.blocks_holding(2, 3).map(|a| a.block).collect();
    assert_eq!(blocks, [0, 1], "units 0..3 span two blocks of two units");
    assert_eq!(l.blocks_holding(2, u64::MAX).count(), 4);
    assert_eq!(l.blocks_holding(2, 0).count(), 0);
    let wide = Layout::new(&geometry(), 4, 1);
    assert_eq!(
        wide.blocks_holding(0, 2).count(),
        2,
        "units 0 and 1 on dies 0 and 1"
    );
}

#[test]
fn erase_holds_the_die_and_counts_wear() {
    let mut n = Nand::new(&geometry(), &timing(None));
    let a = UnitAddress { die: 1, block: 3 };
    assert_eq!(n.erase_block(t(5), a), t(1_000_005));
    assert_eq!(
        n.erase_block(t(5), a),
        t(2_000_005),
        "a second erase on the die waits"
    );
    assert_eq!(n.read_page(t(0), 1, 1000), t(2_000_005 + 10_000 + 1000));
    assert_eq!(n.take_erase_wait(), Duration::from_ns(2_000_005));
    let w = n.wear();
    assert_eq!((w.min, w.max), (0, 2));
    assert_eq!(w.histogram[&2], 1);
    let e = EnergyNj::of(
        &n.counters,
        &Energy {
            read_nj_per_page: 1.0,
            program_nj_per_page: 2.0,
            erase_nj_per_block: 3.0,
        },
    );
    assert_eq!((e.read, e.erase, e.total()), (1.0, 6.0, 7.0));
}

/// Physics (c): a read striped over k dies of one channel takes tR + k transfers, not
/// k x (tR + transfer).
#[test]
fn reads_on_dies_of_one_channel_overlap_their_sensing() {
    let mut n = Nand::new(&geometry(), &timing(None));
    // Dies 0 and 2 are on channel 0; 4096 bytes take 4096 ns on the channel.
    let a = n.read_page(t(0), 0, 4096);
    let b = n.read_page(t(0), 2, 4096);
    assert_eq!(a, t(10_000 + 4096));
    assert_eq!(b, t(10_000 + 2 * 4096));
}

/// The head-of-line case: a transfer booked for later on the channel does not hold up a transfer
/// from an idle die that is ready earlier.
#[test]
fn an_idle_die_uses_the_gap_before_a_later_transfer() {
    let mut n = Nand::new(&geometry(), &timing(None));
    let busy = UnitAddress { die: 0, block: 0 };
    n.program_unit(t(0), busy); // die 0 busy until 32768 + 100000
    let late = n.read_page(t(0), 0, 4096);
    assert_eq!(late, t(32_768 + 100_000 + 10_000 + 4096));
    let early = n.read_page(t(0), 2, 4096);
    assert_eq!(
        early,
        t(32_768 + 4096),
        "die 2 senses meanwhile and transfers once die 0's program data is off the channel"
    );
}

/// Physics (d): an erase delays only I/O on its die.
#[test]
fn an_erase_delays_only_its_die() {
    let mut n = Nand::new(&geometry(), &timing(None));
    n.erase_block(t(0), UnitAddress { die: 0, block: 0 });
    assert_eq!(n.read_page(t(0), 2, 4096), t(10_000 + 4096));
    assert_eq!(n.take_erase_wait(), Duration::ZERO);
    assert_eq!(n.read_page(t(0), 0, 4096), t(1_000_000 + 10_000 + 4096));
    assert_eq!(n.take_erase_wait(), Duration::from_ns(1_000_000));
}

#[test]
fn erase_suspend_serves_a_read_and_pushes_the_erase_back() {
    let s = EraseSuspend {
        suspend: Duration::from_ns(20_000),
        resume: Duration::from_ns(30_000),
    };
    let mut n = Nand::new(&geometry(), &timing(Some(s)));
    let die = UnitAddress { die: 0, block: 0 };
    n.erase_block(t(0), die);
    n.erase_block(t(0), UnitAddress { die: 0, block: 1 });
    // The read arrives in the middle of the first erase of the run.
    let done = n.read_page(t(500_000), 0, 4096);
    assert_eq!(done, t(500_000 + 20_000 + 10_000 + 4096));
    assert_eq!(n.take_erase_wait(), Duration::from_ns(20_000));
    // A second read while the first is served joins the suspension: no new suspend cost, and
    // it is sensed while the first page crosses the channel (cache read).
    let second = n.read_page(t(510_000), 0, 4096);
    assert_eq!(second, done + Duration::from_ns(10_000));
    // The erase resumes once both pages have left the page register.
    let pushed = 2_000_000 + 20_000 + 30_000 + 2 * 10_000;
    assert_eq!(n.die_free(0), t(pushed));
    assert_eq!(n.counters.erase_suspends, 1);
    // A program still waits for the whole erase run.
    let p = n.program_unit(t(600_000), die);
    assert_eq!(p, t(pushed + 32_768 + 100_000));
}

fn ranges(s: &DieSet) -> String {
    let mut out = String::new();
    s.write_ranges(&mut out);
    out
}

#[test]
fn die_sets_print_as_ranges() {
    let mut s = DieSet::default();
    for d in [0, 1, 2, 3, 8, 70, 71] {
        s.insert(d);
    }
    assert_eq!(ranges(&s), "0-3;8;70-71");
    assert_eq!(DieSet::parse("0-3;8;70-71"), Some(s));
    assert_eq!(DieSet::parse("3-1"), None);
}

/// Read priority: a read waits only for the program in progress, goes before the queued ones,
/// and they move later by its tR (counted); off, it waits for every program queued ahead.
#[test]
fn read_priority_serves_a_read_before_queued_programs() {
    for priority in [false, true] {
        let mut timing = timing(None);
        timing.read_priority = priority;
        let mut n = Nand::new(&geometry(), &timing);
        let a = UnitAddress { die: 0, block: 0 };
        // Each program loads 32,768 bytes over the channel (32,768 ns), then takes 100 us:
        // die 0 holds them over [0, 132768), [132768, 265536) and [265536, 398304).
        for _ in 0..3 {
            n.program_unit(t(0), a);
        }
        let read = n.read_page(t(50_000), 0, 4096);
        if priority {
            // Sensed right after the first program, over [132768, 142768); its page leaves once
            // the second program's data (booked on the channel until 165,536) has crossed.
            assert_eq!(read, t(165_536 + 4096));
            assert_eq!(n.die_free(0), t(398_304 + 10_000));
            assert_eq!(
                (n.counters.programs_pushed, n.counters.program_push_ns),
                (2, 20_000)
            );
            // A second read arriving before the pushed second program starts goes before it
            // too, sensed after the first read; its page leaves after the first one's.
            let second = n.read_page(t(140_000), 0, 4096);
            assert_eq!(second, t(165_536 + 2 * 4096));
            assert_eq!(n.die_free(0), t(398_304 + 20_000));
        } else {
            assert_eq!(read, t(398_304 + 10_000 + 4096));
            assert_eq!(n.counters.programs_pushed, 0);
        }
        // A program after all of it starts when the die is free.
        let p = n.program_unit(t(0), a);
        assert_eq!(p, n.die_free(0));
        n.check_invariants();
    }
}

/// A NAND state keeps the queued programs read priority needs, and is refused by NAND with read
/// priority set the other way.
#[test]
fn a_state_keeps_the_program_queues_and_its_read_priority() {
    let mut on = timing(None);
    on.read_priority = true;
    let mut n = Nand::new(&geometry(), &on);
    n.program_unit(t(0), UnitAddress { die: 0, block: 0 });
    n.program_unit(t(0), UnitAddress { die: 0, block: 0 });
    let saved = n.save();
    let mut back = Nand::new(&geometry(), &on);
    back.restore(saved.clone()).unwrap();
    assert_eq!(
        back.read_page(t(10), 0, 4096),
        n.read_page(t(10), 0, 4096),
        "the restored die overtakes the same queued program"
    );
    let mut off = Nand::new(&geometry(), &timing(None));
    let err = off.restore(saved).unwrap_err();
    assert!(err.contains("read priority on"), "{err}");
}

proptest::proptest! {
    /// A die set holds what was inserted, in order, inline or past 256 dies, and its ranges
    /// parse back to it.
    #[test]
    fn die_sets_hold_their_members(dies in proptest::collection::vec(0u32..600, 0..40)) {
        let mut s = DieSet::default();
        for &d in &dies {
            s.insert(d);
        }
        let members: std::collections::BTreeSet<u32> = dies.iter().copied().collect();
        proptest::prop_assert!(s.iter().eq(members.iter().copied()));
        proptest::prop_assert_eq!(s.is_empty(), members.is_empty());
        proptest::prop_assert_eq!(DieSet::parse(&ranges(&s)), Some(s));
    }
}
