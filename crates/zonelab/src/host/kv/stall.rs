//! Write stalls: RocksDB's write controller (db/column_family.cc
//! `GetWriteStallConditionAndCause`, db/write_controller.cc `GetDelay`). Writes stop while
//! too many memtables wait for a flush, L0 holds `level0_stop_writes_trigger` files or the
//! compaction debt passes the hard limit; they are delayed to `delayed_write_rate` while one
//! memtable short of that (with more than three allowed), L0 holds
//! `level0_slowdown_writes_trigger` files or the debt passes the soft limit. RocksDB also
//! lowers the delayed rate while the debt grows; here it stays at `delayed_write_rate`
//! (chosen simplification).

use super::options::KvOptions;
use super::version::Version;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Stall {
    #[default]
    Normal,
    Delayed,
    Stopped,
}

/// The condition for `unflushed` immutable memtables and the tree `v`; and whether
/// compactions may run in parallel (`NeedSpeedupCompaction`).
pub fn condition(opts: &KvOptions, unflushed: usize, v: &Version) -> (Stall, bool) {
    let l0 = v.levels[0].len() as u32;
    let debt = v.estimated_compaction_bytes(opts);
    let mwb = opts.max_write_buffer_number as usize;
    let stall = if unflushed >= mwb
        || l0 >= opts.level0_stop_writes_trigger
        || (opts.hard_pending_compaction_bytes_limit > 0
            && debt >= opts.hard_pending_compaction_bytes_limit)
    {
        Stall::Stopped
    } else if (mwb > 3
        && unflushed >= mwb - 1
        && unflushed > opts.min_write_buffer_number_to_merge as usize)
        || l0 >= opts.level0_slowdown_writes_trigger
        || (opts.soft_pending_compaction_bytes_limit > 0
            && debt >= opts.soft_pending_compaction_bytes_limit)
    {
        Stall::Delayed
    } else {
        Stall::Normal
    };
    let speedup = stall != Stall::Normal
        || l0 >= opts.l0_speedup_threshold()
        || debt >= opts.soft_pending_compaction_bytes_limit / 4;
    (stall, speedup)
}

/// The delayed-write token bucket: credit refilled every millisecond at the delayed rate.
#[derive(Clone, Debug, Default)]
pub struct Controller {
    credit: u64,
    next_refill_ns: Option<u64>,
}

const REFILL_NS: u64 = 1_000_000;

impl Controller {
    /// How long a write of `bytes` at `now_ns` waits, at `rate` bytes per second.
    pub fn delay(&mut self, now_ns: u64, bytes: u64, rate: u64) -> u64 {
        if self.credit >= bytes {
            self.credit -= bytes;
            return 0;
        }
        let next = *self.next_refill_ns.get_or_insert(now_ns);
        if next <= now_ns {
            let elapsed = now_ns - next + REFILL_NS;
            self.credit += (elapsed as u128 * rate as u128).div_ceil(1_000_000_000) as u64;
            self.next_refill_ns = Some(now_ns + REFILL_NS);
            if self.credit >= bytes {
                self.credit -= bytes;
                return 0;
            }
        }
        let over = bytes - self.credit;
        let needed = (over as u128 * 1_000_000_000 / rate as u128) as u64;
        self.credit = 0;
        let next = self.next_refill_ns.expect("set above") + needed;
        self.next_refill_ns = Some(next);
        next.saturating_sub(now_ns).max(REFILL_NS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delayed_writes_go_at_the_rate() {
        let mut c = Controller::default();
        let rate = 8 << 20;
        let mut now = 0u64;
        let mut bytes = 0u64;
        for _ in 0..100_000 {
            now += c.delay(now, 131, rate);
            bytes += 131;
        }
        let achieved = bytes as f64 / (now as f64 / 1e9);
        assert!(
            (achieved / rate as f64 - 1.0).abs() < 0.05,
            "{achieved} B/s against {rate}"
        );
    }
}
