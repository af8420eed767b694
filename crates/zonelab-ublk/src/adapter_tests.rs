use std::sync::{Arc, Mutex};

use super::*;
use crate::proto::BLK_ZONE_BYTES;
use zonelab::trace::{TraceRecord, TraceSink};

/// rezns-40g cut to 8 zones of 64 MiB (131072 sectors), 2 open and 3 active at most.
fn adapter(extra: &[&str]) -> BlockAdapter {
    let mut overrides = vec![
        "device.zones.zone_count=8".to_string(),
        "device.zones.max_open_zones=2".to_string(),
        "device.zones.max_active_zones=3".to_string(),
    ];
    overrides.extend(extra.iter().map(|s| s.to_string()));
    let cfg = ExperimentConfig::parse("preset = \"rezns-40g\"\n", &overrides).unwrap();
    let exp = cfg.validate_device("ublk-test").unwrap();
    BlockAdapter::new(cfg, exp, 512 << 10).unwrap()
}

const ZONE: u64 = 131072;

fn cmd(op: Op, sector: u64, count: u32) -> Command {
    Command { op, sector, count }
}

fn write(a: &mut BlockAdapter, now: u64, sector: u64, sectors: u32, byte: u8) -> Reply {
    let mut data = vec![byte; sectors as usize * 512];
    a.submit(now, &cmd(Op::Write, sector, sectors), &mut data)
}

/// (start, len, wp, type, cond, capacity) of each `struct blk_zone` of a report.
fn report(a: &mut BlockAdapter, sector: u64, zones: u32) -> Vec<(u64, u64, u64, u8, u8, u64)> {
    let mut buf = vec![0u8; zones as usize * BLK_ZONE_BYTES];
    let r = a.submit(0, &cmd(Op::ReportZones, sector, zones), &mut buf);
    assert!(r.result >= 0, "report failed: {r:?}");
    let at = |b: &[u8], i: usize| u64::from_ne_bytes(b[i..i + 8].try_into().unwrap());
    buf[..r.result as usize]
        .chunks_exact(BLK_ZONE_BYTES)
        .map(|b| (at(b, 0), at(b, 8), at(b, 16), b[24], b[25], at(b, 32)))
        .collect()
}

fn cond(a: &mut BlockAdapter, zone: u64) -> u8 {
    report(a, zone * ZONE, 1)[0].4
}

#[test]
fn limits_in_sectors() {
    let a = adapter(&["device.zones.zone_append_size_limit_bytes=\"128KiB\""]);
    assert_eq!(
        a.limits(),
        Limits {
            lba_shift: 12,
            dev_sectors: 8 * ZONE,
            zone_sectors: ZONE as u32,
            zone_capacity_sectors: ZONE,
            nr_zones: 8,
            max_open_zones: 2,
            max_active_zones: 3,
            max_zone_append_sectors: 256,
        }
    );
    // Without a limit, appends are bounded by the server's largest command.
    assert_eq!(adapter(&[]).limits().max_zone_append_sectors, 1024);
}

#[test]
fn report_zones_encodes_each_zone_from_the_start_sector() {
    let mut a = adapter(&[]);
    assert_eq!(write(&mut a, 0, ZONE, 16, 1).result, 8192);
    let zones = report(&mut a, ZONE, 3);
    assert_eq!(zones.len(), 3);
    assert_eq!(
        zones[0],
        (ZONE, ZONE, ZONE + 16, 2, 2, ZONE),
        "implicitly opened"
    );
    assert_eq!(zones[1], (2 * ZONE, ZONE, 2 * ZONE, 2, 1, ZONE), "empty");
    // Asked for more zones than remain: only those that exist.
    assert_eq!(report(&mut a, 6 * ZONE, 8).len(), 2);
    // A start sector inside a zone reports from that zone.
    assert_eq!(report(&mut a, ZONE + 8, 1)[0].0, ZONE);
    // Past the end: LBA Out of Range.
    let mut buf = vec![0u8; BLK_ZONE_BYTES];
    let r = a.submit(0, &cmd(Op::ReportZones, 8 * ZONE, 1), &mut buf);
    assert_eq!(r.result, -libc::EREMOTEIO);
}

#[test]
fn data_written_reads_back() {
    let mut a = adapter(&[]);
    let mut data: Vec<u8> = (0..16384u32).map(|i| (i * 7 % 251) as u8).collect();
    let w = a.submit(1_000, &cmd(Op::Write, 0, 32), &mut data);
    assert_eq!(w.result, 16384);
    assert!(w.done_ns > 1_000, "the model takes time");
    let mut back = vec![0u8; 16384];
    let r = a.submit(w.done_ns, &cmd(Op::Read, 0, 32), &mut back);
    assert_eq!(r.result, 16384);
    assert_eq!(back, data);
    // Never-written LBAs read as zeros.
    let mut past = vec![9u8; 4096];
    assert_eq!(
        a.submit(r.done_ns, &cmd(Op::Read, 64, 8), &mut past).result,
        4096
    );
    assert!(past.iter().all(|&b| b == 0));
}

#[test]
fn zone_append_returns_the_sector_written() {
    let mut a = adapter(&[]);
    let mut data = vec![3u8; 8192];
    let first = a.submit(0, &cmd(Op::ZoneAppend, 2 * ZONE, 16), &mut data);
    assert_eq!((first.result, first.append_sector), (8192, Some(2 * ZONE)));
    let second = a.submit(0, &cmd(Op::ZoneAppend, 2 * ZONE, 16), &mut data);
    assert_eq!(second.append_sector, Some(2 * ZONE + 16));
    // An append must name the zone start: Invalid Field, which the NVMe driver makes EOPNOTSUPP.
    let off = a.submit(0, &cmd(Op::ZoneAppend, 2 * ZONE + 8, 16), &mut data);
    assert_eq!(
        (off.result, off.status, off.append_sector),
        (-libc::EOPNOTSUPP, Some(Status::InvalidField), None)
    );
    let summary = a.summary();
    assert_eq!(summary.ops["append"].count, 2);
    assert_eq!(summary.errors.len(), 1);
}

#[test]
fn device_statuses_become_the_errnos_the_block_layer_expects() {
    let mut a = adapter(&[]);
    // Not at the write pointer: Zone Invalid Write -> EIO.
    let r = write(&mut a, 0, 8, 8, 1);
    assert_eq!(
        (r.result, r.status),
        (-libc::EIO, Some(Status::ZoneInvalidWrite))
    );
    // Two explicit opens use the open resources; a third zone cannot open.
    let mut none = [];
    for z in 0..2 {
        let r = a.submit(0, &cmd(Op::ZoneOpen, z * ZONE, 0), &mut none);
        assert_eq!(r.result, 0);
    }
    let r = write(&mut a, 0, 2 * ZONE, 8, 1);
    assert_eq!(
        (r.result, r.status),
        (-libc::ETOOMANYREFS, Some(Status::TooManyOpenZones))
    );
    // Close both: three active zones at most, so a fourth zone cannot become active.
    for z in 0..2 {
        a.submit(0, &cmd(Op::ZoneClose, z * ZONE, 0), &mut none);
    }
    assert_eq!(write(&mut a, 0, 2 * ZONE, 8, 1).result, 4096);
    let r = write(&mut a, 0, 3 * ZONE, 8, 1);
    assert_eq!(
        (r.result, r.status),
        (-libc::EOVERFLOW, Some(Status::TooManyActiveZones))
    );
    // Misaligned to the 4 KiB LBA: rejected before the device, no NVMe status.
    let r = write(&mut a, 0, 2 * ZONE + 8, 4, 1);
    assert_eq!((r.result, r.status), (-libc::EINVAL, None));
    assert_eq!(a.error_count(), 3);
}

#[test]
fn zone_management_maps_to_zone_management_send() {
    let mut a = adapter(&[]);
    let mut none = [];
    let mut send = |a: &mut BlockAdapter, op, zone: u64| {
        let r = a.submit(0, &cmd(op, zone * ZONE, 0), &mut none);
        assert_eq!(r.result, 0, "{op:?} zone {zone}: {r:?}");
    };
    send(&mut a, Op::ZoneOpen, 1);
    assert_eq!(cond(&mut a, 1), 3, "explicitly opened");
    write(&mut a, 0, ZONE, 8, 1);
    send(&mut a, Op::ZoneClose, 1);
    assert_eq!(cond(&mut a, 1), 4, "closed");
    send(&mut a, Op::ZoneFinish, 1);
    assert_eq!(cond(&mut a, 1), 14, "full");
    assert_eq!(
        report(&mut a, ZONE, 1)[0].2,
        2 * ZONE,
        "a full zone's wp is start + size"
    );
    send(&mut a, Op::ZoneReset, 1);
    assert_eq!(
        report(&mut a, ZONE, 1)[0].2,
        ZONE,
        "write pointer back at the start"
    );
    assert_eq!(cond(&mut a, 1), 1, "empty");
    // Reset all: every written zone goes back to empty.
    write(&mut a, 0, 0, 8, 1);
    write(&mut a, 0, 4 * ZONE, 8, 1);
    send(&mut a, Op::ZoneResetAll, 0);
    assert!(report(&mut a, 0, 8).iter().all(|z| z.4 == 1));
    let s = a.summary();
    assert_eq!(s.device_counters.counters.zone_finishes, 1);
    assert_eq!(
        s.ops["reset"].count, 2,
        "one reset and one reset-all command"
    );
    assert_eq!((s.ops["open"].count, s.ops["close"].count), (1, 1));
}

#[test]
fn discard_resets_whole_zones_only() {
    let mut a = adapter(&[]);
    write(&mut a, 0, 0, 8, 1);
    write(&mut a, 0, ZONE, 8, 1);
    let mut none = [];
    // From the middle of zone 0 to the end of zone 1: zone 1 is covered whole.
    let r = a.submit(0, &cmd(Op::Discard, 8, (2 * ZONE - 8) as u32), &mut none);
    assert_eq!(r.result, 0);
    assert_eq!(
        cond(&mut a, 0),
        2,
        "zone 0 only partly discarded: untouched"
    );
    assert_eq!(cond(&mut a, 1), 1, "zone 1 reset");
    let mut back = vec![0u8; 4096];
    a.submit(0, &cmd(Op::Read, 0, 8), &mut back);
    assert!(
        back.iter().all(|&b| b == 1),
        "data of a partial discard stays"
    );
}

#[test]
fn flush_completes_at_once_and_unknown_ops_are_refused() {
    let mut a = adapter(&[]);
    let mut none = [];
    let r = a.submit(42, &cmd(Op::Flush, 0, 0), &mut none);
    assert_eq!((r.result, r.done_ns), (0, 42));
    let r = a.submit(42, &cmd(Op::WriteZeroes, 0, 8), &mut none);
    assert_eq!(r.result, -libc::EOPNOTSUPP);
}

#[test]
fn zone_sizes_linux_cannot_serve_are_rejected_naming_the_field() {
    let cfg = ExperimentConfig::parse("preset = \"smallzone-4t\"\n", &[]).unwrap();
    let exp = cfg.validate_device("x").unwrap();
    let err = BlockAdapter::new(cfg, exp, 512 << 10).err().unwrap();
    assert!(
        err.to_string()
            .starts_with("device.zones.zone_size_bytes: 100663296 bytes is not a power of two"),
        "{err}"
    );
}

#[test]
fn every_command_reaches_the_observer() {
    struct Log(Arc<Mutex<Vec<(u64, Op, i32)>>>);
    impl CommandObserver for Log {
        fn command(&mut self, submit_ns: u64, command: &Command, reply: &Reply) {
            self.0
                .lock()
                .unwrap()
                .push((submit_ns, command.op, reply.result));
        }
    }
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut a = adapter(&[]);
    a.set_observer(Box::new(Log(seen.clone())));
    write(&mut a, 5, 0, 8, 1);
    write(&mut a, 6, 8 * 8, 8, 1);
    assert_eq!(
        *seen.lock().unwrap(),
        vec![(5, Op::Write, 4096), (6, Op::Write, -libc::EIO)]
    );
}

#[test]
fn idle_time_runs_the_firmwares_background_erases() {
    // Preemptive Zone Reset erases invalid zones a row at a time when the device is idle.
    let mut a = adapter(&[
        "firmware.policy=\"preemptive\"",
        "firmware.t_free=0",
        "firmware.t_invalid=1",
    ]);
    let mut data = vec![1u8; 1 << 20];
    let mut t = 0;
    for i in 0..64 {
        let r = a.submit(t, &cmd(Op::Write, i * 2048, 2048), &mut data);
        assert_eq!(r.result, 1 << 20);
        t = r.done_ns;
    }
    let mut none = [];
    let r = a.submit(t, &cmd(Op::ZoneReset, 0, 0), &mut none);
    assert_eq!(r.result, 0);
    assert_eq!(
        a.summary().device_counters.block_erases,
        0,
        "reset unlinks only"
    );
    let mut now = r.done_ns + 1_000_000_000;
    let mut steps = 0;
    while let Some(next) = a.advance(now) {
        now = now.max(next);
        steps += 1;
        assert!(steps < 10_000, "background work ends");
    }
    let s = a.summary();
    assert!(s.device_counters.block_erases > 0, "idle erases ran");
    assert_eq!(s.device_counters.counters.zone_resets_executed, 1);
}

/// A trace sink the test reads afterwards.
#[derive(Clone, Default)]
struct SharedCsv(Arc<Mutex<String>>);

impl TraceSink for SharedCsv {
    fn record(&mut self, r: &TraceRecord) {
        let mut t = self.0.lock().unwrap();
        if t.is_empty() {
            t.push_str(zonelab::trace::CSV_HEADER);
            t.push('\n');
        }
        zonelab::trace::csv_line(r, 8, &mut t);
        t.push('\n');
    }
}

#[test]
fn the_trace_of_what_the_host_sent_replays_in_a_zonelab_run() {
    let mut a = adapter(&[]);
    let sink = SharedCsv::default();
    a.set_trace(Box::new(sink.clone()));
    let mut t = 0;
    for i in 0..4 {
        t = write(&mut a, t, i * 64, 64, 7).done_ns;
    }
    let mut data = vec![1u8; 32 * 512];
    t = a
        .submit(t, &cmd(Op::ZoneAppend, ZONE, 32), &mut data)
        .done_ns;
    let mut none = [];
    t = a.submit(t, &cmd(Op::ZoneReset, 0, 0), &mut none).done_ns;
    let bad = write(&mut a, t, 8, 8, 1);
    assert!(bad.result < 0, "off the write pointer");
    a.finish_trace().unwrap();
    let csv = sink.0.lock().unwrap().clone();
    assert_eq!(
        csv.lines().count(),
        1 + 7,
        "one record per command, the rejected one too"
    );
    assert!(csv.lines().last().unwrap().ends_with(",1h/BCh"));
    // Replay it on the same device in a plain run: the same six commands, no error.
    let text = "preset = \"rezns-40g\"\n[device.zones]\nzone_count = 8\nmax_open_zones = 2\nmax_active_zones = 3\n[[replay]]\ntrace = \"t.csv\"\n";
    let exp = ExperimentConfig::parse(text, &[])
        .unwrap()
        .validate("replay")
        .unwrap();
    let inputs = zonelab::Inputs {
        traces: vec![Box::new(std::io::Cursor::new(csv))],
        trace_sink: None,
        limits: Default::default(),
    };
    let out = zonelab::run(&exp, inputs, 0, &mut |_| {}).unwrap();
    let s = out.summary;
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    assert_eq!(
        (
            s.ops["write"].count,
            s.ops["append"].count,
            s.ops["reset"].count
        ),
        (4, 1, 1)
    );
}
