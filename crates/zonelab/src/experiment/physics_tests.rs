//! Timing that follows from physics, not from tuned numbers: dies behind one channel share it,
//! channels scale until the host link caps them, and bandwidth never falls as queue depth rises
//! (the old single "next free" booking broke all three).

use super::*;
use crate::config::ExperimentConfig;

/// `channels` x `dies` dies, one-die zones (zone k on die k), every zone full; one random
/// reader per zone with `qd` commands in flight. Returns read bandwidth in bytes per second.
fn read_bandwidth(channels: u32, dies: u32, qd: u32, host_mb_s: u64) -> f64 {
    let total = channels * dies;
    let mut text = format!(
        r#"
seed = 1
[device]
name = "physics"
source = "test"
[device.geometry]
channels = {channels}
dies_per_channel = {dies}
blocks_per_die = 2
pages_per_block = 64
page_size_bytes = "16KiB"
lba_size_bytes = 4096
[device.zones]
dies_per_zone = 1
zone_size_bytes = "1MiB"
zone_capacity_bytes = "1MiB"
[device.timing]
read_latency_ns = 50000
program_latency_ns = 500000
erase_latency_ns = 3000000
channel_rate_mb_s = 800
host_rate_mb_s = {host_mb_s}
[device.energy]
read_nj_per_page = 1.0
program_nj_per_page = 1.0
erase_nj_per_block = 1.0
[prefill]
fraction = 1.0
size = "{total}z"
"#
    );
    for k in 0..total {
        text += &format!(
            "[[job]]\nname = \"r{k}\"\nrw = \"randread\"\nbs = \"4KiB\"\niodepth = {qd}\noffset = \"{k}z\"\nsize = \"1z\"\nio_size = \"2MiB\"\n"
        );
    }
    let cfg = ExperimentConfig::parse(&text, &[]).unwrap();
    let exp = cfg.validate("physics").unwrap();
    let out = run(&exp, Inputs::default(), 0, &mut |_| {}).unwrap();
    let read = &out.summary.ops["read"];
    read.bytes as f64 / (out.summary.simulated_time_ns as f64 / 1e9)
}

const T_R: f64 = 50e-6;
const XFER_4K: f64 = 4096.0 / 800e6;

/// (a) N dies behind one channel: within 5% of min(N x one die's rate, channel rate), and
/// One die's rate is measured alone at the same depth per die: at one read per die it is one
/// page per tR + transfer; deeper, the die senses the next page while the last crosses the
/// channel (cache read), one page per max(tR, transfer).
#[test]
fn dies_behind_one_channel_share_it() {
    let channel = 800e6;
    let qd1_die = 4096.0 / (T_R + XFER_4K);
    for qd in [1u32, 2, 4, 8, 16] {
        let die = read_bandwidth(1, 1, qd, 64_000);
        if qd == 1 {
            assert!(
                (die - qd1_die).abs() <= 0.01 * qd1_die,
                "one die at QD1: {die}"
            );
        } else {
            let pipelined = 4096.0 / T_R;
            assert!(
                (die - pipelined).abs() <= 0.01 * pipelined,
                "one die at QD{qd}: {die}"
            );
        }
    }
    for n in [2u32, 4, 8, 16] {
        let mut last = 0.0;
        for qd in [1u32, 2, 4, 8, 16] {
            let die = read_bandwidth(1, 1, qd, 64_000);
            let expect = (n as f64 * die).min(channel);
            let bw = read_bandwidth(1, n, qd, 64_000);
            assert!(
                (bw - expect).abs() <= 0.05 * expect,
                "{n} dies, QD {}: {:.1} MB/s, expected {:.1}",
                qd * n,
                bw / 1e6,
                expect / 1e6
            );
            assert!(
                bw >= last * 0.999,
                "{n} dies: bandwidth fell from {last} to {bw} as QD rose to {}",
                qd * n
            );
            last = bw;
        }
    }
}

/// (b) C channels of N dies scale until the host link caps them, and never fall past it.
#[test]
fn channels_scale_until_the_host_link_caps() {
    let die = read_bandwidth(1, 1, 8, 64_000);
    let host = 1_600e6;
    let mut last = 0.0;
    for c in [1u32, 2, 4, 8] {
        let per_channel = (4.0 * die).min(800e6);
        let expect = (c as f64 * per_channel).min(host);
        let bw = read_bandwidth(c, 4, 8, 1_600);
        assert!(
            (bw - expect).abs() <= 0.05 * expect,
            "{c} channels: {:.1} MB/s, expected {:.1}",
            bw / 1e6,
            expect / 1e6
        );
        assert!(
            bw >= last * 0.999,
            "bandwidth fell past the cap: {last} -> {bw}"
        );
        last = bw;
    }
}

/// Read priority (off by default): one die, a writer keeping 16 programs queued and a reader at
/// QD1 on the same die. Off, a read waits behind every queued program; on, only behind the one
/// in progress: at most tPROG + its load + tR + the read's transfers. The writer loses no more
/// than the reads' tR per program pushed.
#[test]
fn read_priority_serves_reads_before_queued_programs() {
    let run_with = |priority: bool| {
        let text = format!(
            r#"
seed = 1
[device]
name = "priority"
source = "test"
[device.geometry]
channels = 1
dies_per_channel = 1
blocks_per_die = 2
pages_per_block = 64
page_size_bytes = "16KiB"
lba_size_bytes = 4096
[device.zones]
dies_per_zone = 1
zone_size_bytes = "1MiB"
zone_capacity_bytes = "1MiB"
[device.timing]
read_latency_ns = 50000
program_latency_ns = 500000
erase_latency_ns = 3000000
channel_rate_mb_s = 800
host_rate_mb_s = 3200
read_priority = {priority}
[device.energy]
read_nj_per_page = 1.0
program_nj_per_page = 1.0
erase_nj_per_block = 1.0
[prefill]
fraction = 1.0
size = "1z"
[[job]]
name = "writer"
rw = "write"
bs = "16KiB"
iodepth = 16
offset = "1z"
size = "1z"
[[job]]
name = "reader"
rw = "randread"
bs = "4KiB"
iodepth = 1
offset = "0z"
size = "1z"
io_size = "256KiB"
"#
        );
        let cfg = ExperimentConfig::parse(&text, &[]).unwrap();
        let exp = cfg.validate("priority").unwrap();
        run(&exp, Inputs::default(), 0, &mut |_| {}).unwrap()
    };
    let p100 = |out: &RunOutput, op: &str| {
        out.summary.ops[op].latency_ns.percentiles[&crate::metrics::Percentile::P100]
    };
    let (off, on) = (run_with(false), run_with(true));
    let xfer_16k = 16384 * 1000 / 800;
    let bound = 500_000 + xfer_16k + 50_000 + 2 * (4096 * 1000 / 800) + 4096 * 1000 / 3200;
    assert!(
        p100(&on, "read") <= bound * 1001 / 1000,
        "a read waited {} ns, more than one program and its own service ({bound})",
        p100(&on, "read")
    );
    assert!(
        p100(&off, "read") > 4 * bound,
        "without priority a read waits behind the queued programs: {}",
        p100(&off, "read")
    );
    assert_eq!(off.summary.device_counters.programs_pushed, 0);
    assert!(on.summary.device_counters.programs_pushed > 0);
    assert_eq!(
        on.summary.ops["write"].count,
        off.summary.ops["write"].count
    );
}
