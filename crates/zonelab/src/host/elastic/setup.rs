//! Setting the layer up and checking it: the prefill that lays written v-zones out as if the
//! host had written them (minimum-width groups, the largest stripe), and the layer's own
//! invariants (groups cover each v-zone in order, open physical zones counted and within the
//! device's active limit, essentials following the engaged v-zones).

use super::Elastic;
use crate::time::Instant;

impl Elastic {
    /// Sets v-zones of namespace `ns` up as if written (prefill): (zone, LBAs), in order. Groups
    /// get the minimum width (or the namespace's fixed width) and the largest stripe for it.
    pub fn prefill(&mut self, ns: u32, plan: &[(u32, u64)]) {
        let mut device_plan = Vec::new();
        let mut finish = Vec::new();
        for &(zone, lbas) in plan {
            self.lz[ns as usize].prefill(zone, lbas);
            let vid = self.vid(ns, zone);
            let mut pos = 0;
            while pos < lbas {
                let remaining = self.spec.zones_per_vzone - self.vz[vid as usize].consumed;
                let width = if self.spec.local_overdrive {
                    self.base
                } else {
                    self.spec.fixed_width_of(ns)
                }
                .min(remaining);
                let pzs = self.alloc.take_for_prefill(width);
                let g = self.new_group(ns, vid, pos, width, pzs.clone());
                let cap = self.group(g).cap;
                let x = (lbas - pos).min(cap);
                let stripe = self.group(g).stripe;
                for (i, &pz) in pzs.iter().enumerate() {
                    let on = stripe.on_zone(i as u32, x);
                    device_plan.push((pz, self.hal.header_lbas + on));
                    if x == cap && self.hal.header_lbas + on < self.hal.pz_cap_lbas {
                        finish.push(pz);
                    }
                }
                self.group_mut(g).written = x;
                if x < cap {
                    // The partly written last group stays open, holding its resources.
                    let spares = width.saturating_sub(self.base);
                    self.res.take(ns as usize, self.base, spares);
                    self.vz[vid as usize].entitled = true;
                    self.open_pzs += width;
                    let gr = self.group_mut(g);
                    gr.open = true;
                    gr.spares = spares;
                }
                pos += x;
            }
            self.vz[vid as usize].dispatched = lbas;
        }
        self.dev.prefill_zones(&device_plan);
        for pz in finish {
            self.dev
                .manage(
                    Instant::ZERO,
                    self.hal.zslba(pz),
                    crate::device::ZoneAction::Finish,
                )
                .expect("finish of a prefilled physical zone");
        }
        self.sample_spares(Instant::ZERO, ns as usize);
    }

    /// Checks the layer's own invariants (tests).
    pub(super) fn check_layer(&self) {
        self.res.check();
        for lz in &self.lz {
            lz.check();
        }
        for (vid, vz) in self.vz.iter().enumerate() {
            let mut expect = 0;
            for &g in &vz.groups {
                let gr = self.group(g);
                assert_eq!(gr.start, expect, "v-zone {vid}: groups cover it in order");
                assert_eq!(gr.vzone, vid as u32);
                expect = gr.end();
            }
            assert!(
                vz.consumed <= self.spec.zones_per_vzone,
                "v-zone {vid} uses more physical zones than it owns"
            );
        }
        let active_pzs: u32 = self
            .groups
            .iter()
            .flatten()
            .filter(|g| g.open)
            .map(|g| g.width())
            .sum();
        assert_eq!(active_pzs, self.open_pzs, "open physical zones counted");
        assert!(
            active_pzs + self.alloc.pooled() <= self.hal.mar,
            "{active_pzs} open physical zones exceed the device's active limit"
        );
        for (j, lz) in self.lz.iter().enumerate() {
            let entitled = (0..self.per_ns)
                .filter(|&z| self.vz[(j as u32 * self.per_ns + z) as usize].entitled)
                .count() as u32;
            assert_eq!(
                self.res.ess_used[j],
                entitled * self.base,
                "namespace {j}: essentials follow its engaged v-zones"
            );
            let _ = lz;
        }
    }
}
