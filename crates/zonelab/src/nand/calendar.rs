//! A shared resource's calendar: the busy intervals of a channel or of one direction of the host
//! link, so a transfer takes the earliest gap at or after the time its data is ready. A single
//! "next free" time would make a transfer from an idle die wait behind one booked later for a
//! busy die, serialising independent dies (the head-of-line artifact the old model had).
//!
//! Intervals are kept sorted, disjoint and merged when they touch; those that end at or before
//! the horizon (the time of the command being served: nothing can be ready earlier) are dropped.
//! Placing a transfer finds the first interval ending after the data is ready (a short scan back
//! from the end, then a binary search) and walks over the gaps too short for it; in the common
//! case (the resource is busy in one stretch up to some time) it extends the last interval.

use crate::time::{Duration, Instant};

/// Intervals looked at from the end before a binary search takes over (so a placement stays
/// O(log n) in the intervals held).
const BACKWARD_SCAN: usize = 8;

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Calendar {
    /// (start, end) in ns, sorted, disjoint, never touching; those before `head` are gone.
    busy: Vec<(u64, u64)>,
    head: usize,
}

impl Calendar {
    /// Books `len` at the earliest time at or after `ready` when the resource is free for that
    /// long, forgetting intervals that end at or before `horizon`. Returns the start.
    #[inline]
    pub fn reserve(&mut self, ready: Instant, len: Duration, horizon: Instant) -> Instant {
        debug_assert!(
            ready >= horizon,
            "ready {ready:?} before the horizon {horizon:?}"
        );
        let (ready, len) = (ready.ns(), len.ns());
        if len == 0 {
            return Instant::from_ns(ready);
        }
        self.forget(horizon.ns());
        let n = self.busy.len();
        // Fast paths: free from `ready` on, or busy in one stretch from before `ready`.
        if self.head == n {
            self.busy.push((ready, ready + len));
            return Instant::from_ns(ready);
        }
        let last = &mut self.busy[n - 1];
        if last.1 <= ready {
            if last.1 == ready {
                last.1 += len;
            } else {
                self.busy.push((ready, ready + len));
            }
            return Instant::from_ns(ready);
        }
        if last.0 <= ready {
            // Every earlier interval ends before this one starts, so before `ready`.
            let start = last.1;
            last.1 += len;
            return Instant::from_ns(start);
        }
        // The first interval ending after `ready` (ends increase with the index). Transfers are
        // booked about in the order their data is ready, so it is usually a few intervals back
        // from the end: look there first (on rezns-40g random reads, 10% faster than a binary
        // search, whose steps depend on each other), and search the rest only past that.
        // (The last interval ends after `ready`: the fast paths above took the other cases.)
        let before_last = &self.busy[self.head..n - 1];
        let near = before_last.len().saturating_sub(BACKWARD_SCAN);
        let mut k = self.head
            + match before_last[near..].iter().rposition(|iv| iv.1 <= ready) {
                Some(i) => near + i + 1,
                None => before_last[..near].partition_point(|iv| iv.1 <= ready),
            };
        // Then the first gap from there that is long enough.
        let mut t = ready;
        while k < n && self.busy[k].0 < t + len {
            t = t.max(self.busy[k].1);
            k += 1;
        }
        self.insert(k, t, t + len);
        Instant::from_ns(t)
    }

    /// Drops intervals that ended by `horizon`. Usually none or one has (about as many end as
    /// are booked between two commands), and whether one has is a coin toss to the branch
    /// predictor, so the first two are counted without a branch (ends increase: those ended are
    /// a prefix) and only a longer run loops. The state left is the same as dropping them one
    /// by one.
    #[inline]
    fn forget(&mut self, horizon: u64) {
        let gone = match &self.busy[self.head..] {
            [a, b, ..] => (a.1 <= horizon) as usize + (b.1 <= horizon) as usize,
            [a] => (a.1 <= horizon) as usize,
            [] => return,
        };
        self.head += gone;
        if gone == 2 {
            while self.head < self.busy.len() && self.busy[self.head].1 <= horizon {
                self.head += 1;
            }
        }
        if self.head == self.busy.len() {
            // (Something was dropped: the calendar held intervals.)
            self.busy.clear();
            self.head = 0;
        } else if self.head >= 64 && gone > 0 && self.head * 2 >= self.busy.len() {
            self.busy.drain(..self.head);
            self.head = 0;
        }
    }

    /// Inserts [start, end) before index `i`, merging with neighbours it touches.
    fn insert(&mut self, i: usize, start: u64, end: u64) {
        let joins_prev = i > self.head && self.busy[i - 1].1 == start;
        let joins_next = i < self.busy.len() && self.busy[i].0 == end;
        match (joins_prev, joins_next) {
            (true, true) => {
                self.busy[i - 1].1 = self.busy[i].1;
                self.busy.remove(i);
            }
            (true, false) => self.busy[i - 1].1 = end,
            (false, true) => self.busy[i].0 = start,
            (false, false) => self.busy.insert(i, (start, end)),
        }
    }

    /// When the last booked interval ends.
    pub fn end(&self) -> Instant {
        Instant::from_ns(self.live().last().map_or(0, |iv| iv.1))
    }

    fn live(&self) -> &[(u64, u64)] {
        &self.busy[self.head..]
    }

    /// Intervals held (for tests and memory checks).
    pub fn len(&self) -> usize {
        self.busy.len() - self.head
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The invariant [`Calendar::check`] asserts, as a test (for calendars read from a file).
    pub fn well_formed(&self) -> bool {
        self.head <= self.busy.len()
            && self.live().windows(2).all(|w| w[0].1 < w[1].0)
            && self.live().iter().all(|iv| iv.0 < iv.1)
    }

    /// Checks the calendar's invariant: sorted, disjoint, not touching, non-empty intervals.
    pub fn check(&self) {
        for w in self.live().windows(2) {
            assert!(
                w[0].1 < w[1].0,
                "calendar intervals overlap or touch: {w:?}"
            );
        }
        assert!(self.live().iter().all(|iv| iv.0 < iv.1), "empty interval");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn t(ns: u64) -> Instant {
        Instant::from_ns(ns)
    }
    fn d(ns: u64) -> Duration {
        Duration::from_ns(ns)
    }

    #[test]
    fn a_transfer_takes_the_earliest_gap() {
        let mut c = Calendar::default();
        assert_eq!(c.reserve(t(100), d(10), t(0)), t(100));
        // Booked for later first, then an earlier transfer still fits before it.
        assert_eq!(c.reserve(t(0), d(10), t(0)), t(0));
        assert_eq!(
            c.reserve(t(50), d(60), t(0)),
            t(110),
            "the gap 50..100 is too short"
        );
        assert_eq!(c.reserve(t(10), d(40), t(0)), t(10), "exactly fills 10..50");
        assert_eq!(c.len(), 2, "0..50 merged, 100..170 merged: {c:?}");
        assert_eq!(c.reserve(t(0), d(50), t(0)), t(50), "exactly fills 50..100");
        assert_eq!(c.len(), 1, "touching intervals merge: {c:?}");
        assert_eq!(c.end(), t(170));
        c.check();
    }

    #[test]
    fn a_transfer_ready_far_back_takes_the_earliest_gap() {
        // 20 intervals 10 long every 20 ns; a transfer ready at 5 is past the backward scan.
        let mut c = Calendar::default();
        for k in 0..20 {
            c.reserve(t(20 * k + 100), d(10), t(0));
        }
        assert_eq!(c.reserve(t(105), d(10), t(0)), t(110), "the gap 110..120");
        assert_eq!(
            c.reserve(t(105), d(15), t(0)),
            t(490),
            "no gap of 15 before the end"
        );
        assert_eq!(c.reserve(t(5), d(10), t(0)), t(5), "before everything");
        c.check();
    }

    #[test]
    fn the_horizon_forgets_the_past() {
        let mut c = Calendar::default();
        c.reserve(t(0), d(10), t(0));
        c.reserve(t(20), d(10), t(0));
        c.reserve(t(40), d(10), t(25));
        assert_eq!(c.len(), 2, "0..10 ended before the horizon");
        // Several ended at once: all of them go.
        let mut c = Calendar::default();
        for s in [0, 20, 40, 60] {
            c.reserve(t(s), d(10), t(0));
        }
        assert_eq!(c.reserve(t(65), d(10), t(65)), t(70));
        assert_eq!(c.len(), 1, "only 60..80 is left: {c:?}");
    }

    proptest! {
        /// Against a brute-force reference: a bitmap of busy nanoseconds.
        #[test]
        fn matches_a_busy_bitmap(ops in prop::collection::vec((0u64..200, 1u64..30, 0u64..20), 1..120)) {
            let mut c = Calendar::default();
            let mut busy = vec![false; 4000];
            let mut horizon = 0;
            for (ready, len, step) in ops {
                horizon += step;
                let ready = horizon + ready;
                let start = c.reserve(t(ready), d(len), t(horizon)).ns();
                let expect = (ready..).find(|&s| (s..s + len).all(|x| !busy[x as usize])).unwrap();
                prop_assert_eq!(start, expect);
                // Everything that ended by the horizon is gone, however many ended at once.
                prop_assert!(c.live().first().is_some_and(|iv| iv.1 > horizon), "{:?}", c);
                for x in start..start + len {
                    busy[x as usize] = true;
                }
                c.check();
            }
        }
    }
}
