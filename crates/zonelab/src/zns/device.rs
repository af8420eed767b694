//! The ZNS device: the zone state machine with its open and active resources, every NVMe status
//! the ZNS command set defines, NAND timing for each command, and optional data retention.
//!
//! Commands take the submission time and return the completion time, computed from the NAND
//! timelines at once. State changes take effect at submission, in submission order, which is the
//! order a single NVMe queue pair gives.

use hdrhistogram::Histogram;

use super::store::ZoneStore;
use super::{ReportFilter, Status, ZoneAction, ZoneDescriptor, ZoneReport, ZoneState};
use crate::config::{DeviceSpec, Geometry};
use crate::firmware::{
    EraseOrder, EraseScope, FirmwareReport, IdleView, PieceRef, ResetDecision, ResetPolicy,
    ResetView, ZombieCandidate,
};
use crate::nand::{EnergyNj, Nand, NandCounters, WearSummary};

/// A command's completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    pub done_ns: u64,
}

/// Host-visible command counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeviceCounters {
    pub host_read_bytes: u64,
    pub host_write_bytes: u64,
    /// Zones the host asked to reset (Select All counts each zone it applies to).
    pub zone_resets_requested: u64,
    /// Zones whose blocks were erased for a reset, at once (synchronous) or later (mapping
    /// policies); resets of zones with nothing programmed erase nothing and are not counted.
    pub zone_resets_executed: u64,
    pub zone_finishes: u64,
    /// Zones the controller closed to free an open resource.
    pub implicit_closes: u64,
    /// The most zones open at once.
    pub open_zones_max: u32,
    /// The most zones active at once.
    pub active_zones_max: u32,
    /// Program units the firmware copied to compact a physical zone (ReZNS out of space).
    pub compacted_units: u64,
}

#[derive(Clone, Debug)]
struct Zone {
    state: ZoneState,
    /// Write pointer, in LBAs from the zone start.
    wp: u64,
    /// LBAs holding host data (below the write pointer; less after a Finish).
    data_lbas: u64,
    /// Last time (as a command sequence number) the zone was opened or written: the
    /// controller implicitly closes the least recently used implicitly opened zone.
    last_use: u64,
    /// When the host last wrote the zone (for zombie detection).
    last_write_ns: u64,
    /// Where the zone's bytes live, in logical order. Empty: no physical space yet.
    pieces: Vec<Piece>,
}

/// A run of program units of one physical zone that holds a run of a logical zone's bytes,
/// with the state of the write stream into it. The synchronous policy gives every logical zone
/// one piece covering its own physical zone; ReZNS may chain several.
#[derive(Clone, Debug)]
struct Piece {
    /// Logical byte offset in the zone where the piece starts.
    lstart: u64,
    /// Physical zone and first program unit in it.
    pz: u32,
    punit: u64,
    /// Bytes the piece can hold (shrunk to its data when it is closed early).
    cap: u64,
    /// Units the firmware handed out for it (from `punit`).
    reserved_units: u64,
    /// Host bytes written into the piece.
    data: u64,
    /// Program units written to NAND (or scheduled), from `punit`.
    programmed_units: u64,
    /// Bytes of the next unit waiting in the controller for the unit to fill.
    staged_bytes: u64,
    /// Write buffer: slot `j % B` holds when unit `j` left the buffer (its program finished).
    released_ns: Vec<u64>,
}

impl Piece {
    fn new(lstart: u64, pz: u32, punit: u64, reserved_units: u64, cap: u64) -> Self {
        Piece {
            lstart,
            pz,
            punit,
            cap,
            reserved_units,
            data: 0,
            programmed_units: 0,
            staged_bytes: 0,
            released_ns: Vec::new(),
        }
    }

    /// The one piece of a statically mapped zone: all of physical zone `pz`.
    fn whole_zone(pz: u32, cap_units: u64, unit_bytes: u64) -> Self {
        Piece::new(0, pz, 0, cap_units, cap_units * unit_bytes)
    }

    fn as_ref(&self) -> PieceRef {
        PieceRef {
            zone: self.pz,
            start_unit: self.punit,
            end_unit: self.frontier_unit(),
            reserved_end_unit: self.punit + self.reserved_units,
        }
    }

    /// The first unit of the physical zone this piece has not programmed.
    fn frontier_unit(&self) -> u64 {
        self.punit + self.programmed_units
    }
}

/// Appends `bytes` that arrived at `arrived_ns` to the write stream of `piece`, programming
/// every unit they complete and raising `phys_high` (the frontier of the piece's physical zone).
/// Returns when the host may consider them written: once buffered (write buffer of `b` units) or
/// once their full units are programmed (no buffer).
fn program_piece(
    nand: &mut Nand,
    phys_high: &mut u64,
    piece: &mut Piece,
    bytes: u64,
    arrived_ns: u64,
    b: u64,
) -> u64 {
    let unit = nand.layout.unit_bytes;
    if b > 0 && piece.released_ns.is_empty() {
        piece.released_ns = vec![0; b as usize];
    }
    let first = piece.programmed_units;
    let total = piece.staged_bytes + bytes;
    let full = total / unit;
    let mut done = arrived_ns;
    for j in first..first + full {
        let accepted = if b > 0 {
            arrived_ns.max(piece.released_ns[(j % b) as usize])
        } else {
            arrived_ns
        };
        let addr = nand.layout.unit(piece.pz, piece.punit + j);
        let programmed = nand.program_unit(accepted, addr);
        if b > 0 {
            piece.released_ns[(j % b) as usize] = programmed;
            done = done.max(accepted);
        } else {
            done = done.max(programmed);
        }
    }
    if b > 0 && !total.is_multiple_of(unit) {
        // The partial unit also needs a buffer slot.
        done = done.max(piece.released_ns[((first + full) % b) as usize]);
    }
    piece.programmed_units += full;
    piece.staged_bytes = total % unit;
    *phys_high = (*phys_high).max(piece.frontier_unit());
    done
}

pub struct Device {
    spec: DeviceSpec,
    nand: Nand,
    zones: Vec<Zone>,
    /// Per physical zone, one past the highest unit programmed since its last erase.
    phys_high: Vec<u64>,
    /// Program units in a zone's capacity.
    cap_units: u64,
    policy: Box<dyn ResetPolicy>,
    open_zones: u32,
    active_zones: u32,
    /// Open zones, kept only when Max Open Resources is limited (to choose an implicit close).
    open_list: Vec<u32>,
    sequence: u64,
    /// Changes whenever a zone gains its first data or loses it (see [`Device::occupancy_epoch`]).
    occupancy_epoch: u64,
    /// Per logical zone, the bytes written below `data_lbas` (with data retention only).
    data: Option<ZoneStore>,
    zone_lbas: u64,
    cap_lbas: u64,
    lba_bytes: u64,
    buffer_units: u64,
    counters: DeviceCounters,
    /// Foreground commands cannot start before this (blocking Full Zone Erases).
    blocked_until_ns: u64,
    /// When the last foreground command submitted completes.
    busy_until_ns: u64,
    /// When the background erase in progress ends.
    background_until_ns: u64,
    /// Per foreground command, how long erases held it up.
    erase_wait_ns: Histogram<u64>,
}

impl Device {
    pub fn new(spec: &DeviceSpec, policy: Box<dyn ResetPolicy>, retain_data: bool) -> Self {
        let geo = &spec.geometry;
        let n = geo.zone_count as usize;
        let buffer_units = spec.timing.write_buffer_units_per_zone as u64;
        let unit = geo.program_unit_bytes();
        let cap_units = geo.zone_capacity_bytes.div_ceil(unit);
        let static_mapping = policy.static_mapping();
        Device {
            nand: Nand::new(geo, &spec.timing),
            zones: (0..geo.zone_count)
                .map(|z| Zone {
                    state: ZoneState::Empty,
                    wp: 0,
                    data_lbas: 0,
                    last_use: 0,
                    last_write_ns: 0,
                    pieces: if static_mapping {
                        vec![Piece::whole_zone(z, cap_units, unit)]
                    } else {
                        Vec::new()
                    },
                })
                .collect(),
            phys_high: vec![0; n],
            cap_units,
            policy,
            open_zones: 0,
            active_zones: 0,
            open_list: Vec::new(),
            sequence: 0,
            occupancy_epoch: 0,
            data: retain_data.then(|| ZoneStore::new(n, geo.zone_capacity_bytes)),
            zone_lbas: geo.zone_size_lbas(),
            cap_lbas: geo.zone_capacity_lbas(),
            lba_bytes: geo.lba_size_bytes,
            buffer_units,
            counters: DeviceCounters::default(),
            blocked_until_ns: 0,
            busy_until_ns: 0,
            background_until_ns: 0,
            erase_wait_ns: Histogram::new_with_bounds(1, 3_600 * 1_000_000_000, 3)
                .expect("valid histogram bounds"),
            spec: spec.clone(),
        }
    }

    pub fn spec(&self) -> &DeviceSpec {
        &self.spec
    }
    pub fn geometry(&self) -> &Geometry {
        &self.spec.geometry
    }
    pub fn zone_count(&self) -> u32 {
        self.spec.geometry.zone_count
    }
    pub fn zone_size_lbas(&self) -> u64 {
        self.zone_lbas
    }
    pub fn zone_capacity_lbas(&self) -> u64 {
        self.cap_lbas
    }
    pub fn namespace_lbas(&self) -> u64 {
        self.zone_lbas * self.spec.geometry.zone_count as u64
    }
    pub fn policy_name(&self) -> &'static str {
        self.policy.name()
    }
    pub fn open_zones(&self) -> u32 {
        self.open_zones
    }
    pub fn active_zones(&self) -> u32 {
        self.active_zones
    }
    pub fn counters(&self) -> &DeviceCounters {
        &self.counters
    }
    pub fn nand_counters(&self) -> &NandCounters {
        &self.nand.counters
    }
    pub fn energy(&self) -> EnergyNj {
        EnergyNj::of(&self.nand.counters, &self.spec.energy)
    }
    pub fn wear(&self) -> WearSummary {
        self.nand.wear()
    }
    /// When all NAND, channels and links are idle.
    pub fn idle_at_ns(&self) -> u64 {
        self.nand.idle_at_ns()
    }
    pub fn retains_data(&self) -> bool {
        self.data.is_some()
    }

    /// Starts a new measurement phase: host and NAND counters go back to zero (wear stays).
    pub fn reset_counters(&mut self) {
        self.counters = DeviceCounters::default();
        self.nand.reset_counters();
        self.nand.take_erase_wait();
        self.erase_wait_ns.reset();
    }

    /// How long foreground commands waited on erases (one sample per read, write or append).
    pub fn erase_wait_histogram(&self) -> &Histogram<u64> {
        &self.erase_wait_ns
    }

    /// The firmware policy's counters and time series, if it keeps any.
    pub fn firmware_report(&self, now_ns: u64) -> Option<FirmwareReport> {
        self.policy.report(now_ns)
    }

    /// The physical zone logical zone `zone` writes into now (its last piece), if any.
    pub fn physical_zone(&self, zone: u32) -> Option<u32> {
        self.zones[zone as usize].pieces.last().map(|p| p.pz)
    }

    /// Where logical zone `zone`'s bytes live, piece by piece.
    pub fn zone_pieces(&self, zone: u32) -> Vec<PieceRef> {
        self.zones[zone as usize]
            .pieces
            .iter()
            .map(Piece::as_ref)
            .collect()
    }

    /// Start time of a foreground command submitted at `now_ns`: blocking erases hold it.
    fn foreground_start(&self, now_ns: u64) -> u64 {
        now_ns.max(self.blocked_until_ns)
    }

    /// Bookkeeping at the end of a foreground command: busy time and erase wait.
    fn foreground_done(&mut self, now_ns: u64, start_ns: u64, done_ns: u64) {
        self.busy_until_ns = self.busy_until_ns.max(done_ns);
        let wait = (start_ns - now_ns).max(self.nand.take_erase_wait());
        self.erase_wait_ns.saturating_record(wait);
    }

    pub fn zone(&self, zone: u32) -> ZoneDescriptor {
        let z = &self.zones[zone as usize];
        let zslba = zone as u64 * self.zone_lbas;
        ZoneDescriptor {
            state: z.state,
            zslba,
            capacity_lbas: self.cap_lbas,
            wp: zslba + z.wp,
        }
    }

    /// A number that changes whenever some zone goes from holding no data to holding some, or
    /// back (writes into empty zones, resets, faults): hosts cache zone lists against it.
    pub fn occupancy_epoch(&self) -> u64 {
        self.occupancy_epoch
    }

    /// LBAs of host data in the zone (what a read below the write pointer returns).
    pub fn zone_data_lbas(&self, zone: u32) -> u64 {
        self.zones[zone as usize].data_lbas
    }

    // ---- I/O commands ----

    /// Read `nlb` LBAs from `slba`. With data retention, `buf` (exactly `nlb` LBAs) receives the
    /// data; LBAs never written read as zeros.
    pub fn read(
        &mut self,
        now_ns: u64,
        slba: u64,
        nlb: u64,
        buf: Option<&mut [u8]>,
    ) -> Result<Completion, Status> {
        self.check_range(slba, nlb, buf.as_ref().map(|b| b.len()))?;
        let zi = (slba / self.zone_lbas) as u32;
        if self.zones[zi as usize].state == ZoneState::Offline {
            return Err(Status::ZoneIsOffline);
        }
        let offset = slba - zi as u64 * self.zone_lbas;
        if offset + nlb > self.zone_lbas {
            return Err(Status::ZoneBoundaryError);
        }
        self.sequence += 1;
        if let (Some(store), Some(buf)) = (&self.data, buf) {
            store.read(zi, (offset * self.lba_bytes) as usize, buf);
        }
        let start = self.foreground_start(now_ns);
        let done_ns = self.read_timing(start + self.spec.timing.read_overhead_ns, zi, offset, nlb);
        self.foreground_done(now_ns, start, done_ns);
        self.counters.host_read_bytes += nlb * self.lba_bytes;
        Ok(Completion { done_ns })
    }

    /// Write `nlb` LBAs at `slba`, which must be the zone's write pointer. With data retention,
    /// `data` (exactly `nlb` LBAs) is kept; without it the LBAs are stored as zeros.
    pub fn write(
        &mut self,
        now_ns: u64,
        slba: u64,
        nlb: u64,
        data: Option<&[u8]>,
    ) -> Result<Completion, Status> {
        self.check_range(slba, nlb, data.map(<[u8]>::len))?;
        let zi = (slba / self.zone_lbas) as u32;
        Self::check_writable(self.zones[zi as usize].state)?;
        let z = &self.zones[zi as usize];
        let offset = slba - zi as u64 * self.zone_lbas;
        if offset != z.wp {
            return Err(Status::ZoneInvalidWrite);
        }
        if offset + nlb > self.cap_lbas {
            return Err(Status::ZoneBoundaryError);
        }
        self.write_at_wp(now_ns, zi, nlb, data)
    }

    /// Zone Append to the zone starting at `zslba`; returns the LBA written and the completion.
    pub fn append(
        &mut self,
        now_ns: u64,
        zslba: u64,
        nlb: u64,
        data: Option<&[u8]>,
    ) -> Result<(u64, Completion), Status> {
        self.check_range(zslba, nlb, data.map(<[u8]>::len))?;
        if !zslba.is_multiple_of(self.zone_lbas) {
            return Err(Status::InvalidField);
        }
        if let Some(zasl) = self.spec.geometry.zone_append_size_limit_bytes
            && nlb > zasl / self.lba_bytes
        {
            return Err(Status::InvalidField);
        }
        let zi = (zslba / self.zone_lbas) as u32;
        Self::check_writable(self.zones[zi as usize].state)?;
        let wp = self.zones[zi as usize].wp;
        if wp + nlb > self.cap_lbas {
            return Err(Status::ZoneBoundaryError);
        }
        let completion = self.write_at_wp(now_ns, zi, nlb, data)?;
        Ok((zslba + wp, completion))
    }

    fn check_range(&self, slba: u64, nlb: u64, buf_len: Option<usize>) -> Result<(), Status> {
        if nlb == 0
            || buf_len.is_some_and(|len| nlb.checked_mul(self.lba_bytes) != Some(len as u64))
        {
            return Err(Status::InvalidField);
        }
        match slba.checked_add(nlb) {
            Some(end) if end <= self.namespace_lbas() => Ok(()),
            _ => Err(Status::LbaOutOfRange),
        }
    }

    fn check_writable(state: ZoneState) -> Result<(), Status> {
        match state {
            ZoneState::Full => Err(Status::ZoneIsFull),
            ZoneState::ReadOnly => Err(Status::ZoneIsReadOnly),
            ZoneState::Offline => Err(Status::ZoneIsOffline),
            _ => Ok(()),
        }
    }

    fn write_at_wp(
        &mut self,
        now_ns: u64,
        zi: u32,
        nlb: u64,
        data: Option<&[u8]>,
    ) -> Result<Completion, Status> {
        self.acquire_open(zi)?;
        if self.zones[zi as usize].state != ZoneState::ExplicitlyOpened {
            self.set_state(zi, ZoneState::ImplicitlyOpened);
        }
        self.sequence += 1;
        let bytes = nlb * self.lba_bytes;
        let position = self.zones[zi as usize].data_lbas * self.lba_bytes;
        if self.zones[zi as usize]
            .pieces
            .last()
            .is_none_or(|p| p.lstart + p.cap <= position)
        {
            self.allocate(now_ns, zi, position);
        }
        let start = self.foreground_start(now_ns);
        let arrived = self
            .nand
            .host_in(start + self.spec.timing.write_overhead_ns, bytes);
        let done_ns = self.write_pieces(now_ns, zi, position, bytes, arrived);
        self.foreground_done(now_ns, start, done_ns);
        if let Some(store) = &mut self.data {
            store.append(zi, bytes as usize, data);
        }
        let z = &mut self.zones[zi as usize];
        if z.data_lbas == 0 {
            self.occupancy_epoch += 1;
        }
        z.wp += nlb;
        z.data_lbas = z.wp;
        z.last_use = self.sequence;
        z.last_write_ns = now_ns;
        assert!(z.wp <= self.cap_lbas, "write pointer past zone capacity");
        if z.wp == self.cap_lbas {
            self.set_state(zi, ZoneState::Full);
        }
        self.counters.host_write_bytes += bytes;
        Ok(Completion { done_ns })
    }

    /// Writes `bytes` from logical offset `position` of zone `zi` into its pieces, taking new
    /// space from the firmware when the last piece is full. Returns the write's completion.
    fn write_pieces(
        &mut self,
        now_ns: u64,
        zi: u32,
        mut position: u64,
        mut bytes: u64,
        arrived_ns: u64,
    ) -> u64 {
        let mut done = arrived_ns;
        while bytes > 0 {
            let last = self.zones[zi as usize]
                .pieces
                .last()
                .expect("a piece to write into");
            if last.lstart + last.cap <= position {
                self.allocate(now_ns, zi, position);
                continue;
            }
            let piece = self.zones[zi as usize].pieces.last_mut().expect("a piece");
            assert_eq!(
                piece.lstart + piece.data,
                position,
                "writes continue the piece"
            );
            let chunk = bytes.min(piece.lstart + piece.cap - position);
            done = done.max(program_piece(
                &mut self.nand,
                &mut self.phys_high[piece.pz as usize],
                piece,
                chunk,
                arrived_ns,
                self.buffer_units,
            ));
            piece.data += chunk;
            position += chunk;
            bytes -= chunk;
        }
        done
    }

    fn read_timing(&mut self, start_ns: u64, zi: u32, offset: u64, nlb: u64) -> u64 {
        let page = self.nand.layout.page_bytes;
        let unit = self.nand.layout.unit_bytes;
        let data_end = self.zones[zi as usize].data_lbas * self.lba_bytes;
        let b = self.buffer_units;
        let mut pos = offset * self.lba_bytes;
        let end = pos + nlb * self.lba_bytes;
        let mut done = start_ns;
        let mut k = 0;
        while pos < end {
            // Past the data nothing is on NAND: only the host transfer, of zeros.
            if pos >= data_end {
                done = done.max(self.nand.host_out(start_ns, end - pos));
                break;
            }
            let pieces = &self.zones[zi as usize].pieces;
            while pos >= pieces[k].lstart + pieces[k].data {
                k += 1;
            }
            let piece = &pieces[k];
            let within = pos - piece.lstart;
            let phys = piece.punit * unit + within;
            let chunk = (page - phys % page)
                .min(end - pos)
                .min(piece.lstart + piece.data - pos);
            let j = within / unit;
            let in_controller = j >= piece.programmed_units
                || (b > 0
                    && j + b >= piece.programmed_units
                    && piece.released_ns[(j % b) as usize] > start_ns);
            let ready = if in_controller {
                start_ns
            } else {
                let die = self.nand.layout.unit(piece.pz, piece.punit + j).die;
                self.nand.read_page(start_ns, die, chunk)
            };
            done = done.max(self.nand.host_out(ready, chunk));
            pos += chunk;
        }
        done
    }

    // ---- zone resources ----

    fn set_state(&mut self, zi: u32, new: ZoneState) {
        let old = self.zones[zi as usize].state;
        if old == new {
            return;
        }
        if old.is_open() {
            self.open_zones -= 1;
            if let Some(i) = self.open_list.iter().position(|&z| z == zi) {
                self.open_list.swap_remove(i);
            }
        }
        if old.is_active() {
            self.active_zones -= 1;
        }
        if new.is_open() {
            self.open_zones += 1;
            if self.spec.geometry.max_open_zones.is_some() {
                self.open_list.push(zi);
            }
        }
        if new.is_active() {
            self.active_zones += 1;
        }
        self.counters.open_zones_max = self.counters.open_zones_max.max(self.open_zones);
        self.counters.active_zones_max = self.counters.active_zones_max.max(self.active_zones);
        self.zones[zi as usize].state = new;
    }

    /// Makes sure zone `zi` may become open: takes an active resource if it has none and an open
    /// resource, implicitly closing the least recently used implicitly opened zone if need be.
    fn acquire_open(&mut self, zi: u32) -> Result<(), Status> {
        let state = self.zones[zi as usize].state;
        if state.is_open() {
            return Ok(());
        }
        if state == ZoneState::Empty
            && self
                .spec
                .geometry
                .max_active_zones
                .is_some_and(|m| self.active_zones >= m)
        {
            return Err(Status::TooManyActiveZones);
        }
        if self
            .spec
            .geometry
            .max_open_zones
            .is_some_and(|m| self.open_zones >= m)
        {
            let victim = self
                .open_list
                .iter()
                .copied()
                .filter(|&z| self.zones[z as usize].state == ZoneState::ImplicitlyOpened)
                .min_by_key(|&z| self.zones[z as usize].last_use)
                .ok_or(Status::TooManyOpenZones)?;
            self.set_state(victim, ZoneState::Closed);
            self.counters.implicit_closes += 1;
        }
        Ok(())
    }

    // ---- zone management ----

    /// Zone Management Send. `slba` names the zone (it must be a zone start) unless `select_all`.
    pub fn zone_mgmt_send(
        &mut self,
        now_ns: u64,
        slba: u64,
        action: ZoneAction,
        select_all: bool,
    ) -> Result<Completion, Status> {
        let start_ns = self.foreground_start(now_ns) + self.spec.timing.zone_mgmt_overhead_ns;
        if select_all {
            let mut done_ns = start_ns;
            for zi in 0..self.spec.geometry.zone_count {
                if action.select_all_applies(self.zones[zi as usize].state) {
                    done_ns = done_ns.max(self.apply(start_ns, zi, action)?);
                }
            }
            self.busy_until_ns = self.busy_until_ns.max(done_ns);
            return Ok(Completion { done_ns });
        }
        if slba >= self.namespace_lbas() {
            return Err(Status::LbaOutOfRange);
        }
        if !slba.is_multiple_of(self.zone_lbas) {
            return Err(Status::InvalidField);
        }
        let done_ns = self.apply(start_ns, (slba / self.zone_lbas) as u32, action)?;
        self.busy_until_ns = self.busy_until_ns.max(done_ns);
        Ok(Completion { done_ns })
    }

    fn apply(&mut self, now_ns: u64, zi: u32, action: ZoneAction) -> Result<u64, Status> {
        use ZoneState::*;
        let state = self.zones[zi as usize].state;
        self.sequence += 1;
        match (action, state) {
            (ZoneAction::Open, ExplicitlyOpened) => Ok(now_ns),
            (ZoneAction::Open, Empty | Closed | ImplicitlyOpened) => {
                self.acquire_open(zi)?;
                self.set_state(zi, ExplicitlyOpened);
                let z = &mut self.zones[zi as usize];
                z.last_use = self.sequence;
                z.last_write_ns = now_ns;
                if state == Empty && z.pieces.is_empty() && self.policy.allocates_on_open() {
                    self.allocate(now_ns, zi, 0);
                }
                Ok(now_ns)
            }
            (ZoneAction::Close, Closed) => Ok(now_ns),
            (ZoneAction::Close, ImplicitlyOpened | ExplicitlyOpened) => {
                self.set_state(zi, Closed);
                Ok(now_ns)
            }
            (ZoneAction::Finish, Full) => Ok(now_ns),
            (ZoneAction::Finish, Empty | ImplicitlyOpened | ExplicitlyOpened | Closed) => {
                Ok(self.finish(now_ns, zi))
            }
            (ZoneAction::Reset, Empty) => {
                self.counters.zone_resets_requested += 1;
                Ok(now_ns)
            }
            (ZoneAction::Reset, ImplicitlyOpened | ExplicitlyOpened | Closed | Full) => {
                Ok(self.reset(now_ns, zi))
            }
            (ZoneAction::Offline, Offline) => Ok(now_ns),
            (ZoneAction::Offline, ReadOnly) => {
                self.set_state(zi, Offline);
                Ok(now_ns)
            }
            _ => Err(Status::InvalidZoneStateTransition),
        }
    }

    /// Programs the staged partial unit of zone `zi`'s last piece, padded; the piece takes no
    /// more writes afterwards. With `give_back`, the units it reserved but did not use go back
    /// to the firmware (a zombie reclaim).
    fn flush_and_close(&mut self, now_ns: u64, zi: u32, give_back: bool) -> u64 {
        let unit = self.nand.layout.unit_bytes;
        let b = self.buffer_units;
        let Some(piece) = self.zones[zi as usize].pieces.last_mut() else {
            return now_ns;
        };
        let mut done = now_ns;
        if piece.staged_bytes > 0 {
            done = program_piece(
                &mut self.nand,
                &mut self.phys_high[piece.pz as usize],
                piece,
                unit - piece.staged_bytes,
                now_ns,
                b,
            );
        }
        piece.cap = piece.data;
        if give_back {
            piece.reserved_units = piece.programmed_units;
        }
        done
    }

    /// Finish: the staged partial unit is programmed (padded) and the zone becomes Full.
    fn finish(&mut self, now_ns: u64, zi: u32) -> u64 {
        let done = self.flush_and_close(now_ns, zi, false);
        self.set_state(zi, ZoneState::Full);
        self.zones[zi as usize].wp = self.cap_lbas;
        self.counters.zone_finishes += 1;
        done
    }

    fn reset(&mut self, now_ns: u64, zi: u32) -> u64 {
        let mut pieces = std::mem::take(&mut self.zones[zi as usize].pieces);
        let mut done = now_ns;
        if let Some((last_pz, frontier_unit)) = pieces.last().map(|p| (p.pz, p.frontier_unit())) {
            let refs: Vec<PieceRef> = pieces.iter().map(Piece::as_ref).collect();
            let view = ResetView {
                physical_zone: last_pz,
                programmed_units: frontier_unit,
                pieces: &refs,
            };
            match self.policy.on_host_reset(now_ns, &view) {
                ResetDecision::EraseNow(scope) => {
                    let units = match scope {
                        EraseScope::ProgrammedBlocks => view.programmed_units,
                        EraseScope::AllBlocks => u64::MAX,
                    };
                    let layout = self.nand.layout;
                    let mut erased = false;
                    for addr in layout.blocks_holding(last_pz, units) {
                        done = done.max(self.nand.erase_block(now_ns, addr));
                        erased = true;
                    }
                    self.counters.zone_resets_executed += erased as u64;
                    self.phys_high[last_pz as usize] = 0;
                    // The logical zone keeps its physical zone, now erased.
                    pieces = vec![Piece::whole_zone(
                        last_pz,
                        self.cap_units,
                        self.nand.layout.unit_bytes,
                    )];
                }
                ResetDecision::Unlink {
                    erase_now,
                    erase_background,
                } => {
                    // Staged data is dropped; the programmed units wait for the policy.
                    pieces.clear();
                    for order in &erase_now {
                        done = done.max(self.execute(now_ns, order));
                    }
                    for order in &erase_background {
                        self.execute(now_ns, order);
                    }
                }
            }
        }
        self.zones[zi as usize].pieces = pieces;
        self.counters.zone_resets_requested += 1;
        self.occupancy_epoch += 1;
        self.set_state(zi, ZoneState::Empty);
        let z = &mut self.zones[zi as usize];
        z.wp = 0;
        z.data_lbas = 0;
        if let Some(store) = &mut self.data {
            store.clear(zi);
        }
        done
    }

    /// Gives logical zone `zi`, written at logical byte `position`, a new piece from the
    /// firmware, first running the blocking erases it orders.
    fn allocate(&mut self, now_ns: u64, zi: u32, position: u64) {
        let unit = self.nand.layout.unit_bytes;
        let remaining = self.cap_lbas * self.lba_bytes - position;
        if !self.policy.has_space() {
            self.compact(now_ns);
        }
        let allocation = self.policy.allocate(now_ns, remaining.div_ceil(unit));
        if !allocation.erase_first.is_empty() {
            let start = self.foreground_start(now_ns);
            let mut done = start;
            for order in &allocation.erase_first {
                done = done.max(self.execute(start, order));
            }
            self.blocked_until_ns = done;
            self.policy.blocking_erases_end(done);
        }
        let pz = allocation.zone;
        assert!(
            allocation.start_unit >= self.phys_high[pz as usize],
            "physical zone {pz}: unit {} handed out over programmed units (up to {})",
            allocation.start_unit,
            self.phys_high[pz as usize]
        );
        assert!(
            allocation.units > 0 && allocation.start_unit + allocation.units <= self.cap_units,
            "physical zone {pz}: units {}+{} outside its {} units",
            allocation.start_unit,
            allocation.units,
            self.cap_units
        );
        let cap = (allocation.units * unit).min(remaining);
        let piece = Piece::new(position, pz, allocation.start_unit, allocation.units, cap);
        self.zones[zi as usize].pieces.push(piece);
    }

    /// Every physical zone is pinned by live pieces (ReZNS can get here; the paper does not say
    /// what then). Compacts in place the zone holding the least live data among those with no
    /// piece still being written: its live units are read into the controller, the zone is
    /// erased, and they are written back from unit 0. Foreground I/O waits for all of it.
    fn compact(&mut self, now_ns: u64) {
        let unit = self.nand.layout.unit_bytes;
        let mut live: Vec<(u64, bool)> = vec![(0, true); self.phys_high.len()];
        for z in &self.zones {
            for p in &z.pieces {
                let l = &mut live[p.pz as usize];
                l.0 += p.data.div_ceil(unit);
                l.1 &= p.data == p.cap;
            }
        }
        let victim = live
            .iter()
            .enumerate()
            .filter(|(_, (units, closed))| *closed && *units > 0 && *units < self.cap_units)
            .min_by_key(|(z, (units, _))| (*units, *z))
            .map(|(z, _)| z as u32)
            .expect("a physical zone with room to compact: live data never fills every zone");
        let start = self.foreground_start(now_ns);
        let layout = self.nand.layout;
        let pages = layout.pages_per_unit as u64;
        // Read what is programmed; staged bytes are in the controller already.
        let mut in_ram = start;
        let mut owners: Vec<(usize, usize)> = Vec::new();
        for (zi, z) in self.zones.iter().enumerate() {
            for (k, p) in z.pieces.iter().enumerate() {
                if p.pz == victim {
                    owners.push((zi, k));
                }
            }
        }
        owners.sort_by_key(|&(zi, k)| self.zones[zi].pieces[k].punit);
        for &(zi, k) in &owners {
            let p = &self.zones[zi].pieces[k];
            for j in 0..p.programmed_units {
                let die = layout.unit(victim, p.punit + j).die;
                for _ in 0..pages {
                    in_ram = in_ram.max(self.nand.read_page(start, die, layout.page_bytes));
                }
            }
        }
        let mut erased = in_ram;
        for addr in layout.blocks_holding(victim, self.phys_high[victim as usize]) {
            erased = erased.max(self.nand.erase_block(in_ram, addr));
        }
        let mut next = 0;
        let mut done = erased;
        for &(zi, k) in &owners {
            let p = &mut self.zones[zi].pieces[k];
            let units = p.data.div_ceil(unit);
            for j in 0..units {
                done = done.max(
                    self.nand
                        .program_unit(erased, layout.unit(victim, next + j)),
                );
            }
            p.punit = next;
            p.programmed_units = units;
            p.staged_bytes = 0;
            p.reserved_units = units;
            p.released_ns.clear();
            next += units;
        }
        self.phys_high[victim as usize] = next;
        self.counters.compacted_units += next;
        self.blocked_until_ns = self.blocked_until_ns.max(done);
        self.policy.compacted(victim, next);
    }

    /// Erases what `order` names, starting at `now_ns`; returns when the last erase ends.
    fn execute(&mut self, now_ns: u64, order: &EraseOrder) -> u64 {
        let layout = self.nand.layout;
        let mut done = now_ns;
        for row in order.rows.clone() {
            for addr in layout.row_blocks(order.zone, row, order.programmed_only) {
                done = done.max(self.nand.erase_block(now_ns, addr));
            }
        }
        if order.frees_zone {
            assert!(
                self.zones
                    .iter()
                    .all(|z| z.pieces.iter().all(|p| p.pz != order.zone)),
                "physical zone {} erased while a logical zone still maps to it",
                order.zone
            );
            self.counters.zone_resets_executed += 1;
            self.phys_high[order.zone as usize] = 0;
        }
        done
    }

    /// Offers the firmware the device's idle time and its timers at `now_ns`. Returns when to
    /// call again (a background erase ends, or a timer is due).
    pub fn background(&mut self, now_ns: u64) -> Option<u64> {
        if !self.policy.has_background_work() {
            return None;
        }
        if self.policy.next_timer_ns().is_some_and(|t| t <= now_ns) {
            self.run_timer(now_ns);
        }
        let timer = self.policy.next_timer_ns();
        let earliest = |t: u64| Some(timer.map_or(t, |timer| timer.min(t)));
        if self.background_until_ns > now_ns {
            return earliest(self.background_until_ns);
        }
        let view = IdleView {
            now_ns,
            device_idle: self.busy_until_ns <= now_ns
                && self.blocked_until_ns <= now_ns
                && self.nand.idle_at_ns() <= now_ns,
            nand: &self.nand,
        };
        match self.policy.on_idle(&view) {
            Some(order) => {
                let done = self.execute(now_ns, &order);
                self.background_until_ns = done;
                earliest(done)
            }
            None => timer,
        }
    }

    /// A firmware timer is due: show it the zones still holding unwritten space and close the
    /// pieces of those it reclaims (zombie zones).
    fn run_timer(&mut self, now_ns: u64) {
        let candidates: Vec<ZombieCandidate> = self
            .zones
            .iter()
            .enumerate()
            .filter(|(_, z)| z.state.is_active())
            .filter_map(|(i, z)| {
                let p = z.pieces.last()?;
                (p.data < p.cap).then(|| ZombieCandidate {
                    logical_zone: i as u32,
                    idle_since_ns: z.last_write_ns,
                    piece: p.as_ref(),
                    staged: p.staged_bytes > 0,
                })
            })
            .collect();
        let decision = self.policy.on_timer(now_ns, &candidates);
        for zi in decision.reclaimed {
            self.flush_and_close(now_ns, zi, true);
        }
        for order in &decision.erase_background {
            self.execute(now_ns, order);
        }
    }

    /// Puts a zone in Read Only or Offline, as a media fault would; its resources are released.
    pub fn inject_fault(&mut self, zone: u32, state: ZoneState) {
        assert!(
            matches!(state, ZoneState::ReadOnly | ZoneState::Offline),
            "faults are Read Only or Offline"
        );
        self.occupancy_epoch += 1;
        self.set_state(zone, state);
    }

    /// Zone Management Receive: Report Zones from the zone holding `slba`.
    pub fn report_zones(
        &self,
        slba: u64,
        filter: ReportFilter,
        partial: bool,
        max_descriptors: usize,
    ) -> Result<ZoneReport, Status> {
        if slba >= self.namespace_lbas() {
            return Err(Status::LbaOutOfRange);
        }
        let first = (slba / self.zone_lbas) as u32;
        let mut descriptors = Vec::new();
        let mut matching = 0u64;
        for zi in first..self.spec.geometry.zone_count {
            let d = self.zone(zi);
            if filter.matches(d.state) {
                matching += 1;
                if descriptors.len() < max_descriptors {
                    descriptors.push(d);
                }
            }
        }
        let zone_count = if partial {
            descriptors.len() as u64
        } else {
            matching
        };
        Ok(ZoneReport {
            zone_count,
            descriptors,
        })
    }

    /// Checks every invariant of the zone state machine; panics with the broken one.
    pub fn check_invariants(&self) {
        let open = self.zones.iter().filter(|z| z.state.is_open()).count() as u32;
        let active = self.zones.iter().filter(|z| z.state.is_active()).count() as u32;
        assert_eq!(open, self.open_zones, "open zone count");
        assert_eq!(active, self.active_zones, "active zone count");
        if let Some(m) = self.spec.geometry.max_open_zones {
            assert!(open <= m, "{open} open zones exceed the limit {m}");
            assert_eq!(self.open_list.len() as u32, open, "open list");
        }
        if let Some(m) = self.spec.geometry.max_active_zones {
            assert!(active <= m, "{active} active zones exceed the limit {m}");
        }
        let unit = self.nand.layout.unit_bytes;
        for (i, z) in self.zones.iter().enumerate() {
            assert!(
                z.wp <= self.cap_lbas,
                "zone {i}: write pointer beyond capacity"
            );
            assert!(z.data_lbas <= z.wp, "zone {i}: data beyond write pointer");
            match z.state {
                ZoneState::Empty => {
                    assert_eq!(z.wp, 0, "zone {i}: empty zone with a write pointer")
                }
                ZoneState::Full => {
                    assert_eq!(z.wp, self.cap_lbas, "zone {i}: full zone not at capacity")
                }
                _ => {}
            }
            let stored: u64 = z
                .pieces
                .iter()
                .map(|p| p.programmed_units * unit + p.staged_bytes)
                .sum();
            let mut expect = 0;
            for p in &z.pieces {
                assert_eq!(p.lstart, expect, "zone {i}: pieces cover the zone in order");
                assert!(p.data <= p.cap, "zone {i}: piece holds more than its space");
                assert!(
                    p.programmed_units == 0 || p.frontier_unit() <= self.phys_high[p.pz as usize],
                    "zone {i}: programmed beyond the physical frontier"
                );
                expect += p.cap;
            }
            assert!(
                stored >= z.data_lbas * self.lba_bytes,
                "zone {i}: NAND holds less than the host wrote"
            );
            if let Some(store) = &self.data {
                assert_eq!(
                    store.len(i as u32) as u64,
                    z.data_lbas * self.lba_bytes,
                    "zone {i}: retained data length"
                );
            }
        }
    }
}

#[cfg(test)]
#[path = "device_tests.rs"]
pub(crate) mod tests;

#[cfg(test)]
#[path = "policy_tests.rs"]
mod policy_tests;

#[cfg(test)]
#[path = "rezns_tests.rs"]
mod rezns_tests;
