//! The driver against the simulation loop: the same commands at the same times have the same
//! effect, trace and counters whichever path sends them.

use std::io::BufRead;
use std::sync::{Arc, Mutex};

use super::*;
use crate::config::ExperimentConfig;
use crate::device::ReportFilter;
use crate::experiment::{Experiment, Inputs, RunOutput, build_device, run};
use crate::testing::fixtures::tiny_device;
use crate::trace::{CSV_HEADER, TraceOp, TraceRecord, csv_line};

/// A sink both a run and a test can read.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<String>>);

impl TraceSink for Shared {
    fn record(&mut self, r: &TraceRecord) {
        let mut t = self.0.lock().unwrap();
        if t.is_empty() {
            t.push_str(CSV_HEADER);
            t.push('\n');
        }
        csv_line(r, 2, &mut t);
        t.push('\n');
    }
}

fn experiment(text: &str) -> Experiment {
    let text = format!("{text}\n[trace]\nenabled = true\n{}", tiny_device());
    ExperimentConfig::parse(&text, &[])
        .unwrap()
        .validate("t")
        .unwrap()
}

fn traced(text: &str, replay: Option<String>) -> (RunOutput, String) {
    let sink = Shared::default();
    let inputs = Inputs {
        traces: replay
            .map(|t| Box::new(std::io::Cursor::new(t)) as Box<dyn BufRead>)
            .into_iter()
            .collect(),
        trace_sink: Some(Box::new(sink.clone())),
        limits: Default::default(),
    };
    let out = run(&experiment(text), inputs, 0, &mut |_| {}).unwrap();
    let csv = sink.0.lock().unwrap().clone();
    (out, csv)
}

/// A trace's lines without the source column (the driver names itself, a run its jobs).
fn without_source(csv: &str) -> Vec<String> {
    csv.lines()
        .map(|l| {
            let mut f: Vec<&str> = l.split(',').collect();
            f.remove(11);
            f.join(",")
        })
        .collect()
}

const PREFILL: &str = "seed = 4\n[prefill]\nfraction = 0.25\n";
const WORK: &str = "[[job]]\nname = \"w\"\nrw = \"write\"\nbs = \"16KiB\"\noffset = \"8z\"\nsize = \"4z\"\nio_size = \"1MiB\"\n[[job]]\nname = \"r\"\nrw = \"randread\"\nbs = \"4KiB\"\niodepth = 4\nsize = \"4z\"\nio_size = \"256KiB\"\n";

#[test]
fn the_driver_and_a_run_give_the_same_trace_counters_and_zones() {
    // A stream with reads and writes (from a run), then a write the device rejects (off the
    // write pointer of a prefilled zone: a replay stops at its first rejected command, as fio
    // does).
    let (_, work) = traced(&format!("{PREFILL}{WORK}"), None);
    let last: u64 = work
        .lines()
        .last()
        .and_then(|l| l.split(',').nth(2))
        .unwrap()
        .parse()
        .unwrap();
    let t = last + 1_000;
    let stream = format!("{work}{t},{t},{t},write,0,,0,1,,,0,x,\n");
    let replay =
        format!("{PREFILL}[[replay]]\nname = \"stream\"\ntrace = \"t.csv\"\nmode = \"timed\"\n");
    let (out, ran) = traced(&replay, Some(stream));
    assert_eq!(out.summary.errors_total, 1, "{:?}", out.summary.errors);

    // The same commands, at the times the run sent them, through the driver.
    let exp = experiment(&replay);
    let mut device = build_device(&exp);
    let start = device.idle_at();
    device.reset_counters();
    let mut driver = Driver::new(device, start, exp.sampling(), "driver");
    let sink = Shared::default();
    driver.set_trace(Box::new(sink.clone()));
    for line in ran.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let now = Instant::from_ns(f[0].parse().unwrap());
        let op = TraceOp::parse(f[3]).unwrap().op();
        let (lba, nlb): (u64, u64) = (f[6].parse().unwrap(), f[7].parse().unwrap());
        driver.advance(now);
        let result = driver.submit(now, Command::new(op, lba, nlb));
        assert_eq!(result.is_err(), !f[12].is_empty(), "{line}");
    }
    driver.finish_trace().unwrap();
    let driven = sink.0.lock().unwrap().clone();
    assert_eq!(without_source(&driven), without_source(&ran));
    assert_eq!(driver.errors().total(), 1);

    let end = out.device.idle_at().max(driver.device().idle_at());
    let (a, b) = (out.device.report(end), driver.device().report(end));
    assert_eq!(format!("{:?}", a.counters), format!("{:?}", b.counters));
    let zones = |d: &dyn DeviceModel| {
        let r = d
            .report_zones(0, 0, ReportFilter::All, false, usize::MAX)
            .unwrap();
        format!("{:?}", r.descriptors)
    };
    assert_eq!(zones(&*out.device), zones(driver.device()));
    let count = |s: &Summary, op: &str| s.ops.get(op).map(|o| (o.count, o.bytes));
    let summary = driver.summary(&RunIdentity {
        experiment: "t".into(),
        seed: 4,
        config_fingerprint: 0,
        prefill_bytes: 0,
    });
    for op in ["read", "write", "reset"] {
        assert_eq!(count(&summary, op), count(&out.summary, op), "{op}");
    }
}
