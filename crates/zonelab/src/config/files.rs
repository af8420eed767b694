//! The file workloads that run on the host file layer (`[fs]`, see [`super::fs`]):
//! `[[filebench]]`, `[[fio_files]]`, `[[updates]]`. Unset fields take the defaults of each
//! workload's reference; every check names the field.

use serde::{Deserialize, Serialize};

use super::ConfigError;
use super::workload::{MAX_IO_BYTES, MAX_PAUSE, MAX_RUNTIME};
use crate::device::DeviceInfo;
use crate::host::fs::BLOCK_BYTES;
use crate::time::Duration;
use crate::units::{Bytes, Extent};
use crate::workload::files::filebench::{FilebenchKind, FilebenchSpec};
use crate::workload::files::fio_files::FioFilesSpec;
use crate::workload::files::updates::{UpdatePattern, UpdatesSpec};
use crate::workload::files::{FileWorkload, FilesSpec};

use super::fs::{FsConfig, capacity_blocks};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FilebenchKindConfig {
    Varmail,
    Fileserver,
}

/// `[[filebench]]`: a Filebench personality; unset fields take its workload file's defaults.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FilebenchConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub personality: FilebenchKindConfig,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nfiles: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meandirwidth: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meanfilesize: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nthreads: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iosize: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meanappendsize: Option<Bytes>,
    /// Percent of the entries that exist at the start (default 80).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prealloc: Option<u32>,
    /// How long it runs (default 60 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<Duration>,
    /// Stop after this many flowops of all threads together, if sooner than `run` (not a
    /// Filebench option: it sets a run to the work a captured Filebench run did).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ops: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
}

/// `[[fio_files]]`: fio jobs writing files (ReZNS section 4.2).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FioFilesConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Jobs (fio's numjobs), one file each.
    pub threads: u32,
    /// Bytes per file.
    pub size: Bytes,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bs: Option<Bytes>,
    /// fsync after this many writes (default 0: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fsync: Option<u32>,
    /// Consecutive runs (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loops: Option<u32>,
    /// "randwrite" (default) or "write".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rw: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
    /// fio's `invalidate` (default true, as fio): each job drops its file's clean cached pages
    /// when it opens the file, so every run starts with the file out of the page cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalidate: Option<bool>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PatternConfig {
    Uniform,
    Hotcold,
}

/// `[[updates]]`: a data set, then block updates (zone-GC studies).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct UpdatesConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The data set: bytes, or a share of the file layer's capacity ("60%").
    pub dataset: Extent,
    /// Files it is spread over (default 16).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<u32>,
    /// Blocks updated after the fill.
    pub updates: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bs: Option<Bytes>,
    /// "uniform" (default) or "hotcold".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<PatternConfig>,
    /// Hot/cold: share of updates to the hot data (default 0.7) and the hot share of the data
    /// (default 0.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hot_updates: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hot_data: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<u32>,
    /// fsync the file after this many updates per thread (default 0: writeback only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync_every: Option<u64>,
    /// Write size of the fill (default 1 MiB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fill_io: Option<Bytes>,
    /// CPU per update, on the modelled cores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
}

fn check_dir(field: &str, dir: &str) -> Result<(), ConfigError> {
    if !crate::host::fs::is_absolute_path(dir) {
        return Err(ConfigError::field(
            field,
            format!("`{dir}` is not an absolute path (such as \"/data\")"),
        ));
    }
    Ok(())
}

/// Files of one workload (chosen: 16 Mi; the file layer keeps an inode and an extent list per
/// file, so this bounds its memory, not the device).
pub const MAX_FILES: u64 = 1 << 24;
/// Threads of one file workload (Filebench's and fio's own limits are in the thousands).
pub const MAX_THREADS: u64 = 4_096;
/// One I/O of a file workload (chosen: 1 GiB).
pub const MAX_FILE_IO: u64 = 1 << 30;
/// Consecutive runs of `[[fio_files]]` (as `[[job]]`'s loops).
pub const MAX_FILE_LOOPS: u64 = 1_000_000;

/// `v` in `1..=max`, or an error naming the field.
fn count(field: &str, v: u64, max: u64) -> Result<(), ConfigError> {
    super::ranges::within(field, v, 1, max)
}

/// The file layer and file workloads of an experiment, if it has any (or if `store_on_fs`, the
/// field of a key-value store that keeps its files there, needs it).
pub fn validate(
    cfg: &super::ExperimentConfig,
    store_on_fs: Option<&str>,
    info: &DeviceInfo,
) -> Result<Option<FilesSpec>, ConfigError> {
    let (fs, filebench, fio, updates) = (
        cfg.fs.as_ref(),
        &cfg.filebench,
        &cfg.fio_files,
        &cfg.updates,
    );
    let (data, seed) = (cfg.data.retention, cfg.seed);
    if filebench.is_empty() && fio.is_empty() && updates.is_empty() && store_on_fs.is_none() {
        if fs.is_some() {
            return Err(ConfigError::field(
                "fs",
                "no workload uses the file layer: add [[filebench]], [[fio_files]], [[updates]], or a [[dbbench]]/[[ycsb]] with files = \"fs\"",
            ));
        }
        return Ok(None);
    }
    if info.zoned.is_none() {
        return Err(ConfigError::field(
            store_on_fs.unwrap_or("fs"),
            "the file layer places files in zones: it needs a ZNS device, not a conventional one",
        ));
    }
    let default = FsConfig::default();
    let fsc = fs.unwrap_or(&default);
    let spec = fsc.validate(info, data)?;
    let z = info.zoned.as_ref().expect("zoned");
    let cap_blocks = z.zone_capacity_lbas * info.lba_size_bytes / BLOCK_BYTES;
    let capacity = capacity_blocks(&spec, cap_blocks) * BLOCK_BYTES;
    let zenfs = matches!(spec.personality, crate::host::fs::Personality::Zenfs(_));
    let mut workloads = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for (i, c) in filebench.iter().enumerate() {
        let s = filebench_spec(i, c, capacity)?;
        names.push(s.name.clone());
        workloads.push(FileWorkload::Filebench(s));
    }
    for (i, c) in fio.iter().enumerate() {
        let s = fio_files_spec(i, c, capacity, zenfs)?;
        names.push(s.name.clone());
        workloads.push(FileWorkload::FioFiles(s));
    }
    for (i, c) in updates.iter().enumerate() {
        let s = updates_spec(i, c, capacity, zenfs)?;
        names.push(s.name.clone());
        workloads.push(FileWorkload::Updates(s));
    }
    check_names_and_unmount(&names, spec.unmount, workloads.is_empty())?;
    Ok(Some(FilesSpec {
        fs: spec,
        workloads,
        seed,
    }))
}

/// `[[filebench]]` entry `i`: its workload file's defaults where unset, then its checks.
fn filebench_spec(
    i: usize,
    c: &FilebenchConfig,
    capacity: u64,
) -> Result<FilebenchSpec, ConfigError> {
    let kind = match c.personality {
        FilebenchKindConfig::Varmail => FilebenchKind::Varmail,
        FilebenchKindConfig::Fileserver => FilebenchKind::Fileserver,
    };
    let mut s = FilebenchSpec::defaults(kind);
    if let Some(n) = &c.name {
        s.name = n.clone();
    }
    s.nfiles = c.nfiles.unwrap_or(s.nfiles);
    s.dir_width = c.meandirwidth.unwrap_or(s.dir_width);
    s.file_bytes = c.meanfilesize.map_or(s.file_bytes, |b| b.0);
    s.threads = c.nthreads.unwrap_or(s.threads);
    s.io_bytes = c.iosize.map_or(s.io_bytes, |b| b.0);
    s.append_bytes = c.meanappendsize.map_or(s.append_bytes, |b| b.0);
    s.prealloc_pct = c.prealloc.unwrap_or(s.prealloc_pct);
    s.run = c.run.unwrap_or(s.run);
    s.ops = c.ops;
    s.dir = c.dir.clone().unwrap_or_else(|| format!("/{}", s.name));
    check_filebench(i, &s, capacity)?;
    Ok(s)
}

/// The bounds of a `[[filebench]]` spec, and that its files fit the file layer.
fn check_filebench(i: usize, s: &FilebenchSpec, capacity: u64) -> Result<(), ConfigError> {
    let f = |n: &str| format!("filebench[{i}].{n}");
    if let Some(n) = s.ops {
        count(&f("ops"), n, i64::MAX as u64)?;
    }
    count(&f("nfiles"), s.nfiles as u64, MAX_FILES)?;
    count(&f("meandirwidth"), s.dir_width as u64, MAX_FILES)?;
    count(&f("nthreads"), s.threads as u64, MAX_THREADS)?;
    count(&f("iosize"), s.io_bytes, MAX_FILE_IO)?;
    count(&f("meanappendsize"), s.append_bytes, MAX_FILE_IO)?;
    if s.run.is_zero() || s.run > MAX_RUNTIME {
        return Err(ConfigError::field(
            f("run"),
            format!("{} must be above 0 and at most {MAX_RUNTIME}", s.run),
        ));
    }
    if s.prealloc_pct > 100 {
        return Err(ConfigError::field(
            f("prealloc"),
            format!("{} is a percentage: at most 100", s.prealloc_pct),
        ));
    }
    check_dir(&f("dir"), &s.dir)?;
    // In u128, as for fio: a mean file size near 2^64 must be refused, not overflow.
    let block = u128::from(BLOCK_BYTES);
    let need = u128::from(s.nfiles) * u128::from(s.file_bytes).div_ceil(block) * block;
    if need > u128::from(capacity) {
        return Err(ConfigError::field(
            f("nfiles"),
            format!(
                "{} files of {} bytes need {need} bytes; the file layer holds {capacity}",
                s.nfiles, s.file_bytes
            ),
        ));
    }
    Ok(())
}

/// `[[fio_files]]` entry `i`: its checks in order, then the spec with fio's defaults.
fn fio_files_spec(
    i: usize,
    c: &FioFilesConfig,
    capacity: u64,
    zenfs: bool,
) -> Result<FioFilesSpec, ConfigError> {
    let f = |n: &str| format!("fio_files[{i}].{n}");
    let bs = c.bs.map_or(4096, |b| b.0);
    if bs == 0 || !bs.is_multiple_of(512) {
        return Err(ConfigError::field(
            f("bs"),
            format!("{bs} must be a positive multiple of 512"),
        ));
    }
    count(&f("threads"), c.threads as u64, MAX_THREADS)?;
    if let Some(l) = c.loops {
        count(&f("loops"), l as u64, MAX_FILE_LOOPS)?;
    }
    if c.size.0 < bs || !c.size.0.is_multiple_of(bs) {
        return Err(ConfigError::field(
            f("size"),
            format!("{} must be a positive multiple of bs {bs}", c.size.0),
        ));
    }
    let random = fio_random(&f, c, zenfs)?;
    let name = c.name.clone().unwrap_or_else(|| format!("fio{i}"));
    // In u128: threads times a size near 2^64 must be refused, not overflow.
    let block = u128::from(BLOCK_BYTES);
    let need = u128::from(c.threads) * u128::from(c.size.0).div_ceil(block) * block;
    if need > u128::from(capacity) {
        return Err(ConfigError::field(
            f("size"),
            format!(
                "{} files of {} bytes need {need} bytes; the file layer holds {capacity}",
                c.threads, c.size.0
            ),
        ));
    }
    let dir = c.dir.clone().unwrap_or_else(|| format!("/{name}"));
    check_dir(&f("dir"), &dir)?;
    Ok(FioFilesSpec {
        name,
        threads: c.threads,
        file_bytes: c.size.0,
        bs,
        fsync: c.fsync.unwrap_or(0),
        loops: c.loops.unwrap_or(1),
        random,
        dir,
        invalidate: c.invalidate.unwrap_or(true),
    })
}

/// Whether fio on files writes at random (its `rw`), which ZenFS's append-only files refuse.
fn fio_random(
    f: &dyn Fn(&str) -> String,
    c: &FioFilesConfig,
    zenfs: bool,
) -> Result<bool, ConfigError> {
    let random = match c.rw.as_deref() {
        None | Some("randwrite") => true,
        Some("write") => false,
        Some(o) => {
            return Err(ConfigError::field(
                f("rw"),
                format!("`{o}`: fio on files writes (\"randwrite\" or \"write\")"),
            ));
        }
    };
    if random && zenfs {
        return Err(append_only(&f("rw")));
    }
    Ok(random)
}

/// `[[updates]]` entry `i`: its checks in order, then the spec with its defaults.
fn updates_spec(
    i: usize,
    c: &UpdatesConfig,
    capacity: u64,
    zenfs: bool,
) -> Result<UpdatesSpec, ConfigError> {
    let f = |n: &str| format!("updates[{i}].{n}");
    if zenfs {
        return Err(append_only(&format!("updates[{i}]")));
    }
    let bs = c.bs.map_or(BLOCK_BYTES, |b| b.0);
    if bs == 0 || !bs.is_multiple_of(BLOCK_BYTES) {
        return Err(ConfigError::field(
            f("bs"),
            format!("{bs} must be a positive multiple of 4096"),
        ));
    }
    let files = c.files.unwrap_or(16);
    count(&f("files"), files as u64, MAX_FILES)?;
    let file_bytes = updates_file_bytes(&f, c, files, bs, capacity)?;
    // The bytes the updates write, like a job's io_size, at most 1 PiB.
    count(&f("updates"), c.updates, MAX_IO_BYTES / bs)?;
    let threads = c.threads.unwrap_or(1);
    count(&f("threads"), threads as u64, MAX_THREADS)?;
    super::ranges::at_most(&f("cpu"), c.cpu, MAX_PAUSE)?;
    let pattern = update_pattern(&f, c)?;
    let fill = c.fill_io.map_or(1 << 20, |b| b.0);
    count(&f("fill_io"), fill, MAX_FILE_IO)?;
    let name = c.name.clone().unwrap_or_else(|| format!("updates{i}"));
    let dir = c.dir.clone().unwrap_or_else(|| format!("/{name}"));
    check_dir(&f("dir"), &dir)?;
    Ok(UpdatesSpec {
        name,
        files,
        file_bytes,
        updates: c.updates,
        bs,
        pattern,
        threads,
        sync_every: c.sync_every.unwrap_or(0),
        fill_bytes: fill,
        cpu_per_update: c.cpu.unwrap_or(Duration::ZERO),
        dir,
    })
}

/// The bytes of each file of an `[[updates]]` data set: at least two blocks, all fitting the
/// file layer.
fn updates_file_bytes(
    f: &dyn Fn(&str) -> String,
    c: &UpdatesConfig,
    files: u32,
    bs: u64,
    capacity: u64,
) -> Result<u64, ConfigError> {
    let dataset = c.dataset.to_bytes(0, capacity);
    let file_bytes = dataset / files as u64 / bs * bs;
    if file_bytes < 2 * bs {
        return Err(ConfigError::field(
            f("dataset"),
            format!("{dataset} bytes over {files} files leave under two blocks per file"),
        ));
    }
    if file_bytes * files as u64 > capacity {
        return Err(ConfigError::field(
            f("dataset"),
            format!(
                "{} bytes do not fit the file layer's {capacity}",
                file_bytes * files as u64
            ),
        ));
    }
    Ok(file_bytes)
}

/// The update pattern of an `[[updates]]`, its hot/cold shares each strictly between 0 and 1.
fn update_pattern(
    f: &dyn Fn(&str) -> String,
    c: &UpdatesConfig,
) -> Result<UpdatePattern, ConfigError> {
    Ok(match c.pattern.unwrap_or(PatternConfig::Uniform) {
        PatternConfig::Uniform => UpdatePattern::Uniform,
        PatternConfig::Hotcold => {
            let hu = c.hot_updates.unwrap_or(0.7);
            let hd = c.hot_data.unwrap_or(0.3);
            for (n, v) in [("hot_updates", hu), ("hot_data", hd)] {
                if !(v > 0.0 && v < 1.0) {
                    return Err(ConfigError::field(
                        f(n),
                        format!(
                            "{} must be between 0 and 1 (exclusive)",
                            super::ranges::number(v)
                        ),
                    ));
                }
            }
            UpdatePattern::HotCold {
                hot_updates: hu,
                hot_data: hd,
            }
        }
    })
}

/// File workload names must differ, and an unmount needs file workloads to end.
fn check_names_and_unmount(
    names: &[String],
    unmount: bool,
    no_workloads: bool,
) -> Result<(), ConfigError> {
    let mut sorted = names.to_vec();
    sorted.sort();
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(ConfigError::field(
            "filebench",
            format!("two file workloads are named `{}`; names must differ", w[0]),
        ));
    }
    if unmount && no_workloads {
        return Err(ConfigError::field(
            "fs.unmount",
            "unmounts at the end of the file workloads ([[filebench]], [[fio_files]], \
             [[updates]]), and there are none: the key-value stores on the layer do not unmount it",
        ));
    }
    Ok(())
}

/// ZenFS files are written once, at their end (RocksDB's WAL and SST files): a workload that
/// overwrites blocks in place cannot run on it. Every such write failed at run time, and the
/// run ended having done nothing (issue 36, found by the seed swarm).
fn append_only(field: &str) -> ConfigError {
    ConfigError::field(
        field,
        "overwrites blocks of its files in place, but ZenFS files are append-only; use fs.personality = \"f2fs\" (or rw = \"write\" for fio on files)",
    )
}
