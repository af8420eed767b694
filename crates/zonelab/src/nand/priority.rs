//! Read priority (off by default; `[device.timing] read_priority = true`): a die serves a read
//! that arrives while programs are queued on it before those programs, after the operation in
//! progress (a program is never interrupted; an erase is, only with erase suspend).
//!
//! Work is booked on a die when it is submitted, so each die keeps the die time of the programs
//! booked on it that have not ended. A read that overtakes them is sensed at the end of what is
//! in progress (or of the reads and erases ahead of it), and the queued programs move later by
//! what the read took; their channel transfers stay where they were booked (the data waits in
//! the die's register). Completion times are fixed at submission, so a write already told that
//! its program ends at T (no write buffer), or a write-buffer or cache slot booked to free at T,
//! is not revised when a read later pushes that program back: the device counts each push
//! (`programs_pushed`) and their sum (`program_push_ns`), which bound that optimism and appear
//! in the run's summary.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::Nand;
use crate::time::{Duration, Instant};

/// The die time `[start, end)` of the programs booked on one die that have not ended, in
/// booking (and time) order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct ProgramQueue {
    booked: VecDeque<(u64, u64)>,
}

/// What overtaking the queued programs did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Pushed {
    /// When the last program on the die now ends (the die's new free time), if any moved.
    pub tail_end: Option<u64>,
    pub programs: u64,
    pub total_ns: u64,
}

impl ProgramQueue {
    /// Forgets programs that ended by `horizon` (nothing later is ready before it).
    fn prune(&mut self, horizon: u64) {
        while self.booked.front().is_some_and(|&(_, end)| end <= horizon) {
            self.booked.pop_front();
        }
    }

    /// A program holds the die over `[start, end)`.
    pub fn book(&mut self, start: u64, end: u64, horizon: u64) {
        self.prune(horizon);
        debug_assert!(self.booked.back().is_none_or(|&(_, e)| e <= start));
        self.booked.push_back((start, end));
    }

    /// The end of the program in progress at `t` (started at or before it, not ended).
    pub fn in_progress_end(&mut self, t: u64, horizon: u64) -> Option<u64> {
        self.prune(horizon);
        self.booked
            .iter()
            .find(|&&(_, end)| end > t)
            .filter(|&&(start, _)| start <= t)
            .map(|&(_, end)| end)
    }

    /// A read holds the die over `[from, until)`: every program starting at or after `from`
    /// starts no earlier than the one before it ends (the first no earlier than `until`),
    /// keeping its length.
    pub fn push_back(&mut self, from: u64, until: u64) -> Pushed {
        let mut pushed = Pushed::default();
        let mut cursor = until;
        for slot in self.booked.iter_mut().filter(|(start, _)| *start >= from) {
            let (start, end) = *slot;
            let moved = start.max(cursor);
            if moved > start {
                pushed.programs += 1;
                pushed.total_ns += moved - start;
            }
            *slot = (moved, moved + (end - start));
            cursor = moved + (end - start);
            pushed.tail_end = Some(cursor);
        }
        pushed
    }

    /// Programs are in time order and never overlap (tests).
    pub fn check(&self) {
        for w in self.booked.iter().collect::<Vec<_>>().windows(2) {
            assert!(w[0].0 < w[0].1 && w[0].1 <= w[1].0, "program queue {w:?}");
        }
    }

    /// When the last booked program ends.
    pub fn last_end(&self) -> Option<u64> {
        self.booked.back().map(|&(_, end)| end)
    }
}

impl Nand {
    /// Read priority: a read ready at `ready` on die `d` while work is booked ahead of it goes
    /// before the queued programs, after what is in progress and the reads and erases ahead.
    /// None when nothing queued is a program it can overtake.
    pub(super) fn read_ahead_of_programs(
        &mut self,
        ready: Instant,
        d: usize,
        ch: usize,
        xfer: Duration,
        tr: Duration,
    ) -> Option<Instant> {
        let horizon = self.horizon.ns();
        let die = self.dies[d];
        let queue = &mut self.programs[d];
        let begin = ready
            .ns()
            .max(die.erase_end)
            .max(die.read_end)
            .max(queue.in_progress_end(ready.ns(), horizon).unwrap_or(0));
        if begin >= die.free {
            return None;
        }
        // Only programs are booked after `begin`: they move back by what the read takes (its
        // sensing, and without cache read the transfer too).
        let sensed = begin + tr.ns();
        let out = Instant::from_ns(sensed.max(die.read_out));
        let end = self.channels[ch].reserve(out, xfer, self.horizon) + xfer;
        let held = if self.timing.cache_read {
            sensed
        } else {
            end.ns()
        };
        let pushed = queue.push_back(begin, held);
        let free = pushed.tail_end.unwrap_or(held).max(die.free);
        let die = &mut self.dies[d];
        die.free = free;
        die.cache_free = die.cache_free.max(free).max(end.ns());
        die.read_end = sensed;
        die.read_out = end.ns();
        self.counters.programs_pushed += pushed.programs;
        self.counters.program_push_ns += pushed.total_ns;
        self.idle = self.idle.max(die.cache_free);
        Some(end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_waits_for_the_program_in_progress_and_pushes_the_queued_ones() {
        let mut q = ProgramQueue::default();
        q.book(0, 100, 0);
        q.book(100, 200, 0);
        q.book(250, 350, 0);
        assert_eq!(q.in_progress_end(50, 0), Some(100));
        assert_eq!(
            q.in_progress_end(220, 0),
            None,
            "a gap: nothing in progress"
        );
        // A read sensed over [100, 110): the second program moves to [110, 210); the third
        // keeps its start, the gap absorbing the push.
        let p = q.push_back(100, 110);
        assert_eq!((p.programs, p.total_ns, p.tail_end), (1, 10, Some(350)));
        assert_eq!(q.last_end(), Some(350));
        // A longer read over [210, 260) pushes the third program by 10.
        let p = q.push_back(210, 260);
        assert_eq!((p.programs, p.total_ns, p.tail_end), (1, 10, Some(360)));
        q.check();
        // Programs that ended by the horizon are forgotten.
        assert_eq!(q.in_progress_end(300, 300), Some(360));
        assert_eq!(q.booked.len(), 1);
    }
}
