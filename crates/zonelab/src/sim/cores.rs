//! Modelled host cores: CPU work a host task asks for runs on the first core free, in the order
//! asked (FIFO, not preempted), so CPU-bound host threads queue as real threads on a busy
//! machine do. With one core per task nothing waits; with fewer, work waits for a core.

use crate::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct Cores {
    /// When each core is next free.
    free: Vec<Instant>,
    /// CPU time handed out, per core.
    busy: Vec<Duration>,
    /// Total time work waited for a core.
    waited: Duration,
}

impl Cores {
    pub fn new(count: u32) -> Self {
        assert!(count > 0, "at least one core (checked by config)");
        Cores {
            free: vec![Instant::ZERO; count as usize],
            busy: vec![Duration::ZERO; count as usize],
            waited: Duration::ZERO,
        }
    }

    /// Runs `duration` of work that becomes runnable at `now`; returns when it ends.
    pub fn run(&mut self, now: Instant, duration: Duration) -> Instant {
        if duration.is_zero() {
            return now;
        }
        let (core, &free) = self
            .free
            .iter()
            .enumerate()
            .min_by_key(|&(i, &t)| (t.max(now), i))
            .expect("at least one core");
        let start = free.max(now);
        self.waited += start - now;
        self.free[core] = start + duration;
        self.busy[core] += duration;
        start + duration
    }

    /// Starts CPU accounting again (a new measured phase); cores keep their queued work.
    pub fn restart(&mut self) {
        self.busy.iter_mut().for_each(|b| *b = Duration::ZERO);
        self.waited = Duration::ZERO;
    }

    pub fn count(&self) -> u32 {
        self.free.len() as u32
    }

    /// CPU time used, all cores together.
    pub fn busy(&self) -> Duration {
        self.busy.iter().copied().sum()
    }

    /// Time work spent waiting for a core, all work together.
    pub fn waited(&self) -> Duration {
        self.waited
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_queues_when_the_cores_are_busy() {
        let mut c = Cores::new(2);
        let t = Instant::ZERO;
        let d = Duration::from_us(10);
        assert_eq!(c.run(t, d), t + d);
        assert_eq!(c.run(t, d), t + d);
        assert_eq!(c.run(t, d), t + d + d, "the third waits for a core");
        assert_eq!(c.waited(), d);
        assert_eq!(c.busy(), Duration::from_us(30));
    }
}
