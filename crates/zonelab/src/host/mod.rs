//! Host side. Layers that run as tasks on the simulation kernel: the zoned file layer ([`fs`])
//! with its placement personalities and zone GC policies, and the key-value store ([`kv`]); each
//! is a handle shared by tasks whose async operations take the calling task's
//! [`Host`](crate::sim::host::Host). Layers that present a
//! device behind the device seam: static logical zones striped over physical zones
//! ([`static_zones`], the baseline eZNS is measured against), eZNS's elastic v-zones with its zone arbiter and I/O
//! scheduler ([`elastic`]), an array of drives ([`array`]) and zones emulated over a conventional
//! SSD ([`emulated`]); each wraps the device or layer under it and implements
//! [`crate::device::DeviceModel`], so every front end drives it as a device.

pub mod array;
pub mod elastic;
pub mod emulated;
pub mod fs;
pub mod kv;
pub mod lzone;
pub mod static_zones;
pub mod stripe;

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

use crate::device::{DeviceInfo, DeviceModel};
use crate::metrics::series::Sampling;
use crate::zns::{Device, ZnsSpec};
use array::ArraySpec;
use elastic::{Elastic, ElasticSpec};
use emulated::EmulatedSpec;
use static_zones::{StaticSpec, StaticZones};

/// A validated host layer over the device.
#[derive(Clone, Debug, PartialEq)]
pub enum LayerSpec {
    /// Static zones over the device, or over the layer given (`[layer.over]`).
    Static(StaticSpec, Option<Box<LayerSpec>>),
    /// eZNS over the device, or over the layer given (`[layer.over]`).
    Elastic(ElasticSpec, Option<Box<LayerSpec>>),
    /// Several drives of the device, RAID-0 of zones.
    Array(ArraySpec),
    /// Zones emulated over a conventional SSD (`host::emulated`).
    Emulated(EmulatedSpec),
}

impl LayerSpec {
    /// What the layer presents over `device`.
    pub fn info(&self, device: &ZnsSpec) -> DeviceInfo {
        match self {
            LayerSpec::Static(s, over) => {
                s.info(&over.as_ref().map_or(device.info(), |o| o.info(device)))
            }
            LayerSpec::Elastic(e, over) => {
                e.info(&over.as_ref().map_or(device.info(), |o| o.info(device)))
            }
            LayerSpec::Array(a) => a.info(&device.info()),
            LayerSpec::Emulated(e) => e.info(&device.info()),
        }
    }

    /// The NAND dies under the layer over a drive of `drive_dies` dies: an array's count across
    /// its drives; the other layers' are the device's (or their own layer's below).
    pub fn dies(&self, drive_dies: u32) -> u32 {
        match self {
            LayerSpec::Array(a) => drive_dies * a.drives,
            LayerSpec::Static(_, Some(o)) | LayerSpec::Elastic(_, Some(o)) => o.dies(drive_dies),
            _ => drive_dies,
        }
    }

    /// What the layer presents over a conventional device (emulated zones, or static zones
    /// over them: the config puts nothing else there).
    pub fn info_over_block(&self, device: &DeviceInfo) -> DeviceInfo {
        match self {
            LayerSpec::Emulated(e) => e.info(device),
            LayerSpec::Static(s, Some(under)) => s.info(&under.info_over_block(device)),
            LayerSpec::Elastic(e, Some(under)) => e.info(&under.info_over_block(device)),
            _ => unreachable!("the config puts only emulated zones under a layer over a block SSD"),
        }
    }

    /// The layer over `block`, a conventional device; its series sample as `sampling` says.
    pub fn build_over_block(
        &self,
        block: Box<dyn DeviceModel>,
        sampling: Sampling,
    ) -> Box<dyn DeviceModel> {
        match self {
            LayerSpec::Emulated(e) => Box::new(emulated::EmulatedZones::new(block, e)),
            LayerSpec::Static(s, Some(under)) => {
                Box::new(StaticZones::new(under.build_over_block(block, sampling), s))
            }
            LayerSpec::Elastic(e, Some(under)) => Box::new(Elastic::new(
                under.build_over_block(block, sampling),
                e,
                sampling,
            )),
            _ => unreachable!("the config puts only emulated zones under a layer over a block SSD"),
        }
    }

    /// The layer over the device `make` builds (once per drive of an array), set up with
    /// `prefill`: per namespace, (zone, LBAs) in order.
    pub fn build(
        &self,
        make: &mut dyn FnMut() -> Device,
        prefill: &[(u32, Vec<(u32, u64)>)],
        sampling: Sampling,
    ) -> Box<dyn DeviceModel> {
        match self {
            LayerSpec::Array(a) => Box::new(array::build(a, make, prefill)),
            LayerSpec::Static(s, over) => {
                let under: Box<dyn DeviceModel> = match over {
                    // The prefill is this layer's: the one under sees its part of it.
                    Some(o) => o.build(make, &[], sampling),
                    None => Box::new(make()),
                };
                let mut layer = StaticZones::new(under, s);
                for (_, plan) in prefill {
                    layer.prefill(plan);
                }
                Box::new(layer)
            }
            LayerSpec::Emulated(_) => {
                unreachable!("the config puts emulated zones over a conventional device only")
            }
            LayerSpec::Elastic(e, over) => {
                let under: elastic::Below = match over {
                    // The prefill is this layer's: the one under sees its part of it.
                    Some(o) => o.build(make, &[], sampling).into(),
                    None => make().into(),
                };
                let mut layer = Elastic::new(under, e, sampling);
                for (ns, plan) in prefill {
                    layer.prefill(*ns, plan);
                }
                Box::new(layer)
            }
        }
    }
}

/// Runs `futures` at once inside one task and waits for all of them; results in order. Commands
/// are submitted in the order the futures are given (each submits when first polled).
pub async fn join_all<F: Future>(futures: impl IntoIterator<Item = F>) -> Vec<F::Output> {
    let mut futs: Vec<Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut out: Vec<Option<F::Output>> = futs.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (f, slot) in futs.iter_mut().zip(out.iter_mut()) {
            if slot.is_none() {
                match f.as_mut().poll(cx) {
                    Poll::Ready(v) => *slot = Some(v),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    out.into_iter()
        .map(|v| v.expect("every future finished"))
        .collect()
}
