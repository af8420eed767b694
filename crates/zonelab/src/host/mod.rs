//! Host side. Layers that run as tasks on the simulation kernel: the key-value store ([`kv`]),
//! and next to it the zoned file layer it runs on; each is a handle shared by tasks whose async
//! operations take the calling task's [`Host`](crate::sim::host::Host). Layers that present a
//! device behind the device seam: static logical zones striped over physical zones ([`striped`],
//! the baseline eZNS is measured against) and eZNS's elastic v-zones with its zone arbiter and I/O
//! scheduler ([`elastic`]); each wraps the ZNS device and implements
//! [`crate::device::DeviceModel`], so every front end drives it as a device.

pub mod elastic;
pub mod kv;
pub mod lzone;
pub mod stripe;
pub mod striped;

use crate::device::{DeviceInfo, DeviceModel};
use crate::time::Duration;
use crate::zns::{Device, ZnsSpec};
use elastic::{Elastic, ElasticSpec};
use striped::{StaticSpec, StaticZones};

/// A validated host layer over the device.
#[derive(Clone, Debug, PartialEq)]
pub enum LayerSpec {
    Static(StaticSpec),
    Elastic(ElasticSpec),
}

impl LayerSpec {
    /// What the layer presents over `device`.
    pub fn info(&self, device: &ZnsSpec) -> DeviceInfo {
        match self {
            LayerSpec::Static(s) => s.info(device),
            LayerSpec::Elastic(e) => e.info(device),
        }
    }

    /// The layer over `dev`, set up with `prefill`: per namespace, (zone, LBAs) in order.
    pub fn build(
        &self,
        dev: Device,
        prefill: &[(u32, Vec<(u32, u64)>)],
        interval: Duration,
    ) -> Box<dyn DeviceModel> {
        match self {
            LayerSpec::Static(s) => {
                let mut layer = StaticZones::new(dev, s);
                for (_, plan) in prefill {
                    layer.prefill(plan);
                }
                Box::new(layer)
            }
            LayerSpec::Elastic(e) => {
                let mut layer = Elastic::new(dev, e, interval);
                for (ns, plan) in prefill {
                    layer.prefill(*ns, plan);
                }
                Box::new(layer)
            }
        }
    }
}
