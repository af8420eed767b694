//! A set of drives under one host: RAID-0 of zones. Logical zone `k` is zone `k` of every drive,
//! striped `stripe` LBAs at a time across them ([`Stripe`]: stripe `s` of the logical zone goes
//! to drive `s % drives`), so a logical zone holds `drives` times a drive zone's capacity (whole
//! stripes) and a zone-sequential host write becomes one sequential write per drive it touches.
//! Zone management reaches every drive's zone; a read is split per stripe. The drives are any
//! zoned [`DeviceModel`]s of one shape (the ZNS device, another layer, an array), each with its
//! own NAND and firmware, so one drive's erases hold up only the stripes on it.
//!
//! With `parity`, RAID-5 of zones ([`parity`]): each row of stripes holds `drives - 1` data
//! stripes and one parity stripe, on a drive that rotates from row to row.
//!
//! Chosen where no source says: no rebuild; a command fails as soon as one drive refuses its
//! part (parts already sent to other drives stay done, as on an array of real drives); die `d`
//! of the array is die `d % dies_per_drive` of drive `d / dies_per_drive`.

mod parity;

use crate::device::{
    Accepted, Command, Completed, Data, DeviceInfo, DeviceModel, DeviceReport, Op, Status,
    ZoneAction, ZoneState, ZonedInfo,
};
use crate::host::lzone::{self, Effect, LogicalZones, ZoneBackend};
use crate::host::static_zones::gather;
use crate::host::stripe::Stripe;
use crate::nand::DieSet;
use crate::time::{Duration, Instant};

/// A validated drive array: how many drives, how many LBAs go to one before the next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArraySpec {
    pub drives: u32,
    pub stripe_lbas: u64,
    /// One stripe of each row holds the parity of the others (RAID-5 of zones).
    pub parity: bool,
}

impl ArraySpec {
    /// Drives' worth of data in each row of stripes.
    pub fn data_drives(&self) -> u32 {
        self.drives - self.parity as u32
    }

    /// LBAs of one drive zone a logical zone uses: whole stripes.
    pub fn usable_lbas(&self, drive: &ZonedInfo) -> u64 {
        drive.zone_capacity_lbas / self.stripe_lbas * self.stripe_lbas
    }

    /// What the array presents over drives that each present `drive`.
    pub fn info(&self, drive: &DeviceInfo) -> DeviceInfo {
        let z = drive
            .zoned()
            .expect("the config refuses an array of conventional drives");
        let cap = self.usable_lbas(z) * self.data_drives() as u64;
        let size = cap.next_power_of_two();
        let raid = if self.parity { "RAID-5" } else { "RAID-0" };
        DeviceInfo {
            name: format!("{} drives of {} ({raid} of zones)", self.drives, drive.name),
            lba_size_bytes: drive.lba_size_bytes,
            namespace_lbas: size * z.zone_count as u64,
            namespaces: 1,
            zoned: Some(ZonedInfo {
                zone_size_lbas: size,
                zone_capacity_lbas: cap,
                zone_count: z.zone_count,
                // A logical zone holds one zone per drive, each opened by a write and closed by
                // the drive when it must: the active limit binds, so open = active.
                max_open_zones: z.max_active_zones,
                max_active_zones: z.max_active_zones,
                zone_append_size_limit_lbas: None,
            }),
        }
    }

    /// The prefill of each drive for `plan` (logical zone, LBAs written), and the drive zones
    /// to finish after it (filled up to their last whole stripe).
    pub fn drive_plans(&self, drive: &ZonedInfo, plan: &[(u32, u64)]) -> Vec<DrivePrefill> {
        let stripe = Stripe::new(self.drives, self.stripe_lbas);
        let full = self.usable_lbas(drive) * self.data_drives() as u64;
        (0..self.drives)
            .map(|i| {
                let mut p = DrivePrefill::default();
                for &(zone, lbas) in plan {
                    let on = if self.parity {
                        parity::on_drive(self, i, lbas)
                    } else {
                        stripe.on_zone(i, lbas)
                    };
                    if on > 0 {
                        p.zones.push((zone, on));
                    }
                    if lbas == full && on < drive.zone_capacity_lbas {
                        p.finish.push(zone);
                    }
                }
                p
            })
            .collect()
    }
}

/// One drive's part of a prefill.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DrivePrefill {
    pub zones: Vec<(u32, u64)>,
    pub finish: Vec<u32>,
}

pub struct DriveArray {
    spec: ArraySpec,
    drives: Vec<Box<dyn DeviceModel>>,
    info: DeviceInfo,
    lz: LogicalZones,
    stripe: Stripe,
    /// A drive zone's size and the LBAs of it a logical zone uses.
    drive_zone_lbas: u64,
    usable: u64,
    drive_cap: u64,
    lba_bytes: u64,
    dies_per_drive: u32,
    scratch: Vec<u8>,
    late: Vec<Completed>,
    /// RAID-5 of zones: the parity of each zone's row being written (with data retention),
    /// and the zones whose last, partial row got its parity when they were finished.
    parity: Option<parity::Parity>,
}

impl DriveArray {
    /// `drives` (zoned, all of one shape, empty), `dies_per_drive` dies each.
    pub fn new(drives: Vec<Box<dyn DeviceModel>>, spec: &ArraySpec, dies_per_drive: u32) -> Self {
        assert_eq!(drives.len(), spec.drives as usize, "one model per drive");
        let first = drives[0].info().clone();
        assert!(
            drives.iter().all(|d| d.info() == &first),
            "the drives of an array are of one shape"
        );
        let dz = first.zoned().expect("zoned drives").clone();
        let info = spec.info(&first);
        let z = info.zoned().expect("zoned").clone();
        let lz = LogicalZones::new(
            z.zone_count,
            z.zone_size_lbas,
            z.zone_capacity_lbas,
            z.max_active_zones.unwrap_or(z.zone_count),
        );
        let array = DriveArray {
            spec: spec.clone(),
            stripe: Stripe::new(spec.drives, spec.stripe_lbas),
            parity: spec.parity.then(|| parity::Parity::new(spec)),
            drive_zone_lbas: dz.zone_size_lbas,
            usable: spec.usable_lbas(&dz),
            drive_cap: dz.zone_capacity_lbas,
            lba_bytes: first.lba_size_bytes,
            dies_per_drive,
            scratch: Vec::new(),
            late: Vec::new(),
            drives,
            info,
            lz,
        };
        array.check_invariants();
        array
    }

    pub fn drives(&self) -> &[Box<dyn DeviceModel>] {
        &self.drives
    }

    fn drive_lba(&self, zone: u32, offset: u64) -> u64 {
        zone as u64 * self.drive_zone_lbas + offset
    }

    /// Where logical offset `x` of a zone lives: (drive, offset in its zone, LBAs left in the
    /// stripe).
    fn locate(&self, x: u64) -> (usize, u64, u64) {
        match &self.parity {
            Some(p) => p.locate(x),
            None => {
                let (drive, at, left) = self.stripe.locate(x);
                (drive as usize, at, left)
            }
        }
    }
}

impl ZoneBackend for DriveArray {
    fn zones(&mut self) -> &mut LogicalZones {
        &mut self.lz
    }

    fn lba_bytes(&self) -> u64 {
        self.lba_bytes
    }

    fn read(
        &mut self,
        now: Instant,
        zone: u32,
        offset: u64,
        nlb: u64,
        mut buf: Option<&mut [u8]>,
    ) -> Result<(Instant, Duration), Status> {
        let (mut done, mut wait) = (now, Duration::ZERO);
        let lba_bytes = self.lba_bytes;
        // Only written LBAs are on the drives (past them a drive zone's LBAs may be the next
        // logical zone's, beyond the last whole stripe); the rest reads as zeros.
        let written = self.lz.data(zone).clamp(offset, offset + nlb);
        if let Some(b) = buf.as_deref_mut() {
            b[((written - offset) * lba_bytes) as usize..].fill(0);
        }
        // Stripe by stripe; with parity, a stripe on an Offline drive zone is rebuilt from the
        // rest of its row (without parity such a logical zone is Offline and refused before).
        let mut x = offset;
        while x < written {
            let (drive, at, left) = self.locate(x);
            let len = left.min(written - x);
            let part = buf.as_deref_mut().map(|b| {
                &mut b
                    [((x - offset) * lba_bytes) as usize..((x - offset + len) * lba_bytes) as usize]
            });
            let lost = self.parity.is_some()
                && self.drives[drive].zone(0, zone).state == ZoneState::Offline;
            let (d, w) = if lost {
                self.rebuild(now, zone, drive, at, len, part)?
            } else {
                let mut cmd = Command::read(self.drive_lba(zone, at), len);
                if let Some(p) = part {
                    cmd = cmd.with_data(Data::In(p));
                }
                let a = self.drives[drive].submit(now, cmd)?;
                (lzone::at_submission(&a), a.erase_wait)
            };
            done = done.max(d);
            wait = wait.max(w);
            x += len;
        }
        Ok((done, wait))
    }

    fn peek(&self, zone: u32, offset: u64, buf: &mut [u8]) -> Result<(), Status> {
        let lba_bytes = self.lba_bytes;
        let written = self
            .lz
            .data(zone)
            .clamp(offset, offset + buf.len() as u64 / lba_bytes);
        buf[((written - offset) * lba_bytes) as usize..].fill(0);
        let mut x = offset;
        while x < written {
            let (drive, at, left) = self.locate(x);
            let len = left.min(written - x);
            let part = &mut buf
                [((x - offset) * lba_bytes) as usize..((x - offset + len) * lba_bytes) as usize];
            if self.parity.is_some() && self.drives[drive].zone(0, zone).state == ZoneState::Offline
            {
                self.rebuild_peek(zone, drive, at, part)?;
            } else {
                self.drives[drive].peek(0, self.drive_lba(zone, at), part)?;
            }
            x += len;
        }
        Ok(())
    }

    fn write(
        &mut self,
        now: Instant,
        zone: u32,
        offset: u64,
        nlb: u64,
        data: Option<&[u8]>,
    ) -> Result<(Instant, Duration), Status> {
        if self.parity.is_some() {
            return self.write_rows(now, zone, offset, nlb, data);
        }
        let (mut done, mut wait) = (now, Duration::ZERO);
        let end = offset + nlb;
        for r in self.stripe.runs(offset, end) {
            let slba = self.drive_lba(zone, r.offset);
            let mut cmd = Command::write(slba, r.len);
            let bytes = data.map(|d| {
                gather(
                    &mut self.scratch,
                    d,
                    &self.stripe,
                    r.index,
                    offset,
                    end,
                    0,
                    self.lba_bytes,
                )
            });
            if let Some(b) = bytes {
                cmd = cmd.with_data(Data::Out(b));
            }
            let a = self.drives[r.index as usize].submit(now, cmd)?;
            done = done.max(lzone::at_submission(&a));
            wait = wait.max(a.erase_wait);
        }
        if end == self.lz.cap_lbas() && self.usable < self.drive_cap {
            // The drive zones hold a partial stripe's room past the last whole stripe.
            done = done.max(self.manage(now, zone, Effect::Finish)?);
        }
        Ok((done, wait))
    }

    /// A logical zone's Finish or Reset on every drive's zone that needs it.
    fn manage(&mut self, now: Instant, zone: u32, effect: Effect) -> Result<Instant, Status> {
        let action = match effect {
            Effect::None => return Ok(now),
            Effect::Finish => ZoneAction::Finish,
            Effect::Reset => ZoneAction::Reset,
        };
        let mut done = now;
        if self.parity.is_some() {
            done = self.parity_at(now, zone, action)?;
        }
        for d in 0..self.drives.len() {
            let state = self.drives[d].zone(0, zone).state;
            let skip = match action {
                ZoneAction::Finish => state == ZoneState::Full,
                _ => state == ZoneState::Empty,
            };
            if !skip {
                let zslba = self.drive_lba(zone, 0);
                let a = self.drives[d].submit(now, Command::zone(action, zslba))?;
                done = done.max(lzone::at_submission(&a));
            }
        }
        Ok(done)
    }

    fn flush(&mut self, now: Instant) -> Result<Instant, Status> {
        let mut done = now;
        for d in &mut self.drives {
            done = done.max(lzone::at_submission(
                &d.submit(now, Command::new(Op::Flush, 0, 0))?,
            ));
        }
        Ok(done)
    }
}

impl DeviceModel for DriveArray {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn policy_name(&self) -> &'static str {
        self.drives[0].policy_name()
    }

    fn submit(&mut self, now: Instant, cmd: Command<'_>) -> Result<Accepted, Status> {
        lzone::submit(self, now, cmd)
    }

    fn has_background_work(&self) -> bool {
        self.drives.iter().any(|d| d.has_background_work())
    }

    fn advance(&mut self, now: Instant, _done: &mut Vec<Completed>) -> Option<Instant> {
        let mut next: Option<Instant> = None;
        for d in &mut self.drives {
            if let Some(t) = d.advance(now, &mut self.late) {
                next = Some(next.map_or(t, |n| n.min(t)));
            }
        }
        // The array completes every command at submission, so its drives report nothing late.
        debug_assert!(self.late.is_empty(), "a drive completed a command late");
        self.late.clear();
        next
    }

    lzone::zone_queries!();

    fn retains_data(&self) -> bool {
        self.drives[0].retains_data()
    }

    fn idle_at(&self) -> Instant {
        self.drives
            .iter()
            .map(|d| d.idle_at())
            .max()
            .unwrap_or(Instant::ZERO)
    }

    fn report(&self, now: Instant) -> DeviceReport {
        let mut reports = self.drives.iter().map(|d| d.report(now));
        let mut sum = reports.next().expect("an array has drives");
        for r in reports {
            merge(&mut sum, &r);
        }
        sum
    }

    fn reset_counters(&mut self) {
        for d in &mut self.drives {
            d.reset_counters();
        }
    }

    fn set_tracing(&mut self, on: bool) {
        for d in &mut self.drives {
            d.set_tracing(on);
        }
    }

    fn take_touched(&mut self) -> Option<DieSet> {
        let mut all: Option<DieSet> = None;
        for (i, d) in self.drives.iter_mut().enumerate() {
            if let Some(set) = d.take_touched() {
                let out = all.get_or_insert_with(DieSet::default);
                for die in set.iter() {
                    out.insert(i as u32 * self.dies_per_drive + die);
                }
            }
        }
        all
    }

    fn prefill_zones(&mut self, plan: &[(u32, u64)]) {
        let dz = self.drives[0].info().zoned().expect("zoned drives").clone();
        let parts = self.spec.drive_plans(&dz, plan);
        for (d, part) in self.drives.iter_mut().zip(&parts) {
            d.prefill_zones(&part.zones);
            for &z in &part.finish {
                let finish = Command::zone(ZoneAction::Finish, z as u64 * self.drive_zone_lbas);
                d.submit(Instant::ZERO, finish)
                    .expect("finish of a prefilled drive zone");
            }
        }
        for &(zone, lbas) in plan {
            self.lz.prefill(zone, lbas);
        }
        self.check_invariants();
    }

    fn check_invariants(&self) {
        self.lz.check();
        for d in &self.drives {
            d.check_invariants();
        }
        // An offline drive zone's data is gone from the drive.
        let whole = |z: u32| {
            self.drives
                .iter()
                .all(|d| d.zone(0, z).state != ZoneState::Offline)
        };
        for zone in (0..self.lz.count()).filter(|&z| whole(z)) {
            let on_drives: u64 = self.drives.iter().map(|d| d.written_lbas(0, zone)).sum();
            let data = self.lz.data(zone);
            let parity = self
                .parity
                .as_ref()
                .map_or(0, |p| p.parity_lbas(zone, data));
            assert_eq!(
                on_drives,
                data + parity,
                "logical zone {zone}: the drives hold its data and parity"
            );
        }
    }

    /// A zone fault on one drive: without parity the logical zone shares its fate; with
    /// parity it stays readable (rebuilt from the other drives) but takes no more writes, until
    /// a second drive's zone goes offline.
    fn inject_drive_fault(
        &mut self,
        drive: u32,
        zone: u32,
        state: ZoneState,
    ) -> Result<(), Status> {
        if zone >= self.lz.count() {
            return Err(Status::LbaOutOfRange);
        }
        let d = self
            .drives
            .get_mut(drive as usize)
            .ok_or(Status::InvalidField)?;
        d.inject_fault(zone, state)?;
        let offline = self
            .drives
            .iter()
            .filter(|d| d.zone(0, zone).state == ZoneState::Offline)
            .count();
        let logical = match (self.parity.is_some(), state) {
            (_, ZoneState::Offline) if self.parity.is_none() || offline > 1 => ZoneState::Offline,
            _ => ZoneState::ReadOnly,
        };
        if self.lz.state(zone) != ZoneState::Offline {
            self.lz.force(zone, logical);
        }
        Ok(())
    }

    /// A zone fault takes logical zone `zone` into `state` on every drive.
    fn inject_fault(&mut self, zone: u32, state: ZoneState) -> Result<(), Status> {
        if zone >= self.lz.count() {
            return Err(Status::LbaOutOfRange);
        }
        for d in &mut self.drives {
            d.inject_fault(zone, state)?;
        }
        self.lz.force(zone, state);
        Ok(())
    }

    fn slow_die(&mut self, die: u32, permille: u32) -> Result<(), Status> {
        let drive = (die / self.dies_per_drive) as usize;
        match self.drives.get_mut(drive) {
            Some(d) => d.slow_die(die % self.dies_per_drive, permille),
            None => Err(Status::InvalidField),
        }
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Adds drive report `r` to the array's `sum`: counters, NAND work, energy and wear add up;
/// the erase waits merge; the firmware report is the first drive's.
fn merge(sum: &mut DeviceReport, r: &DeviceReport) {
    sum.counters += &r.counters;
    sum.nand += &r.nand;
    sum.energy += &r.energy;
    sum.wear.merge(&r.wear);
    sum.erase_wait
        .add(&r.erase_wait)
        .expect("erase-wait histograms of one shape");
}

/// An array of `spec.drives` devices from `make`, each prefilled with its part of `prefill`
/// (one namespace: (logical zone, LBAs)).
pub fn build(
    spec: &ArraySpec,
    make: &mut dyn FnMut() -> crate::zns::Device,
    prefill: &[(u32, Vec<(u32, u64)>)],
) -> DriveArray {
    let plan: Vec<(u32, u64)> = prefill.iter().flat_map(|(_, p)| p.clone()).collect();
    let mut drives: Vec<Box<dyn DeviceModel>> = Vec::new();
    let mut dies = 0;
    for _ in 0..spec.drives {
        let dev = make();
        dies = dev.spec().nand.geometry.dies();
        drives.push(Box::new(dev));
    }
    let mut array = DriveArray::new(drives, spec, dies);
    array.prefill_zones(&plan);
    array
}

#[cfg(test)]
mod tests;
