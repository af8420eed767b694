//! The per-command trace out of a run, trace replay into a run, and prefill set directly being
//! the same as prefill written.

use std::cell::RefCell;
use std::rc::Rc;

use super::*;
use crate::config::ExperimentConfig;
use crate::device::{ZoneAction, ZoneState};
use crate::testing::fixtures::TinyDevice;
use crate::time::Instant;
use crate::trace::{CSV_HEADER, TraceRecord, csv_line};
use crate::zns::Device;

/// A sink the test can read after the run.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<String>>);

impl TraceSink for Shared {
    fn record(&mut self, r: &TraceRecord) {
        let mut t = self.0.borrow_mut();
        if t.is_empty() {
            t.push_str(CSV_HEADER);
            t.push('\n');
        }
        csv_line(r, 2, &mut t);
        t.push('\n');
    }
}

fn experiment_with(text: &str, overrides: &[String]) -> Experiment {
    let device = TinyDevice {
        zone_capacity: "192KiB",
        ..TinyDevice::default()
    }
    .toml();
    ExperimentConfig::parse(&format!("{text}\n{device}"), overrides)
        .unwrap()
        .validate("t")
        .unwrap()
}

fn experiment(text: &str) -> Experiment {
    experiment_with(text, &[])
}

/// Runs `text`, tracing into the returned string; `trace` replays for `[[replay]]`.
fn traced(text: &str, replay: Option<&str>) -> (Result<RunOutput, RunError>, String) {
    let exp = experiment(&format!("{text}\n[trace]\nenabled = true\n"));
    let sink = Shared::default();
    let inputs = Inputs {
        traces: replay
            .map(|t| Box::new(std::io::Cursor::new(t.to_string())) as Box<dyn std::io::BufRead>)
            .into_iter()
            .collect(),
        trace_sink: Some(Box::new(sink.clone())),
        limits: Default::default(),
    };
    let out = run(&exp, inputs, 0, &mut |_| {});
    let text = sink.0.borrow().clone();
    (out, text)
}

/// (op, lba, nlb) of every successful command of a trace.
fn commands(csv: &str) -> Vec<(String, String, String)> {
    csv.lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| f[12].is_empty())
        .map(|f| (f[3].to_string(), f[6].to_string(), f[7].to_string()))
        .collect()
}

const WORK: &str = "seed = 4\n[prefill]\nfraction = 0.25\n[[job]]\nname = \"w\"\nrw = \"write\"\nbs = \"16KiB\"\noffset = \"8z\"\nsize = \"4z\"\nio_size = \"1MiB\"\n[[job]]\nname = \"r\"\nrw = \"randread\"\nbs = \"4KiB\"\niodepth = 4\nsize = \"4z\"\nio_size = \"256KiB\"\n";

#[test]
fn every_command_is_traced_with_its_dies_and_times() {
    let (out, csv) = traced(WORK, None);
    let out = out.unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], CSV_HEADER);
    let ops: u64 = out.summary.ops.values().map(|o| o.count).sum();
    assert_eq!(lines.len() as u64 - 1, ops, "one record per command");
    for l in &lines[1..] {
        let f: Vec<&str> = l.split(',').collect();
        let (submit, start, done): (u64, u64, u64) = (
            f[0].parse().unwrap(),
            f[1].parse().unwrap(),
            f[2].parse().unwrap(),
        );
        assert!(submit <= start && start <= done, "{l}");
        if f[3] == "write" || f[3] == "read" {
            // One page: one die of the zone's four, on channel die % 2.
            let die: u32 = f[8].parse().unwrap_or_else(|_| panic!("one die: {l}"));
            assert!(die < 4, "{l}");
            assert_eq!(f[9], (die % 2).to_string(), "{l}");
            assert_eq!(f[11], if f[3] == "write" { "w" } else { "r" });
        }
    }
}

#[test]
fn a_zonelab_trace_replays_to_the_same_commands() {
    let (_, original) = traced(WORK, None);
    for mode in ["timed", "no_stall"] {
        let replay = format!(
            "seed = 4\n[prefill]\nfraction = 0.25\n[[replay]]\nname = \"again\"\ntrace = \"t.csv\"\nmode = \"{mode}\"\n"
        );
        let (out, replayed) = traced(&replay, Some(&original));
        let out = out.unwrap();
        assert!(out.summary.errors.is_empty(), "{:?}", out.summary.errors);
        assert_eq!(commands(&replayed), commands(&original), "mode {mode}");
    }
}

#[test]
fn timed_replay_issues_at_the_timestamps() {
    let iolog = "fio version 3 iolog\n0 /dev/x write 0 16384\n1000 /dev/x write 16384 16384\n5000 /dev/x read 0 4096\n";
    let (out, csv) = traced("[[replay]]\ntrace = \"x.iolog\"\n", Some(iolog));
    out.unwrap();
    let submits: Vec<u64> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(submits, [0, 1_000_000, 5_000_000]);
}

/// fio's replay_no_stall: the same commands, each as soon as the queue lets it go, whatever the
/// timestamps say (here far apart, so a timed replay would wait for them).
#[test]
fn no_stall_replay_ignores_the_timestamps() {
    let iolog = "fio version 3 iolog\n0 /dev/x write 0 16384\n1000 /dev/x write 16384 16384\n5000 /dev/x read 0 4096\n";
    let commands = |csv: &str| -> Vec<String> {
        csv.lines()
            .skip(1)
            .map(|l| l.split(',').skip(3).take(5).collect::<Vec<_>>().join(","))
            .collect()
    };
    let submits = |csv: &str| -> Vec<u64> {
        csv.lines()
            .skip(1)
            .map(|l| l.split(',').next().unwrap().parse().unwrap())
            .collect()
    };
    let (timed, timed_csv) = traced("[[replay]]\ntrace = \"x.iolog\"\n", Some(iolog));
    let (fast, fast_csv) = traced(
        "[[replay]]\ntrace = \"x.iolog\"\nmode = \"no_stall\"\niodepth = 1\n",
        Some(iolog),
    );
    timed.unwrap();
    fast.unwrap();
    assert_eq!(
        commands(&fast_csv),
        commands(&timed_csv),
        "the same commands"
    );
    let s = submits(&fast_csv);
    assert_eq!(s[0], 0);
    assert!(
        s[1] < 1_000_000 && s[2] < 5_000_000,
        "issued as each completes, not at 1 and 5 ms: {s:?}"
    );
}

#[test]
fn a_trace_that_breaks_zone_rules_stops_with_the_status_and_line() {
    let msr = "0,h,0,Write,0,4096,1\n10,h,0,Write,65536,4096,1\n";
    let (out, _) = traced("[[replay]]\ntrace = \"m.csv\"\n", Some(msr));
    let s = out.unwrap().summary;
    assert_eq!(s.errors.len(), 1);
    assert_eq!(s.errors[0].trace_line, Some(2));
    assert!(
        s.errors[0].status.starts_with("Zone Invalid Write"),
        "{:?}",
        s.errors
    );
}

#[test]
fn an_unreadable_trace_line_fails_the_run_naming_it() {
    let iolog = "fio version 2 iolog\n/dev/x write 0 4096\n/dev/x write zero 4096\n";
    let (out, _) = traced("[[replay]]\ntrace = \"x.iolog\"\n", Some(iolog));
    let err = out.err().unwrap().to_string();
    assert!(err.contains("trace line 3"), "{err}");
    assert!(err.contains("offset `zero`"), "{err}");
}

/// Prefill set directly leaves the device as writing the same data would (then closing partly
/// written zones), and a run on each gives the same results.
#[test]
fn direct_prefill_equals_written_prefill() {
    for policy in ["synchronous", "mapping", "renewable"] {
        let text = format!(
            "[firmware]\npolicy = \"{policy}\"\n[prefill]\nfraction = 0.6\nfill = 0.75\npattern = \"random\"\n[[job]]\nrw = \"randread\"\nbs = \"4KiB\"\niodepth = 4\nio_size = \"512KiB\"\n"
        );
        let no_limits = [
            "device.zones.max_open_zones=0".to_string(),
            "device.zones.max_active_zones=0".to_string(),
        ];
        let exp = experiment_with(&text, &no_limits);
        let direct = build_zns(&exp);
        let mut written = Device::build(
            match &exp.device {
                DeviceSpec::Zns(s) => s,
                other => panic!("expected a ZNS device, got {other:?}"),
            },
            &exp.firmware,
            false,
            exp.sampling(),
        );
        let cap = written.zone_capacity_lbas();
        for &(zone, lbas) in &exp.prefill.zones {
            let zslba = zone as u64 * written.zone_size_lbas();
            written.write(Instant::ZERO, zslba, lbas, None).unwrap();
            if lbas < cap {
                written
                    .zone_mgmt_send(Instant::ZERO, zslba, ZoneAction::Close, false)
                    .unwrap();
            }
        }
        assert!(!exp.prefill.zones.is_empty());
        for z in 0..direct.zone_count() {
            assert_eq!(
                direct.zone_descriptor(z),
                written.zone_descriptor(z),
                "{policy} zone {z}"
            );
            assert_eq!(
                direct.zone_pieces(z),
                written.zone_pieces(z),
                "{policy} zone {z}"
            );
        }
        assert!(
            (0..direct.zone_count()).any(|z| direct.zone_descriptor(z).state == ZoneState::Closed),
            "some zones are partly written"
        );
        assert_eq!(direct.nand_counters(), written.nand_counters());
        direct.check_invariants();
        let a = run_on(&exp, Box::new(direct), Inputs::default(), 0, &mut |_| {}).unwrap();
        let b = run_on(&exp, Box::new(written), Inputs::default(), 0, &mut |_| {}).unwrap();
        let latencies = |o: &RunOutput| serde_json::to_string(&o.summary.ops).unwrap();
        assert_eq!(latencies(&a), latencies(&b), "{policy}");
        assert_eq!(
            a.summary.device_counters.nand_page_reads,
            b.summary.device_counters.nand_page_reads
        );
    }
}
