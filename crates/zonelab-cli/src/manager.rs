//! `zonelab zone` and `zonelab io`: a generic device manager on a device state file, as
//! nvme-cli manages a drive. Each command loads the device (or creates it from `--preset` or
//! `--experiment`), runs one NVMe command when the device is idle, prints the result the way
//! nvme-cli does (or the NVMe status, exiting 1) and saves the device back. The fio engine's
//! `zonelab_state` uses the same files, so people, scripts and fio work on one device.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use zonelab::config::{ExperimentConfig, preset_file};
use zonelab::device::{
    Command, Data, Op, ReportFilter, ZoneAction, ZoneReport, ZoneState, format_libzbd,
    format_nvme_cli,
};
use zonelab::time::Instant;
use zonelab_cli::state_file::{self, Loaded, settle, submit_and_save};

/// Which device: a state file, created from a preset or an experiment if it does not exist.
#[derive(Args)]
pub struct DeviceArgs {
    /// The device state file.
    #[arg(long, value_name = "FILE")]
    state: PathBuf,
    /// Create the device from this preset (keeping data) if FILE does not exist; if it does,
    /// the file's device must be this one.
    #[arg(long, conflicts_with = "experiment")]
    preset: Option<String>,
    /// As --preset, from an experiment file (its device, firmware, data, prefill and faults).
    #[arg(long)]
    experiment: Option<PathBuf>,
    /// Override a field of the device's configuration (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ZoneCmd {
    /// Zone Management Receive: the zones, as `nvme zns report-zones` prints them.
    Report,
    /// The device: LBA size, zones, limits, firmware, clock.
    Info,
    /// Zone Send Open Zone: an empty or closed zone becomes explicitly opened.
    Open,
    /// Zone Send Close Zone: an opened zone becomes closed (it stays active).
    Close,
    /// Zone Send Finish Zone: the zone becomes full, whatever is left of it unwritten.
    Finish,
    /// Zone Send Reset Zone: the zone becomes empty, its write pointer at its start.
    Reset,
    /// Zone Send Offline Zone: a read-only zone becomes offline.
    Offline,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    /// As `nvme zns report-zones` prints them.
    Nvme,
    /// As libzbd's `zbd report` prints them.
    Zbd,
    /// One line per zone: zone,zslba,state,wp,capacity_lbas.
    Csv,
}

#[derive(Args)]
pub struct ZoneArgs {
    /// What to do: report or info, or a Zone Send action on --zone or --all.
    #[arg(value_enum)]
    action: ZoneCmd,
    #[command(flatten)]
    device: DeviceArgs,
    /// The zone (by index); a report starts there.
    #[arg(long, conflicts_with = "all")]
    zone: Option<u32>,
    /// Every zone the action applies to (Select All).
    #[arg(long)]
    all: bool,
    /// report: nvme-cli's format, libzbd's, or CSV (zone,zslba,state,wp,capacity_lbas).
    #[arg(long, value_enum, default_value_t = Format::Nvme)]
    format: Format,
    /// report: only zones in this state (EMPTY, IMP_OPENED, EXP_OPENED, CLOSED, READONLY, FULL,
    /// OFFLINE).
    #[arg(long, value_name = "STATE")]
    filter: Option<String>,
    /// report: at most this many zones.
    #[arg(long)]
    max: Option<usize>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum IoOp {
    /// NVMe Read: the LBAs' bytes (zeros where never written).
    Read,
    /// NVMe Write at the zone's write pointer (--lba must be it).
    Write,
}

#[derive(Args)]
pub struct IoArgs {
    /// Read or write.
    #[arg(value_enum)]
    op: IoOp,
    #[command(flatten)]
    device: DeviceArgs,
    /// First LBA.
    #[arg(long)]
    lba: u64,
    /// Number of LBAs (default: a write's --data file, or one LBA).
    #[arg(long, value_name = "LBAS")]
    len: Option<u64>,
    /// write: the bytes to write (zeros without it); read: where to put the bytes read (a hex
    /// dump on standard output without it).
    #[arg(long, value_name = "FILE")]
    data: Option<PathBuf>,
}

/// The device the arguments name, loaded or created.
fn load(args: &DeviceArgs) -> Result<Loaded> {
    let cfg = match (&args.preset, &args.experiment) {
        (Some(p), _) => {
            let mut overrides = vec![];
            if !args
                .overrides
                .iter()
                .any(|o| o.trim_start().starts_with("data.retention"))
            {
                // A device people write and read keeps the data, as the fio engine's does.
                overrides.push("data.retention=true".to_string());
            }
            overrides.extend(args.overrides.iter().cloned());
            Some(ExperimentConfig::parse(&preset_file(p), &overrides)?)
        }
        (None, Some(e)) => Some(zonelab_cli::load_config(e, &args.overrides)?),
        (None, None) => None,
    };
    let name = args
        .state
        .file_stem()
        .map_or("device".into(), |s| s.to_string_lossy().to_string());
    state_file::open(&args.state, cfg, &args.overrides, &|c| {
        c.validate_device(&name)
    })
}

/// Saves the device with its clock at `now`.
fn save(args: &DeviceArgs, d: &Loaded, now: Instant) -> Result<()> {
    state_file::save(&args.state, &d.identity, now, d.driver.device())
}

fn zone_size(d: &Loaded) -> Result<u64> {
    Ok(d.driver
        .device()
        .info()
        .zoned()
        .context("the device is not zoned")?
        .zone_size_lbas)
}

fn nvme_error(command: &str, status: zonelab::device::Status) -> ExitCode {
    eprintln!("{command}: NVMe status: {status}");
    ExitCode::from(1)
}

pub fn zone(args: ZoneArgs) -> Result<ExitCode> {
    let mut d = load(&args.device)?;
    let now = settle(&mut d);
    let zone_lbas = zone_size(&d)?;
    let zones = d.driver.device().info().zoned().map_or(0, |z| z.zone_count);
    if let Some(z) = args.zone
        && z >= zones
    {
        bail!("--zone {z}: the device has zones 0..{}", zones - 1);
    }
    let action = match args.action {
        ZoneCmd::Report => return report(&args, &d, now, zone_lbas),
        ZoneCmd::Info => {
            print!("{}", info(&d, now));
            if d.created {
                save(&args.device, &d, now)?;
            }
            return Ok(ExitCode::SUCCESS);
        }
        ZoneCmd::Open => ZoneAction::Open,
        ZoneCmd::Close => ZoneAction::Close,
        ZoneCmd::Finish => ZoneAction::Finish,
        ZoneCmd::Reset => ZoneAction::Reset,
        ZoneCmd::Offline => ZoneAction::Offline,
    };
    let (op, slba) = match (args.zone, args.all) {
        (_, true) => (Op::ZoneMgmtAll(action), 0),
        (Some(z), false) => (Op::ZoneMgmt(action), z as u64 * zone_lbas),
        (None, false) => bail!("give --zone N or --all"),
    };
    let name = format!("zns-{}-zone", format!("{action:?}").to_lowercase());
    // Saved whatever the answer: a Select All that fails part-way keeps what it did.
    let result = submit_and_save(&args.device.state, &mut d, now, Command::new(op, slba, 0))?;
    let code = match result {
        Ok(a) => {
            let done = a.done;
            println!(
                "{name}: Success, action:{} zone:{slba:x} all:{} nsid:1 ({} us simulated)",
                zsa(action),
                args.all as u8,
                (done - now).ns() as f64 / 1e3
            );
            ExitCode::SUCCESS
        }
        Err(status) => nvme_error(&name, status),
    };
    Ok(code)
}

/// `zonelab zone report`: the zones from `--zone` on, in the format asked.
fn report(args: &ZoneArgs, d: &Loaded, now: Instant, zone_lbas: u64) -> Result<ExitCode> {
    let filter = match &args.filter {
        None => ReportFilter::All,
        Some(s) => ReportFilter::State(
            ZoneState::parse(s).with_context(|| format!("unknown zone state `{s}`"))?,
        ),
    };
    let slba = args.zone.unwrap_or(0) as u64 * zone_lbas;
    let report = d
        .driver
        .device()
        .report_zones(0, slba, filter, false, args.max.unwrap_or(usize::MAX))
        .map_err(anyhow::Error::from)?;
    let lba = d.driver.device().info().lba_size_bytes;
    let text = match args.format {
        Format::Nvme => format_nvme_cli(&report),
        Format::Zbd => format_libzbd(&report, zone_lbas, lba),
        Format::Csv => format_csv(&report, zone_lbas),
    };
    print!("{text}");
    if d.created {
        save(&args.device, d, now)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A zone report as zones.csv lays it out.
fn format_csv(report: &ZoneReport, zone_lbas: u64) -> String {
    let mut s = String::from("zone,zslba,state,wp,capacity_lbas\n");
    for z in &report.descriptors {
        let _ = writeln!(
            s,
            "{},{},{},{},{}",
            z.zslba / zone_lbas,
            z.zslba,
            z.state.nvme_cli_name(),
            z.wp,
            z.capacity_lbas
        );
    }
    s
}

/// The Zone Send Action code of an action (ZNS 1.1, Figure 43).
fn zsa(a: ZoneAction) -> u8 {
    match a {
        ZoneAction::Close => 0x1,
        ZoneAction::Finish => 0x2,
        ZoneAction::Open => 0x3,
        ZoneAction::Reset => 0x4,
        ZoneAction::Offline => 0x5,
    }
}

fn info(d: &Loaded, now: Instant) -> String {
    let info = d.driver.device().info();
    let limit = |l: Option<u32>| l.map_or("no limit".to_string(), |v| v.to_string());
    let mut s = String::new();
    let _ = writeln!(s, "device: {}", info.name);
    let _ = writeln!(s, "lba_size_bytes: {}", info.lba_size_bytes);
    let _ = writeln!(s, "namespace_lbas: {}", info.namespace_lbas);
    if let Some(z) = info.zoned() {
        let _ = writeln!(s, "zone_count: {}", z.zone_count);
        let _ = writeln!(s, "zone_size_lbas: {}", z.zone_size_lbas);
        let _ = writeln!(s, "zone_capacity_lbas: {}", z.zone_capacity_lbas);
        let _ = writeln!(s, "max_open_zones: {}", limit(z.max_open_zones));
        let _ = writeln!(s, "max_active_zones: {}", limit(z.max_active_zones));
        let zasl = z
            .zone_append_size_limit_lbas
            .map_or("no limit".into(), |l| l.to_string());
        let _ = writeln!(s, "zone_append_size_limit_lbas: {zasl}");
    }
    let _ = writeln!(s, "firmware: {}", d.driver.device().policy_name());
    let _ = writeln!(s, "retention: {}", d.exp.retain_data);
    let _ = writeln!(s, "clock_ns: {}", now.ns());
    s
}

pub fn io(args: IoArgs) -> Result<ExitCode> {
    let mut d = load(&args.device)?;
    let now = settle(&mut d);
    let lba_bytes = d.driver.device().info().lba_size_bytes;
    let write_data = match (args.op, &args.data) {
        (IoOp::Write, Some(p)) => {
            Some(std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))?)
        }
        _ => None,
    };
    let nlb = match (args.len, &write_data) {
        (Some(n), _) => n,
        (None, Some(bytes)) => (bytes.len() as u64).div_ceil(lba_bytes),
        (None, None) => 1,
    };
    if nlb == 0 || nlb > (1 << 30) / lba_bytes {
        bail!(
            "--len {nlb}: between 1 and {} LBAs (1 GiB)",
            (1 << 30) / lba_bytes
        );
    }
    let mut buf = vec![0u8; (nlb * lba_bytes) as usize];
    if let Some(bytes) = &write_data {
        if bytes.len() > buf.len() {
            bail!(
                "--data holds {} bytes, more than --len {nlb} LBAs ({} bytes)",
                bytes.len(),
                buf.len()
            );
        }
        buf[..bytes.len()].copy_from_slice(bytes);
    }
    let retained = d.exp.retain_data;
    let (name, cmd) = match args.op {
        IoOp::Read => (
            "read",
            Command::read(args.lba, nlb).with_data(Data::In(&mut buf)),
        ),
        IoOp::Write => (
            "write",
            Command::write(args.lba, nlb).with_data(Data::Out(&buf)),
        ),
    };
    // "Success" only once the device is saved: a write whose save failed was not kept.
    let result = submit_and_save(&args.device.state, &mut d, now, cmd)?;
    match result {
        Ok(a) => {
            let done = a.done;
            if args.op == IoOp::Read {
                match &args.data {
                    Some(p) => zonelab_io::write_atomic(p, &buf)?,
                    None => hexdump(&buf, args.lba * lba_bytes)?,
                }
            }
            eprintln!(
                "{name}: Success ({} us simulated{})",
                (done - now).ns() as f64 / 1e3,
                if retained {
                    ""
                } else {
                    "; the device keeps no data"
                }
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(status) => Ok(nvme_error(name, status)),
    }
}

/// `xxd`-like lines of 16 bytes, runs of repeated lines shown once and a `*`.
fn hexdump(bytes: &[u8], base: u64) -> Result<()> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut last: Option<&[u8]> = None;
    let mut starred = false;
    for (i, line) in bytes.chunks(16).enumerate() {
        if last == Some(line) {
            if !starred {
                writeln!(out, "*")?;
                starred = true;
            }
            continue;
        }
        starred = false;
        last = Some(line);
        let hex: Vec<String> = line.iter().map(|b| format!("{b:02x}")).collect();
        let text: String = line
            .iter()
            .map(|&b| if b.is_ascii_graphic() { b as char } else { '.' })
            .collect();
        writeln!(
            out,
            "{:08x}: {:<47}  {text}",
            base + i as u64 * 16,
            hex.join(" ")
        )?;
    }
    Ok(())
}
