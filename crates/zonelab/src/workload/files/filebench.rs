//! Filebench's `varmail` and `fileserver` personalities (filebench/filebench workloads @ca9b7af,
//! code @22620e6; docs/reference/host-stack.md (d)), run for a given time.
//!
//! A fileset of `nfiles` entries in a directory tree `meandirwidth` wide; `prealloc` percent of
//! the entries exist at the start, each `meanfilesize` bytes (sizes are used verbatim, as
//! Filebench does without a random variable), written during the set-up and closed unsynced, as
//! Filebench's `fileset_alloc_file` does: the page cache writes them back. Each thread
//! loops over its personality's flowops until the run time is up:
//!
//! - varmail: deletefile; createfile; appendfilerand; fsync; closefile; openfile;
//!   readwholefile; appendfilerand; fsync; closefile; openfile; readwholefile; closefile.
//! - fileserver: createfile; writewholefile; closefile; openfile; appendfilerand; closefile;
//!   openfile; readwholefile; closefile; deletefile; statfile.
//!
//! createfile takes an entry that does not exist, deletefile, openfile and statfile one that
//! does, each in rotation over the entries' indices as Filebench picks them (`fileset.rs`); a
//! file stays open to others while a thread has it open, and deletefile skips a file open
//! anywhere (Filebench's `flowoplib_deletefile`). appendfilerand appends 1..=iosize bytes
//! uniformly; readwholefile and writewholefile move the file in `iosize` chunks. Every flowop
//! done counts as one operation; a flowop with no entry to work on is skipped (not counted).

use std::cell::RefCell;
use std::rc::Rc;

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

pub use super::fileset::Fileset;
use super::{Ctx, Shared, mkdir_p};
use crate::host::fs::{CreateOptions, Fd, Fs, FsError};
use crate::sim::TaskId;
use crate::sim::host::Host;
use crate::time::Duration;
use crate::workload::mix_seed;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilebenchKind {
    Varmail,
    Fileserver,
}

impl FilebenchKind {
    pub fn name(self) -> &'static str {
        match self {
            FilebenchKind::Varmail => "varmail",
            FilebenchKind::Fileserver => "fileserver",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct FilebenchSpec {
    pub name: String,
    pub kind: FilebenchKind,
    pub nfiles: u32,
    pub dir_width: u32,
    pub file_bytes: u64,
    pub threads: u32,
    pub io_bytes: u64,
    pub append_bytes: u64,
    pub prealloc_pct: u32,
    pub run: Duration,
    /// Stop once the threads have done this many flowops together (None: run the whole time).
    pub ops: Option<u64>,
    /// The fileset's directory.
    pub dir: String,
}

impl FilebenchSpec {
    /// The personality's defaults (varmail.f, fileserver.f).
    pub fn defaults(kind: FilebenchKind) -> Self {
        let (nfiles, dir_width, file_bytes, threads) = match kind {
            FilebenchKind::Varmail => (1_000, 1_000_000, 16 << 10, 16),
            FilebenchKind::Fileserver => (10_000, 20, 128 << 10, 50),
        };
        FilebenchSpec {
            name: kind.name().into(),
            kind,
            nfiles,
            dir_width,
            file_bytes,
            threads,
            io_bytes: 1 << 20,
            append_bytes: 16 << 10,
            prealloc_pct: 80,
            run: Duration::from_secs(60),
            ops: None,
            dir: format!("/{}", kind.name()),
        }
    }
}

/// The path of entry `i`: leaf directories of `width` entries, under as many directory levels
/// as `width` fits into the leaf count (Filebench's mean depth, ln(nfiles) / ln(width), rounded
/// down); the top level holds what is left, so it may be wider than `width`.
fn entry_path(dir: &str, width: u64, nfiles: u64, i: u64) -> String {
    let mut levels = 0;
    let mut n = nfiles;
    while width > 1 && n / width >= width {
        n /= width;
        levels += 1;
    }
    let mut parts = Vec::new();
    let mut idx = i / width;
    for level in 0..levels {
        if level + 1 == levels {
            parts.push(idx);
        } else {
            parts.push(idx % width);
            idx /= width;
        }
    }
    let mut p = dir.to_string();
    for d in parts.iter().rev() {
        p += &format!("/d{d}");
    }
    p + &format!("/f{i}")
}

/// Creates the directory tree and the pre-allocated files (written whole and closed, never synced:
/// Filebench's `fileset_alloc_file`, fileset.c @22620e6, writes and closes).
pub(crate) async fn setup(
    spec: &FilebenchSpec,
    fs: &Fs,
    h: &Host,
    seed: u64,
    index: usize,
) -> Result<Shared<Fileset>, FsError> {
    let mut rng = Pcg64Mcg::seed_from_u64(mix_seed(seed, 0xf11e_0000 + index as u64));
    let n = spec.nfiles as u64;
    let width = spec.dir_width.max(1) as u64;
    let paths: Vec<String> = (0..n).map(|i| entry_path(&spec.dir, width, n, i)).collect();
    let exists: Vec<bool> = (0..n)
        .map(|_| rng.random_range(0..100u32) < spec.prealloc_pct)
        .collect();
    mkdir_p(fs, h, &spec.dir).await?;
    let mut dirs: Vec<&str> = paths
        .iter()
        .map(|p| &p[..p.rfind('/').expect("absolute")])
        .collect();
    dirs.dedup();
    for d in dirs {
        mkdir_p(fs, h, d).await?;
    }
    for (p, &e) in paths.iter().zip(&exists) {
        if e {
            let fd = fs.create(h, p, CreateOptions::default()).await?;
            write_whole(fs, h, fd, spec.file_bytes, spec.io_bytes).await?;
            fs.close(h, fd).await?;
        }
    }
    Ok(Rc::new(RefCell::new(Fileset::new(paths, exists))))
}

async fn write_whole(fs: &Fs, h: &Host, fd: Fd, size: u64, chunk: u64) -> Result<u64, FsError> {
    let mut done = 0;
    while done < size {
        let n = chunk.min(size - done);
        fs.write(h, fd, done, n, None).await?;
        done += n;
    }
    Ok(done)
}

async fn read_whole(fs: &Fs, h: &Host, fd: Fd, chunk: u64) -> Result<u64, FsError> {
    let mut off = 0;
    loop {
        let n = fs.read(h, fd, off, chunk, None).await?;
        if n == 0 {
            return Ok(off);
        }
        off += n;
    }
}

/// Starts the threads; they stop when the run time is up.
pub(crate) fn run(spec: &FilebenchSpec, ctx: &Ctx, set: Shared<Fileset>) -> Vec<TaskId> {
    let start = ctx.host.now();
    let deadline = start + spec.run;
    let planned = if spec.ops.is_some() { 0 } else { spec.run.ns() };
    ctx.report(|r| r.elapsed_ns = planned);
    (0..spec.threads)
        .map(|t| {
            let (spec, ctx, set) = (spec.clone(), ctx.clone(), set.clone());
            let h = ctx.thread_host(&spec.name, t);
            let name = format!("{}.{t}", spec.name);
            ctx.host.clone().spawn(&name, false, async move {
                let mut rng = Pcg64Mcg::seed_from_u64(mix_seed(
                    ctx.seed,
                    ((ctx.index as u64) << 32) + t as u64 + 1,
                ));
                let cap = spec.ops.unwrap_or(u64::MAX);
                while h.now() < deadline && ctx.report(|r| r.ops) < cap {
                    let before = h.now();
                    let r = match spec.kind {
                        FilebenchKind::Varmail => varmail(&spec, &ctx, &h, &set, &mut rng).await,
                        FilebenchKind::Fileserver => {
                            fileserver(&spec, &ctx, &h, &set, &mut rng).await
                        }
                    };
                    if let Err(e) = r {
                        // Out of space: count it and stop this thread.
                        ctx.report(|r| r.fail(&e.to_string()));
                        break;
                    }
                    if h.now() == before {
                        // Every entry this loop wanted was held by other threads (more threads
                        // than files): wait for them instead of spinning at this instant.
                        // CHOSEN: 1 us; Filebench's threads would block on the fileset's lock.
                        h.sleep(Duration::from_us(1)).await;
                    }
                    if t == 0 {
                        let f = (h.now() - start).ns() as f64 / spec.run.ns() as f64;
                        ctx.set_progress(f.min(1.0));
                    }
                }
                // With an op cap the run ends with its last thread (before `run` if the ops
                // ran out).
                let took = (h.now() - start).ns().min(spec.run.ns());
                ctx.report(|r| r.elapsed_ns = r.elapsed_ns.max(took));
            })
        })
        .collect()
}

/// One flowop done: counted by name.
fn op(ctx: &Ctx, name: &str, read: u64, write: u64) {
    ctx.report(|r| {
        r.ops += 1;
        r.read_bytes += read;
        r.write_bytes += write;
        *r.flowops.entry(name.to_string()).or_default() += 1;
    });
}

fn append_size(spec: &FilebenchSpec, rng: &mut Pcg64Mcg) -> u64 {
    rng.random_range(1..=spec.append_bytes.max(1))
}

/// Picks an entry (busy until released) and its path.
fn pick(set: &Shared<Fileset>, exists: bool) -> Option<(u32, String)> {
    let mut s = set.borrow_mut();
    let e = s.pick(exists)?;
    Some((e, s.paths[e as usize].clone()))
}

fn release(set: &Shared<Fileset>, e: u32, exists: Option<bool>, opened: i32) {
    set.borrow_mut().release(e, exists, opened);
}

/// Creates a picked absent entry's file; released as existing and open once created.
async fn create(ctx: &Ctx, h: &Host, set: &Shared<Fileset>) -> Result<Option<(u32, Fd)>, FsError> {
    let Some((e, path)) = pick(set, false) else {
        return Ok(None);
    };
    let fd = ctx.fs.create(h, &path, CreateOptions::default()).await;
    release(set, e, fd.is_ok().then_some(true), fd.is_ok() as i32);
    let fd = fd?;
    op(ctx, "createfile", 0, 0);
    Ok(Some((e, fd)))
}

/// Opens a picked existing entry's file; released at once, open once more.
async fn open(
    ctx: &Ctx,
    h: &Host,
    set: &Shared<Fileset>,
    write: bool,
) -> Result<Option<(u32, Fd)>, FsError> {
    let Some((e, path)) = pick(set, true) else {
        return Ok(None);
    };
    let fd = ctx.fs.open(h, &path, write).await;
    release(set, e, None, fd.is_ok() as i32);
    let fd = fd?;
    op(ctx, "openfile", 0, 0);
    Ok(Some((e, fd)))
}

/// closefile: holds the entry while its descriptor closes, once no other thread holds it.
async fn close(ctx: &Ctx, h: &Host, set: &Shared<Fileset>, e: u32, fd: Fd) -> Result<(), FsError> {
    // CHOSEN: a 1 us poll where Filebench waits on the fileset's condition variable; an entry
    // is busy only from a pick until its open, create, delete or stat is done.
    while set.borrow().is_busy(e) {
        h.sleep(Duration::from_us(1)).await;
    }
    set.borrow_mut().hold(e);
    let r = ctx.fs.close(h, fd).await;
    release(set, e, None, -1);
    r?;
    op(ctx, "closefile", 0, 0);
    Ok(())
}

/// deletefile: a picked existing file, unless a descriptor is open on it anywhere.
async fn delete(ctx: &Ctx, h: &Host, set: &Shared<Fileset>) -> Result<(), FsError> {
    let Some((e, path)) = pick(set, true) else {
        return Ok(());
    };
    if set.borrow().opens(e) > 0 {
        release(set, e, None, 0);
        return Ok(());
    }
    let r = ctx.fs.delete(h, &path).await;
    release(set, e, r.is_ok().then_some(false), 0);
    r?;
    op(ctx, "deletefile", 0, 0);
    Ok(())
}

/// Appends to an open entry, fsyncs it (varmail) and closes it.
async fn append_close(
    spec: &FilebenchSpec,
    ctx: &Ctx,
    h: &Host,
    set: &Shared<Fileset>,
    rng: &mut Pcg64Mcg,
    (e, fd): (u32, Fd),
    fsync: bool,
) -> Result<(), FsError> {
    let n = append_size(spec, rng);
    ctx.fs.append(h, fd, n, None).await?;
    op(ctx, "appendfilerand", 0, n);
    if fsync {
        ctx.fs.fsync(h, fd).await?;
        op(ctx, "fsync", 0, 0);
    }
    close(ctx, h, set, e, fd).await
}

/// Reads an open entry whole.
async fn read_open(spec: &FilebenchSpec, ctx: &Ctx, h: &Host, fd: Fd) -> Result<(), FsError> {
    let n = read_whole(&ctx.fs, h, fd, spec.io_bytes).await?;
    op(ctx, "readwholefile", n, 0);
    Ok(())
}

async fn varmail(
    spec: &FilebenchSpec,
    ctx: &Ctx,
    h: &Host,
    set: &Shared<Fileset>,
    rng: &mut Pcg64Mcg,
) -> Result<(), FsError> {
    delete(ctx, h, set).await?;
    // createfile, appendfilerand, fsync, closefile
    if let Some(f) = create(ctx, h, set).await? {
        append_close(spec, ctx, h, set, rng, f, true).await?;
    }
    // openfile, readwholefile, appendfilerand, fsync, closefile
    if let Some(f) = open(ctx, h, set, true).await? {
        read_open(spec, ctx, h, f.1).await?;
        append_close(spec, ctx, h, set, rng, f, true).await?;
    }
    // openfile, readwholefile, closefile
    if let Some((e, fd)) = open(ctx, h, set, false).await? {
        read_open(spec, ctx, h, fd).await?;
        close(ctx, h, set, e, fd).await?;
    }
    Ok(())
}

async fn fileserver(
    spec: &FilebenchSpec,
    ctx: &Ctx,
    h: &Host,
    set: &Shared<Fileset>,
    rng: &mut Pcg64Mcg,
) -> Result<(), FsError> {
    // createfile, writewholefile, closefile
    if let Some((e, fd)) = create(ctx, h, set).await? {
        let r = write_whole(&ctx.fs, h, fd, spec.file_bytes, spec.io_bytes).await;
        if let Ok(n) = r {
            op(ctx, "writewholefile", 0, n);
        }
        let c = close(ctx, h, set, e, fd).await;
        r?;
        c?;
    }
    // openfile, appendfilerand, closefile
    if let Some(f) = open(ctx, h, set, true).await? {
        append_close(spec, ctx, h, set, rng, f, false).await?;
    }
    // openfile, readwholefile, closefile
    if let Some((e, fd)) = open(ctx, h, set, false).await? {
        read_open(spec, ctx, h, fd).await?;
        close(ctx, h, set, e, fd).await?;
    }
    delete(ctx, h, set).await?;
    // statfile
    if let Some((e, path)) = pick(set, true) {
        let r = ctx.fs.stat(h, &path).await;
        release(set, e, None, 0);
        r?;
        op(ctx, "statfile", 0, 0);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_form_a_tree_of_the_given_width() {
        assert_eq!(entry_path("/v", 1_000_000, 1000, 7), "/v/f7");
        // 10,000 files, width 20: 500 leaf directories under 25 directories.
        assert_eq!(entry_path("/s", 20, 10_000, 0), "/s/d0/d0/f0");
        assert_eq!(entry_path("/s", 20, 10_000, 9_999), "/s/d24/d19/f9999");
        // 1,000 files, width 20: 50 directories at the top.
        assert_eq!(entry_path("/s", 20, 1_000, 999), "/s/d49/f999");
        assert_eq!(entry_path("/s", 20, 50, 49), "/s/f49");
    }
}
