//! `zonelab bench`: simulated requests per wall-clock second and peak memory. Each case runs in a
//! child process so its peak resident memory is its own.

use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use zonelab::config::ExperimentConfig;
use zonelab::experiment::Inputs;

struct Case {
    name: &'static str,
    /// What it measures.
    what: &'static str,
    /// The experiment, with `{io}` for the run's length (an io_size, or operations per thread).
    template: &'static str,
    /// The length at scale 1 (`--quick`), in `unit`s; a full run is [`FULL_SCALE`] times longer.
    base: u64,
    unit: &'static str,
    /// Count key-value operations (layer `kv`) instead of device requests.
    kv: bool,
}

/// How much longer than `--quick` a default run is.
pub const FULL_SCALE: u64 = 20;

const CASES: &[Case] = &[
    Case {
        name: "randread-4k",
        what: "4 KiB random reads, QD32, on a fully prefilled rezns-40g",
        template: "preset = \"rezns-40g\"\n[prefill]\nfraction = 1.0\n[[job]]\nrw = \"randread\"\nbs = \"4KiB\"\niodepth = 32\nio_size = \"{io}\"\n",
        base: 4,
        unit: "GiB",
        kv: false,
    },
    Case {
        name: "zone-write-4k",
        what: "4 KiB zone-sequential writes over 256 open zones (randwrite, zonemode=zbd), QD32, smallzone-4t",
        template: "preset = \"smallzone-4t\"\n[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\niodepth = 32\nmax_open_zones = 256\nio_size = \"{io}\"\n",
        base: 2,
        unit: "GiB",
        kv: false,
    },
    Case {
        name: "seqwrite-2m",
        what: "2 MiB sequential writes, QD1, rezns-40g (wraps and resets zones)",
        template: "preset = \"rezns-40g\"\n[[job]]\nrw = \"write\"\nbs = \"2MiB\"\nio_size = \"{io}\"\n",
        base: 40,
        unit: "GiB",
        kv: false,
    },
    Case {
        name: "memory-4tb",
        what: "peak memory: 4 KiB random reads on a half-prefilled 4 TB-class smallzone-4t, no data retention",
        template: "preset = \"smallzone-4t\"\n[prefill]\nfraction = 0.5\n[[job]]\nrw = \"randread\"\nbs = \"4KiB\"\niodepth = 32\nio_size = \"{io}\"\n",
        base: 2,
        unit: "GiB",
        kv: false,
    },
    Case {
        name: "one-channel-8dies",
        what: "4 KiB random reads, QD32, over 8 dies behind one channel (zn540 NAND timing), fully prefilled",
        template: ONE_CHANNEL_8_DIES,
        base: 2,
        unit: "GiB",
        kv: false,
    },
    Case {
        name: "threads-1000",
        what: "1,000 host threads, each 4 KiB zone appends with a flush after each, rezns-40g",
        template: "preset = \"rezns-40g\"\n[[threads]]\ncount = 1000\nbs = \"4KiB\"\nops = {io}\nfsync = true\n",
        base: 100,
        unit: "",
        kv: false,
    },
    Case {
        name: "kv-fillrandom",
        what: "db_bench fillrandom, 16 + 100 B, RocksDB's default options, one thread, on the ZenFS-like layer over cosmos-zns (WAL, flushes and compactions are device I/O)",
        template: "preset = \"cosmos-zns\"\n[fs]\npersonality = \"zenfs\"\n[[dbbench]]\nbenchmarks = \"fillrandom\"\nnum = {io}\nfiles = \"fs\"\n",
        base: 200_000,
        unit: "",
        kv: true,
    },
    Case {
        name: "kv-ycsb-a",
        what: "YCSB-A, load then run (operations = records), YCSB's RocksDB binding options, one thread, on the ZenFS-like layer over cosmos-zns",
        template: "preset = \"cosmos-zns\"\n[fs]\npersonality = \"zenfs\"\n[[ycsb]]\nworkload = \"a\"\nrecordcount = {io}\noperationcount = {io}\nfiles = \"fs\"\n",
        base: 50_000,
        unit: "",
        kv: true,
    },
    Case {
        name: "conv-randwrite-4k",
        what: "4 KiB random writes, QD32, on a 64 GiB block SSD (proto-conv-1t-op7's NAND, 7% over-provisioning) preconditioned to steady state (not timed): greedy GC runs throughout (WAF about 8.5)",
        template: "preset = \"proto-conv-1t-op7\"\n[device.geometry]\nblocks_per_die = 274\n[precondition]\nround = 0.25\n[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\niodepth = 32\nio_size = \"{io}\"\n",
        base: 1,
        unit: "GiB",
        kv: false,
    },
    Case {
        name: "conv-randwrite-4k-op28",
        what: "as conv-randwrite-4k, at 28% over-provisioning (proto-conv-1t-op28's NAND, 64 GiB): GC copies less (WAF about 2.5)",
        template: "preset = \"proto-conv-1t-op28\"\n[device.geometry]\nblocks_per_die = 328\n[precondition]\nround = 0.25\n[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\niodepth = 32\nio_size = \"{io}\"\n",
        base: 1,
        unit: "GiB",
        kv: false,
    },
    Case {
        name: "conv-memory-4tb",
        what: "peak memory: 4 KiB random writes, QD32, over the whole 1.9 TiB logical space of zn540-conv-op7 (fresh device, no data retention); the map is 4 bytes per 4 KiB unit and per slot (3.9 GiB when every unit is mapped)",
        template: "preset = \"zn540-conv-op7\"\n[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\niodepth = 32\nio_size = \"{io}\"\n",
        base: 1,
        unit: "GiB",
        kv: false,
    },
    Case {
        name: "ezns-4k",
        what: "4 KiB requests through eZNS (4 namespaces, the paper's defaults, scheduler on) on smallzone-4t: per namespace 4 sequential writers at QD32 on their own v-zones and a random reader at QD32 over a v-zone it prefilled",
        template: EZNS_4K,
        base: 16,
        unit: "MiB",
        kv: false,
    },
];

/// The eZNS case: per namespace, 4 writers and one reader (prefilled v-zone 0), each moving
/// `{io}`.
const EZNS_4K: &str = r#"
preset = "smallzone-4t"
[firmware]
policy = "round_robin"
[layer]
kind = "ezns"
[prefill]
size = "1z"
[[job]]
name = "w0"
namespace = 0
rw = "write"
bs = "4KiB"
iodepth = 32
numjobs = 4
max_open_zones = 1
offset = "1z"
io_size = "{io}"
[[job]]
name = "r0"
namespace = 0
rw = "randread"
bs = "4KiB"
iodepth = 32
size = "1z"
io_size = "{io}"
[[job]]
name = "w1"
namespace = 1
rw = "write"
bs = "4KiB"
iodepth = 32
numjobs = 4
max_open_zones = 1
offset = "1z"
io_size = "{io}"
[[job]]
name = "r1"
namespace = 1
rw = "randread"
bs = "4KiB"
iodepth = 32
size = "1z"
io_size = "{io}"
[[job]]
name = "w2"
namespace = 2
rw = "write"
bs = "4KiB"
iodepth = 32
numjobs = 4
max_open_zones = 1
offset = "1z"
io_size = "{io}"
[[job]]
name = "r2"
namespace = 2
rw = "randread"
bs = "4KiB"
iodepth = 32
size = "1z"
io_size = "{io}"
[[job]]
name = "w3"
namespace = 3
rw = "write"
bs = "4KiB"
iodepth = 32
numjobs = 4
max_open_zones = 1
offset = "1z"
io_size = "{io}"
[[job]]
name = "r3"
namespace = 3
rw = "randread"
bs = "4KiB"
iodepth = 32
size = "1z"
io_size = "{io}"
"#;

/// One channel of eight dies, each zone striped over all eight (1,024 zones of 8 MiB): the case
/// the old single "next free" channel booking got wrong. Timing: NVMeVirt's WD_ZN540 (as the
/// zn540 preset); geometry chosen to fit one channel.
const ONE_CHANNEL_8_DIES: &str = r#"
[device]
name = "one-channel-8dies"
source = "NVMeVirt ssd_config.h WD_ZN540 timing; geometry chosen"
[device.geometry]
channels = 1
dies_per_channel = 8
blocks_per_die = 1024
pages_per_block = 32
page_size_bytes = "32KiB"
lba_size_bytes = 4096
[device.zones]
dies_per_zone = 8
zone_size_bytes = "8MiB"
zone_capacity_bytes = "8MiB"
[device.timing]
read_latency_ns = 58000
program_latency_ns = 187000
erase_latency_ns = 3000000
channel_rate_mb_s = 450
host_rate_mb_s = 3050
read_overhead_ns = 13000
write_overhead_ns = 5600
[device.energy]
read_nj_per_page = 679.0
program_nj_per_page = 7660.0
erase_nj_per_block = 43125.0
[prefill]
fraction = 1.0
[[job]]
rw = "randread"
bs = "4KiB"
iodepth = 32
io_size = "{io}"
"#;

#[derive(Serialize, Deserialize)]
struct CaseResult {
    case: String,
    requests: u64,
    wall_s: f64,
    requests_per_s: f64,
    /// CPU time of the measured phase (user + system): on a machine shared with other work,
    /// wall time overstates the cost.
    #[serde(default)]
    cpu_s: f64,
    simulated_s: f64,
    peak_rss_mib: f64,
}

/// User + system CPU time of this process so far, from /proc/self/stat (clock ticks of 10 ms).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which may hold spaces) start after the last ')'.
    let rest = stat.rsplit_once(')').map_or("", |r| r.1);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        f.get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(f64::NAN)
    };
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name and state.
    (ticks(11) + ticks(12)) / 100.0
}

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kib| kib / 1024.0)
}

pub fn run_case(name: &str, scale: u64) -> Result<()> {
    let Some(case) = CASES.iter().find(|c| c.name == name) else {
        let names: Vec<&str> = CASES.iter().map(|c| c.name).collect();
        bail!("unknown bench case `{name}` (cases: {})", names.join(", "));
    };
    let io = format!("{}{}", case.base * scale, case.unit);
    let text = case.template.replace("{io}", &io);
    let exp = ExperimentConfig::parse(&text, &[])?.validate(name)?;
    // Time the measured phase only, not building the device.
    let device = zonelab::experiment::build_device(&exp);
    let wall = Instant::now();
    let cpu = cpu_seconds();
    let out = zonelab::experiment::run_on(&exp, device, Inputs::default(), 0, &mut |_| {})?;
    let wall_s = wall.elapsed().as_secs_f64();
    let cpu_s = cpu_seconds() - cpu;
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
        cpu_s,
        simulated_s: out.summary.simulated_time_ns as f64 / 1e9,
        peak_rss_mib: peak_rss_mib(),
    };
    println!("{}", serde_json::to_string(&result)?);
    Ok(())
}

pub fn run_all(scale: u64) -> Result<()> {
    let exe = std::env::current_exe().context("cannot find the zonelab binary")?;
    println!(
        "| case | what | requests | wall s | simulated requests / wall s | CPU s | requests / CPU s | simulated s | peak RSS MiB |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for &Case { name, what, .. } in CASES {
        let mut cmd = Command::new(&exe);
        cmd.args(["bench", "--case", name, "--scale", &scale.to_string()]);
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
            "| {name} | {what} | {} | {:.2} | {:.0} | {:.2} | {:.0} | {:.1} | {:.1} |",
            r.requests,
            r.wall_s,
            r.requests_per_s,
            r.cpu_s,
            r.requests as f64 / r.cpu_s,
            r.simulated_s,
            r.peak_rss_mib
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_case_is_a_valid_experiment() {
        for case in CASES {
            let text = case
                .template
                .replace("{io}", &format!("{}{}", case.base, case.unit));
            let cfg = ExperimentConfig::parse(&text, &[])
                .unwrap_or_else(|e| panic!("{}: {e}", case.name));
            cfg.validate(case.name)
                .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        }
    }

    #[test]
    fn an_unknown_case_names_the_known_ones() {
        let e = run_case("nope", 1).unwrap_err().to_string();
        assert!(
            e.contains("randread-4k") && e.contains("threads-1000"),
            "{e}"
        );
    }
}
