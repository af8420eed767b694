//! The `[layer]` table: a host-side layer between the workload and the device: static logical
//! zones striped over zones (`kind = "static"`), eZNS (`kind = "ezns"`, [`ezns`]), an array of
//! drives (`kind = "array"`) or zones emulated over a conventional device (`kind = "emulated"`),
//! validated into the [`LayerSpec`] the host module builds layers from. Static zones and eZNS
//! stack over the device or over the layer in `[layer.over]`, itself over another. Every option
//! the eZNS paper leaves open has a default stated in [`ezns`].

mod ezns;

use serde::{Deserialize, Serialize};

pub use self::ezns::{
    EwmaSampleConfig, EznsConfig, MAX_BUCKET_BYTES, MAX_COUNT, MAX_CWND_FACTOR, MAX_TIME,
    MAX_WEIGHT,
};
use super::ConfigError;
use crate::device::DeviceInfo;
use crate::host::LayerSpec;
use crate::host::array::ArraySpec;
use crate::host::emulated::EmulatedSpec;
use crate::host::static_zones::StaticSpec;
use crate::units::Bytes;
use crate::zns::ZnsSpec;

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum LayerConfig {
    /// Static logical zones: a fixed list of physical zones, fixed stripe width and size
    /// (eZNS's baseline: 16 physical zones, width 4, 16 KiB stripes).
    Static {
        #[serde(default = "sixteen")]
        zones_per_logical: u32,
        #[serde(default = "four")]
        stripe_width: u32,
        #[serde(default = "kib16")]
        stripe_size: Bytes,
        /// Explicit physical zones of each logical zone (default: logical zone k is physical
        /// zones k*N .. (k+1)*N).
        #[serde(default)]
        placement: Option<Vec<Vec<u32>>>,
        /// Active logical zones at most; default the device's active limit / stripe_width.
        #[serde(default)]
        max_active: u32,
        /// The layer the static zones stripe over (`[layer.over]`: an array, or static zones);
        /// default the device.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        over: Option<Box<LayerConfig>>,
    },
    /// eZNS (OSDI'23): elastic v-zones, zone ballooning, the hierarchical I/O scheduler.
    Ezns(Box<EznsConfig>),
    /// Several drives of the `[device]` under one host, RAID-0 of zones: logical zone k is
    /// zone k of every drive, `stripe_size` bytes on one before the next.
    Array {
        drives: u32,
        #[serde(default = "kib64")]
        stripe_size: Bytes,
        /// RAID-5 of zones: one stripe of each row holds the parity of the others (drives >= 3).
        #[serde(default)]
        parity: bool,
    },
    /// Zones emulated over a conventional `[device]`: zone k is LBAs k*Z .. (k+1)*Z, written
    /// by the zone rules, trimmed at reset.
    Emulated {
        zone_size: Bytes,
        /// Open and active zones at most (0: no limit).
        #[serde(default)]
        max_active: u32,
    },
}

/// Drives in an array at most (chosen: a large server's NVMe bays).
pub const MAX_DRIVES: u32 = 64;

fn four() -> u32 {
    4
}
fn sixteen() -> u32 {
    16
}
fn kib16() -> Bytes {
    Bytes(16 << 10)
}
fn kib64() -> Bytes {
    Bytes(64 << 10)
}

fn err(name: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::field(format!("layer.{name}"), message)
}

impl LayerConfig {
    pub fn validate(&self, device: &ZnsSpec) -> Result<LayerSpec, ConfigError> {
        let dies = device.nand.geometry.dies();
        match self {
            LayerConfig::Static { over, .. } => {
                let under = Self::under(over, |o| o.validate(device))?;
                let info = under.as_ref().map_or(device.info(), |u| u.info(device));
                Ok(LayerSpec::Static(self.static_spec(&info)?, under))
            }
            LayerConfig::Ezns(e) => {
                let under = Self::under(&e.over, |o| o.validate(device))?;
                let info = under.as_ref().map_or(device.info(), |u| u.info(device));
                let dies = under.as_ref().map_or(dies, |u| u.dies(dies));
                Ok(LayerSpec::Elastic(e.validate(&info, dies)?, under))
            }
            LayerConfig::Array {
                drives,
                stripe_size,
                parity,
            } => validate_array(device, *drives, stripe_size.0, *parity),
            LayerConfig::Emulated { .. } => Err(err(
                "kind",
                "\"emulated\" zones are for a conventional [device]; a ZNS device has zones of its own",
            )),
        }
    }

    /// The layer over a conventional device of `dies` NAND dies: emulated zones, or static
    /// zones or eZNS over them.
    pub fn validate_over_block(
        &self,
        device: &DeviceInfo,
        dies: u32,
    ) -> Result<LayerSpec, ConfigError> {
        let zoned_over = |over: &Option<Box<LayerConfig>>, what: &str| match over {
            Some(_) => Self::under(over, |o| o.validate_over_block(device, dies)),
            None => Err(err(
                "over",
                format!(
                    "{what} over a conventional device: put them on emulated zones \
                     ([layer.over] kind = \"emulated\")"
                ),
            )),
        };
        match self {
            LayerConfig::Static { over, .. } => {
                let under = zoned_over(over, "static zones stripe over zones")?;
                let info = under
                    .as_ref()
                    .map_or(device.clone(), |u| u.info_over_block(device));
                Ok(LayerSpec::Static(self.static_spec(&info)?, under))
            }
            LayerConfig::Ezns(e) => {
                let under = zoned_over(&e.over, "eZNS builds v-zones from zones")?;
                let info = under
                    .as_ref()
                    .map_or(device.clone(), |u| u.info_over_block(device));
                Ok(LayerSpec::Elastic(e.validate(&info, dies)?, under))
            }
            LayerConfig::Emulated {
                zone_size,
                max_active,
            } => validate_emulated(device, zone_size.0, *max_active),
            LayerConfig::Array { .. } => Err(err(
                "kind",
                "an array is of ZNS drives (\"emulated\" presents zones over a conventional \
                 device, and \"static\" or \"ezns\" can sit on those)",
            )),
        }
    }

    /// The layer `over` names, validated by `validate` (errors named `layer.over.X`). eZNS
    /// completes commands it queues later, so no layer stacks on it.
    fn under(
        over: &Option<Box<LayerConfig>>,
        validate: impl FnOnce(&LayerConfig) -> Result<LayerSpec, ConfigError>,
    ) -> Result<Option<Box<LayerSpec>>, ConfigError> {
        match over.as_deref() {
            None => Ok(None),
            Some(LayerConfig::Ezns(_)) => Err(err(
                "over.kind",
                "eZNS schedules commands and completes them later; it cannot sit under another \
                 layer (\"array\", \"static\" or \"emulated\" can)",
            )),
            Some(o) => Ok(Some(Box::new(validate(o).map_err(under_over)?))),
        }
    }

    /// Static zones' own fields checked against `info`, what the device or layer under them
    /// presents.
    fn static_spec(&self, info: &DeviceInfo) -> Result<StaticSpec, ConfigError> {
        let LayerConfig::Static {
            zones_per_logical,
            stripe_width,
            stripe_size,
            placement,
            max_active,
            ..
        } = self
        else {
            unreachable!("only static zones have a static spec");
        };
        validate_static(
            info,
            *zones_per_logical,
            *stripe_width,
            stripe_size.0,
            placement,
            *max_active,
        )
    }
}

fn validate_emulated(
    device: &DeviceInfo,
    zone: u64,
    max_active: u32,
) -> Result<LayerSpec, ConfigError> {
    let lba = device.lba_size_bytes;
    let lbas = zone / lba;
    if zone == 0
        || !zone.is_multiple_of(lba)
        || !lbas.is_power_of_two()
        || lbas > device.namespace_lbas
    {
        return Err(err(
            "zone_size",
            format!(
                "{zone} must be a power-of-two number of {lba}-byte LBAs, at most the device's {} bytes",
                device.namespace_lbas * lba
            ),
        ));
    }
    let zones = device.namespace_lbas / lbas;
    if max_active as u64 > zones {
        return Err(err(
            "max_active",
            format!("{max_active} is above the {zones} zones (0: no limit)"),
        ));
    }
    Ok(LayerSpec::Emulated(EmulatedSpec {
        zone_lbas: lbas,
        max_active,
    }))
}

fn validate_array(
    device: &ZnsSpec,
    drives: u32,
    stripe: u64,
    parity: bool,
) -> Result<LayerSpec, ConfigError> {
    if !(1..=MAX_DRIVES).contains(&drives) {
        return Err(err(
            "drives",
            format!("{drives} must be between 1 and {MAX_DRIVES}"),
        ));
    }
    if parity && drives < 3 {
        return Err(err(
            "parity",
            format!("needs at least 3 drives (two data and one parity); the array has {drives}"),
        ));
    }
    let lba = device.zones.lba_size_bytes;
    if stripe == 0 || !stripe.is_multiple_of(lba) || stripe > device.zones.zone_capacity_bytes {
        return Err(err(
            "stripe_size",
            format!(
                "{stripe} must be a positive multiple of the LBA size {lba}, at most the zone capacity"
            ),
        ));
    }
    let spec = ArraySpec {
        drives,
        stripe_lbas: stripe / lba,
        parity,
    };
    let zone_lbas = spec.info(&device.info()).zoned().map(|z| z.zone_size_lbas);
    if zone_lbas.is_none_or(|z| z.checked_mul(device.zones.zone_count as u64).is_none()) {
        return Err(err(
            "drives",
            format!("{drives} drives make the namespace too large"),
        ));
    }
    Ok(LayerSpec::Array(spec))
}

/// An error of the layer under (`layer.X`) named as `layer.over.X`.
fn under_over(e: ConfigError) -> ConfigError {
    match e {
        ConfigError::Field { path, message } => ConfigError::Field {
            path: path.replacen("layer.", "layer.over.", 1),
            message,
        },
        e => e,
    }
}

/// Static zones over `device` (the drive, or the layer under them).
fn validate_static(
    device: &DeviceInfo,
    per: u32,
    width: u32,
    stripe: u64,
    placement: &Option<Vec<Vec<u32>>>,
    max_active: u32,
) -> Result<StaticSpec, ConfigError> {
    let lba = device.lba_size_bytes;
    let z = device.zoned().expect("a zoned device or layer");
    let zones = z.zone_count;
    if per == 0 || per > zones {
        return Err(err(
            "zones_per_logical",
            format!("{per} must be between 1 and the device's {zones} zones"),
        ));
    }
    if width == 0 || !per.is_multiple_of(width) {
        return Err(err(
            "stripe_width",
            format!("{width} must be at least 1 and divide zones_per_logical {per}"),
        ));
    }
    // A logical zone keeps its stripe group's zones open and active together.
    if let Some(limit) = z.open_limit()
        && width > limit
    {
        return Err(err(
            "stripe_width",
            format!(
                "{width} zones written together exceed the {limit} the device (or the layer under) keeps open and active"
            ),
        ));
    }
    if stripe == 0 || !stripe.is_multiple_of(lba) || stripe > z.zone_capacity_lbas * lba {
        return Err(err(
            "stripe_size",
            format!(
                "{stripe} must be a positive multiple of the LBA size {lba}, at most the zone capacity"
            ),
        ));
    }
    let logical = placement.as_ref().map_or(zones / per, |p| p.len() as u32);
    if max_active > logical {
        return Err(err(
            "max_active",
            format!("{max_active} is above the {logical} logical zones (0: the default)"),
        ));
    }
    if let Some(p) = placement {
        check_placement(p, per, zones)?;
    }
    Ok(StaticSpec {
        zones_per_logical: per,
        width,
        stripe_lbas: stripe / lba,
        placement: placement.clone(),
        max_active,
    })
}

/// An explicit placement: each logical zone lists `per` physical zones of the device's
/// `zones`, and no physical zone is in two.
fn check_placement(p: &[Vec<u32>], per: u32, zones: u32) -> Result<(), ConfigError> {
    if p.is_empty() {
        return Err(err("placement", "lists no logical zone"));
    }
    let mut used = vec![false; zones as usize];
    for (k, list) in p.iter().enumerate() {
        if list.len() != per as usize {
            return Err(err(
                &format!("placement[{k}]"),
                format!(
                    "has {} physical zones; zones_per_logical is {per}",
                    list.len()
                ),
            ));
        }
        for &z in list {
            if z >= zones {
                return Err(err(
                    &format!("placement[{k}]"),
                    format!("zone {z} does not exist; the device has {zones} zones"),
                ));
            }
            if std::mem::replace(&mut used[z as usize], true) {
                return Err(err(
                    &format!("placement[{k}]"),
                    format!("zone {z} belongs to two logical zones"),
                ));
            }
        }
    }
    Ok(())
}
