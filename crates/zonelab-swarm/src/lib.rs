//! The seed swarm: one seed draws everything (a device from tiny to small, a firmware policy
//! with its parameters, a front end and a workload), so any failure is one number to replay.
//! It replaces the separate fuzzers (mutated configs; command streams per policy), whose fixed
//! geometries never drew a capacity below the zone size with small units, abandoned zones or
//! state files across processes.
//!
//! A case ([`Case`]) is an experiment file plus, for the command-level front ends, a command
//! stream. Checkers run after every step:
//! - the reference model of the zone rules ([`zonelab::testing::reference`]): the same status,
//!   every zone's state and write pointer;
//! - every byte a read returns equals what the reference holds;
//! - the device's own invariants (`check_invariants`);
//! - no panic (caught, with the message and where);
//! - no hang: a step budget (wake-ups per idle gap, events per run) and a simulated-time budget
//!   (the kernel's [`RunLimits`]), and in the binary a wall-clock watchdog as the last resort;
//! - save -> load -> the same device (byte-identical state files) after every step on the
//!   device seam, at every process lifetime through the device manager, and at the end of a run.
//!
//! `scripts/swarm.sh [SEEDS]` runs it; `cargo test -p zonelab-swarm` runs a bounded part and
//! replays the shrunk cases in `regressions/`. A failing seed prints the one command that
//! replays it and, shrunk, is written as a case file for `regressions/`.

pub mod commands;
pub mod draw;
pub mod fronts;
pub mod replay;
pub mod rng;
pub mod runs;
pub mod shrink;

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use zonelab::config::ExperimentConfig;
use zonelab::experiment::RunLimits;
use zonelab::testing::reference::Model;
use zonelab::time::Duration;

use commands::{Cmd, expect};
use draw::Front;
use fronts::Frontend;
use rng::Rng;

/// One case: everything a seed drew. A case file (JSON) holds one, so a shrunk case replays
/// without its seed's drawing code.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Case {
    pub seed: u64,
    pub front: Front,
    /// The experiment file: device, firmware and data; for [`Front::Run`] its workload too.
    pub experiment: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<Cmd>,
    /// What the case once found (regression files).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
}

/// A run's budgets: far above what any drawn case needs, so running out means a hang.
pub fn limits() -> RunLimits {
    RunLimits {
        max_events: Some(20_000_000),
        max_simulated: Some(Duration::from_secs(3_600)),
        stop: None,
    }
}

/// The case seed `seed` draws.
pub fn draw(seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let front = match rng.range(0, 99) {
        0..=29 => Front::Direct,
        30..=44 => Front::Manager {
            per_life: rng.range(1, 3) as u32,
        },
        45..=59 => Front::Fio,
        60..=74 => Front::Replay,
        _ => Front::Run,
    };
    let profile = match front {
        Front::Run => runs::profile(&mut rng),
        _ => draw::Profile::Tiny,
    };
    let mut device = draw::device(&mut rng, profile);
    // The command-level front ends but the device manager (whose state files hold one ZNS
    // device) also drive drive arrays.
    if matches!(front, Front::Direct | Front::Fio | Front::Replay) && rng.chance(15) {
        draw::array(&mut rng, &mut device);
        if rng.chance(30) {
            draw::static_over(&mut rng, &mut device);
        }
    }
    // They also drive zones emulated over a conventional SSD (some with static zones on top).
    if matches!(front, Front::Direct | Front::Fio | Front::Replay)
        && rng.chance(10)
        && let Some(emulated) = draw::emulated(&mut rng)
    {
        device = emulated;
    }
    let mut experiment = device.toml.clone();
    let mut commands = Vec::new();
    match front {
        Front::Run => experiment.push_str(&runs::workload(&mut rng, &device, profile)),
        Front::Manager { .. } => {
            let n = rng.range(5, 40) as usize;
            commands = commands::stream(&mut rng, &device, front, n);
        }
        _ => {
            let n = rng.range(10, 200) as usize;
            commands = commands::stream(&mut rng, &device, front, n);
        }
    }
    Case {
        seed,
        front,
        experiment,
        commands,
        note: String::new(),
    }
}

/// What a case came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Checked: this many device commands.
    Passed {
        commands: u64,
    },
    /// `check` refused the drawn configuration, naming a field: its message.
    Refused(String),
    Failed(Failure),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub panic: bool,
    pub message: String,
}

thread_local! {
    static PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Keeps a panic's message and place for the case that raised it, instead of printing it
/// (the swarm reports it with its seed).
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let at = info.location().map(|l| l.to_string()).unwrap_or_default();
        PANIC.with(|p| *p.borrow_mut() = Some(format!("{msg} (at {at})")));
    }));
}

/// Runs a case with every checker; a panic anywhere is caught and reported.
pub fn run(case: &Case) -> Outcome {
    PANIC.with(|p| *p.borrow_mut() = None);
    let dir = scratch(case.seed);
    let result = catch_unwind(AssertUnwindSafe(|| check(case, &dir)));
    let _ = std::fs::remove_dir_all(&dir);
    match result {
        Ok(Ok(Ok(commands))) => Outcome::Passed { commands },
        Ok(Ok(Err(why))) => Outcome::Refused(why),
        Ok(Err(e)) => Outcome::Failed(Failure {
            panic: false,
            message: format!("{e:#}"),
        }),
        Err(_) => Outcome::Failed(Failure {
            panic: true,
            message: PANIC
                .with(|p| p.borrow_mut().take())
                .unwrap_or_else(|| "a panic".into()),
        }),
    }
}

/// A directory of this process for the case's files (state files, experiment files).
fn scratch(seed: u64) -> PathBuf {
    std::env::temp_dir().join(format!("zonelab-swarm-{}-{seed}", std::process::id()))
}

/// The checks of a case: `Ok(device commands)`, or `Err(why)` if check refused its
/// experiment (naming a field, as it must).
fn check(case: &Case, dir: &std::path::Path) -> Result<Result<u64, String>> {
    if case.front == Front::Run {
        return match runs::check(&case.experiment, limits())? {
            runs::RunResult::Refused(why) => Ok(Err(why)),
            runs::RunResult::Ran(n) => Ok(Ok(n)),
        };
    }
    let cfg = match ExperimentConfig::parse(&case.experiment, &[]) {
        Ok(c) => c,
        Err(e @ zonelab::ConfigError::Field { .. }) => return Ok(Err(e.to_string())),
        Err(e) => bail!("refused without naming a field: {e}"),
    };
    let exp = match cfg.validate_device("swarm") {
        Ok(e) => e,
        Err(e @ zonelab::ConfigError::Field { .. }) => return Ok(Err(e.to_string())),
        Err(e) => bail!("refused without naming a field: {e}"),
    };
    let mut model = Model::of(&exp.info()).context("a zoned device")?;
    if case.front == Front::Replay {
        return replay::check(&case.experiment, &mut model, &case.commands, limits()).map(Ok);
    }
    std::fs::create_dir_all(dir)?;
    let mut front: Box<dyn Frontend> = match case.front {
        Front::Direct => Box::new(fronts::Direct::new(&cfg, exp)),
        Front::Manager { per_life } => Box::new(fronts::Manager::new(
            dir.join("device.state"),
            cfg,
            per_life,
        )),
        Front::Fio => {
            let file = dir.join("device.toml");
            std::fs::write(&file, &case.experiment)?;
            Box::new(fronts::Fio::new(&format!("swarm-{}", case.seed), &file)?)
        }
        Front::Replay | Front::Run => unreachable!(),
    };
    stream(case, &mut model, &mut *front).map(Ok)
}

/// Sends the case's commands through `front`, checking after every step.
fn stream(case: &Case, model: &mut Model, front: &mut dyn Frontend) -> Result<u64> {
    let mut sent = 0;
    for (i, c) in case.commands.iter().enumerate() {
        let Some(step) = expect(model, case.seed, i, c) else {
            if let Cmd::Idle { ns } = c {
                front.idle(*ns).with_context(|| format!("step {i} {c:?}"))?;
            }
            continue;
        };
        let got = front
            .run(c, &step)
            .with_context(|| format!("step {i} {c:?}"))?;
        sent += 1;
        if got != step.want {
            bail!(
                "step {i} {c:?}: the device answered {}, the reference {}",
                show(&got),
                show(&step.want)
            );
        }
        let zones = front.zones()?;
        for (z, (dz, mz)) in zones.iter().zip(&model.zones).enumerate() {
            if *dz != (mz.state, mz.wp) {
                bail!(
                    "after step {i} {c:?}: zone {z} is {:?} at {}, the reference {:?} at {}",
                    dz.0,
                    dz.1,
                    mz.state,
                    mz.wp
                );
            }
        }
        front
            .check()
            .with_context(|| format!("after step {i} {c:?}"))?;
    }
    Ok(sent)
}

fn show(a: &fronts::Answer) -> String {
    match a {
        Ok(b) if b.len() > 16 => format!("{} bytes (first differing shown in the case)", b.len()),
        Ok(b) => format!("{b:?}"),
        Err(s) => s.to_string(),
    }
}

/// The one command that replays seed `seed`.
pub fn replay_command(seed: u64) -> String {
    format!("scripts/swarm.sh --seed {seed}")
}
