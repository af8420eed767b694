//! Dies that run slower for a while (a run-time fault, [`crate::device::faults`]): each
//! operation booked on such a die takes its sensing, program or erase time times the die's
//! factor. Empty (every die at full speed) costs one check per operation.

use crate::time::Duration;

/// Per die, the factor its operations take, in thousandths (1000: full speed).
#[derive(Clone, Debug, Default)]
pub struct Slowdown {
    permille: Vec<u32>,
}

impl Slowdown {
    /// Operations booked on `die` from now on take `permille` / 1000 times as long.
    pub fn set(&mut self, dies: u32, die: u32, permille: u32) {
        if self.permille.is_empty() {
            if permille == 1000 {
                return;
            }
            self.permille = vec![1000; dies as usize];
        }
        self.permille[die as usize] = permille;
    }

    /// `t` on `die`.
    #[inline]
    pub fn scale(&self, die: u32, t: Duration) -> Duration {
        match self.permille.get(die as usize) {
            None | Some(1000) => t,
            Some(&p) => Duration::from_ns((t.ns() as u128 * p as u128 / 1000) as u64),
        }
    }
}
