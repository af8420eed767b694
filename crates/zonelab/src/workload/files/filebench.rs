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
//! does, all uniformly at random among entries no other thread is using (Filebench marks an
//! entry busy while a thread holds it). appendfilerand appends 1..=iosize bytes uniformly;
//! readwholefile and writewholefile move the file in `iosize` chunks. Every flowop done counts
//! as one operation; a flowop with no entry to work on is skipped (not counted).

use std::cell::RefCell;
use std::rc::Rc;

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

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

/// Entries that exist or not, each idle or held by a thread.
pub struct Fileset {
    pub paths: Vec<String>,
    idle_exists: Vec<u32>,
    idle_absent: Vec<u32>,
    /// Where an entry sits in its idle list (u32::MAX: held).
    pos: Vec<u32>,
    exists: Vec<bool>,
}

const HELD: u32 = u32::MAX;

impl Fileset {
    fn new(paths: Vec<String>, exists: Vec<bool>) -> Self {
        let mut f = Fileset {
            pos: vec![HELD; paths.len()],
            paths,
            idle_exists: Vec::new(),
            idle_absent: Vec::new(),
            exists,
        };
        for i in 0..f.paths.len() as u32 {
            f.release(i);
        }
        f
    }

    fn list(&mut self, exists: bool) -> &mut Vec<u32> {
        if exists {
            &mut self.idle_exists
        } else {
            &mut self.idle_absent
        }
    }

    /// Takes a random idle entry that exists (or not).
    fn take(&mut self, rng: &mut Pcg64Mcg, exists: bool) -> Option<u32> {
        let n = self.list(exists).len();
        if n == 0 {
            return None;
        }
        let k = rng.random_range(0..n);
        let list = self.list(exists);
        let e = list.swap_remove(k);
        if let Some(&moved) = list.get(k) {
            self.pos[moved as usize] = k as u32;
        }
        self.pos[e as usize] = HELD;
        Some(e)
    }

    /// A random idle entry that exists, left idle (statfile).
    fn peek_existing(&self, rng: &mut Pcg64Mcg) -> Option<u32> {
        (!self.idle_exists.is_empty())
            .then(|| self.idle_exists[rng.random_range(0..self.idle_exists.len())])
    }

    /// Gives a held entry back.
    fn release(&mut self, e: u32) {
        let exists = self.exists[e as usize];
        let list = self.list(exists);
        list.push(e);
        let k = list.len() as u32 - 1;
        self.pos[e as usize] = k;
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

/// Holds an entry from the fileset; `exists` after use.
fn take(set: &Shared<Fileset>, rng: &mut Pcg64Mcg, exists: bool) -> Option<(u32, String)> {
    let mut s = set.borrow_mut();
    let e = s.take(rng, exists)?;
    Some((e, s.paths[e as usize].clone()))
}

fn give_back(set: &Shared<Fileset>, e: u32, exists: bool) {
    let mut s = set.borrow_mut();
    s.exists[e as usize] = exists;
    s.release(e);
}

/// Appends, fsyncs (varmail) and closes an open entry.
async fn append_close(
    spec: &FilebenchSpec,
    ctx: &Ctx,
    h: &Host,
    rng: &mut Pcg64Mcg,
    fd: Fd,
    fsync: bool,
) -> Result<(), FsError> {
    let n = append_size(spec, rng);
    ctx.fs.append(h, fd, n, None).await?;
    op(ctx, "appendfilerand", 0, n);
    if fsync {
        ctx.fs.fsync(h, fd).await?;
        op(ctx, "fsync", 0, 0);
    }
    ctx.fs.close(h, fd).await?;
    op(ctx, "closefile", 0, 0);
    Ok(())
}

/// Opens an existing entry, reads it whole, closes it.
async fn open_read_close(
    spec: &FilebenchSpec,
    ctx: &Ctx,
    h: &Host,
    set: &Shared<Fileset>,
    rng: &mut Pcg64Mcg,
) -> Result<(), FsError> {
    let Some((e, path)) = take(set, rng, true) else {
        return Ok(());
    };
    let fd = ctx.fs.open(h, &path, false).await?;
    op(ctx, "openfile", 0, 0);
    let n = read_whole(&ctx.fs, h, fd, spec.io_bytes).await?;
    op(ctx, "readwholefile", n, 0);
    ctx.fs.close(h, fd).await?;
    op(ctx, "closefile", 0, 0);
    give_back(set, e, true);
    Ok(())
}

async fn varmail(
    spec: &FilebenchSpec,
    ctx: &Ctx,
    h: &Host,
    set: &Shared<Fileset>,
    rng: &mut Pcg64Mcg,
) -> Result<(), FsError> {
    // deletefile
    if let Some((e, path)) = take(set, rng, true) {
        ctx.fs.delete(h, &path).await?;
        op(ctx, "deletefile", 0, 0);
        give_back(set, e, false);
    }
    // createfile, appendfilerand, fsync, closefile
    if let Some((e, path)) = take(set, rng, false) {
        let fd = ctx.fs.create(h, &path, CreateOptions::default()).await?;
        op(ctx, "createfile", 0, 0);
        let r = append_close(spec, ctx, h, rng, fd, true).await;
        give_back(set, e, true);
        r?;
    }
    // openfile, readwholefile, appendfilerand, fsync, closefile
    if let Some((e, path)) = take(set, rng, true) {
        let fd = ctx.fs.open(h, &path, true).await?;
        op(ctx, "openfile", 0, 0);
        let n = read_whole(&ctx.fs, h, fd, spec.io_bytes).await?;
        op(ctx, "readwholefile", n, 0);
        let r = append_close(spec, ctx, h, rng, fd, true).await;
        give_back(set, e, true);
        r?;
    }
    // openfile, readwholefile, closefile
    open_read_close(spec, ctx, h, set, rng).await
}

async fn fileserver(
    spec: &FilebenchSpec,
    ctx: &Ctx,
    h: &Host,
    set: &Shared<Fileset>,
    rng: &mut Pcg64Mcg,
) -> Result<(), FsError> {
    // createfile, writewholefile, closefile
    if let Some((e, path)) = take(set, rng, false) {
        let fd = ctx.fs.create(h, &path, CreateOptions::default()).await?;
        op(ctx, "createfile", 0, 0);
        let r = write_whole(&ctx.fs, h, fd, spec.file_bytes, spec.io_bytes).await;
        if let Ok(n) = r {
            op(ctx, "writewholefile", 0, n);
        }
        let c = ctx.fs.close(h, fd).await;
        give_back(set, e, true);
        r?;
        c?;
        op(ctx, "closefile", 0, 0);
    }
    // openfile, appendfilerand, closefile
    if let Some((e, path)) = take(set, rng, true) {
        let fd = ctx.fs.open(h, &path, true).await?;
        op(ctx, "openfile", 0, 0);
        let r = append_close(spec, ctx, h, rng, fd, false).await;
        give_back(set, e, true);
        r?;
    }
    // openfile, readwholefile, closefile
    open_read_close(spec, ctx, h, set, rng).await?;
    // deletefile
    if let Some((e, path)) = take(set, rng, true) {
        ctx.fs.delete(h, &path).await?;
        op(ctx, "deletefile", 0, 0);
        give_back(set, e, false);
    }
    // statfile
    let pick = set.borrow().peek_existing(rng);
    if let Some(e) = pick {
        let path = set.borrow().paths[e as usize].clone();
        ctx.fs.stat(h, &path).await?;
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
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let mut f = Fileset::new(
            (0..4).map(|i| format!("/f{i}")).collect(),
            vec![true, false, true, false],
        );
        let a = f.take(&mut rng, true).unwrap();
        let b = f.take(&mut rng, true).unwrap();
        assert_ne!(a, b);
        assert_eq!(
            f.take(&mut rng, true),
            None,
            "both existing entries are held"
        );
        f.exists[a as usize] = false;
        f.release(a);
        assert_eq!(f.idle_absent.len(), 3);
    }
}
