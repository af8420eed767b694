//! Time series with a memory bound. Values land in buckets of one interval each; a series never
//! holds more than its bucket limit: when time runs past it, the interval doubles and neighbouring
//! buckets merge (the report says by how much). Memory depends on the limit, never on how much
//! simulated time passes or how many commands run.

use serde::Serialize;

use crate::time::{Duration, Instant};

/// The most buckets a series keeps before it coarsens (chosen: 0.5 s intervals cover 83 minutes).
pub const DEFAULT_MAX_BUCKETS: usize = 10_000;

/// How a run samples over time (`[metrics]`): the interval asked for, and the most points any
/// of its series keeps before it coarsens. Every series of a run, the device's and its
/// firmware's included, takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sampling {
    pub interval: Duration,
    pub max_points: usize,
}

impl Sampling {
    /// Every `interval`, with the default bound.
    pub fn every(interval: Duration) -> Self {
        Sampling {
            interval,
            max_points: DEFAULT_MAX_BUCKETS,
        }
    }

    /// An empty step series sampled this way.
    pub fn step_series<T: Copy>(&self) -> StepSeries<T> {
        StepSeries::new(Instant::ZERO, self.interval, self.max_points)
    }
}

/// Sums of `N` counters per interval (bandwidth and IOPS over time).
#[derive(Clone, Debug)]
pub struct BucketSeries<const N: usize> {
    origin: Instant,
    interval: Duration,
    /// The bucket the last value went into, and where it starts and ends (values mostly arrive
    /// in time order, so most need no division).
    last: (usize, u64, u64),
    requested_interval: Duration,
    max_buckets: usize,
    buckets: Vec<[u64; N]>,
}

impl<const N: usize> BucketSeries<N> {
    pub fn new(origin: Instant, interval: Duration, max_buckets: usize) -> Self {
        assert!(interval.ns() > 0 && max_buckets >= 2, "a usable series");
        BucketSeries {
            origin,
            interval,
            last: (0, origin.ns(), origin.ns() + interval.ns()),
            requested_interval: interval,
            max_buckets,
            buckets: Vec::new(),
        }
    }

    #[inline]
    pub fn add(&mut self, t: Instant, values: [u64; N]) {
        self.update(t, |b| {
            for k in 0..N {
                b[k] += values[k];
            }
        });
    }

    /// Changes the counters of the bucket `t` falls in. (A completion adds to two of them this
    /// way, in place rather than through an array of four with two zeros, which was slower:
    /// BENCHMARKS.md, "What the hot path does".)
    #[inline]
    pub fn update(&mut self, t: Instant, f: impl FnOnce(&mut [u64; N])) {
        let i = if t.ns() >= self.last.1 && t.ns() < self.last.2 && self.last.0 < self.buckets.len()
        {
            self.last.0
        } else {
            self.locate(t)
        };
        f(&mut self.buckets[i]);
    }

    /// The bucket of `t`, made if new (coarsening past the bound).
    fn locate(&mut self, t: Instant) -> usize {
        let mut i = (t.since(self.origin).ns() / self.interval.ns()) as usize;
        while i >= self.max_buckets {
            self.coarsen();
            i = (t.since(self.origin).ns() / self.interval.ns()) as usize;
        }
        if i >= self.buckets.len() {
            self.buckets.resize(i + 1, [0; N]);
        }
        let start = self.origin.ns() + i as u64 * self.interval.ns();
        self.last = (i, start, start + self.interval.ns());
        i
    }

    fn coarsen(&mut self) {
        self.interval = Duration::from_ns(self.interval.ns() * 2);
        self.last = (usize::MAX, 0, 0);
        let merged = self
            .buckets
            .chunks(2)
            .map(|pair| {
                let mut s = [0; N];
                for b in pair {
                    for k in 0..N {
                        s[k] += b[k];
                    }
                }
                s
            })
            .collect();
        self.buckets = merged;
    }

    /// Adds `other` (same origin) in: both end at the coarser of the two intervals.
    pub fn merge(&mut self, other: &BucketSeries<N>) {
        while self.interval < other.interval {
            self.coarsen();
        }
        let factor = (self.interval.ns() / other.interval.ns()) as usize;
        for (i, b) in other.buckets.iter().enumerate() {
            let j = i / factor;
            if j >= self.buckets.len() {
                self.buckets.resize(j + 1, [0; N]);
            }
            for (sum, v) in self.buckets[j].iter_mut().zip(b) {
                *sum += v;
            }
        }
    }

    pub fn interval(&self) -> Duration {
        self.interval
    }
    /// The interval asked for; larger [`Self::interval`] means the series was coarsened.
    pub fn requested_interval(&self) -> Duration {
        self.requested_interval
    }
    pub fn buckets(&self) -> &[[u64; N]] {
        &self.buckets
    }
    pub fn origin(&self) -> Instant {
        self.origin
    }
}

/// A value that changes now and then (queue lengths, states): the last value seen in each
/// interval, with the time it was seen.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct StepSeries<T> {
    origin: Instant,
    interval: Duration,
    max_points: usize,
    points: Vec<(u64, Instant, T)>,
}

impl<T: Copy> StepSeries<T> {
    pub fn new(origin: Instant, interval: Duration, max_points: usize) -> Self {
        assert!(interval.ns() > 0 && max_points >= 2, "a usable series");
        StepSeries {
            origin,
            interval,
            max_points,
            points: Vec::new(),
        }
    }

    pub fn record(&mut self, t: Instant, value: T) {
        let bucket = t.since(self.origin).ns() / self.interval.ns();
        match self.points.last_mut() {
            Some(last) if last.0 == bucket => *last = (bucket, t, value),
            _ => self.points.push((bucket, t, value)),
        }
        if self.points.len() > self.max_points {
            self.interval = Duration::from_ns(self.interval.ns() * 2);
            let mut kept: Vec<(u64, Instant, T)> = Vec::with_capacity(self.points.len() / 2 + 1);
            for &(b, t, v) in &self.points {
                let b = b / 2;
                match kept.last_mut() {
                    Some(last) if last.0 == b => *last = (b, t, v),
                    _ => kept.push((b, t, v)),
                }
            }
            self.points = kept;
        }
    }

    /// (time, value), oldest first: at most one per interval, the last one in it.
    pub fn points(&self) -> impl Iterator<Item = (Instant, T)> + '_ {
        self.points.iter().map(|&(_, t, v)| (t, v))
    }

    pub fn interval(&self) -> Duration {
        self.interval
    }

    pub fn last(&self) -> Option<T> {
        self.points.last().map(|p| p.2)
    }
}

/// How a series' interval ended up, for reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct IntervalNote {
    pub requested_ns: u64,
    pub used_ns: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ns: u64) -> Instant {
        Instant::from_ns(ns)
    }

    #[test]
    fn buckets_sum_by_interval_and_coarsen_at_the_bound() {
        let mut s = BucketSeries::<2>::new(t(0), Duration::from_ns(10), 4);
        s.add(t(5), [1, 0]);
        s.add(t(15), [0, 2]);
        s.add(t(39), [1, 1]);
        assert_eq!(s.buckets(), &[[1, 0], [0, 2], [0, 0], [1, 1]]);
        s.add(t(45), [1, 0]);
        assert_eq!(s.interval(), Duration::from_ns(20));
        assert_eq!(s.buckets(), &[[1, 2], [1, 1], [1, 0]]);
        // Far in the future: still within the bound.
        s.add(t(1_000_000), [1, 0]);
        assert!(s.buckets().len() <= 4);
        let total: u64 = s.buckets().iter().map(|b| b[0]).sum();
        assert_eq!(total, 4, "coarsening keeps every count");
    }

    #[test]
    fn steps_keep_the_last_value_per_interval() {
        let mut s = StepSeries::new(t(0), Duration::from_ns(10), 3);
        for (ns, v) in [(1, 1), (2, 2), (12, 3), (25, 4)] {
            s.record(t(ns), v);
        }
        let v: Vec<u32> = s.points().map(|p| p.1).collect();
        assert_eq!(v, [2, 3, 4]);
        s.record(t(35), 5);
        assert_eq!(s.interval(), Duration::from_ns(20));
        let v: Vec<u32> = s.points().map(|p| p.1).collect();
        assert_eq!(v, [3, 5]);
        for i in 0..10_000 {
            s.record(t(100 + i * 7), i as u32);
        }
        assert!(s.points().count() <= 3);
        assert_eq!(s.last(), Some(9_999));
    }
}
