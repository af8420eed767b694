//! A shared resource's calendar: the busy intervals of a channel or of one direction of the host
//! link, so a transfer takes the earliest gap at or after the time its data is ready. A single
//! "next free" time would make a transfer from an idle die wait behind one booked later for a
//! busy die, serialising independent dies (the head-of-line artifact the old model had).
//!
//! Intervals are kept sorted and disjoint, merged when they touch. Each booking comes with a
//! horizon (the time of the command being served: nothing can be ready earlier), and intervals
//! that end by it are over. They are dropped when the vector holding them is full rather than at
//! each booking: until then they sit at the front, where no placement looks at them (a placement
//! only sees intervals ending after the time its data is ready), so where a transfer goes is the
//! same as if they had gone at once. Only a new interval that would touch one is not merged with
//! it. When the last interval is over, every one is, and they all go at the next booking (a
//! resource idle between commands holds one interval, not a vector of them).
//!
//! Placing a transfer finds the first interval ending after the data is ready (a short scan back
//! from the end, then a binary search) and walks over the gaps too short for it; in the common
//! case (the resource is busy in one stretch up to some time) it extends the last interval.

use crate::time::{Duration, Instant};

/// Intervals looked at from the end before a binary search takes over (so a placement stays
/// O(log n) in the intervals held).
const BACKWARD_SCAN: usize = 8;

/// The room a calendar's vector starts with (chosen: 512 bytes). Intervals that are over are
/// dropped only when it is full, so with a few intervals not over that is every few dozen
/// bookings rather than every few (at `Vec`'s first capacity of 4, S1's calendars dropped them
/// 52,053 times in 200,000 writes).
const MIN_CAPACITY: usize = 32;

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(from = "CalendarFile", into = "CalendarFile")]
pub struct Calendar {
    /// (start, end) in ns, sorted, disjoint, never touching unless the earlier of the two is
    /// over.
    busy: Vec<(u64, u64)>,
    /// The horizon of the last booking in ns: intervals ending by then are over, dropped or
    /// not. (A calendar is saved with those dropped, so a state file does not keep it: 0,
    /// nothing over, on loading.)
    horizon_ns: u64,
    /// Where the last search placed a transfer: a guess for the next (checked before use, so
    /// it changes where nothing goes). A conventional SSD's garbage collection books one
    /// page's read and program after another, each ready at about the same time far behind
    /// the bookings its host writes made; without the guess each took a binary search.
    hint: usize,
}

impl Calendar {
    /// Books `len` at the earliest time at or after `ready` when the resource is free for that
    /// long; intervals that end at or before `horizon` are over. Returns the start.
    #[inline]
    pub fn reserve(&mut self, ready: Instant, len: Duration, horizon: Instant) -> Instant {
        debug_assert!(
            ready >= horizon,
            "ready {ready:?} before the horizon {horizon:?}"
        );
        // (What is over stays over: a horizon going back would make it count again.)
        debug_assert!(
            horizon.ns() >= self.horizon_ns,
            "the horizon went back from {} to {horizon:?}",
            self.horizon_ns
        );
        let (ready, len) = (ready.ns(), len.ns());
        if len == 0 {
            return Instant::from_ns(ready);
        }
        self.horizon_ns = horizon.ns();
        if self.busy.len() == self.busy.capacity() {
            // (Before the search: dropping moves the intervals.)
            self.forget();
        }
        let n = self.busy.len();
        // Fast paths: free from `ready` on, or busy in one stretch from before `ready`.
        if n == 0 {
            self.busy.push((ready, ready + len));
            return Instant::from_ns(ready);
        }
        let last = &mut self.busy[n - 1];
        if last.1 <= ready {
            if last.1 <= self.horizon_ns {
                // The last interval is over, so every one is: they go now, not later (and the
                // extend below cannot join one that is over when `ready` is the horizon).
                self.busy.clear();
                self.busy.push((ready, ready + len));
            } else if last.1 == ready {
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
        Instant::from_ns(self.place_in_gaps(ready, len))
    }

    /// Books `len` ns in the first gap long enough at or after `ready` (in ns) when the last
    /// interval ends after `ready`, the case the fast paths of [`Self::reserve`] leave; returns
    /// the start in ns.
    #[inline]
    fn place_in_gaps(&mut self, ready: u64, len: u64) -> u64 {
        let n = self.busy.len();
        // The first interval ending after `ready` (ends increase with the index). Transfers are
        // booked about in the order their data is ready, so it is usually a few intervals back
        // from the end: look there first (faster than a binary search, whose steps depend on
        // each other: BENCHMARKS.md, "What the hot path does"), and search the rest only past
        // that.
        // (The last interval ends after `ready`: the fast paths in `reserve` took the others.)
        let before_last = &self.busy[..n - 1];
        let near = before_last.len().saturating_sub(BACKWARD_SCAN);
        let h = self.hint;
        let mut k = match before_last[near..].iter().rposition(|iv| iv.1 <= ready) {
            Some(i) => near + i + 1,
            // The last search's place, if it is this one's: the first interval ending after
            // `ready` (ends increase, so that place is unique).
            None if h < near
                && before_last[h].1 > ready
                && (h == 0 || before_last[h - 1].1 <= ready) =>
            {
                h
            }
            None => before_last[..near].partition_point(|iv| iv.1 <= ready),
        };
        self.hint = k;
        // Then the first gap from there that is long enough.
        let mut t = ready;
        while k < n && self.busy[k].0 < t + len {
            t = t.max(self.busy[k].1);
            k += 1;
        }
        self.insert(k, t, t + len);
        t
    }

    /// Drops the intervals that are over (ends increase: they are a prefix), when the vector is
    /// full. If they are under a quarter of it, the next booking lets it grow instead: either
    /// way the work is paid for by at least a quarter of its length in bookings.
    #[cold]
    fn forget(&mut self) {
        if self.busy.capacity() < MIN_CAPACITY {
            self.busy.reserve_exact(MIN_CAPACITY - self.busy.len());
            return;
        }
        let over = self.busy.partition_point(|iv| iv.1 <= self.horizon_ns);
        if over * 4 >= self.busy.len() {
            self.busy.drain(..over);
        }
    }

    /// Inserts [start, end) before index `i`, merging with neighbours it touches (not with one
    /// that is over: it ends by the horizon, and `start` is at or after it).
    fn insert(&mut self, i: usize, start: u64, end: u64) {
        let joins_prev = i > 0 && self.busy[i - 1].1 == start && start > self.horizon_ns;
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

    /// When the last booked interval ends (0 if none is booked).
    pub fn end(&self) -> Instant {
        Instant::from_ns(self.live().last().map_or(0, |iv| iv.1))
    }

    /// The intervals not over.
    fn live(&self) -> &[(u64, u64)] {
        &self.busy[self.busy.partition_point(|iv| iv.1 <= self.horizon_ns)..]
    }

    /// The calendar as a state file keeps it: only the intervals not over.
    pub fn saved(&self) -> Calendar {
        Calendar {
            busy: self.live().to_vec(),
            ..Calendar::default()
        }
    }

    /// Intervals not over.
    pub fn len(&self) -> usize {
        self.live().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The calendar's invariant: sorted, disjoint, non-empty intervals, those not over not
    /// touching. [`Calendar::check`] asserts it; a calendar read from a file is tested with it.
    pub fn well_formed(&self) -> bool {
        self.live().windows(2).all(|w| w[0].1 < w[1].0)
            && self.busy.windows(2).all(|w| w[0].1 <= w[1].0)
            && self.busy.iter().all(|iv| iv.0 < iv.1)
    }

    /// Checks the calendar's invariant ([`Calendar::well_formed`]).
    pub fn check(&self) {
        assert!(self.well_formed(), "calendar malformed: {self:?}");
    }
}

/// A calendar as state files hold it. Files from builds that dropped intervals at each booking
/// may have `head > 0`: the intervals before it had been dropped, and are dropped on reading.
/// Files written now have `head` 0, so those builds read them too.
#[derive(serde::Serialize, serde::Deserialize)]
struct CalendarFile {
    busy: Vec<(u64, u64)>,
    head: usize,
}

impl From<CalendarFile> for Calendar {
    fn from(file: CalendarFile) -> Self {
        let CalendarFile { mut busy, head } = file;
        if head > busy.len() {
            // No build writes this. It reads as a calendar that is not well formed (one empty
            // interval), which `Nand::restore` refuses, naming the calendar: postcard would drop
            // the message of an error returned from here.
            busy = vec![(0, 0)];
        } else {
            busy.drain(..head);
        }
        Calendar {
            busy,
            horizon_ns: 0,
            hint: 0,
        }
    }
}

impl From<Calendar> for CalendarFile {
    fn from(c: Calendar) -> Self {
        CalendarFile {
            busy: c.busy,
            head: 0,
        }
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

    #[test]
    fn an_interval_that_is_over_is_not_joined() {
        let mut c = Calendar::default();
        c.reserve(t(0), d(10), t(0));
        // 0..10 is over at 10; 10..20 touches it but stands alone, as if 0..10 had gone.
        assert_eq!(c.reserve(t(10), d(10), t(10)), t(10));
        assert_eq!(c.saved().busy, [(10, 20)]);
        assert_eq!(c.end(), t(20));
        c.check();
        // At 20 every interval is over.
        assert_eq!(c.reserve(t(20), d(5), t(20)), t(20));
        assert_eq!(c.saved().busy, [(20, 25)]);
        // Placed by the search (30..40 is booked after it), 10..15 does not join 0..10 either.
        let mut c = Calendar::default();
        c.reserve(t(0), d(10), t(0));
        c.reserve(t(30), d(10), t(0));
        assert_eq!(c.reserve(t(10), d(5), t(10)), t(10));
        assert_eq!(c.saved().busy, [(10, 15), (30, 40)]);
        c.check();
    }

    #[test]
    fn intervals_that_are_over_are_dropped_before_the_vector_grows() {
        // Six intervals not over at a time, each booked 100 ns ahead of the horizon.
        let mut c = Calendar::default();
        for k in 0..1000 {
            c.reserve(t(20 * k + 100), d(10), t(20 * k));
            assert!(c.len() <= 6);
        }
        assert_eq!(c.len(), 6);
        // (`reserve_exact` gives exactly what it is asked for here, and the vector never grows.)
        assert_eq!(c.busy.capacity(), MIN_CAPACITY);
    }

    /// A calendar read from a file of an older build, `Calendar { busy: [(0, 5), (10, 20)],
    /// head: 1 }` as postcard wrote it: (0, 5) had been dropped.
    const OLD_FILE: [u8; 6] = [2, 0, 5, 10, 20, 1];

    fn old_file_calendar() -> Calendar {
        postcard::from_bytes(&OLD_FILE).unwrap()
    }

    #[test]
    fn a_file_of_an_older_build_reads_without_what_it_had_dropped() {
        let c = old_file_calendar();
        assert_eq!(c.busy, [(10, 20)]);
        c.check();
        // Written back, `head` is 0: an older build reads the same intervals.
        assert_eq!(postcard::to_allocvec(&c).unwrap(), [1, 10, 20, 0]);
        // A head past the intervals (no build writes one) reads as a malformed calendar.
        let bad: Calendar = postcard::from_bytes(&[1, 10, 20, 2]).unwrap();
        assert!(!bad.well_formed());
    }

    #[test]
    fn the_last_search_guides_the_next_only_where_it_holds() {
        // 40 intervals: every search below starts past the backward scan's reach.
        let mut c = Calendar::default();
        for i in 0..40 {
            c.reserve(t(10 * i), d(5), t(0));
        }
        // Far back twice from the same time (the second from the first's place), then from
        // before the place the last search left: it must not be taken.
        assert_eq!(c.reserve(t(152), d(3), t(0)), t(155));
        assert_eq!(c.reserve(t(152), d(3), t(0)), t(165));
        assert_eq!(c.reserve(t(52), d(3), t(0)), t(55));
        assert_eq!(c.reserve(t(51), d(3), t(0)), t(65));
        c.check();
    }

    proptest! {
        /// Against two references: a bitmap of busy nanoseconds for where each transfer goes,
        /// and the eager calendar (what is over dropped at each booking, touching intervals
        /// merged) for what is kept. In half the cases times are multiples of 10, so intervals
        /// often touch, at the horizon too. A case may start from a calendar of an older file
        /// (one interval dropped before `head`), and now and then the calendar is saved and
        /// read back.
        #[test]
        fn matches_a_busy_bitmap_and_an_eager_calendar(
            ops in prop::collection::vec((0u64..200, 1u64..30, 0u64..20, 0u8..10), 1..120),
            round in any::<bool>(),
            old_file in any::<bool>(),
        ) {
            let mut busy = vec![false; 4000];
            let (mut c, mut eager) = if old_file {
                busy[10..20].fill(true);
                (old_file_calendar(), vec![(10, 20)])
            } else {
                (Calendar::default(), Vec::new())
            };
            let mut horizon = 0;
            let mut peak = 0;
            for (ready, len, step, save) in ops {
                let (ready, len, step) = if round {
                    (ready / 10 * 10, (len / 10).max(1) * 10, step / 10 * 10)
                } else {
                    (ready, len, step)
                };
                horizon += step;
                let ready = horizon + ready;
                let start = c.reserve(t(ready), d(len), t(horizon)).ns();
                let expect = (ready..).find(|&s| (s..s + len).all(|x| !busy[x as usize])).unwrap();
                prop_assert_eq!(start, expect);
                busy[start as usize..(start + len) as usize].fill(true);
                eager.retain(|iv: &(u64, u64)| iv.1 > horizon);
                eager.push((start, start + len));
                eager.sort_unstable();
                eager.dedup_by(|next, prev| {
                    let touch = prev.1 == next.0;
                    if touch {
                        prev.1 = next.1;
                    }
                    touch
                });
                prop_assert_eq!(&c.saved().busy, &eager, "{:?}", c);
                prop_assert_eq!(c.end().ns(), eager.last().map_or(0, |iv| iv.1));
                prop_assert_eq!(c.len(), eager.len());
                // The vector grows only when at least three quarters of it are not over.
                peak = peak.max(c.len());
                prop_assert!(c.busy.capacity() <= (3 * peak).max(MIN_CAPACITY), "{:?}", c);
                c.check();
                if save == 0 {
                    let bytes = postcard::to_allocvec(&c.saved()).unwrap();
                    c = postcard::from_bytes(&bytes).unwrap();
                    prop_assert!(c.well_formed());
                }
            }
        }
    }
}
