//! The process-wide registry of devices by name (fio runs jobs as threads of one process), the
//! fio filenames bound to them, and saving changed devices at exit.

use std::collections::HashMap;
use std::ffi::c_int;
use std::panic::catch_unwind;
use std::sync::{Arc, Mutex, Once, OnceLock};

use anyhow::{Result, anyhow, bail};

use super::{Engine, OpenOptions, Shared};

/// Devices by name, and which device each fio filename belongs to.
#[derive(Default)]
struct Registry {
    devices: HashMap<String, Shared>,
    files: HashMap<String, String>,
}

fn registry() -> &'static Mutex<Registry> {
    static REGISTRY: OnceLock<Mutex<Registry>> = OnceLock::new();
    REGISTRY.get_or_init(|| Mutex::new(Registry::default()))
}

/// Opens (or joins) the device `name`. A job joining a device must not contradict the options
/// it was opened with.
pub fn open(name: &str, options: &OpenOptions) -> Result<Shared> {
    let mut reg = registry()
        .lock()
        .map_err(|_| anyhow!("zonelab device registry poisoned"))?;
    let shared = match reg.devices.get(name) {
        Some(s) => s.clone(),
        None => {
            let s = Arc::new(Mutex::new(Engine::new(name, options)?));
            reg.devices.insert(name.to_string(), s.clone());
            s
        }
    };
    drop(reg);
    let mut e = shared
        .lock()
        .map_err(|_| anyhow!("device {name} poisoned"))?;
    if let Some(why) = e.conflict(options) {
        bail!(
            "zonelab_device {name} is already open with other options ({why}); jobs sharing a \
             device give it the same options, or name another zonelab_device"
        );
    }
    if e.results.is_none() {
        e.results = options.results.clone();
    }
    if e.users == 0 && e._lock.is_none() {
        e.rejoin()?;
    }
    e.users += 1;
    drop(e);
    SAVE_AT_EXIT.call_once(register_exit_save);
    Ok(shared)
}

/// Binds fio's `filename` to device `name`: fio shares zone state between jobs by filename, so
/// one filename on two devices would mix their write pointers.
pub fn bind_file(name: &str, filename: &str) -> Result<()> {
    let mut reg = registry()
        .lock()
        .map_err(|_| anyhow!("zonelab device registry poisoned"))?;
    match reg.files.get(filename) {
        Some(other) if other != name => bail!(
            "filename {filename} is already zonelab_device {other}; fio shares zone state \
             between jobs with the same filename, so give zonelab_device {name} another filename"
        ),
        Some(_) => Ok(()),
        None => {
            reg.files.insert(filename.to_string(), name.to_string());
            Ok(())
        }
    }
}

static SAVE_AT_EXIT: Once = Once::new();

unsafe extern "C" {
    fn atexit(f: extern "C" fn()) -> c_int;
}

fn register_exit_save() {
    // SAFETY: `save_all` is a plain function that stays valid as long as this library.
    unsafe {
        atexit(save_all);
    }
}

/// At exit (or when fio unloads the engine): devices changed since they were last written,
/// because a job that failed in fio's set-up never reaches the engine's cleanup.
extern "C" fn save_all() {
    let _ = catch_unwind(|| {
        let Ok(reg) = registry().lock() else {
            return;
        };
        for (name, shared) in &reg.devices {
            if let Ok(mut e) = shared.lock()
                && e.dirty
                && let Err(err) = e.persist()
            {
                eprintln!("zonelab: device {name}: {err:#}");
            }
        }
    });
}

/// Leaves the device. The device stays in the registry for the life of the process (a later
/// verify job finds the data); when no job uses it any more its results and state are written.
pub(crate) fn leave(shared: &Shared) -> Result<()> {
    let mut e = shared.lock().map_err(|_| anyhow!("device poisoned"))?;
    e.users -= 1;
    if e.users > 0 {
        return Ok(());
    }
    let saved = e.persist();
    // No job uses the device: another process may use the state file until one joins again.
    e._lock = None;
    saved
}
