//! What one seed draws: a device (tiny to small), a firmware policy with its parameters, a front
//! end and a workload. Everything is written as an experiment file, so a case is text a person
//! can read, edit and run with `zonelab run`, and the configuration checks (`zonelab check`)
//! see every draw too.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::rng::Rng;

/// The front end a case drives the device through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Front {
    /// The device seam, command by command (what every front end calls).
    Direct,
    /// `zonelab zone`/`zonelab io`'s device manager on a state file, a new process lifetime
    /// (load, commands, save) every `per_life` commands.
    Manager { per_life: u32 },
    /// The fio engine's device (`zonelab_ffi::Engine`), in this process.
    Fio,
    /// The command stream written as a ZoneLab trace and replayed by `zonelab run`.
    Replay,
    /// A whole experiment: fio-like jobs or host layers (F2FS-like, ZenFS-like, KV store, eZNS)
    /// run by the kernel.
    Run,
}

/// The device part of an experiment file: `[device]`, `[firmware]`, `[data]`.
pub struct DeviceDraw {
    pub toml: String,
    pub zone_count: u64,
    pub zone_bytes: u64,
    pub cap_bytes: u64,
    pub lba: u64,
    pub max_open: u64,
    pub max_active: u64,
}

/// The kind of device a workload needs: the file layers need zones of a few segments, eZNS a
/// power-of-two number of dies and an active limit to split; everything else takes any device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    Tiny,
    Files,
    Ezns,
}

/// Tiny to small: 1-8 dies, 1-64 zones, pages of 4-32 KiB, blocks of 2-16 pages, capacity
/// below the zone size in LBAs (so not always whole program units), open and active limits,
/// a write buffer, a shared write cache or neither.
pub fn device(rng: &mut Rng, profile: Profile) -> DeviceDraw {
    let g = geometry(rng, profile);
    let l = zone_limits(rng, profile, &g);
    let mut s = device_toml(rng, &g, &l);
    s.push_str(&firmware(rng, g.zone_count));
    s.push_str("[data]\nretention = true\n");
    DeviceDraw {
        toml: s,
        zone_count: g.zone_count,
        zone_bytes: g.zone_bytes,
        cap_bytes: l.cap_lbas * g.lba,
        lba: g.lba,
        max_open: l.max_open,
        max_active: l.max_active,
    }
}

/// A drawn NAND geometry and the zones over it.
#[derive(Clone, Copy)]
struct Geometry {
    lba: u64,
    channels: u64,
    per_channel: u64,
    page: u64,
    pages_per_block: u64,
    pages_per_program: u64,
    blocks_per_die: u64,
    dies_per_zone: u64,
    zone_bytes: u64,
    zone_count: u64,
}

/// A zone's drawn capacity (in LBAs) and the device's open and active limits.
#[derive(Clone, Copy)]
struct ZoneLimits {
    cap_lbas: u64,
    max_open: u64,
    max_active: u64,
}

/// eZNS gets 2 or 4 channels and one die per zone, the file layers blocks of 64-256 pages.
fn geometry(rng: &mut Rng, profile: Profile) -> Geometry {
    let lba: u64 = if profile == Profile::Tiny && rng.chance(15) {
        512
    } else {
        4096
    };
    let channels = match profile {
        Profile::Ezns => rng.pick(&[2, 4]),
        _ => rng.range(1, 4),
    };
    let per_channel = rng.pick(&[1, 2]);
    let dies = channels * per_channel;
    let page = rng.pick(&[4096, 8192, 16384, 32768]).max(lba);
    let pages_per_block = match profile {
        Profile::Files => rng.pick(&[64, 128, 256]),
        _ => rng.pick(&[2, 4, 8, 16]),
    };
    let pages_per_program = if rng.chance(25) { 2 } else { 1 };
    let divisors: Vec<u64> = (1..=dies).filter(|&d| dies.is_multiple_of(d)).collect();
    let dies_per_zone = match profile {
        Profile::Ezns => 1,
        _ => rng.pick(&divisors),
    };
    let blocks_per_zone_per_die = rng.range(1, 3);
    let block = page * pages_per_block;
    let zone_bytes = block * dies_per_zone * blocks_per_zone_per_die;
    let zone_count: u64 = match profile {
        Profile::Tiny => rng.pick(&[1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]),
        Profile::Files => rng.pick(&[12, 16, 24, 32, 48, 64]),
        Profile::Ezns => rng.pick(&[32, 48, 64]),
    };
    let groups = dies / dies_per_zone;
    let blocks_per_die =
        (zone_count.div_ceil(groups) * blocks_per_zone_per_die).max(1) + rng.range(0, 2);
    Geometry {
        lba,
        channels,
        per_channel,
        page,
        pages_per_block,
        pages_per_program,
        blocks_per_die,
        dies_per_zone,
        zone_bytes,
        zone_count,
    }
}

/// The open limit is at most the active one; without an active limit only a tiny device has one.
fn zone_limits(rng: &mut Rng, profile: Profile, g: &Geometry) -> ZoneLimits {
    let zone_count = g.zone_count;
    let zone_lbas = g.zone_bytes / g.lba;
    let cap_lbas = match rng.range(0, 4) {
        0 => zone_lbas,
        1 => (zone_lbas * rng.range(1, 9) / 10).max(1),
        2 => rng.range(1, zone_lbas),
        _ => zone_lbas.saturating_sub(rng.range(0, 3)).max(1),
    };
    let max_active = match profile {
        Profile::Ezns => rng.range(4, 16),
        Profile::Files if rng.chance(50) => rng.range(3, 8),
        _ if rng.chance(30) => 0,
        _ => rng.range(1, zone_count),
    };
    let max_open = match (max_active, rng.chance(30)) {
        (_, true) => 0,
        (0, false) if profile != Profile::Tiny => 0,
        (0, false) => rng.range(1, zone_count),
        (a, false) => rng.range(1, a),
    };
    ZoneLimits {
        cap_lbas,
        max_open,
        max_active,
    }
}

/// `[device.geometry]`, `[device.zones]` and `[device.timing]`, drawing the append limit, the
/// timings and the write buffer or cache on the way.
fn device_toml(rng: &mut Rng, g: &Geometry, l: &ZoneLimits) -> String {
    let Geometry {
        lba,
        channels,
        per_channel,
        page,
        pages_per_block,
        pages_per_program,
        blocks_per_die,
        dies_per_zone,
        zone_bytes,
        zone_count,
    } = *g;
    let ZoneLimits {
        cap_lbas,
        max_open,
        max_active,
    } = *l;
    let cap_bytes = cap_lbas * lba;
    let unit = page * pages_per_program;
    let cap_units = cap_bytes / unit;
    let mut s = String::from("preset = \"rezns-40g\"\n");
    let _ = writeln!(
        s,
        "[device.geometry]\nchannels = {channels}\ndies_per_channel = {per_channel}\n\
         blocks_per_die = {blocks_per_die}\npages_per_block = {pages_per_block}\n\
         page_size_bytes = {page}\npages_per_program = {pages_per_program}\nlba_size_bytes = {lba}"
    );
    let zasl = if rng.chance(30) {
        rng.range(1, cap_lbas) * lba
    } else {
        0
    };
    let _ = writeln!(
        s,
        "[device.zones]\ndies_per_zone = {dies_per_zone}\nzone_size_bytes = {zone_bytes}\n\
         zone_capacity_bytes = {cap_bytes}\nzone_count = {zone_count}\n\
         max_open_zones = {max_open}\nmax_active_zones = {max_active}\n\
         zone_append_size_limit_bytes = {zasl}"
    );
    let _ = writeln!(
        s,
        "[device.timing]\nread_latency_ns = {}\nprogram_latency_ns = {}\nerase_latency_ns = {}",
        rng.pick(&[20_000, 50_000]),
        rng.pick(&[200_000, 500_000]),
        rng.pick(&[1_000_000, 3_000_000, 10_000_000]),
    );
    match rng.range(0, 3) {
        0 if cap_units > 0 => {
            let _ = writeln!(
                s,
                "write_buffer_units_per_zone = {}",
                rng.range(1, cap_units.min(4))
            );
        }
        1 if max_active > 0 => {
            let _ = writeln!(s, "write_buffer_units_per_zone = 0");
            let _ = writeln!(s, "write_cache_units = {}", max_active + rng.range(0, 4));
        }
        _ => {
            let _ = writeln!(s, "write_buffer_units_per_zone = 0");
        }
    }
    if rng.chance(15) {
        s.push_str("read_priority = true\n[device.timing.erase_suspend]\nsuspend_ns = 20000\nresume_ns = 30000\n");
    }
    s
}

/// Several of the drawn drive under one host: `[layer] kind = "array"`, RAID-0 or RAID-5 of
/// zones; the draw becomes the array's logical zones (the commands and checks use those).
pub fn array(rng: &mut Rng, d: &mut DeviceDraw) {
    let parity = rng.chance(50);
    let drives = if parity {
        rng.range(3, 5)
    } else {
        rng.range(1, 4)
    };
    let cap_lbas = d.cap_bytes / d.lba;
    let stripe_lbas = rng.pick(&[1u64, 2, 4, 8]).min(cap_lbas);
    let cap = cap_lbas / stripe_lbas * stripe_lbas * (drives - parity as u64);
    let _ = writeln!(
        d.toml,
        "[layer]\nkind = \"array\"\ndrives = {drives}\nstripe_size = {}\nparity = {parity}",
        stripe_lbas * d.lba
    );
    d.cap_bytes = cap * d.lba;
    d.zone_bytes = cap.next_power_of_two() * d.lba;
    // A logical zone opens one zone per drive: the active limit is the open limit too.
    d.max_open = d.max_active;
}

/// A tiny conventional SSD (2-4 dies, 4-16 MiB of raw NAND, 7-28% over-provisioned, a page
/// cache of 16-64 KiB) under emulated zones of 4-32 LBAs (`[layer] kind = "emulated"`), with
/// or without an active limit: the zoned front ends then drive the FTL through the zone rules.
/// `None` if the config refuses the drawn shape (the caller keeps its ZNS draw).
pub fn emulated(rng: &mut Rng) -> Option<DeviceDraw> {
    let lba: u64 = if rng.chance(15) { 512 } else { 4096 };
    let page = rng.pick(&[4096u64, 16384]);
    let zone_lbas = rng.pick(&[4u64, 8, 16, 32]) * 4096 / lba;
    let mut toml = format!(
        "[device]\nkind = \"conventional\"\nname = \"swarm-conv\"\nsource = \"swarm draw\"\n\
         [device.geometry]\nchannels = {}\ndies_per_channel = {}\nblocks_per_die = {}\n\
         pages_per_block = {}\npage_size_bytes = {page}\nlba_size_bytes = {lba}\n\
         [device.timing]\nread_latency_ns = {}\nprogram_latency_ns = {}\nerase_latency_ns = {}\n\
         channel_rate_mb_s = 800\nhost_rate_mb_s = 3200\n\
         [device.energy]\nread_nj_per_page = 1.0\nprogram_nj_per_page = 10.0\nerase_nj_per_block = 100.0\n\
         [device.ftl]\nover_provisioning_percent = {}\nwrite_buffer_bytes = {}\n\
         [data]\nretention = true\n\
         [layer]\nkind = \"emulated\"\nzone_size = {}\nmax_active = {}\n",
        rng.range(1, 2),
        rng.range(1, 2),
        rng.range(48, 96),
        rng.pick(&[4, 8]),
        rng.pick(&[20_000, 50_000]),
        rng.pick(&[200_000, 500_000]),
        rng.pick(&[1_000_000, 3_000_000]),
        rng.pick(&[7, 15, 28]),
        rng.pick(&[16384, 65536]),
        zone_lbas * lba,
        rng.pick(&[0, 2, 3, 4]),
    );
    if rng.chance(30) {
        // Static zones over them (their `[layer]` becomes `[layer.over]`).
        let at = toml.find("[layer]").expect("just written");
        let width = rng.pick(&[1u64, 2]);
        let per = width * rng.pick(&[1u64, 2]);
        toml.insert_str(
            at,
            &format!(
                "[layer]\nkind = \"static\"\nzones_per_logical = {per}\nstripe_width = {width}\n\
                 stripe_size = {}\n",
                lba * rng.pick(&[1u64, 2, 4])
            ),
        );
        let over = toml.rfind("[layer]").expect("the emulated layer");
        toml.replace_range(over..over + "[layer]".len(), "[layer.over]");
    }
    let exp = zonelab::config::ExperimentConfig::parse(&toml, &[])
        .and_then(|c| c.validate_device("swarm"))
        .ok()?;
    let info = exp.info();
    let z = info.zoned().expect("emulated zones are zoned");
    Some(DeviceDraw {
        toml,
        zone_count: z.zone_count as u64,
        zone_bytes: z.zone_size_lbas * lba,
        cap_bytes: z.zone_capacity_lbas * lba,
        lba,
        max_open: z.max_open_zones.map_or(0, u64::from),
        max_active: z.max_active_zones.map_or(0, u64::from),
    })
}

/// Static zones over the array [`array`] drew (`[layer.over]`, issue 38's stacking): the draw
/// becomes the static layer's logical zones, as the validated experiment presents them. A
/// drawn shape the config refuses leaves the array alone.
pub fn static_over(rng: &mut Rng, d: &mut DeviceDraw) {
    const ARRAY: &str = "[layer]\nkind = \"array\"";
    let Some(at) = d.toml.find(ARRAY) else {
        return;
    };
    let width = rng.pick(&[1u64, 2]);
    let per = width * rng.pick(&[1u64, 2]);
    let stripe = d.lba * rng.pick(&[1u64, 2, 4]);
    let mut toml = d.toml.clone();
    toml.replace_range(
        at..at + "[layer]".len(),
        &format!(
            "[layer]\nkind = \"static\"\nzones_per_logical = {per}\nstripe_width = {width}\n\
             stripe_size = {stripe}\n[layer.over]"
        ),
    );
    let Ok(exp) = zonelab::config::ExperimentConfig::parse(&toml, &[])
        .and_then(|c| c.validate_device("swarm"))
    else {
        return;
    };
    let info = exp.info();
    let z = info.zoned().expect("static zones are zoned");
    d.toml = toml;
    d.zone_count = z.zone_count as u64;
    d.zone_bytes = z.zone_size_lbas * d.lba;
    d.cap_bytes = z.zone_capacity_lbas * d.lba;
    d.max_open = z.max_open_zones.map_or(0, u64::from);
    d.max_active = z.max_active_zones.map_or(0, u64::from);
}

/// A firmware policy and its parameters (all in their documented ranges).
fn firmware(rng: &mut Rng, zones: u64) -> String {
    let t_free = rng.range(0, zones.saturating_sub(1));
    let flag = |rng: &mut Rng| rng.chance(50);
    let s2 = |rng: &mut Rng| rng.pick(&["until_above_t_free", "one_per_allocation"]);
    match rng.range(0, 5) {
        0 => format!(
            "[firmware]\npolicy = \"synchronous\"\nerase_all_blocks = {}\n",
            flag(rng)
        ),
        1 => format!(
            "[firmware]\npolicy = \"mapping\"\nt_free = {t_free}\nwp_optimisation = {}\n\
             s2_erases = \"{}\"\n",
            flag(rng),
            s2(rng)
        ),
        2 => format!(
            "[firmware]\npolicy = \"preemptive\"\nt_free = {t_free}\nt_invalid = {}\n\
             wp_optimisation = {}\nidle = \"{}\"\ns2_erases = \"{}\"\n",
            rng.range(1, zones),
            flag(rng),
            rng.pick(&["device", "zone_dies"]),
            s2(rng)
        ),
        3 => format!(
            "[firmware]\npolicy = \"renewable\"\nthreshold = {}\nregc_fraction = {}\n\
             zombie_scan_period = \"{}\"\nzombie_idle = \"{}\"\nerase_all_blocks = {}\n",
            rng.pick(&[0.0, 0.1, 0.25, 0.5, 0.9]),
            rng.pick(&[0.0, 0.25, 0.5, 1.0]),
            rng.pick(&["0s", "1ms", "5ms", "1h"]),
            rng.pick(&["0s", "1ms", "3ms", "1h"]),
            flag(rng)
        ),
        _ if rng.chance(50) => "[firmware]\npolicy = \"round_robin\"\n".to_string(),
        _ => pair(rng, zones, t_free),
    }
}

/// Any placement but the static one with any erase scheduler, and the settings they use.
fn pair(rng: &mut Rng, zones: u64, t_free: u64) -> String {
    let placement = rng.pick(&["queue", "least_worn", "round_robin", "renewable"]);
    let erase = rng.pick(&["at_reset", "background", "on_demand", "preemptive"]);
    let mut t = format!(
        "[firmware]\npolicy = \"pair\"\nplacement = \"{placement}\"\nerase = \"{erase}\"\n\
         erase_all_blocks = {}\n",
        rng.chance(50)
    );
    if placement == "renewable" {
        t += &format!(
            "threshold = {}\nzombie_scan_period = \"{}\"\nzombie_idle = \"{}\"\n",
            rng.pick(&[0.0, 0.25, 0.9]),
            rng.pick(&["0s", "1ms", "1h"]),
            rng.pick(&["0s", "1ms", "1h"])
        );
    }
    if erase == "on_demand" || erase == "preemptive" {
        t += &format!(
            "t_free = {t_free}\ninvalid_order = \"{}\"\n",
            rng.pick(&["fifo", "least_worn"])
        );
    }
    if erase == "preemptive" {
        t += &format!("t_invalid = {}\n", rng.range(1, zones));
    }
    t
}
