//! A run's limits: the seed swarm's hang checks (an event budget, a simulated-time budget),
//! a front end's interrupt (Ctrl-C), and the sign of a run that cannot progress (events at one
//! instant without end). Checked by the kernel's loop ([`Watch`]) at O(1) per event.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::RunError;
use crate::report::EarlyStop;
use crate::time::{Duration, Instant};

/// Bounds on a run: the seed swarm's hang checks (an event and a simulated-time budget), and a
/// front end's interrupt (Ctrl-C). A run stopped by one still ends with its results so far,
/// and its summary says why it stopped ([`Summary::stopped_early`]).
#[derive(Clone, Default)]
pub struct RunLimits {
    /// Stop after this many events.
    pub max_events: Option<u64>,
    /// Stop once the simulated clock passes this long after the run's start.
    pub max_simulated: Option<Duration>,
    /// Set from outside the run (a signal handler) to stop it; read every
    /// [`STOP_CHECK_EVENTS`] events, so a stop costs nothing per event.
    pub stop: Option<Arc<AtomicBool>>,
}

/// How often a run looks at its stop flag and reports progress (events).
pub const STOP_CHECK_EVENTS: u64 = 1 << 12;

/// Events at one simulated instant past which a run cannot be making progress: host tasks or
/// the device wake each other without the clock moving (chosen: 2^24 is thousands of times the
/// most events any shipped experiment handles at one instant, 1,000 host threads starting).
pub const MAX_EVENTS_AT_ONE_INSTANT: u64 = 1 << 24;

/// The limits as the kernel's loop applies them.
pub(super) struct Watch {
    limits: RunLimits,
    until: Option<Instant>,
    instant: Instant,
    at_instant: u64,
}

impl Watch {
    pub fn new(limits: &RunLimits, start: Instant) -> Self {
        Watch {
            until: limits.max_simulated.map(|d| start + d),
            limits: limits.clone(),
            instant: start,
            at_instant: 0,
        }
    }

    /// Before the event at `now`: stop past the simulated-time budget; an error when the
    /// clock has stood still for too many events.
    pub fn before(&mut self, now: Instant) -> Result<Option<EarlyStop>, RunError> {
        if now == self.instant {
            self.at_instant += 1;
            if self.at_instant > MAX_EVENTS_AT_ONE_INSTANT {
                return Err(RunError::NoProgress {
                    at: now,
                    events: self.at_instant,
                });
            }
        } else {
            (self.instant, self.at_instant) = (now, 1);
        }
        Ok(self
            .until
            .is_some_and(|u| now > u)
            .then_some(EarlyStop::SimulatedTime))
    }

    /// After `events` events: stop at the event budget, or when the stop flag is set (read
    /// every [`STOP_CHECK_EVENTS`] events).
    pub fn after(&self, events: u64) -> Option<EarlyStop> {
        if self.limits.max_events.is_some_and(|m| events >= m) {
            return Some(EarlyStop::Events);
        }
        let stop = events.is_multiple_of(STOP_CHECK_EVENTS)
            && self
                .limits
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed));
        stop.then_some(EarlyStop::Interrupted)
    }
}
