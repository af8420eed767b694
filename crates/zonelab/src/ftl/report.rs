//! What the conventional SSD reports beside the device counters: garbage collection's work,
//! the FTL's write amplification, free superblocks and their series over time (bounded like every
//! series: past `max` intervals the interval doubles).

use super::device::Ftl;
use crate::device::report::ftl::{FtlReport, FtlSample};
use crate::metrics::series::{BucketSeries, Sampling, StepSeries};
use crate::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct FtlCounters {
    /// Mapping units the host wrote (including overwrites of units still in the controller).
    pub host_units: u64,
    /// Of those, units that took a new slot (the others were overwritten in the controller).
    pub host_units_placed: u64,
    pub gc_copied_units: u64,
    pub gc_erased_superblocks: u64,
    pub foreground_collections: u64,
    pub background_collections: u64,
    pub wear_leveling_moves: u64,
    /// Reads of old data for writes that covered part of a mapping unit.
    pub rmw_reads: u64,
    /// Host superblocks opened only after a collection finished at once (pacing fell behind).
    pub gc_stalls: u64,
}

/// Per interval: host units placed, units copied by GC, superblocks erased; and the free
/// superblock count as it changes.
pub(super) struct FtlSeries {
    counts: BucketSeries<3>,
    free: StepSeries<u32>,
    sampling: Sampling,
}

impl FtlSeries {
    pub fn new(origin: Instant, sampling: Sampling) -> Self {
        FtlSeries {
            counts: BucketSeries::new(origin, sampling.interval, sampling.max_points),
            free: StepSeries::new(origin, sampling.interval, sampling.max_points),
            sampling,
        }
    }

    #[inline]
    pub fn add(&mut self, t: Instant, values: [u64; 3]) {
        if values != [0; 3] {
            self.counts.add(t, values);
        }
    }

    #[inline]
    pub fn free(&mut self, t: Instant, free: u32) {
        self.free.record(t, free);
    }

    /// How it was asked to sample (a new measurement phase starts the same way).
    pub fn sampling(&self) -> Sampling {
        self.sampling
    }
}

impl Ftl {
    pub(super) fn ftl_report(&self, _now: Instant) -> FtlReport {
        let c = &self.ftl;
        let unit = self.spec.mapping_unit_bytes;
        let interval = self.series.counts.interval();
        let origin = self.series.counts.origin();
        let mut free_points = self.series.free.points().peekable();
        let mut free = self
            .series
            .free
            .points()
            .next()
            .map_or(self.free.len() as u32, |p| p.1);
        let samples = self
            .series
            .counts
            .buckets()
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let end = origin + Duration::from_ns((i as u64 + 1) * interval.ns());
                while let Some(&(t, f)) = free_points.peek() {
                    if t >= end {
                        break;
                    }
                    free = f;
                    free_points.next();
                }
                FtlSample {
                    t: end,
                    host_bytes: b[0] * unit,
                    gc_copied_bytes: b[1] * unit,
                    superblocks_erased: b[2],
                    free_superblocks: free,
                }
            })
            .collect();
        let dies = self.spec.nand.geometry.dies() as u64;
        FtlReport {
            victim_policy: self.policy.name().to_string(),
            mapping_unit_bytes: unit,
            over_provisioning_percent: self.spec.over_provisioning_percent,
            logical_bytes: self.spec.logical_units * unit,
            physical_bytes: self.spec.physical_units() * unit,
            superblocks: self.spec.superblocks(),
            superblock_bytes: self.spec.units_per_superblock() * unit,
            map_bytes: self.spec.map_bytes(),
            write_buffer_bytes: self.spec.write_buffer_units as u64
                * self.spec.nand.geometry.program_unit_bytes(),
            host_units: c.host_units,
            gc_copied_units: c.gc_copied_units,
            gc_copied_bytes: c.gc_copied_units * unit,
            gc_erased_superblocks: c.gc_erased_superblocks,
            gc_erased_blocks: c.gc_erased_superblocks * dies,
            foreground_collections: c.foreground_collections,
            background_collections: c.background_collections,
            wear_leveling_moves: c.wear_leveling_moves,
            rmw_reads: c.rmw_reads,
            gc_stalls: c.gc_stalls,
            waf: (c.host_units > 0)
                .then(|| (c.host_units_placed + c.gc_copied_units) as f64 / c.host_units as f64),
            free_superblocks: self.free.len() as u32,
            series_interval_ns: interval.ns(),
            samples,
            precondition: self.precondition.clone(),
        }
    }
}
