//! Wear: the erase counts of a device's blocks, summarised for reports.

use std::collections::BTreeMap;

/// Per-block erase counts summarised.
#[derive(Clone, Debug, PartialEq)]
pub struct WearSummary {
    pub min: u32,
    pub mean: f64,
    pub max: u32,
    /// erase count -> number of blocks with that count.
    pub histogram: BTreeMap<u32, u64>,
}

impl WearSummary {
    /// Erase counts (one per block) summarised: counted in a dense table over min..=max when
    /// that is no larger than the block count (on any device of real size: its blocks wear to
    /// within far less of each other), otherwise into a map. (Counting every block into a map
    /// was half the instructions of a short run on a device of 131,072 blocks.)
    pub fn of(counts: &[u32]) -> WearSummary {
        let min = counts.iter().copied().min().unwrap_or(0);
        let max = counts.iter().copied().max().unwrap_or(0);
        let sum: u64 = counts.iter().map(|&c| c as u64).sum();
        let span = (max - min) as u64 + 1;
        let histogram = if span <= counts.len() as u64 {
            let mut dense = vec![0u64; span as usize];
            for &c in counts {
                dense[(c - min) as usize] += 1;
            }
            (min..=max).zip(dense).filter(|&(_, n)| n > 0).collect()
        } else {
            let mut histogram = BTreeMap::new();
            for &c in counts {
                *histogram.entry(c).or_insert(0) += 1;
            }
            histogram
        };
        WearSummary {
            min,
            mean: sum as f64 / counts.len().max(1) as f64,
            max,
            histogram,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The wear summary equals counting every block into a map, whether the counts are close
        /// together (the dense table) or spread wider than there are blocks (the map); min, max
        /// and mean are read off that reference.
        #[test]
        fn wear_summary_counts_every_block(
            base in 0u32..4_000_000_000,
            counts in prop_oneof![Just(8u32), Just(100_000_000)]
                .prop_flat_map(|spread| prop::collection::vec(0..spread, 0..300)),
        ) {
            let counts: Vec<u32> = counts.iter().map(|&c| base.saturating_add(c)).collect();
            let mut histogram = BTreeMap::new();
            for &c in &counts {
                *histogram.entry(c).or_insert(0u64) += 1;
            }
            let w = WearSummary::of(&counts);
            prop_assert_eq!(&w.histogram, &histogram);
            prop_assert_eq!(w.min, histogram.keys().next().copied().unwrap_or(0));
            prop_assert_eq!(w.max, histogram.keys().next_back().copied().unwrap_or(0));
            let sum: u64 = histogram.iter().map(|(&c, &n)| c as u64 * n).sum();
            prop_assert_eq!(w.mean, sum as f64 / counts.len().max(1) as f64);
        }
    }
}
