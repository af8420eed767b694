//! Whole experiments as a case: fio-like jobs (writes that fill, abandon or reset zones,
//! appends, random and sequential reads, several clones, think time and start delays, prefill)
//! or host layers (F2FS-like and ZenFS-like file layers under fio-on-files, block updates or
//! the KV store, and eZNS), each checked by `zonelab check`'s validation first. A refused file
//! must name its field; an accepted one must run to its end within its budgets, with no
//! command refused by the device (what check accepts, the run must be able to do), no host
//! deadlock, and save -> load -> the same device at the end.

use std::fmt::Write as _;

use anyhow::{Result, bail};
use zonelab::config::ExperimentConfig;
use zonelab::experiment::{Inputs, RunLimits};

use crate::draw::{DeviceDraw, Profile};
use crate::fronts::save_load_same;
use crate::rng::Rng;

/// What a run's workload is, drawn before its device (which must suit it).
pub fn profile(rng: &mut Rng) -> Profile {
    match rng.range(0, 9) {
        0 | 1 => Profile::Files,
        2 => Profile::Ezns,
        _ => Profile::Tiny,
    }
}

/// A workload of `profile` for the device `d`, as `[[job]]`s or host-layer tables.
pub fn workload(rng: &mut Rng, d: &DeviceDraw, profile: Profile) -> String {
    let mut s = String::new();
    if profile == Profile::Tiny && rng.chance(20) {
        let _ = writeln!(
            s,
            "[prefill]\nfraction = {}\nfill = [0.1, 0.9]\npattern = \"random\"",
            rng.pick(&[0.2, 0.5])
        );
    }
    match profile {
        Profile::Files if rng.chance(50) => fs(rng, d, &mut s),
        Profile::Files => kv(rng, &mut s),
        Profile::Ezns => ezns(rng, d, &mut s),
        Profile::Tiny => {
            for j in 0..rng.range(1, 3) {
                job(rng, d, j, &mut s);
            }
        }
    }
    if profile == Profile::Files && rng.chance(20) {
        ride_through(rng, d, &mut s);
    }
    s
}

/// The file layer rides through (`on_zone_error = "relocate"`) a zone going Read Only and
/// writes failing with Write Fault: every rejection must be ridden through ([`check`]). Not
/// the first three zones: a ZenFS metadata-log zone gone Read Only stops the layer, by design.
fn ride_through(rng: &mut Rng, d: &DeviceDraw, s: &mut String) {
    *s = s.replacen("[fs]\n", "[fs]\non_zone_error = \"relocate\"\n", 1);
    if d.zone_count > 4 {
        let _ = writeln!(
            s,
            "[[faults.zones]]\nat = \"{}us\"\nzone = {}\nstate = \"read_only\"",
            rng.range(0, 20_000),
            rng.range(3, d.zone_count - 1)
        );
    }
    let _ = writeln!(
        s,
        "[[faults.commands]]\nops = \"writes\"\nstatus = \"{}\"\nrate = {}",
        rng.pick(&["write_fault", "internal_error"]),
        rng.pick(&[0.001, 0.01, 0.05])
    );
}

fn job(rng: &mut Rng, d: &DeviceDraw, j: u64, s: &mut String) {
    let zones = d.zone_count;
    let lba = d.lba;
    let rw = rng.pick(&["write", "write", "write", "randread", "read", "randrw"]);
    let bs = lba * rng.pick(&[1, 2, 4, 8]);
    let first = rng.range(0, zones - 1);
    let count = rng.range(1, zones - first);
    let _ = writeln!(
        s,
        "[[job]]\nname = \"j{j}\"\nrw = \"{rw}\"\nbs = {bs}\noffset = \"{first}z\"\nsize = \"{count}z\""
    );
    let _ = writeln!(
        s,
        "iodepth = {}\nnumjobs = {}",
        rng.range(1, 4),
        rng.pick(&[1, 1, 2])
    );
    let io = (d.cap_bytes * rng.range(1, 3 * count)).max(bs);
    if rng.chance(25) {
        let _ = writeln!(s, "time_based = true\nruntime = \"{}ms\"", rng.range(1, 50));
    } else {
        let _ = writeln!(s, "io_size = {}", io / bs * bs);
    }
    if rw == "write" {
        if rng.chance(40) {
            let fill = (d.cap_bytes * rng.range(1, 9) / 10).max(bs) / bs * bs;
            let _ = writeln!(
                s,
                "zone_fill = {fill}\nzone_fill_action = \"{}\"",
                rng.pick(&["abandon", "reset"])
            );
        }
        if rng.chance(20) {
            let _ = writeln!(s, "zone_append = true");
        }
    }
    if rng.chance(30) {
        let _ = writeln!(s, "thinktime = \"{}\"", rng.pick(&["10us", "1ms", "5ms"]));
    }
    if rng.chance(20) {
        let _ = writeln!(s, "startdelay = \"{}ms\"", rng.range(1, 5));
    }
    if rng.chance(30) {
        let _ = writeln!(s, "max_open_zones = {}", rng.range(1, 4));
    }
}

fn fs(rng: &mut Rng, d: &DeviceDraw, s: &mut String) {
    let personality = rng.pick(&["f2fs", "zenfs"]);
    let _ = writeln!(
        s,
        "[fs]\npersonality = \"{personality}\"\nzone_write_plug = {}\nunmount = {}",
        rng.chance(50),
        rng.chance(50)
    );
    if personality == "f2fs" && rng.chance(50) {
        let _ = writeln!(s, "[fs.f2fs]\ndirty_sections = true");
    }
    let budget = d.cap_bytes * d.zone_count;
    if rng.chance(50) {
        let threads = rng.range(1, 4);
        let size = (budget / 8 / threads).max(4096) / 4096 * 4096;
        let _ = writeln!(
            s,
            "[[fio_files]]\nthreads = {threads}\nsize = {size}\nfsync = {}",
            rng.pick(&[1, 16])
        );
    } else {
        let _ = writeln!(
            s,
            "[[updates]]\ndataset = \"{}%\"\nupdates = {}\nbs = \"4KiB\"",
            rng.pick(&[20, 40, 60]),
            rng.range(10, 2000)
        );
    }
}

fn kv(rng: &mut Rng, s: &mut String) {
    let _ = writeln!(
        s,
        "[fs]\npersonality = \"{}\"\nzone_write_plug = {}",
        rng.pick(&["f2fs", "zenfs"]),
        rng.chance(50)
    );
    let _ = writeln!(
        s,
        "[[dbbench]]\nbenchmarks = \"fillrandom,readrandom\"\nnum = {}\nfiles = \"fs\"",
        rng.range(100, 3000)
    );
    let _ = writeln!(
        s,
        "[dbbench.options]\nwrite_buffer_size = {}",
        rng.pick(&[65536, 262144])
    );
}

fn ezns(rng: &mut Rng, d: &DeviceDraw, s: &mut String) {
    let n = rng.range(1, 2);
    let per = rng.pick(&[2, 4]);
    let vzones = rng.range(1, 2);
    let width = rng.pick(&[1, 2]);
    let _ = writeln!(
        s,
        "[layer]\nkind = \"ezns\"\nnamespaces = {n}\nzones_per_vzone = {per}\nmax_active_vzones = {vzones}\n\
         essentials = {}\nspares = 0\nreserve_pool = 1\nmax_stripe_size = {}",
        n * vzones * width,
        d.lba * rng.pick(&[1, 2, 4, 8, 16])
    );
    // Over the drive, an array of two, or static zones of two of its zones, one after the
    // other (the active limit stays the drive's).
    match rng.range(0, 5) {
        0 => s.push_str("[layer.over]\nkind = \"array\"\ndrives = 2\n"),
        1 => {
            s.push_str("[layer.over]\nkind = \"static\"\nzones_per_logical = 2\nstripe_width = 1\n")
        }
        _ => {}
    }
    for ns in 0..n {
        let bs = d.lba * rng.pick(&[1, 4]);
        let _ = writeln!(
            s,
            "[[job]]\nname = \"w{ns}\"\nnamespace = {ns}\nrw = \"write\"\nbs = {bs}\nio_size = {}\nmax_open_zones = 1",
            (d.cap_bytes * per * 2).div_ceil(bs) * bs
        );
    }
}

/// What an experiment case came to.
pub enum RunResult {
    /// `check` refused it (naming the field, as it must): why.
    Refused(String),
    /// It ran: this many device commands.
    Ran(u64),
}

/// Validates and runs `text` within `limits`.
pub fn check(text: &str, limits: RunLimits) -> Result<RunResult> {
    let cfg = match ExperimentConfig::parse(text, &[]) {
        Ok(c) => c,
        Err(e) => return refused(e),
    };
    let exp = match cfg.validate("swarm") {
        Ok(e) => e,
        Err(e) => return refused(e),
    };
    let inputs = Inputs {
        limits,
        ..Inputs::default()
    };
    let out = zonelab::run(&exp, inputs, cfg.fingerprint(), &mut |_| {})
        .map_err(|e| anyhow::anyhow!("check accepted it, the run failed: {e}"))?;
    if let Some(why) = out.summary.stopped_early {
        bail!(
            "hang: the run ran out of its budget ({why:?}) at simulated {} ns",
            out.summary.simulated_time_ns
        );
    }
    let ridden = out.summary.errors_ridden_through;
    if let Some(e) = out.summary.errors.first()
        && out.summary.errors_total > ridden
    {
        bail!(
            "check accepted it, the device refused {} commands during the run ({ridden} ridden through): first {} {} at LBA {:#x}: {}",
            out.summary.errors_total,
            e.source,
            e.command,
            e.lba,
            e.status
        );
    }
    // A host layer's workload records the calls the file layer refused; only running out of
    // space is an outcome a run may have, anything else was accepted input that cannot run.
    for (layer, report) in &out.summary.layers {
        let workloads = report.file_workloads().unwrap_or_default();
        for what in workloads.iter().flat_map(|w| w.failures.keys()) {
            if !what.contains("no space") {
                bail!("check accepted it, layer `{layer}` refused calls during the run: {what}");
            }
        }
    }
    if exp.layer.is_none() {
        let identity = zonelab::state::identity(&cfg);
        save_load_same(&exp, &identity, out.device.idle_at(), &*out.device)?;
    }
    Ok(RunResult::Ran(
        out.summary.ops.values().map(|o| o.count).sum(),
    ))
}

fn refused(e: zonelab::ConfigError) -> Result<RunResult> {
    match e {
        e @ zonelab::ConfigError::Field { .. } => Ok(RunResult::Refused(e.to_string())),
        other => bail!("refused without naming a field: {other}"),
    }
}
