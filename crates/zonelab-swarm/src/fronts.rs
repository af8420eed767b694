//! The front ends a command stream goes through, behind one small trait: the device seam
//! itself, the device manager on a state file across process lifetimes, and the fio engine.
//! Each answers a step the way the reference model's answers are written (bytes read, an
//! append's LBA, or nothing) so the checker compares them directly.

use std::path::PathBuf;

use anyhow::{Context, Result, anyhow, bail};
use zonelab::Experiment;
use zonelab::config::ExperimentConfig;
use zonelab::device::{Command, Data, DeviceModel, Op, Status, ZoneState, catch_up};
use zonelab::state;
use zonelab::time::{Duration, Instant};
use zonelab_cli::state_file::{self, Loaded};
use zonelab_ffi::{Engine, OpenOptions, SubmitError, ZL_READ, ZL_RESET, ZL_WRITE};

use crate::commands::{Cmd, Step};

/// Background work a device may ask for in one idle gap before the gap counts as a hang
/// (chosen: a gap of 50 ms on the tiniest device wakes it a few hundred times at most).
pub const MAX_WAKES_PER_GAP: u32 = 100_000;

/// Simulated time between two commands of a stream.
pub const STEP_NS: u64 = 1_000;

pub type Answer = Result<Vec<u8>, Status>;

pub trait Frontend {
    /// Sends one step; the device's answer.
    fn run(&mut self, c: &Cmd, s: &Step) -> Result<Answer>;
    /// Lets `ns` of simulated time pass with no command.
    fn idle(&mut self, ns: u64) -> Result<()>;
    /// Every zone's state and write pointer (from the zone's start).
    fn zones(&mut self) -> Result<Vec<(ZoneState, u64)>>;
    /// The device's invariants; save -> load -> the same device where the front end saves.
    fn check(&mut self) -> Result<()>;
}

fn command<'a>(c: &Cmd, s: &'a mut Step, buf: &'a mut [u8]) -> Command<'a> {
    let nlb = |bytes: usize, lba: usize| (bytes / lba) as u64;
    match *c {
        Cmd::Write { nlb: n, .. } => Command::write(s.slba, n).with_data(Data::Out(&s.data)),
        Cmd::Append { nlb: n, .. } => Command::append(s.slba, n).with_data(Data::Out(&s.data)),
        Cmd::Read { nlb: n, .. } => {
            let _ = nlb;
            Command::read(s.slba, n).with_data(Data::In(buf))
        }
        Cmd::Manage { action, all, .. } => {
            let op = if all {
                Op::ZoneMgmtAll(action.zone_action())
            } else {
                Op::ZoneMgmt(action.zone_action())
            };
            Command::new(op, s.slba, 0)
        }
        Cmd::Idle { .. } => unreachable!("idle steps are not commands"),
    }
}

/// The answer in the reference model's form.
fn answer(c: &Cmd, r: Result<u64, Status>, buf: Vec<u8>) -> Answer {
    r.map(|a| match c {
        Cmd::Read { .. } => buf,
        Cmd::Append { .. } => a.to_le_bytes().to_vec(),
        _ => vec![],
    })
}

fn read_len(c: &Cmd, lba: u64) -> usize {
    match *c {
        Cmd::Read { nlb, .. } => (nlb * lba) as usize,
        _ => 0,
    }
}

fn zones_of(d: &dyn DeviceModel) -> Vec<(ZoneState, u64)> {
    let z = d.info().zoned().expect("a zoned device");
    (0..z.zone_count)
        .map(|i| {
            let d = d.zone(0, i);
            (d.state, d.wp - d.zslba)
        })
        .collect()
}

/// Saves `device`, loads the file back, saves that: the two files must be the same bytes.
pub fn save_load_same(
    exp: &Experiment,
    identity: &str,
    now: Instant,
    device: &dyn DeviceModel,
) -> Result<()> {
    let Ok(bytes) = state::encode(identity, now, device) else {
        return Ok(()); // a model without state files (an eZNS layer): nothing to compare
    };
    let saved = state::decode(&bytes).map_err(|e| anyhow!("save -> load: {e}"))?;
    let back = state::restore(exp, saved.device).map_err(|e| anyhow!("save -> load: {e}"))?;
    if !state::saves_as(&bytes, identity, now, &*back).map_err(|e| anyhow!("{e}"))? {
        let again = state::encode(identity, now, &*back).map_err(|e| anyhow!("{e}"))?;
        bail!(
            "save -> load -> save gives another state file ({} bytes, then {})",
            bytes.len(),
            again.len()
        );
    }
    Ok(())
}

/// The device seam, as every front end calls it.
pub struct Direct {
    pub exp: Experiment,
    identity: String,
    device: Box<dyn DeviceModel>,
    now: Instant,
    wake: Option<Instant>,
}

impl Direct {
    pub fn new(cfg: &ExperimentConfig, exp: Experiment) -> Self {
        let device = zonelab::experiment::build_device(&exp);
        let now = device.idle_at();
        Direct {
            identity: state::identity(cfg),
            exp,
            device,
            now,
            wake: Some(now),
        }
    }
}

impl Frontend for Direct {
    fn run(&mut self, c: &Cmd, s: &Step) -> Result<Answer> {
        self.now += Duration::from_ns(STEP_NS);
        catch_up(&mut *self.device, &mut self.wake, self.now, &mut Vec::new());
        let lba = self.device.info().lba_size_bytes;
        let mut buf = vec![0u8; read_len(c, lba)];
        let mut step = Step {
            slba: s.slba,
            data: s.data.clone(),
            want: Ok(vec![]),
        };
        let r = self
            .device
            .submit(self.now, command(c, &mut step, &mut buf))
            .map(|a| a.lba);
        Ok(answer(c, r, buf))
    }

    fn idle(&mut self, ns: u64) -> Result<()> {
        let end = self.now + Duration::from_ns(ns);
        let mut wakes = 0;
        let mut done = Vec::new();
        while let Some(t) = self.wake.filter(|&t| t <= end) {
            wakes += 1;
            if wakes > MAX_WAKES_PER_GAP {
                bail!(
                    "hang: the device asked to be woken {wakes} times in a {ns} ns idle gap (at {t})"
                );
            }
            self.wake = self.device.advance(t.max(self.now), &mut done);
            self.now = self.now.max(t);
            if self.wake == Some(t) {
                self.wake = Some(t + Duration::from_ns(1));
            }
        }
        self.now = end;
        self.wake = self.device.advance(end, &mut done);
        Ok(())
    }

    fn zones(&mut self) -> Result<Vec<(ZoneState, u64)>> {
        Ok(zones_of(&*self.device))
    }

    fn check(&mut self) -> Result<()> {
        self.device.check_invariants();
        save_load_same(&self.exp, &self.identity, self.now, &*self.device)
    }
}

/// `zonelab zone` / `zonelab io`: every process lifetime loads the state file (or creates the
/// device), settles it, runs its commands, saving after each, and ends.
pub struct Manager {
    path: PathBuf,
    cfg: ExperimentConfig,
    per_life: u32,
    left: u32,
    loaded: Option<Loaded>,
}

impl Manager {
    pub fn new(path: PathBuf, cfg: ExperimentConfig, per_life: u32) -> Self {
        Manager {
            path,
            cfg,
            per_life: per_life.max(1),
            left: 0,
            loaded: None,
        }
    }

    /// The device of the current process, starting one if none runs.
    fn device(&mut self) -> Result<&mut Loaded> {
        if self.loaded.is_none() {
            // As `zonelab zone ... --state FILE`: with the configuration when the file does not
            // exist yet, from the file alone once it does.
            let cfg = (!self.path.exists()).then(|| self.cfg.clone());
            let l = state_file::open(&self.path, cfg, &[], &|c| c.validate_device("swarm"))
                .context("a new process cannot load the state file")?;
            self.loaded = Some(l);
            self.left = self.per_life;
        }
        Ok(self.loaded.as_mut().expect("loaded"))
    }
}

impl Frontend for Manager {
    fn run(&mut self, c: &Cmd, s: &Step) -> Result<Answer> {
        let path = self.path.clone();
        let d = self.device()?;
        let now = state_file::settle(d);
        let lba = d.driver.device().info().lba_size_bytes;
        let mut buf = vec![0u8; read_len(c, lba)];
        let mut step = Step {
            slba: s.slba,
            data: s.data.clone(),
            want: Ok(vec![]),
        };
        let r = state_file::submit_and_save(&path, d, now, command(c, &mut step, &mut buf))?
            .map(|s| s.lba);
        self.left -= 1;
        if self.left == 0 {
            self.loaded = None; // the process ends
        }
        Ok(answer(c, r, buf))
    }

    fn idle(&mut self, _ns: u64) -> Result<()> {
        // No process holds the device: its clock stands still until the next one loads it.
        self.loaded = None;
        Ok(())
    }

    fn zones(&mut self) -> Result<Vec<(ZoneState, u64)>> {
        Ok(zones_of(self.device()?.driver.device()))
    }

    fn check(&mut self) -> Result<()> {
        self.device()?.driver.device().check_invariants();
        Ok(())
    }
}

/// The fio engine's device: reads, writes and resets in bytes, virtual time.
pub struct Fio {
    engine: Engine,
    lba: u64,
    now: Instant,
}

impl Fio {
    pub fn new(name: &str, experiment_file: &std::path::Path) -> Result<Self> {
        let options = OpenOptions {
            config_file: Some(experiment_file.display().to_string()),
            ..OpenOptions::default()
        };
        let engine = Engine::standalone(name, &options)?;
        let lba = engine.device().info().lba_size_bytes;
        let now = Instant::from_ns(engine.now_ns());
        Ok(Fio { engine, lba, now })
    }
}

impl Frontend for Fio {
    fn run(&mut self, c: &Cmd, s: &Step) -> Result<Answer> {
        self.now += Duration::from_ns(STEP_NS);
        self.engine.advance_clock(self.now);
        let lba = self.lba;
        let (op, len, mut buf) = match *c {
            Cmd::Write { nlb, .. } => (ZL_WRITE, nlb * lba, s.data.clone()),
            Cmd::Read { nlb, .. } => (ZL_READ, nlb * lba, vec![0u8; (nlb * lba) as usize]),
            Cmd::Manage { .. } => (ZL_RESET, 0, vec![]),
            _ => bail!("the fio engine takes reads, writes and resets only: {c:?}"),
        };
        let data = (!buf.is_empty()).then_some(&mut buf[..]);
        match self.engine.submit(op, s.slba * lba, len, data) {
            Ok(_) => Ok(Ok(if op == ZL_READ { buf } else { vec![] })),
            Err(SubmitError::Nvme(st)) => Ok(Err(st)),
            Err(e) => bail!("the engine refused {c:?}: {e:?}"),
        }
    }

    fn idle(&mut self, ns: u64) -> Result<()> {
        self.now += Duration::from_ns(ns);
        self.engine.advance_clock(self.now);
        Ok(())
    }

    fn zones(&mut self) -> Result<Vec<(ZoneState, u64)>> {
        Ok(zones_of(self.engine.device()))
    }

    fn check(&mut self) -> Result<()> {
        self.engine.device().check_invariants();
        Ok(())
    }
}
