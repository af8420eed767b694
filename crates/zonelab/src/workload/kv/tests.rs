//! db_bench and YCSB from experiment files: every workload runs, counts what it should,
//! gives the same bytes for the same seed, and a bad field is named.

use crate::config::ExperimentConfig;
use crate::experiment::{Inputs, run};
use crate::host::fs::FsReport;
use crate::metrics::{Layer, OpKind};
use crate::report::Summary;
use crate::workload::kv::{FilesChoice, KvReport};

const DEVICE: &str = "[device]\nname = \"tiny\"\nsource = \"test\"\n[device.geometry]\n\
channels = 1\ndies_per_channel = 1\nblocks_per_die = 8\npages_per_block = 4\n\
page_size_bytes = \"16KiB\"\nlba_size_bytes = 4096\n[device.zones]\ndies_per_zone = 1\n\
zone_size_bytes = \"64KiB\"\nzone_capacity_bytes = \"64KiB\"\n[device.timing]\n\
read_latency_ns = 50000\nprogram_latency_ns = 500000\nerase_latency_ns = 3000000\n\
channel_rate_mb_s = 800\nhost_rate_mb_s = 3200\n[device.energy]\nread_nj_per_page = 1.0\n\
program_nj_per_page = 10.0\nerase_nj_per_block = 100.0\n";

/// Small store options, so a few thousand operations build a tree.
const SMALL: &str = "[{t}.options]\nwrite_buffer_size = \"256KiB\"\n\
target_file_size_base = \"256KiB\"\nmax_bytes_for_level_base = \"1MiB\"\n\
min_write_buffer_number_to_merge = 1\nmax_write_buffer_number = 2\n\
level0_file_num_compaction_trigger = 4\ncache_size = \"256KiB\"\n";

/// A key-value workload's report.
fn kv<'a>(s: &'a Summary, name: &str) -> &'a KvReport {
    s.layers[name].kv_store().expect("a key-value report")
}

/// A file layer's report.
fn fs<'a>(s: &'a Summary, name: &str) -> &'a FsReport {
    s.layers[name].file_layer().expect("a file layer's report")
}

fn run_text(body: &str) -> Summary {
    let text = format!("seed = 5\n{body}\n{DEVICE}");
    let cfg = ExperimentConfig::parse(&text, &[]).unwrap();
    let exp = cfg.validate("kv").unwrap();
    run(&exp, Inputs::default(), 0, &mut |_| {})
        .unwrap()
        .summary
}

fn err(body: &str) -> String {
    let text = format!("{body}\n{DEVICE}");
    match ExperimentConfig::parse(&text, &[]).and_then(|c| c.validate("kv")) {
        Ok(_) => panic!("accepted: {body}"),
        Err(e) => e.to_string(),
    }
}

fn kv_count(s: &Summary, op: OpKind, tenant: &str) -> u64 {
    s.table
        .iter()
        .filter(|r| r.layer == Layer::Kv && r.op == op && r.tenant == tenant)
        .map(|r| r.summary.count)
        .sum()
}

fn ycsb(letter: char) -> String {
    format!(
        "[[ycsb]]\nname = \"y\"\nworkload = \"{letter}\"\nrecordcount = 3000\noperationcount = 3000\n{}",
        SMALL.replace("{t}", "ycsb")
    )
}

#[test]
fn every_ycsb_core_workload_runs_its_mix() {
    for letter in ['a', 'b', 'c', 'd', 'e', 'f'] {
        let s = run_text(&ycsb(letter));
        let layer = kv(&s, "y");
        assert!(layer.error.is_none(), "{letter}: {:?}", layer.error);
        let phases = &layer.phases;
        assert_eq!(phases.len(), 2, "{letter}: load and run");
        assert_eq!(phases[0].ops, 3000);
        assert_eq!(phases[1].ops, 3000);
        assert_eq!(kv_count(&s, OpKind::Insert, "y.load"), 3000);
        let run_ops: u64 = [
            OpKind::Get,
            OpKind::Update,
            OpKind::Insert,
            OpKind::Scan,
            OpKind::ReadModifyWrite,
        ]
        .iter()
        .map(|&k| kv_count(&s, k, "y.run"))
        .sum();
        assert_eq!(run_ops, 3000, "{letter}");
        let (reads, updates, inserts, scans, rmw) = (
            kv_count(&s, OpKind::Get, "y.run"),
            kv_count(&s, OpKind::Update, "y.run"),
            kv_count(&s, OpKind::Insert, "y.run"),
            kv_count(&s, OpKind::Scan, "y.run"),
            kv_count(&s, OpKind::ReadModifyWrite, "y.run"),
        );
        match letter {
            'a' => assert!((1300..1700).contains(&reads) && (1300..1700).contains(&updates)),
            'b' => assert!(reads > 2700 && updates > 60),
            'c' => assert_eq!(reads, 3000),
            'd' => assert!(reads > 2700 && inserts > 60),
            'e' => assert!(scans > 2700 && inserts > 60),
            'f' => assert!((1300..1700).contains(&reads) && (1300..1700).contains(&rmw)),
            _ => unreachable!(),
        }
        let store = layer.store.as_ref().unwrap();
        // Reads find the records loaded (every key read exists).
        if letter != 'e' {
            assert!(store.gets_found > 0, "{letter}: {store:?}");
        }
    }
}

#[test]
fn ycsb_reads_find_what_was_loaded() {
    let s = run_text(&ycsb('c'));
    let store = kv(&s, "y").store.as_ref().unwrap();
    assert_eq!(
        store.gets, store.gets_found,
        "workload C reads loaded keys only"
    );
    assert!(store.flushes > 5);
    assert!(store.compactions > 0);
}

#[test]
fn the_same_seed_gives_the_same_summary() {
    let body = format!(
        "{}\n[[dbbench]]\nname = \"d\"\nbenchmarks = \"fillrandom,readwhilewriting,mixgraph\"\nnum = 4000\nreads = 2000\n{}",
        ycsb('a'),
        SMALL.replace("{t}", "dbbench")
    );
    let a = serde_json::to_string(&run_text(&body)).unwrap();
    let b = serde_json::to_string(&run_text(&body)).unwrap();
    assert_eq!(a, b);
}

#[test]
fn db_bench_benchmarks_run_in_order_on_one_store() {
    let s = run_text(&format!(
        "[[dbbench]]\nname = \"d\"\nbenchmarks = \"fillseq,overwrite,readrandom,readwhilewriting,mixgraph,flush,waitforcompaction\"\nnum = 5000\nreads = 3000\nthreads = 2\n{}",
        SMALL.replace("{t}", "dbbench")
    ));
    let layer = kv(&s, "d");
    assert!(layer.error.is_none(), "{:?}", layer.error);
    let names: Vec<&str> = layer.phases.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "fillseq",
            "overwrite",
            "readrandom",
            "readwhilewriting",
            "mixgraph",
            "flush",
            "waitforcompaction"
        ]
    );
    // Two threads each: num puts per thread for the fills, reads per thread for reads.
    assert_eq!(kv_count(&s, OpKind::Put, "d.fillseq"), 10_000);
    assert_eq!(kv_count(&s, OpKind::Put, "d.overwrite"), 10_000);
    assert_eq!(kv_count(&s, OpKind::Get, "d.readrandom"), 6_000);
    assert_eq!(kv_count(&s, OpKind::Get, "d.readwhilewriting"), 6_000);
    assert!(
        kv_count(&s, OpKind::Put, "d.readwhilewriting") > 0,
        "the writer wrote"
    );
    let mix = kv_count(&s, OpKind::Get, "d.mixgraph")
        + kv_count(&s, OpKind::Put, "d.mixgraph")
        + kv_count(&s, OpKind::Scan, "d.mixgraph");
    assert_eq!(mix, 6_000);
    let store = layer.store.as_ref().unwrap();
    assert!(
        store.files_per_level[0] < 4,
        "waitforcompaction left L0 below its trigger"
    );
}

#[test]
fn mixgraph_nine_puts_per_get() {
    let s = run_text(&format!(
        "[[dbbench]]\nname = \"m\"\nbenchmarks = \"fillrandom,mixgraph\"\nnum = 4000\nreads = 10000\nmix_get_ratio = 0.1\nmix_put_ratio = 0.9\nmix_seek_ratio = 0.0\n{}",
        SMALL.replace("{t}", "dbbench")
    ));
    let gets = kv_count(&s, OpKind::Get, "m.mixgraph");
    let puts = kv_count(&s, OpKind::Put, "m.mixgraph");
    assert_eq!(gets + puts, 10_000);
    assert!((800..1200).contains(&gets), "{gets} gets");
}

#[test]
fn a_bad_field_is_named() {
    let small = SMALL.replace("{t}", "dbbench");
    for (body, field) in [
        (
            "[[dbbench]]\nbenchmarks = \"fillrandom,fillbogus\"".to_string(),
            "dbbench[0].benchmarks",
        ),
        (
            "[[dbbench]]\nbenchmarks = \"fillrandom\"\nkey_size = 4".to_string(),
            "dbbench[0].key_size",
        ),
        (
            "[[dbbench]]\nbenchmarks = \"fillrandom\"\n[dbbench.options]\nlevel0_slowdown_writes_trigger = 2".to_string(),
            "dbbench[0].options.level0_slowdown_writes_trigger",
        ),
        (
            "[[dbbench]]\nbenchmarks = \"fillrandom\"\n[dbbench.options]\nwrite_bufer_size = 1".to_string(),
            "dbbench[0].options",
        ),
        (
            "[[dbbench]]\nbenchmarks = \"fillrandom\"\n[dbbench.options.cpu]\nscale = -1.0".to_string(),
            "dbbench[0].options.cpu.scale",
        ),
        (
            format!("[[dbbench]]\nbenchmarks = \"fillrandom\"\nfiles = \"zenfs\"\n{small}"),
            "dbbench[0].files",
        ),
        ("[[ycsb]]\nworkload = \"g\"".to_string(), "ycsb[0].workload"),
        (
            "[[ycsb]]\nworkload = \"a\"\nrequestdistribution = \"pareto\"".to_string(),
            "ycsb[0].requestdistribution",
        ),
        (
            "[[ycsb]]\nworkload = \"a\"\n[ycsb.options]\nmin_write_buffer_number_to_merge = 6"
                .to_string(),
            "ycsb[0].options.min_write_buffer_number_to_merge",
        ),
        (
            "[[ycsb]]\nname = \"y\"\nworkload = \"a\"\n[[ycsb]]\nname = \"y\"\nworkload = \"b\"".to_string(),
            "ycsb[1].name",
        ),
    ] {
        let e = err(&body);
        assert!(e.contains(field), "`{e}` should name {field}");
    }
}

/// A device large enough for a store on the file layer: 128 zones of 2 MiB (F2FS's segment).
const FS_DEVICE: &str = "[device]\nname = \"small\"\nsource = \"test\"\n[device.geometry]\n\
channels = 2\ndies_per_channel = 1\nblocks_per_die = 128\npages_per_block = 64\n\
page_size_bytes = \"16KiB\"\nlba_size_bytes = 4096\n[device.zones]\ndies_per_zone = 2\n\
zone_size_bytes = \"2MiB\"\nzone_capacity_bytes = \"2MiB\"\n[device.timing]\n\
read_latency_ns = 50000\nprogram_latency_ns = 500000\nerase_latency_ns = 3000000\n\
channel_rate_mb_s = 800\nhost_rate_mb_s = 3200\n[device.energy]\nread_nj_per_page = 1.0\n\
program_nj_per_page = 10.0\nerase_nj_per_block = 100.0\n";

fn run_on_fs(personality: &str, files: &str) -> Summary {
    let text = format!(
        "seed = 5\n[[dbbench]]\nname = \"d\"\nbenchmarks = \"fillrandom,overwrite,readrandom\"\n\
         num = 6000\nreads = 2000\nfiles = \"{files}\"\n{}\n[fs]\npersonality = \"{personality}\"\n{FS_DEVICE}",
        SMALL.replace("{t}", "dbbench")
    );
    let cfg = ExperimentConfig::parse(&text, &[]).unwrap();
    let exp = cfg.validate("kv").unwrap();
    run(&exp, Inputs::default(), 0, &mut |_| {})
        .unwrap()
        .summary
}

#[test]
fn a_store_on_the_file_layer_writes_its_files_to_the_device() {
    for personality in ["zenfs", "f2fs"] {
        let s = run_on_fs(personality, "fs");
        let layer = kv(&s, "d");
        assert!(layer.error.is_none(), "{personality}: {:?}", layer.error);
        assert_eq!(layer.files, FilesChoice::Fs);
        let store = layer.store.as_ref().unwrap();
        let fill = &layer.phases[0].device;
        // The WAL and the flushed tables reach the device as writes.
        let wal_and_flush = store.wal_bytes + store.flush_bytes;
        assert!(wal_and_flush > 0, "{personality}: the store wrote");
        assert!(
            fill.host_write_bytes > 0,
            "{personality}: fillrandom wrote to the device: {fill:?}"
        );
        let written = fs(&s, "fs").data_bytes_written;
        assert!(written > 0, "{personality}: {:?}", s.layers["fs"]);
        // Reads that miss the block cache read SST blocks: from the device under ZenFS (direct
        // I/O); F2FS's page cache still holds these freshly written tables.
        let reads = &layer.phases[2].device;
        assert_eq!(
            reads.host_read_bytes > 0,
            personality == "zenfs",
            "{personality}: readrandom's device reads: {reads:?}"
        );
        assert_eq!(kv_count(&s, OpKind::Get, "d.readrandom"), 2_000);
    }
    // The same workload in memory writes nothing to the device.
    let text = format!(
        "seed = 5\n[[dbbench]]\nname = \"d\"\nbenchmarks = \"fillrandom\"\nnum = 6000\n{}\n{FS_DEVICE}",
        SMALL.replace("{t}", "dbbench")
    );
    let exp = ExperimentConfig::parse(&text, &[])
        .unwrap()
        .validate("kv")
        .unwrap();
    let s = run(&exp, Inputs::default(), 0, &mut |_| {})
        .unwrap()
        .summary;
    assert_eq!(kv(&s, "d").phases[0].device.host_write_bytes, 0);
}

#[test]
fn a_store_on_the_file_layer_is_deterministic() {
    let a = serde_json::to_string(&run_on_fs("zenfs", "fs")).unwrap();
    let b = serde_json::to_string(&run_on_fs("zenfs", "fs")).unwrap();
    assert_eq!(a, b);
}

/// Two eZNS namespaces over 1,024 one-die zones of 1 MiB.
const NS_DEVICE: &str = "[device]\nname = \"small-zones\"\nsource = \"test\"\n[device.geometry]\n\
channels = 4\ndies_per_channel = 4\nblocks_per_die = 64\npages_per_block = 64\n\
page_size_bytes = \"16KiB\"\nlba_size_bytes = 4096\n[device.zones]\ndies_per_zone = 1\n\
zone_size_bytes = \"1MiB\"\nzone_capacity_bytes = \"1MiB\"\nmax_open_zones = 16\n\
max_active_zones = 16\n[device.timing]\nread_latency_ns = 50000\nprogram_latency_ns = 500000\n\
erase_latency_ns = 3000000\nchannel_rate_mb_s = 800\nhost_rate_mb_s = 3200\n\
write_cache_units = 32\n[device.energy]\nread_nj_per_page = 1.0\nprogram_nj_per_page = 10.0\n\
erase_nj_per_block = 100.0\n[firmware]\npolicy = \"round_robin\"\n[layer]\nkind = \"ezns\"\n\
namespaces = 2\nzones_per_vzone = 4\nmax_active_vzones = 4\nessentials = 8\nspares = 8\n";

#[test]
fn stores_on_two_namespaces_each_get_their_own_file_layer() {
    let store = |name: &str, ns: u32| {
        format!(
            "[[dbbench]]\nname = \"{name}\"\nbenchmarks = \"fillrandom\"\nnum = 4000\nfiles = \"fs\"\nnamespace = {ns}\n{}",
            SMALL.replace("{t}", "dbbench")
        )
    };
    let text = format!(
        "seed = 5\n{}\n{}\n[fs]\npersonality = \"zenfs\"\n{NS_DEVICE}",
        store("a", 0),
        store("b", 1)
    );
    let exp = ExperimentConfig::parse(&text, &[])
        .unwrap()
        .validate("kv")
        .unwrap();
    let s = run(&exp, Inputs::default(), 0, &mut |_| {})
        .unwrap()
        .summary;
    for name in ["a", "b"] {
        let error = &kv(&s, name).error;
        assert!(error.is_none(), "{error:?}");
    }
    // One layer per namespace, each holding its store's files.
    for name in ["fs", "fs.ns1"] {
        let r = fs(&s, name);
        assert!(r.data_bytes_written > 0, "{name}: {r:?}");
    }
    // Each namespace's commands are its own tenant's: the layers' daemons and the stores.
    let tenants: Vec<&str> = s.table.iter().map(|r| r.tenant.as_str()).collect();
    assert!(tenants.contains(&"fs.ns1"), "{tenants:?}");
    // A namespace the layer does not have is refused, naming the field.
    let bad = text.replace("namespace = 1", "namespace = 2");
    let e = ExperimentConfig::parse(&bad, &[])
        .and_then(|c| c.validate("kv"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("dbbench[1].namespace"), "{e}");
    // A store in memory on a namespace is refused too.
    let e = ExperimentConfig::parse(
        &bad.replace("files = \"fs\"\nnamespace = 2", "namespace = 1"),
        &[],
    )
    .and_then(|c| c.validate("kv"))
    .unwrap_err()
    .to_string();
    assert!(e.contains("dbbench[1].namespace"), "{e}");
}
