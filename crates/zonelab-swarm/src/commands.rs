//! Command streams: writes (at the write pointer, and sometimes off it), appends, reads, zone
//! management one zone at a time or Select All, and idle gaps long enough for background work,
//! sent through a front end and checked after every step against the reference model of the
//! zone rules ([`zonelab::testing::reference`]): the status, every byte read, every zone's
//! state and write pointer, the device's own invariants, and, on the seam, save -> load ->
//! the same device.

use serde::{Deserialize, Serialize};
use zonelab::device::{Status, ZoneAction};
use zonelab::testing::reference::Model;

use crate::draw::{DeviceDraw, Front};
use crate::rng::Rng;

/// One step of a stream. Zones are indices; a write goes to the write pointer the reference
/// model holds, plus `skew` LBAs (0: legal).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cmd {
    Write {
        zone: u64,
        skew: u64,
        nlb: u64,
    },
    Append {
        zone: u64,
        nlb: u64,
    },
    Read {
        zone: u64,
        offset: u64,
        nlb: u64,
    },
    Manage {
        zone: u64,
        action: Action,
        all: bool,
    },
    Idle {
        ns: u64,
    },
}

/// Zone Send actions (ZoneAction is the core's; this one is for case files).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Action {
    Open,
    Close,
    Finish,
    Reset,
}

impl Action {
    pub fn zone_action(self) -> ZoneAction {
        match self {
            Action::Open => ZoneAction::Open,
            Action::Close => ZoneAction::Close,
            Action::Finish => ZoneAction::Finish,
            Action::Reset => ZoneAction::Reset,
        }
    }
}

/// A stream of `len` steps for the device `d`; the fio engine takes reads, writes and resets
/// only (what fio sends).
pub fn stream(rng: &mut Rng, d: &DeviceDraw, front: Front, len: usize) -> Vec<Cmd> {
    let zones = d.zone_count;
    let cap = d.cap_bytes / d.lba;
    let zone_lbas = d.zone_bytes / d.lba;
    let fio = front == Front::Fio;
    let big = |rng: &mut Rng| {
        if rng.chance(10) {
            rng.range(1, cap)
        } else {
            rng.range(1, (cap / 4).clamp(1, 64))
        }
    };
    (0..len)
        .map(|_| {
            // A zone index past the last now and then (LBA Out of Range).
            let zone = if rng.chance(3) {
                zones
            } else {
                rng.range(0, zones - 1)
            };
            match rng.range(0, 99) {
                0..=39 => Cmd::Write {
                    zone,
                    skew: if rng.chance(5) { rng.range(1, 3) } else { 0 },
                    nlb: big(rng),
                },
                40..=54 if !fio => Cmd::Append {
                    zone,
                    nlb: big(rng),
                },
                55..=74 => Cmd::Read {
                    zone,
                    offset: rng.range(0, zone_lbas - 1),
                    nlb: rng.range(1, 16),
                },
                75..=89 => {
                    let action = if fio {
                        Action::Reset
                    } else {
                        rng.pick(&[Action::Open, Action::Close, Action::Finish, Action::Reset])
                    };
                    Cmd::Manage {
                        zone,
                        action,
                        all: !fio && rng.chance(10),
                    }
                }
                _ => Cmd::Idle {
                    ns: rng.pick(&[10_000, 1_000_000, 5_000_000, 50_000_000]),
                },
            }
        })
        .collect()
}

/// The bytes step `i` writes: a pattern no other step writes.
pub fn payload(seed: u64, i: usize, nlb: u64, lba: u64) -> Vec<u8> {
    let k = (seed as usize)
        .wrapping_mul(31)
        .wrapping_add(i.wrapping_mul(7919));
    // Byte b is (131 b + k) mod 251: one period of 251 bytes, repeated (a division per byte
    // was a tenth of the swarm's time).
    let period: Vec<u8> = (0..251usize)
        .map(|b| (b.wrapping_mul(131).wrapping_add(k) % 251) as u8)
        .collect();
    let len = (nlb * lba) as usize;
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        let take = (len - out.len()).min(period.len());
        out.extend_from_slice(&period[..take]);
    }
    out
}

/// A step as the device sees it: the command's LBA, its data, and what the reference expects.
pub struct Step {
    pub slba: u64,
    pub data: Vec<u8>,
    pub want: Result<Vec<u8>, Status>,
}

/// Applies step `i` to the model and says what the device must answer: the bytes of a read,
/// the LBA of an append (little-endian), nothing for the rest.
pub fn expect(model: &mut Model, seed: u64, i: usize, c: &Cmd) -> Option<Step> {
    let zl = model.zone_lbas;
    let wp = |m: &Model, z: u64| m.zones.get(z as usize).map_or(0, |z| z.wp);
    Some(match *c {
        Cmd::Write { zone, skew, nlb } => {
            let slba = zone * zl + wp(model, zone) + skew;
            let data = payload(seed, i, nlb, model.lba);
            let want = model.write(slba, nlb, &data).map(|()| vec![]);
            Step { slba, data, want }
        }
        Cmd::Append { zone, nlb } => {
            let data = payload(seed, i, nlb, model.lba);
            let want = model
                .append(zone * zl, nlb, &data)
                .map(|lba| lba.to_le_bytes().to_vec());
            Step {
                slba: zone * zl,
                data,
                want,
            }
        }
        Cmd::Read { zone, offset, nlb } => {
            let slba = zone * zl + offset;
            Step {
                slba,
                data: vec![],
                want: model.read(slba, nlb),
            }
        }
        Cmd::Manage { zone, action, all } => Step {
            slba: zone * zl,
            data: vec![],
            want: model
                .manage_at(zone * zl, action.zone_action(), all)
                .map(|()| vec![]),
        },
        Cmd::Idle { .. } => return None,
    })
}
