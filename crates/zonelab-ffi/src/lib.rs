//! The C ABI the fio engine (`fio/zonelab_engine.c`) calls. fio runs jobs as threads of one
//! process (`thread=1`), so devices live in a process-wide registry, looked up by name: several
//! jobs, and a later verify job, share one simulated device. The core stays free of global state;
//! the registry is this front end's.
//!
//! Time modes: `virtual` keeps a device clock that advances to each completion the engine reaps
//! (as fast as the host can go); `realtime` submits at the wall-clock time since the device was
//! opened, and the engine waits until each completion's modelled time has passed.
//!
//! Every entry point catches panics: an error comes back as a negative errno, never as a crash
//! of fio.

use std::ffi::c_int;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, bail};
use zonelab::config::ExperimentConfig;
use zonelab::device::{Command, Data, DeviceModel, Op, ReportFilter, Status, ZoneAction};
use zonelab::driver::Driver;
use zonelab::experiment::build_device;
use zonelab::report::{RealtimeReport, RunIdentity, render};
use zonelab::state;
use zonelab::time::Instant;

mod c_api;
mod opening;
mod registry;

pub use c_api::{Handle, split_overrides};
use opening::{check_options, configure, in_state, read_state, trace_into_results};
use registry::leave;
pub use registry::{bind_file, open};

/// One simulated device and everything recorded about it.
pub struct Engine {
    name: String,
    cfg: ExperimentConfig,
    seed: u64,
    /// The device and what was recorded of its commands (latency, trace, errors).
    driver: Driver,
    clock: Instant,
    /// Device time when the device was opened: realtime mode counts wall time from here.
    origin: Instant,
    realtime: bool,
    opened: std::time::Instant,
    /// The options the device was opened with (a later job must not contradict them).
    request: OpenOptions,
    results: Option<PathBuf>,
    state: Option<PathBuf>,
    /// The device's configuration as a state file records it.
    identity: String,
    users: u32,
    /// Changed since results and state were last written.
    dirty: bool,
    /// Realtime mode: how long after its modelled time each completion reached fio.
    lateness: hdrhistogram::Histogram<u64>,
    late: u64,
    /// The state file's lock while jobs use the device (given up when the last one leaves).
    _lock: Option<zonelab_io::StateLock>,
    /// The state file as this device last saved it.
    saved: Option<Vec<u8>>,
}

/// Realtime completions later than this count as late (chosen: above the wake-up granularity of
/// `nanosleep` plus the engine's spin on an idle machine).
pub const LATE_THRESHOLD_NS: u64 = 20_000;

type Shared = Arc<Mutex<Engine>>;

/// Device geometry as fio needs it.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct ZlInfo {
    pub capacity_bytes: u64,
    pub zone_size_bytes: u64,
    pub zone_capacity_bytes: u64,
    pub nr_zones: u64,
    pub lba_bytes: u64,
    /// 0: no limit.
    pub max_open_zones: u32,
    pub max_active_zones: u32,
    /// The zones a host can keep open for writing: the smaller of the open and active limits
    /// that are set (fio 3.33 asks only for an open limit); 0: no limit.
    pub open_limit: u32,
}

/// One zone as fio's `struct zbd_zone` holds it, in bytes; `cond` is the ZS code.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct ZlZone {
    pub start: u64,
    pub wp: u64,
    pub len: u64,
    pub capacity: u64,
    pub cond: u32,
}

pub const ZL_READ: c_int = 0;
pub const ZL_WRITE: c_int = 1;
pub const ZL_RESET: c_int = 2;
/// Dataset Management (deallocate) of LBAs a zone keeps until it is reset.
pub const ZL_TRIM: c_int = 3;

/// How `open` is configured (the engine's `zonelab_*` options); `None`: not given.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct OpenOptions {
    pub preset: Option<String>,
    pub config_file: Option<String>,
    pub overrides: Vec<String>,
    pub policy: Option<String>,
    pub retention: Option<bool>,
    pub realtime: bool,
    pub results: Option<PathBuf>,
    pub state: Option<PathBuf>,
}

/// The preset a device gets when nothing names one (and no state file exists).
pub const DEFAULT_PRESET: &str = "rezns-40g";

impl Engine {
    /// How a later job's options contradict the device as it was opened: an option the job
    /// gives must be what the device has (given when it was opened, or what it resolved to);
    /// options it leaves unset are the device's.
    fn conflict(&self, other: &OpenOptions) -> Option<String> {
        fn differ<T: PartialEq + std::fmt::Debug>(
            name: &str,
            have: Option<T>,
            given: &Option<T>,
        ) -> Option<String> {
            match (have, given) {
                (Some(a), Some(b)) if a != *b => Some(format!("{name} {a:?}, now {b:?}")),
                (None, Some(b)) => Some(format!("{name} not given, now {b:?}")),
                _ => None,
            }
        }
        let first = &self.request;
        let policy = Some(self.driver.device().policy_name().to_string());
        let preset = first.preset.clone().or_else(|| {
            (first.config_file.is_none() && first.state.is_none())
                .then(|| DEFAULT_PRESET.to_string())
        });
        differ("zonelab_preset", preset, &other.preset)
            .or_else(|| {
                differ(
                    "zonelab_config",
                    first.config_file.clone(),
                    &other.config_file,
                )
            })
            .or_else(|| differ("zonelab_policy", policy, &other.policy))
            .or_else(|| {
                differ(
                    "zonelab_retention",
                    Some(self.cfg.data.retention),
                    &other.retention,
                )
            })
            .or_else(|| match (&self.results, &other.results) {
                (Some(a), Some(b)) if a != b => Some(format!("zonelab_results {a:?}, now {b:?}")),
                _ => None,
            })
            .or_else(|| differ("zonelab_state", first.state.clone(), &other.state))
            .or_else(|| {
                let first = &first.overrides;
                (!other.overrides.is_empty() && other.overrides != *first).then(|| {
                    format!(
                        "zonelab_set {:?}, now {:?}",
                        first.join(","),
                        other.overrides.join(",")
                    )
                })
            })
            .or_else(|| {
                (self.realtime != other.realtime).then(|| {
                    let mode = |r: bool| if r { "realtime" } else { "virtual" };
                    format!(
                        "zonelab_time {}, now {}",
                        mode(self.realtime),
                        mode(other.realtime)
                    )
                })
            })
    }
}

/// The value the last `key=value` in `overrides` gives `key`, unquoted.
fn override_of(overrides: &[String], key: &str) -> Option<String> {
    overrides.iter().rev().find_map(|o| {
        let (k, v) = o.split_once('=')?;
        (k.trim() == key).then(|| v.trim().trim_matches(|c| c == '"' || c == '\'').to_string())
    })
}

/// "1", "true", "yes", "on" and their opposites.
pub fn parse_bool(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// The overrides `o` asks for: `zonelab_set`, then `zonelab_retention` and `zonelab_policy`
/// (an error if they contradict `zonelab_set`), then the engine's default of keeping data
/// (so verify works) unless the experiment file or a state file says otherwise.
fn overrides_for(o: &OpenOptions, text: &str, from_state: bool) -> Result<Vec<String>> {
    let mut out = o.overrides.clone();
    let set_retention = override_of(&o.overrides, "data.retention");
    match (o.retention, &set_retention) {
        (Some(r), Some(v)) if parse_bool(v) != Some(r) => bail!(
            "zonelab_retention={} and zonelab_set data.retention={v} disagree; give one of them",
            r as u8
        ),
        (Some(r), None) => out.push(format!("data.retention={r}")),
        (None, None) if !from_state && !file_sets(text, "data", "retention") => {
            out.push("data.retention=true".into())
        }
        _ => {}
    }
    if let Some(p) = &o.policy {
        match override_of(&o.overrides, "firmware.policy") {
            Some(v) if v != *p => bail!(
                "zonelab_policy={p} and zonelab_set firmware.policy={v} disagree; give one of them"
            ),
            Some(_) => {}
            None => out.push(format!(
                "firmware.policy={}",
                toml::Value::String(p.clone())
            )),
        }
    }
    Ok(out)
}

/// Whether experiment text sets `table.key`.
fn file_sets(text: &str, table: &str, key: &str) -> bool {
    toml::from_str::<toml::Table>(text)
        .ok()
        .and_then(|t| t.get(table)?.as_table()?.get(key).cloned())
        .is_some()
}

impl Engine {
    /// A device as `zl_open` opens it, outside the process-wide registry (the seed swarm opens
    /// one per case and drops it; fio's jobs share theirs through [`open`]).
    pub fn standalone(name: &str, o: &OpenOptions) -> Result<Self> {
        Engine::new(name, o)
    }

    /// The device behind the engine (for checks of its invariants).
    pub fn device(&self) -> &dyn DeviceModel {
        self.driver.device()
    }

    /// Virtual time: moves the device clock forward to `t` and lets background work run up
    /// to there (what `zl_advance` does).
    pub fn advance_clock(&mut self, t: Instant) {
        self.clock = self.clock.max(t);
        let now = self.clock;
        self.advance_to(now);
    }

    fn new(name: &str, o: &OpenOptions) -> Result<Self> {
        check_options(o)?;
        // The state file's lock, held as long as the device is open in this process: a second
        // fio (or `zonelab zone`) on the same file is refused, naming this one.
        let lock = match &o.state {
            Some(p) => Some(
                zonelab_io::lock(p, &format!("fio, zonelab_device {name}"))
                    .with_context(|| format!("zonelab_state={}", p.display()))?,
            ),
            None => None,
        };
        let file = read_state(o)?;
        let saved = file
            .as_deref()
            .map(state::decode)
            .transpose()
            .map_err(in_state(o))?;
        let (cfg, identity, exp) = configure(name, o, saved.as_ref())?;
        let (mut device, start) = match saved {
            Some(s) => {
                state::check_identity(&s.identity, &identity).map_err(in_state(o))?;
                let d = state::restore(&exp, s.device).map_err(in_state(o))?;
                let start = d.idle_at().max(s.now);
                (d, start)
            }
            None => {
                let d = build_device(&exp);
                let start = d.idle_at();
                (d, start)
            }
        };
        device.reset_counters();
        let channels = exp.device.nand().geometry.channels;
        let mut driver = Driver::new(device, start, exp.sampling(), "fio");
        if exp.trace {
            trace_into_results(&mut driver, o, channels)?;
        }
        Ok(Engine {
            name: name.to_string(),
            seed: exp.seed,
            driver,
            cfg,
            clock: start,
            origin: start,
            realtime: o.realtime,
            opened: std::time::Instant::now(),
            request: o.clone(),
            results: o.results.clone(),
            state: o.state.clone(),
            identity,
            users: 0,
            dirty: false,
            lateness: zonelab::metrics::latency_histogram(),
            late: 0,
            _lock: lock,
            saved: None,
        })
    }

    /// A completion modelled at `done` reached fio at wall time `now` (realtime mode).
    pub fn delivered(&mut self, done: u64, now: u64) {
        let late = now.saturating_sub(done);
        self.lateness.saturating_record(late.max(1));
        if late > LATE_THRESHOLD_NS {
            self.late += 1;
        }
    }

    /// Realtime mode: the lateness summary, if fio reaped anything.
    pub fn realtime_report(&self) -> Option<RealtimeReport> {
        (self.realtime && !self.lateness.is_empty())
            .then(|| RealtimeReport::of(&self.lateness, self.late, LATE_THRESHOLD_NS))
    }

    /// The current time: the device clock, or the device's time when it was opened plus the
    /// wall time since.
    pub fn now_ns(&self) -> u64 {
        if self.realtime {
            self.origin.ns() + self.opened.elapsed().as_nanos() as u64
        } else {
            self.clock.ns()
        }
    }

    /// Lets the device's background work (idle-time erases, daemons) run up to `now`, through
    /// every time it asked to be woken, as `zonelab run` does.
    fn advance_to(&mut self, now: Instant) {
        self.driver.advance(now);
        self.dirty = true;
    }

    pub fn info(&self) -> ZlInfo {
        let info = self.driver.device().info();
        let z = info.zoned().expect("ZoneLab devices for fio are zoned");
        let lba = info.lba_size_bytes;
        ZlInfo {
            capacity_bytes: info.namespace_bytes(),
            zone_size_bytes: z.zone_size_lbas * lba,
            zone_capacity_bytes: z.zone_capacity_lbas * lba,
            nr_zones: z.zone_count as u64,
            lba_bytes: lba,
            max_open_zones: z.max_open_zones.unwrap_or(0),
            max_active_zones: z.max_active_zones.unwrap_or(0),
            open_limit: z.open_limit().unwrap_or(0),
        }
    }

    /// Runs one command now; returns its completion time or the NVMe status.
    pub fn submit(
        &mut self,
        op: c_int,
        offset: u64,
        len: u64,
        buf: Option<&mut [u8]>,
    ) -> Result<u64, SubmitError> {
        let lba = self.driver.device().info().lba_size_bytes;
        if !offset.is_multiple_of(lba) || !len.is_multiple_of(lba) {
            return Err(SubmitError::Invalid);
        }
        let (slba, nlb) = (offset / lba, len / lba);
        let now = Instant::from_ns(self.now_ns());
        self.advance_to(now);
        let data = match buf {
            Some(b) if op == ZL_READ => Data::In(b),
            Some(b) if op == ZL_WRITE => Data::Out(b),
            _ => Data::None,
        };
        let cmd = match op {
            ZL_READ => Command::new(Op::Read, slba, nlb),
            ZL_WRITE => Command::new(Op::Write, slba, nlb),
            ZL_RESET => Command::zone(ZoneAction::Reset, slba),
            ZL_TRIM => Command::new(Op::Trim, slba, nlb),
            _ => return Err(SubmitError::Invalid),
        };
        self.driver
            .submit(now, cmd.with_data(data))
            .map(|s| s.done.ns())
            .map_err(SubmitError::Nvme)
    }

    pub fn report_zones(&self, offset: u64, out: &mut [ZlZone]) -> Result<usize, SubmitError> {
        let info = self.driver.device().info();
        let lba = info.lba_size_bytes;
        let zone = info.zoned().map_or(0, |z| z.zone_size_lbas);
        let report = self
            .driver
            .device()
            .report_zones(0, offset / lba, ReportFilter::All, true, out.len())
            .map_err(SubmitError::Nvme)?;
        for (slot, d) in out.iter_mut().zip(&report.descriptors) {
            *slot = ZlZone {
                start: d.zslba * lba,
                wp: d.wp * lba,
                len: zone * lba,
                capacity: d.capacity_lbas * lba,
                cond: d.state as u32,
            };
        }
        Ok(report.descriptors.len())
    }

    /// The results so far, in the format `zonelab run` writes.
    pub fn write_results(&self) -> Result<()> {
        let Some(dir) = &self.results else {
            return Ok(());
        };
        let id = RunIdentity {
            experiment: format!("fio:{}", self.name),
            seed: self.seed,
            config_fingerprint: self.cfg.fingerprint(),
            prefill_bytes: 0,
        };
        let mut summary = self.driver.summary(&id);
        summary.realtime = self.realtime_report();
        let d = &self.driver;
        let files = render(&summary, d.metrics(), d.device(), &self.cfg.to_toml());
        // Results files an earlier run left in the directory go (the trace this device streams
        // there stays).
        let keep: &[&str] = if self.driver.is_tracing() {
            &["trace.csv"]
        } else {
            &[]
        };
        zonelab_io::write_results_dir(dir, &files, keep).context("zonelab_results")
    }

    /// Saves the device to its state file (if it has one), atomically.
    pub fn save_state(&mut self) -> Result<()> {
        let Some(path) = &self.state else {
            return Ok(());
        };
        let now = Instant::from_ns(self.now_ns()).max(self.driver.device().idle_at());
        let bytes = state::encode(&self.identity, now, self.driver.device())
            .with_context(|| format!("zonelab_state={}", path.display()))?;
        zonelab_io::write_atomic(path, &bytes)
            .with_context(|| format!("zonelab_state={}", path.display()))?;
        self.saved = Some(bytes);
        Ok(())
    }

    /// A job joins a device no job uses any more: the state file's lock, given up when the
    /// last job left, is taken again, and the file must still be the one this device saved
    /// (another process may have used it meanwhile; going on would drop what it wrote).
    fn rejoin(&mut self) -> Result<()> {
        let Some(path) = self.state.clone() else {
            return Ok(());
        };
        let lock = zonelab_io::lock(&path, &format!("fio, zonelab_device {}", self.name))
            .with_context(|| format!("zonelab_state={}", path.display()))?;
        let now = std::fs::read(&path).ok();
        if self.saved.is_some() && now != self.saved {
            bail!(
                "zonelab_state={}: another process changed the file since zonelab_device {} saved it; open it under another zonelab_device name",
                path.display(),
                self.name
            );
        }
        self._lock = Some(lock);
        Ok(())
    }

    /// Writes the results and the state file, both even if one fails.
    fn persist(&mut self) -> Result<()> {
        let trace = self
            .driver
            .finish_trace()
            .context("zonelab_results: cannot write trace.csv");
        let results = trace.and(self.write_results());
        let state = self.save_state();
        self.dirty = false;
        results.and(state)
    }
}

/// Why a command was not carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubmitError {
    /// Offset or length not a whole number of LBAs, or an unknown operation.
    Invalid,
    Nvme(Status),
}

impl SubmitError {
    /// The code the C side sees: the NVMe status as `(SCT << 8) | SC`, or -EINVAL.
    fn code(self) -> c_int {
        match self {
            SubmitError::Invalid => -22,
            SubmitError::Nvme(s) => {
                let (sct, sc) = s.code();
                ((sct as c_int) << 8) | sc as c_int
            }
        }
    }
}

#[cfg(test)]
mod tests;
