//! Read congestion control per stripe group (ezns.md, "Hierarchical I/O scheduler"), delay
//! based as Swift: all physical zones of a group share one window `cwnd`, counted in outstanding
//! stripe reads. A completion slower than the threshold (500 us) shrinks the window to
//! `max(floor, cwnd * threshold / (2 * latency))`, at most once per window; otherwise the window
//! grows by one after `ai_every * cwnd` uncongested completions, up to `max_factor * width`.
//! The floor and the initial window are the stripe width (the authors' code).
//!
//! Completion times are known when a read is sent; the window reacts to them in completion
//! order, when the scheduler next looks at the group at or after that time.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::time::{Duration, Instant};

/// A stripe read waiting for the window: the host command it belongs to and the device read.
#[derive(Clone, Copy, Debug)]
pub struct QueuedRead {
    pub tag: u64,
    pub slba: u64,
    pub nlb: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CcParams {
    pub threshold: Duration,
    pub ai_every: u32,
    pub max_factor: u32,
}

#[derive(Debug)]
pub struct ReadCc {
    pub cwnd: u32,
    floor: u32,
    max: u32,
    /// (done, sent) of reads in flight.
    inflight: BinaryHeap<Reverse<(Instant, Instant)>>,
    /// Uncongested completions since the last change.
    good: u32,
    /// Completions to wait before the next decrease (one per window).
    hold: u32,
    pub queue: VecDeque<QueuedRead>,
    pub decreases: u64,
    pub increases: u64,
}

impl ReadCc {
    pub fn new(width: u32, p: &CcParams) -> Self {
        ReadCc {
            cwnd: width,
            floor: width,
            max: width * p.max_factor,
            inflight: BinaryHeap::new(),
            good: 0,
            hold: 0,
            queue: VecDeque::new(),
            decreases: 0,
            increases: 0,
        }
    }

    /// Takes in every completion up to `now`, in completion order.
    pub fn complete_until(&mut self, now: Instant, p: &CcParams) {
        while let Some(&Reverse((done, sent))) = self.inflight.peek() {
            if done > now {
                break;
            }
            self.inflight.pop();
            let latency = done - sent;
            self.hold = self.hold.saturating_sub(1);
            if latency > p.threshold {
                self.good = 0;
                if self.hold == 0 {
                    let shrunk = (self.cwnd as u128 * p.threshold.ns() as u128
                        / (2 * latency.ns() as u128)) as u32;
                    let next = shrunk.max(self.floor);
                    if next < self.cwnd {
                        self.cwnd = next;
                        self.decreases += 1;
                    }
                    self.hold = self.cwnd;
                }
            } else {
                self.good += 1;
                if self.good >= p.ai_every * self.cwnd {
                    self.good = 0;
                    if self.cwnd < self.max {
                        self.cwnd += 1;
                        self.increases += 1;
                    }
                }
            }
        }
    }

    #[inline]
    pub fn can_send(&self) -> bool {
        (self.inflight.len() as u32) < self.cwnd
    }

    #[inline]
    pub fn sent(&mut self, sent: Instant, done: Instant) {
        self.inflight.push(Reverse((done, sent)));
    }

    /// When the next read in flight completes.
    pub fn next_completion(&self) -> Option<Instant> {
        self.inflight.peek().map(|r| r.0.0)
    }

    pub fn inflight(&self) -> u32 {
        self.inflight.len() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> CcParams {
        CcParams {
            threshold: Duration::from_us(500),
            ai_every: 8,
            max_factor: 4,
        }
    }

    fn t(us: u64) -> Instant {
        Instant::from_ns(us * 1000)
    }

    #[test]
    fn slow_completions_shrink_the_window_once_per_window_fast_ones_grow_it() {
        let p = p();
        let mut cc = ReadCc::new(4, &p);
        for _ in 0..(8 * 4) {
            cc.sent(t(0), t(100));
        }
        cc.complete_until(t(100), &p);
        assert_eq!(cc.cwnd, 5, "32 uncongested completions add one");
        // Latency 2 ms: 5 * 500 / 4000 = 0 -> the floor, 4.
        cc.sent(t(100), t(2100));
        cc.sent(t(100), t(2200));
        cc.complete_until(t(3000), &p);
        assert_eq!(cc.cwnd, 4);
        assert_eq!(
            cc.decreases, 1,
            "the second slow completion is in the same window"
        );
        // A larger window shrinks in proportion: 16 * 500 / (2 * 1000) = 4... floor 2.
        let mut cc = ReadCc::new(2, &p);
        cc.cwnd = 8;
        cc.sent(t(0), t(1000));
        cc.complete_until(t(1000), &p);
        assert_eq!(cc.cwnd, 2);
        cc.cwnd = 8;
        cc.hold = 0;
        cc.sent(t(0), t(600));
        cc.complete_until(t(1000), &p);
        assert_eq!(cc.cwnd, 3, "8 * 500 / 1200");
        assert!(cc.can_send());
    }
}
