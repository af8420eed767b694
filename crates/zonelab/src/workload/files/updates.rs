//! Block updates over a data set, for zone-GC studies (LSM-ZGC, Choi et al., LSM-ZGC, HotStorage 2020): the
//! set-up fills `files` files with `dataset_bytes` in large sequential writes; then `threads`
//! threads update `updates` blocks of `bs` bytes in place, each block chosen uniformly or with a
//! hot/cold skew (`hot_updates` of the updates go to the hot `hot_data` share of the data: the
//! first `hot_data` of every file, so hot data has the spatial locality LSM_ZGC's segments
//! exploit). Updates are buffered; with `sync_every` a thread fsyncs the file it just wrote after
//! that many updates, else the page cache's writeback sends them.

use std::rc::Rc;

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::{Ctx, mkdir_p};
use crate::host::fs::{CreateOptions, Fd, Fs, FsError};
use crate::sim::TaskId;
use crate::sim::host::Host;
use crate::time::Duration;
use crate::workload::mix_seed;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum UpdatePattern {
    Uniform,
    HotCold { hot_updates: f64, hot_data: f64 },
}

#[derive(Clone, Debug, PartialEq)]
pub struct UpdatesSpec {
    pub name: String,
    pub files: u32,
    /// Bytes per file (the data set is `files` x this).
    pub file_bytes: u64,
    pub updates: u64,
    pub bs: u64,
    pub pattern: UpdatePattern,
    pub threads: u32,
    pub sync_every: u64,
    /// Write size of the fill.
    pub fill_bytes: u64,
    /// CPU per update, on the modelled cores (the worker's own work).
    pub cpu_per_update: Duration,
    pub dir: String,
}

fn path(spec: &UpdatesSpec, f: u32) -> String {
    format!("{}/data{f}", spec.dir)
}

/// Fills the data set; returns the files' paths.
pub(crate) async fn setup(spec: &UpdatesSpec, fs: &Fs, h: &Host) -> Result<Vec<String>, FsError> {
    mkdir_p(fs, h, &spec.dir).await?;
    let mut paths = Vec::new();
    for f in 0..spec.files {
        let p = path(spec, f);
        let fd = fs.create(h, &p, CreateOptions::default()).await?;
        let mut off = 0;
        while off < spec.file_bytes {
            let n = spec.fill_bytes.min(spec.file_bytes - off);
            fs.write(h, fd, off, n, None).await?;
            off += n;
        }
        fs.fsync(h, fd).await?;
        fs.close(h, fd).await?;
        paths.push(p);
    }
    Ok(paths)
}

pub(crate) fn run(spec: &UpdatesSpec, ctx: &Ctx, paths: Vec<String>) -> Vec<TaskId> {
    let paths = Rc::new(paths);
    let start = ctx.host.now();
    let done = Rc::new(std::cell::Cell::new(0u64));
    (0..spec.threads)
        .map(|t| {
            let (spec, ctx, paths, done) = (spec.clone(), ctx.clone(), paths.clone(), done.clone());
            let h = ctx.thread_host(&spec.name, t);
            let name = format!("{}.{t}", spec.name);
            ctx.host.clone().spawn(&name, false, async move {
                let share = spec.updates / spec.threads as u64
                    + u64::from((t as u64) < spec.updates % spec.threads as u64);
                if let Err(e) = worker(&spec, &ctx, &h, &paths, t, share, &done).await {
                    ctx.report(|r| r.fail(&e.to_string()));
                }
                let elapsed = (h.now() - start).ns();
                ctx.report(|r| r.elapsed_ns = r.elapsed_ns.max(elapsed));
            })
        })
        .collect()
}

async fn worker(
    spec: &UpdatesSpec,
    ctx: &Ctx,
    h: &Host,
    paths: &[String],
    t: u32,
    share: u64,
    done: &std::cell::Cell<u64>,
) -> Result<(), FsError> {
    let mut rng = Pcg64Mcg::seed_from_u64(mix_seed(
        ctx.seed,
        ((ctx.index as u64) << 32) + t as u64 + 1,
    ));
    let mut fds: Vec<Fd> = Vec::new();
    for p in paths {
        fds.push(ctx.fs.open(h, p, true).await?);
    }
    let per_file = spec.file_bytes / spec.bs;
    let files = spec.files as u64;
    for i in 0..share {
        let (f, b) = match spec.pattern {
            UpdatePattern::Uniform => {
                let g = rng.random_range(0..per_file * files);
                (g / per_file, g % per_file)
            }
            UpdatePattern::HotCold {
                hot_updates,
                hot_data,
            } => {
                let hot = ((per_file as f64 * hot_data) as u64).clamp(1, per_file - 1);
                let f = rng.random_range(0..files);
                let b = if rng.random_bool(hot_updates) {
                    rng.random_range(0..hot)
                } else {
                    rng.random_range(hot..per_file)
                };
                (f, b)
            }
        };
        ctx.fs
            .write(h, fds[f as usize], b * spec.bs, spec.bs, None)
            .await?;
        if !spec.cpu_per_update.is_zero() {
            h.cpu(spec.cpu_per_update).await;
        }
        if spec.sync_every > 0 && (i + 1).is_multiple_of(spec.sync_every) {
            ctx.fs.fsync(h, fds[f as usize]).await?;
        }
        ctx.report(|r| {
            r.ops += 1;
            r.write_bytes += spec.bs;
        });
        done.set(done.get() + 1);
        if done.get().is_multiple_of(4096) {
            ctx.set_progress(done.get() as f64 / spec.updates as f64);
        }
    }
    for fd in fds {
        ctx.fs.close(h, fd).await?;
    }
    Ok(())
}
