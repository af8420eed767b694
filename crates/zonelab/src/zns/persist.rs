//! The ZNS device's whole state as a value a device state file holds ([`crate::state`]): zones
//! and write pointers, the pieces each logical zone maps to, the firmware policy's tables and
//! queues, counters, the device's clocks, the NAND timelines and wear, and the retained data,
//! sparse (runs of pages that are not all zeros). Restoring checks everything that later code
//! indexes by, so a damaged or foreign state is refused with an error instead of panicking later.

use serde::{Deserialize, Serialize};

use super::ZnsSpec;
use super::device::Device;
use super::state::Zone;
use crate::device::{DeviceCounters, ZoneState};
use crate::firmware::{self, PolicySpec, PolicyState};
use crate::metrics::series::Sampling;
use crate::nand::NandState;
use crate::sparse::{Extent, extents, well_formed};
use crate::time::Instant;

/// Everything a ZNS device holds beyond its configuration.
#[derive(Serialize, Deserialize)]
pub struct ZnsState<'a> {
    zones: Vec<Zone>,
    phys_high: Vec<u64>,
    owners: Vec<u32>,
    policy: PolicyState,
    open_list: Vec<u32>,
    sequence: u64,
    occupancy_epoch: u64,
    buffer_release: Vec<Instant>,
    counters: DeviceCounters,
    blocked_until: Instant,
    busy_until: Instant,
    background_until: Instant,
    programs_done: Instant,
    last_now: Instant,
    nand: NandState,
    #[serde(borrow)]
    data: Option<Vec<ZoneData<'a>>>,
}

/// One zone's retained bytes: `len` bytes, zeros except for the extents.
#[derive(Serialize, Deserialize)]
struct ZoneData<'a> {
    len: u64,
    #[serde(borrow)]
    extents: Vec<Extent<'a>>,
}

impl Device {
    /// The device's state, borrowing its retained data.
    pub fn save(&self) -> ZnsState<'_> {
        let data = self.data.as_ref().map(|store| {
            (0..self.zones.len() as u32)
                .map(|z| {
                    let bytes = store.bytes(z);
                    ZoneData {
                        len: bytes.len() as u64,
                        extents: extents(bytes),
                    }
                })
                .collect()
        });
        ZnsState {
            zones: self.zones.clone(),
            phys_high: self.phys_high.clone(),
            owners: self.owners.clone(),
            policy: self.firmware.save(),
            open_list: self.open_list.clone(),
            sequence: self.sequence,
            occupancy_epoch: self.occupancy_epoch,
            buffer_release: self.buffer_release.clone(),
            counters: self.counters,
            blocked_until: self.blocked_until,
            busy_until: self.busy_until,
            background_until: self.background_until,
            programs_done: self.programs_done,
            last_now: self.last_now,
            nand: self.nand.save(),
            data,
        }
    }

    /// A device built from `spec`, `policy` and `retain_data` as [`Device::build`] builds it,
    /// in the state `s` a device of the same configuration saved. Errors say what does not fit.
    pub fn restore(
        spec: &ZnsSpec,
        policy: &PolicySpec,
        retain_data: bool,
        sampling: Sampling,
        s: ZnsState<'_>,
    ) -> Result<Device, String> {
        let mut d = Device::build(spec, policy, retain_data, sampling);
        let n = d.zones.len();
        check_shape(&d, &s)?;
        for (i, z) in s.zones.iter().enumerate() {
            check_zone(&d, i, z)?;
        }
        let mut owners = vec![0u32; n];
        for z in &s.zones {
            for p in &z.pieces {
                owners[p.pz as usize] += 1;
            }
        }
        if owners != s.owners {
            return Err("the owners of the physical zones do not match the zones' pieces".into());
        }
        let (open_pos, open, active) = check_open(spec, &s)?;
        check_data(&s, d.lba_bytes)?;
        let policy_state = firmware::restore(s.policy, policy, spec.zones.zone_count, d.cap_units)?;
        d.nand.restore(s.nand)?;
        // Everything is checked: from here on nothing fails.
        d.firmware = policy_state;
        if let (Some(store), Some(data)) = (&mut d.data, s.data) {
            for (z, zd) in data.iter().enumerate() {
                store.restore(
                    z as u32,
                    zd.len as usize,
                    zd.extents
                        .iter()
                        .map(|e| (e.offset as usize, e.bytes.as_ref())),
                );
            }
        }
        d.open_zones = open as u32;
        d.active_zones = active as u32;
        d.zones = s.zones;
        d.phys_high = s.phys_high;
        d.owners = owners;
        d.open_list = s.open_list;
        d.open_pos = open_pos;
        d.sequence = s.sequence;
        d.occupancy_epoch = s.occupancy_epoch;
        d.buffer_release = s.buffer_release;
        d.counters = s.counters;
        d.blocked_until = s.blocked_until;
        d.busy_until = s.busy_until;
        d.background_until = s.background_until;
        d.programs_done = s.programs_done;
        d.last_now = s.last_now;
        Ok(d)
    }
}

/// The open list names each open zone once and the zones keep the device's limits: (each
/// zone's place in the open list, open zones, active zones).
fn check_open(spec: &ZnsSpec, s: &ZnsState<'_>) -> Result<(Vec<u32>, usize, usize), String> {
    let mut open_pos = vec![u32::MAX; s.zones.len()];
    for (i, &z) in s.open_list.iter().enumerate() {
        let slot = open_pos
            .get_mut(z as usize)
            .ok_or_else(|| format!("open zone {z} does not exist"))?;
        if *slot != u32::MAX || !s.zones[z as usize].state.is_open() {
            return Err(format!("zone {z} is listed as open but is not, or twice"));
        }
        *slot = i as u32;
    }
    let open = s.zones.iter().filter(|z| z.state.is_open()).count();
    let active = s.zones.iter().filter(|z| z.state.is_active()).count();
    if open != s.open_list.len() {
        return Err(format!(
            "{open} zones are open but {} are listed",
            s.open_list.len()
        ));
    }
    let limits = &spec.zones;
    if limits.max_open_zones.is_some_and(|m| open > m as usize)
        || limits.max_active_zones.is_some_and(|m| active > m as usize)
    {
        return Err(format!(
            "{open} open and {active} active zones exceed the device's limits"
        ));
    }
    Ok((open_pos, open, active))
}

/// Each zone's retained bytes are as many as its data and in order.
fn check_data(s: &ZnsState<'_>, lba_bytes: u64) -> Result<(), String> {
    for (i, zd) in s.data.iter().flatten().enumerate() {
        if zd.len != s.zones[i].data_lbas * lba_bytes {
            return Err(format!(
                "zone {i}: {} bytes of data retained for {} LBAs written",
                zd.len, s.zones[i].data_lbas
            ));
        }
        if !well_formed(&zd.extents, zd.len) {
            return Err(format!("zone {i}: retained data out of order or range"));
        }
    }
    Ok(())
}

/// Vector lengths and the data's presence fit the device.
fn check_shape(d: &Device, s: &ZnsState<'_>) -> Result<(), String> {
    let n = d.zones.len();
    if s.zones.len() != n || s.phys_high.len() != n || s.owners.len() != n {
        return Err(format!(
            "state for {} zones; the device has {n}",
            s.zones.len()
        ));
    }
    if s.buffer_release.len() != d.buffer_release.len() {
        return Err("the write buffer state does not fit the device's write buffer".into());
    }
    match (&s.data, d.data.is_some()) {
        (Some(data), true) if data.len() != n => {
            Err(format!("data for {} zones; the device has {n}", data.len()))
        }
        (Some(_), false) => Err("the state holds data but the device keeps none".into()),
        (None, true) => Err("the device keeps data but the state holds none".into()),
        _ => Ok(()),
    }
}

/// One zone's write pointer, state and pieces are consistent and inside the device.
fn check_zone(d: &Device, i: usize, z: &Zone) -> Result<(), String> {
    let bad = |what: &str| Err(format!("zone {i}: {what}"));
    if z.wp > d.cap_lbas || z.data_lbas > z.wp {
        return bad("write pointer or data beyond the zone's capacity");
    }
    match z.state {
        ZoneState::Empty if z.wp != 0 => return bad("empty with a write pointer"),
        ZoneState::Full if z.wp != d.cap_lbas => return bad("full below its capacity"),
        _ => {}
    }
    let unit = d.layout.unit_bytes;
    let mut expect = 0;
    let mut stored = 0u64;
    for p in &z.pieces {
        let fits = (p.pz as usize) < d.zones.len()
            && p.lstart == expect
            && p.data <= p.cap
            && p.programmed_units <= p.reserved_units
            && p.punit
                .checked_add(p.reserved_units)
                .is_some_and(|end| end <= d.cap_units)
            && p.staged_bytes < unit;
        if !fits {
            return bad("a piece outside its physical zone or out of order");
        }
        expect += p.cap;
        stored += p.data;
    }
    // A whole-zone piece holds the capacity rounded up to whole program units (the last unit
    // is programmed padded), so pieces may reach past a capacity that is not a multiple of the
    // unit, never past its units.
    if stored != z.data_lbas * d.lba_bytes || expect > d.cap_units * unit {
        return bad("pieces do not hold the zone's data");
    }
    if d.firmware.static_mapping() && z.pieces.len() != 1 {
        return bad("a statically mapped zone needs exactly one piece");
    }
    Ok(())
}
