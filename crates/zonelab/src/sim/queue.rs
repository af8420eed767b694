//! The event queue: events ordered by (time, sequence), so events at one time run in the order
//! they were scheduled and every run is reproducible.
//!
//! The loop takes the earliest event and, while serving it, usually schedules the next one (a
//! runner's completion issues its next command). The taken event stays at the top of the heap
//! until then, and the first event scheduled replaces it: one sift down instead of a pop and a
//! push. Keys are unique, so the order events come out in is the same either way.
//!
//! The heap is a binary min-heap of our own rather than `std`'s `BinaryHeap`: replacing the top
//! through `BinaryHeap::peek_mut` writes the new event at the top, a field at a time, and then
//! again where the sift leaves it; here it is written once, where it belongs, and the sift reads
//! the children without bounds checks (measured: BENCHMARKS.md, "What the hot path does").

use super::kernel::EventKind;
use crate::time::Instant;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Event {
    pub time: Instant,
    pub sequence: u64,
    pub kind: EventKind,
}

impl Event {
    /// (time, sequence) as one number, ordered as the pair is: one comparison without a branch
    /// where the heap compares keys (the pair takes two dependent ones).
    #[inline]
    fn key(&self) -> u128 {
        (self.time.ns() as u128) << 64 | self.sequence as u128
    }
}

#[derive(Default)]
pub(crate) struct EventQueue {
    /// A binary min-heap by key: each event's key is below its children's (at `2i + 1` and
    /// `2i + 2`).
    heap: Vec<Event>,
    /// The top of the heap was handed out by [`EventQueue::next`] and is to be removed.
    taken: bool,
    sequence: u64,
}

impl EventQueue {
    pub fn push(&mut self, time: Instant, kind: EventKind) {
        self.sequence += 1;
        let event = Event {
            time,
            sequence: self.sequence,
            kind,
        };
        if std::mem::take(&mut self.taken) {
            self.replace_top(event);
        } else {
            self.sift_up(event);
        }
    }

    /// Events waiting, not counting one handed out by [`EventQueue::next`].
    pub fn len(&self) -> usize {
        self.heap.len() - self.taken as usize
    }

    /// The earliest event; the one handed out before leaves the queue now if nothing has
    /// replaced it.
    pub fn next(&mut self) -> Option<Event> {
        if std::mem::take(&mut self.taken) {
            let last = self.heap.pop().expect("the event handed out");
            if !self.heap.is_empty() {
                self.replace_top(last);
            }
        }
        let event = *self.heap.first()?;
        self.taken = true;
        Some(event)
    }

    /// Puts `event` in place of the top: the hole left at the top goes down past every child
    /// with a smaller key, and `event` is written once, where the hole stops.
    #[inline(always)]
    fn replace_top(&mut self, event: Event) {
        let heap = &mut self.heap[..];
        let n = heap.len();
        let key = event.key();
        let mut hole = 0;
        let mut child = 1;
        // (Both children there: the smaller one, chosen without a branch.)
        while child + 1 < n {
            // SAFETY: hole < child < child + 1 < n, the heap's length, and `child` moves to the
            // right one at most. (With these three indexed, the compiler kept their bounds
            // checks, even with the slice split at `child`.)
            let smaller = unsafe {
                let right = heap.get_unchecked(child + 1).key();
                child += (right < heap.get_unchecked(child).key()) as usize;
                *heap.get_unchecked(child)
            };
            if key < smaller.key() {
                heap[hole] = event;
                return;
            }
            // SAFETY: as above.
            unsafe { *heap.get_unchecked_mut(hole) = smaller };
            hole = child;
            child = 2 * hole + 1;
        }
        // (An only child: the last event.)
        if child + 1 == n && heap[child].key() < key {
            heap[hole] = heap[child];
            hole = child;
        }
        heap[hole] = event;
    }

    /// Adds `event` at the bottom and moves it up past every parent with a larger key.
    fn sift_up(&mut self, event: Event) {
        let key = event.key();
        let mut hole = self.heap.len();
        self.heap.push(event);
        while hole > 0 {
            let parent = (hole - 1) / 2;
            if self.heap[parent].key() < key {
                break;
            }
            self.heap[hole] = self.heap[parent];
            hole = parent;
        }
        self.heap[hole] = event;
    }

    /// The heap property, over every event (tests: O(events)).
    #[cfg(test)]
    fn check(&self) {
        for (i, e) in self.heap.iter().enumerate().skip(1) {
            assert!(
                self.heap[(i - 1) / 2].key() < e.key(),
                "event {i} is above its parent"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    /// Events come out by time, then in the order they were scheduled, whether or not each
    /// one served schedules another (which then replaces it at the top).
    #[test]
    fn events_come_out_by_time_then_by_scheduling_order() {
        let mut q = EventQueue::default();
        let t = Instant::from_ns;
        for (time, id) in [(30, 0), (10, 1), (20, 2), (10, 3)] {
            q.push(t(time), EventKind::RunnerWake(id));
        }
        let mut out = Vec::new();
        while let Some(e) = q.next() {
            let EventKind::RunnerWake(id) = e.kind else {
                unreachable!()
            };
            out.push((e.time.ns(), id));
            // Event 1 schedules 4 at 15 and 5 at 10 (the same time as 3, after it).
            if id == 1 {
                q.push(t(15), EventKind::RunnerWake(4));
                q.push(t(10), EventKind::RunnerWake(5));
            }
        }
        assert_eq!(out, [(10, 1), (10, 3), (10, 5), (15, 4), (20, 2), (30, 0)]);
    }

    proptest::proptest! {
        /// Against a reference: a sorted set of (time, sequence), where `next` hands out the
        /// least and the one handed out leaves at the next `push` or `next`. Times come from a
        /// small range so many events share one; after every operation the heap's property holds
        /// and it holds as many events as the set (none lost, none twice).
        #[test]
        fn the_heap_hands_out_what_a_sorted_set_does(
            ops in proptest::collection::vec(
                proptest::prop_oneof![3 => (0u64..40).prop_map(Some), 2 => Just(None)],
                1..300,
            ),
        ) {
            let mut q = EventQueue::default();
            let mut model = BTreeSet::new();
            let (mut taken, mut sequence) = (None, 0u64);
            for op in ops {
                if let Some(key) = taken.take() {
                    model.remove(&key);
                }
                match op {
                    Some(time) => {
                        sequence += 1;
                        q.push(Instant::from_ns(time), EventKind::RunnerWake(sequence as u32));
                        model.insert((time, sequence));
                    }
                    None => {
                        let got = q.next();
                        if let Some(e) = got {
                            // The payload travels with its key.
                            let EventKind::RunnerWake(id) = e.kind else {
                                unreachable!()
                            };
                            prop_assert_eq!(e.sequence, id as u64);
                        }
                        let want = model.first().copied();
                        prop_assert_eq!(got.map(|e| (e.time.ns(), e.sequence)), want);
                        taken = want;
                    }
                }
                q.check();
                prop_assert_eq!(q.heap.len(), model.len());
            }
        }
    }
}
