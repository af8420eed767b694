//! The one place the block device touches ZoneLab's device model: building it, its geometry and
//! limits, serving one block-layer command at a given device time, reporting zones, offering
//! the firmware its background time, and writing the results. Everything here is a pure
//! function of the commands and the times it is given (no wall clock, no kernel), so it is
//! tested without ublk, and it is the module to port when the core gains its device trait.
//!
//! Mapping (Linux block layer -> NVMe ZNS command on the model):
//! read -> Read; write -> Write at the write pointer; zone append -> Zone Append, returning the
//! LBA written; zone open/close/finish/reset -> Zone Management Send; reset all -> Zone
//! Management Send with Select All (Reset); report zones -> Zone Management Receive. Discard of
//! whole zones resets them (as the fio engine treats trims); the part of a discard that covers a
//! zone only partly is a Deallocate hint the model keeps no state for, so it completes at once.
//! The device has no volatile write cache (a completed write is durable in the model), so it
//! advertises none and a FLUSH that still arrives completes at once.

use std::path::Path;

use anyhow::{Result, bail};
use zonelab::config::{Experiment, ExperimentConfig};
use zonelab::metrics::{ErrorReport, Metrics, OpKind, Summary};
use zonelab::sim::{RunIdentity, prepare, summarize};
use zonelab::zns::{Device, ReportFilter, Status, ZoneAction};

use crate::proto::{self, BLK_ZONE_BYTES, Command, Op, SECTOR_BYTES};

/// Error reports kept in summary.json (chosen: a host that fails commands in a loop must not
/// grow the server's memory; the count of all of them is kept).
pub const MAX_ERROR_REPORTS: usize = 1000;

/// What the kernel must be told about the device (all in 512-byte sectors).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub lba_shift: u8,
    pub dev_sectors: u64,
    pub zone_sectors: u32,
    pub zone_capacity_sectors: u64,
    pub nr_zones: u32,
    /// 0: no limit.
    pub max_open_zones: u32,
    pub max_active_zones: u32,
    pub max_zone_append_sectors: u32,
}

/// How a command ended. `result` is what the ublk server commits: bytes transferred (0 for
/// commands without data) or a negative errno.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reply {
    pub result: i32,
    /// When the model completes the command (device time, ns).
    pub done_ns: u64,
    /// Zone append: the sector written.
    pub append_sector: Option<u64>,
    /// The NVMe status, when the device rejected the command.
    pub status: Option<Status>,
}

/// Sees every command the device served: the hook for a trace recorder.
pub trait CommandObserver: Send {
    fn command(&mut self, submit_ns: u64, command: &Command, reply: &Reply);
}

/// Writes a results directory from the device's state (the CLI's writer, passed in so this
/// crate does not depend on the CLI).
pub type ResultsWriter<'a> =
    &'a dyn Fn(&Path, &ExperimentConfig, &Summary, &Metrics, &Device) -> Result<()>;

/// A ZoneLab device served as a block device.
pub struct BlockAdapter {
    name: String,
    cfg: ExperimentConfig,
    seed: u64,
    device: Device,
    metrics: Metrics,
    errors: Vec<ErrorReport>,
    error_count: u64,
    prefill_bytes: u64,
    start_ns: u64,
    sectors_per_lba: u64,
    zone_lbas: u64,
    max_append_sectors: u32,
    /// When the firmware asked to be offered time again.
    wake_ns: Option<u64>,
    observer: Option<Box<dyn CommandObserver>>,
}

impl BlockAdapter {
    /// Builds the experiment's device (faults injected, prefilled) with data retention on: a
    /// file system reads back what it wrote. `max_io_bytes` is the largest command the server
    /// takes (it bounds zone appends).
    pub fn new(cfg: ExperimentConfig, mut exp: Experiment, max_io_bytes: u32) -> Result<Self> {
        exp.retain_data = true;
        check_geometry(&exp)?;
        let prepared = prepare(&exp);
        let mut device = prepared.device;
        let start_ns = device.idle_at_ns();
        device.reset_counters();
        let geo = device.geometry();
        let lba = geo.lba_size_bytes;
        let zasl = geo.zone_append_size_limit_bytes.unwrap_or(u64::MAX);
        let append_bytes = zasl.min(max_io_bytes as u64) / lba * lba;
        if append_bytes == 0 {
            bail!(
                "device.zones.zone_append_size_limit_bytes: {zasl} is below one LBA ({lba} bytes)"
            );
        }
        Ok(BlockAdapter {
            name: exp.name.clone(),
            seed: exp.seed,
            metrics: Metrics::new(start_ns, exp.interval_ns),
            errors: Vec::new(),
            error_count: 0,
            prefill_bytes: prepared.prefill_bytes,
            start_ns,
            sectors_per_lba: lba / SECTOR_BYTES,
            zone_lbas: device.zone_size_lbas(),
            max_append_sectors: (append_bytes / SECTOR_BYTES) as u32,
            device,
            cfg,
            wake_ns: Some(start_ns),
            observer: None,
        })
    }

    pub fn set_observer(&mut self, observer: Box<dyn CommandObserver>) {
        self.observer = Some(observer);
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Device time when the host may start (after the prefill's NAND work).
    pub fn start_ns(&self) -> u64 {
        self.start_ns
    }

    pub fn limits(&self) -> Limits {
        let g = self.device.geometry();
        let spl = self.sectors_per_lba;
        Limits {
            lba_shift: g.lba_size_bytes.trailing_zeros() as u8,
            dev_sectors: self.device.namespace_lbas() * spl,
            zone_sectors: (self.zone_lbas * spl) as u32,
            zone_capacity_sectors: self.device.zone_capacity_lbas() * spl,
            nr_zones: self.device.zone_count(),
            max_open_zones: g.max_open_zones.unwrap_or(0),
            max_active_zones: g.max_active_zones.unwrap_or(0),
            max_zone_append_sectors: self.max_append_sectors,
        }
    }

    /// Serves `cmd` submitted at device time `now_ns`. `buf` holds the data of a write or
    /// append (`count` sectors), and receives the data of a read or the `struct blk_zone`s of
    /// a zone report (`count` zones).
    pub fn submit(&mut self, now_ns: u64, cmd: &Command, buf: &mut [u8]) -> Reply {
        let reply = self.serve(now_ns, cmd, buf);
        if let Some(o) = &mut self.observer {
            o.command(now_ns, cmd, &reply);
        }
        reply
    }

    fn serve(&mut self, now_ns: u64, cmd: &Command, buf: &mut [u8]) -> Reply {
        let done = |done_ns: u64, result: i32| Reply {
            result,
            done_ns,
            append_sector: None,
            status: None,
        };
        let invalid = |errno: i32| Reply {
            result: -errno,
            done_ns: now_ns,
            append_sector: None,
            status: None,
        };
        if cmd.op == Op::ReportZones {
            return self.report_zones(now_ns, cmd, buf);
        }
        if cmd.op == Op::Flush {
            self.metrics.record(OpKind::Other, now_ns, now_ns, 0);
            return done(now_ns, 0);
        }
        let spl = self.sectors_per_lba;
        let count = cmd.count as u64;
        if !cmd.sector.is_multiple_of(spl) || !count.is_multiple_of(spl) {
            return invalid(libc::EINVAL);
        }
        let (slba, nlb) = (cmd.sector / spl, count / spl);
        let bytes = count * SECTOR_BYTES;
        let data_ok = !(cmd.op.takes_data() || cmd.op == Op::Read) || buf.len() as u64 == bytes;
        if !data_ok {
            return invalid(libc::EINVAL);
        }
        let zone_start = |slba: u64| slba - slba % self.zone_lbas;
        let mgmt = |d: &mut Device, action, select_all| {
            d.zone_mgmt_send(now_ns, zone_start(slba), action, select_all)
                .map(|c| (c.done_ns, None))
        };
        let (kind, result) = match cmd.op {
            Op::Read => (
                OpKind::Read,
                self.device
                    .read(now_ns, slba, nlb, Some(buf))
                    .map(|c| (c.done_ns, None)),
            ),
            Op::Write => (
                OpKind::Write,
                self.device
                    .write(now_ns, slba, nlb, Some(buf))
                    .map(|c| (c.done_ns, None)),
            ),
            Op::ZoneAppend => (
                OpKind::Append,
                self.device
                    .append(now_ns, slba, nlb, Some(buf))
                    .map(|(lba, c)| (c.done_ns, Some(lba * spl))),
            ),
            Op::ZoneOpen => (
                OpKind::Other,
                mgmt(&mut self.device, ZoneAction::Open, false),
            ),
            Op::ZoneClose => (
                OpKind::Other,
                mgmt(&mut self.device, ZoneAction::Close, false),
            ),
            Op::ZoneFinish => (
                OpKind::Finish,
                mgmt(&mut self.device, ZoneAction::Finish, false),
            ),
            Op::ZoneReset => (
                OpKind::Reset,
                mgmt(&mut self.device, ZoneAction::Reset, false),
            ),
            Op::ZoneResetAll => (
                OpKind::Reset,
                mgmt(&mut self.device, ZoneAction::Reset, true),
            ),
            Op::Discard => {
                let whole = self.whole_zones(slba, nlb);
                let kind = if whole.is_empty() {
                    OpKind::Other
                } else {
                    OpKind::Reset
                };
                (kind, self.discard(now_ns, whole))
            }
            Op::WriteZeroes => return invalid(libc::EOPNOTSUPP),
            Op::Flush | Op::ReportZones => unreachable!("served above"),
        };
        match result {
            Ok((done_ns, append_sector)) => {
                let moved = if matches!(cmd.op, Op::Read | Op::Write | Op::ZoneAppend) {
                    bytes
                } else {
                    0
                };
                self.metrics.record(kind, now_ns, done_ns, moved);
                Reply {
                    result: moved as i32,
                    done_ns,
                    append_sector,
                    status: None,
                }
            }
            Err(status) => {
                self.error_count += 1;
                if self.errors.len() < MAX_ERROR_REPORTS {
                    self.errors
                        .push(ErrorReport::new("ublk", cmd.op.name(), slba, status));
                }
                Reply {
                    result: proto::errno_for(status),
                    done_ns: now_ns,
                    append_sector: None,
                    status: Some(status),
                }
            }
        }
    }

    /// The zones `[slba, slba + nlb)` covers whole.
    fn whole_zones(&self, slba: u64, nlb: u64) -> std::ops::Range<u64> {
        let z = self.zone_lbas;
        let first = slba.div_ceil(z);
        first..((slba + nlb) / z).max(first)
    }

    /// Resets `zones`; the rest of the discarded range is a hint with no effect on the model.
    fn discard(
        &mut self,
        now_ns: u64,
        zones: std::ops::Range<u64>,
    ) -> Result<(u64, Option<u64>), Status> {
        let mut done = now_ns;
        for zone in zones {
            let c = self.device.zone_mgmt_send(
                now_ns,
                zone * self.zone_lbas,
                ZoneAction::Reset,
                false,
            )?;
            done = done.max(c.done_ns);
        }
        Ok((done, None))
    }

    fn report_zones(&mut self, now_ns: u64, cmd: &Command, buf: &mut [u8]) -> Reply {
        let fail = |status: Status| Reply {
            result: proto::errno_for(status),
            done_ns: now_ns,
            append_sector: None,
            status: Some(status),
        };
        let want = (cmd.count as usize).min(buf.len() / BLK_ZONE_BYTES);
        let spl = self.sectors_per_lba;
        let report = match self
            .device
            .report_zones(cmd.sector / spl, ReportFilter::All, true, want)
        {
            Ok(r) => r,
            Err(status) => return fail(status),
        };
        for (d, out) in report
            .descriptors
            .iter()
            .zip(buf.chunks_exact_mut(BLK_ZONE_BYTES))
        {
            let out: &mut [u8; BLK_ZONE_BYTES] = out.try_into().expect("chunks of 64 bytes");
            proto::encode_blk_zone(d, self.zone_lbas, spl, out);
        }
        Reply {
            result: (report.descriptors.len() * BLK_ZONE_BYTES) as i32,
            done_ns: now_ns,
            append_sector: None,
            status: None,
        }
    }

    /// Offers the firmware the device's time up to `now_ns` (idle-time erases, timers): at
    /// every wake-up time it asked for on the way, then at `now_ns`, as the simulation loop
    /// does. Returns when it wants to be offered time again.
    pub fn advance(&mut self, now_ns: u64) -> Option<u64> {
        while let Some(t) = self.wake_ns.filter(|&t| t < now_ns) {
            self.wake_ns = self.device.background(t).filter(|&next| next > t);
        }
        self.wake_ns = self.device.background(now_ns).filter(|&n| n > now_ns);
        self.wake_ns
    }

    /// Commands the device rejected, including those not kept in the summary.
    pub fn error_count(&self) -> u64 {
        self.error_count
    }

    /// One line for the terminal when the server stops.
    pub fn describe_counts(&self) -> String {
        let c = self.device.counters();
        format!(
            "{} | host wrote {} MiB, read {} MiB | zone resets {} | errors {} | simulated {:.3} s",
            self.device.spec().name,
            c.host_write_bytes >> 20,
            c.host_read_bytes >> 20,
            c.zone_resets_requested,
            self.error_count,
            self.metrics.elapsed_ns() as f64 / 1e9
        )
    }

    pub fn summary(&self) -> Summary {
        let id = RunIdentity {
            experiment: format!("ublk:{}", self.name),
            seed: self.seed,
            config_fingerprint: self.cfg.fingerprint(),
            prefill_bytes: self.prefill_bytes,
            start_ns: self.start_ns,
        };
        summarize(
            &id,
            &self.device,
            &self.metrics,
            Vec::new(),
            self.errors.clone(),
        )
    }

    /// Writes the results directory (summary.json, zones.csv, latency files...).
    pub fn write_results(&self, dir: &Path, writer: ResultsWriter) -> Result<()> {
        writer(dir, &self.cfg, &self.summary(), &self.metrics, &self.device)
    }
}

/// What Linux requires of a zoned block device that ZoneLab's validation does not: zone sizes a
/// power of two in sectors that fit the driver's 32-bit `chunk_sectors`, and a logical block size
/// the block layer takes (512 to 4096 bytes).
fn check_geometry(exp: &Experiment) -> Result<()> {
    let g = &exp.device.geometry;
    let zone_sectors = g.zone_size_bytes / SECTOR_BYTES;
    if !zone_sectors.is_power_of_two() {
        bail!(
            "device.zones.zone_size_bytes: {} bytes is not a power of two; Linux serves only \
             zoned block devices whose zone size is a power of two",
            g.zone_size_bytes
        );
    }
    if zone_sectors > u32::MAX as u64 {
        bail!(
            "device.zones.zone_size_bytes: {} bytes is larger than a ublk zone can be (2 TiB)",
            g.zone_size_bytes
        );
    }
    if !(512..=4096).contains(&g.lba_size_bytes) {
        bail!(
            "device.geometry.lba_size_bytes: {} is not a block size Linux takes (512 to 4096)",
            g.lba_size_bytes
        );
    }
    Ok(())
}

#[cfg(test)]
#[path = "adapter_tests.rs"]
mod tests;
