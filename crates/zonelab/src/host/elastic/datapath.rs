//! The data plane: host reads and writes through the scheduler to the device, and the queued
//! work `advance` dispatches.
//!
//! A write goes to the device at once when its v-zone has nothing queued and (with admission
//! control) its tokens cover it; otherwise it waits in the v-zone's queue until a token refresh
//! lets it go. A read is split per stripe; each stripe read goes at once while its group's
//! window has room and nothing is queued ahead of it, otherwise it waits for the window. Queued
//! work of several namespaces is dispatched in weighted round-robin order.

use std::cmp::Reverse;

use super::Elastic;
use super::sched::read_cc::QueuedRead;
use super::vzone::{GroupId, Queued};
use crate::device::Status;
use crate::host::lzone::Effect;
use crate::host::static_zones::gather;
use crate::time::Instant;

impl Elastic {
    /// A host write (or append) to namespace `ns`: returns its completion (None: queued) and
    /// the LBA written.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn write(
        &mut self,
        now: Instant,
        ns: u32,
        slba: u64,
        nlb: u64,
        data: Option<&[u8]>,
        append: bool,
        tag: u64,
    ) -> Result<(Option<Instant>, u64), Status> {
        let (zone, offset) = self.lz[ns as usize].write(slba, nlb, append)?;
        self.last_write[ns as usize] = (now, self.global.cycle);
        let vid = self.vid(ns, zone);
        let lba = zone as u64 * self.lz[ns as usize].zone_lbas() + offset;
        if self.spec.sched.write_admission {
            self.adm.monitor(now);
        }
        let free = {
            let vz = &self.vz[vid as usize];
            vz.queue.is_empty() && vz.migration.is_none()
        };
        if free && self.group_ready(vid, offset) && self.admit(now, vid, nlb) {
            return Ok((Some(self.dispatch_write(now, vid, offset, nlb, data)), lba));
        }
        self.vz[vid as usize].queue.push_back(Queued::Write {
            tag,
            offset,
            nlb,
            data: data.map(<[u8]>::to_vec),
        });
        self.stats.writes_queued += 1;
        self.defer(tag, 1, now);
        self.mark_waiting(now, vid);
        Ok((None, lba))
    }

    /// Whether v-zone `vid`'s tokens cover `nlb` now (taking them); always with admission off.
    fn admit(&mut self, now: Instant, vid: u32, nlb: u64) -> bool {
        if !self.spec.sched.write_admission {
            return true;
        }
        let width = self.vz[vid as usize]
            .open_group(&self.groups)
            .map_or(self.base, |g| self.group(g).width());
        self.adm
            .admit(&mut self.vz[vid as usize].bucket, width, nlb, now)
    }

    /// V-zone `vid` has queued work: it is looked at on every token refresh.
    pub(super) fn mark_waiting(&mut self, now: Instant, vid: u32) {
        if self.vz[vid as usize].waiting {
            return;
        }
        self.vz[vid as usize].waiting = true;
        if self.write_waiting.is_empty() {
            self.next_tick = self.adm.next_refresh(now);
        }
        self.write_waiting.push(vid);
        self.want_wake(self.next_tick);
    }

    /// Sends v-zone `vid`'s LBAs `offset .. offset + nlb` to the device, opening groups as the
    /// write reaches them and closing those it fills. One device write per physical zone per
    /// group. Returns when the last device write completes.
    pub(super) fn dispatch_write(
        &mut self,
        now: Instant,
        vid: u32,
        offset: u64,
        nlb: u64,
        data: Option<&[u8]>,
    ) -> Instant {
        let ns = vid / self.per_ns;
        let end = offset + nlb;
        let mut pos = offset;
        let mut done = now;
        let lba_bytes = self.hal.lba_bytes;
        while pos < end {
            let g = match self.vz[vid as usize].open_group(&self.groups) {
                Some(g) if (self.group(g).start..self.group(g).end()).contains(&pos) => g,
                _ => self.open_group(now, ns, vid, pos),
            };
            let (stripe, start, cap) = {
                let gr = self.group(g);
                (gr.stripe, gr.start, gr.cap)
            };
            assert_eq!(
                start + self.group(g).written,
                pos,
                "writes continue the group"
            );
            let x0 = pos - start;
            let x1 = (end - start).min(cap);
            for run in stripe.runs(x0, x1) {
                let pz = self.group(g).pzs[run.index as usize];
                let slba = self.hal.data_lba(pz, run.offset);
                let bytes = data.map(|d| {
                    gather(
                        &mut self.scratch,
                        d,
                        &stripe,
                        run.index,
                        x0,
                        x1,
                        pos - offset,
                        lba_bytes,
                    )
                });
                let d = self
                    .dev
                    .write(now, slba, run.len, bytes)
                    .expect("a v-zone write lands at its physical zone's write pointer");
                done = done.max(d);
                if self.spec.sched.write_admission {
                    self.adm.record(vid, now, d, run.len);
                }
            }
            self.group_mut(g).written = x1;
            pos = start + x1;
            if x1 == cap {
                self.close_group(now, g);
            }
        }
        self.vz[vid as usize].dispatched = pos;
        if pos == self.lz[ns as usize].cap_lbas() {
            self.disengage(vid);
        }
        done
    }

    /// A host read of namespace `ns`: its completion, or None if some stripe reads wait for
    /// their group's window.
    pub(super) fn read(
        &mut self,
        now: Instant,
        ns: u32,
        slba: u64,
        nlb: u64,
        mut buf: Option<&mut [u8]>,
        tag: u64,
    ) -> Result<Option<Instant>, Status> {
        let (zone, offset) = self.lz[ns as usize].read(slba, nlb)?;
        let vid = self.vid(ns, zone);
        let end = offset + nlb;
        let data_end = self.lz[ns as usize].data(zone);
        let on_device = end.min(self.vz[vid as usize].dispatched);
        let mut done = now;
        let mut parts = 0;
        let mut pos = offset;
        while pos < on_device {
            let (g, gstart) = self
                .read_group(&self.vz[vid as usize], pos)
                .expect("data on the device has a group");
            let seg_end = match self.vz[vid as usize].read_from {
                Some((old, _, e)) if old == g => e,
                _ => self.group(g).end(),
            }
            .min(on_device);
            self.read_chunks(
                now,
                g,
                (pos - gstart, seg_end - gstart),
                gstart,
                offset,
                &mut buf,
                tag,
                &mut parts,
                &mut done,
            );
            pos = seg_end;
        }
        if let Some(b) = buf
            && pos < end
        {
            let lba_bytes = self.hal.lba_bytes;
            let at = ((pos - offset) * lba_bytes) as usize;
            self.copy_pending(vid, pos, end.min(data_end.max(pos)), offset, b, at);
        }
        if parts > 0 {
            self.defer(tag, parts, done);
            return Ok(None);
        }
        Ok(Some(done))
    }

    /// The stripe reads of group `g`'s range `x`; those that must wait join the group's queue.
    #[allow(clippy::too_many_arguments)]
    fn read_chunks(
        &mut self,
        now: Instant,
        g: GroupId,
        x: (u64, u64),
        gstart: u64,
        offset: u64,
        buf: &mut Option<&mut [u8]>,
        tag: u64,
        parts: &mut u32,
        done: &mut Instant,
    ) {
        let cc_on = self.spec.sched.read_cc;
        let params = self.spec.sched.cc;
        let lba_bytes = self.hal.lba_bytes;
        let hal = self.hal;
        let gr = self.groups[g as usize].as_mut().expect("a live group");
        if cc_on {
            gr.cc.complete_until(now, &params);
        }
        let stripe = gr.stripe;
        let mut queued = 0;
        for c in stripe.chunks(x.0, x.1) {
            let slba = hal.data_lba(gr.pzs[c.index as usize], c.offset);
            let at = ((gstart + c.logical - offset) * lba_bytes) as usize;
            let part = buf
                .as_deref_mut()
                .map(|b| &mut b[at..at + (c.len * lba_bytes) as usize]);
            if !cc_on || (gr.cc.queue.is_empty() && gr.cc.can_send()) {
                let d = self
                    .dev
                    .read(now, slba, c.len, part)
                    .expect("a stripe read inside a physical zone");
                *done = (*done).max(d);
                if cc_on {
                    gr.cc.sent(now, d);
                }
            } else {
                if let Some(p) = part {
                    self.dev.peek(slba, p);
                }
                gr.cc.queue.push_back(QueuedRead {
                    tag,
                    slba,
                    nlb: c.len,
                });
                queued += 1;
            }
        }
        if queued > 0 {
            let t = gr.cc.next_completion().unwrap_or(now);
            *parts += queued;
            self.stats.reads_queued += queued as u64;
            self.read_wakes.push(Reverse((t, g)));
            self.want_wake(t);
        }
    }

    /// Fills `buf[at..]` for v-zone `vid`'s LBAs `from .. to` (not on the device yet) from the
    /// writes waiting in its queue, and zeros past them up to the buffer's end.
    fn copy_pending(&self, vid: u32, from: u64, to: u64, offset: u64, buf: &mut [u8], at: usize) {
        let lba_bytes = self.hal.lba_bytes;
        buf[at..].fill(0);
        for q in &self.vz[vid as usize].queue {
            if let Queued::Write {
                offset: o,
                nlb,
                data: Some(d),
                ..
            } = q
            {
                let lo = from.max(*o);
                let hi = to.min(o + nlb);
                if lo < hi {
                    let src = ((lo - o) * lba_bytes) as usize;
                    let dst = ((lo - offset) * lba_bytes) as usize;
                    let len = ((hi - lo) * lba_bytes) as usize;
                    buf[dst..dst + len].copy_from_slice(&d[src..src + len]);
                }
            }
        }
    }

    /// Sends every read queued for group `g` now (its zones are about to be reset).
    pub(super) fn flush_reads(&mut self, now: Instant, g: GroupId) {
        let queue = std::mem::take(
            &mut self.groups[g as usize]
                .as_mut()
                .expect("a live group")
                .cc
                .queue,
        );
        for r in queue {
            let d = self
                .dev
                .read(now, r.slba, r.nlb, None)
                .expect("a queued stripe read");
            self.complete_part(r.tag, d);
        }
    }

    /// `advance`'s work at `now`: monitor readings, reclaim switches, queued reads whose window
    /// opened, queued writes at a token refresh. Sets the next wake-up.
    pub(super) fn run_due(&mut self, now: Instant) {
        self.wake = None;
        if self.spec.sched.write_admission {
            self.adm.monitor(now);
        }
        self.step_migrations(now);
        let mut due: Vec<GroupId> = Vec::new();
        while let Some(&Reverse((t, g))) = self.read_wakes.peek() {
            if t > now {
                break;
            }
            self.read_wakes.pop();
            if !due.contains(&g) {
                due.push(g);
            }
        }
        let writes_due = !self.write_waiting.is_empty() && now >= self.next_tick;
        if !due.is_empty() || writes_due {
            self.dispatch_round(now, &due, writes_due);
        }
        for &g in &due {
            if let Some(gr) = &self.groups[g as usize]
                && !gr.cc.queue.is_empty()
            {
                let t = gr.cc.next_completion().unwrap_or(now);
                self.read_wakes.push(Reverse((t, g)));
            }
        }
        if writes_due {
            let vz = &self.vz;
            self.write_waiting.retain(|&v| vz[v as usize].waiting);
            self.write_waiting.sort_unstable();
            self.write_waiting.dedup();
            self.next_tick = self.adm.next_refresh(now);
        }
        if let Some(&Reverse((t, _))) = self.read_wakes.peek() {
            self.want_wake(t);
        }
        if !self.write_waiting.is_empty() {
            self.want_wake(self.next_tick);
        }
        let switches: Vec<Instant> = self
            .migrations
            .iter()
            .flatten()
            .filter_map(|m| m.copy_done)
            .collect();
        for t in switches {
            self.want_wake(t);
        }
    }

    /// Dispatches queued reads of the `due` groups and (at a token refresh) queued writes, in
    /// weighted round-robin order across namespaces.
    fn dispatch_round(&mut self, now: Instant, due: &[GroupId], writes_due: bool) {
        let n = self.spec.namespaces as usize;
        let params = self.spec.sched.cc;
        let mut reads: Vec<Vec<GroupId>> = vec![Vec::new(); n];
        for &g in due {
            if let Some(gr) = self.groups[g as usize].as_mut() {
                gr.cc.complete_until(now, &params);
                reads[gr.ns as usize].push(g);
            }
        }
        let mut writes: Vec<Vec<u32>> = vec![Vec::new(); n];
        if writes_due {
            for &vid in &self.write_waiting {
                writes[(vid / self.per_ns) as usize].push(vid);
            }
        }
        let mut cursors = vec![(0usize, 0usize); n];
        loop {
            let mut progress = false;
            let order: Vec<usize> = self.wrr.round().collect();
            for ns in order {
                for _ in 0..self.wrr.weight(ns) {
                    let sent = self.dispatch_one_read(now, &reads[ns], &mut cursors[ns].0)
                        || self.dispatch_one_write(now, &writes[ns], &mut cursors[ns].1);
                    if !sent {
                        break;
                    }
                    progress = true;
                }
            }
            if !progress {
                break;
            }
        }
    }

    fn dispatch_one_read(&mut self, now: Instant, groups: &[GroupId], cursor: &mut usize) -> bool {
        for k in 0..groups.len() {
            let i = (*cursor + k) % groups.len();
            let Some(gr) = self.groups[groups[i] as usize].as_mut() else {
                continue;
            };
            if gr.cc.queue.is_empty() || !gr.cc.can_send() {
                continue;
            }
            let r = gr.cc.queue.pop_front().expect("a queued read");
            let d = self
                .dev
                .read(now, r.slba, r.nlb, None)
                .expect("a queued stripe read");
            gr.cc.sent(now, d);
            self.complete_part(r.tag, d);
            *cursor = (i + 1) % groups.len();
            return true;
        }
        false
    }

    fn dispatch_one_write(&mut self, now: Instant, vids: &[u32], cursor: &mut usize) -> bool {
        for k in 0..vids.len() {
            let i = (*cursor + k) % vids.len();
            if self.dispatch_head(now, vids[i], false) {
                *cursor = (i + 1) % vids.len();
                return true;
            }
        }
        false
    }

    /// Dispatches the head of v-zone `vid`'s queue if it may go now (`forced`: whatever its
    /// tokens, for a finish behind it).
    pub(super) fn dispatch_head(&mut self, now: Instant, vid: u32, forced: bool) -> bool {
        let vz = &self.vz[vid as usize];
        let migrating = vz.migration.is_some();
        let ok = match vz.queue.front() {
            None => false,
            Some(&Queued::Write { offset, nlb, .. }) => {
                !migrating && self.group_ready(vid, offset) && (forced || self.admit(now, vid, nlb))
            }
            Some(&Queued::Copy { migration, nlb, .. }) => {
                let ready = self.migrations[migration as usize]
                    .as_ref()
                    .expect("a live migration")
                    .copy_ready;
                forced || (now >= ready && self.admit(now, vid, nlb))
            }
            Some(Queued::Finish { .. }) => !migrating,
        };
        if !ok {
            if self.vz[vid as usize].queue.is_empty() {
                self.vz[vid as usize].waiting = false;
            }
            return false;
        }
        let item = self.vz[vid as usize]
            .queue
            .pop_front()
            .expect("the head just looked at");
        match item {
            Queued::Write {
                tag,
                offset,
                nlb,
                data,
            } => {
                // The namespace writes now, whenever the host sent this: a group opened for it
                // must not look idle to reclaim while the write goes in (it was reclaimed
                // empty under the write, which then wrote to a dropped group).
                self.last_write[(vid / self.per_ns) as usize] = (now, self.global.cycle);
                let done = self.dispatch_write(now, vid, offset, nlb, data.as_deref());
                self.complete_part(tag, done);
            }
            Queued::Copy {
                migration,
                offset,
                nlb,
                data,
            } => {
                let done = self.dispatch_write(now, vid, offset, nlb, data.as_deref());
                self.migrations[migration as usize]
                    .as_mut()
                    .expect("a live migration")
                    .copy_done = Some(done);
                self.want_wake(done);
            }
            Queued::Finish { tag } => {
                let done = self.realise(now, vid, Effect::Finish);
                self.complete_part(tag, done);
            }
        }
        if self.vz[vid as usize].queue.is_empty() {
            self.vz[vid as usize].waiting = false;
        }
        true
    }
}
