//! The firmware a device runs: one placement and one erase scheduler, and the specification
//! that names them.

use serde::{Deserialize, Serialize};

use super::erase::{
    AnyScheduler, AtReset, Background, Disposal, EraseTiming, IdleScope, InvalidOrder, OnDemand,
    Preemptive, S2Erases, ZonePool,
};
use super::placement::{
    AnyPlacement, FreeList, Pick, PlacementKind, Renewable, RenewableSettings, RoundRobin, Static,
};
use super::{
    Allocation, CompactionCandidate, Dead, EraseOrder, FirmwareReport, IdleView, ResetDecision,
    ResetView, TimerDecision, WearView, ZombieCandidate,
};
use crate::device::report::CombinedReport;
use crate::metrics::series::Sampling;
use crate::nand::Layout;
use crate::time::Instant;

/// A validated firmware choice (built by `config` from the experiment's `[firmware]`): one of
/// the papers' policies, or any valid pair.
#[derive(Clone, Debug, PartialEq)]
pub enum PolicySpec {
    Synchronous {
        erase_all_blocks: bool,
    },
    Mapping {
        t_free: u32,
        s2_erases: S2Erases,
        wp_optimisation: bool,
    },
    Preemptive {
        t_free: u32,
        s2_erases: S2Erases,
        t_invalid: u32,
        wp_optimisation: bool,
        idle: IdleScope,
    },
    Renewable {
        settings: RenewableSettings,
        erase_all_blocks: bool,
    },
    /// The small-zone SSD's placement: next die in round-robin order, lazy erase.
    RoundRobin,
    Pair(PairSpec),
}

/// A placement, an erase scheduler and the settings of both.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairSpec {
    pub placement: PlacementKind,
    pub erase: EraseTiming,
    /// For the renewable placement.
    pub renewable: RenewableSettings,
    /// For the on-demand and preemptive schedulers.
    pub t_free: u32,
    pub s2_erases: S2Erases,
    pub invalid_order: InvalidOrder,
    /// For the preemptive scheduler.
    pub t_invalid: u32,
    pub idle: IdleScope,
    /// Erase every block of a dead zone, not only those holding its units.
    pub erase_all_blocks: bool,
}

impl PairSpec {
    /// `placement` with `erase`, every setting at its default.
    pub fn new(placement: PlacementKind, erase: EraseTiming) -> Self {
        PairSpec {
            placement,
            erase,
            renewable: RenewableSettings::default(),
            t_free: 1,
            s2_erases: S2Erases::default(),
            invalid_order: InvalidOrder::default(),
            t_invalid: 1,
            idle: IdleScope::default(),
            erase_all_blocks: false,
        }
    }

    /// A static placement erases in place at the reset, so it pairs with `at_reset` only.
    pub fn is_valid(&self) -> bool {
        self.placement != PlacementKind::Static || self.erase == EraseTiming::AtReset
    }

    /// The papers' name for the pair, or `placement+erase`.
    pub fn name(&self) -> &'static str {
        use EraseTiming as E;
        use PlacementKind as P;
        match (self.placement, self.erase) {
            (P::Static, E::AtReset) => "synchronous",
            (P::Static, _) => "static (invalid)",
            (P::Queue, E::AtReset) => "queue+at_reset",
            (P::Queue, E::Background) => "queue+background",
            (P::Queue, E::OnDemand) => "mapping",
            (P::Queue, E::Preemptive) => "preemptive",
            (P::LeastWorn, E::AtReset) => "least_worn+at_reset",
            (P::LeastWorn, E::Background) => "least_worn+background",
            (P::LeastWorn, E::OnDemand) => "least_worn+on_demand",
            (P::LeastWorn, E::Preemptive) => "least_worn+preemptive",
            (P::RoundRobin, E::AtReset) => "round_robin+at_reset",
            (P::RoundRobin, E::Background) => "round_robin",
            (P::RoundRobin, E::OnDemand) => "round_robin+on_demand",
            (P::RoundRobin, E::Preemptive) => "round_robin+preemptive",
            (P::Renewable, E::AtReset) => "renewable",
            (P::Renewable, E::Background) => "renewable+background",
            (P::Renewable, E::OnDemand) => "renewable+on_demand",
            (P::Renewable, E::Preemptive) => "renewable+preemptive",
        }
    }

    /// Every valid pair, settings at their defaults.
    pub fn all() -> impl Iterator<Item = PairSpec> {
        PlacementKind::ALL
            .into_iter()
            .flat_map(|p| EraseTiming::ALL.map(|e| PairSpec::new(p, e)))
            .filter(PairSpec::is_valid)
    }
}

impl PolicySpec {
    /// The policy as a placement and an erase scheduler.
    pub fn pair(&self) -> PairSpec {
        use EraseTiming as E;
        use PlacementKind as P;
        match *self {
            PolicySpec::Synchronous { erase_all_blocks } => PairSpec {
                erase_all_blocks,
                ..PairSpec::new(P::Static, E::AtReset)
            },
            PolicySpec::Mapping {
                t_free,
                s2_erases,
                wp_optimisation,
            } => PairSpec {
                t_free,
                s2_erases,
                erase_all_blocks: !wp_optimisation,
                ..PairSpec::new(P::Queue, E::OnDemand)
            },
            PolicySpec::Preemptive {
                t_free,
                s2_erases,
                t_invalid,
                wp_optimisation,
                idle,
            } => PairSpec {
                t_free,
                s2_erases,
                t_invalid,
                idle,
                erase_all_blocks: !wp_optimisation,
                ..PairSpec::new(P::Queue, E::Preemptive)
            },
            PolicySpec::Renewable {
                settings,
                erase_all_blocks,
            } => PairSpec {
                renewable: settings,
                erase_all_blocks,
                ..PairSpec::new(P::Renewable, E::AtReset)
            },
            PolicySpec::RoundRobin => PairSpec::new(P::RoundRobin, E::Background),
            PolicySpec::Pair(pair) => pair,
        }
    }

    pub fn name(&self) -> &'static str {
        self.pair().name()
    }
}

/// One placement and one erase scheduler. The device talks to this; it forwards each event to
/// the seam it concerns and moves zones between them (a dead zone from the placement to the
/// scheduler, an erased one back).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Firmware {
    placement: AnyPlacement,
    erase: AnyScheduler,
}

/// The firmware's whole state, as a device state file keeps it.
pub type PolicyState = Firmware;

/// The synchronous firmware (tests and small tools): static placement, erase at reset.
pub fn synchronous(erase_all_blocks: bool) -> Firmware {
    Firmware {
        placement: AnyPlacement::Static(Static),
        erase: AnyScheduler::AtReset(AtReset {
            erase_all_blocks,
            rows_per_zone: 0,
        }),
    }
}

/// The firmware `spec` names, for `zone_count` physical zones laid out as `layout`, each of
/// `cap_units` program units; its time series sample as `sampling` says.
pub fn build(
    spec: &PolicySpec,
    layout: &Layout,
    zone_count: u32,
    cap_units: u64,
    sampling: Sampling,
) -> Firmware {
    let pair = spec.pair();
    assert!(pair.is_valid(), "config refuses {}", pair.name());
    let (rows, units_per_row) = (layout.rows_per_zone(), layout.units_per_row());
    let placement = match pair.placement {
        PlacementKind::Static => AnyPlacement::Static(Static),
        PlacementKind::Queue => AnyPlacement::Free(FreeList::new(zone_count, Pick::Oldest)),
        PlacementKind::LeastWorn => AnyPlacement::Free(FreeList::new(zone_count, Pick::LeastWorn)),
        PlacementKind::RoundRobin => AnyPlacement::RoundRobin(RoundRobin::new(layout, zone_count)),
        PlacementKind::Renewable => AnyPlacement::Renewable(Box::new(Renewable::new(
            pair.renewable,
            zone_count,
            cap_units,
            units_per_row,
            rows,
            sampling,
        ))),
    };
    let pool = || {
        ZonePool::new(
            zone_count,
            pair.t_free,
            !pair.erase_all_blocks,
            rows,
            units_per_row,
            sampling,
        )
        .with_s2_erases(pair.s2_erases)
        .with_order(pair.invalid_order)
    };
    let erase = match pair.erase {
        EraseTiming::AtReset => AnyScheduler::AtReset(AtReset {
            erase_all_blocks: pair.erase_all_blocks,
            rows_per_zone: rows,
        }),
        EraseTiming::Background => AnyScheduler::Background(Background {
            erase_all_blocks: pair.erase_all_blocks,
            rows_per_zone: rows,
        }),
        EraseTiming::OnDemand => AnyScheduler::OnDemand(OnDemand { pool: pool() }),
        EraseTiming::Preemptive => {
            AnyScheduler::Preemptive(Preemptive::new(pool(), pair.t_invalid, pair.idle))
        }
    };
    Firmware { placement, erase }
}

/// The firmware a state file kept, checked against the firmware `spec` names for `zone_count`
/// physical zones of `cap_units` program units (so a damaged or foreign state is refused here
/// rather than failing later).
pub fn restore(
    state: Firmware,
    spec: &PolicySpec,
    zone_count: u32,
    cap_units: u64,
) -> Result<Firmware, String> {
    if state.name() != spec.name() {
        return Err(format!(
            "the firmware state is for the {} policy, the device runs {}",
            state.name(),
            spec.name()
        ));
    }
    state.placement.check(zone_count, cap_units)?;
    state.erase.check(zone_count)?;
    let mut seen = vec![false; zone_count as usize];
    for z in state
        .placement
        .get()
        .free_list()
        .into_iter()
        .chain(state.erase.get().pending())
    {
        if std::mem::replace(&mut seen[z as usize], true) {
            return Err(format!(
                "firmware: physical zone {z} is both free and waiting to be erased"
            ));
        }
    }
    Ok(state)
}

impl Firmware {
    /// `placement` with `erase` as they are (tests that set a pool up by hand).
    #[cfg(test)]
    pub(super) fn of(placement: AnyPlacement, erase: AnyScheduler) -> Self {
        Firmware { placement, erase }
    }

    /// The state of Preemptive Zone Reset's pool (S0, S1, S2), if the scheduler keeps one.
    pub fn pool_state(&self) -> Option<super::PoolState> {
        match &self.erase {
            AnyScheduler::OnDemand(s) => Some(s.pool.state()),
            AnyScheduler::Preemptive(s) => Some(s.state()),
            _ => None,
        }
    }

    pub fn name(&self) -> &'static str {
        PairSpec::new(self.placement.kind(), self.erase.kind()).name()
    }

    /// Logical zone `i` is physical zone `i` for good (no allocation, no unmapped zones).
    pub fn static_mapping(&self) -> bool {
        self.placement.get().static_mapping()
    }

    /// Whether an explicit Open of an empty zone takes space at once.
    pub fn allocates_on_open(&self) -> bool {
        self.placement.get().allocates_on_open()
    }

    fn free(&self) -> u32 {
        self.placement.get().free_zones()
    }

    /// Hands the placement back the zones `orders` free, in order.
    fn give_back(&mut self, orders: &[EraseOrder]) {
        for order in orders.iter().filter(|o| o.frees_zone) {
            self.placement.get_mut().erased(order.zone);
        }
    }

    /// Dead zones to the scheduler; the erases it orders, and zones freed, back.
    fn bury(&mut self, now: Instant, dead: Vec<Dead>) -> Disposal {
        let mut out = Disposal::default();
        for d in dead {
            let free = self.free() + out.freed.len() as u32;
            self.erase.get_mut().on_dead(now, d, free, &mut out);
        }
        for &zone in &out.freed {
            self.placement.get_mut().erased(zone);
        }
        out
    }

    pub fn on_host_reset(&mut self, now: Instant, zone: &ResetView) -> ResetDecision {
        if let AnyPlacement::Static(_) = self.placement {
            let AnyScheduler::AtReset(at_reset) = &self.erase else {
                unreachable!("a static placement erases at reset");
            };
            return ResetDecision::EraseNow(at_reset.scope());
        }
        let dead = self.placement.get_mut().release(now, zone);
        let out = self.bury(now, dead);
        ResetDecision::Unlink {
            erase_now: out.erase_now,
            erase_background: out.erase_background,
        }
    }

    /// Whether `allocate` can hand out space now. If not, the device compacts a physical zone
    /// (see [`Firmware::compaction_victim`]) first.
    pub fn has_space(&self) -> bool {
        let placement = self.placement.get();
        placement.free_zones() > 0
            || placement.has_space_without_free()
            || self.erase.get().pending_zones() > 0
    }

    /// A logical zone needs space for up to `need_units` more program units. Orders in
    /// `erase_first` block foreground I/O until they are done.
    pub fn allocate(&mut self, now: Instant, need_units: u64, wear: &WearView) -> Allocation {
        let erase_first = if self.placement.get().needs_free_zone() {
            let free = self.free();
            self.erase.get_mut().before_allocate(now, free, wear)
        } else {
            Vec::new()
        };
        self.give_back(&erase_first);
        let grant = self.placement.get_mut().allocate(now, need_units, wear);
        let free = self.free();
        self.erase.get_mut().after_allocate(now, free);
        Allocation {
            zone: grant.zone,
            start_unit: grant.start_unit,
            units: grant.units,
            erase_first,
        }
    }

    /// The device reports when the blocking erases of the last allocation end.
    pub fn blocking_erases_end(&mut self, done: Instant) {
        let free = self.free();
        self.erase.get_mut().blocking_erases_end(done, free);
    }

    pub fn compaction_victim(&self, candidates: &[CompactionCandidate]) -> Option<u32> {
        self.placement.get().compaction_victim(candidates)
    }

    pub fn compacted(&mut self, zone: u32, packed_units: u64) {
        self.placement.get_mut().compacted(zone, packed_units);
    }

    /// Idle time is offered: one background erase, if the scheduler wants one now.
    pub fn on_idle(&mut self, view: &IdleView) -> Option<EraseOrder> {
        let free = self.free();
        let order = self.erase.get_mut().on_idle(view, free)?;
        self.give_back(std::slice::from_ref(&order));
        Some(order)
    }

    /// Whether idle time or a timer can ever do anything (lets the device skip idle checks).
    pub fn has_background_work(&self) -> bool {
        self.erase.get().has_idle_work() || self.placement.get().next_timer().is_some()
    }

    /// When the placement's timer (a periodic daemon) next wants to run.
    pub fn next_timer(&self) -> Option<Instant> {
        self.placement.get().next_timer()
    }

    /// The timer is due: the active logical zones that still hold unwritten space.
    pub fn on_timer(&mut self, now: Instant, open: &[ZombieCandidate]) -> TimerDecision {
        let reclaimed = self.placement.get_mut().on_timer(now, open);
        let out = self.bury(now, reclaimed.dead);
        let mut erase_background = out.erase_now;
        erase_background.extend(out.erase_background);
        TimerDecision {
            reclaimed: reclaimed.zones,
            erase_background,
        }
    }

    /// Counters and time series for the summary, if the firmware keeps any.
    pub fn report(&self, now: Instant) -> Option<FirmwareReport> {
        let renewable = self.placement.get().report(now);
        let pool = self.erase.get().report(now, self.free());
        match (renewable, pool) {
            (None, None) => None,
            (Some(r), None) => Some(FirmwareReport::Renewable(r)),
            (None, Some(p)) => Some(FirmwareReport::ZoneMapping(p)),
            (Some(renewable), Some(zone_mapping)) => {
                Some(FirmwareReport::Combined(CombinedReport {
                    renewable,
                    zone_mapping,
                }))
            }
        }
    }

    /// Everything the firmware holds, for device state files ([`crate::state`]).
    pub fn save(&self) -> Firmware {
        self.clone()
    }
}
