//! eZNS (Min et al., eZNS, OSDI 2023 (talk notes); docs/reference/ezns.md, "Experiments"), on
//! `smallzone-4t` with round-robin zone placement: local overdrive (4, 8 and 16 writers, v-zone
//! against static logical zone), global overdrive (four namespaces over 100 s, three of them
//! idle from 30 s to 80 s: bandwidth and spares per namespace over time), and the scheduler's
//! fairness (read-read with read congestion control off and on, write-write with write
//! admission control off and on, read-write with the whole scheduler off and on), after the
//! device observations of the talk notes' sections 7-9 ([`device`]), and the
//! RocksDB / YCSB runs ([`rocksdb`]).

use std::path::Path;

use anyhow::{Context, Result};
use zonelab::firmware::FirmwareReport;
use zonelab::host::elastic::ElasticReport;
use zonelab::metrics::{Layer, OpKind, Percentile};
use zonelab::report::Summary;

mod device;
mod fairness;
mod overdrive;
mod rocksdb;
pub use rocksdb::check as check_scale;

use super::claims::publish;
use super::{Done, Run, run_parallel, take, threads};

const LOCAL: &str = include_str!("../../../../../experiments/ezns/local.toml");
const GLOBAL: &str = include_str!("../../../../../experiments/ezns/global.toml");
const FAIR_READ: &str = include_str!("../../../../../experiments/ezns/fair-read.toml");
const FAIR_WRITE: &str = include_str!("../../../../../experiments/ezns/fair-write.toml");
const FAIR_RW: &str = include_str!("../../../../../experiments/ezns/fair-rw.toml");
const WRITERS: [u32; 3] = [4, 8, 16];

/// The static baseline of the local-overdrive experiment with `text`'s jobs: the same jobs over
/// static logical zones.
fn static_of(text: &str) -> String {
    text.replace("kind = \"ezns\"", "kind = \"static\"")
        .replace("global_overdrive = false\n", "")
}

fn onoff(key: &str, on: bool) -> Vec<String> {
    vec![format!("layer.{key}={on}")]
}

/// `run` with each (key, shipped value) of `lengths` times the scale.
pub(super) fn scaled(run: Run, scale: super::Scale, lengths: &[(&str, &str)]) -> Run {
    lengths
        .iter()
        .fold(run, |run, (key, v)| run.scale_text(scale, key, v))
}

/// The global-overdrive timeline: jobs 0, 2 and 4 write for 30 s, 1, 3 and 5 start at 80 s
/// and write for 20 s, job 6 writes for 100 s.
const GLOBAL_TIMES: [(&str, &str); 10] = [
    ("job.0.runtime", "30s"),
    ("job.1.startdelay", "80s"),
    ("job.1.runtime", "20s"),
    ("job.2.runtime", "30s"),
    ("job.3.startdelay", "80s"),
    ("job.3.runtime", "20s"),
    ("job.4.runtime", "30s"),
    ("job.5.startdelay", "80s"),
    ("job.5.runtime", "20s"),
    ("job.6.runtime", "100s"),
];
const FAIR_READ_TIMES: [(&str, &str); 2] = [("job.0.runtime", "1s"), ("job.1.runtime", "1s")];
const FAIR_2S_TIMES: [(&str, &str); 2] = [("job.0.runtime", "2s"), ("job.1.runtime", "2s")];

/// Every run of the reproduction at `scale` (each job's runtime, the global-overdrive timeline
/// and the key-value stores' entries and operations times the scale); they are independent, so
/// they run on every core.
fn all_runs(scale: super::Scale) -> Result<Vec<Run>> {
    rocksdb::check(scale)?;
    let mut runs = Vec::new();
    let local = [("job.0.runtime", "60s")];
    for n in WRITERS {
        let text = LOCAL.replace("numjobs = 4", &format!("numjobs = {n}"));
        runs.push(scaled(
            Run::new(format!("local-{n}-static"), static_of(&text), vec![]),
            scale,
            &local,
        ));
        runs.push(scaled(
            Run::new(format!("local-{n}-vzone"), text, vec![]),
            scale,
            &local,
        ));
    }
    runs.push(scaled(
        Run::new("global", GLOBAL, vec![]),
        scale,
        &GLOBAL_TIMES,
    ));
    for on in [false, true] {
        let state = if on { "on" } else { "off" };
        runs.push(scaled(
            Run::new(
                format!("fair-read-{state}"),
                FAIR_READ,
                onoff("read_cc", on),
            ),
            scale,
            &FAIR_READ_TIMES,
        ));
        runs.push(scaled(
            Run::new(
                format!("fair-write-{state}"),
                FAIR_WRITE,
                onoff("write_admission", on),
            ),
            scale,
            &FAIR_2S_TIMES,
        ));
        let mut both = onoff("read_cc", on);
        both.extend(onoff("write_admission", on));
        runs.push(scaled(
            Run::new(format!("fair-rw-{state}"), FAIR_RW, both.clone()),
            scale,
            &FAIR_2S_TIMES,
        ));
        both.push("device.timing.read_priority=true".into());
        runs.push(scaled(
            Run::new(format!("fair-rw-{state}-priority"), FAIR_RW, both),
            scale,
            &FAIR_2S_TIMES,
        ));
    }
    runs.extend(device::runs(scale));
    runs.extend(rocksdb::runs(scale));
    Ok(runs)
}

fn elastic(s: &Summary) -> Result<ElasticReport> {
    match &s.firmware {
        Some(FirmwareReport::Elastic(r)) => Ok(r.clone()),
        _ => anyhow::bail!("run `{}` has no eZNS report", s.experiment),
    }
}

/// MiB/s of device command `op` for `tenant` over the run.
fn tenant_mib_s(s: &Summary, tenant: &str, op: OpKind) -> f64 {
    s.table
        .iter()
        .filter(|r| r.layer == Layer::Device && r.op == op && r.tenant == tenant)
        .map(|r| r.summary.mib_per_s)
        .sum()
}

/// Latency percentile `p` of `op` for `tenant`, in microseconds.
fn tenant_us(s: &Summary, tenant: &str, op: OpKind, p: Percentile) -> f64 {
    s.table
        .iter()
        .find(|r| r.layer == Layer::Device && r.op == op && r.tenant == tenant)
        .map_or(0.0, |r| r.summary.latency_ns.percentiles[&p] as f64 / 1e3)
}

fn write_mib_s(s: &Summary) -> f64 {
    s.ops.get("write").map_or(0.0, |o| o.mib_per_s)
}

pub fn run(out: &Path, scale: super::Scale) -> Result<()> {
    let runs = all_runs(scale)?;
    let figures = out.join("figures");
    std::fs::create_dir_all(&figures)
        .with_context(|| format!("cannot create {}", figures.display()))?;
    let what = "every fio-style job's runtime (the local-overdrive writers, the global-overdrive \
         timeline with its phases, the fairness mixes, the device observations) and the \
         key-value stores' entries and operations (db_bench num and reads, YCSB recordcount and \
                operationcount); rates and latencies are per second, so they compare with the \
                shipped scale's";
    let mut s = String::from(
        "# eZNS, reproduced with ZoneLab\n\n\
         Source: Min et al., eZNS, OSDI 2023 (talk notes) and docs/reference/ezns.md (OSDI'23 section 5).\n\
         Device: `smallzone-4t` (eZNS Table 1: 128 dies, 40,704 one-die physical zones of 96 MiB,\n\
         256 active, a 512-unit shared write cache) with round-robin zone placement. eZNS as the\n\
         paper evaluates it: 4 namespaces of 32 essential + 32 spare active zones, 16 active\n\
         v-zones each, v-zones of 16 physical zones, minimum width 2 with 32 KiB stripes. Rerun with\n\
         `zonelab reproduce ezns`; the experiment files are in experiments/ezns/.\n\n",
    );
    let names: Vec<String> = runs.iter().map(|r| r.name.clone()).collect();
    let mut done: Done = names
        .into_iter()
        .zip(run_parallel(out, runs, threads(), |o| o)?)
        .collect();
    device::observations(&mut |name| take(&mut done, name).summary, &figures, &mut s)?;
    let mut claims = overdrive::local_overdrive(&mut done, &figures, &mut s)?;
    claims.extend(overdrive::global_overdrive(
        &mut done, &figures, &mut s, scale,
    )?);
    claims.extend(fairness::fairness(&mut done, &figures, &mut s)?);
    claims.extend(rocksdb::report(&mut done, &figures, &mut s)?);
    let s = publish(out, "ezns", &scale.noted(what, &s), &claims)?;
    std::fs::write(out.join("summary.md"), &s)?;
    print!("{s}");
    eprintln!("results, figures and summary.md in {}", out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::Scale;
    use super::*;

    /// `--scale 2` doubles the fio-style jobs' runtimes and the global timeline; the shipped
    /// scale's runs carry only the overrides they always had.
    #[test]
    fn scale_doubles_the_runtimes_and_the_timeline() {
        let shipped = all_runs(Scale::SHIPPED).unwrap();
        let two = all_runs(Scale::new(2).unwrap()).unwrap();
        assert_eq!(shipped.len(), two.len());
        let find = |runs: &[Run], name: &str| -> Vec<String> {
            runs.iter()
                .find(|r| r.name == name)
                .unwrap()
                .overrides
                .clone()
        };
        assert!(find(&shipped, "global").is_empty());
        assert!(find(&shipped, "local-8-vzone").is_empty());
        assert_eq!(find(&shipped, "fair-read-on"), onoff("read_cc", true));
        let global = find(&two, "global");
        assert_eq!(global.len(), GLOBAL_TIMES.len());
        assert!(global.contains(&"job.1.startdelay=\"160s\"".to_string()));
        assert!(global.contains(&"job.6.runtime=\"200s\"".to_string()));
        assert!(global.contains(&"job.4.runtime=\"60s\"".to_string()));
        assert_eq!(
            find(&two, "local-16-static"),
            vec!["job.0.runtime=\"120s\"".to_string()]
        );
        let mut want = onoff("read_cc", false);
        want.extend(["job.0.runtime=\"2s\"".into(), "job.1.runtime=\"2s\"".into()]);
        assert_eq!(find(&two, "fair-read-off"), want);
        assert!(find(&two, "fair-rw-on-priority").contains(&"job.1.runtime=\"4s\"".to_string()));
        for r in &two {
            zonelab::config::ExperimentConfig::parse(&r.text, &r.overrides)
                .and_then(|c| c.validate(&r.name))
                .unwrap_or_else(|e| panic!("{}: {e}", r.name));
        }
        assert!(all_runs(Scale::new(1_000_000).unwrap()).is_err());
    }
}
