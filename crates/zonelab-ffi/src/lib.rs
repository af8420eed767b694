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

use std::collections::HashMap;
use std::ffi::{CStr, c_char, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::{Context, Result, anyhow, bail};
use zonelab::config::ExperimentConfig;
use zonelab::device::{
    Command, Completed, Data, DeviceModel, Op, ReportFilter, Status, ZoneAction, catch_up,
};
use zonelab::metrics::series::DEFAULT_MAX_BUCKETS;
use zonelab::metrics::{MetricKey, Metrics, OpKind};
use zonelab::report::{ErrorReport, HostReport, RealtimeReport, RunIdentity, render, summarize};
use zonelab::sim::build_device;
use zonelab::time::{Duration, Instant};

/// One simulated device and everything recorded about it.
pub struct Engine {
    name: String,
    cfg: ExperimentConfig,
    seed: u64,
    device: Box<dyn DeviceModel>,
    /// When the device next wants to be advanced (background work).
    wake: Option<Instant>,
    completions: Vec<Completed>,
    metrics: Metrics,
    keys: [MetricKey; 3],
    clock: Instant,
    realtime: bool,
    opened: std::time::Instant,
    results: Option<PathBuf>,
    errors: Vec<ErrorReport>,
    users: u32,
    /// Realtime mode: how long after its modelled time each completion reached fio.
    lateness: hdrhistogram::Histogram<u64>,
    late: u64,
}

/// Realtime completions later than this count as late (chosen: above the wake-up granularity of
/// `nanosleep` plus the engine's spin on an idle machine).
pub const LATE_THRESHOLD_NS: u64 = 20_000;

type Shared = Arc<Mutex<Engine>>;

fn registry() -> &'static Mutex<HashMap<String, Shared>> {
    static REGISTRY: OnceLock<Mutex<HashMap<String, Shared>>> = OnceLock::new();
    REGISTRY.get_or_init(|| Mutex::new(HashMap::new()))
}

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

/// How `open` is configured (the engine's `zonelab_*` options).
#[derive(Debug, Default)]
pub struct OpenOptions {
    pub preset: Option<String>,
    pub config_file: Option<String>,
    pub overrides: Vec<String>,
    pub policy: Option<String>,
    pub retention: bool,
    pub realtime: bool,
    pub results: Option<PathBuf>,
}

impl Engine {
    fn new(name: &str, o: &OpenOptions) -> Result<Self> {
        let text = match (&o.config_file, &o.preset) {
            (Some(path), _) => std::fs::read_to_string(path)
                .with_context(|| format!("zonelab_config: cannot read {path}"))?,
            (None, Some(preset)) => format!("preset = \"{preset}\"\n"),
            (None, None) => bail!("name a device with zonelab_preset or zonelab_config"),
        };
        let mut overrides = o.overrides.clone();
        overrides.push(format!("data.retention={}", o.retention));
        if let Some(p) = &o.policy {
            overrides.push(format!("firmware.policy=\"{p}\""));
        }
        let cfg = ExperimentConfig::parse(&text, &overrides)?;
        let exp = cfg.validate_device(name)?;
        if exp.device.info().zoned.is_none() {
            bail!(
                "device `{}` is a conventional SSD; the ZoneLab fio engine drives zoned devices only (run conventional devices with `zonelab run`)",
                exp.device.name()
            );
        }
        let mut device = build_device(&exp);
        let start = device.idle_at();
        device.reset_counters();
        let mut metrics = Metrics::new(start, exp.interval, DEFAULT_MAX_BUCKETS);
        let tenant = metrics.tenant("fio");
        let keys = [OpKind::Read, OpKind::Write, OpKind::Reset]
            .map(|k| metrics.key(zonelab::metrics::Layer::Device, k, tenant));
        Ok(Engine {
            name: name.to_string(),
            seed: exp.seed,
            wake: Some(start),
            completions: Vec::new(),
            metrics,
            keys,
            device,
            cfg,
            clock: start,
            realtime: o.realtime,
            opened: std::time::Instant::now(),
            results: o.results.clone(),
            errors: Vec::new(),
            users: 0,
            lateness: zonelab::metrics::latency_histogram(),
            late: 0,
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

    /// The current time: the device clock, or wall time since the device was opened.
    pub fn now_ns(&self) -> u64 {
        if self.realtime {
            self.opened.elapsed().as_nanos() as u64
        } else {
            self.clock.ns()
        }
    }

    /// Lets the device's background work (idle-time erases, daemons) run up to `now`, through
    /// every time it asked to be woken, as `zonelab run` does.
    fn advance_to(&mut self, now: Instant) {
        catch_up(
            &mut *self.device,
            &mut self.wake,
            now,
            &mut self.completions,
        );
        self.completions.clear();
    }

    pub fn info(&self) -> ZlInfo {
        let info = self.device.info();
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
        let lba = self.device.info().lba_size_bytes;
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
        let (kind, cmd) = match op {
            ZL_READ => (0, Command::new(Op::Read, slba, nlb)),
            ZL_WRITE => (1, Command::new(Op::Write, slba, nlb)),
            ZL_RESET => (2, Command::zone(ZoneAction::Reset, slba)),
            _ => return Err(SubmitError::Invalid),
        };
        let cmd = cmd.with_data(data);
        let command = cmd.op;
        match self.device.submit(now, cmd) {
            Ok(a) => {
                let done = a.done.unwrap_or_else(|| self.completion_of(now));
                let bytes = if kind == 2 { 0 } else { len };
                self.metrics.record(self.keys[kind], now, done, bytes);
                Ok(done.ns())
            }
            Err(status) => {
                self.errors
                    .push(ErrorReport::new("fio", command, slba, status));
                Err(SubmitError::Nvme(status))
            }
        }
    }

    /// A device that reports completions later: advance it through its wake times until the
    /// command's completion is known (fio reaps it at that time).
    fn completion_of(&mut self, now: Instant) -> Instant {
        let mut t = now;
        loop {
            let mut done = Vec::new();
            let wake = self.device.advance(t, &mut done);
            if let Some(c) = done.first() {
                return c.done;
            }
            t = wake.unwrap_or(t + Duration::from_us(1));
        }
    }

    pub fn report_zones(&self, offset: u64, out: &mut [ZlZone]) -> Result<usize, SubmitError> {
        let info = self.device.info();
        let lba = info.lba_size_bytes;
        let zone = info.zoned().map_or(0, |z| z.zone_size_lbas);
        let report = self
            .device
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
        let mut summary = summarize(
            &id,
            &*self.device,
            &self.metrics,
            HostReport::default(),
            Vec::new(),
            self.errors.clone(),
        );
        summary.realtime = self.realtime_report();
        let files = render(&summary, &self.metrics, &*self.device, &self.cfg.to_toml());
        std::fs::create_dir_all(dir)
            .with_context(|| format!("zonelab_results: cannot create {}", dir.display()))?;
        for (name, text) in files {
            let p = dir.join(&name);
            std::fs::write(&p, text)
                .with_context(|| format!("zonelab_results: cannot write {}", p.display()))?;
        }
        Ok(())
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

/// Opens (or joins) the device `name`.
pub fn open(name: &str, options: &OpenOptions) -> Result<Shared> {
    let mut reg = registry()
        .lock()
        .map_err(|_| anyhow!("zonelab device registry poisoned"))?;
    let shared = match reg.get(name) {
        Some(s) => s.clone(),
        None => {
            let s = Arc::new(Mutex::new(Engine::new(name, options)?));
            reg.insert(name.to_string(), s.clone());
            s
        }
    };
    shared
        .lock()
        .map_err(|_| anyhow!("device {name} poisoned"))?
        .users += 1;
    Ok(shared)
}

// ---- the C ABI ----

/// The handle C holds: one per fio job.
pub struct Handle(Shared);

fn write_err(err: *mut c_char, len: usize, msg: &str) {
    if err.is_null() || len == 0 {
        return;
    }
    let bytes = msg.as_bytes();
    let n = bytes.len().min(len - 1);
    // SAFETY: the caller passes a buffer of `len` bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), err as *mut u8, n);
        *err.add(n) = 0;
    }
}

fn cstr(p: *const c_char) -> Option<String> {
    if p.is_null() {
        return None;
    }
    // SAFETY: the caller passes a NUL-terminated string.
    let s = unsafe { CStr::from_ptr(p) }
        .to_string_lossy()
        .trim()
        .to_string();
    (!s.is_empty()).then_some(s)
}

fn guarded<T>(default: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(default)
}

/// `key.path=value` overrides separated by commas (fio job files treat `;` as a comment, so
/// `;` is accepted only on the command line).
pub fn split_overrides(text: &str) -> Vec<String> {
    text.split([',', ';'])
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .map(String::from)
        .collect()
}

/// Opens or joins device `name`. `overrides` is a comma-separated list of `key.path=value`.
/// Returns NULL and a message in `err` on failure.
///
/// # Safety
/// Strings are NUL-terminated or NULL; `err` points to `err_len` writable bytes or is NULL.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn zl_open(
    name: *const c_char,
    preset: *const c_char,
    config_file: *const c_char,
    overrides: *const c_char,
    policy: *const c_char,
    retention: c_int,
    realtime: c_int,
    results: *const c_char,
    err: *mut c_char,
    err_len: usize,
) -> *mut Handle {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let options = OpenOptions {
            preset: cstr(preset),
            config_file: cstr(config_file),
            overrides: cstr(overrides)
                .map(|s| split_overrides(&s))
                .unwrap_or_default(),
            policy: cstr(policy),
            retention: retention != 0,
            realtime: realtime != 0,
            results: cstr(results).map(PathBuf::from),
        };
        let name = cstr(name).context("zonelab_device: the device needs a name")?;
        open(&name, &options)
    }));
    match result {
        Ok(Ok(shared)) => Box::into_raw(Box::new(Handle(shared))),
        Ok(Err(e)) => {
            write_err(err, err_len, &format!("{e:#}"));
            std::ptr::null_mut()
        }
        Err(_) => {
            write_err(
                err,
                err_len,
                "internal error (panic) while opening the device",
            );
            std::ptr::null_mut()
        }
    }
}

fn with<T>(h: *mut Handle, default: T, f: impl FnOnce(&mut Engine) -> T) -> T {
    if h.is_null() {
        return default;
    }
    // SAFETY: `h` came from `zl_open` and was not closed.
    let handle = unsafe { &*h };
    guarded(default, || match handle.0.lock() {
        Ok(mut e) => f(&mut e),
        Err(_) => panic!("device poisoned"),
    })
}

/// # Safety
/// `h` came from `zl_open`; `out` points to a `ZlInfo`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zl_info(h: *mut Handle, out: *mut ZlInfo) -> c_int {
    with(h, -5, |e| {
        // SAFETY: the caller passes a valid pointer.
        unsafe { *out = e.info() };
        0
    })
}

/// Runs read (0), write (1) or zone reset (2) of `len` bytes at `offset`, with `buf` as data (it
/// may be NULL without data retention). Returns 0 and the completion time in `done_ns`, or the
/// NVMe status `(SCT << 8) | SC`, or a negative errno.
///
/// # Safety
/// `h` came from `zl_open`; `buf` is NULL or holds `len` bytes; `done_ns` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zl_submit(
    h: *mut Handle,
    op: c_int,
    offset: u64,
    len: u64,
    buf: *mut u8,
    done_ns: *mut u64,
) -> c_int {
    with(h, -5, |e| {
        let data = (!buf.is_null() && len > 0)
            // SAFETY: the caller passes `len` bytes at `buf`.
            .then(|| unsafe { std::slice::from_raw_parts_mut(buf, len as usize) });
        match e.submit(op, offset, len, data) {
            Ok(done) => {
                // SAFETY: the caller passes a writable pointer.
                unsafe { *done_ns = done };
                0
            }
            Err(err) => err.code(),
        }
    })
}

/// The device's time now (virtual clock, or wall time since opening).
///
/// # Safety
/// `h` came from `zl_open`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zl_now(h: *mut Handle) -> u64 {
    with(h, 0, |e| e.now_ns())
}

/// Virtual time: moves the device clock forward to `t_ns` (completions reaped up to there).
///
/// # Safety
/// `h` came from `zl_open`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zl_advance(h: *mut Handle, t_ns: u64) {
    with(h, (), |e| {
        e.clock = e.clock.max(Instant::from_ns(t_ns));
        let now = e.clock;
        e.advance_to(now);
    })
}

/// Realtime mode: a completion modelled at `done_ns` reached fio now.
///
/// # Safety
/// `h` came from `zl_open`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zl_delivered(h: *mut Handle, done_ns: u64) {
    with(h, (), |e| {
        let now = e.now_ns();
        e.delivered(done_ns, now)
    })
}

/// Realtime mode: writes a line about late completions into `buf` and returns how many were
/// late (0: nothing to say).
///
/// # Safety
/// `h` came from `zl_open`; `buf` points to `len` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zl_lateness(h: *mut Handle, buf: *mut c_char, len: usize) -> u64 {
    with(h, 0, |e| match e.realtime_report() {
        Some(r) if r.late > 0 => {
            write_err(buf, len, &r.describe());
            r.late
        }
        _ => 0,
    })
}

/// Fills up to `n` zones from the one holding byte `offset`; returns how many, or < 0.
///
/// # Safety
/// `h` came from `zl_open`; `zones` holds `n` entries.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zl_report_zones(
    h: *mut Handle,
    offset: u64,
    zones: *mut ZlZone,
    n: u32,
) -> c_int {
    with(h, -5, |e| {
        // SAFETY: the caller passes `n` entries.
        let out = unsafe { std::slice::from_raw_parts_mut(zones, n as usize) };
        match e.report_zones(offset, out) {
            Ok(k) => k as c_int,
            Err(err) => -err.code().abs(),
        }
    })
}

/// Leaves the device; the last job to leave writes the results (if `zonelab_results` was set).
/// Returns 0, or -5 with a message in `err`.
///
/// # Safety
/// `h` came from `zl_open` and is not used again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zl_close(h: *mut Handle, err: *mut c_char, err_len: usize) -> c_int {
    if h.is_null() {
        return 0;
    }
    // SAFETY: `h` came from `zl_open` and is not used again.
    let handle = unsafe { Box::from_raw(h) };
    let result = catch_unwind(AssertUnwindSafe(|| leave(&handle.0)));
    match result {
        Ok(Ok(())) => 0,
        Ok(Err(e)) => {
            write_err(err, err_len, &format!("{e:#}"));
            -5
        }
        Err(_) => {
            write_err(
                err,
                err_len,
                "internal error (panic) while closing the device",
            );
            -5
        }
    }
}

/// Leaves the device. The device stays in the registry for the life of the process (a later
/// verify job finds the data); when no job uses it any more its results are written.
fn leave(shared: &Shared) -> Result<()> {
    let mut e = shared.lock().map_err(|_| anyhow!("device poisoned"))?;
    e.users -= 1;
    if e.users == 0 {
        e.write_results()
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests;
