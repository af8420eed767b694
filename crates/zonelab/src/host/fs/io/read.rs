//! Reads: the cache first, then the device for what is not cached, and the read-modify-write of
//! blocks a write only partly covers.

use std::rc::Rc;

use crate::device::{Command, Data};
use crate::host::fs::map::Run;
use crate::host::fs::state::{Ino, Inode};
use crate::host::fs::{BLOCK_BYTES, FsError, Inner};
use crate::host::join_all;
use crate::sim::host::Host;
use crate::time::Duration;

/// Reads into the cache the blocks a write only partly covers, when they are on the device and
/// not cached (read-modify-write of a page, as the kernel does).
pub(crate) async fn read_partial_blocks(
    fs: &Rc<Inner>,
    h: &Host,
    ino: Ino,
    offset: u64,
    len: u64,
) -> Result<(), FsError> {
    let end = offset + len;
    let (first, last) = (offset / BLOCK_BYTES, (end - 1) / BLOCK_BYTES);
    let mut want = Vec::new();
    if !offset.is_multiple_of(BLOCK_BYTES) {
        want.push(first);
    }
    if !end.is_multiple_of(BLOCK_BYTES) && !want.contains(&last) {
        want.push(last);
    }
    {
        let st = fs.st.borrow();
        let inode = st.inode(ino);
        want.retain(|fb| !inode.pages.contains_key(fb) && inode.map.contains(*fb));
    }
    for fb in want {
        let n = fetch_blocks(fs, h, ino, fb, 1).await?;
        debug_assert!(n <= 1);
    }
    Ok(())
}

/// Reads file blocks `fb..fb + count` that are on the device into the cache as clean pages.
async fn fetch_blocks(
    fs: &Rc<Inner>,
    h: &Host,
    ino: Ino,
    fb: u64,
    count: u64,
) -> Result<u64, FsError> {
    let runs = {
        let st = fs.st.borrow();
        st.inode(ino).map.runs_in(fb, fb + count)
    };
    let reads = device_reads(fs, &runs);
    let bufs = issue_reads(fs, h, &reads).await?;
    let mut st = fs.st.borrow_mut();
    if !st.exists(ino) {
        return Ok(0);
    }
    let mut added = 0;
    for (r, buf) in reads.iter().zip(bufs) {
        for i in 0..r.2.len as u64 {
            let data = buf
                .as_ref()
                .map(|b| b[(i * BLOCK_BYTES) as usize..((i + 1) * BLOCK_BYTES) as usize].into());
            added += u64::from(st.cache_clean_page(ino, r.0 + i, data));
        }
    }
    Ok(added)
}

/// Device reads for file-block runs, split at the layer's largest command: (first file block,
/// zone, run).
fn device_reads(fs: &Inner, runs: &[(u64, Run)]) -> Vec<(u64, u32, Run)> {
    let max = fs.spec.max_io_blocks;
    let mut out = Vec::new();
    for &(fb, r) in runs {
        let mut done = 0;
        while done < r.len {
            let n = (r.len - done).min(max);
            out.push((
                fb + done as u64,
                r.zone,
                Run::new(r.zone, r.block + done, n),
            ));
            done += n;
        }
    }
    out
}

/// Sends the reads at once and waits for them; their bytes in data mode.
async fn issue_reads(
    fs: &Rc<Inner>,
    h: &Host,
    reads: &[(u64, u32, Run)],
) -> Result<Vec<Option<Vec<u8>>>, FsError> {
    if reads.is_empty() {
        return Ok(Vec::new());
    }
    let mut bufs: Vec<Option<Vec<u8>>> = reads
        .iter()
        .map(|r| {
            fs.spec
                .data
                .then(|| vec![0u8; (r.2.len as u64 * BLOCK_BYTES) as usize])
        })
        .collect();
    let lbas: Vec<(u64, u64)> = {
        let st = fs.st.borrow();
        reads
            .iter()
            .map(|r| {
                (
                    st.space.lba(r.2.zone, r.2.block),
                    r.2.len as u64 * fs.lbas_per_block,
                )
            })
            .collect()
    };
    {
        let mut st = fs.st.borrow_mut();
        st.inflight_io += reads.len() as u32;
        st.inflight_reads += reads.len() as u32;
        st.stats.device_reads += reads.len() as u64;
    }
    let results = join_all(bufs.iter_mut().zip(&lbas).map(|(b, &(lba, nlb))| {
        let mut cmd = Command::read(lba, nlb);
        if let Some(b) = b {
            cmd = cmd.with_data(Data::In(b));
        }
        h.io(cmd)
    }))
    .await;
    {
        let mut st = fs.st.borrow_mut();
        st.inflight_io -= reads.len() as u32;
        st.inflight_reads -= reads.len() as u32;
    }
    // Submission CPU is charged after the commands: blocks are looked up and the commands sent
    // in one step, so nothing moves in between.
    h.cpu(Duration::from_ns(
        fs.spec.cpu.submit.ns() * reads.len() as u64,
    ))
    .await;
    super::check_reads(
        fs,
        h,
        results.into_iter().zip(reads.iter().map(|r| r.2.zone)),
    )?;
    Ok(bufs)
}

/// Reads `len` bytes at `offset` of `ino`: cached pages, then the device; holes read as zeros.
pub(crate) async fn read(
    fs: &Rc<Inner>,
    h: &Host,
    ino: Ino,
    offset: u64,
    len: u64,
    mut buf: Option<&mut [u8]>,
) -> Result<u64, FsError> {
    let (n, reads) = {
        let st = fs.st.borrow();
        let inode = st.inode(ino);
        let n = len.min(inode.size.saturating_sub(offset));
        if n == 0 {
            return Ok(0);
        }
        if let Some(b) = buf.as_deref_mut() {
            b[..n as usize].fill(0);
        }
        let first = offset / BLOCK_BYTES;
        let last = (offset + n - 1) / BLOCK_BYTES;
        let missing = uncached_runs(inode, first, last);
        if let Some(b) = buf.as_deref_mut() {
            for fb in first..=last {
                if let Some(d) = inode.pages.get(&fb).and_then(|p| p.data.as_ref()) {
                    copy_block(b, offset, n, fb, d);
                }
            }
        }
        (n, device_reads(fs, &missing))
    };
    let bufs = issue_reads(fs, h, &reads).await?;
    let mut st = fs.st.borrow_mut();
    if let Some(b) = buf {
        for (r, data) in reads.iter().zip(&bufs) {
            if let Some(d) = data {
                for i in 0..r.2.len as u64 {
                    let s = (i * BLOCK_BYTES) as usize;
                    copy_block(b, offset, n, r.0 + i, &d[s..s + BLOCK_BYTES as usize]);
                }
            }
        }
    }
    if st.cache_limit_pages > 0 && st.exists(ino) {
        for (r, data) in reads.iter().zip(bufs) {
            for i in 0..r.2.len as u64 {
                let s = (i * BLOCK_BYTES) as usize;
                let data = data.as_ref().map(|d| d[s..s + BLOCK_BYTES as usize].into());
                st.cache_clean_page(ino, r.0 + i, data);
            }
        }
        st.touch(ino);
        st.evict();
    }
    Ok(n)
}

/// The runs of file blocks `first..=last` on the device whose pages are not cached, as (first
/// file block, where on the device): the mapped runs split around cached pages.
fn uncached_runs(inode: &Inode, first: u64, last: u64) -> Vec<(u64, Run)> {
    let mut missing = Vec::new();
    for (fb, run) in inode.map.runs_in(first, last + 1) {
        let mut s = 0;
        while s < run.len {
            if inode.pages.contains_key(&(fb + s as u64)) {
                s += 1;
                continue;
            }
            let mut e = s;
            while e < run.len && !inode.pages.contains_key(&(fb + e as u64)) {
                e += 1;
            }
            missing.push((fb + s as u64, Run::new(run.zone, run.block + s, e - s)));
            s = e;
        }
    }
    missing
}

/// Copies the part of file block `fb` (bytes `block`) inside `offset..offset + n` into `buf`.
fn copy_block(buf: &mut [u8], offset: u64, n: u64, fb: u64, block: &[u8]) {
    let b_start = fb * BLOCK_BYTES;
    let from = offset.max(b_start);
    let to = (offset + n).min(b_start + BLOCK_BYTES);
    if from >= to {
        return;
    }
    buf[(from - offset) as usize..(to - offset) as usize]
        .copy_from_slice(&block[(from - b_start) as usize..(to - b_start) as usize]);
}
