//! Data retention for the conventional SSD: the bytes of each logical block, kept by logical
//! address (where the FTL puts them on NAND does not change what a read returns). Memory comes in
//! chunks allocated at their first write; bytes never written, or trimmed, read as zeros.

const CHUNK_BYTES: usize = 1 << 20;

pub(super) struct BlockStore {
    chunks: Vec<Option<Box<[u8]>>>,
}

impl BlockStore {
    pub fn new(bytes: u64) -> Self {
        BlockStore {
            chunks: (0..bytes.div_ceil(CHUNK_BYTES as u64))
                .map(|_| None)
                .collect(),
        }
    }

    pub fn write(&mut self, mut offset: u64, data: &[u8]) {
        let mut done = 0;
        while done < data.len() {
            let (c, within) = (
                (offset / CHUNK_BYTES as u64) as usize,
                (offset % CHUNK_BYTES as u64) as usize,
            );
            let n = (CHUNK_BYTES - within).min(data.len() - done);
            let chunk =
                self.chunks[c].get_or_insert_with(|| vec![0; CHUNK_BYTES].into_boxed_slice());
            chunk[within..within + n].copy_from_slice(&data[done..done + n]);
            done += n;
            offset += n as u64;
        }
    }

    pub fn read(&self, mut offset: u64, buf: &mut [u8]) {
        let mut done = 0;
        while done < buf.len() {
            let (c, within) = (
                (offset / CHUNK_BYTES as u64) as usize,
                (offset % CHUNK_BYTES as u64) as usize,
            );
            let n = (CHUNK_BYTES - within).min(buf.len() - done);
            match &self.chunks[c] {
                Some(chunk) => buf[done..done + n].copy_from_slice(&chunk[within..within + n]),
                None => buf[done..done + n].fill(0),
            }
            done += n;
            offset += n as u64;
        }
    }

    /// The chunks holding bytes, with their index (a state file keeps these).
    pub fn held(&self) -> impl Iterator<Item = (u32, &[u8])> {
        self.chunks
            .iter()
            .enumerate()
            .filter_map(|(i, c)| c.as_deref().map(|c| (i as u32, c)))
    }

    /// The size in bytes of chunk `index`, if there is one.
    pub fn chunk_bytes(&self, index: u32) -> Option<u64> {
        ((index as usize) < self.chunks.len()).then_some(CHUNK_BYTES as u64)
    }

    /// Bytes `offset..offset + len` read as zeros from now on.
    pub fn zero(&mut self, mut offset: u64, len: u64) {
        let end = offset + len;
        while offset < end {
            let (c, within) = (
                (offset / CHUNK_BYTES as u64) as usize,
                (offset % CHUNK_BYTES as u64) as usize,
            );
            let n = ((CHUNK_BYTES - within) as u64).min(end - offset) as usize;
            if n == CHUNK_BYTES {
                self.chunks[c] = None;
            } else if let Some(chunk) = &mut self.chunks[c] {
                chunk[within..within + n].fill(0);
            }
            offset += n as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_read_back_across_chunks_and_trims_read_as_zeros() {
        let mut s = BlockStore::new(3 * CHUNK_BYTES as u64);
        let data: Vec<u8> = (0..10_000).map(|i| (i % 251) as u8 + 1).collect();
        let at = CHUNK_BYTES as u64 - 5_000;
        s.write(at, &data);
        let mut buf = vec![0xEE; 10_000];
        s.read(at, &mut buf);
        assert_eq!(buf, data);
        s.zero(at + 1_000, 2_000);
        s.read(at, &mut buf);
        assert!(buf[1_000..3_000].iter().all(|&b| b == 0));
        assert_eq!(buf[3_000..], data[3_000..]);
        s.zero(0, 3 * CHUNK_BYTES as u64);
        assert!(
            s.chunks.iter().all(Option::is_none),
            "whole chunks are released"
        );
    }
}
