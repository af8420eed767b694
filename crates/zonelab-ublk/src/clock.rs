//! The device's time under ublk.
//!
//! `Virtual`: the clock moves only with the device, never with the wall. The commands the kernel
//! hands over together (one wake-up of the queue) start at the same device time, as commands
//! queued at once on an NVMe queue do; the clock then moves to the last of their completions,
//! since the host saw all of them complete before it sent more. There is no host think time,
//! so a run is as fast as host and server go, and the latencies and throughput ZoneLab records
//! are the model's for that command stream.
//!
//! `Realtime`: device time is wall time since the server started (plus the prefill's device
//! time), and each command completes to the kernel at the time the model computes, as the fio
//! engine's real-time mode and NVMeVirt do; idle time is real, so idle-time firmware work runs
//! between commands.

use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeMode {
    Virtual,
    Realtime,
}

impl TimeMode {
    pub fn parse(text: &str) -> Option<TimeMode> {
        match text {
            "virtual" => Some(TimeMode::Virtual),
            "realtime" => Some(TimeMode::Realtime),
            _ => None,
        }
    }
}

#[derive(Debug)]
pub struct Clock {
    mode: TimeMode,
    start_ns: u64,
    origin: Instant,
    virtual_ns: u64,
    batch_end_ns: u64,
}

impl Clock {
    pub fn new(mode: TimeMode, start_ns: u64) -> Self {
        Clock {
            mode,
            start_ns,
            origin: Instant::now(),
            virtual_ns: start_ns,
            batch_end_ns: start_ns,
        }
    }

    pub fn mode(&self) -> TimeMode {
        self.mode
    }

    /// The device time a command submitted now starts at.
    pub fn now_ns(&self) -> u64 {
        match self.mode {
            TimeMode::Virtual => self.virtual_ns,
            TimeMode::Realtime => self.start_ns + self.origin.elapsed().as_nanos() as u64,
        }
    }

    /// A command of the current batch completes at `done_ns`.
    pub fn completed(&mut self, done_ns: u64) {
        self.batch_end_ns = self.batch_end_ns.max(done_ns);
    }

    /// Every command of the batch has been completed to the host: virtual time moves to the
    /// last completion. Returns the new device time.
    pub fn end_batch(&mut self) -> u64 {
        if self.mode == TimeMode::Virtual {
            self.virtual_ns = self.virtual_ns.max(self.batch_end_ns);
        }
        self.now_ns()
    }

    /// Real-time mode: how long to hold a command the model completes at `done_ns`.
    pub fn hold(&self, done_ns: u64) -> Option<Duration> {
        match self.mode {
            TimeMode::Virtual => None,
            TimeMode::Realtime => {
                let now = self.now_ns();
                (done_ns > now).then(|| Duration::from_nanos(done_ns - now))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn virtual_time_moves_to_the_last_completion_of_a_batch() {
        let mut c = Clock::new(TimeMode::Virtual, 1_000);
        assert_eq!(c.now_ns(), 1_000);
        c.completed(5_000);
        c.completed(3_000);
        assert_eq!(c.now_ns(), 1_000, "commands of one batch start together");
        assert_eq!(c.end_batch(), 5_000);
        // A batch whose commands completed earlier (reads of buffered data) never moves it back.
        c.completed(4_000);
        assert_eq!(c.end_batch(), 5_000);
        assert_eq!(c.hold(9_000), None, "virtual time never holds a command");
    }

    #[test]
    fn realtime_holds_until_the_modelled_completion() {
        let c = Clock::new(TimeMode::Realtime, 0);
        let far = c.now_ns() + 3_600_000_000_000;
        assert!(c.hold(far).unwrap() > Duration::from_secs(3_000));
        assert_eq!(c.hold(0), None, "a completion in the past is due now");
    }

    #[test]
    fn mode_names() {
        assert_eq!(TimeMode::parse("virtual"), Some(TimeMode::Virtual));
        assert_eq!(TimeMode::parse("realtime"), Some(TimeMode::Realtime));
        assert_eq!(TimeMode::parse("wall"), None);
    }
}
