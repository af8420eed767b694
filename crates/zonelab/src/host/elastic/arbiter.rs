//! The zone arbiter's control plane: opening a stripe group when a v-zone needs one (local
//! overdrive picks its width, the serial allocator its physical zones, global overdrive counts
//! the allocation), closing it when it is full, and finishing or resetting a v-zone.

use smallvec::SmallVec;

use super::Elastic;
use super::overdrive::{local_width, pow2_floor, redistribute, stripe_lbas};
use super::sched::read_cc::ReadCc;
use super::vzone::{Group, GroupId, Queued};
use crate::device::{ZoneAction, ZoneState};
use crate::host::lzone::Effect;
use crate::host::stripe::Stripe;
use crate::time::Instant;

impl Elastic {
    /// Makes a group for v-zone `vid` of `ns` from logical offset `start` on the physical
    /// zones `pzs`, appended to the v-zone's groups (not open yet: no resources held).
    pub(super) fn new_group(
        &mut self,
        ns: u32,
        vid: u32,
        start: u64,
        width: u32,
        pzs: SmallVec<[u32; 16]>,
    ) -> GroupId {
        let stripe = stripe_lbas(width, self.base, self.spec.max_stripe_lbas);
        let group = Group {
            ns,
            vzone: vid,
            start,
            stripe: Stripe::new(width, stripe),
            cap: width as u64 * self.hal.usable_lbas,
            written: 0,
            spares: 0,
            open: false,
            cc: ReadCc::new(width, &self.spec.sched.cc),
            pzs,
        };
        let g = match self.free_groups.pop() {
            Some(g) => {
                self.groups[g as usize] = Some(group);
                g
            }
            None => {
                self.groups.push(Some(group));
                self.groups.len() as GroupId - 1
            }
        };
        let vz = &mut self.vz[vid as usize];
        vz.groups.push(g);
        vz.consumed += width;
        self.stats.groups_opened[ns as usize] += 1;
        *self.stats.widths[ns as usize].entry(width).or_default() += 1;
        g
    }

    /// The width the next group of v-zone `vid` of `ns` gets (local overdrive).
    fn next_width(&mut self, ns: u32, vid: u32) -> u32 {
        let remaining = self.spec.zones_per_vzone - self.vz[vid as usize].consumed;
        if !self.spec.local_overdrive {
            return self.spec.fixed_width_of(ns).min(remaining);
        }
        let j = ns as usize;
        let first = self.vz[vid as usize].groups.is_empty();
        if first || self.spec.ewma_sample == super::EwmaSample::GroupOpen {
            self.ewma[j].sample(self.lz[j].active());
        }
        local_width(
            self.res.essentials[j],
            self.res.pool(j),
            self.ewma[j].value(),
            self.base,
            self.res.free_spares(j),
            remaining,
            self.spec.zones_per_vzone,
        )
    }

    /// Physical zones the device can still activate for new groups.
    pub(super) fn device_room(&self) -> u32 {
        self.hal
            .mar
            .saturating_sub(self.alloc.pooled() + self.open_pzs)
    }

    /// Whether a write at `offset` of v-zone `vid` can go now as far as groups are concerned:
    /// it lands in the open group, or the device has room to open one.
    pub(super) fn group_ready(&self, vid: u32, offset: u64) -> bool {
        let covered = self.vz[vid as usize]
            .open_group(&self.groups)
            .is_some_and(|g| (self.group(g).start..self.group(g).end()).contains(&offset));
        covered || self.device_room() > 0
    }

    /// Opens the next group of v-zone `vid` of `ns` at logical offset `start`: its width, its
    /// physical zones (reserved through the serial allocator), its resources. The caller made
    /// sure the device has room ([`Elastic::group_ready`]).
    pub(super) fn open_group(&mut self, now: Instant, ns: u32, vid: u32, start: u64) -> GroupId {
        let room = self.device_room();
        assert!(room > 0, "a group opens only when the device has room");
        let mut width = self.next_width(ns, vid);
        assert!(
            width > 0,
            "v-zone {vid}: no physical zone left for offset {start}"
        );
        // A fixed width (local overdrive off) may not fit the spares left, and no width may
        // pass the device's active limit: narrower then.
        let free = self.res.free_spares(ns as usize);
        let fits = (self.base + free).min(room);
        if width > fits {
            width = pow2_floor(fits).max(1);
        }
        let spares = width.saturating_sub(self.base);
        if !self.vz[vid as usize].entitled {
            self.vz[vid as usize].entitled = true;
            self.res.take(ns as usize, self.base, 0);
        }
        let pzs = self.alloc.open_group(&mut self.dev, &self.hal, now, width);
        let g = self.new_group(ns, vid, start, width, pzs);
        self.res.take(ns as usize, 0, spares);
        self.open_pzs += width;
        let gr = self.group_mut(g);
        gr.open = true;
        gr.spares = spares;
        self.sample_spares(now, ns as usize);
        self.allocated(now, ns, width);
        g
    }

    /// V-zone `vid` is full, finished or reset on the device: its essentials go back.
    pub(super) fn disengage(&mut self, vid: u32) {
        let vz = &mut self.vz[vid as usize];
        if std::mem::take(&mut vz.entitled) {
            self.res.release((vid / self.per_ns) as usize, self.base, 0);
        }
    }

    /// Global overdrive's view of an allocation by `ns`: a lender active again recalls its
    /// loans; every `redistribute_every` allocations a cycle lends idle namespaces' spares and
    /// may reclaim idle overdriven groups.
    fn allocated(&mut self, now: Instant, ns: u32, count: u32) {
        if !self.spec.global_overdrive {
            return;
        }
        if self.res.recall_all(ns as usize) {
            self.sample_all_spares(now);
        }
        if !self.global.record(ns, count) {
            return;
        }
        let active = self.global.active(self.spec.namespaces as usize);
        if redistribute(&mut self.res, &active) > 0 {
            self.global.redistributions += 1;
        }
        self.sample_all_spares(now);
        if self.spec.reclaim {
            self.reclaim_idle(now);
        }
    }

    /// Group `g` is full (or its v-zone finished): its physical zones are finished and its
    /// spares go back to its namespace.
    pub(super) fn close_group(&mut self, now: Instant, g: GroupId) {
        let gr = self.group_mut(g);
        if !gr.open {
            return;
        }
        gr.open = false;
        let (ns, spares, width) = (gr.ns as usize, gr.spares, gr.width());
        gr.spares = 0;
        let pzs = gr.pzs.clone();
        for pz in pzs {
            if self.dev.zone_descriptor(pz).state.is_active() {
                self.dev
                    .manage(now, self.hal.zslba(pz), ZoneAction::Finish)
                    .expect("finish of a group's physical zone");
            }
        }
        self.open_pzs -= width;
        self.res.release(ns, 0, spares);
        self.sample_all_spares(now);
    }

    /// Resets group `g`'s physical zones, returns them to the allocator and drops the group.
    /// Reads still queued for it go to the device first. Returns when the resets complete.
    pub(super) fn drop_group(&mut self, now: Instant, g: GroupId) -> Instant {
        self.flush_reads(now, g);
        self.close_group(now, g);
        let gr = self.groups[g as usize].take().expect("a live group");
        self.stats.cc_decreases += gr.cc.decreases;
        self.stats.cc_increases += gr.cc.increases;
        let mut done = now;
        for &pz in &gr.pzs {
            if self.dev.zone_descriptor(pz).state != ZoneState::Empty {
                let d = self
                    .dev
                    .manage(now, self.hal.zslba(pz), ZoneAction::Reset)
                    .expect("reset of a group's physical zone");
                done = done.max(d);
            }
            self.alloc.release(pz);
        }
        self.free_groups.push(g);
        done
    }

    /// A zone management command on v-zone `zone` of `ns`, its host-visible part done. A reset
    /// drops whatever waits in the v-zone's queue (the writes it would erase complete now) and a
    /// reclaim in progress; a finish first sends the queued writes (bypassing admission) and
    /// hurries a reclaim along. Returns None if the finish must still wait in the queue.
    pub(super) fn manage(
        &mut self,
        now: Instant,
        ns: u32,
        zone: u32,
        effect: Effect,
        tag: u64,
    ) -> Option<Instant> {
        let vid = self.vid(ns, zone);
        match effect {
            Effect::None => Some(now),
            Effect::Reset => {
                self.cancel_queue(now, vid);
                Some(self.realise(now, vid, Effect::Reset))
            }
            Effect::Finish => {
                if self.vz[vid as usize].migration.is_some() {
                    self.hurry_migration(now, vid);
                }
                while !self.vz[vid as usize].queue.is_empty() {
                    if !self.dispatch_head(now, vid, true) {
                        break;
                    }
                }
                if self.vz[vid as usize].queue.is_empty() {
                    return Some(self.realise(now, vid, Effect::Finish));
                }
                self.vz[vid as usize]
                    .queue
                    .push_back(Queued::Finish { tag });
                self.stats.writes_queued += 1;
                self.mark_waiting(now, vid);
                None
            }
        }
    }

    /// Completes everything queued for v-zone `vid` at `now` without sending it (a reset makes
    /// it moot) and abandons a reclaim in progress.
    fn cancel_queue(&mut self, now: Instant, vid: u32) {
        if let Some(id) = self.vz[vid as usize].migration {
            self.abandon_migration(now, id);
        }
        let queue = std::mem::take(&mut self.vz[vid as usize].queue);
        for item in queue {
            match item {
                Queued::Write { tag, .. } | Queued::Finish { tag } => self.complete_part(tag, now),
                Queued::Copy { .. } => {}
            }
        }
        self.vz[vid as usize].waiting_clear();
    }

    /// Applies a finish or reset to v-zone `vid`'s physical zones.
    pub(super) fn realise(&mut self, now: Instant, vid: u32, effect: Effect) -> Instant {
        let done = match effect {
            Effect::None => return now,
            Effect::Finish => {
                if let Some(g) = self.vz[vid as usize].open_group(&self.groups) {
                    self.close_group(now, g);
                }
                now
            }
            Effect::Reset => {
                let groups = std::mem::take(&mut self.vz[vid as usize].groups);
                let mut done = now;
                for g in groups {
                    done = done.max(self.drop_group(now, g));
                }
                let vz = &mut self.vz[vid as usize];
                vz.consumed = 0;
                vz.dispatched = 0;
                done
            }
        };
        self.disengage(vid);
        done
    }
}
