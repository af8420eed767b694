//! RAID-5 of zones: row `r` of a logical zone is stripe `r` of every drive's zone; `drives - 1`
//! of them hold data and one, on drive `drives - 1 - r % drives` (rotating left, as Linux md's
//! default left-symmetric layout), their parity. Data stripe `k` of row `r` sits on the drive
//! after the parity one, wrapping (`(p + 1 + k) % drives`).
//!
//! Zones are written in order, so a row's parity is known once its last data stripe is: the
//! array XORs each row's data as it comes (in host memory, with data retention) and writes the
//! parity stripe when the row completes, or, for a last partial row, when the zone is finished.
//! Until then the partial row has no parity (chosen: RAIZN and ZRAID write partial parity to a
//! separate log, not modelled here). A read of a stripe whose drive zone is Offline is rebuilt
//! from the rest of its row (every other drive read, the bytes XORed); a row without parity
//! yet, or with two stripes gone, is an Unrecovered Read Error.

use std::collections::{BTreeMap, BTreeSet};

use super::{ArraySpec, DriveArray};
use crate::device::{Command, Data, Status, ZoneAction, ZoneState};
use crate::host::lzone::{self, Effect, ZoneBackend};
use crate::time::{Duration, Instant};

/// The array's parity bookkeeping.
pub(super) struct Parity {
    drives: u64,
    stripe_lbas: u64,
    /// Per zone, the XOR of its current row's data written so far (data retention only).
    partial: BTreeMap<u32, Vec<u8>>,
    /// Zones whose last, partial row got its parity at a Finish.
    finished: BTreeSet<u32>,
}

impl Parity {
    pub(super) fn new(spec: &ArraySpec) -> Self {
        Parity {
            drives: spec.drives as u64,
            stripe_lbas: spec.stripe_lbas,
            partial: BTreeMap::new(),
            finished: BTreeSet::new(),
        }
    }

    fn row_lbas(&self) -> u64 {
        (self.drives - 1) * self.stripe_lbas
    }

    /// The drive holding row `row`'s parity.
    fn parity_drive(&self, row: u64) -> u64 {
        self.drives - 1 - row % self.drives
    }

    /// Where logical offset `x` of a zone lives: (drive, offset in its zone, LBAs left in the
    /// stripe).
    pub(super) fn locate(&self, x: u64) -> (usize, u64, u64) {
        let s = self.stripe_lbas;
        let stripe = x / s;
        let (row, k) = (stripe / (self.drives - 1), stripe % (self.drives - 1));
        let drive = (self.parity_drive(row) + 1 + k) % self.drives;
        (drive as usize, row * s + x % s, s - x % s)
    }

    /// Whether row `row` of `zone`, holding `data` LBAs, has its parity on the drives.
    fn has_parity(&self, zone: u32, data: u64, row: u64) -> bool {
        (row + 1) * self.row_lbas() <= data
            || (self.finished.contains(&zone) && row == data / self.row_lbas())
    }

    /// Parity LBAs on the drives for `zone` holding `data` LBAs.
    pub(super) fn parity_lbas(&self, zone: u32, data: u64) -> u64 {
        let rows = data / self.row_lbas() + self.finished.contains(&zone) as u64;
        rows * self.stripe_lbas
    }
}

/// LBAs drive `drive` holds once `lbas` of a logical zone are written (a prefill): whole rows
/// with their parity, then the last partial row's data stripes.
pub(super) fn on_drive(spec: &ArraySpec, drive: u32, lbas: u64) -> u64 {
    let p = Parity::new(spec);
    let (rows, rest) = (lbas / p.row_lbas(), lbas % p.row_lbas());
    let mut on = rows * p.stripe_lbas;
    let mut x = rows * p.row_lbas();
    while x < rows * p.row_lbas() + rest {
        let (d, _, left) = p.locate(x);
        let len = left.min(rows * p.row_lbas() + rest - x);
        if d == drive as usize {
            on += len;
        }
        x += len;
    }
    on
}

fn xor_into(acc: &mut [u8], bytes: &[u8]) {
    for (a, b) in acc.iter_mut().zip(bytes) {
        *a ^= b;
    }
}

impl DriveArray {
    fn rows(&self) -> &Parity {
        self.parity.as_ref().expect("a parity array")
    }

    fn rows_mut(&mut self) -> &mut Parity {
        self.parity.as_mut().expect("a parity array")
    }

    /// Writes a row's parity stripe (the XOR kept so far, or nothing without data retention).
    fn write_parity(&mut self, now: Instant, zone: u32, row: u64) -> Result<Instant, Status> {
        let (s, lba_bytes) = (self.rows().stripe_lbas, self.lba_bytes);
        let drive = self.rows().parity_drive(row) as usize;
        let bytes = self.rows_mut().partial.remove(&zone);
        let mut cmd = Command::write(self.drive_lba(zone, row * s), s);
        let padded;
        if let Some(b) = bytes {
            padded = b;
            debug_assert_eq!(padded.len() as u64, s * lba_bytes);
            cmd = cmd.with_data(Data::Out(&padded));
        }
        Ok(lzone::at_submission(&self.drives[drive].submit(now, cmd)?))
    }

    /// Data stripe by stripe, each row's parity when the row completes.
    pub(super) fn write_rows(
        &mut self,
        now: Instant,
        zone: u32,
        offset: u64,
        nlb: u64,
        data: Option<&[u8]>,
    ) -> Result<(Instant, Duration), Status> {
        let (mut done, mut wait) = (now, Duration::ZERO);
        let (end, lba_bytes) = (offset + nlb, self.lba_bytes);
        let (s, row_lbas) = (self.rows().stripe_lbas, self.rows().row_lbas());
        let mut x = offset;
        while x < end {
            let (drive, at, left) = self.rows().locate(x);
            let len = left.min(end - x);
            let bytes = data.map(|d| {
                &d[((x - offset) * lba_bytes) as usize..((x - offset + len) * lba_bytes) as usize]
            });
            let mut cmd = Command::write(self.drive_lba(zone, at), len);
            if let Some(b) = bytes {
                cmd = cmd.with_data(Data::Out(b));
                let acc = self
                    .rows_mut()
                    .partial
                    .entry(zone)
                    .or_insert_with(|| vec![0; (s * lba_bytes) as usize]);
                let within = ((at % s) * lba_bytes) as usize;
                xor_into(&mut acc[within..within + b.len()], b);
            }
            let a = self.drives[drive].submit(now, cmd)?;
            done = done.max(lzone::at_submission(&a));
            wait = wait.max(a.erase_wait);
            x += len;
            if x.is_multiple_of(row_lbas) {
                done = done.max(self.write_parity(now, zone, x / row_lbas - 1)?);
            }
        }
        if end == self.lz.cap_lbas() && self.usable < self.drive_cap {
            done = done.max(ZoneBackend::manage(self, now, zone, Effect::Finish)?);
        }
        Ok((done, wait))
    }

    /// Before a Finish, the last partial row's parity; before a Reset, forgets the row.
    pub(super) fn parity_at(
        &mut self,
        now: Instant,
        zone: u32,
        action: ZoneAction,
    ) -> Result<Instant, Status> {
        let data = self.lz.data(zone);
        let row_lbas = self.rows().row_lbas();
        match action {
            ZoneAction::Finish if !data.is_multiple_of(row_lbas) => {
                let done = self.write_parity(now, zone, data / row_lbas)?;
                self.rows_mut().finished.insert(zone);
                Ok(done)
            }
            ZoneAction::Reset => {
                let p = self.rows_mut();
                p.partial.remove(&zone);
                p.finished.remove(&zone);
                Ok(now)
            }
            _ => Ok(now),
        }
    }

    /// LBAs `at..at + len` of `drive`'s zone, which is gone: the XOR of the same LBAs of every
    /// other drive's zone.
    pub(super) fn rebuild(
        &mut self,
        now: Instant,
        zone: u32,
        drive: usize,
        at: u64,
        len: u64,
        mut out: Option<&mut [u8]>,
    ) -> Result<(Instant, Duration), Status> {
        let row = at / self.rows().stripe_lbas;
        if !self.rows().has_parity(zone, self.lz.data(zone), row) {
            return Err(Status::UnrecoveredReadError);
        }
        if let Some(o) = out.as_deref_mut() {
            o.fill(0);
        }
        let (mut done, mut wait) = (now, Duration::ZERO);
        let mut tmp = vec![0u8; out.as_ref().map_or(0, |o| o.len())];
        for e in (0..self.drives.len()).filter(|&e| e != drive) {
            if self.drives[e].zone(0, zone).state == ZoneState::Offline {
                return Err(Status::UnrecoveredReadError);
            }
            let mut cmd = Command::read(self.drive_lba(zone, at), len);
            if out.is_some() {
                cmd = cmd.with_data(Data::In(&mut tmp));
            }
            let a = self.drives[e].submit(now, cmd)?;
            done = done.max(lzone::at_submission(&a));
            wait = wait.max(a.erase_wait);
            if let Some(o) = out.as_deref_mut() {
                xor_into(o, &tmp);
            }
        }
        Ok((done, wait))
    }

    /// [`Self::rebuild`]'s bytes without time: the XOR of the other drives' retained bytes.
    pub(super) fn rebuild_peek(
        &self,
        zone: u32,
        drive: usize,
        at: u64,
        out: &mut [u8],
    ) -> Result<(), Status> {
        out.fill(0);
        let mut tmp = vec![0u8; out.len()];
        for e in (0..self.drives.len()).filter(|&e| e != drive) {
            self.drives[e].peek(0, self.drive_lba(zone, at), &mut tmp)?;
            xor_into(out, &tmp);
        }
        Ok(())
    }
}
