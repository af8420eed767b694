//! fio writing files through the file layer, as ReZNS section 4.2 runs it
//! (Lee et al., ReZNS, Appl. Sci. 2024): `threads` jobs, each writing its own file of `file_bytes` with
//! `bs` writes at queue depth 1, in a random order that covers every block once (fio's random
//! map), an fsync after every `fsync` writes; the whole job run `loops` times back to back (the
//! paper's "consecutively ran ... 3 times"), each run reopening the files the last one wrote.
//! fio's buffered I/O (no `direct=1` in the paper's list) goes through the page cache, and each
//! job drops its file's clean pages when it opens it (fio's default `invalidate=1`), so a run
//! starts with the file out of the cache.

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_pcg::Pcg64Mcg;

use super::{Ctx, LoopReport, mkdir_p};
use crate::host::fs::{CreateOptions, Fs, FsError};
use crate::sim::TaskId;
use crate::sim::host::Host;
use crate::workload::mix_seed;

#[derive(Clone, Debug, PartialEq)]
pub struct FioFilesSpec {
    pub name: String,
    pub threads: u32,
    pub file_bytes: u64,
    pub bs: u64,
    /// fsync after this many writes (0: never).
    pub fsync: u32,
    pub loops: u32,
    /// Random offsets (randwrite); false: sequential (write).
    pub random: bool,
    pub dir: String,
    /// fio's `invalidate=1`: drop the file's clean cached pages at open.
    pub invalidate: bool,
}

pub(crate) async fn setup(spec: &FioFilesSpec, fs: &Fs, h: &Host) -> Result<(), FsError> {
    mkdir_p(fs, h, &spec.dir).await
}

/// Starts the loops: one driver task runs them back to back.
pub(crate) fn run(spec: &FioFilesSpec, ctx: &Ctx) -> Vec<TaskId> {
    let (spec, ctx2) = (spec.clone(), ctx.clone());
    let driver = ctx
        .host
        .spawn(&format!("{}.loops", spec.name), false, async move {
            let ctx = ctx2;
            let start = ctx.host.now();
            for l in 0..spec.loops {
                let t0 = ctx.host.now();
                let before = ctx.report(|r| r.write_bytes);
                let ids: Vec<TaskId> = (0..spec.threads)
                    .map(|t| {
                        let (spec, ctx) = (spec.clone(), ctx.clone());
                        let h = ctx.thread_host(&spec.name, t);
                        let name = format!("{}.{t}", spec.name);
                        ctx.host.clone().spawn(&name, false, async move {
                            if let Err(e) = job(&spec, &ctx, &h, t, l).await {
                                ctx.report(|r| r.fail(&e.to_string()));
                            }
                        })
                    })
                    .collect();
                for id in ids {
                    ctx.host.join(id).await;
                }
                let elapsed = (ctx.host.now() - t0).ns();
                ctx.report(|r| {
                    let bytes = r.write_bytes - before;
                    r.loops.push(LoopReport {
                        elapsed_ns: elapsed,
                        write_bytes: bytes,
                        mib_per_s: bytes as f64
                            / (1u64 << 20) as f64
                            / (elapsed.max(1) as f64 / 1e9),
                    });
                });
                ctx.set_progress((l + 1) as f64 / spec.loops as f64);
            }
            let elapsed = (ctx.host.now() - start).ns();
            ctx.report(|r| r.elapsed_ns = elapsed);
        });
    vec![driver]
}

/// One fio job (thread) of loop `l`.
async fn job(spec: &FioFilesSpec, ctx: &Ctx, h: &Host, t: u32, l: u32) -> Result<(), FsError> {
    let path = format!("{}/{}.{t}.0", spec.dir, spec.name);
    let fd = match ctx.fs.open(h, &path, true).await {
        Ok(fd) => fd,
        Err(FsError::NotFound(_)) => ctx.fs.create(h, &path, CreateOptions::default()).await?,
        Err(e) => return Err(e),
    };
    if spec.invalidate {
        // fio's `td_io_open_file` calls `file_invalidate_cache`: posix_fadvise(DONTNEED) over
        // the file, which drops its clean pages (dirty ones stay).
        ctx.fs.fadvise_dontneed(fd)?;
    }
    let blocks = spec.file_bytes / spec.bs;
    let mut order: Vec<u32> = (0..blocks as u32).collect();
    if spec.random {
        let mut rng = Pcg64Mcg::seed_from_u64(mix_seed(
            ctx.seed,
            ((ctx.index as u64) << 40) + ((l as u64) << 24) + t as u64,
        ));
        order.shuffle(&mut rng);
    }
    for (k, &b) in order.iter().enumerate() {
        ctx.fs
            .write(h, fd, b as u64 * spec.bs, spec.bs, None)
            .await?;
        ctx.report(|r| {
            r.ops += 1;
            r.write_bytes += spec.bs;
        });
        if spec.fsync > 0 && (k as u64 + 1).is_multiple_of(spec.fsync as u64) {
            ctx.fs.fsync(h, fd).await?;
            ctx.report(|r| r.ops += 1);
        }
    }
    ctx.fs.close(h, fd).await
}
