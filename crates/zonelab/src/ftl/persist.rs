//! The conventional SSD's whole state as a value a device state file holds ([`crate::state`]):
//! the forward map (the reverse map and the valid bits follow from it), the superblocks, the
//! free list, the host and GC streams, the write buffer, the collection in progress, counters,
//! clocks, the NAND timelines and wear, and the retained data, sparse. Restoring checks
//! everything later code indexes by ([`Ftl::check`]), so a damaged or foreign state is refused
//! with an error instead of panicking later.

use serde::{Deserialize, Serialize};

use super::FtlSpec;
use super::device::{Frontier, Ftl, Superblock};
use super::gc::Collection;
use super::gc_stream::GcStream;
use super::map::Map;
use super::report::FtlCounters;
use crate::device::DeviceCounters;
use crate::device::report::ftl::PreconditionReport;
use crate::metrics::series::Sampling;
use crate::nand::NandState;
use crate::sparse::{Extent, extents, well_formed};
use crate::time::Instant;

/// Everything a conventional SSD holds beyond its configuration.
#[derive(Serialize, Deserialize)]
pub struct FtlState<'a> {
    /// The forward map as runs of mapped units: (first unit, slot + 1 of each).
    pub(super) map: Vec<(u32, Vec<u32>)>,
    pub(super) sbs: Vec<Superblock>,
    pub(super) free: Vec<u32>,
    pub(super) host: Frontier,
    pub(super) gc: GcStream,
    pub(super) ring: Vec<Instant>,
    pub(super) host_stream: u64,
    pub(super) counters: DeviceCounters,
    pub(super) ftl: FtlCounters,
    pub(super) busy_until: Instant,
    pub(super) programs_done: Instant,
    pub(super) last_now: Instant,
    pub(super) precondition: Option<PreconditionReport>,
    pub(super) collection: Collection,
    pub(super) nand: NandState,
    #[serde(borrow)]
    pub(super) data: Option<Vec<Chunk<'a>>>,
}

/// One chunk of the retained bytes (by logical address): zeros except for the extents.
#[derive(Serialize, Deserialize)]
pub(super) struct Chunk<'a> {
    index: u32,
    #[serde(borrow)]
    extents: Vec<Extent<'a>>,
}

impl Ftl {
    /// The device's state, borrowing its retained data.
    pub fn save(&self) -> FtlState<'_> {
        let data = self.data.as_ref().map(|store| {
            store
                .held()
                .map(|(index, bytes)| Chunk {
                    index,
                    extents: extents(bytes),
                })
                .filter(|c| !c.extents.is_empty())
                .collect()
        });
        FtlState {
            map: (self.map.runs().into_iter())
                .map(|(first, entries)| (first, entries.to_vec()))
                .collect(),
            sbs: self.sbs.clone(),
            free: self.free.clone(),
            host: self.host,
            gc: self.gc.clone(),
            ring: self.ring.clone(),
            host_stream: self.host_stream,
            counters: self.counters,
            ftl: self.ftl,
            busy_until: self.busy_until,
            programs_done: self.programs_done,
            last_now: self.last_now,
            precondition: self.precondition.clone(),
            collection: self.collection,
            nand: self.nand.save(),
            data,
        }
    }

    /// A device built from `spec` and `retain_data` as [`Ftl::new`] builds it, in the state `s`
    /// a device of the same configuration saved. Errors say what does not fit.
    pub fn restore(
        spec: &FtlSpec,
        retain_data: bool,
        sampling: Sampling,
        s: FtlState<'_>,
    ) -> Result<Ftl, String> {
        let mut d = Ftl::new(spec, retain_data, sampling);
        if s.sbs.len() != d.sbs.len() || s.ring.len() != d.ring.len() {
            return Err(format!(
                "state for {} superblocks and a write buffer of {} units; the device has {} and {}",
                s.sbs.len(),
                s.ring.len(),
                d.sbs.len(),
                d.ring.len()
            ));
        }
        if !s.collection.ratio.is_finite() || !s.collection.owed.is_finite() {
            return Err("the collection's pacing is not a number".into());
        }
        let map = Map::from_runs(spec.logical_units, spec.physical_units(), &s.map)?;
        check_data(&d, s.data.as_deref())?;
        d.nand.restore(s.nand)?;
        d.map = map;
        d.sbs = s.sbs;
        d.free = s.free;
        d.host = s.host;
        d.gc = s.gc;
        d.collection = s.collection;
        // The map, superblocks, free list and streams agree, or the state is refused.
        d.check()?;
        if let (Some(store), Some(data)) = (&mut d.data, s.data) {
            for c in &data {
                let at = c.index as u64 * store.chunk_bytes(c.index).expect("checked");
                for e in &c.extents {
                    store.write(at + e.offset, &e.bytes);
                }
            }
        }
        d.ring = s.ring;
        d.host_stream = s.host_stream;
        d.counters = s.counters;
        d.ftl = s.ftl;
        d.busy_until = s.busy_until;
        d.programs_done = s.programs_done;
        d.last_now = s.last_now;
        d.precondition = s.precondition;
        Ok(d)
    }
}

/// The retained data's presence and chunks fit the device.
fn check_data(d: &Ftl, data: Option<&[Chunk<'_>]>) -> Result<(), String> {
    match (data, &d.data) {
        (Some(_), None) => Err("the state holds data but the device keeps none".into()),
        (None, Some(_)) => Err("the device keeps data but the state holds none".into()),
        (Some(chunks), Some(store)) => {
            let mut last = None;
            for c in chunks {
                let Some(len) = store.chunk_bytes(c.index) else {
                    return Err(format!("data chunk {} beyond the device", c.index));
                };
                if last.is_some_and(|l| l >= c.index) || !well_formed(&c.extents, len) {
                    return Err(format!("data chunk {}: out of order or range", c.index));
                }
                last = Some(c.index);
            }
            Ok(())
        }
        (None, None) => Ok(()),
    }
}
