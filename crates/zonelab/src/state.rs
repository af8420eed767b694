//! Persistent devices: a device's whole state as bytes, so that a device outlives the process
//! that drove it (the fio engine's `zonelab_state`, `zonelab run --state`, `zonelab zone` and
//! `zonelab io`). Bytes in, bytes out: front ends read and write the files.
//!
//! A state file is a header (magic, format version, CRC-32 of the body, body length) and a
//! body in postcard's binary serde format: the device's identity (the TOML of the `[device]`,
//! `[firmware]` and `[data]` tables it was built from), the front end's clock, and the device
//! model's state: a ZNS drive's (zones, write pointers, firmware tables and queues, counters,
//! NAND timelines and wear, retained data without its zero pages) or a conventional SSD's (its
//! map, superblocks, streams, collection, counters, NAND timelines and wear, retained data). Decoding checks the header and the checksum;
//! restoring checks that the state fits the device the identity describes. A damaged file, one of
//! another version, or one of another device is refused with an error saying which; nothing is
//! half-loaded.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::config::{DataConfig, DeviceConfig, ExperimentConfig, FirmwareConfig};
use crate::device::DeviceModel;
use crate::experiment::{DeviceSpec, Experiment};
use crate::ftl::{Ftl, FtlState};
use crate::time::Instant;
use crate::zns::{Device, ZnsState};

/// The first bytes of every state file.
pub const MAGIC: [u8; 8] = *b"ZLSTATE\n";
/// Bumped whenever the body's layout changes; older files are refused, not misread.
pub const FORMAT_VERSION: u32 = 5;
/// Magic, version, CRC-32, body length.
const HEADER_BYTES: usize = 8 + 4 + 4 + 8;

/// Why a state file could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    #[error("not a ZoneLab device state file")]
    NotAStateFile,
    #[error("state file format version {found}; this ZoneLab reads version {expected}")]
    Version { found: u32, expected: u32 },
    #[error("the state file is truncated: {have} bytes of {need}")]
    Truncated { have: u64, need: u64 },
    #[error("the state file is corrupt (its checksum does not match)")]
    Checksum,
    #[error(
        "the state file's header is corrupt: its length field says {declared} bytes, but the \
         {holds} bytes after it are the whole device state (their checksum matches)"
    )]
    HeaderLength { declared: u64, holds: u64 },
    #[error("the state file cannot be decoded: {0}")]
    Decode(String),
    #[error("the state file holds another device: {0}")]
    Mismatch(String),
    #[error("the state file does not fit its device: {0}")]
    Invalid(String),
    #[error("{0}: state files hold one drive (a ZNS or a conventional SSD), without a host layer")]
    Unsupported(String),
    #[error("cannot write the state file: {0}")]
    Write(String),
    #[error(
        "faults.zones, faults.dies and faults.commands happen during one run; a device kept in a state file cannot have them (faults.read_only_zones and faults.offline_zones can)"
    )]
    RunTimeFaults,
}

/// Whether the device `exp` builds can be kept in a state file: the file keeps one drive, not a
/// host layer over it nor faults still to come, so either is refused (before any work is done
/// on the device, by every front end that keeps state files).
pub fn check_storable(exp: &Experiment) -> Result<(), StateError> {
    if exp.layer.is_some() {
        Err(StateError::Unsupported(exp.info().name))
    } else if exp.faults.is_empty() {
        Ok(())
    } else {
        Err(StateError::RunTimeFaults)
    }
}

/// A device model's state.
#[derive(Serialize, Deserialize)]
pub enum DeviceState<'a> {
    Zns(#[serde(borrow)] ZnsState<'a>),
    Conventional(#[serde(borrow)] FtlState<'a>),
}

#[derive(Serialize, Deserialize)]
struct Body<'a> {
    #[serde(borrow)]
    identity: Cow<'a, str>,
    now: Instant,
    #[serde(borrow)]
    device: DeviceState<'a>,
}

/// A decoded state file (borrowing the file's bytes).
pub struct Saved<'a> {
    /// The TOML of the configuration the device was built from ([`identity`]).
    pub identity: String,
    /// The front end's clock when the device was saved.
    pub now: Instant,
    pub device: DeviceState<'a>,
}

/// What identifies a device in a state file: the tables that build it. Prefill and faults are
/// left out (they set a device up once, when it is created), as are the preset's description
/// and sources.
#[derive(Serialize)]
struct Identity<'a> {
    device: DeviceConfig,
    firmware: &'a FirmwareConfig,
    data: &'a DataConfig,
}

/// The identity of the device `cfg` describes, as TOML (an experiment file holding only the
/// device: the device manager builds a device from it).
pub fn identity(cfg: &ExperimentConfig) -> String {
    let mut device = cfg.device.clone();
    device.description.clear();
    device.source = "a ZoneLab device state file".into();
    toml::to_string(&Identity {
        device,
        firmware: &cfg.firmware,
        data: &cfg.data,
    })
    .expect("a device configuration always serializes")
}

/// The state file of `device`, built from the configuration with identity `identity`, saved
/// when its front end's clock read `now`; an error for a model without state files.
pub fn encode(
    identity: &str,
    now: Instant,
    device: &dyn DeviceModel,
) -> Result<Vec<u8>, StateError> {
    let body = body(identity, now, device)?;
    let checked = checksum(&body);
    // Written into a buffer of its final size: a state file holds the device's data, so a copy
    // more (or a buffer grown by doubling) would cost as much memory again.
    let mut out = Vec::with_capacity(HEADER_BYTES + checked.bytes);
    write_file(&mut out, &body, checked)?;
    Ok(out)
}

/// Writes the bytes [`encode`] would give to `out` as they are made, holding none of the file
/// in memory: a device holding gigabytes of data saves without a second copy of them.
pub fn encode_to(
    out: &mut impl std::io::Write,
    identity: &str,
    now: Instant,
    device: &dyn DeviceModel,
) -> Result<(), StateError> {
    let body = body(identity, now, device)?;
    let checked = checksum(&body);
    write_file(out, &body, checked)
}

/// The body's checksum and length: a first pass over it that keeps nothing, since the header,
/// written first, holds both.
fn checksum(body: &Body<'_>) -> Checksum {
    postcard::serialize_with_flavor(body, Checksum::default())
        .expect("a device state always serializes")
}

/// The header, then the body, streamed to `out`.
fn write_file(
    out: &mut impl std::io::Write,
    body: &Body<'_>,
    checked: Checksum,
) -> Result<(), StateError> {
    let failed = |e: std::io::Error| StateError::Write(e.to_string());
    out.write_all(&header(checked.bytes, checked.crc.finalize()))
        .map_err(failed)?;
    let written = postcard::serialize_with_flavor(
        body,
        Stream {
            out,
            bytes: 0,
            failed: None,
        },
    )
    .expect("a device state always serializes (a Stream keeps write errors)");
    if let Some(e) = written.failed {
        return Err(failed(e));
    }
    assert_eq!(
        written.bytes, checked.bytes,
        "both passes serialize the same body"
    );
    Ok(())
}

fn body<'a>(
    identity: &'a str,
    now: Instant,
    device: &'a dyn DeviceModel,
) -> Result<Body<'a>, StateError> {
    Ok(Body {
        identity: Cow::Borrowed(identity),
        now,
        device: saved(device)?,
    })
}

/// What a state file keeps of `device`: the state of a ZNS drive or a conventional SSD; a host
/// layer (whose configuration the identity does not hold) is refused.
fn saved(device: &dyn DeviceModel) -> Result<DeviceState<'_>, StateError> {
    let any = device.as_any();
    if let Some(zns) = any.downcast_ref::<Device>() {
        return Ok(DeviceState::Zns(zns.save()));
    }
    match any.downcast_ref::<Ftl>() {
        Some(ftl) => Ok(DeviceState::Conventional(ftl.save())),
        None => Err(StateError::Unsupported(device.info().name.clone())),
    }
}

/// The magic, the format version, the body's checksum and its length.
fn header(body_bytes: usize, crc: u32) -> [u8; HEADER_BYTES] {
    let mut h = [0; HEADER_BYTES];
    h[..8].copy_from_slice(&MAGIC);
    h[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&crc.to_le_bytes());
    h[16..24].copy_from_slice(&(body_bytes as u64).to_le_bytes());
    h
}

/// A postcard output that keeps nothing: the checksum and length of what it is given.
#[derive(Default)]
struct Checksum {
    crc: crc32fast::Hasher,
    bytes: usize,
}

impl postcard::ser_flavors::Flavor for Checksum {
    type Output = Checksum;

    fn try_push(&mut self, byte: u8) -> postcard::Result<()> {
        self.try_extend(&[byte])
    }

    fn try_extend(&mut self, bytes: &[u8]) -> postcard::Result<()> {
        self.crc.update(bytes);
        self.bytes += bytes.len();
        Ok(())
    }

    fn finalize(self) -> postcard::Result<Checksum> {
        Ok(self)
    }
}

/// A postcard output that passes what it is given on to a writer, counting it. The first write
/// error is kept and the rest of the body skipped: postcard would replace the error with one
/// of its own.
struct Stream<'w, W> {
    out: &'w mut W,
    bytes: usize,
    failed: Option<std::io::Error>,
}

impl<'w, W: std::io::Write> postcard::ser_flavors::Flavor for Stream<'w, W> {
    type Output = Stream<'w, W>;

    fn try_push(&mut self, byte: u8) -> postcard::Result<()> {
        self.try_extend(&[byte])
    }

    fn try_extend(&mut self, bytes: &[u8]) -> postcard::Result<()> {
        if self.failed.is_none() {
            match self.out.write_all(bytes) {
                Ok(()) => self.bytes += bytes.len(),
                Err(e) => self.failed = Some(e),
            }
        }
        Ok(())
    }

    fn finalize(self) -> postcard::Result<Stream<'w, W>> {
        Ok(self)
    }
}

/// Whether `device` would save as exactly `file` (with the same identity and clock), without
/// building the file: the body is serialized against `file`'s, byte by byte, and stops at the
/// first difference. A check that a load kept everything costs a comparison, not a second file.
pub fn saves_as(
    file: &[u8],
    identity: &str,
    now: Instant,
    device: &dyn DeviceModel,
) -> Result<bool, StateError> {
    let body = body(identity, now, device)?;
    let Some(want) = file.get(HEADER_BYTES..) else {
        return Ok(false);
    };
    // A difference ends the serialization early, as an error of the comparing output.
    let body_same = matches!(
        postcard::serialize_with_flavor(&body, Compare { want }),
        Ok(rest) if rest.is_empty()
    );
    Ok(body_same && file[..HEADER_BYTES] == header(want.len(), crc32fast::hash(want)))
}

/// A postcard output that holds nothing: it compares what it is given with `want`, in order,
/// and fails at the first byte that differs; it ends with what `want` has left.
struct Compare<'a> {
    want: &'a [u8],
}

impl<'a> postcard::ser_flavors::Flavor for Compare<'a> {
    type Output = &'a [u8];

    fn try_push(&mut self, byte: u8) -> postcard::Result<()> {
        self.try_extend(&[byte])
    }

    fn try_extend(&mut self, bytes: &[u8]) -> postcard::Result<()> {
        match self.want.split_at_checked(bytes.len()) {
            Some((head, rest)) if head == bytes => {
                self.want = rest;
                Ok(())
            }
            _ => Err(postcard::Error::SerializeBufferFull),
        }
    }

    fn finalize(self) -> postcard::Result<&'a [u8]> {
        Ok(self.want)
    }
}

/// Reads a state file's header and body (the device itself is checked by [`restore`]).
pub fn decode(bytes: &[u8]) -> Result<Saved<'_>, StateError> {
    if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
        return Err(StateError::NotAStateFile);
    }
    if bytes.len() < HEADER_BYTES {
        return Err(StateError::Truncated {
            have: bytes.len() as u64,
            need: HEADER_BYTES as u64,
        });
    }
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    let version = word(8);
    if version != FORMAT_VERSION {
        return Err(StateError::Version {
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    let crc = word(12);
    let len = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes"));
    let body = &bytes[HEADER_BYTES..];
    if body.len() as u64 != len {
        // A damaged length field is not a short file: the body is intact when its checksum is.
        if crc32fast::hash(body) == crc {
            return Err(StateError::HeaderLength {
                declared: len,
                holds: body.len() as u64,
            });
        }
        return Err(StateError::Truncated {
            have: bytes.len() as u64,
            need: (HEADER_BYTES as u64).saturating_add(len),
        });
    }
    if crc32fast::hash(body) != crc {
        return Err(StateError::Checksum);
    }
    let body: Body<'_> =
        postcard::from_bytes(body).map_err(|e| StateError::Decode(e.to_string()))?;
    Ok(Saved {
        identity: body.identity.into_owned(),
        now: body.now,
        device: body.device,
    })
}

/// Refuses a state whose device is not the one `wanted` (an [`identity`]) describes, naming
/// the first setting that differs.
pub fn check_identity(saved: &str, wanted: &str) -> Result<(), StateError> {
    if saved == wanted {
        return Ok(());
    }
    let settings = |text: &str| {
        let mut table = String::new();
        let mut out = Vec::new();
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
            if line.starts_with('[') {
                table = line.trim_matches(|c| c == '[' || c == ']').to_string();
            } else {
                out.push(format!("{table}: {line}"));
            }
        }
        out
    };
    let (a, b) = (settings(saved), settings(wanted));
    let only_saved = a.iter().find(|l| !b.contains(l));
    let only_wanted = b.iter().find(|l| !a.contains(l));
    Err(StateError::Mismatch(match (only_saved, only_wanted) {
        (Some(s), Some(w)) => format!("`{s}` in the file, `{w}` here"),
        (Some(s), None) => format!("`{s}` in the file only"),
        (None, Some(w)) => format!("`{w}` here only"),
        (None, None) => "the configurations differ".into(),
    }))
}

/// The device `exp` describes, in the state `device` (checked against the device).
pub fn restore(
    exp: &Experiment,
    device: DeviceState<'_>,
) -> Result<Box<dyn DeviceModel>, StateError> {
    match (&exp.device, device) {
        _ if exp.layer.is_some() => Err(StateError::Unsupported(exp.info().name)),
        (DeviceSpec::Zns(spec), DeviceState::Zns(s)) => {
            Device::restore(spec, &exp.firmware, exp.retain_data, exp.sampling(), s)
                .map(|d| Box::new(d) as Box<dyn DeviceModel>)
                .map_err(StateError::Invalid)
        }
        (DeviceSpec::Conventional(spec), DeviceState::Conventional(s)) => {
            Ftl::restore(spec, exp.retain_data, exp.sampling(), s)
                .map(|d| Box::new(d) as Box<dyn DeviceModel>)
                .map_err(StateError::Invalid)
        }
        (spec, _) => Err(StateError::Unsupported(spec.name().to_string())),
    }
}

#[cfg(test)]
mod tests;
