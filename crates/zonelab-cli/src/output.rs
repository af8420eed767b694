//! `zonelab run`: drive a simulation with a progress bar, write the results directory, and print
//! the summary table.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use zonelab::Experiment;
use zonelab::config::ExperimentConfig;
use zonelab::firmware::FirmwareReport;
use zonelab::metrics::{Layer, Percentile};
use zonelab::report::{OpSummary, Summary, render};
use zonelab::sim::{DeviceSpec, Inputs, RunOutput};
use zonelab::trace::{TraceRecord, TraceSink};
use zonelab::workload::HostWorkload;

pub fn run(
    path: &Path,
    output: Option<PathBuf>,
    overrides: &[String],
    seed: Option<u64>,
    quiet: bool,
    state: Option<&Path>,
) -> Result<ExitCode> {
    let mut cfg = crate::load_config(path, overrides)?;
    if let Some(seed) = seed {
        cfg.seed = seed;
    }
    let validate = |c: &ExperimentConfig| c.validate(&crate::default_name(path));
    let in_file = || format!("in {}", path.display());
    let (cfg, exp, device, identity) = match state {
        None => {
            let exp = validate(&cfg).with_context(in_file)?;
            let device = zonelab::sim::build_device(&exp);
            (cfg, exp, device, None)
        }
        Some(file) => {
            let l =
                crate::state_file::open(file, Some(cfg), &[], &validate).with_context(in_file)?;
            if !quiet && !l.created {
                println!("device from {} (its clock at {})", file.display(), l.start);
            }
            (l.cfg, l.exp, l.device, Some((file, l.identity)))
        }
    };
    let print = cfg.fingerprint();
    if !quiet {
        println!(
            "zonelab {} | experiment {} | seed {} | config {print:016x}",
            env!("CARGO_PKG_VERSION"),
            exp.name,
            exp.seed
        );
        print!("{}", describe(&exp, &cfg));
    }
    let dir = output
        .unwrap_or_else(|| PathBuf::from("results").join(zonelab::report::file_safe(&exp.name)));
    let inputs = inputs(path, &exp, &dir)?;
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(1000)
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {wide_bar} {percent}% {msg}")
            .expect("valid template"),
    );
    let wall = std::time::Instant::now();
    let out = zonelab::sim::run_on(&exp, device, inputs, print, &mut |p| {
        bar.set_position((p.fraction * 1000.0) as u64);
        bar.set_message(format!("simulated {:.3} s", p.simulated.secs_f64()));
    })
    .with_context(|| format!("in {}", path.display()))?;
    bar.finish_and_clear();
    let wall_s = wall.elapsed().as_secs_f64();

    write_results(&dir, &cfg, &out)?;
    if let Some((file, identity)) = &identity {
        let end = out.device.idle_at();
        crate::state_file::save(file, identity, end, &*out.device)?;
    }
    if !quiet {
        print!("{}", table(&out.summary));
        let ios: u64 = out.summary.ops.values().map(|o| o.count).sum();
        let kv: u64 = out
            .summary
            .table
            .iter()
            .filter(|r| r.layer == Layer::Kv)
            .map(|r| r.summary.count)
            .sum();
        let kv_rate = if kv > 0 {
            format!(
                ", {:.0} key-value operations per wall second",
                kv as f64 / wall_s.max(1e-9)
            )
        } else {
            String::new()
        };
        println!(
            "wall {wall_s:.2} s for {:.3} simulated s ({:.0} commands per wall second{kv_rate}); results in {}",
            out.summary.simulated_time_ns as f64 / 1e9,
            ios as f64 / wall_s.max(1e-9),
            dir.display()
        );
    }
    if out.summary.errors.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    for e in &out.summary.errors {
        let line = e
            .trace_line
            .map(|l| format!(" (trace line {l})"))
            .unwrap_or_default();
        eprintln!(
            "error: {}: {} at LBA {:#x} failed{line}: {}",
            e.source, e.command, e.lba, e.status
        );
    }
    Ok(ExitCode::from(1))
}

/// The traces the experiment's `[[replay]]`s name (relative to the experiment file), and the
/// trace file the run writes into `dir` when `[trace]` is on.
pub fn inputs(path: &Path, exp: &Experiment, dir: &Path) -> Result<Inputs> {
    let base = path.parent().unwrap_or(Path::new("."));
    let mut traces: Vec<Box<dyn BufRead>> = Vec::new();
    for r in &exp.replays {
        let p = base.join(&r.trace);
        let f = File::open(&p)
            .with_context(|| format!("replay `{}`: cannot open {}", r.name, p.display()))?;
        traces.push(Box::new(BufReader::new(f)));
    }
    let trace_sink: Option<Box<dyn TraceSink>> = if exp.trace {
        prepare_dir(dir)?;
        Some(Box::new(CsvFile::create(&dir.join("trace.csv"), exp)?))
    } else {
        None
    };
    Ok(Inputs { traces, trace_sink })
}

/// The per-command trace, streamed to a CSV file.
pub struct CsvFile {
    out: BufWriter<File>,
    channels: u32,
    line: String,
    error: Option<std::io::Error>,
}

impl CsvFile {
    pub fn create(path: &Path, exp: &Experiment) -> Result<Self> {
        let f = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
        let mut out = BufWriter::with_capacity(1 << 20, f);
        writeln!(out, "{}", zonelab::trace::CSV_HEADER)?;
        Ok(CsvFile {
            out,
            channels: exp.device.nand().geometry.channels,
            line: String::new(),
            error: None,
        })
    }
}

impl TraceSink for CsvFile {
    fn record(&mut self, r: &TraceRecord) {
        if self.error.is_some() {
            return;
        }
        self.line.clear();
        zonelab::trace::csv_line(r, self.channels, &mut self.line);
        self.line.push('\n');
        if let Err(e) = self.out.write_all(self.line.as_bytes()) {
            self.error = Some(e);
        }
    }

    fn finish(&mut self) -> std::io::Result<()> {
        match self.error.take() {
            Some(e) => Err(e),
            None => self.out.flush(),
        }
    }
}

/// Makes `dir` hold only what this run writes: files an earlier run left there go.
pub fn prepare_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let ours = name == "summary.json"
            || name == "config.resolved.toml"
            || name == "trace.csv"
            || name == "zones.csv"
            || name == "erase_wait_cdf.csv"
            || name == "firmware_over_time.csv"
            || name == "latency_percentiles.csv"
            || (name.starts_with("timeseries") && name.ends_with(".csv"))
            || (name.starts_with("latency_cdf_") && name.ends_with(".csv"));
        if ours && entry.file_type()?.is_file() {
            std::fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

/// Writes a run's results directory.
pub fn write_results(dir: &Path, cfg: &ExperimentConfig, out: &RunOutput) -> Result<()> {
    write_files(
        dir,
        &render(&out.summary, &out.metrics, &*out.device, &cfg.to_toml()),
    )
}

/// Writes rendered results files into `dir` (which keeps a trace written there by this run).
pub fn write_files(dir: &Path, files: &[(String, String)]) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let keep_trace = dir.join("trace.csv");
    let trace = std::fs::read(&keep_trace).ok();
    prepare_dir(dir)?;
    if let Some(t) = trace {
        std::fs::write(&keep_trace, t)?;
    }
    for (name, text) in files {
        let p = dir.join(name);
        std::fs::write(&p, text).with_context(|| format!("cannot write {}", p.display()))?;
    }
    Ok(())
}

/// What the experiment resolved to, in a few lines.
pub fn describe(exp: &Experiment, cfg: &ExperimentConfig) -> String {
    let spec = match &exp.device {
        DeviceSpec::Zns(spec) => spec,
        DeviceSpec::Conventional(spec) => return describe_conventional(exp, spec),
    };
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
    for r in &exp.replays {
        let _ = writeln!(
            s,
            "replay {}: {} ({:?}), iodepth {}",
            r.name, r.trace, r.mode, r.iodepth
        );
    }
    for w in &exp.host {
        match w {
            HostWorkload::Threads(t) => {
                let _ = writeln!(
                    s,
                    "threads {}: {} threads x {} appends of {} KiB, fsync {}, on {} host cores",
                    t.name,
                    t.threads,
                    t.ops_per_thread,
                    t.block_lbas * z.lba_size_bytes / 1024,
                    t.fsync,
                    exp.cores
                );
            }
            HostWorkload::Files(f) => {
                use zonelab::workload::files::FileWorkload;
                let fs = &f.fs;
                let _ = writeln!(
                    s,
                    "file layer: {} over zones {}..{}, GC {}, page cache {} MiB, on {} host cores",
                    fs.personality.name(),
                    fs.first_zone,
                    fs.first_zone + fs.zone_count,
                    fs.gc.policy.name(),
                    fs.cache.page_cache_bytes >> 20,
                    exp.cores
                );
                for w in &f.workloads {
                    let line = match w {
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
                            "updates {}: {} files x {} MiB, {} updates of {} KiB ({:?}), {} threads",
                            u.name,
                            u.files,
                            u.file_bytes >> 20,
                            u.updates,
                            u.bs >> 10,
                            u.pattern,
                            u.threads
                        ),
                    };
                    let _ = writeln!(s, "{line}");
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
    s
}

/// One line for a host layer's report: a key-value workload's phases (operations, simulated
/// time, throughput) and its error if it stopped.
fn layer_line(name: &str, report: &serde_json::Value) -> String {
    let mut line = format!("{name}:");
    let mib = |v: &serde_json::Value| v.as_u64().unwrap_or(0) as f64 / (1u64 << 20) as f64;
    if name == "fs" || name.starts_with("fs.ns") {
        let _ = write!(
            line,
            " {}-like, {:.1} of {:.1} MiB used, {} files; wrote {:.1} MiB of file data, {:.1} MiB of GC copies, {:.1} MiB of metadata (write amplification {}); {} zone resets",
            report["personality"].as_str().unwrap_or("?"),
            mib(&report["used_bytes"]),
            mib(&report["capacity_bytes"]),
            report["files"].as_u64().unwrap_or(0),
            mib(&report["data_bytes_written"]),
            mib(&report["gc_bytes_written"]),
            mib(&report["meta_bytes_written"]),
            report["write_amplification"]
                .as_f64()
                .map_or("-".to_string(), |w| format!("{w:.3}")),
            report["zone_resets"].as_u64().unwrap_or(0),
        );
        return line;
    }
    for w in report.as_array().into_iter().flatten() {
        let _ = write!(
            line,
            " {} ({}) {} ops ({:.0} ops/s, {:.1} MiB/s);",
            w["name"].as_str().unwrap_or("?"),
            w["kind"].as_str().unwrap_or("?"),
            w["ops"].as_u64().unwrap_or(0),
            w["ops_per_s"].as_f64().unwrap_or(0.0),
            w["mib_per_s"].as_f64().unwrap_or(0.0),
        );
    }
    for p in report["phases"].as_array().into_iter().flatten() {
        let secs = (p["end_ns"].as_u64().unwrap_or(0))
            .saturating_sub(p["start_ns"].as_u64().unwrap_or(0)) as f64
            / 1e9;
        let _ = write!(
            line,
            " {} {} ops in {:.3} s ({:.0} ops/s);",
            p["name"].as_str().unwrap_or("?"),
            p["ops"].as_u64().unwrap_or(0),
            secs,
            p["ops_per_s"].as_f64().unwrap_or(0.0)
        );
    }
    if let Some(e) = report["error"].as_str() {
        let _ = write!(line, " stopped: {e}");
    }
    line.trim_end_matches(';').to_string()
}

/// What a conventional device's experiment resolved to.
fn describe_conventional(exp: &Experiment, spec: &zonelab::ftl::FtlSpec) -> String {
    let (g, t) = (&spec.nand.geometry, &spec.nand.timing);
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
    for r in &exp.replays {
        let _ = writeln!(
            s,
            "replay {}: {} ({:?}), iodepth {}",
            r.name, r.trace, r.mode, r.iodepth
        );
    }
    s
}

fn us(ns: u64) -> String {
    format!("{:.1}", ns as f64 / 1e3)
}

/// The summary as a table: one row per operation kind, then device counters.
pub fn table(s: &Summary) -> String {
    // Device commands by kind, then host layers' operations by (layer, kind, tenant).
    let mut rows: Vec<(String, &OpSummary)> =
        s.ops.iter().map(|(name, o)| (name.clone(), o)).collect();
    rows.extend(
        s.table
            .iter()
            .filter(|r| r.layer != Layer::Device)
            .map(|r| {
                (
                    format!("{} {} [{}]", r.layer.name(), r.op.name(), r.tenant),
                    &r.summary,
                )
            }),
    );
    let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0).max(7);
    let mut t = format!(
        "\n{:<w$} {:>10} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10}\n",
        "op",
        "count",
        "IOPS",
        "MiB/s",
        "mean us",
        "p50 us",
        "p99 us",
        "p99.9 us",
        "p99.99",
        "p100 us"
    );
    for (name, o) in &rows {
        let p = |q| o.latency_ns.get(q);
        let _ = writeln!(
            t,
            "{:<w$} {:>10} {:>10.0} {:>9.1} {:>9.1} {:>9} {:>9} {:>9} {:>9} {:>10}",
            name,
            o.count,
            o.iops,
            o.mib_per_s,
            o.latency_ns.mean / 1e3,
            us(p(Percentile::P50)),
            us(p(Percentile::P99)),
            us(p(Percentile::P999)),
            us(p(Percentile::P9999)),
            us(p(Percentile::P100))
        );
    }
    let d = &s.device_counters;
    let _ = writeln!(
        t,
        "\nhost: {:.1} MiB read, {:.1} MiB written | NAND: {} page reads, {} page programs, {} block erases | WAF {}",
        d.host_read_bytes as f64 / (1 << 20) as f64,
        d.host_write_bytes as f64 / (1 << 20) as f64,
        d.nand_page_reads,
        d.nand_page_programs,
        d.block_erases,
        d.waf.map_or("-".to_string(), |w| format!("{w:.3}"))
    );
    let _ = writeln!(
        t,
        "zone resets: {} requested, {} executed | finishes {} | implicit closes {}",
        d.zone_resets_requested, d.zone_resets_executed, d.zone_finishes, d.implicit_closes
    );
    let e = &s.energy;
    let _ = writeln!(
        t,
        "energy: {:.3} mJ (read {:.3}, program {:.3}, erase {:.3}) | wear: erases per block min {} mean {:.3} max {}",
        e.total_mj,
        e.read_mj,
        e.program_mj,
        e.erase_mj,
        s.wear.min_erases,
        s.wear.mean_erases,
        s.wear.max_erases
    );
    let w = &s.erase_wait_ns;
    if w.get(Percentile::P100) > 0 {
        let _ = writeln!(
            t,
            "erase wait per I/O: mean {:.1} us, p99 {} us, p100 {} us",
            w.mean / 1e3,
            us(w.get(Percentile::P99)),
            us(w.get(Percentile::P100))
        );
    }
    match &s.firmware {
        Some(FirmwareReport::ZoneMapping(f)) => {
            let _ = writeln!(
                t,
                "firmware: S0 {:.3} s, S1 {:.3} s, S2 {:.3} s | partial erases {} | full zone erases {} | free {} invalid {}",
                f.time_in_s0_ns as f64 / 1e9,
                f.time_in_s1_ns as f64 / 1e9,
                f.time_in_s2_ns as f64 / 1e9,
                f.partial_zone_erases,
                f.full_zone_erases,
                f.free_zones,
                f.invalid_zones
            );
        }
        Some(FirmwareReport::Renewable(r)) => {
            let _ = writeln!(
                t,
                "renewable: {} host resets ({} Rzone, {} Nzone) | {} zones erased | {} zombie reclaims | {} ReGC releases | {} units recycled | spare-list {} (max {})",
                r.host_resets,
                r.rzone_resets,
                r.nzone_resets,
                r.zones_erased,
                r.zombie_reclaims,
                r.regc_releases,
                r.units_recycled,
                r.spare_zones,
                r.spare_zones_max
            );
        }
        Some(FirmwareReport::Elastic(r)) => {
            let spares: Vec<String> = r
                .namespaces
                .iter()
                .map(|n| format!("ns{} {}/{}", n.namespace, n.spares_used_max, n.own_spares))
                .collect();
            let _ = writeln!(
                t,
                "ezns: {} physical zones allocated | {} overdrive cycles | {} spares lent, {} returned | {} reclaims | spares used max: {} | read cwnd cuts {} | queued reads {}, writes {} | admission delay {:.1} us/block",
                r.allocations,
                r.overdrive_cycles,
                r.spares_lent,
                r.spares_returned,
                r.reclaims,
                spares.join(", "),
                r.read_cc_decreases,
                r.reads_queued,
                r.writes_queued,
                r.admission_delay_ns as f64 / 1e3
            );
        }
        Some(FirmwareReport::Ftl(f)) => {
            let _ = writeln!(
                t,
                "FTL ({}): WAF {} | GC copied {:.1} MiB, erased {} superblocks ({} foreground, {} background, {} wear levelling) | free superblocks {}",
                f.victim_policy,
                f.waf.map_or("-".to_string(), |w| format!("{w:.3}")),
                f.gc_copied_bytes as f64 / (1 << 20) as f64,
                f.gc_erased_superblocks,
                f.foreground_collections,
                f.background_collections,
                f.wear_leveling_moves,
                f.free_superblocks
            );
            if let Some(p) = &f.precondition {
                let _ = writeln!(
                    t,
                    "precondition: filled {:.1} GiB, overwrote {:.1} GiB in {} rounds, last round WAF {}, steady state {}",
                    p.filled_bytes as f64 / (1u64 << 30) as f64,
                    p.overwritten_bytes as f64 / (1u64 << 30) as f64,
                    p.rounds,
                    p.round_waf
                        .last()
                        .map_or("-".to_string(), |w| format!("{w:.3}")),
                    if p.steady_state {
                        "reached"
                    } else {
                        "not reached"
                    }
                );
            }
        }
        None => {}
    }
    for (name, report) in &s.layers {
        let _ = writeln!(t, "{}", layer_line(name, report));
    }
    for j in &s.jobs {
        let _ = writeln!(
            t,
            "job {}: {} reads, {} writes, {} resets; stopped: {}",
            j.name,
            j.reads,
            j.writes,
            j.resets,
            j.stopped
                .iter()
                .map(|r| r.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    t
}
