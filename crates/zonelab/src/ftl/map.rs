//! The two mapping tables: logical unit -> physical slot (the DRAM table a drive keeps) and
//! physical slot -> logical unit (what a drive writes in each page's spare area, read back by
//! garbage collection). Entries are stored plus one, so zero means "none" and a fresh table is
//! zeroed memory the kernel backs only as entries are written: a 4 TB device's table costs
//! address space at once and resident memory as its units are written.
//!
//! A slot is valid when the logical unit it names still maps to it; overwrites and trims only
//! change the forward table, so stale reverse entries need no clean-up.

pub(super) struct Map {
    l2p: Vec<u32>,
    p2l: Vec<u32>,
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
        }
    }

    /// Where logical unit `lpn` lives, if it holds data.
    #[inline]
    pub fn get(&self, lpn: u32) -> Option<u32> {
        self.l2p[lpn as usize].checked_sub(1)
    }

    /// Logical unit `lpn` now lives in `slot`.
    #[inline]
    pub fn set(&mut self, lpn: u32, slot: u32) {
        self.l2p[lpn as usize] = slot + 1;
        self.p2l[slot as usize] = lpn + 1;
    }

    /// Logical unit `lpn` holds no data (trimmed).
    #[inline]
    pub fn clear(&mut self, lpn: u32) {
        self.l2p[lpn as usize] = 0;
    }

    /// The logical unit whose current data is in `slot`, if the slot is valid.
    #[inline]
    pub fn owner(&self, slot: u32) -> Option<u32> {
        let lpn = self.p2l[slot as usize].checked_sub(1)?;
        (self.l2p[lpn as usize] == slot + 1).then_some(lpn)
    }

    pub fn logical_units(&self) -> u64 {
        self.l2p.len() as u64
    }
}
