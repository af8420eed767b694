//! Device state files on disk (`--state FILE`): load a device, or build it when the file does
//! not exist yet, and save it back atomically. The format and its checks are the core's
//! ([`zonelab::state`]); this module only reads and writes files. (The atomic write is
//! `zonelab_io::write_atomic`, in `crates/zonelab-io`, which the fio engine shares without
//! depending on the CLI.)

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result, bail};
use zonelab::config::ExperimentConfig;
use zonelab::device::{Command, DeviceModel, Status};
use zonelab::driver::{Driver, Served};
use zonelab::experiment::build_device;
use zonelab::state;
use zonelab::time::Instant;
use zonelab::{ConfigError, Experiment};

/// A device from a state file, or new.
pub struct Loaded {
    pub cfg: ExperimentConfig,
    pub exp: Experiment,
    /// The device, driven one command at a time as every front end drives one.
    pub driver: Driver,
    /// When work on it can start: after everything it did and its saved clock.
    pub start: Instant,
    /// Its configuration as the state file records it.
    pub identity: String,
    /// The file did not exist: the device is new (prefilled and faulted as configured).
    pub created: bool,
    /// The file's lock, held until the device is saved and dropped: a second process using
    /// the file is refused meanwhile.
    pub lock: zonelab_io::StateLock,
}

/// Who holds a state file, for the message a second user gets: this process's command line.
pub fn holder() -> String {
    let mut line: String = std::env::args().collect::<Vec<_>>().join(" ");
    if line.len() > 200 {
        let cut = (0..=200)
            .rev()
            .find(|&i| line.is_char_boundary(i))
            .unwrap_or(0);
        line.truncate(cut);
    }
    line
}

/// Loads the device saved in `path`. If `cfg` is given it must describe the same device (an
/// error names the first setting that differs); otherwise the file's configuration is used,
/// with `overrides` applied (and the device must still be the same). If the file does not exist
/// the device is built from `cfg`. `validate` turns the configuration into the experiment (with
/// or without a workload).
pub fn open(
    path: &Path,
    cfg: Option<ExperimentConfig>,
    overrides: &[String],
    validate: &dyn Fn(&ExperimentConfig) -> Result<Experiment, ConfigError>,
) -> Result<Loaded> {
    let in_file = |e: state::StateError| anyhow::anyhow!("{}: {e}", path.display());
    if !path.exists() && cfg.is_none() {
        bail!(
            "{} does not exist; give --preset or --experiment to create the device",
            path.display()
        );
    }
    let lock = zonelab_io::lock(path, &holder())?;
    if !path.exists() {
        let Some(cfg) = cfg else {
            bail!("{} was removed while it was being opened", path.display());
        };
        let exp = validate(&cfg)?;
        refuse_faults(path, &exp)?;
        let device = build_device(&exp);
        let start = device.idle_at();
        return Ok(Loaded {
            identity: state::identity(&cfg),
            start,
            driver: Driver::new(device, start, exp.sampling(), "zonelab"),
            cfg,
            exp,
            created: true,
            lock,
        });
    }
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let saved = state::decode(&bytes).map_err(in_file)?;
    let cfg = match cfg {
        Some(c) => c,
        None => ExperimentConfig::parse(&saved.identity, overrides)
            .with_context(|| format!("{}: the device's configuration", path.display()))?,
    };
    let identity = state::identity(&cfg);
    state::check_identity(&saved.identity, &identity).map_err(in_file)?;
    let exp = validate(&cfg)?;
    refuse_faults(path, &exp)?;
    let device = state::restore(&exp, saved.device).map_err(in_file)?;
    let start = device.idle_at().max(saved.now);
    Ok(Loaded {
        start,
        driver: Driver::new(device, start, exp.sampling(), "zonelab"),
        cfg,
        exp,
        identity,
        created: false,
        lock,
    })
}

/// [`state::check_storable`] (no host layer, no run-time faults), naming the file.
fn refuse_faults(path: &Path, exp: &Experiment) -> Result<()> {
    state::check_storable(exp).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// Saves `device` to `path` atomically, with the clock at `now`.
/// The file is written as it is made: the device's data is not held a second time.
pub fn save(path: &Path, identity: &str, now: Instant, device: &dyn DeviceModel) -> Result<()> {
    zonelab_io::write_atomic_with(path, |f| {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, f);
        state::encode_to(&mut out, identity, now, device)?;
        Ok(out.flush()?)
    })
}

/// Brings a loaded device to the time work on it can start: the background work that was due
/// while no process held it has run (as it would have on a drive left powered). Returns that time.
pub fn settle(d: &mut Loaded) -> Instant {
    let t = d.start;
    d.driver.advance(t);
    t
}

/// Runs one command on a loaded device at `now` and saves the device to `path`, whatever the
/// device answered: what a failed command did before it failed stays done (a Select All that
/// stops part-way leaves the zones before it changed), as on a drive and as every other front
/// end (a run, a replay, the fio engine) keeps it. The answer comes back only once the save
/// is durable, so a caller never reports a success that was not kept.
pub fn submit_and_save(
    path: &Path,
    d: &mut Loaded,
    now: Instant,
    cmd: Command<'_>,
) -> Result<Result<Served, Status>> {
    let result = d.driver.submit(now, cmd);
    let device = d.driver.device();
    let clock = match &result {
        Ok(s) => s.done.max(device.idle_at()),
        Err(_) => now,
    };
    save(path, &d.identity, clock, device)?;
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (issue 36, defect 10): `zonelab io write` printed "write: Success" before a
    /// save that then failed. The device's answer now comes back only once the save is
    /// durable; a failed save is the caller's error, with no answer to report.
    #[test]
    fn a_command_is_answered_only_once_its_device_is_saved() {
        // Removed when dropped, whether the test passes or fails.
        let tmp = tempfile::Builder::new()
            .prefix("zonelab-answer-")
            .tempdir()
            .expect("a temporary directory");
        let dir = tmp.path().to_path_buf();
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("d.state");
        let text = zonelab::config::preset_file("rezns-40g");
        let cfg = ExperimentConfig::parse(&text, &["device.zones.zone_count=4".into()]).unwrap();
        let mut d = open(&path, Some(cfg), &[], &|c| c.validate_device("t")).unwrap();
        let now = settle(&mut d);
        let nowhere = dir.join("missing/d.state");
        let r = submit_and_save(&nowhere, &mut d, now, Command::write(0, 1));
        assert!(r.is_err(), "no answer when the save fails");
        let r = submit_and_save(&path, &mut d, now, Command::write(1, 1)).unwrap();
        assert!(r.is_ok());
        assert!(path.exists());
    }

    /// A device with faults still to come cannot be kept in a state file: refused when it is
    /// opened, naming the fields, before any work is done on it.
    #[test]
    fn a_device_with_run_time_faults_is_refused_a_state_file() {
        let tmp = tempfile::Builder::new()
            .prefix("zonelab-faults-")
            .tempdir()
            .expect("a temporary directory");
        let path = tmp.path().join("d.state");
        let mut text = zonelab::config::preset_file("rezns-40g");
        text.push_str("\n[[faults.zones]]\nat = \"1ms\"\nzone = 1\nstate = \"offline\"\n");
        let cfg = ExperimentConfig::parse(&text, &["device.zones.zone_count=4".into()]).unwrap();
        let e = open(&path, Some(cfg), &[], &|c| c.validate_device("t"))
            .err()
            .expect("refused");
        assert!(e.to_string().contains("faults.zones"), "{e}");
        assert!(!path.exists());
    }
}
