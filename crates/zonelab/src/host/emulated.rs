//! Zones emulated over a conventional (block) SSD: logical zone `k` is LBAs `k * Z .. (k + 1) * Z`
//! of the device, held to the zone rules here (sequential writes at the write pointer, open and
//! active limits), and a reset deallocates what the zone held (NVMe Dataset Management, a
//! Trim), so the SSD's FTL knows those pages are dead. This is how zone emulators present zones
//! over flat storage (FEMU's and NVMeVirt's ZNS modes keep zones over memory; here the storage is
//! the conventional SSD with its FTL), and it lets a zoned host stack (the file layer, the
//! key-value store) run unchanged on a conventional SSD, so the block interface's cost shows
//! under the same host: the FTL's GC and write amplification beside a ZNS drive's zone resets.

use crate::device::{Accepted, Command, Data, DeviceInfo, DeviceModel, Op, Status, ZonedInfo};
use crate::host::lzone::{self, Effect, LogicalZones, ZoneBackend};
use crate::time::{Duration, Instant};

/// A validated emulated-zone layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmulatedSpec {
    /// LBAs per zone (a power of two; the capacity is the whole zone).
    pub zone_lbas: u64,
    /// Open and active zones at most (0: no limit).
    pub max_active: u32,
}

impl EmulatedSpec {
    /// What the layer presents over the block device `device`.
    pub fn info(&self, device: &DeviceInfo) -> DeviceInfo {
        let count = (device.namespace_lbas / self.zone_lbas) as u32;
        let limit = (self.max_active > 0).then_some(self.max_active);
        DeviceInfo {
            name: format!("{} (emulated zones)", device.name),
            lba_size_bytes: device.lba_size_bytes,
            namespace_lbas: self.zone_lbas * count as u64,
            namespaces: 1,
            zoned: Some(ZonedInfo {
                zone_size_lbas: self.zone_lbas,
                zone_capacity_lbas: self.zone_lbas,
                zone_count: count,
                max_open_zones: limit,
                max_active_zones: limit,
                zone_append_size_limit_lbas: None,
            }),
        }
    }
}

pub struct EmulatedZones {
    dev: Box<dyn DeviceModel>,
    info: DeviceInfo,
    lz: LogicalZones,
    lba_bytes: u64,
}

impl EmulatedZones {
    /// Zones over `dev`, a conventional device (the config says so).
    pub fn new(dev: Box<dyn DeviceModel>, spec: &EmulatedSpec) -> Self {
        assert!(
            dev.info().zoned.is_none(),
            "emulated zones over a block device"
        );
        let info = spec.info(dev.info());
        let z = info.zoned.clone().expect("zoned");
        EmulatedZones {
            lz: LogicalZones::new(
                z.zone_count,
                z.zone_size_lbas,
                z.zone_capacity_lbas,
                z.max_active_zones.unwrap_or(z.zone_count),
            ),
            lba_bytes: info.lba_size_bytes,
            dev,
            info,
        }
    }

    fn lba(&self, zone: u32, offset: u64) -> u64 {
        zone as u64 * self.lz.zone_lbas() + offset
    }
}

impl ZoneBackend for EmulatedZones {
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
        buf: Option<&mut [u8]>,
    ) -> Result<(Instant, Duration), Status> {
        // Past the zone's data the device holds nothing of this zone: zeros, as on a ZNS drive.
        let data = self.lz.data(zone).min(offset + nlb).max(offset);
        let held = data - offset;
        let (mut head, tail) = match buf {
            Some(b) => {
                let (h, t) = b.split_at_mut((held * self.lba_bytes) as usize);
                (Some(h), Some(t))
            }
            None => (None, None),
        };
        let mut done = now;
        if held > 0 {
            let mut cmd = Command::read(self.lba(zone, offset), held);
            if let Some(h) = head.take() {
                cmd = cmd.with_data(Data::In(h));
            }
            done = lzone::at_submission(&self.dev.submit(now, cmd)?);
        }
        if let Some(t) = tail {
            t.fill(0);
        }
        Ok((done, Duration::ZERO))
    }

    fn peek(&self, zone: u32, offset: u64, buf: &mut [u8]) -> Result<(), Status> {
        let lbas = buf.len() as u64 / self.lba_bytes;
        let held = self.lz.data(zone).clamp(offset, offset + lbas) - offset;
        let (head, tail) = buf.split_at_mut((held * self.lba_bytes) as usize);
        tail.fill(0);
        if held > 0 {
            self.dev.peek(0, self.lba(zone, offset), head)?;
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
        let mut cmd = Command::write(self.lba(zone, offset), nlb);
        if let Some(d) = data {
            cmd = cmd.with_data(Data::Out(d));
        }
        Ok((
            lzone::at_submission(&self.dev.submit(now, cmd)?),
            Duration::ZERO,
        ))
    }

    fn manage(&mut self, now: Instant, zone: u32, effect: Effect) -> Result<Instant, Status> {
        match effect {
            // The zone's LBAs, written or not, are deallocated: the FTL drops their pages.
            Effect::Reset => {
                let trim = Command::new(Op::Trim, self.lba(zone, 0), self.lz.zone_lbas());
                Ok(lzone::at_submission(&self.dev.submit(now, trim)?))
            }
            // Nothing to do on a block device: the zone just takes no more writes.
            Effect::Finish | Effect::None => Ok(now),
        }
    }

    fn flush(&mut self, now: Instant) -> Result<Instant, Status> {
        Ok(lzone::at_submission(
            &self.dev.submit(now, Command::new(Op::Flush, 0, 0))?,
        ))
    }
}

impl DeviceModel for EmulatedZones {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn policy_name(&self) -> &'static str {
        self.dev.policy_name()
    }

    fn submit(&mut self, now: Instant, cmd: Command<'_>) -> Result<Accepted, Status> {
        lzone::submit(self, now, cmd)
    }

    lzone::one_device_below!();

    lzone::zone_queries!();

    fn check_invariants(&self) {
        self.lz.check();
        self.dev.check_invariants();
    }

    fn slow_die(&mut self, die: u32, permille: u32) -> Result<(), Status> {
        self.dev.slow_die(die, permille)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::ZoneAction;

    fn experiment(extra: &str) -> Result<crate::experiment::Experiment, crate::ConfigError> {
        experiment_with(extra, &[])
    }

    fn experiment_with(
        extra: &str,
        set: &[&str],
    ) -> Result<crate::experiment::Experiment, crate::ConfigError> {
        let text = format!(
            "preset = \"zn540-conv-op7\"\n[data]\nretention = true\n[layer]\nkind = \"emulated\"\nzone_size = \"64MiB\"\n{extra}"
        );
        crate::testing::fixtures::validated(&text, set)
    }

    #[test]
    fn emulated_zones_keep_the_zone_rules_and_trim_at_reset() {
        let exp = experiment("max_active = 4").unwrap();
        let mut d = crate::experiment::build_device(&exp);
        let z = d.info().zoned.clone().unwrap();
        assert_eq!((z.zone_size_lbas, z.max_active_zones), (16384, Some(4)));
        let zl = z.zone_size_lbas;
        let data = vec![7u8; 8 * 4096];
        let w = |lba| Command::write(lba, 8).with_data(Data::Out(&data));
        let a = d.submit(Instant::ZERO, w(3 * zl)).unwrap();
        let now = a.done.unwrap();
        // Not at the write pointer: refused, as a ZNS drive refuses it.
        assert_eq!(
            d.submit(now, w(3 * zl + 64)).unwrap_err(),
            Status::ZoneInvalidWrite
        );
        let mut buf = vec![1u8; 16 * 4096];
        d.submit(now, Command::read(3 * zl, 16).with_data(Data::In(&mut buf)))
            .unwrap();
        assert!(buf[..8 * 4096].iter().all(|&b| b == 7));
        assert!(
            buf[8 * 4096..].iter().all(|&b| b == 0),
            "zeros past the data"
        );
        let before = d.report(now).counters;
        d.submit(now, Command::zone(ZoneAction::Reset, 3 * zl))
            .unwrap();
        assert_eq!(d.written_lbas(0, 3), 0);
        let after = d.report(now).counters;
        assert_eq!(
            after.trims,
            before.trims + 1,
            "the reset reached the SSD as a Trim"
        );
        d.check_invariants();
        for k in 0..4 {
            d.submit(now, w(k * zl)).unwrap();
        }
        assert_eq!(
            d.submit(now, w(5 * zl)).unwrap_err(),
            Status::TooManyActiveZones
        );
    }

    /// A tiny conventional SSD (16 MiB of raw NAND, 28% over-provisioned; the FTL tests') under
    /// 16-LBA zones.
    const TINY: &str = "[device]\nkind = \"conventional\"\nname = \"tiny-conv\"\nsource = \"test\"\n\
        [device.geometry]\nchannels = 2\ndies_per_channel = 2\nblocks_per_die = 64\npages_per_block = 4\n\
        page_size_bytes = \"16KiB\"\nlba_size_bytes = 4096\n\
        [device.timing]\nread_latency_ns = 50000\nprogram_latency_ns = 500000\nerase_latency_ns = 3000000\n\
        channel_rate_mb_s = 800\nhost_rate_mb_s = 3200\n\
        [device.energy]\nread_nj_per_page = 1.0\nprogram_nj_per_page = 10.0\nerase_nj_per_block = 100.0\n\
        [device.ftl]\nover_provisioning_percent = 28\nwrite_buffer_bytes = \"64KiB\"\n\
        [data]\nretention = true\n[layer]\nkind = \"emulated\"\nzone_size = \"64KiB\"\nmax_active = 3\n";
    const TINY_LAYER: &str =
        "[layer]\nkind = \"emulated\"\nzone_size = \"64KiB\"\nmax_active = 3\n";
    /// Static zones of two emulated zones each, striped two wide in 16 KiB units, over them.
    const STATIC_OVER: &str = "[layer]\nkind = \"static\"\nzones_per_logical = 2\nstripe_width = 2\n\
        stripe_size = \"16KiB\"\n[layer.over]\nkind = \"emulated\"\nzone_size = \"32KiB\"\nmax_active = 6\n";

    #[derive(Clone, Debug)]
    enum Cmd {
        Write { zone: u32, skew: u64, nlb: u64 },
        Append { zone: u32, nlb: u64 },
        Read { zone: u32, offset: u64, nlb: u64 },
        Manage { zone: u32, action: ZoneAction },
    }

    fn cmd() -> impl proptest::strategy::Strategy<Value = Cmd> {
        use proptest::prelude::*;
        let action = prop_oneof![
            Just(ZoneAction::Open),
            Just(ZoneAction::Close),
            Just(ZoneAction::Finish),
            Just(ZoneAction::Reset),
        ];
        prop_oneof![
            6 => (0..5u32, prop_oneof![4 => Just(0u64), 1 => 1..3u64], 1..10u64)
                .prop_map(|(zone, skew, nlb)| Cmd::Write { zone, skew, nlb }),
            2 => (0..5u32, 1..10u64).prop_map(|(zone, nlb)| Cmd::Append { zone, nlb }),
            3 => (0..5u32, 0..20u64, 1..10u64)
                .prop_map(|(zone, offset, nlb)| Cmd::Read { zone, offset, nlb }),
            3 => (0..5u32, action).prop_map(|(zone, action)| Cmd::Manage { zone, action }),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: crate::test_cases(64), ..Default::default() })]

        /// Emulated zones, and static zones striped over them, follow the zone rules of a ZNS
        /// namespace: every status, state, write pointer and byte read as the reference model
        /// says, through resets that trim.
        #[test]
        fn emulated_zones_match_the_reference_model(
            cmds in proptest::collection::vec(cmd(), 1..120),
            stacked in proptest::bool::ANY,
        ) {
            use crate::testing::reference::Model;
            assert!(TINY.contains(TINY_LAYER));
            let text = if stacked { TINY.replace(TINY_LAYER, STATIC_OVER) } else { TINY.to_string() };
            let exp = crate::testing::fixtures::validated(&text, &[]).unwrap();
            let mut d = crate::experiment::build_device(&exp);
            let mut model = Model::of(d.info()).unwrap();
            let zl = model.zone_lbas;
            for (i, c) in cmds.iter().enumerate() {
                let now = Instant::from_ns(1_000_000 * (i as u64 + 1));
                d.advance(now, &mut Vec::new());
                let data: Vec<u8> = (0..16 * 4096).map(|b| (b * 7 + i) as u8).collect();
                let got_want = match *c {
                    Cmd::Write { zone, skew, nlb } => {
                        let slba = d.zone(0, zone).wp + skew;
                        let x = &data[..(nlb * 4096) as usize];
                        let got = d.submit(now, Command::write(slba, nlb).with_data(Data::Out(x)));
                        (got.map(|_| Vec::new()), model.write(slba, nlb, x).map(|_| Vec::new()))
                    }
                    Cmd::Append { zone, nlb } => {
                        let x = &data[..(nlb * 4096) as usize];
                        let got = d.submit(now, Command::append(zone as u64 * zl, nlb).with_data(Data::Out(x)));
                        let want = model.append(zone as u64 * zl, nlb, x);
                        (got.map(|a| a.lba.to_le_bytes().to_vec()), want.map(|l| l.to_le_bytes().to_vec()))
                    }
                    Cmd::Read { zone, offset, nlb } => {
                        let slba = zone as u64 * zl + offset;
                        let mut buf = vec![0u8; (nlb * 4096) as usize];
                        let got = d.submit(now, Command::read(slba, nlb).with_data(Data::In(&mut buf))).map(|_| buf);
                        (got, model.read(slba, nlb))
                    }
                    Cmd::Manage { zone, action } => {
                        let got = d.submit(now, Command::zone(action, zone as u64 * zl)).map(|_| Vec::new());
                        (got, model.manage(zone as usize, action).map(|_| Vec::new()))
                    }
                };
                proptest::prop_assert_eq!(got_want.0, got_want.1, "cmd {} {:?}", i, c);
                d.check_invariants();
                for z in 0..5u32 {
                    let desc = d.zone(0, z);
                    proptest::prop_assert_eq!(desc.state, model.zones[z as usize].state, "zone {} after cmd {}", z, i);
                    proptest::prop_assert_eq!(desc.wp - desc.zslba, model.zones[z as usize].wp, "zone {} wp after cmd {}", z, i);
                }
            }
        }
    }

    #[test]
    fn emulated_zones_are_checked_by_name() {
        let bad = experiment_with("", &["layer.zone_size=\"3MiB\""]).unwrap_err();
        assert!(bad.to_string().starts_with("layer.zone_size"), "{bad}");
        let bad = experiment("[prefill]\nsize = \"1z\"").unwrap_err();
        assert!(bad.to_string().starts_with("prefill"), "{bad}");
        let text = "preset = \"zn540\"\n[layer]\nkind = \"emulated\"\nzone_size = \"64MiB\"\n";
        let bad = crate::testing::fixtures::validated(text, &[]).unwrap_err();
        assert!(bad.to_string().starts_with("layer.kind"), "{bad}");
    }

    /// Over a block SSD, static zones go on emulated zones only, and say which field is wrong.
    #[test]
    fn static_zones_over_a_block_ssd_need_emulated_zones_under_them() {
        let on = |layer: &str| {
            let text = format!("preset = \"zn540-conv-op7\"\n{layer}");
            crate::testing::fixtures::validated(&text, &[]).map_err(|e| e.to_string())
        };
        let stacked = "[layer]\nkind = \"static\"\nzones_per_logical = 4\nstripe_width = 4\n\
                       [layer.over]\nkind = \"emulated\"\nzone_size = \"64MiB\"\n";
        let exp = on(stacked).unwrap();
        let d = crate::experiment::build_device(&exp);
        let z = d.info().zoned.clone().unwrap();
        assert_eq!(
            z.zone_size_lbas,
            4 * 16384,
            "four emulated zones per static zone"
        );
        let bare = on("[layer]\nkind = \"static\"\n").unwrap_err();
        assert!(bare.starts_with("layer.over"), "{bare}");
        let wrong = stacked.replace("zone_size = \"64MiB\"", "zone_size = \"3MiB\"");
        let wrong = on(&wrong).unwrap_err();
        assert!(wrong.starts_with("layer.over.zone_size"), "{wrong}");
        let ezns = on("[layer]\nkind = \"ezns\"\n").unwrap_err();
        assert!(ezns.starts_with("layer.over"), "{ezns}");
        let wide = stacked.replace(
            "zone_size = \"64MiB\"",
            "zone_size = \"64MiB\"\nmax_active = 2",
        );
        let wide = on(&wide).unwrap_err();
        assert!(wide.starts_with("layer.stripe_width"), "{wide}");
    }

    /// eZNS stacks on emulated zones too: v-zones of four of them, written and read back
    /// through the run's device.
    #[test]
    fn ezns_over_a_block_ssd_builds_v_zones_on_emulated_zones() {
        let text = "preset = \"zn540-conv-op7\"\n[data]\nretention = true\n[layer]\nkind = \"ezns\"\n\
                    namespaces = 1\nzones_per_vzone = 4\nmax_active_vzones = 2\nessentials = 8\n\
                    spares = 0\n[layer.over]\nkind = \"emulated\"\nzone_size = \"64MiB\"\nmax_active = 8\n";
        let exp = crate::testing::fixtures::validated(text, &[]).unwrap();
        let mut d = crate::experiment::build_device(&exp);
        let z = d.info().zoned.clone().unwrap();
        assert_eq!(z.max_active_zones, Some(2));
        let zl = z.zone_size_lbas;
        assert!(
            z.zone_capacity_lbas > 3 * 16384,
            "four emulated zones less headers"
        );
        let data: Vec<u8> = (0..64 * 4096).map(|i| (i / 4096) as u8 + 1).collect();
        let mut now = Instant::ZERO;
        let write = Command::write(zl, 64).with_data(Data::Out(&data));
        now = now.max(d.submit(now, write).unwrap().done.unwrap_or(now));
        let mut wake = Some(now);
        let mut done = Vec::new();
        crate::device::catch_up(
            &mut *d,
            &mut wake,
            now + crate::time::Duration::from_secs(1),
            &mut done,
        );
        let mut buf = vec![0u8; 64 * 4096];
        let read = Command::read(zl, 64).with_data(Data::In(&mut buf));
        d.submit(now + crate::time::Duration::from_secs(1), read)
            .unwrap();
        assert!(buf == data, "v-zone 1 reads back what was written");
        let bad = crate::testing::fixtures::validated(
            &text.replace(
                "[layer.over]\nkind = \"emulated\"\nzone_size = \"64MiB\"\nmax_active = 8\n",
                "",
            ),
            &[],
        )
        .unwrap_err();
        assert!(bad.to_string().starts_with("layer.over"), "{bad}");
    }
}
