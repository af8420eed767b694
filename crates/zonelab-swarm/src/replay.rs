//! Trace replay as a front end: the stream is written as a ZoneLab trace (the format `[trace]`
//! records) and replayed by the kernel at its timestamps, one command at a time. A replay stops
//! at the first command the device refuses, with its status and trace line; the reference model
//! says which line that must be. Afterwards every zone's state and write pointer, and the bytes
//! below each write pointer (zeros: a trace carries no data), are compared with the model.

use std::fmt::Write as _;
use std::io::Cursor;

use anyhow::{Result, bail};
use zonelab::Experiment;
use zonelab::config::ExperimentConfig;
use zonelab::device::{Command, Data, Op, Status};
use zonelab::experiment::{Inputs, RunLimits};
use zonelab::testing::reference::Model;
use zonelab::trace::{CSV_HEADER, TraceOp};

use crate::commands::{Cmd, expect};
use crate::fronts::STEP_NS;

/// The trace of `cmds` on a device the model describes (writes and appends without data),
/// and the line and status of the first command the model refuses.
pub fn trace(model: &mut Model, cmds: &[Cmd]) -> (String, Option<(u64, Status)>) {
    let mut text = format!("{CSV_HEADER}\n");
    let (mut t, mut line) = (0u64, 1u64);
    for (i, c) in cmds.iter().enumerate() {
        t += STEP_NS;
        if let Cmd::Idle { ns } = c {
            t += ns;
            continue;
        }
        let (op, nlb) = match *c {
            Cmd::Write { nlb, .. } => (Op::Write, nlb),
            Cmd::Append { nlb, .. } => (Op::Append, nlb),
            Cmd::Read { nlb, .. } => (Op::Read, nlb),
            Cmd::Manage {
                action, all: false, ..
            } => (Op::ZoneMgmt(action.zone_action()), 0),
            Cmd::Manage {
                action, all: true, ..
            } => (Op::ZoneMgmtAll(action.zone_action()), 0),
            Cmd::Idle { .. } => unreachable!(),
        };
        // The model's bytes for a write are the zeros the replay writes.
        let mut zero = model.clone();
        let step = expect(&mut zero, 0, i, c).expect("a command");
        let slba = step.slba;
        let data_free = match *c {
            Cmd::Write { nlb, .. } => model
                .write(slba, nlb, &vec![0; (nlb * model.lba) as usize])
                .map(|_| ()),
            Cmd::Append { nlb, .. } => model
                .append(slba, nlb, &vec![0; (nlb * model.lba) as usize])
                .map(|_| ()),
            _ => {
                *model = zero;
                step.want.map(|_| ())
            }
        };
        line += 1;
        let zone = slba / model.zone_lbas;
        let _ = writeln!(
            text,
            "{t},0,0,{},0,{zone},{slba},{nlb},,,0,swarm,",
            TraceOp::of(op).name()
        );
        if let Err(s) = data_free {
            return (text, Some((line, s)));
        }
    }
    (text, None)
}

/// Replays `cmds` on the device of `experiment` (a file without a workload); the number of
/// device commands replayed.
pub fn check(experiment: &str, model: &mut Model, cmds: &[Cmd], limits: RunLimits) -> Result<u64> {
    let with_replay =
        format!("{experiment}\n[[replay]]\ntrace = \"swarm.csv\"\nmode = \"timed\"\niodepth = 1\n");
    let exp: Experiment = ExperimentConfig::parse(&with_replay, &[])?.validate("swarm")?;
    let (text, refused) = trace(model, cmds);
    let inputs = Inputs {
        traces: vec![Box::new(Cursor::new(text.into_bytes()))],
        limits,
        ..Inputs::default()
    };
    let mut out = zonelab::run(&exp, inputs, 0, &mut |_| {})?;
    if out.summary.stopped_early.is_some() {
        bail!(
            "hang: the replay ran out of its budget ({:?})",
            out.summary.stopped_early
        );
    }
    let got = out
        .summary
        .errors
        .first()
        .map(|e| (e.trace_line, e.status.clone()));
    let want = refused.map(|(line, s)| (Some(line), s.to_string()));
    if got != want || out.summary.errors_total > 1 {
        bail!(
            "replay: the device refused {got:?} ({} in all), the reference {want:?}",
            out.summary.errors_total
        );
    }
    let d = &mut *out.device;
    for (z, mz) in model.zones.iter().enumerate() {
        let zd = d.zone(0, z as u32);
        if (zd.state, zd.wp - zd.zslba) != (mz.state, mz.wp) {
            bail!(
                "replay: zone {z} ends {:?} at {}, the reference {:?} at {}",
                zd.state,
                zd.wp - zd.zslba,
                mz.state,
                mz.wp
            );
        }
        let lbas = (mz.data.len() as u64) / model.lba;
        if lbas > 0 {
            let mut buf = vec![0xA5u8; mz.data.len()];
            let now = d.idle_at();
            let slba = z as u64 * model.zone_lbas;
            let r = d.submit(now, Command::read(slba, lbas).with_data(Data::In(&mut buf)));
            if r.is_err() || buf != mz.data {
                bail!(
                    "replay: zone {z}'s {lbas} LBAs read back {:?}, not what was written",
                    r.err()
                );
            }
        }
    }
    Ok(out.summary.ops.values().map(|o| o.count).sum())
}
