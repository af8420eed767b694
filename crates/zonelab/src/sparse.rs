//! Bytes as a state file keeps them: runs of whole pages that are not all zeros, borrowed from
//! the device while it saves (a prefilled or trimmed range's zeros take no room at all).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// Data is kept in runs of whole pages of this size that are not all zeros (chosen: the usual
/// LBA and file system block size).
const PAGE: usize = 4096;

/// A run of bytes that are not all zeros, at `offset` of what it was cut from.
#[derive(Serialize, Deserialize)]
pub struct Extent<'a> {
    pub offset: u64,
    #[serde(with = "serde_bytes", borrow)]
    pub bytes: Cow<'a, [u8]>,
}

/// Runs of `PAGE`-sized pages of `bytes` that hold something other than zeros.
pub fn extents(bytes: &[u8]) -> Vec<Extent<'_>> {
    let mut out = Vec::new();
    let mut run: Option<usize> = None;
    for (i, page) in bytes.chunks(PAGE).enumerate() {
        let zero = page.iter().all(|&b| b == 0);
        match (zero, run) {
            (false, None) => run = Some(i * PAGE),
            (true, Some(start)) => {
                out.push(Extent {
                    offset: start as u64,
                    bytes: Cow::Borrowed(&bytes[start..i * PAGE]),
                });
                run = None;
            }
            _ => {}
        }
    }
    if let Some(start) = run {
        out.push(Extent {
            offset: start as u64,
            bytes: Cow::Borrowed(&bytes[start..]),
        });
    }
    out
}

/// Extents in order, without overlap, inside `len` bytes.
pub fn well_formed(extents: &[Extent<'_>], len: u64) -> bool {
    let mut end = 0;
    for e in extents {
        let stop = e.offset.checked_add(e.bytes.len() as u64);
        if e.offset < end || stop.is_none_or(|stop| stop > len) {
            return false;
        }
        end = e.offset + e.bytes.len() as u64;
    }
    true
}
