//! fio-like jobs (the workload generator of Shin et al., NVMSA 2020, section III) that drive the
//! device the way fio's `zonemode=zbd` does. Writes go to the write pointer of a zone the job holds
//! open; at most `max_open_zones` are held; a full zone the job must write again is reset first
//! (after the job's in-flight I/O drains, as fio does); `zone_reset_threshold` and
//! `zone_reset_frequency` add resets once enough of the region holds data; random reads land only
//! below write pointers. A zone with less room left than one block is finished (as fio 3.36 does).

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::{JobSpec, Next, Request, StopReason, ZoneFillAction, mix_seed};
use crate::device::{DeviceModel, Op, ZoneAction, ZoneState};
use crate::divisor::Divisor;

/// Host data a read may return from `zone` of namespace `nsid` (none from an Offline zone).
fn readable_lbas(device: &dyn DeviceModel, nsid: u32, zone: u32) -> u64 {
    device.written_lbas(nsid, zone)
}

/// The generator state of one clone of a job.
pub struct JobGen {
    spec: JobSpec,
    rng: Pcg64Mcg,
    /// Zones this clone works in: [first, end).
    first: u32,
    end: u32,
    bs: u64,
    /// `bs` as a divisor, and how many blocks of it a zone's capacity holds.
    bs_div: Divisor,
    blocks_per_zone: u64,
    /// Sequential position: zone and LBA offset in it.
    seq_zone: u32,
    seq_offset: u64,
    /// Zones held open for writing, and which zones of the range they are.
    open: Vec<u32>,
    is_open: Vec<bool>,
    /// The zone size in LBAs, as a divisor.
    zone_lbas: Divisor,
    cap_lbas: u64,
    /// The device occupancy epoch at which a search for a zone to open found none; no zone can
    /// become writable again before the next reset, which changes the epoch.
    no_spare_zone_at: Option<u64>,
    /// A zone to reset (or finish, leaving it at `zone_fill`) once in-flight I/O drains.
    pending: Option<(u32, ZoneAction)>,
    /// LBAs written in the region (fio's wp_sectors_with_data).
    region_data_lbas: u64,
    region_lbas: u64,
    /// Countdown to the next threshold reset (fio's write_cnt).
    reset_countdown: u64,
    /// Zones holding at least one block, for random reads; rebuilt when the device's zone
    /// occupancy changes.
    readable: Vec<u32>,
    readable_epoch: Option<u64>,
    /// Random reads ask the device to prefetch the next zone's state (over enough zones that it
    /// is not all in the CPU cache anyway).
    prefetch: bool,
}

/// Zones a random reader spans before it asks for prefetches (chosen: 4096 zones of state are
/// about half a MiB, about what a core's L2 cache holds beside the rest of the simulation).
const PREFETCH_MIN_ZONES: u32 = 4096;

impl JobGen {
    /// Clone `clone` of `spec`: writers get an equal slice of the job's zones, readers all of them.
    pub fn new(
        spec: &JobSpec,
        clone: u32,
        seed: u64,
        stream: u64,
        device: &dyn DeviceModel,
    ) -> Self {
        let zoned = device
            .info()
            .zoned()
            .expect("fio zoned jobs run on zoned devices (checked by config)");
        let (zone_lbas, cap_lbas) = (zoned.zone_size_lbas, zoned.zone_capacity_lbas);
        let (first, end) = if spec.rw.writes() {
            let per = spec.zone_count / spec.numjobs;
            let first = spec.first_zone + clone * per;
            let end = if clone + 1 == spec.numjobs {
                spec.first_zone + spec.zone_count
            } else {
                first + per
            };
            (first, end)
        } else {
            (spec.first_zone, spec.first_zone + spec.zone_count)
        };
        let mut g = JobGen {
            rng: Pcg64Mcg::seed_from_u64(mix_seed(seed, stream)),
            first,
            end,
            bs: spec.block_lbas,
            bs_div: Divisor::new(spec.block_lbas),
            blocks_per_zone: cap_lbas / spec.block_lbas,
            seq_zone: first,
            seq_offset: 0,
            open: Vec::new(),
            is_open: vec![false; (end - first) as usize],
            zone_lbas: Divisor::new(zone_lbas),
            cap_lbas,
            no_spare_zone_at: None,
            pending: None,
            region_data_lbas: 0,
            region_lbas: (end - first) as u64 * cap_lbas,
            reset_countdown: 0,
            readable: Vec::new(),
            readable_epoch: None,
            prefetch: end - first >= PREFETCH_MIN_ZONES,
            spec: spec.clone(),
        };
        g.region_data_lbas = (first..end)
            .map(|z| device.written_lbas(spec.nsid, z))
            .sum();
        g.rearm_reset_countdown();
        g
    }

    fn rearm_reset_countdown(&mut self) {
        let f = self.spec.zone_reset_frequency;
        self.reset_countdown = if f > 0.0 {
            (1.0 / f).round().max(1.0) as u64
        } else {
            u64::MAX
        };
    }

    fn can_write(&self, device: &dyn DeviceModel, zone: u32) -> bool {
        let d = device.zone(self.spec.nsid, zone);
        !matches!(
            d.state,
            ZoneState::Full | ZoneState::ReadOnly | ZoneState::Offline
        ) && self.cap_lbas - (d.wp - d.zslba) >= self.bs
    }

    /// The zone still holds an active resource the writer must release: open or closed,
    /// below its capacity (a Finish releases it when less than a block is left).
    fn unfinished(&self, device: &dyn DeviceModel, zone: u32) -> bool {
        let d = device.zone(self.spec.nsid, zone);
        !matches!(
            d.state,
            ZoneState::Full | ZoneState::ReadOnly | ZoneState::Offline | ZoneState::Empty
        ) && d.wp - d.zslba < self.cap_lbas
    }

    fn hold_open(&mut self, zone: u32) {
        self.open.push(zone);
        self.is_open[(zone - self.first) as usize] = true;
    }

    fn let_go(&mut self, zone: u32) {
        if let Some(i) = self.open.iter().position(|&z| z == zone) {
            self.open.swap_remove(i);
            self.is_open[(zone - self.first) as usize] = false;
        }
    }

    fn holds_open(&self, zone: u32) -> bool {
        self.is_open[(zone - self.first) as usize]
    }

    /// The next command, given the device as it is now and the job's in-flight count.
    pub fn next(&mut self, device: &dyn DeviceModel, inflight: u32) -> Next {
        if self.pending.is_none() {
            let next = self.choose(device);
            if self.pending.is_none() {
                return next;
            }
        }
        if inflight > 0 {
            return Next::Drain;
        }
        let (zone, action) = self.pending.take().expect("a zone action is pending");
        if action == ZoneAction::Reset {
            self.region_data_lbas -= device.written_lbas(self.spec.nsid, zone);
        }
        Next::Issue(Request::zone(action, zone as u64 * self.zone_lbas.get()))
    }

    fn choose(&mut self, device: &dyn DeviceModel) -> Next {
        let read = match self.spec.read_percent {
            100 => true,
            0 => false,
            p => self.rng.random_range(0..100) < p,
        };
        if read {
            let next = if self.spec.rw.random() {
                self.random_read(device)
            } else {
                self.sequential_read(device)
            };
            // A mixed job with nothing to read yet writes instead.
            if !(matches!(next, Next::Done(_)) && self.spec.rw.writes()) {
                return next;
            }
        }
        if self.spec.rw.random() {
            self.random_write(device)
        } else {
            self.sequential_write(device)
        }
    }

    /// Tells the generator the device accepted one of its commands. `device` is asked only
    /// after an append or a finish (how much of the zone is written, whether it takes another
    /// block); after a write the command tells (a debug build checks it against the device).
    pub fn issued(&mut self, device: &dyn DeviceModel, request: Request) {
        match request.op {
            Op::Write | Op::Append => self.region_data_lbas += request.nlb,
            Op::ZoneMgmt(ZoneAction::Finish) => {}
            _ => return,
        }
        let zone = self.zone_lbas.quot(request.slba) as u32;
        // A write the device accepted went to the write pointer, which is now past it, and
        // left the zone open or Full (at capacity): neither needs a query (an append's LBA,
        // and a finish, are the device's to say).
        let (written, writable) = if request.op == Op::Write {
            let written = request.slba + request.nlb - zone as u64 * self.zone_lbas.get();
            debug_assert_eq!(written, device.written_lbas(self.spec.nsid, zone));
            // A zone left with room below one block is not done with: the writer's next
            // command for it is the Finish that releases its active resource (`write_into`).
            // Moving on without it left the zone active, and the next zone opened past the
            // device's active limit (issue 36, defect 7).
            (written, written < self.cap_lbas)
        } else {
            // (After an append too: a zone with room below one block waits for its Finish.)
            (
                device.written_lbas(self.spec.nsid, zone),
                self.unfinished(device, zone),
            )
        };
        if let Some(fill) = self.spec.zone_fill_lbas
            && zone == self.seq_zone
            && written >= fill
        {
            // Used as far as the job uses zones: leave it (reset or abandoned) and move on.
            self.advance_seq_zone();
            self.pending = match self.spec.zone_fill_action {
                ZoneFillAction::Reset => Some((zone, ZoneAction::Reset)),
                ZoneFillAction::Finish => Some((zone, ZoneAction::Finish)),
                ZoneFillAction::Abandon => None,
            };
            return;
        }
        if !writable {
            // Filled: a sequential writer moves on, a random writer lets the zone go.
            self.let_go(zone);
            if zone == self.seq_zone {
                self.advance_seq_zone();
            }
        }
    }

    fn random_read(&mut self, device: &dyn DeviceModel) -> Next {
        let epoch = device.occupancy_epoch();
        if self.readable_epoch != Some(epoch) {
            let bs = self.bs;
            self.readable = (self.first..self.end)
                .filter(|&z| readable_lbas(device, self.spec.nsid, z) >= bs)
                .collect();
            self.readable_epoch = Some(epoch);
        }
        if self.readable.is_empty() {
            return Next::Done(StopReason::NoDataToRead);
        }
        let zone = self.readable[self.rng.random_range(0..self.readable.len())];
        let blocks_written = self
            .bs_div
            .quot(readable_lbas(device, self.spec.nsid, zone));
        if blocks_written == 0 {
            // Written below one block since the list was built; rebuild next time.
            self.readable_epoch = None;
            return self.random_read(device);
        }
        let mut block = self.rng.random_range(0..self.blocks_per_zone);
        if block >= blocks_written {
            block %= blocks_written;
        }
        let slba = zone as u64 * self.zone_lbas.get() + block * self.bs;
        if self.prefetch && self.spec.read_percent == 100 {
            // The next request's zone is the generator's next draw: ask the device to fetch its
            // state now, so it is in the CPU cache by then (the generator itself is untouched).
            let next = self.readable[self.rng.clone().random_range(0..self.readable.len())];
            device.prefetch_zone(self.spec.nsid, next);
        }
        Next::Issue(Request::new(Op::Read, slba, self.bs))
    }

    fn sequential_read(&mut self, device: &dyn DeviceModel) -> Next {
        for _ in 0..=(self.end - self.first) {
            let data = readable_lbas(device, self.spec.nsid, self.seq_zone);
            if self.seq_offset + self.bs <= data {
                let slba = self.seq_zone as u64 * self.zone_lbas.get() + self.seq_offset;
                self.seq_offset += self.bs;
                return Next::Issue(Request::new(Op::Read, slba, self.bs));
            }
            self.advance_seq_zone();
        }
        Next::Done(StopReason::NoDataToRead)
    }

    fn advance_seq_zone(&mut self) {
        self.seq_offset = 0;
        self.seq_zone = if self.seq_zone + 1 >= self.end {
            self.first
        } else {
            self.seq_zone + 1
        };
    }

    fn sequential_write(&mut self, device: &dyn DeviceModel) -> Next {
        for _ in 0..=(self.end - self.first) {
            let zone = self.seq_zone;
            if let Some(fill) = self.spec.zone_fill_lbas
                && device.written_lbas(self.spec.nsid, zone) >= fill
                && (device.zone(self.spec.nsid, zone).state != ZoneState::Full
                    || self.spec.zone_fill_action == ZoneFillAction::Finish)
            {
                // A zone left at its fill on an earlier pass: reset it, then write it again.
                return self.reset_first(zone);
            }
            match self.write_into(device, zone) {
                Some(next) => return next,
                None => self.advance_seq_zone(),
            }
        }
        Next::Done(StopReason::NoWritableZone)
    }

    fn random_write(&mut self, device: &dyn DeviceModel) -> Next {
        let span = self.end - self.first;
        let pick = self.first + self.rng.random_range(0..span);
        let zone = if self.holds_open(pick) {
            pick
        } else if (self.open.len() as u32) < self.spec.max_open_zones {
            let epoch = device.occupancy_epoch();
            let found = if self.no_spare_zone_at == Some(epoch) {
                None
            } else {
                let found = (0..span)
                    .map(|i| self.first + (pick - self.first + i) % span)
                    .find(|&z| !self.holds_open(z) && self.can_write(device, z));
                if found.is_none() {
                    self.no_spare_zone_at = Some(epoch);
                }
                found
            };
            match found {
                Some(z) => {
                    self.hold_open(z);
                    z
                }
                None if !self.open.is_empty() => {
                    self.open[self.rng.random_range(0..self.open.len())]
                }
                None => {
                    // Every zone is full: wrap around, resetting the picked zone.
                    self.hold_open(pick);
                    pick
                }
            }
        } else {
            self.open[self.rng.random_range(0..self.open.len())]
        };
        self.write_into(device, zone)
            .unwrap_or(Next::Done(StopReason::NoWritableZone))
    }

    /// A write (or the reset or finish it needs first) into `zone`; `None` if the zone cannot
    /// take writes at all (Read Only, Offline).
    fn write_into(&mut self, device: &dyn DeviceModel, zone: u32) -> Option<Next> {
        let d = device.zone(self.spec.nsid, zone);
        let zslba = d.zslba;
        let used = d.wp - zslba;
        match d.state {
            ZoneState::ReadOnly | ZoneState::Offline => return None,
            ZoneState::Full => return Some(self.reset_first(zone)),
            _ => {}
        }
        if self.threshold_reset_due() && used > 0 {
            return Some(self.reset_first(zone));
        }
        if self.cap_lbas - used < self.bs {
            return Some(Next::Issue(Request::zone(ZoneAction::Finish, zslba)));
        }
        Some(Next::Issue(if self.spec.zone_append {
            Request::new(Op::Append, zslba, self.bs)
        } else {
            Request::new(Op::Write, d.wp, self.bs)
        }))
    }

    /// fio's rule: once the region's data passes the threshold, every 1/frequency-th write
    /// resets its zone first.
    fn threshold_reset_due(&mut self) -> bool {
        if self.spec.zone_reset_frequency <= 0.0
            || (self.region_data_lbas as f64)
                < self.region_lbas as f64 * self.spec.zone_reset_threshold
        {
            return false;
        }
        self.reset_countdown -= 1;
        if self.reset_countdown == 0 {
            self.rearm_reset_countdown();
            return true;
        }
        false
    }

    fn reset_first(&mut self, zone: u32) -> Next {
        self.pending = Some((zone, ZoneAction::Reset));
        Next::Drain
    }
}
