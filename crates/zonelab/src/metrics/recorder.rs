//! A latency recorder on the hot path: counts in the same buckets an HDR histogram of 1 ns to 1 h
//! at 3 significant digits uses, without the per-record bookkeeping (min, max, total, overflow
//! checks) the `hdrhistogram` crate does on every value. The histogram itself is built from the
//! counts when a report asks for it, so every figure (percentiles, mean, min, max) is exactly what
//! recording each value into the histogram would give.

use hdrhistogram::Histogram;

use super::latency_histogram;

/// 2 x 10^3 values of single-unit resolution: 2048 sub-buckets, half of them 1024.
const SUB_BUCKET_HALF_COUNT_MAGNITUDE: u32 = 10;
const SUB_BUCKET_HALF_COUNT: u64 = 1 << SUB_BUCKET_HALF_COUNT_MAGNITUDE;
const SUB_BUCKET_MASK: u64 = (1 << (SUB_BUCKET_HALF_COUNT_MAGNITUDE + 1)) - 1;
/// 64 - unit magnitude (0: lowest value 1) - sub-bucket count magnitude (11).
const LEADING_ZERO_COUNT_BASE: u32 = 53;
/// The histogram's highest trackable value: 1 hour in ns.
const HIGHEST: u64 = 3_600 * 1_000_000_000;

#[derive(Clone, Debug, Default)]
pub struct Recorder {
    /// Counts by bucket index, only as long as the largest value recorded needs: the scans at
    /// the end of a run, and the memory they fault in, follow the data, not the 1 h range
    /// (33,792 counts, 264 KiB a recorder).
    counts: Vec<u64>,
}

#[inline]
fn index_of(value: u64) -> usize {
    // The first bucket counts each value below 2048 at its own index (the formula below gives
    // the same); erase waits (mostly 0) and latencies of writes that only stage land there.
    if value <= SUB_BUCKET_MASK {
        return value as usize;
    }
    hdr_index(value)
}

/// The index of `value`'s count in the HDR layout.
#[inline]
fn hdr_index(value: u64) -> usize {
    let v = value.min(HIGHEST);
    let bucket = LEADING_ZERO_COUNT_BASE - (v | SUB_BUCKET_MASK).leading_zeros();
    let sub = v >> bucket;
    (((bucket as u64 + 1) << SUB_BUCKET_HALF_COUNT_MAGNITUDE) + sub - SUB_BUCKET_HALF_COUNT)
        as usize
}

/// The lowest value counted at `index`.
fn value_at(index: usize) -> u64 {
    let i = index as u64;
    let mut bucket = (i >> SUB_BUCKET_HALF_COUNT_MAGNITUDE) as i64 - 1;
    let mut sub = (i & (SUB_BUCKET_HALF_COUNT - 1)) + SUB_BUCKET_HALF_COUNT;
    if bucket < 0 {
        sub -= SUB_BUCKET_HALF_COUNT;
        bucket = 0;
    }
    sub << bucket
}

impl Recorder {
    /// Counts one value (clamped to 1 h, as a saturating record would).
    #[inline]
    pub fn record(&mut self, value: u64) {
        let i = index_of(value);
        match self.counts.get_mut(i) {
            Some(n) => *n += 1,
            None => self.grow_to_count(i),
        }
    }

    /// Counts at index `i`, past the counts held so far.
    #[cold]
    #[inline(never)]
    fn grow_to_count(&mut self, i: usize) {
        self.counts.resize(i + 1, 0);
        self.counts[i] = 1;
    }

    /// Forgets everything recorded (a measured phase restarts).
    pub fn reset(&mut self) {
        self.counts.clear();
    }

    /// The HDR histogram of everything recorded.
    ///
    /// It tracks values up to the largest recorded (and grows when another is added to it), not
    /// to 1 h: the buckets, and so every figure read from it, are the same, but a run whose
    /// latencies stay under a millisecond zeroes and touches a third of the memory (11,264
    /// counts instead of 33,792).
    pub fn histogram(&self) -> Histogram<u64> {
        let Some(last) = self.counts.iter().rposition(|&n| n > 0) else {
            return latency_histogram();
        };
        let top = value_at(last + 1).saturating_sub(1).clamp(2, HIGHEST);
        let mut h = Histogram::new_with_bounds(1, top, 3).expect("valid histogram bounds");
        h.auto(true);
        for (i, &n) in self.counts[..=last].iter().enumerate() {
            if n > 0 {
                h.record_n(value_at(i), n)
                    .expect("a value the histogram tracks");
            }
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The shortcut's range and the next bucket: the same index as the formula, and a
    /// count the `hdrhistogram` crate would put at the same lowest value.
    #[test]
    fn the_first_bucket_indexes_each_value_as_the_hdr_layout_does() {
        let h = latency_histogram();
        for v in 0..=2 * (SUB_BUCKET_MASK + 1) {
            assert_eq!(index_of(v), hdr_index(v), "value {v}");
            assert_eq!(value_at(index_of(v)), h.lowest_equivalent(v), "value {v}");
        }
    }

    proptest! {
        /// Every figure a report reads equals recording the values straight into the histogram
        /// (after a reset has dropped what came before).
        #[test]
        fn equals_the_hdr_histogram(values in prop::collection::vec(
            prop_oneof![0u64..3_000, 0u64..10_000_000, 0u64..u64::MAX], 1..300)) {
            let mut r = Recorder::default();
            for &v in values.iter().rev().take(7) {
                r.record(v / 2 + 1);
            }
            r.reset();
            prop_assert!(r.histogram().is_empty());
            let mut h = latency_histogram();
            for &v in &values {
                r.record(v);
                h.saturating_record(v);
            }
            let got = r.histogram();
            prop_assert_eq!(got.len(), h.len());
            prop_assert_eq!(got.min(), h.min());
            prop_assert_eq!(got.max(), h.max());
            prop_assert_eq!(got.mean(), h.mean());
            for q in [0.0, 50.0, 90.0, 99.0, 99.9, 99.99, 99.999, 100.0] {
                prop_assert_eq!(got.value_at_percentile(q), h.value_at_percentile(q));
            }
        }

        /// Histograms sized to what each recorder holds add up (either way round, the smaller
        /// growing to take the larger) to recording every value into one.
        #[test]
        fn sized_histograms_add_up(
            a in prop::collection::vec(0u64..5_000, 0..50),
            b in prop::collection::vec(prop_oneof![0u64..5_000, 0u64..u64::MAX], 0..50),
        ) {
            let (mut ra, mut rb, mut all) = (Recorder::default(), Recorder::default(), Recorder::default());
            for &v in &a {
                ra.record(v);
                all.record(v);
            }
            for &v in &b {
                rb.record(v);
                all.record(v);
            }
            let all = all.histogram();
            for (first, second) in [(&ra, &rb), (&rb, &ra)] {
                let mut h = first.histogram();
                h.add(second.histogram()).expect("the histogram grows");
                prop_assert_eq!(h.len(), all.len());
                prop_assert_eq!(h.max(), all.max());
                prop_assert_eq!(h.mean(), all.mean());
                for q in [0.0, 50.0, 99.0, 100.0] {
                    prop_assert_eq!(h.value_at_percentile(q), all.value_at_percentile(q));
                }
            }
        }
    }
}
