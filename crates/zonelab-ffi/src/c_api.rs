//! The entry points fio's engine calls (`zl_*`): C strings and handles in, errno-style results
//! out, every call behind `catch_unwind`.

use std::ffi::{CStr, c_char, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};

use std::path::PathBuf;

use anyhow::{Context, anyhow};
use zonelab::time::Instant;

use super::{Engine, OpenOptions, Shared, ZlInfo, ZlZone, bind_file, leave, open, parse_bool};

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

/// Opens or joins device `name`. `overrides` is a comma-separated list of `key.path=value`;
/// `retention` is "1"/"0" (or true/false, yes/no, on/off) or NULL for the default; `state` a
/// device state file to load (if it exists) and save. Returns NULL and a message in `err` on
/// failure.
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
    retention: *const c_char,
    realtime: c_int,
    results: *const c_char,
    state: *const c_char,
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
            retention: cstr(retention)
                .map(|r| {
                    parse_bool(&r).with_context(|| format!("zonelab_retention={r}: use 1 or 0"))
                })
                .transpose()?,
            realtime: realtime != 0,
            results: cstr(results).map(PathBuf::from),
            state: cstr(state).map(PathBuf::from),
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

/// Runs read (0), write (1), zone reset (2) or trim (3) of `len` bytes at `offset`, with `buf` as data (it
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
    with(h, (), |e| e.advance_clock(Instant::from_ns(t_ns)))
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

/// Binds fio's file `filename` to the handle's device (see [`bind_file`]). Returns 0, or -22
/// with a message in `err`.
///
/// # Safety
/// `h` came from `zl_open`; `filename` is NUL-terminated; `err` holds `err_len` bytes or is NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zl_bind_file(
    h: *mut Handle,
    filename: *const c_char,
    err: *mut c_char,
    err_len: usize,
) -> c_int {
    let name = with(h, None, |e| Some(e.name.clone()));
    let (Some(name), Some(file)) = (name, cstr(filename)) else {
        return -22;
    };
    match guarded(Err(anyhow!("internal error (panic)")), || {
        bind_file(&name, &file)
    }) {
        Ok(()) => 0,
        Err(e) => {
            write_err(err, err_len, &format!("{e:#}"));
            -22
        }
    }
}
