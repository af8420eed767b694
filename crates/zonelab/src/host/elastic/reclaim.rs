//! Reclaim (ezns.md, "Zone ballooning"): a namespace that stopped writing while it holds
//! overdriven groups gets its spares taken back once it saw no writes for `reclaim_cycles`
//! global-overdrive cycles (and at least `reclaim_wait`, which the paper leaves open): each open
//! overdriven group is finished, a narrower group (the narrowest power-of-two width from the
//! minimum up that holds the data) is opened at the same logical offset, and the written data is
//! copied into it in the background: read from the old group at once, written through the
//! v-zone's queue, so the copy is paced by write admission control. Reads keep going to the old
//! group until the copy is done; then the old group's zones are reset and its spares return.
//! Host writes that arrive meanwhile queue behind the copy.

use super::Elastic;
use super::vzone::{GroupId, Queued};
use crate::device::ZoneAction;
use crate::host::stripe::Stripe;
use crate::time::Instant;

#[derive(Debug)]
pub(super) struct Migration {
    pub vid: u32,
    pub old: GroupId,
    pub new: GroupId,
    /// When the old group's data is read (the copy may be written from then on).
    pub copy_ready: Instant,
    /// When the copy is written, once it was sent.
    pub copy_done: Option<Instant>,
}

impl Elastic {
    /// A global-overdrive cycle ended: namespaces idle long enough give back their spares.
    pub(super) fn reclaim_idle(&mut self, now: Instant) {
        for ns in 0..self.spec.namespaces {
            let (t, cycle) = self.last_write[ns as usize];
            if self.global.cycle < cycle + self.spec.reclaim_cycles as u64
                || now < t + self.spec.reclaim_wait
            {
                continue;
            }
            for zone in 0..self.per_ns {
                let vid = self.vid(ns, zone);
                let vz = &self.vz[vid as usize];
                if !vz.queue.is_empty() || vz.migration.is_some() {
                    continue;
                }
                if let Some(g) = vz.open_group(&self.groups)
                    && self.group(g).spares > 0
                {
                    self.start_migration(now, vid, g);
                }
            }
        }
    }

    fn start_migration(&mut self, now: Instant, vid: u32, g: GroupId) {
        let (ns, width, written, start, stripe) = {
            let gr = self.group(g);
            (gr.ns, gr.width(), gr.written, gr.start, gr.stripe)
        };
        if written == 0 {
            // Nothing to copy: the group's zones hold only their headers.
            let vz = &mut self.vz[vid as usize];
            vz.groups.pop();
            vz.consumed -= width;
            self.drop_group(now, g);
            self.stats.reclaims += 1;
            return;
        }
        let mut narrow = self.base;
        while narrow < width && (narrow as u64 * self.hal.usable_lbas) < written {
            narrow *= 2;
        }
        if narrow >= width || self.device_room() + width < narrow {
            return;
        }
        let (ready, data) = self.read_for_copy(now, g, written, stripe);
        // Finish the old group's zones; it keeps its spares until the switch.
        self.group_mut(g).open = false;
        self.open_pzs -= width;
        self.finish_zones(now, g);
        // The narrower group takes its place in the v-zone.
        let zones = self.alloc.open_group(&mut self.dev, &self.hal, now, narrow);
        {
            let vz = &mut self.vz[vid as usize];
            let k = vz.groups.iter().position(|&x| x == g).expect("the group");
            vz.groups.remove(k);
            vz.consumed -= width;
        }
        let new = self.new_group(ns, vid, start, narrow, zones);
        self.group_mut(new).open = true;
        self.open_pzs += narrow;
        let id = match self.migrations.iter().position(Option::is_none) {
            Some(i) => i,
            None => {
                self.migrations.push(None);
                self.migrations.len() - 1
            }
        };
        self.migrations[id] = Some(Migration {
            vid,
            old: g,
            new,
            copy_ready: ready,
            copy_done: None,
        });
        let vz = &mut self.vz[vid as usize];
        vz.read_from = Some((g, start, start + written));
        vz.migration = Some(id as u32);
        vz.queue.push_front(Queued::Copy {
            migration: id as u32,
            offset: start,
            nlb: written,
            data,
        });
        self.stats.reclaims += 1;
        self.stats.reclaimed_lbas += written;
        self.mark_waiting(now, vid);
    }

    /// Reads the `written` LBAs group `g` holds, zone by zone, from `now`: when they are in the
    /// host's memory, and (when data is kept) the bytes in logical order.
    fn read_for_copy(
        &mut self,
        now: Instant,
        g: GroupId,
        written: u64,
        stripe: Stripe,
    ) -> (Instant, Option<Vec<u8>>) {
        let lba_bytes = self.hal.lba_bytes;
        let mut ready = now;
        let mut zone_data: Vec<Vec<u8>> = Vec::new();
        for i in 0..self.group(g).width() {
            let len = stripe.on_zone(i, written);
            let pz = self.group(g).pzs[i as usize];
            let mut buf = if self.retain {
                vec![0u8; (len * lba_bytes) as usize]
            } else {
                Vec::new()
            };
            if len > 0 {
                let part = self.retain.then_some(&mut buf[..]);
                let d = self
                    .dev
                    .read(now, self.hal.data_lba(pz, 0), len, part)
                    .expect("a reclaim read");
                ready = ready.max(d);
            }
            zone_data.push(buf);
        }
        let data = self.retain.then(|| {
            let mut d = Vec::with_capacity((written * lba_bytes) as usize);
            for c in stripe.chunks(0, written) {
                let at = (c.offset * lba_bytes) as usize;
                d.extend_from_slice(
                    &zone_data[c.index as usize][at..at + (c.len * lba_bytes) as usize],
                );
            }
            d
        });
        (ready, data)
    }

    /// Finishes group `g`'s zones that are still active.
    fn finish_zones(&mut self, now: Instant, g: GroupId) {
        let pzs = self.group(g).pzs.clone();
        for pz in pzs {
            if self.dev.zone_descriptor(pz).state.is_active() {
                self.dev
                    .manage(now, self.hal.zslba(pz), ZoneAction::Finish)
                    .expect("finish of a reclaimed group's zone");
            }
        }
    }

    /// Migrations whose copy is written by `now` switch.
    pub(super) fn step_migrations(&mut self, now: Instant) {
        for id in 0..self.migrations.len() {
            let due = self.migrations[id]
                .as_ref()
                .is_some_and(|m| m.copy_done.is_some_and(|d| d <= now));
            if due {
                self.switch(now, id);
            }
        }
    }

    /// Reads go to the narrower group; the old group's zones are reset and its spares return;
    /// the new group takes the spares its width needs.
    fn switch(&mut self, now: Instant, id: usize) {
        let m = self.migrations[id].take().expect("a live migration");
        let old = self.group_mut(m.old);
        let (ns, spares) = (old.ns as usize, std::mem::take(&mut old.spares));
        let vz = &mut self.vz[m.vid as usize];
        vz.read_from = None;
        vz.migration = None;
        self.res.unhold(ns, 0, spares);
        self.drop_group(now, m.old);
        if self.group(m.new).open {
            let need = self.group(m.new).width().saturating_sub(self.base);
            let take = need.min(self.res.free_spares(ns));
            self.res.take(ns, 0, take);
            self.group_mut(m.new).spares = take;
        }
        self.res.settle(ns);
        self.sample_all_spares(now);
        if !self.vz[m.vid as usize].queue.is_empty() {
            self.mark_waiting(now, m.vid);
        }
    }

    /// A finish arrived during the reclaim of v-zone `vid`: the copy is written now (its reads
    /// were booked at the start) and the switch happens at once.
    pub(super) fn hurry_migration(&mut self, now: Instant, vid: u32) {
        let Some(id) = self.vz[vid as usize].migration else {
            return;
        };
        if self.migrations[id as usize]
            .as_ref()
            .is_some_and(|m| m.copy_done.is_none())
        {
            let dispatched = self.dispatch_head(now, vid, true);
            assert!(dispatched, "the copy heads the queue of a migrating v-zone");
        }
        self.switch(now, id as usize);
    }

    /// A reset arrived during the reclaim of v-zone `vid`: both groups go.
    pub(super) fn abandon_migration(&mut self, now: Instant, id: u32) {
        let m = self.migrations[id as usize]
            .take()
            .expect("a live migration");
        let old = self.group_mut(m.old);
        let (ns, spares) = (old.ns as usize, std::mem::take(&mut old.spares));
        let vz = &mut self.vz[m.vid as usize];
        vz.read_from = None;
        vz.migration = None;
        self.res.release(ns, 0, spares);
        self.drop_group(now, m.old);
    }
}
