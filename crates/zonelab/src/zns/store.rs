//! Data retention: the bytes the host wrote into each zone, so that reads (and fio's verify)
//! get them back. A zone's bytes are always a prefix of the zone, because zones are written only
//! at the write pointer.
//!
//! Memory follows the data written, not the capacity: a zone's buffer grows as it is written
//! (a buffer of the zone's whole capacity at its first write reserved 1.1 GB of address space
//! for a 5.7 MB run, and aborted under an address-space limit: issue 36). A reset hands the
//! zone's buffer, emptied but keeping its memory, to a pool that the next zone to be written
//! takes from, so resident memory stays bounded by the most data the zones ever held at once.
//! Large writes into memory a buffer has held before are copied with non-temporal stores, which
//! skip reading the destination into the cache first.

use std::mem::MaybeUninit;

pub(crate) struct ZoneStore {
    /// Per zone; a zone that holds no data may have no buffer.
    zones: Vec<Buffer>,
    /// Buffers released by resets, most recent last (empty, keeping their memory).
    spare: Vec<Buffer>,
    zone_capacity_bytes: usize,
}

/// A zone's bytes (its length is the bytes held); the memory behind it may be longer, kept
/// from an earlier zone's data.
#[derive(Default)]
struct Buffer {
    bytes: Vec<u8>,
}

impl ZoneStore {
    pub(crate) fn new(zone_count: usize, zone_capacity_bytes: u64) -> Self {
        ZoneStore {
            zones: (0..zone_count).map(|_| Buffer::default()).collect(),
            spare: Vec::new(),
            zone_capacity_bytes: zone_capacity_bytes as usize,
        }
    }

    /// Bytes held for `zone`.
    pub(crate) fn len(&self, zone: u32) -> usize {
        self.zones[zone as usize].bytes.len()
    }

    /// Gives `zone` a buffer if it has none: a reset zone's, or a new empty one.
    fn buffer(&mut self, zone: u32) -> &mut Buffer {
        let b = &mut self.zones[zone as usize];
        if b.bytes.capacity() == 0 {
            *b = self.spare.pop().unwrap_or_default();
        }
        b
    }

    /// Appends `bytes` to `zone`: `data` (exactly `bytes` long), or zeros when there is none.
    pub(crate) fn append(&mut self, zone: u32, bytes: usize, data: Option<&[u8]>) {
        let cap = self.zone_capacity_bytes;
        let buffer = self.buffer(zone);
        let start = buffer.bytes.len();
        let end = start + bytes;
        assert!(
            end <= cap,
            "zone {zone}: retained data beyond the zone's capacity"
        );
        if end > buffer.bytes.capacity() {
            // Grow geometrically (amortised O(1) per byte), never past the zone's capacity.
            let want = end.max(2 * start).min(cap);
            buffer.bytes.reserve_exact(want - start);
        }
        match data {
            Some(d) => {
                assert_eq!(d.len(), bytes, "zone {zone}: data length");
                if end <= buffer.bytes.capacity() && bytes >= STREAMING_MIN_BYTES {
                    // Memory held before: stream into it.
                    let spare = &mut buffer.bytes.spare_capacity_mut()[..bytes];
                    copy_to_uninit(spare, d);
                    // SAFETY: the `bytes` bytes past the length were just initialised.
                    unsafe { buffer.bytes.set_len(end) };
                } else {
                    buffer.bytes.extend_from_slice(d);
                }
            }
            None => buffer.bytes.resize(end, 0),
        }
    }

    /// Fills `buf` from `zone` at `offset_bytes`; bytes never written read as zeros.
    pub(crate) fn read(&self, zone: u32, offset_bytes: usize, buf: &mut [u8]) {
        let b = &self.zones[zone as usize].bytes;
        let have = b.len().saturating_sub(offset_bytes).min(buf.len());
        if have > 0 {
            buf[..have].copy_from_slice(&b[offset_bytes..offset_bytes + have]);
        }
        buf[have..].fill(0);
    }

    /// The bytes held for `zone` (a prefix of the zone).
    pub(crate) fn bytes(&self, zone: u32) -> &[u8] {
        &self.zones[zone as usize].bytes
    }

    /// Makes `zone` hold `len` bytes: zeros, with each `(offset, bytes)` extent laid over them
    /// (a device state file keeps only the pages that are not zero). The caller has checked
    /// that everything fits the zone's capacity.
    pub(crate) fn restore<'a>(
        &mut self,
        zone: u32,
        len: usize,
        extents: impl Iterator<Item = (usize, &'a [u8])>,
    ) {
        assert!(
            len <= self.zone_capacity_bytes,
            "zone {zone}: restored data beyond capacity"
        );
        let mut bytes = vec![0; len];
        for (offset, data) in extents {
            bytes[offset..offset + data.len()].copy_from_slice(data);
        }
        self.zones[zone as usize] = Buffer { bytes };
    }

    /// Forgets `zone`'s data (a reset); its buffer goes to the next zone to be written.
    pub(crate) fn clear(&mut self, zone: u32) {
        let mut buffer = std::mem::take(&mut self.zones[zone as usize]);
        if buffer.bytes.capacity() != 0 {
            buffer.bytes.clear();
            self.spare.push(buffer);
        }
    }
}

/// Copies shorter than this go through the cache as usual: non-temporal stores only pay off for
/// whole cache lines, and a small write is likely to be read back soon.
const STREAMING_MIN_BYTES: usize = 1024;

/// `dst.copy_from_slice(src)`, with non-temporal stores for large copies.
#[cfg(test)]
fn copy_streaming(dst: &mut [u8], src: &[u8]) {
    // SAFETY: a `u8` is a valid `MaybeUninit<u8>`, and only initialised bytes are written.
    let dst = unsafe { &mut *(dst as *mut [u8] as *mut [MaybeUninit<u8>]) };
    copy_to_uninit(dst, src);
}

#[cfg(target_arch = "x86_64")]
fn copy_to_uninit(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
    assert_eq!(dst.len(), src.len());
    if src.len() < STREAMING_MIN_BYTES {
        return copy_plain(dst, src);
    }
    // movntdq needs a 16-byte aligned destination: copy up to the first aligned byte plainly.
    let head = dst.as_ptr().align_offset(16).min(src.len());
    copy_plain(&mut dst[..head], &src[..head]);
    let body = (src.len() - head) / 64 * 64;
    let (d, s) = (dst[head..].as_mut_ptr().cast::<u8>(), src[head..].as_ptr());
    for i in (0..body).step_by(64) {
        // SAFETY: `i + 64 <= body`, inside both slices after `head`; the destination is 16-byte
        // aligned (`head` reached alignment and `i` is a multiple of 64); SSE2 is part of x86_64.
        unsafe {
            for k in (0..64).step_by(16) {
                let x = _mm_loadu_si128(s.add(i + k).cast::<__m128i>());
                _mm_stream_si128(d.add(i + k).cast::<__m128i>(), x);
            }
        }
    }
    let tail = head + body;
    copy_plain(&mut dst[tail..], &src[tail..]);
    // Non-temporal stores are weakly ordered: fence them before anyone else may look.
    // SAFETY: SSE is part of x86_64.
    unsafe { _mm_sfence() };
}

#[cfg(not(target_arch = "x86_64"))]
fn copy_to_uninit(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    copy_plain(dst, src)
}

fn copy_plain(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    assert_eq!(dst.len(), src.len());
    // SAFETY: both are `src.len()` bytes long, and a `&mut` and a `&` slice cannot overlap.
    unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst.as_mut_ptr().cast(), src.len()) };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(len: usize, seed: u8) -> Vec<u8> {
        (0..len)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
            .collect()
    }

    #[test]
    fn streaming_copy_matches_at_every_alignment_and_length() {
        let src = pattern(9000, 7);
        for start in 0..17 {
            for len in [0, 1, 15, 63, 1023, 1024, 1025, 4096, 4099, 8191] {
                let mut v = vec![0xEEu8; start + len + 5];
                copy_streaming(&mut v[start..start + len], &src[3..3 + len]);
                assert_eq!(&v[..start], &vec![0xEE; start][..]);
                assert_eq!(
                    &v[start..start + len],
                    &src[3..3 + len],
                    "start {start} len {len}"
                );
                assert_eq!(&v[start + len..], &[0xEE; 5]);
            }
        }
    }

    #[test]
    fn appends_read_back_with_zeros_past_the_data() {
        let mut store = ZoneStore::new(2, 16384);
        let a = pattern(4096, 1);
        store.append(1, 4096, Some(&a));
        store.append(1, 512, None);
        assert_eq!(store.len(1), 4608);
        assert_eq!(store.len(0), 0);
        let mut buf = vec![0xFF; 1024];
        store.read(1, 4096 - 512, &mut buf);
        assert_eq!(&buf[..512], &a[4096 - 512..]);
        assert!(buf[512..].iter().all(|&b| b == 0));
        store.read(0, 0, &mut buf);
        assert!(buf.iter().all(|&b| b == 0));
    }

    #[test]
    fn a_reset_zone_reads_as_zeros_and_its_memory_goes_to_the_next_zone_written() {
        let mut store = ZoneStore::new(3, 8192);
        store.append(0, 8192, Some(&pattern(8192, 2)));
        let first = store.zones[0].bytes.as_ptr();
        assert_eq!(
            store.zones[0].bytes.capacity(),
            8192,
            "no more than the data written"
        );
        store.clear(0);
        store.clear(2); // never written: nothing to hand on
        assert_eq!(store.spare.len(), 1);
        let mut buf = vec![0xFF; 4096];
        store.read(0, 0, &mut buf);
        assert!(buf.iter().all(|&b| b == 0));
        let b = pattern(4096, 3);
        store.append(1, 4096, Some(&b));
        assert_eq!(store.zones[1].bytes.as_ptr(), first, "memory reused");
        store.read(1, 0, &mut buf);
        assert_eq!(buf, b);
        store.append(0, 512, None);
        assert_ne!(store.zones[0].bytes.as_ptr(), first);
        store.read(0, 0, &mut buf[..512]);
        assert!(buf[..512].iter().all(|&b| b == 0));
    }

    #[test]
    fn zeros_appended_to_a_reused_buffer_read_as_zeros() {
        let mut store = ZoneStore::new(2, 8192);
        store.append(0, 8192, Some(&pattern(8192, 5)));
        store.clear(0);
        // Zone 1 takes zone 0's buffer: its old bytes must not show through.
        store.append(1, 4096, None);
        store.append(1, 1024, Some(&pattern(1024, 9)));
        let mut buf = vec![0xFF; 8192];
        store.read(1, 0, &mut buf);
        assert!(buf[..4096].iter().all(|&b| b == 0));
        assert_eq!(&buf[4096..5120], &pattern(1024, 9)[..]);
        assert!(buf[5120..].iter().all(|&b| b == 0));
        assert_eq!(store.bytes(1).len(), 5120);
    }

    /// Regression (issue 36, defect 8): a zone took a buffer of its whole capacity at its first
    /// write (1 GiB zones: 1 GiB of address space for 4 KiB of data), so a 5.7 MB run aborted
    /// under a 4 GiB address-space limit. Memory now follows the data written.
    #[test]
    fn retained_memory_follows_the_data_not_the_capacity() {
        let mut store = ZoneStore::new(4, 1 << 30);
        store.append(2, 4096, Some(&pattern(4096, 4)));
        assert!(store.zones[2].bytes.capacity() < 1 << 20);
        assert_eq!(store.zones[0].bytes.capacity(), 0);
        for _ in 0..100 {
            store.append(2, 4096, None);
        }
        assert!(store.zones[2].bytes.capacity() <= 2 * 101 * 4096);
    }

    #[test]
    #[should_panic(expected = "beyond the zone's capacity")]
    fn writing_past_capacity_is_a_bug() {
        let mut store = ZoneStore::new(1, 4096);
        store.append(0, 4096, None);
        store.append(0, 512, None);
    }
}
