//! Global write admission control (ezns.md, "Hierarchical I/O scheduler"): a token bucket per
//! v-zone, in blocks (LBAs). Every 10 ms a monitor takes the mean per-block write latency over
//! the v-zones that completed writes in that period; the admission delay is the mean of the last
//! two readings. A v-zone gains `elapsed / delay * stripe width` tokens (refreshed every 1 ms for
//! zones with pending writes, and on submission), up to `128 KiB * width`; a write is sent when
//! the tokens cover it (or, for a write larger than the bucket, when the bucket is full), and
//! its blocks are taken from the bucket. A zone's write latency reflects its share of the shared
//! write cache, so equal per-block latency means equal cache shares.
//!
//! Completion times are known when a write is sent, so each write's latency is filed under the
//! monitor period it completes in and read when that period ends. A period with no completed
//! write keeps the last reading.

use std::collections::BTreeMap;

use crate::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AdmissionParams {
    pub refresh: Duration,
    pub monitor: Duration,
    pub initial_delay: Duration,
    /// Bucket size per unit of stripe width, in LBAs.
    pub bucket_lbas_per_width: u64,
}

#[derive(Clone, Copy, Debug)]
pub struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Bucket {
    pub fn full(width: u32, p: &AdmissionParams, now: Instant) -> Self {
        Bucket {
            tokens: (p.bucket_lbas_per_width * width as u64) as f64,
            at: now,
        }
    }
}

pub struct Admission {
    p: AdmissionParams,
    /// Per-block delay in ns.
    delay: f64,
    readings: [Option<f64>; 2],
    /// Monitor period index -> v-zone -> (latency sum over blocks in ns, blocks); ordered maps,
    /// so the readings sum in one order every run.
    periods: BTreeMap<u64, BTreeMap<u32, (f64, u64)>>,
    /// The first period not yet read.
    next_period: u64,
    pub queued: u64,
    /// The largest delay a reading gave (ns).
    pub delay_max: u64,
}

impl Admission {
    pub fn new(p: AdmissionParams) -> Self {
        Admission {
            delay: p.initial_delay.ns().max(1) as f64,
            readings: [None; 2],
            periods: BTreeMap::new(),
            next_period: 0,
            queued: 0,
            delay_max: 0,
            p,
        }
    }

    pub fn params(&self) -> &AdmissionParams {
        &self.p
    }

    pub fn delay_ns(&self) -> f64 {
        self.delay
    }

    /// Brings `bucket` (of a group `width` wide) up to `now`.
    pub fn refill(&self, bucket: &mut Bucket, width: u32, now: Instant) {
        if now > bucket.at {
            let cap = (self.p.bucket_lbas_per_width * width as u64) as f64;
            let gained = (now - bucket.at).ns() as f64 / self.delay * width as f64;
            bucket.tokens = (bucket.tokens + gained).min(cap);
            bucket.at = now;
        }
    }

    /// Whether a write of `nlb` may go now; if so its blocks are taken.
    pub fn admit(&self, bucket: &mut Bucket, width: u32, nlb: u64, now: Instant) -> bool {
        self.refill(bucket, width, now);
        let cap = self.p.bucket_lbas_per_width * width as u64;
        if bucket.tokens >= nlb.min(cap) as f64 {
            bucket.tokens -= nlb as f64;
            true
        } else {
            false
        }
    }

    /// A device write of `nlb` for v-zone `key`, sent at `sent`, completes at `done`.
    pub fn record(&mut self, key: u32, sent: Instant, done: Instant, nlb: u64) {
        let period = done.ns() / self.p.monitor.ns();
        let e = self
            .periods
            .entry(period)
            .or_default()
            .entry(key)
            .or_insert((0.0, 0));
        e.0 += (done - sent).ns() as f64;
        e.1 += nlb;
    }

    /// Reads every monitor period that ended by `now`.
    pub fn monitor(&mut self, now: Instant) {
        let period_ns = self.p.monitor.ns();
        let current = now.ns() / period_ns;
        while self.next_period < current {
            let p = self.next_period;
            self.next_period += 1;
            let Some(zones) = self.periods.remove(&p) else {
                if let Some((&first, _)) = self.periods.first_key_value() {
                    // Skip empty periods at once.
                    self.next_period = first.min(current);
                } else {
                    self.next_period = current;
                }
                continue;
            };
            let mean =
                zones.values().map(|&(sum, n)| sum / n as f64).sum::<f64>() / zones.len() as f64;
            self.readings = [self.readings[1], Some(mean)];
            self.delay = match self.readings {
                [Some(a), Some(b)] => (a + b) / 2.0,
                [_, Some(b)] => b,
                _ => self.delay,
            }
            .max(1.0);
            self.delay_max = self.delay_max.max(self.delay as u64);
        }
    }

    /// The next token refresh after `now`.
    pub fn next_refresh(&self, now: Instant) -> Instant {
        let r = self.p.refresh.ns();
        Instant::from_ns((now.ns() / r + 1) * r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> AdmissionParams {
        AdmissionParams {
            refresh: Duration::from_ms(1),
            monitor: Duration::from_ms(10),
            initial_delay: Duration::from_us(100),
            bucket_lbas_per_width: 32,
        }
    }

    #[test]
    fn tokens_come_at_width_per_delay_up_to_the_bucket() {
        let a = Admission::new(p());
        let mut b = Bucket::full(2, &p(), Instant::ZERO);
        assert!(a.admit(&mut b, 2, 64, Instant::ZERO));
        assert!(
            !a.admit(&mut b, 2, 2, Instant::from_ns(50_000)),
            "1 token after 50 us"
        );
        assert!(
            a.admit(&mut b, 2, 2, Instant::from_ns(100_000)),
            "2 tokens after 100 us"
        );
        // A write larger than the bucket goes once the bucket is full.
        assert!(!a.admit(&mut b, 2, 100, Instant::from_ns(3 * 1_000_000)));
        assert!(a.admit(&mut b, 2, 100, Instant::from_ns(4 * 1_000_000)));
    }

    #[test]
    fn the_delay_is_the_mean_of_the_last_two_readings_over_zones() {
        let mut a = Admission::new(p());
        // Period 0: zone 1 at 10 us per block, zone 2 at 30 us: reading 20 us.
        a.record(1, Instant::ZERO, Instant::from_ns(40 * 1_000), 4);
        a.record(2, Instant::ZERO, Instant::from_ns(120 * 1_000), 4);
        // Period 2 (period 1 empty): 60 us per block.
        a.record(
            1,
            Instant::from_ns(20 * 1_000_000),
            Instant::from_ns(20_240 * 1_000),
            4,
        );
        a.monitor(Instant::from_ns(10 * 1_000_000));
        assert_eq!(a.delay_ns(), 20_000.0);
        a.monitor(Instant::from_ns(35 * 1_000_000));
        assert_eq!(a.delay_ns(), 40_000.0);
    }
}
