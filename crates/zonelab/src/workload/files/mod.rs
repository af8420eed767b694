//! File workloads on the host file layer ([`crate::host::fs`]): Filebench's varmail and
//! fileserver ([`filebench`]), fio writing files as ReZNS section 4.2 runs it ([`fio_files`]),
//! and block updates over a data set for zone-GC studies ([`updates`]).
//!
//! One [`FilesSpec`] mounts the file layer and runs every file workload of an experiment on it:
//! first each workload's set-up (files pre-allocated, a data set filled), then the measured
//! phase starts ([`Host::start_measurement`]: device counters, energy and latencies from zero)
//! and the workloads run together. Each workload's threads are host tasks of its own tenant;
//! its report goes to the summary's `layers.files`.

pub mod filebench;
mod fileset;
pub mod fio_files;
pub mod updates;

use std::cell::RefCell;
use std::rc::Rc;

use crate::device::LayerReport;
pub use crate::device::report::files::{FileWorkloadReport, LoopReport};
use crate::host::fs::{Fs, FsError, FsSpec};
use crate::sim::TaskId;
use crate::sim::host::Host;

/// The file layer and the workloads that run on it.
#[derive(Clone, Debug, PartialEq)]
pub struct FilesSpec {
    pub fs: FsSpec,
    pub workloads: Vec<FileWorkload>,
    /// The run's seed (each workload thread draws its own stream from it).
    pub seed: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FileWorkload {
    Filebench(filebench::FilebenchSpec),
    FioFiles(fio_files::FioFilesSpec),
    Updates(updates::UpdatesSpec),
}

impl FileWorkload {
    pub fn name(&self) -> &str {
        match self {
            FileWorkload::Filebench(s) => &s.name,
            FileWorkload::FioFiles(s) => &s.name,
            FileWorkload::Updates(s) => &s.name,
        }
    }
}

pub(crate) type Shared<T> = Rc<RefCell<T>>;

/// Mounts the file layer and starts the workloads' tasks on `host`; returns the mounted layer.
pub fn spawn(spec: &FilesSpec, host: &Host) -> Fs {
    let fs = Fs::mount(host, &spec.fs).expect("the [fs] table was checked against the device");
    let mounted = fs.clone();
    let reports: Shared<Vec<FileWorkloadReport>> = Rc::new(RefCell::new(
        spec.workloads.iter().map(empty_report).collect(),
    ));
    let r = reports.clone();
    host.add_report("files", move || {
        LayerReport::FileWorkloads(r.borrow().clone())
    });
    let progress: Shared<Vec<f64>> = Rc::new(RefCell::new(vec![0.0; spec.workloads.len()]));
    let (spec, h) = (spec.clone(), host.clone());
    host.spawn("files", false, async move {
        // Set-up, all workloads at once, then the measured phase.
        let setups: Vec<_> = spec
            .workloads
            .iter()
            .enumerate()
            .map(|(i, w)| setup(w, &fs, &h, spec.seed, i))
            .collect();
        let states = crate::host::join_all(setups).await;
        let t0 = h.now();
        for r in reports.borrow_mut().iter_mut() {
            r.setup_ns = t0.ns();
        }
        h.start_measurement();
        fs.reset_stats();
        let mut tasks: Vec<(usize, Vec<TaskId>)> = Vec::new();
        for (i, (w, state)) in spec.workloads.iter().zip(states).enumerate() {
            let ctx = Ctx {
                fs: fs.clone(),
                host: h.for_tenant(w.name(), w.name()),
                seed: spec.seed,
                index: i,
                report: reports.clone(),
                progress: progress.clone(),
            };
            let ids = match (w, state) {
                (_, Err(e)) => {
                    reports.borrow_mut()[i].error = Some(format!(
                        "its set-up did not fit the file layer ({e}): the files it starts from \
                         need more room than the device leaves"
                    ));
                    Vec::new()
                }
                (FileWorkload::Filebench(s), Ok(Setup::Filebench(set))) => {
                    filebench::run(s, &ctx, set)
                }
                (FileWorkload::FioFiles(s), Ok(_)) => fio_files::run(s, &ctx),
                (FileWorkload::Updates(s), Ok(Setup::Updates(files))) => {
                    updates::run(s, &ctx, files)
                }
                _ => unreachable!("set-up matches its workload"),
            };
            tasks.push((i, ids));
        }
        end(&fs, &h, &reports, tasks, t0).await;
    });
    mounted
}

/// Waits for each workload's threads and closes its report; then the unmount, if asked for
/// (its writes count in the measured phase, not in a workload's elapsed time).
async fn end(
    fs: &Fs,
    h: &Host,
    reports: &Shared<Vec<FileWorkloadReport>>,
    tasks: Vec<(usize, Vec<TaskId>)>,
    t0: crate::time::Instant,
) {
    for (i, ids) in tasks {
        for id in ids {
            h.join(id).await;
        }
        let mut r = reports.borrow_mut();
        let rep = &mut r[i];
        if rep.elapsed_ns == 0 {
            rep.elapsed_ns = (h.now() - t0).ns();
        }
        rep.finish();
    }
    if fs.spec().unmount
        && let Err(e) = fs.unmount(h).await
    {
        for r in reports.borrow_mut().iter_mut() {
            r.fail(&format!("unmount ({e})"));
        }
    }
}

/// A workload's report before it runs: its name and kind.
fn empty_report(w: &FileWorkload) -> FileWorkloadReport {
    FileWorkloadReport {
        name: w.name().to_string(),
        kind: match w {
            FileWorkload::Filebench(f) => f.kind.name().to_string(),
            FileWorkload::FioFiles(_) => "fio".into(),
            FileWorkload::Updates(_) => "updates".into(),
        },
        ..Default::default()
    }
}

/// What a workload's set-up leaves for its run.
enum Setup {
    None,
    Filebench(Shared<filebench::Fileset>),
    Updates(Vec<String>),
}

/// A workload's set-up; an error when its files do not fit (the configuration's check of the
/// space is an estimate: the file layer's metadata and reserve decide).
async fn setup(
    w: &FileWorkload,
    fs: &Fs,
    h: &Host,
    seed: u64,
    index: usize,
) -> Result<Setup, FsError> {
    let h = h.for_tenant(w.name(), &format!("{}.setup", w.name()));
    Ok(match w {
        FileWorkload::Filebench(s) => {
            Setup::Filebench(filebench::setup(s, fs, &h, seed, index).await?)
        }
        FileWorkload::FioFiles(s) => {
            fio_files::setup(s, fs, &h).await?;
            Setup::None
        }
        FileWorkload::Updates(s) => Setup::Updates(updates::setup(s, fs, &h).await?),
    })
}

/// What a workload's threads share.
#[derive(Clone)]
pub(crate) struct Ctx {
    pub fs: Fs,
    pub host: Host,
    pub seed: u64,
    pub index: usize,
    pub report: Shared<Vec<FileWorkloadReport>>,
    pub progress: Shared<Vec<f64>>,
}

impl Ctx {
    /// A thread's own host (tenant of the workload, trace source of the thread).
    pub fn thread_host(&self, name: &str, t: u32) -> Host {
        self.host.for_tenant(name, &format!("{name}.{t}"))
    }

    pub fn report<R>(&self, f: impl FnOnce(&mut FileWorkloadReport) -> R) -> R {
        f(&mut self.report.borrow_mut()[self.index])
    }

    pub fn set_progress(&self, fraction: f64) {
        let mut p = self.progress.borrow_mut();
        p[self.index] = fraction;
        let mean = p.iter().sum::<f64>() / p.len() as f64;
        self.host.set_progress(mean);
    }
}

/// Makes every directory on the way to `dir` (absolute).
pub(crate) async fn mkdir_p(fs: &Fs, h: &Host, dir: &str) -> Result<(), FsError> {
    let mut path = String::new();
    for part in dir.split('/').filter(|p| !p.is_empty()) {
        path.push('/');
        path.push_str(part);
        if fs.stat_now(&path).is_err() {
            fs.mkdir(h, &path).await?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
