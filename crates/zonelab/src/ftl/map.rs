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
        Map {
            l2p: vec![0; logical_units as usize],
            p2l: vec![0; physical_units as usize],
            valid: vec![0; physical_units.div_ceil(64) as usize],
        }
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

    /// Logical unit `lpn` holds no data (trimmed; its slot was invalidated).
    #[inline]
    pub fn clear(&mut self, lpn: u32) {
        self.l2p[lpn as usize] = 0;
    }

    /// Slots `first..first + count` are erased.
    pub fn erase(&mut self, first: u32, count: u32) {
        for slot in first..first + count {
            self.invalidate(slot);
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
}
