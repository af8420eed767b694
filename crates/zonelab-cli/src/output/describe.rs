//! What an experiment resolved to, as `zonelab check` and the head of `zonelab run` print it:
//! the device, firmware, layer and every workload.

use std::fmt::Write as _;

use zonelab::Experiment;
use zonelab::config::ExperimentConfig;
use zonelab::experiment::DeviceSpec;
use zonelab::ftl::{FtlSpec, PreconditionPlan};
use zonelab::workload::HostWorkload;
use zonelab::workload::files::FileWorkload;
use zonelab::workload::files::updates::UpdatePattern;
use zonelab::zns::ZnsSpec;

/// What the experiment resolved to, in a few lines.
pub fn describe(exp: &Experiment, cfg: &ExperimentConfig) -> String {
    let spec = match &exp.device {
        DeviceSpec::Zns(spec) => spec,
        DeviceSpec::Conventional(spec) => return describe_conventional(exp, spec),
    };
    let z = &spec.zones;
    let mut s = zns_device(spec, cfg);
    if !exp.prefill.zones.is_empty() {
        let total = z.zone_count as u64 * spec.zone_capacity_lbas();
        let _ = writeln!(
            s,
            "prefill: {:.1}% of capacity in {} zones",
            exp.prefill.lbas() as f64 * 100.0 / total as f64,
            exp.prefill.zones.len()
        );
    }
    for j in &exp.jobs {
        let _ = writeln!(
            s,
            "job {}: {:?} bs {} KiB, iodepth {}, numjobs {}, zones {}..{}",
            j.name,
            j.rw,
            j.block_lbas * z.lba_size_bytes / 1024,
            j.iodepth,
            j.numjobs,
            j.first_zone,
            j.first_zone + j.zone_count
        );
    }
    replays(&mut s, exp);
    for w in &exp.host {
        host_workload(&mut s, w, exp.cores, z.lba_size_bytes);
    }
    s
}

/// A zoned device's shape, limits and timing, and its firmware's settings.
fn zns_device(spec: &ZnsSpec, cfg: &ExperimentConfig) -> String {
    let (g, z, t) = (&spec.nand.geometry, &spec.zones, &spec.nand.timing);
    let limit = |l: Option<u32>| l.map_or("no limit".to_string(), |v| v.to_string());
    let mut s = format!(
        "device {}: {} zones of {} MiB (capacity {} MiB) over {} of {} dies, {} KiB pages; open {}, active {}\n",
        spec.name,
        z.zone_count,
        z.zone_size_bytes >> 20,
        z.zone_capacity_bytes as f64 / (1 << 20) as f64,
        z.dies_per_zone,
        g.dies(),
        g.page_size_bytes >> 10,
        limit(z.max_open_zones),
        limit(z.max_active_zones),
    );
    let _ = writeln!(
        s,
        "timing: tR {} us, tPROG {} us, erase {} ms, channel {} MB/s, host {} MB/s; firmware {}",
        t.read_latency.ns() as f64 / 1e3,
        t.program_latency.ns() as f64 / 1e3,
        t.erase_latency.ns() as f64 / 1e6,
        t.channel_rate_mb_s,
        t.host_rate_mb_s,
        toml::to_string(&cfg.firmware)
            .unwrap_or_default()
            .replace('\n', " ")
            .trim()
    );
    s
}

/// One line per trace replay.
fn replays(s: &mut String, exp: &Experiment) {
    for r in &exp.replays {
        let _ = writeln!(
            s,
            "replay {}: {} ({:?}), iodepth {}",
            r.name, r.trace, r.mode, r.iodepth
        );
    }
}

/// A host workload's line (a file layer's, then one per workload on it).
fn host_workload(s: &mut String, w: &HostWorkload, cores: u32, lba_size_bytes: u64) {
    match w {
        HostWorkload::Threads(t) => {
            let _ = writeln!(
                s,
                "threads {}: {} threads x {} appends of {} KiB, fsync {}, on {} host cores",
                t.name,
                t.threads,
                t.ops_per_thread,
                t.block_lbas * lba_size_bytes / 1024,
                t.fsync,
                cores
            );
        }
        HostWorkload::Files(f) => {
            let fs = &f.fs;
            let _ = writeln!(
                s,
                "file layer: {} over zones {}..{}, GC {}, page cache {} MiB, on {} host cores",
                fs.personality.name(),
                fs.first_zone,
                fs.first_zone + fs.zone_count,
                fs.gc.policy.name(),
                fs.cache.page_cache_bytes >> 20,
                cores
            );
            for w in &f.workloads {
                let _ = writeln!(s, "{}", file_workload(w));
            }
        }
        HostWorkload::DbBench(d) => {
            let names: Vec<&str> = d.benchmarks.iter().map(|b| b.name()).collect();
            let _ = writeln!(
                s,
                "dbbench {}: {} on a RocksDB-like store, num {}, key {} B, value {} B, {} thread(s), files {}",
                d.name,
                names.join(","),
                d.num,
                d.key_size,
                d.value_size,
                d.threads,
                d.files
            );
        }
        HostWorkload::Ycsb(y) => {
            let _ = writeln!(
                s,
                "ycsb {}: {} records, {} operations (read {}, update {}, insert {}, scan {}, rmw {}), {:?}, {} thread(s), files {}",
                y.name,
                y.record_count,
                y.operation_count,
                y.read,
                y.update,
                y.insert,
                y.scan,
                y.read_modify_write,
                y.distribution,
                y.threads,
                y.files
            );
        }
    }
}

/// A workload on the file layer, in one line.
fn file_workload(w: &FileWorkload) -> String {
    match w {
        FileWorkload::Filebench(b) => format!(
            "filebench {}: {}, {} files of {} KiB in dirs {} wide, {} threads, {:.0} s",
            b.name,
            b.kind.name(),
            b.nfiles,
            b.file_bytes >> 10,
            b.dir_width,
            b.threads,
            b.run.secs_f64()
        ),
        FileWorkload::FioFiles(j) => format!(
            "fio_files {}: {} jobs x {} MiB files, {} KiB {} writes, fsync every {}, {} loops",
            j.name,
            j.threads,
            j.file_bytes >> 20,
            j.bs >> 10,
            if j.random { "random" } else { "sequential" },
            j.fsync,
            j.loops
        ),
        FileWorkload::Updates(u) => format!(
            "updates {}: {} files x {} MiB, {} updates of {} KiB ({}), {} threads",
            u.name,
            u.files,
            u.file_bytes >> 20,
            u.updates,
            u.bs >> 10,
            match u.pattern {
                UpdatePattern::Uniform => "uniform".to_string(),
                UpdatePattern::HotCold {
                    hot_updates,
                    hot_data,
                } => format!(
                    "{:.0}% of updates to the hottest {:.0}% of the data",
                    hot_updates * 100.0,
                    hot_data * 100.0
                ),
            },
            u.threads
        ),
    }
}

/// What a conventional device's experiment resolved to.
fn describe_conventional(exp: &Experiment, spec: &FtlSpec) -> String {
    let t = &spec.nand.timing;
    let mut s = ftl_device(spec);
    let _ = writeln!(
        s,
        "timing: tR {} us, tPROG {} us, erase {} ms, channel {} MB/s, host {} MB/s{}",
        t.read_latency.ns() as f64 / 1e3,
        t.program_latency.ns() as f64 / 1e3,
        t.erase_latency.ns() as f64 / 1e6,
        t.channel_rate_mb_s,
        t.host_rate_mb_s,
        if spec.nand.aging.is_some() {
            "; NAND aging on"
        } else {
            ""
        }
    );
    if let Some(p) = &exp.precondition {
        precondition(&mut s, p, spec);
    }
    for j in &exp.jobs {
        let _ = writeln!(
            s,
            "job {}: {:?} bs {} KiB, iodepth {}, numjobs {}, LBAs {}..{}",
            j.name,
            j.rw,
            j.block_lbas * spec.lba_size_bytes / 1024,
            j.iodepth,
            j.numjobs,
            j.first_lba,
            j.first_lba + j.region_lbas
        );
    }
    replays(&mut s, exp);
    s
}

/// A conventional device's shape and its FTL's settings.
fn ftl_device(spec: &FtlSpec) -> String {
    let g = &spec.nand.geometry;
    let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
    let unit = spec.mapping_unit_bytes;
    let mut s = format!(
        "device {} (conventional): {:.1} GiB logical on {:.1} GiB of NAND ({}% over-provisioning), {} superblocks of {} MiB over {} dies, {} KiB pages\n",
        spec.name,
        gib(spec.logical_units * unit),
        gib(spec.physical_units() * unit),
        spec.over_provisioning_percent,
        spec.superblocks(),
        (spec.units_per_superblock() * unit) >> 20,
        g.dies(),
        g.page_size_bytes >> 10,
    );
    let _ = writeln!(
        s,
        "FTL: {} KiB mapping unit (map {:.2} GiB when full), write buffer {} KiB, GC {} below {} free superblocks (background below {}), wear levelling {}",
        unit >> 10,
        gib(spec.map_bytes()),
        (spec.write_buffer_units as u64 * g.program_unit_bytes()) >> 10,
        spec.victim.name(),
        spec.gc_free_superblocks,
        spec.background_gc_free_superblocks,
        if spec.wear_leveling_threshold == 0 {
            "dynamic".to_string()
        } else {
            format!("static at {} erases apart", spec.wear_leveling_threshold)
        }
    );
    s
}

/// How the device is filled before the jobs run.
fn precondition(s: &mut String, p: &PreconditionPlan, spec: &FtlSpec) {
    let unit = spec.mapping_unit_bytes;
    let _ = writeln!(
        s,
        "precondition: fill {:.1}% sequentially{}",
        p.fill_units as f64 * 100.0 / spec.logical_units as f64,
        if p.random_overwrite {
            format!(
                ", then {} KiB random overwrite until steady state (window {}, at most {} rounds)",
                (p.block_units * unit) >> 10,
                p.window,
                p.max_rounds
            )
        } else {
            String::new()
        }
    );
}
