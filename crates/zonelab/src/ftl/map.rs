//! The two mapping tables: logical unit -> physical slot (the DRAM table a drive keeps) and
//! physical slot -> logical unit (what a drive writes in each page's spare area, read back by
//! garbage collection). Entries are stored plus one, so zero means "none" and a fresh table is
//! zeroed memory the kernel backs only as entries are written: a 4 TB device's table costs
//! address space at once and resident memory as its units are written.
//!
//! A slot is valid when the logical unit it names still maps to it. A bitmap of valid slots (one
//! bit per slot, 1/32 of the reverse table) says so without touching the forward table, so
//! garbage collection scans a victim's slots sequentially and loads forward entries only for the
//! units it moves.

pub(super) struct Map {
    l2p: Vec<u32>,
    p2l: Vec<u32>,
    valid: Vec<u64>,
}

impl Map {
    pub fn new(logical_units: u64, physical_units: u64) -> Self {
        assert!(
            physical_units < u32::MAX as u64 && logical_units <= physical_units,
            "map sizes are checked by config"
        );
        let map = Map {
            l2p: vec![0; logical_units as usize],
            p2l: vec![0; physical_units as usize],
            valid: vec![0; physical_units.div_ceil(64) as usize],
        };
        huge_pages(&map.l2p);
        huge_pages(&map.p2l);
        huge_pages(&map.valid);
        map
    }

    /// Where logical unit `lpn` lives, if it holds data.
    #[inline]
    pub fn get(&self, lpn: u32) -> Option<u32> {
        self.l2p[lpn as usize].checked_sub(1)
    }

    /// Logical unit `lpn` now lives in `slot` (its old slot, if any, was invalidated).
    #[inline]
    pub fn set(&mut self, lpn: u32, slot: u32) {
        self.l2p[lpn as usize] = slot + 1;
        self.p2l[slot as usize] = lpn + 1;
        self.valid[(slot / 64) as usize] |= 1 << (slot % 64);
    }

    /// `slot` no longer holds current data (its unit was overwritten or trimmed).
    #[inline]
    pub fn invalidate(&mut self, slot: u32) {
        self.valid[(slot / 64) as usize] &= !(1 << (slot % 64));
    }

    /// Starts loading `lpn`'s forward entry into the CPU cache (nothing if out of range).
    #[inline]
    pub fn prefetch(&self, lpn: u32) {
        if let Some(entry) = self.l2p.get(lpn as usize) {
            crate::prefetch::prefetch(entry);
        }
    }

    /// Logical unit `lpn` holds no data (trimmed; its slot was invalidated).
    #[inline]
    pub fn clear(&mut self, lpn: u32) {
        self.l2p[lpn as usize] = 0;
    }

    /// Slots `first..first + count` are erased: their valid bits cleared a word at a time.
    pub fn erase(&mut self, first: u32, count: u32) {
        let (mut slot, end) = (first, first + count);
        while slot < end {
            let (word, bit) = ((slot / 64) as usize, slot % 64);
            let n = (64 - bit).min(end - slot);
            let bits = if n == 64 {
                !0
            } else {
                ((1u64 << n) - 1) << bit
            };
            self.valid[word] &= !bits;
            slot += n;
        }
    }

    /// The logical unit whose current data is in `slot`, if the slot is valid.
    #[inline]
    pub fn owner(&self, slot: u32) -> Option<u32> {
        if self.valid[(slot / 64) as usize] & (1 << (slot % 64)) == 0 {
            return None;
        }
        let lpn = self.p2l[slot as usize] - 1;
        debug_assert_eq!(
            self.l2p[lpn as usize],
            slot + 1,
            "valid bit of a stale slot"
        );
        Some(lpn)
    }

    /// The valid bits of slots `first..first + n` (`1 <= n <= 64`), the first in bit 0.
    #[inline]
    pub fn valid_bits(&self, first: u32, n: u32) -> u64 {
        debug_assert!((1..=64).contains(&n));
        let (word, bit) = ((first / 64) as usize, first % 64);
        let mut bits = self.valid[word] >> bit;
        if bit + n > 64 {
            bits |= self.valid[word + 1] << (64 - bit);
        }
        if n < 64 { bits & ((1 << n) - 1) } else { bits }
    }

    /// The valid bits of the `n` slots from `first`, which lie in one word (`first % 64 + n <=
    /// 64`), masked by `mask` (`n` ones).
    #[inline]
    pub fn valid_bits_in_word(&self, first: u32, mask: u64) -> u64 {
        (self.valid[(first / 64) as usize] >> (first % 64)) & mask
    }

    /// The logical unit whose current data is in `slot`, known to be valid.
    #[inline]
    pub fn owner_of_valid(&self, slot: u32) -> u32 {
        debug_assert_eq!(self.owner(slot), Some(self.p2l[slot as usize] - 1));
        self.p2l[slot as usize] - 1
    }

    /// The valid bit agrees with the forward table (tests).
    pub fn consistent(&self, slot: u32) -> bool {
        let by_bit = self.valid[(slot / 64) as usize] & (1 << (slot % 64)) != 0;
        let by_table = self.p2l[slot as usize]
            .checked_sub(1)
            .is_some_and(|lpn| self.l2p[lpn as usize] == slot + 1);
        by_bit == by_table
    }

    pub fn logical_units(&self) -> u64 {
        self.l2p.len() as u64
    }

    /// The forward table as runs of mapped units: (first unit, its entries, slot + 1 each). The
    /// rest of the map follows from it (a state file keeps only this).
    pub fn runs(&self) -> Vec<(u32, &[u32])> {
        let mut out = Vec::new();
        let mut lpn = 0;
        while lpn < self.l2p.len() {
            if self.l2p[lpn] == 0 {
                lpn += 1;
                continue;
            }
            let end = self.l2p[lpn..]
                .iter()
                .position(|&e| e == 0)
                .map_or(self.l2p.len(), |k| lpn + k);
            out.push((lpn as u32, &self.l2p[lpn..end]));
            lpn = end;
        }
        out
    }

    /// The map of `runs` ([`Map::runs`]): each unit at its slot, valid. Errors name a unit or
    /// slot out of range, or two units in one slot.
    pub fn from_runs(
        logical_units: u64,
        physical_units: u64,
        runs: &[(u32, Vec<u32>)],
    ) -> Result<Map, String> {
        let mut map = Map::new(logical_units, physical_units);
        for (first, entries) in runs {
            if *first as u64 + entries.len() as u64 > logical_units {
                return Err(format!(
                    "map entries for units {first}..{} of {logical_units}",
                    *first as u64 + entries.len() as u64
                ));
            }
            for (k, &entry) in entries.iter().enumerate() {
                let lpn = first + k as u32;
                let Some(slot) = entry
                    .checked_sub(1)
                    .filter(|&s| (s as u64) < physical_units)
                else {
                    return Err(format!(
                        "unit {lpn}: slot entry {entry} of {physical_units}"
                    ));
                };
                if map.p2l[slot as usize] != 0 || map.l2p[lpn as usize] != 0 {
                    return Err(format!("unit {lpn}: slot {slot} held twice"));
                }
                map.set(lpn, slot);
            }
        }
        Ok(map)
    }
}

/// Asks the kernel to back `table` with transparent huge pages where it can (Linux; a hint that
/// changes nothing the program computes). A fresh device's random writes touch a 4 KiB page of
/// the forward table per few writes: with 4 KiB pages each first touch is a page fault and most
/// writes a TLB miss; with 2 MiB pages a 512 GiB device's table takes 256 faults.
pub(crate) fn huge_pages<T>(table: &[T]) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = table.as_ptr() as usize;
        let end = start + std::mem::size_of_val(table);
        let aligned = start.next_multiple_of(PAGE);
        if end >= aligned + (2 << 20) {
            // SAFETY: the range lies inside `table`'s allocation, page-aligned; MADV_HUGEPAGE
            // changes how the kernel backs it, never its contents. A failure leaves 4 KiB pages.
            unsafe {
                libc::madvise(
                    aligned as *mut libc::c_void,
                    (end - aligned) / PAGE * PAGE,
                    libc::MADV_HUGEPAGE,
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = table;
}

#[cfg(test)]
mod tests {
    use super::Map;

    #[test]
    fn valid_bits_and_erase_agree_with_slot_by_slot_validity() {
        let mut map = Map::new(300, 300);
        for slot in (0..300).filter(|s| s % 3 != 1) {
            map.set(slot, slot);
        }
        let bit = |map: &Map, s: u32| map.owner(s).is_some() as u64;
        for (first, n) in [(0, 64), (60, 8), (61, 64), (127, 1), (200, 33)] {
            let want = (0..n).fold(0, |acc, i| acc | bit(&map, first + i) << i);
            assert_eq!(map.valid_bits(first, n), want, "{n} slots from {first}");
        }
        assert_eq!(map.valid_bits_in_word(8, 0xff), 0b1101_1011);
        map.erase(30, 150);
        for slot in 0..300 {
            let kept = slot % 3 != 1 && !(30..180).contains(&slot);
            assert_eq!(map.owner(slot).is_some(), kept, "slot {slot}");
        }
    }
}
