//! The controller's firmware between the host link and the channels. Every command costs
//! firmware time before it reaches the NAND (its overhead: `read_overhead_ns` and its siblings):
//! a pipeline of stages (fetch and parse, translation, NAND scheduling, completion) that a
//! command passes through in that time. Stages run on the controller's cores, so the pipeline
//! holds `parallelism` commands' worth of work at once: a command waits, first come first
//! served, until the pipeline has room, and occupies it for `overhead / parallelism`. The
//! overhead is the latency a command sees at queue depth 1; `parallelism / overhead` caps the
//! commands per second a drive reaches at depth whatever its NAND could do (the ZN540's 4 KiB
//! reads, writes and appends all level off at about 1.75 / overhead: docs/validation.md).
//! `parallelism = 0` leaves the firmware unlimited, its overhead a pure latency (NVMeVirt's
//! model, `FW_*_LATENCY`).
//!
//! Firmware time also varies: with `jitter_mean` set, each command's firmware time grows by an
//! exponentially distributed draw of that mean (capped at 20 means). The exponential form is
//! chosen: a memoryless delay (interrupt coalescing, queue arbitration, background firmware
//! tasks) with one parameter a user can fit from a measured mean and tail. Draws come from a
//! counter hashed with the run's seed (SplitMix64), so runs repeat exactly and no workload's
//! random stream moves.

use serde::{Deserialize, Serialize};

use crate::time::{Duration, Instant};

/// The jitter draw never goes beyond this many means (chosen: an exponential passes 20 means
/// once in 485 million draws, so the cap only bounds the arithmetic).
const JITTER_CAP_MEANS: f64 = 20.0;

/// How the firmware is built (validated by `config`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ControllerSpec {
    /// Commands' worth of firmware work in progress at once (0: unlimited).
    pub parallelism: f64,
    /// Mean extra firmware time per command (zero: none).
    pub jitter_mean: Duration,
    /// The run's seed (jitter draws from it).
    pub seed: u64,
}

/// What a device state file keeps of the controller.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct ControllerState {
    free: u64,
    draws: u64,
}

#[derive(Clone, Debug)]
pub(super) struct Controller {
    /// When the pipeline has room for the next command, in ns.
    free: u64,
    /// 1 / parallelism (0: unlimited).
    share: f64,
    jitter_mean_ns: f64,
    seed: u64,
    /// Jitter draws so far (the hash counter).
    draws: u64,
}

/// SplitMix64: a counter turned into a uniform 64-bit value.
#[inline]
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Controller {
    pub fn new(spec: &ControllerSpec) -> Self {
        Controller {
            free: 0,
            share: if spec.parallelism > 0.0 {
                1.0 / spec.parallelism
            } else {
                0.0
            },
            jitter_mean_ns: spec.jitter_mean.ns() as f64,
            seed: spec.seed,
            draws: 0,
        }
    }

    /// A command arriving at `now` whose firmware time is `overhead`: when the firmware is done
    /// with it and its NAND work may start.
    #[inline]
    pub fn process(&mut self, now: Instant, overhead: Duration) -> Instant {
        let mut busy = overhead.ns();
        if self.jitter_mean_ns > 0.0 {
            busy += self.jitter();
        }
        if self.share == 0.0 || busy == 0 {
            return Instant::from_ns(now.ns() + busy);
        }
        let start = now.ns().max(self.free);
        self.free = start + (busy as f64 * self.share).round() as u64;
        Instant::from_ns(start + busy)
    }

    /// One jitter draw in ns: exponential with the configured mean, capped.
    #[inline]
    fn jitter(&mut self) -> u64 {
        self.draws += 1;
        let x = mix(self.seed ^ mix(self.draws ^ 0x4a49_5454)); // "JITT"
        let u = ((x >> 11) + 1) as f64 / (1u64 << 53) as f64; // (0, 1]
        ((-u.ln()).min(JITTER_CAP_MEANS) * self.jitter_mean_ns) as u64
    }

    pub fn save(&self) -> ControllerState {
        ControllerState {
            free: self.free,
            draws: self.draws,
        }
    }

    pub fn restore(&mut self, s: ControllerState) {
        self.free = s.free;
        self.draws = s.draws;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn controller(parallelism: f64, jitter_mean_ns: u64) -> Controller {
        Controller::new(&ControllerSpec {
            parallelism,
            jitter_mean: Duration::from_ns(jitter_mean_ns),
            seed: 7,
        })
    }

    #[test]
    fn unlimited_firmware_is_a_pure_latency() {
        let mut c = controller(0.0, 0);
        let t = Instant::from_ns(1_000);
        for _ in 0..100 {
            assert_eq!(c.process(t, Duration::from_ns(500)), Instant::from_ns(1_500));
        }
    }

    #[test]
    fn the_pipeline_caps_commands_per_second_not_latency() {
        let mut c = controller(2.0, 0);
        let d = Duration::from_ns(10);
        // Each command occupies the pipeline for 10 / 2 = 5 ns and is done 10 ns after it
        // enters: five at once enter at 0, 5, 10, 15, 20.
        let done: Vec<u64> = (0..5).map(|_| c.process(Instant::ZERO, d).ns()).collect();
        assert_eq!(done, [10, 15, 20, 25, 30]);
        // One arriving once the pipeline has room waits for nothing.
        assert_eq!(c.process(Instant::from_ns(100), d).ns(), 110);
        // In the long run: parallelism / overhead commands per ns.
        let mut c = controller(1.75, 0);
        let last = (0..7_000)
            .map(|_| c.process(Instant::ZERO, Duration::from_ns(7_000)).ns())
            .last()
            .unwrap();
        let rate = 7_000.0 / last as f64;
        assert!((rate - 1.75 / 7_000.0).abs() / (1.75 / 7_000.0) < 0.01, "{rate}");
    }

    #[test]
    fn jitter_is_exponential_and_repeatable() {
        let draw = || {
            let mut c = controller(0.0, 1_000);
            (0..50_000)
                .map(|_| c.process(Instant::ZERO, Duration::ZERO).ns())
                .collect::<Vec<u64>>()
        };
        let first = draw();
        assert_eq!(first, draw(), "same seed, same draws");
        let mean = first.iter().sum::<u64>() as f64 / first.len() as f64;
        assert!((mean - 1_000.0).abs() < 20.0, "mean {mean}");
        // P(X > 3 means) = e^-3 = 4.98%.
        let tail = first.iter().filter(|&&x| x > 3_000).count() as f64 / first.len() as f64;
        assert!((tail - 0.0498).abs() < 0.004, "tail {tail}");
    }

    #[test]
    fn state_round_trips() {
        let mut c = controller(3.0, 100);
        for i in 0..10 {
            c.process(Instant::from_ns(i * 7), Duration::from_ns(50));
        }
        let mut d = controller(3.0, 100);
        d.restore(c.save());
        assert_eq!(
            c.process(Instant::from_ns(20), Duration::from_ns(5)),
            d.process(Instant::from_ns(20), Duration::from_ns(5))
        );
    }
}
