//! V-zones and stripe groups (ezns.md, "Zone ballooning"). A v-zone owns a fixed number of
//! physical zones (16 in the evaluation) split into stripe groups. A group is opened when the
//! v-zone is first written or its write pointer reaches the end of the previous group, whose
//! physical zones are then finished, so a v-zone holds active resources for one group only.
//! Group `g` covers the v-zone's logical LBAs `start .. start + width * usable`.

use std::collections::VecDeque;

use smallvec::SmallVec;

use super::sched::admission::Bucket;
use super::sched::read_cc::ReadCc;
use crate::host::stripe::Stripe;

/// An index into the layer's group table.
pub type GroupId = u32;

#[derive(Debug)]
pub struct Group {
    pub ns: u32,
    pub vzone: u32,
    /// First logical LBA of the v-zone it covers.
    pub start: u64,
    pub stripe: Stripe,
    pub pzs: SmallVec<[u32; 16]>,
    /// LBAs it can hold (width x usable).
    pub cap: u64,
    /// LBAs written into it (sent to the device).
    pub written: u64,
    /// Spares it holds while open (its base width comes from its v-zone's essentials).
    pub spares: u32,
    /// Its physical zones are still open (active on the device).
    pub open: bool,
    pub cc: ReadCc,
}

impl Group {
    pub fn width(&self) -> u32 {
        self.stripe.width
    }
    pub fn end(&self) -> u64 {
        self.start + self.cap
    }
}

/// A host command (or part of one) waiting in a v-zone's queue.
#[derive(Debug)]
pub enum Queued {
    /// LBAs `offset .. offset + nlb` of the v-zone.
    Write {
        tag: u64,
        offset: u64,
        nlb: u64,
        data: Option<Vec<u8>>,
    },
    /// A Finish behind queued writes (a Reset drops what is queued and never waits).
    Finish { tag: u64 },
    /// A reclaim's copy of the v-zone's data into the narrower group (no host tag).
    Copy {
        migration: u32,
        offset: u64,
        nlb: u64,
        data: Option<Vec<u8>>,
    },
}

#[derive(Debug)]
pub struct VZone {
    /// Its groups in logical order.
    pub groups: SmallVec<[GroupId; 8]>,
    /// Physical zones its groups use (of the v-zone's fixed number).
    pub consumed: u32,
    /// LBAs of the current epoch (since the last reset the host asked for) on the device.
    pub dispatched: u64,
    /// It holds the minimum width's essentials: from its first group until it is full, finished
    /// or reset on the device.
    pub entitled: bool,
    pub queue: VecDeque<Queued>,
    /// Whether it is in the scheduler's list of v-zones with queued work.
    pub waiting: bool,
    pub bucket: Bucket,
    /// A reclaim moving its open group into a narrower one.
    pub migration: Option<u32>,
    /// While migrating: reads of `start..end` still go to this (old) group.
    pub read_from: Option<(GroupId, u64, u64)>,
}

impl VZone {
    pub fn new(bucket: Bucket) -> Self {
        VZone {
            groups: SmallVec::new(),
            consumed: 0,
            dispatched: 0,
            entitled: false,
            queue: VecDeque::new(),
            waiting: false,
            bucket,
            migration: None,
            read_from: None,
        }
    }

    /// Its queue is empty: it leaves the scheduler's list at the next look.
    pub fn waiting_clear(&mut self) {
        self.waiting = false;
    }

    /// The group writes go into now, if one is open.
    pub fn open_group(&self, groups: &[Option<Group>]) -> Option<GroupId> {
        let &g = self.groups.last()?;
        groups[g as usize]
            .as_ref()
            .is_some_and(|gr| gr.open && gr.written < gr.cap)
            .then_some(g)
    }
}
