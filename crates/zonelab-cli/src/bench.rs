//! `zonelab bench`: simulated requests per wall-clock second and peak memory. Each case runs in a
//! child process so its peak resident memory is its own.

use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use zonelab::config::ExperimentConfig;
use zonelab::sim::Inputs;

struct Case {
    name: &'static str,
    /// What it measures.
    what: &'static str,
    /// The experiment, with `{io}` for the io_size.
    template: &'static str,
    io_size: &'static str,
    /// The io_size with `--quick`.
    quick_io_size: &'static str,
    /// Count key-value operations (Layer::Kv) instead of device requests.
    kv: bool,
}

const CASES: &[Case] = &[
    Case {
        name: "randread-4k",
        what: "4 KiB random reads, QD32, on a fully prefilled rezns-40g",
        template: "preset = \"rezns-40g\"\n[prefill]\nfraction = 1.0\n[[job]]\nrw = \"randread\"\nbs = \"4KiB\"\niodepth = 32\nio_size = \"{io}\"\n",
        io_size: "80GiB",
        quick_io_size: "4GiB",
        kv: false,
    },
    Case {
        name: "zone-write-4k",
        what: "4 KiB zone-sequential writes over 256 open zones (randwrite, zonemode=zbd), QD32, smallzone-4t",
        template: "preset = \"smallzone-4t\"\n[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\niodepth = 32\nmax_open_zones = 256\nio_size = \"{io}\"\n",
        io_size: "40GiB",
        quick_io_size: "2GiB",
        kv: false,
    },
    Case {
        name: "seqwrite-2m",
        what: "2 MiB sequential writes, QD1, rezns-40g (wraps and resets zones)",
        template: "preset = \"rezns-40g\"\n[[job]]\nrw = \"write\"\nbs = \"2MiB\"\nio_size = \"{io}\"\n",
        io_size: "400GiB",
        quick_io_size: "40GiB",
        kv: false,
    },
    Case {
        name: "memory-4tb",
        what: "peak memory: 4 KiB random reads on a half-prefilled 4 TB-class smallzone-4t, no data retention",
        template: "preset = \"smallzone-4t\"\n[prefill]\nfraction = 0.5\n[[job]]\nrw = \"randread\"\nbs = \"4KiB\"\niodepth = 32\nio_size = \"{io}\"\n",
        io_size: "20GiB",
        quick_io_size: "2GiB",
        kv: false,
    },
    Case {
        name: "kv-fillrandom",
        what: "db_bench fillrandom, 16 + 100 B, RocksDB's default options, one thread; store files in memory (no file layer yet)",
        template: "preset = \"cosmos-zns\"\n[[dbbench]]\nbenchmarks = \"fillrandom\"\nnum = {io}\n",
        io_size: "4000000",
        quick_io_size: "400000",
        kv: true,
    },
    Case {
        name: "kv-ycsb-a",
        what: "YCSB-A, load then run (operations = records), YCSB's RocksDB binding options, one thread; store files in memory (no file layer yet)",
        template: "preset = \"cosmos-zns\"\n[[ycsb]]\nworkload = \"a\"\nrecordcount = {io}\noperationcount = {io}\n",
        io_size: "1000000",
        quick_io_size: "100000",
        kv: true,
    },
];

#[derive(Serialize, Deserialize)]
struct CaseResult {
    case: String,
    requests: u64,
    wall_s: f64,
    requests_per_s: f64,
    simulated_s: f64,
    peak_rss_mib: f64,
}

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kib| kib / 1024.0)
}

pub fn run_case(name: &str, quick: bool) -> Result<()> {
    let Some(case) = CASES.iter().find(|c| c.name == name) else {
        bail!("unknown bench case `{name}`");
    };
    let io = if quick {
        case.quick_io_size
    } else {
        case.io_size
    };
    let text = case.template.replace("{io}", io);
    let exp = ExperimentConfig::parse(&text, &[])?.validate(name)?;
    // Time the measured phase only, not building the device.
    let device = zonelab::sim::build_device(&exp);
    let wall = Instant::now();
    let out = zonelab::sim::run_on(&exp, device, Inputs::default(), 0, &mut |_| {})?;
    let wall_s = wall.elapsed().as_secs_f64();
    let requests: u64 = if case.kv {
        out.summary
            .table
            .iter()
            .filter(|r| r.layer == zonelab::metrics::Layer::Kv)
            .map(|r| r.summary.count)
            .sum()
    } else {
        out.summary.ops.values().map(|o| o.count).sum()
    };
    let result = CaseResult {
        case: name.to_string(),
        requests,
        wall_s,
        requests_per_s: requests as f64 / wall_s,
        simulated_s: out.summary.simulated_time_ns as f64 / 1e9,
        peak_rss_mib: peak_rss_mib(),
    };
    println!("{}", serde_json::to_string(&result)?);
    Ok(())
}

pub fn run_all(quick: bool) -> Result<()> {
    let exe = std::env::current_exe().context("cannot find the zonelab binary")?;
    println!(
        "| case | what | requests | wall s | simulated requests / wall s | simulated s | peak RSS MiB |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|");
    for &Case { name, what, .. } in CASES {
        let mut cmd = Command::new(&exe);
        cmd.args(["bench", "--case", name]);
        if quick {
            cmd.arg("--quick");
        }
        let out = cmd
            .output()
            .with_context(|| format!("cannot run bench case {name}"))?;
        if !out.status.success() {
            bail!(
                "bench case {name} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let r: CaseResult = serde_json::from_slice(&out.stdout).context("bench case output")?;
        println!(
            "| {name} | {what} | {} | {:.2} | {:.0} | {:.1} | {:.1} |",
            r.requests, r.wall_s, r.requests_per_s, r.simulated_s, r.peak_rss_mib
        );
    }
    Ok(())
}
