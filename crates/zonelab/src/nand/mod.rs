//! NAND flash: per-die timelines, the channel and host-link calendars, and the operation counters
//! that energy and wear are computed from.
//!
//! A die serves its own operations in order. A page read holds the die for tR; its data then
//! waits in the die's registers until the channel takes it, pages of one die leaving in the
//! order they were sensed, while the die senses the next page (ONFI cache read, with the planes
//! folded into the die holding the waiting pages; FEMU also frees the die after tR). Without
//! cache read (`cache_read = false`; NVMeVirt holds the die until its transfer ends) the die is
//! held until the page has left.
//! A program moves a program unit over the channel and then holds the die for tPROG; an erase
//! holds the die for tBERS. Both wait until the die's registers are empty. Channels and each direction of the host
//! link are shared: each keeps a [`Calendar`] of busy intervals and a transfer takes the earliest
//! gap at or after its data is ready. Completion times follow at submission, O(log n) per page
//! in the intervals still ahead, which is what lets the simulator run far faster than real time.
//!
//! With erase suspend on, a read reaching a die during an erase suspends it (paying the suspend
//! time), is served, and the erase resumes (paying the resume time) later by that much. With read
//! priority on, a read goes ahead of the programs queued on its die ([`priority`]).
//!
//! With aging on (`aging`, off by default), a page's tR and tPROG depend on its page type and a
//! read may be retried; callers that know the page (`read_page_at`, `program_unit_at`) get those
//! costs, and without aging they cost exactly what `read_page` and `program_unit` do.

mod aging;
mod calendar;
mod controller;
mod counters;
mod dies;
mod layout;
mod priority;
mod slow;
mod spec;
mod state;
mod wear;

pub use aging::{AgingSpec, CellType, InitialWear, RetryModel};
pub use calendar::Calendar;
use controller::Controller;
pub use controller::ControllerSpec;
pub use counters::{EnergyNj, NandCounters};
pub use dies::DieSet;
pub use layout::{Divisor, Layout, UnitAddress};
pub use spec::{Energy, EraseSuspend, NandGeometry, NandSpec, NandTiming};
pub use state::NandState;
pub use wear::WearSummary;
use wear::WearTable;

use crate::time::{Duration, Instant, Rate};

/// Reads of at most this much of a page are partial-page reads (`read_4k_latency`).
pub const SMALL_READ_BYTES: u64 = 4096;

/// One die's timeline.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
struct Die {
    /// When the die can start its next operation.
    free: u64,
    /// When the last page read from the die has left over the channel.
    cache_free: u64,
    /// The last booked operation is an erase run (erases back to back) that started here.
    erase_run_start: Option<u64>,
    /// End of the last read served inside the erase run (erase suspend).
    suspended_until: u64,
    /// When the latest erase on this die ends (to tell how long other work waited on it).
    erase_end: u64,
    /// When the last read on this die was sensed, and when its page left over the channel.
    read_end: u64,
    read_out: u64,
}

pub struct Nand {
    geometry: NandGeometry,
    timing: NandTiming,
    /// Derived from the geometry and timing for the hot paths: die -> channel, transfer times.
    channel_div: Divisor,
    channel_rate: Rate,
    host_rate: Rate,
    /// A program unit's channel time: its bytes and the operation's command cycles.
    unit_xfer: Duration,
    controller: Controller,
    dies: Vec<Die>,
    channels: Vec<Calendar>,
    host_in: Calendar,
    host_out: Calendar,
    /// No operation can be ready before this (the time of the command being served).
    horizon: Instant,
    /// The latest end of anything booked on a die, channel or link: when all of them are idle
    /// (kept as work is booked, so asking costs nothing however many dies there are).
    idle: u64,
    erase_counts: Vec<u32>,
    /// The erase counts tallied (kept with them, for reports).
    wear: WearTable,
    /// With read priority on: per die, the programs booked that have not ended.
    programs: Vec<priority::ProgramQueue>,
    /// The longest wait on an erase of any operation since [`Nand::take_erase_wait`].
    erase_wait: Duration,
    /// With tracing on: the dies used since [`Nand::take_touched`].
    touched: Option<DieSet>,
    pub counters: NandCounters,
    /// Page types and read retries (None: aging off).
    aging: Option<Box<aging::Aging>>,
    /// Dies running slower for a while (a run-time fault; not kept in state files).
    slow: slow::Slowdown,
}

impl Nand {
    pub fn new(geometry: &NandGeometry, timing: &NandTiming) -> Self {
        Nand {
            dies: vec![Die::default(); geometry.dies() as usize],
            channels: vec![Calendar::default(); geometry.channels as usize],
            host_in: Calendar::default(),
            host_out: Calendar::default(),
            horizon: Instant::ZERO,
            idle: 0,
            erase_counts: vec![0; geometry.total_blocks() as usize],
            wear: WearTable::fresh(geometry.total_blocks()),
            programs: if timing.read_priority {
                vec![priority::ProgramQueue::default(); geometry.dies() as usize]
            } else {
                Vec::new()
            },
            erase_wait: Duration::ZERO,
            touched: None,
            counters: NandCounters::default(),
            aging: None,
            slow: slow::Slowdown::default(),
            channel_div: Divisor::new(geometry.channels as u64),
            channel_rate: Rate::new(timing.channel_rate_mb_s),
            host_rate: Rate::new(timing.host_rate_mb_s),
            unit_xfer: Duration::transfer(geometry.program_unit_bytes(), timing.channel_rate_mb_s)
                + timing.channel_op,
            controller: Controller::new(&ControllerSpec::default()),
            geometry: geometry.clone(),
            timing: timing.clone(),
        }
    }

    /// The NAND `spec` describes, aging included.
    pub fn from_spec(spec: &NandSpec) -> Self {
        let mut nand = Nand::new(&spec.geometry, &spec.timing);
        nand.controller = Controller::new(&spec.controller);
        if let Some(a) = &spec.aging {
            let aging = aging::Aging::new(a, &spec.geometry, &mut nand.erase_counts);
            nand.wear = WearTable::of(&nand.erase_counts);
            nand.aging = Some(Box::new(aging));
        }
        nand
    }

    pub fn geometry(&self) -> &NandGeometry {
        &self.geometry
    }

    pub fn timing(&self) -> &NandTiming {
        &self.timing
    }

    /// The time of the command being served: nothing booked from now on is ready earlier, so
    /// calendar intervals that ended by then can be forgotten.
    #[inline]
    pub fn set_now(&mut self, now: Instant) {
        self.horizon = self.horizon.max(now);
    }

    /// The time of the command being served.
    #[inline]
    pub fn now(&self) -> Instant {
        self.horizon
    }

    pub fn set_tracing(&mut self, on: bool) {
        self.touched = on.then(DieSet::default);
    }

    /// The dies used since the last call (tracing on), and a fresh start.
    pub fn take_touched(&mut self) -> Option<DieSet> {
        self.touched.as_mut().map(std::mem::take)
    }

    #[inline]
    fn touch(&mut self, die: u32) {
        if let Some(t) = &mut self.touched {
            t.insert(die);
        }
    }

    /// The controller's firmware takes a command that arrived at `ready` and costs `overhead`
    /// of firmware time; returns when its NAND work may start (see [`controller`]).
    #[inline]
    pub fn firmware(&mut self, ready: Instant, overhead: Duration) -> Instant {
        // (Not in `idle`: the command's own work, booked from `done` on, or the device's
        // busy time for a command with none, covers it.)
        self.controller.process(ready, overhead)
    }

    /// Host to device transfer of a write's data; returns when it has all arrived.
    pub fn host_in(&mut self, ready: Instant, bytes: u64) -> Instant {
        let len = self.host_rate.transfer(bytes);
        let end = self.host_in.reserve(ready, len, self.horizon) + len;
        self.idle = self.idle.max(end.ns());
        end
    }

    /// Device to host transfer of read data; returns when it has arrived.
    pub fn host_out(&mut self, ready: Instant, bytes: u64) -> Instant {
        let len = self.host_rate.transfer(bytes);
        let end = self.host_out.reserve(ready, len, self.horizon) + len;
        self.idle = self.idle.max(end.ns());
        end
    }

    /// Notes how long an operation ready at `ready` that starts at `start` on die `d` waited for
    /// an erase there.
    #[inline]
    fn note_erase_wait(&mut self, d: usize, ready: u64, start: u64) {
        let e = self.dies[d].erase_end;
        if e > ready {
            let wait = Duration::from_ns(start.min(e) - ready);
            self.erase_wait = self.erase_wait.max(wait);
        }
    }

    /// The longest erase wait since the last call, and a fresh start.
    pub fn take_erase_wait(&mut self) -> Duration {
        std::mem::take(&mut self.erase_wait)
    }

    /// Reads one page on `die` and moves `bytes` of it over the channel; returns when the data
    /// is in the controller.
    pub fn read_page(&mut self, ready: Instant, die: u32, bytes: u64) -> Instant {
        let tr = self.sense_time(bytes);
        self.read_sensed(ready, die, bytes, tr)
    }

    /// tR for a read of `bytes` of one page: a partial-page read of at most 4 KiB senses
    /// faster where the NAND supports it.
    #[inline]
    fn sense_time(&self, bytes: u64) -> Duration {
        if bytes <= SMALL_READ_BYTES {
            self.timing.read_4k_latency
        } else {
            self.timing.read_latency
        }
    }

    /// As [`Nand::read_page`], for page `page` of block `addr`: with aging on, the page type's
    /// tR and any read retries apply.
    #[inline]
    pub fn read_page_at(
        &mut self,
        ready: Instant,
        addr: UnitAddress,
        page: u32,
        bytes: u64,
    ) -> Instant {
        let mut tr = self.sense_time(bytes);
        if let Some(a) = &mut self.aging {
            let block = self.geometry.block_index(addr);
            let small = bytes <= SMALL_READ_BYTES;
            let (t, retries) = a.read(block, page, self.erase_counts[block], ready, tr, small);
            tr = t;
            self.counters.read_retries += retries as u64;
        }
        self.read_sensed(ready, addr.die, bytes, tr)
    }

    /// Operations booked on `die` from now on take `permille` / 1000 times their sensing,
    /// program or erase time (a die slowed by a fault; 1000 is full speed again). False, and
    /// nothing changed, for a die that does not exist or a factor of 0.
    pub fn set_die_slowdown(&mut self, die: u32, permille: u32) -> bool {
        let dies = self.geometry.dies();
        if die >= dies || permille == 0 {
            return false;
        }
        self.slow.set(dies, die, permille);
        true
    }

    /// A page read whose sensing takes `tr`.
    fn read_sensed(&mut self, ready: Instant, die: u32, bytes: u64, tr: Duration) -> Instant {
        let tr = self.slow.scale(die, tr);
        self.touch(die);
        self.counters.page_reads += 1;
        let d = die as usize;
        let ch = self.channel_div.rest(die as u64) as usize;
        let xfer = self.channel_rate.transfer(bytes) + self.timing.channel_op;
        let die_state = self.dies[d];
        if let (Some(suspend), Some(run_start)) =
            (self.timing.erase_suspend, die_state.erase_run_start)
            && ready.ns() < die_state.free
        {
            // The die is erasing (or will be, once what is ahead of the erase ends): suspend.
            let r = ready.ns().max(run_start);
            let (begin, extra) = if r < die_state.suspended_until {
                (die_state.suspended_until, Duration::ZERO)
            } else {
                self.counters.erase_suspends += 1;
                (r + suspend.suspend.ns(), suspend.suspend + suspend.resume)
            };
            let sensed = Instant::from_ns(begin) + tr;
            let ready_out = sensed.max(Instant::from_ns(die_state.cache_free));
            let end = self.channels[ch].reserve(ready_out, xfer, self.horizon) + xfer;
            let held = if self.timing.cache_read {
                tr + extra
            } else {
                tr + extra + (end - sensed)
            };
            let die_state = &mut self.dies[d];
            die_state.free += held.ns();
            die_state.erase_end = die_state.free;
            die_state.suspended_until = sensed.ns();
            die_state.cache_free = end.ns();
            self.idle = self.idle.max(die_state.free).max(end.ns());
            self.erase_wait = self.erase_wait.max(Duration::from_ns(begin - ready.ns()));
            return end;
        }
        if self.timing.read_priority
            && ready.ns() < die_state.free
            && let Some(end) = self.read_ahead_of_programs(ready, d, ch, xfer, tr)
        {
            return end;
        }
        let begin = ready.ns().max(die_state.free);
        self.note_erase_wait(d, ready.ns(), begin);
        let sensed = Instant::from_ns(begin) + tr;
        // Pages of one die leave in the order they were sensed.
        let out = sensed.max(Instant::from_ns(die_state.cache_free));
        let end = self.channels[ch].reserve(out, xfer, self.horizon) + xfer;
        let die_state = &mut self.dies[d];
        // With cache read the die senses the next page while this one leaves; without, it is
        // held until then.
        die_state.free = if self.timing.cache_read {
            sensed.ns()
        } else {
            end.ns()
        };
        die_state.cache_free = end.ns();
        die_state.erase_run_start = None;
        die_state.read_end = sensed.ns();
        die_state.read_out = end.ns();
        self.idle = self.idle.max(end.ns());
        end
    }

    /// Programs one program unit at `addr` once its data is ready in the controller; returns
    /// when it is durable.
    pub fn program_unit(&mut self, ready: Instant, addr: UnitAddress) -> Instant {
        let tprog = self.timing.program_latency;
        self.program_for(ready, addr, tprog)
    }

    /// As [`Nand::program_unit`], for program unit `unit` of block `addr`: with aging on, a
    /// single-page unit takes its page type's tPROG, and the block's data age starts.
    #[inline]
    pub fn program_unit_at(&mut self, ready: Instant, addr: UnitAddress, unit: u32) -> Instant {
        let mut tprog = self.timing.program_latency;
        if let Some(a) = &self.aging
            && self.geometry.pages_per_program == 1
        {
            tprog = a.program_time(unit, tprog);
        }
        let done = self.program_for(ready, addr, tprog);
        if let Some(a) = &mut self.aging {
            a.programmed(self.geometry.block_index(addr), done);
        }
        done
    }

    /// A program whose die time is `tprog`.
    fn program_for(&mut self, ready: Instant, addr: UnitAddress, tprog: Duration) -> Instant {
        let tprog = self.slow.scale(addr.die, tprog);
        self.touch(addr.die);
        self.counters.page_programs += self.geometry.pages_per_program as u64;
        let d = addr.die as usize;
        let ch = self.channel_div.rest(addr.die as u64) as usize;
        let at_die = ready
            .ns()
            .max(self.dies[d].free)
            .max(self.dies[d].cache_free);
        self.note_erase_wait(d, ready.ns(), at_die);
        let xfer = self.unit_xfer;
        let loaded = self.channels[ch].reserve(Instant::from_ns(at_die), xfer, self.horizon) + xfer;
        let done = loaded + tprog;
        let die_state = &mut self.dies[d];
        die_state.free = done.ns();
        die_state.cache_free = done.ns();
        die_state.erase_run_start = None;
        if let Some(queue) = self.programs.get_mut(d) {
            queue.book(at_die, done.ns(), self.horizon.ns());
        }
        self.idle = self.idle.max(done.ns());
        done
    }

    /// Erases one block; the die is held for tBERS. Returns when the erase is done.
    pub fn erase_block(&mut self, ready: Instant, addr: UnitAddress) -> Instant {
        self.touch(addr.die);
        let tbers = self.slow.scale(addr.die, self.timing.erase_latency).ns();
        let d = &self.dies[addr.die as usize];
        let mut start = ready.ns().max(d.free).max(d.cache_free);
        let op = self.timing.channel_op;
        if op > Duration::ZERO {
            // The erase command's cycles on the channel, then tBERS on the die.
            let ch = self.channel_div.rest(addr.die as u64) as usize;
            start =
                (self.channels[ch].reserve(Instant::from_ns(start), op, self.horizon) + op).ns();
        }
        let die_state = &mut self.dies[addr.die as usize];
        if die_state.erase_run_start.is_none() || start != die_state.free {
            die_state.erase_run_start = Some(start);
            die_state.suspended_until = 0;
        }
        die_state.free = start + tbers;
        die_state.erase_end = die_state.free;
        let free = die_state.free;
        self.count_erase(addr);
        self.idle = self.idle.max(free);
        Instant::from_ns(free)
    }

    /// Counts an erase of `addr` that takes no simulated time (a preconditioning phase).
    pub fn count_erase(&mut self, addr: UnitAddress) {
        let block = self.geometry.block_index(addr);
        self.wear.erased(self.erase_counts[block]);
        self.erase_counts[block] += 1;
        self.counters.block_erases += 1;
        if let Some(a) = &mut self.aging {
            a.erased(block);
        }
    }

    /// When every die, channel and link is idle (O(1)).
    pub fn idle_at(&self) -> Instant {
        Instant::from_ns(self.idle)
    }

    /// [`Nand::idle_at`] from every timeline: a scan of every die and channel (tests; test
    /// builds count the scans in [`SCANS`]).
    pub fn idle_at_scanned(&self) -> Instant {
        #[cfg(test)]
        SCANS.with(|s| s.set(s.get() + 1));
        let dies = self
            .dies
            .iter()
            .map(|d| d.free.max(d.cache_free))
            .max()
            .unwrap_or(0);
        let channels = self.channels.iter().map(Calendar::end).max();
        Instant::from_ns(dies)
            .max(channels.unwrap_or(Instant::ZERO))
            .max(self.host_in.end())
            .max(self.host_out.end())
    }

    /// When die `die` has served everything booked on it.
    pub fn die_free(&self, die: u32) -> Instant {
        let d = &self.dies[die as usize];
        Instant::from_ns(d.free.max(d.cache_free))
    }

    pub fn reset_counters(&mut self) {
        self.counters = NandCounters::default();
    }

    /// Records `blocks` programmed pages as if written (prefill set directly).
    pub fn count_programs(&mut self, units: u64) {
        self.counters.page_programs += units * self.geometry.pages_per_program as u64;
    }

    /// Erase count of every block, die by die.
    pub fn erase_counts(&self) -> &[u32] {
        &self.erase_counts
    }

    pub fn wear(&self) -> WearSummary {
        self.wear.summary()
    }

    /// Checks the calendars' invariants and the wear tally (tests).
    pub fn check_invariants(&self) {
        assert_eq!(
            self.idle_at_scanned(),
            self.idle_at(),
            "the idle time kept differs from every timeline's end"
        );
        assert_eq!(
            self.wear,
            WearTable::of(&self.erase_counts),
            "the wear tally differs from the erase counts"
        );
        for c in self.channels.iter().chain([&self.host_in, &self.host_out]) {
            c.check();
        }
        for (queue, die) in self.programs.iter().zip(&self.dies) {
            queue.check();
            assert!(
                queue.last_end().is_none_or(|end| end <= die.free),
                "a die is free before its last program ends"
            );
        }
    }
}

#[cfg(test)]
thread_local! {
    /// How many times this thread scanned every die and channel ([`Nand::idle_at_scanned`]):
    /// tests check that no per-command path does (its cost would grow with the dies).
    pub(crate) static SCANS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
mod tests;
