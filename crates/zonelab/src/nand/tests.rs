use super::*;
use crate::config::{Energy, Geometry, Timing};

fn geometry(dies_per_zone: u32) -> Geometry {
    Geometry {
        channels: 2,
        dies_per_channel: 2,
        blocks_per_die: 8,
        pages_per_block: 4,
        page_size_bytes: 16384,
        pages_per_program: 2,
        lba_size_bytes: 4096,
        dies_per_zone,
        zone_size_bytes: 4 * 4 * 16384,
        zone_capacity_bytes: 4 * 4 * 16384,
        zone_count: 8,
        max_open_zones: None,
        max_active_zones: None,
        zone_append_size_limit_bytes: None,
    }
}

#[test]
fn large_zones_stripe_units_over_every_die_and_channel() {
    let l = Layout::new(&geometry(4));
    // Zone 0 and zone 1 both use dies 0..3; units interleave die by die.
    let dies: Vec<u32> = (0..8).map(|j| l.unit(0, j).die).collect();
    assert_eq!(dies, [0, 1, 2, 3, 0, 1, 2, 3]);
    assert_eq!(l.channel_of(0), 0);
    assert_eq!(l.channel_of(1), 1);
    // Two units of two pages fill a 4-page block: units 0..7 use block 0, zone 1 uses block 1.
    assert!((0..8).all(|j| l.unit(0, j).block == 0));
    assert_eq!(l.unit(1, 0).block, 1);
    assert_eq!(l.dies_of(5), 0..4);
}

#[test]
fn small_zones_live_on_one_die() {
    let l = Layout::new(&geometry(1));
    assert!((0..8).all(|j| l.unit(2, j).die == 2));
    // Four blocks per zone on its die; zone 6 is the second zone of die 2.
    assert_eq!(l.unit(2, 0).block, 0);
    assert_eq!(l.unit(2, 7).block, 3);
    assert_eq!(l.unit(6, 0), UnitAddress { die: 2, block: 4 });
}

#[test]
fn blocks_holding_covers_programmed_units_only() {
    let l = Layout::new(&geometry(1));
    let blocks: Vec<u32> = l.blocks_holding(2, 3).map(|a| a.block).collect();
    assert_eq!(blocks, [0, 1], "units 0..3 span two blocks of two units");
    assert_eq!(l.blocks_holding(2, u64::MAX).count(), 4);
    assert_eq!(l.blocks_holding(2, 0).count(), 0);
    let wide = Layout::new(&geometry(4));
    assert_eq!(
        wide.blocks_holding(0, 2).count(),
        2,
        "units 0 and 1 on dies 0 and 1"
    );
}

#[test]
fn erase_holds_the_die_and_counts_wear() {
    let geo = geometry(4);
    let timing = Timing {
        read_latency_ns: 10,
        program_latency_ns: 100,
        erase_latency_ns: 1000,
        channel_rate_mb_s: 1000,
        host_rate_mb_s: 1000,
        read_overhead_ns: 0,
        write_overhead_ns: 0,
        zone_mgmt_overhead_ns: 0,
        write_buffer_units_per_zone: 0,
    };
    let mut n = Nand::new(&geo, &timing);
    let a = UnitAddress { die: 1, block: 3 };
    assert_eq!(n.erase_block(5, a), 1005);
    assert_eq!(n.erase_block(5, a), 2005, "a second erase on the die waits");
    assert_eq!(n.read_page(0, 1, 1000), 2005 + 10 + 1000);
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
