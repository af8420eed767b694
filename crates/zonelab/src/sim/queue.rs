//! The event queue: events ordered by (time, sequence), so events at one time run in the order
//! they were scheduled and every run is reproducible.
//!
//! The loop takes the earliest event and, while serving it, usually schedules the next one (a
//! runner's completion issues its next command). The taken event stays at the top of the heap
//! until then, and the first event scheduled replaces it: one sift down instead of a pop and a
//! push. Keys are unique, so the order events come out in is the same either way.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

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

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Event {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

#[derive(Default)]
pub(crate) struct EventQueue {
    heap: BinaryHeap<Reverse<Event>>,
    /// The top of the heap was handed out by [`EventQueue::next`] and is to be removed.
    taken: bool,
    sequence: u64,
}

impl EventQueue {
    pub fn push(&mut self, time: Instant, kind: EventKind) {
        self.sequence += 1;
        let event = Reverse(Event {
            time,
            sequence: self.sequence,
            kind,
        });
        if std::mem::take(&mut self.taken) {
            *self.heap.peek_mut().expect("the event handed out") = event;
        } else {
            self.heap.push(event);
        }
    }

    /// The earliest event; the one handed out before leaves the queue now if nothing has
    /// replaced it.
    pub fn next(&mut self) -> Option<Event> {
        if std::mem::take(&mut self.taken) {
            self.heap.pop();
        }
        let event = self.heap.peek()?.0;
        self.taken = true;
        Some(event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
