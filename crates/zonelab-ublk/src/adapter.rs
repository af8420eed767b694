//! The one place the block device touches ZoneLab's device model: building it, its geometry and
//! limits, serving one block-layer command at a given device time, reporting zones, offering
//! the firmware its background time, and writing the results. Everything here is a pure
//! function of the commands and the times it is given (no wall clock, no kernel), so it is
//! tested without ublk.
//!
//! Mapping (Linux block layer -> NVMe ZNS command on the model):
//! read -> Read; write -> Write at the write pointer; zone append -> Zone Append, returning the
//! LBA written; zone open/close/finish/reset -> Zone Management Send; reset all -> Zone
//! Management Send with Select All (Reset); report zones -> Zone Management Receive. Discard of
//! whole zones resets them (as the fio engine treats trims); the part of a discard that covers a
//! zone only partly is a Deallocate (Dataset Management) the model keeps no state for. The device
//! has no volatile write cache (a completed write is durable in the model), so it advertises
//! none; a FLUSH that still arrives is the model's Flush.
//!
//! Every command goes through the driver the fio engine and the device manager use
//! (`zonelab::driver::Driver`): it is traced, and its latency or its rejection counted, per
//! device command (a discard that resets three zones counts three resets), as in `zonelab run`.

use std::path::Path;

use anyhow::{Result, bail};
use zonelab::Experiment;
use zonelab::config::ExperimentConfig;
use zonelab::device::{
    Command as DeviceCommand, Data, DeviceModel, Op as DeviceOp, ReportFilter, Status, ZoneAction,
};
use zonelab::driver::Driver;
use zonelab::experiment::{DeviceSpec, build_device};
use zonelab::report::{RunIdentity, Summary, render};
use zonelab::time::Instant;
use zonelab::trace::TraceSink;

use crate::proto::{self, BLK_ZONE_BYTES, Command, Op, SECTOR_BYTES};

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

/// Writes rendered results files into a directory (the CLI's writer, passed in so this crate
/// does not depend on the CLI).
pub type ResultsWriter<'a> = &'a dyn Fn(&Path, &[(String, String)]) -> Result<()>;

/// A ZoneLab device served as a block device.
pub struct BlockAdapter {
    name: String,
    cfg: ExperimentConfig,
    seed: u64,
    /// The device and what was recorded of its commands (latency, trace, errors).
    driver: Driver,
    prefill_bytes: u64,
    start_ns: u64,
    sectors_per_lba: u64,
    zone_lbas: u64,
    max_append_sectors: u32,
    observer: Option<Box<dyn CommandObserver>>,
}

impl BlockAdapter {
    /// Builds the experiment's device (faults injected, prefilled) with data retention on: a
    /// file system reads back what it wrote. `max_io_bytes` is the largest command the server
    /// takes (it bounds zone appends).
    pub fn new(cfg: ExperimentConfig, mut exp: Experiment, max_io_bytes: u32) -> Result<Self> {
        exp.retain_data = true;
        check_geometry(&exp)?;
        let mut device = build_device(&exp);
        let start = device.idle_at();
        device.reset_counters();
        Self::with_device(cfg, exp, device, start, max_io_bytes)
    }

    /// Serves `device`, already built for `exp` (a device loaded from a state file, with its
    /// zones, data and counters), from device time `start` on. The device must keep data.
    pub fn with_device(
        cfg: ExperimentConfig,
        exp: Experiment,
        device: Box<dyn DeviceModel>,
        start: Instant,
        max_io_bytes: u32,
    ) -> Result<Self> {
        if !exp.retain_data {
            bail!(
                "data.retention: zonelab ublk serves a device that keeps data (a file system reads back what it wrote)"
            );
        }
        check_geometry(&exp)?;
        let info = device.info().clone();
        let zoned = info
            .zoned()
            .ok_or_else(|| anyhow::anyhow!("device: zonelab ublk serves zoned devices"))?;
        let lba = info.lba_size_bytes;
        let zasl = zoned
            .zone_append_size_limit_lbas
            .map_or(u64::MAX, |l| l * lba);
        let append_bytes = zasl.min(max_io_bytes as u64) / lba * lba;
        if append_bytes == 0 {
            bail!(
                "device.zones.zone_append_size_limit_bytes: {zasl} is below one LBA ({lba} bytes)"
            );
        }
        Ok(BlockAdapter {
            name: exp.name.clone(),
            seed: exp.seed,
            driver: Driver::new(device, start, exp.sampling(), "ublk"),
            prefill_bytes: exp.prefill.lbas() * lba,
            start_ns: start.ns(),
            sectors_per_lba: lba / SECTOR_BYTES,
            zone_lbas: zoned.zone_size_lbas,
            max_append_sectors: (append_bytes / SECTOR_BYTES) as u32,
            cfg,
            observer: None,
        })
    }

    /// Records every command the device serves into `sink` (ZoneLab's trace; it replays with
    /// `[[replay]]`).
    pub fn set_trace(&mut self, sink: Box<dyn TraceSink + Send>) {
        self.driver.set_trace(sink);
    }

    /// The run is over: flush the trace.
    pub fn finish_trace(&mut self) -> Result<()> {
        Ok(self.driver.finish_trace()?)
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
        let info = self.driver.device().info();
        let z = info.zoned().expect("checked when built");
        let spl = self.sectors_per_lba;
        Limits {
            lba_shift: info.lba_size_bytes.trailing_zeros() as u8,
            dev_sectors: info.namespace_lbas * spl,
            zone_sectors: (self.zone_lbas * spl) as u32,
            zone_capacity_sectors: z.zone_capacity_lbas * spl,
            nr_zones: z.zone_count,
            max_open_zones: z.max_open_zones.unwrap_or(0),
            max_active_zones: z.max_active_zones.unwrap_or(0),
            max_zone_append_sectors: self.max_append_sectors,
        }
    }

    /// Sends one command to the device at `now_ns`: its completion time and the LBA it wrote.
    /// The driver traces it, and counts its latency or its rejection.
    fn send(&mut self, now_ns: u64, cmd: DeviceCommand<'_>) -> Result<(u64, u64), Status> {
        let s = self.driver.submit(Instant::from_ns(now_ns), cmd)?;
        Ok((s.done.ns(), s.lba))
    }

    /// Serves `cmd` submitted at device time `now_ns`. `buf` holds the data of a write or
    /// append (`count` sectors), and receives the data of a read or the `struct blk_zone`s of
    /// a zone report (`count` zones).
    pub fn submit(&mut self, now_ns: u64, cmd: &Command, buf: &mut [u8]) -> Reply {
        // Background work due before this command happens first, as on a device left alone.
        self.advance(now_ns);
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
            return match self.send(now_ns, DeviceCommand::new(DeviceOp::Flush, 0, 0)) {
                Ok((done_ns, _)) => done(done_ns, 0),
                Err(status) => rejected(status, now_ns),
            };
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
        // Refused only once well formed: a misaligned Write Zeroes is EINVAL, as any command.
        if cmd.op == Op::WriteZeroes {
            return invalid(libc::EOPNOTSUPP);
        }
        let result = self.execute(now_ns, cmd.op, slba, nlb, buf);
        match result {
            Ok((done_ns, append_sector)) => {
                let moved = if matches!(cmd.op, Op::Read | Op::Write | Op::ZoneAppend) {
                    bytes
                } else {
                    0
                };
                Reply {
                    result: moved as i32,
                    done_ns,
                    append_sector,
                    status: None,
                }
            }
            Err(status) => rejected(status, now_ns),
        }
    }

    /// Sends a read, write, append, zone management or discard on to the device: its completion
    /// time and, for an append, the sector it wrote.
    fn execute(
        &mut self,
        now_ns: u64,
        op: Op,
        slba: u64,
        nlb: u64,
        buf: &mut [u8],
    ) -> Result<(u64, Option<u64>), Status> {
        let spl = self.sectors_per_lba;
        let zslba = slba - slba % self.zone_lbas;
        let mgmt = |action| DeviceCommand::zone(action, zslba);
        match op {
            Op::Read => self
                .send(
                    now_ns,
                    DeviceCommand::read(slba, nlb).with_data(Data::In(buf)),
                )
                .map(|(done, _)| (done, None)),
            Op::Write => self
                .send(
                    now_ns,
                    DeviceCommand::write(slba, nlb).with_data(Data::Out(buf)),
                )
                .map(|(done, _)| (done, None)),
            Op::ZoneAppend => self
                .send(
                    now_ns,
                    DeviceCommand::append(slba, nlb).with_data(Data::Out(buf)),
                )
                .map(|(done, lba)| (done, Some(lba * spl))),
            Op::ZoneOpen => self.manage(now_ns, mgmt(ZoneAction::Open)),
            Op::ZoneClose => self.manage(now_ns, mgmt(ZoneAction::Close)),
            Op::ZoneFinish => self.manage(now_ns, mgmt(ZoneAction::Finish)),
            Op::ZoneReset => self.manage(now_ns, mgmt(ZoneAction::Reset)),
            Op::ZoneResetAll => self.manage(
                now_ns,
                DeviceCommand::new(DeviceOp::ZoneMgmtAll(ZoneAction::Reset), 0, 0),
            ),
            Op::Discard => {
                let whole = self.whole_zones(slba, nlb);
                self.discard(now_ns, slba, nlb, whole)
            }
            Op::Flush | Op::ReportZones | Op::WriteZeroes => unreachable!("served above"),
        }
    }

    /// A zone management command: its completion time.
    fn manage(
        &mut self,
        now_ns: u64,
        cmd: DeviceCommand<'_>,
    ) -> Result<(u64, Option<u64>), Status> {
        self.send(now_ns, cmd).map(|(done, _)| (done, None))
    }

    /// The zones `[slba, slba + nlb)` covers whole.
    fn whole_zones(&self, slba: u64, nlb: u64) -> std::ops::Range<u64> {
        let z = self.zone_lbas;
        let first = slba.div_ceil(z);
        first..((slba + nlb) / z).max(first)
    }

    /// Resets `zones`; a discard that covers no zone whole is a Deallocate, which a zoned
    /// namespace keeps no state for.
    fn discard(
        &mut self,
        now_ns: u64,
        slba: u64,
        nlb: u64,
        zones: std::ops::Range<u64>,
    ) -> Result<(u64, Option<u64>), Status> {
        if zones.is_empty() {
            let (done, _) = self.send(now_ns, DeviceCommand::new(DeviceOp::Trim, slba, nlb))?;
            return Ok((done, None));
        }
        let mut done = now_ns;
        for zone in zones {
            let cmd = DeviceCommand::zone(ZoneAction::Reset, zone * self.zone_lbas);
            done = done.max(self.send(now_ns, cmd)?.0);
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
        let report = match self.driver.device().report_zones(
            0,
            cmd.sector / spl,
            ReportFilter::All,
            true,
            want,
        ) {
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
        self.driver
            .advance(Instant::from_ns(now_ns))
            .map(Instant::ns)
    }

    /// Commands the device rejected, including those not kept in the summary.
    pub fn error_count(&self) -> u64 {
        self.driver.errors().total()
    }

    /// One line for the terminal when the server stops.
    pub fn describe_counts(&self) -> String {
        let (device, metrics) = (self.driver.device(), self.driver.metrics());
        let c = device.report(metrics.last_done()).counters;
        format!(
            "{} | host wrote {} MiB, read {} MiB | zone resets {} | errors {} | simulated {:.3} s",
            device.info().name,
            c.host_write_bytes >> 20,
            c.host_read_bytes >> 20,
            c.zone_resets_requested,
            self.driver.errors().total(),
            metrics.elapsed().secs_f64()
        )
    }

    pub fn summary(&self) -> Summary {
        let id = RunIdentity {
            experiment: format!("ublk:{}", self.name),
            seed: self.seed,
            config_fingerprint: self.cfg.fingerprint(),
            prefill_bytes: self.prefill_bytes,
        };
        self.driver.summary(&id)
    }

    /// Writes the results directory (summary.json, zones.csv, latency files...).
    pub fn write_results(&self, dir: &Path, writer: ResultsWriter) -> Result<()> {
        let files = render(
            &self.summary(),
            self.driver.metrics(),
            self.driver.device(),
            &self.cfg.to_toml(),
        );
        writer(dir, &files)
    }

    /// The device behind the adapter (tests and the server's report).
    pub fn device(&self) -> &dyn DeviceModel {
        self.driver.device()
    }
}

/// The reply to a command the device rejected (the driver logged it, with its NVMe status).
fn rejected(status: Status, now_ns: u64) -> Reply {
    Reply {
        result: proto::errno_for(status),
        done_ns: now_ns,
        append_sector: None,
        status: Some(status),
    }
}

/// What Linux requires of a zoned block device that ZoneLab's validation does not: zone sizes a
/// power of two in sectors that fit the driver's 32-bit `chunk_sectors`, and a logical block size
/// the block layer takes (512 to 4096 bytes).
fn check_geometry(exp: &Experiment) -> Result<()> {
    let DeviceSpec::Zns(spec) = &exp.device else {
        bail!(
            "device `{}` is a conventional SSD; the ZoneLab block device serves zoned devices only",
            exp.device.name()
        );
    };
    let g = &spec.zones;
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
