//! Static logical zones: the baseline eZNS compares against (eZNS OSDI'23 section 5; ezns.md:
//! "Static baseline: width 4, 16 KiB stripes, 16 physical zones per logical zone"). A logical
//! zone is a fixed list of physical zones of the device, split into stripe groups of a fixed
//! width and striped with a fixed stripe size; a group is written to its end before the next
//! one starts. It is a host-side layer behind the device seam: it presents the logical zones as
//! a zoned namespace and translates every command into device commands.
//!
//! By default logical zone `k` is physical zones `k*N .. (k+1)*N`; on the round-robin device
//! their dies are bound when first written. An explicit placement (lists of physical zones)
//! puts logical zones on chosen dies of a statically mapped device (zone `p` on die
//! `p % dies`), which is how the device observations choose placements.

use crate::device::{
    Accepted, Command, Data, DeviceInfo, DeviceModel, Status, ZoneAction, ZoneState, ZonedInfo,
};
use crate::host::lzone::{self, Effect, LogicalZones, ZoneBackend};
use crate::host::stripe::Stripe;
use crate::time::{Duration, Instant};

/// A validated static-zone layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaticSpec {
    /// Physical zones per logical zone.
    pub zones_per_logical: u32,
    /// Physical zones per stripe group.
    pub width: u32,
    pub stripe_lbas: u64,
    /// Explicit physical zones of each logical zone (each list `zones_per_logical` long).
    pub placement: Option<Vec<Vec<u32>>>,
    /// Open (and active) logical zones at most; 0: the device's active limit / width.
    pub max_active: u32,
}

impl StaticSpec {
    /// LBAs of one physical zone a logical zone uses: whole stripes.
    pub fn usable_lbas(&self, device: &ZonedInfo) -> u64 {
        device.zone_capacity_lbas / self.stripe_lbas * self.stripe_lbas
    }

    pub fn logical_zones(&self, device: &ZonedInfo) -> u32 {
        match &self.placement {
            Some(p) => p.len() as u32,
            None => device.zone_count / self.zones_per_logical,
        }
    }

    fn active_limit(&self, device: &ZonedInfo) -> u32 {
        if self.max_active > 0 {
            return self.max_active;
        }
        // A logical zone keeps its stripe group open and active: both limits bind.
        let limit = device.open_limit().unwrap_or(device.zone_count);
        (limit / self.width).max(1)
    }

    /// What the layer presents over `device` (a zoned device: the config says so).
    pub fn info(&self, device: &DeviceInfo) -> DeviceInfo {
        let z = device.zoned().expect("a zoned device under static zones");
        let cap = self.usable_lbas(z) * self.zones_per_logical as u64;
        let size = cap.next_power_of_two();
        let count = self.logical_zones(z);
        let limit = self.active_limit(z);
        DeviceInfo {
            name: format!("{} (static zones)", device.name),
            lba_size_bytes: device.lba_size_bytes,
            namespace_lbas: size * count as u64,
            namespaces: 1,
            zoned: Some(ZonedInfo {
                zone_size_lbas: size,
                zone_capacity_lbas: cap,
                zone_count: count,
                max_open_zones: Some(limit),
                max_active_zones: Some(limit),
                zone_append_size_limit_lbas: None,
            }),
        }
    }
}

pub struct StaticZones {
    /// Any zoned device: a ZNS drive, a drive array, another static layer.
    dev: Box<dyn DeviceModel>,
    info: DeviceInfo,
    lz: LogicalZones,
    stripe: Stripe,
    /// Physical zones of each logical zone.
    map: Vec<Vec<u32>>,
    usable: u64,
    group_lbas: u64,
    pz_lbas: u64,
    pz_cap_lbas: u64,
    lba_bytes: u64,
    scratch: Vec<u8>,
}

impl StaticZones {
    pub fn new(dev: Box<dyn DeviceModel>, spec: &StaticSpec) -> Self {
        let info = spec.info(dev.info());
        let pz = dev.info().zoned().expect("zoned").clone();
        let z = info.zoned.clone().expect("zoned");
        let map = match &spec.placement {
            Some(p) => p.clone(),
            None => (0..z.zone_count)
                .map(|k| (k * spec.zones_per_logical..(k + 1) * spec.zones_per_logical).collect())
                .collect(),
        };
        let usable = spec.usable_lbas(&pz);
        StaticZones {
            lz: LogicalZones::new(
                z.zone_count,
                z.zone_size_lbas,
                z.zone_capacity_lbas,
                z.max_active_zones.expect("a limit"),
            ),
            stripe: Stripe::new(spec.width, spec.stripe_lbas),
            map,
            usable,
            group_lbas: usable * spec.width as u64,
            pz_lbas: pz.zone_size_lbas,
            pz_cap_lbas: pz.zone_capacity_lbas,
            lba_bytes: info.lba_size_bytes,
            scratch: Vec::new(),
            info,
            dev,
        }
    }

    /// The physical zones of logical zone `zone`.
    pub fn physical_zones(&self, zone: u32) -> &[u32] {
        &self.map[zone as usize]
    }

    /// Where LBA `offset` of logical zone `zone` lives: device LBA.
    pub fn locate(&self, zone: u32, offset: u64) -> u64 {
        let g = offset / self.group_lbas;
        let (index, pz_off, _) = self.stripe.locate(offset % self.group_lbas);
        let pz = self.map[zone as usize][(g * self.stripe.width as u64) as usize + index as usize];
        pz as u64 * self.pz_lbas + pz_off
    }

    fn pz(&self, zone: u32, group: u64, index: u32) -> u32 {
        self.map[zone as usize][(group * self.stripe.width as u64) as usize + index as usize]
    }

    /// Sets logical zones up as if written (prefill): zone and LBAs, in order.
    pub fn prefill(&mut self, plan: &[(u32, u64)]) {
        let mut device_plan = Vec::new();
        let mut finish = Vec::new();
        for &(zone, lbas) in plan {
            self.lz.prefill(zone, lbas);
            let mut pos = 0;
            while pos < lbas {
                let g = pos / self.group_lbas;
                let end = lbas.min((g + 1) * self.group_lbas);
                let x = end - g * self.group_lbas;
                for i in 0..self.stripe.width {
                    let on = self.stripe.on_zone(i, x);
                    if on > 0 {
                        let pz = self.pz(zone, g, i);
                        device_plan.push((pz, on));
                        if x == self.group_lbas && on < self.pz_cap_lbas {
                            finish.push(pz);
                        }
                    }
                }
                pos = end;
            }
        }
        self.dev.prefill_zones(&device_plan);
        for pz in finish {
            let finish = Command::zone(ZoneAction::Finish, pz as u64 * self.pz_lbas);
            self.dev
                .submit(Instant::ZERO, finish)
                .expect("finish of a prefilled physical zone");
        }
    }
}

impl ZoneBackend for StaticZones {
    fn zones(&mut self) -> &mut LogicalZones {
        &mut self.lz
    }

    fn lba_bytes(&self) -> u64 {
        self.lba_bytes
    }

    fn read(
        &mut self,
        now: Instant,
        zone: u32,
        offset: u64,
        nlb: u64,
        mut buf: Option<&mut [u8]>,
    ) -> Result<(Instant, Duration), Status> {
        let data = self.lz.data(zone).min(offset + nlb);
        let mut done = now;
        let mut pos = offset;
        while pos < data {
            let g = pos / self.group_lbas;
            let gstart = g * self.group_lbas;
            let gend = data.min(gstart + self.group_lbas);
            for c in self.stripe.chunks(pos - gstart, gend - gstart) {
                let pz = self.pz(zone, g, c.index);
                let slba = pz as u64 * self.pz_lbas + c.offset;
                let at = (gstart + c.logical - offset) * self.lba_bytes;
                let part = buf
                    .as_deref_mut()
                    .map(|b| &mut b[at as usize..(at + c.len * self.lba_bytes) as usize]);
                let mut cmd = Command::read(slba, c.len);
                if let Some(p) = part {
                    cmd = cmd.with_data(Data::In(p));
                }
                done = done.max(lzone::at_submission(&self.dev.submit(now, cmd)?));
            }
            pos = gend;
        }
        if let Some(b) = buf {
            let written = (data.max(offset) - offset) * self.lba_bytes;
            b[written as usize..].fill(0);
        }
        Ok((done, Duration::ZERO))
    }

    fn peek(&self, zone: u32, offset: u64, buf: &mut [u8]) -> Result<(), Status> {
        let lba_bytes = self.lba_bytes;
        let data = self
            .lz
            .data(zone)
            .clamp(offset, offset + buf.len() as u64 / lba_bytes);
        buf[((data - offset) * lba_bytes) as usize..].fill(0);
        let mut pos = offset;
        while pos < data {
            let g = pos / self.group_lbas;
            let gstart = g * self.group_lbas;
            let gend = data.min(gstart + self.group_lbas);
            for c in self.stripe.chunks(pos - gstart, gend - gstart) {
                let slba = self.pz(zone, g, c.index) as u64 * self.pz_lbas + c.offset;
                let at = ((gstart + c.logical - offset) * lba_bytes) as usize;
                let len = (c.len * lba_bytes) as usize;
                self.dev.peek(0, slba, &mut buf[at..at + len])?;
            }
            pos = gend;
        }
        Ok(())
    }

    fn write(
        &mut self,
        now: Instant,
        zone: u32,
        offset: u64,
        nlb: u64,
        data: Option<&[u8]>,
    ) -> Result<(Instant, Duration), Status> {
        let mut done = now;
        let mut pos = offset;
        let end = offset + nlb;
        while pos < end {
            let g = pos / self.group_lbas;
            let gstart = g * self.group_lbas;
            let gend = end.min(gstart + self.group_lbas);
            for r in self.stripe.runs(pos - gstart, gend - gstart) {
                let pz = self.pz(zone, g, r.index);
                let slba = pz as u64 * self.pz_lbas + r.offset;
                let bytes = data.map(|d| {
                    gather(
                        &mut self.scratch,
                        d,
                        &self.stripe,
                        r.index,
                        pos - gstart,
                        gend - gstart,
                        pos - offset,
                        self.lba_bytes,
                    )
                });
                let mut cmd = Command::write(slba, r.len);
                if let Some(b) = bytes {
                    cmd = cmd.with_data(Data::Out(b));
                }
                done = done.max(lzone::at_submission(&self.dev.submit(now, cmd)?));
            }
            if gend == gstart + self.group_lbas && self.usable < self.pz_cap_lbas {
                for i in 0..self.stripe.width {
                    let pz = self.pz(zone, g, i);
                    let finish = Command::zone(ZoneAction::Finish, pz as u64 * self.pz_lbas);
                    self.dev.submit(now, finish)?;
                }
            }
            pos = gend;
        }
        Ok((done, Duration::ZERO))
    }

    fn manage(&mut self, now: Instant, zone: u32, effect: Effect) -> Result<Instant, Status> {
        let action = match effect {
            Effect::None => return Ok(now),
            Effect::Finish => ZoneAction::Finish,
            Effect::Reset => ZoneAction::Reset,
        };
        let mut done = now;
        for k in 0..self.map[zone as usize].len() {
            let pz = self.map[zone as usize][k];
            let state = self.dev.zone(0, pz).state;
            let skip = match action {
                ZoneAction::Finish => !state.is_active(),
                _ => state == ZoneState::Empty,
            };
            if !skip {
                let cmd = Command::zone(action, pz as u64 * self.pz_lbas);
                done = done.max(lzone::at_submission(&self.dev.submit(now, cmd)?));
            }
        }
        Ok(done)
    }

    fn flush(&mut self, now: Instant) -> Result<Instant, Status> {
        let flush = Command::new(crate::device::Op::Flush, 0, 0);
        Ok(lzone::at_submission(&self.dev.submit(now, flush)?))
    }
}

/// Gathers the bytes of run `index` of the group range `[x0, x1)` from `data`, the host write
/// whose first LBA lies `skip` LBAs before group offset `x0`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gather<'a>(
    scratch: &'a mut Vec<u8>,
    data: &[u8],
    stripe: &Stripe,
    index: u32,
    x0: u64,
    x1: u64,
    skip: u64,
    lba_bytes: u64,
) -> &'a [u8] {
    scratch.clear();
    for c in stripe.chunks(x0, x1).filter(|c| c.index == index) {
        let at = ((c.logical - x0 + skip) * lba_bytes) as usize;
        scratch.extend_from_slice(&data[at..at + (c.len * lba_bytes) as usize]);
    }
    scratch
}

impl DeviceModel for StaticZones {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn policy_name(&self) -> &'static str {
        "static-zones"
    }

    fn submit(&mut self, now: Instant, cmd: Command<'_>) -> Result<Accepted, Status> {
        lzone::submit(self, now, cmd)
    }

    lzone::one_device_below!();

    fn prefill_zones(&mut self, plan: &[(u32, u64)]) {
        self.prefill(plan);
    }

    lzone::zone_queries!();

    fn check_invariants(&self) {
        self.dev.check_invariants();
        self.lz.check();
        for zone in 0..self.lz.count() {
            let on_device: u64 = self.map[zone as usize]
                .iter()
                .map(|&pz| self.dev.written_lbas(0, pz))
                .sum();
            assert_eq!(
                on_device,
                self.lz.data(zone),
                "logical zone {zone}: its physical zones hold its data"
            );
        }
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::Data;
    use crate::host::elastic::tests::DEVICE;

    fn layer(extra: &str) -> Result<crate::experiment::Experiment, crate::ConfigError> {
        layer_with(extra, &[])
    }

    fn layer_with(
        extra: &str,
        set: &[&str],
    ) -> Result<crate::experiment::Experiment, crate::ConfigError> {
        let text = format!(
            "[data]\nretention = true\n{DEVICE}\n[layer]\nkind = \"static\"\nzones_per_logical = 4\nstripe_width = 2\nstripe_size = \"8KiB\"\n{extra}"
        );
        crate::testing::fixtures::validated(&text, set)
    }

    #[test]
    fn static_zones_stripe_over_fixed_groups_and_read_back() {
        let exp = layer("").unwrap();
        let mut d = crate::experiment::build_device(&exp);
        let z = d.info().zoned.clone().unwrap();
        assert_eq!(
            (z.zone_capacity_lbas, z.zone_size_lbas, z.zone_count),
            (128, 128, 32)
        );
        assert_eq!(
            z.max_active_zones,
            Some(8),
            "16 active physical zones / width 2"
        );
        let now = write_and_read_back(&mut *d);
        assert_eq!(d.zone(0, 3).wp, 3 * 128 + 100);
        d.submit(
            Instant::from_ns(now),
            Command::zone(ZoneAction::Reset, 3 * 128),
        )
        .unwrap();
        d.check_invariants();
        assert_eq!(d.written_lbas(0, 3), 0);
    }

    /// Writes 20 x 5 LBAs into logical zone 3 of `d` and reads the zone back (zeros past them);
    /// returns when the read completed.
    fn write_and_read_back(d: &mut dyn DeviceModel) -> u64 {
        let z = d.info().zoned.clone().unwrap();
        let mut now = 0;
        for k in 0..20u64 {
            let data = vec![k as u8 + 1; 5 * 4096];
            let wp = d.zone(0, 3).wp;
            let a = d
                .submit(
                    Instant::from_ns(now),
                    Command::write(wp, 5).with_data(Data::Out(&data)),
                )
                .unwrap();
            now = a.done.unwrap().ns();
            d.check_invariants();
        }
        let cap = z.zone_capacity_lbas;
        let mut buf = vec![0u8; cap as usize * 4096];
        let a = d
            .submit(
                Instant::from_ns(now),
                Command::read(3 * z.zone_size_lbas, cap).with_data(Data::In(&mut buf)),
            )
            .unwrap();
        for (l, chunk) in buf.chunks(4096).enumerate() {
            let want = if l < 100 { (l / 5) as u8 + 1 } else { 0 };
            assert!(chunk.iter().all(|&b| b == want), "LBA {l}");
        }
        a.done.unwrap().ns()
    }

    #[test]
    fn static_zones_stack_on_an_array_and_on_static_zones() {
        let over_array = "[layer.over]\nkind = \"array\"\ndrives = 2\nstripe_size = \"8KiB\"\n";
        let exp = layer(&format!("[prefill]\nsize = \"2z\"\n{over_array}")).unwrap();
        let mut d = crate::experiment::build_device(&exp);
        let z = d.info().zoned.clone().unwrap();
        // Two drives of 128 zones of 32 LBAs: 128 array zones of 64, 32 static zones of 256.
        assert_eq!((z.zone_capacity_lbas, z.zone_count), (256, 32));
        assert_eq!(d.written_lbas(0, 1), 256, "the prefill went down the stack");
        d.check_invariants();
        write_and_read_back(&mut *d);
        let exp = layer(
            "[layer.over]\nkind = \"static\"\nzones_per_logical = 2\nstripe_width = 2\nstripe_size = \"4KiB\"\n",
        )
        .unwrap();
        let mut d = crate::experiment::build_device(&exp);
        // 64 static zones of 2 under 16 of 4.
        assert_eq!(d.info().zoned().unwrap().zone_count, 16);
        write_and_read_back(&mut *d);
    }

    #[test]
    fn a_layer_under_static_zones_is_checked_by_its_name() {
        let bad = layer("[layer.over]\nkind = \"array\"\ndrives = 0\n").unwrap_err();
        assert!(bad.to_string().starts_with("layer.over.drives"), "{bad}");
        let bad = layer("[layer.over]\nkind = \"ezns\"\n").unwrap_err();
        assert!(bad.to_string().starts_with("layer.over.kind"), "{bad}");
        // 128 array zones under static zones of 200.
        let bad = layer_with(
            "[layer.over]\nkind = \"array\"\ndrives = 2\n",
            &["layer.zones_per_logical=200", "layer.stripe_width=2"],
        )
        .unwrap_err();
        assert!(
            bad.to_string().starts_with("layer.zones_per_logical"),
            "{bad}"
        );
    }

    #[test]
    fn a_placement_must_name_distinct_existing_zones() {
        let bad = layer("placement = [[0, 1, 2, 3], [3, 4, 5, 6]]").unwrap_err();
        assert!(bad.to_string().starts_with("layer.placement[1]"), "{bad}");
        let bad = layer("placement = [[0, 1, 2]]").unwrap_err();
        assert!(bad.to_string().starts_with("layer.placement[0]"), "{bad}");
        let bad = layer_with("", &["layer.stripe_width=3"]).unwrap_err();
        assert!(bad.to_string().starts_with("layer.stripe_width"), "{bad}");
        assert!(layer("placement = [[0, 16, 32, 48]]").is_ok());
    }
}
