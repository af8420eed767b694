//! Setting a device up as if the host had written it before the run: write pointers, pieces,
//! programmed units, counters and retained zeros are set directly, in O(zones), with the same
//! state (zones, pieces, firmware allocations, NAND program counts) that writing the same data
//! sequentially would leave. The prefill takes no simulated time: the run starts on an idle
//! device at time zero. A zone filled to capacity is Full; a zone filled partly is Closed, as if
//! the host had closed it after writing.

use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::device::Device;
use crate::device::ZoneState;
use crate::time::Instant;

/// How zones are chosen and filled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PrefillPattern {
    /// Zones in order from the first of the range, each filled to `fill` of its capacity, until
    /// `fraction` of the range's capacity is written.
    Sequential,
    /// Zones of the range in a random order (from the run's seed), each filled to a level drawn
    /// uniformly from `fill_min..=fill_max` of its capacity, until `fraction` is written.
    Random,
}

/// Which zones to fill and how much (LBAs from each zone's start).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrefillPlan {
    pub zones: Vec<(u32, u64)>,
}

impl PrefillPlan {
    /// A plan over zones `first..first + count` of a device whose zones hold `cap_lbas`: write
    /// `fraction` of the range's capacity, zone by zone, each zone filled to a level in
    /// `fill_min..=fill_max` (rounded to `align_lbas`). Zones in `skip` are left alone.
    #[allow(clippy::too_many_arguments)]
    pub fn build(
        pattern: PrefillPattern,
        first: u32,
        count: u32,
        cap_lbas: u64,
        fraction: f64,
        fill: (f64, f64),
        align_lbas: u64,
        skip: &[u32],
        seed: u64,
    ) -> Self {
        let mut order: Vec<u32> = (first..first + count)
            .filter(|z| !skip.contains(z))
            .collect();
        let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0x9e37_79b9_7f4a_7c15);
        if pattern == PrefillPattern::Random {
            order.shuffle(&mut rng);
        }
        let align = align_lbas.max(1);
        let mut remaining = (fraction * cap_lbas as f64 * count as f64) as u64 / align * align;
        let mut zones = Vec::new();
        for zone in order {
            if remaining == 0 {
                break;
            }
            let level = if fill.0 == fill.1 {
                fill.0
            } else {
                rng.random_range(fill.0..=fill.1)
            };
            let lbas = ((level * cap_lbas as f64) as u64 / align * align)
                .min(remaining)
                .min(cap_lbas);
            if lbas > 0 {
                zones.push((zone, lbas));
                remaining -= lbas;
            }
        }
        zones.sort_unstable();
        PrefillPlan { zones }
    }

    pub fn lbas(&self) -> u64 {
        self.zones.iter().map(|z| z.1).sum()
    }

    /// Zones the plan leaves partly written (each holds an active resource).
    pub fn partial_zones(&self, cap_lbas: u64) -> u32 {
        self.zones.iter().filter(|z| z.1 < cap_lbas).count() as u32
    }
}

impl Device {
    /// Applies `plan` to a fresh device (no zone written yet). Returns the bytes it holds.
    pub fn prefill(&mut self, plan: &PrefillPlan) -> u64 {
        let unit = self.layout.unit_bytes;
        let t0 = Instant::ZERO;
        for &(zi, lbas) in &plan.zones {
            assert!(
                self.zones[zi as usize].state == ZoneState::Empty && lbas <= self.cap_lbas,
                "prefill of zone {zi}: the zone must be empty and the fill within its capacity"
            );
            self.sequence += 1;
            let mut position = 0;
            let mut bytes = lbas * self.lba_bytes;
            while bytes > 0 {
                if self.zones[zi as usize]
                    .pieces
                    .last()
                    .is_none_or(|p| p.lstart + p.cap <= position)
                {
                    self.allocate(t0, zi, position);
                }
                let zone = &mut self.zones[zi as usize];
                let piece = zone.pieces.last_mut().expect("a piece");
                let chunk = bytes.min(piece.lstart + piece.cap - position);
                let total = piece.staged_bytes + chunk;
                piece.programmed_units += total / unit;
                piece.staged_bytes = total % unit;
                piece.data += chunk;
                zone.units_streamed = piece.stream_base + piece.programmed_units;
                self.nand.count_programs(total / unit);
                if piece.programmed_units > 0 {
                    let high = &mut self.phys_high[piece.pz as usize];
                    *high = (*high).max(piece.frontier_unit());
                }
                position += chunk;
                bytes -= chunk;
            }
            if let Some(store) = &mut self.data {
                store.append(zi, (lbas * self.lba_bytes) as usize, None);
            }
            self.occupancy_epoch += 1;
            let z = &mut self.zones[zi as usize];
            z.wp = lbas;
            z.data_lbas = lbas;
            z.last_use = self.sequence;
            let state = if lbas == self.cap_lbas {
                ZoneState::Full
            } else {
                ZoneState::Closed
            };
            self.set_state(zi, state);
            self.counters.host_write_bytes += lbas * self.lba_bytes;
        }
        assert!(
            self.blocked_until == Instant::ZERO,
            "a prefill on a fresh device needs no erases"
        );
        assert!(
            self.spec
                .zones
                .max_active_zones
                .is_none_or(|m| self.active_zones <= m),
            "the prefill plan leaves more zones active than the device allows (checked by config)"
        );
        plan.lbas() * self.lba_bytes
    }
}
