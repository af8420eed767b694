//! The device under the eZNS layer, through the device seam: a ZNS drive, an array of drives,
//! static zones or zones emulated over a conventional SSD. Every model a layer can stack on
//! completes commands at submission ([`lzone::at_submission`]), so the layer's own scheduler
//! decides when a command goes down and knows at once when it completes. eZNS's die placement
//! (a stripe group of at most #dies zones has no two on one die) holds on a ZNS drive, which
//! gives each newly written zone the next die; on the others the layer runs unchanged and the
//! device below decides where the bytes go.

use std::ops::{Deref, DerefMut};

use crate::device::{Command, Data, DeviceModel, Status, ZoneAction, ZoneDescriptor};
use crate::host::lzone;
use crate::time::Instant;

pub struct Below(Box<dyn DeviceModel>);

impl Below {
    pub fn new(dev: Box<dyn DeviceModel>) -> Self {
        Below(dev)
    }

    /// Writes `nlb` LBAs at `slba` (a physical zone's write pointer); returns the completion.
    pub fn write(
        &mut self,
        now: Instant,
        slba: u64,
        nlb: u64,
        data: Option<&[u8]>,
    ) -> Result<Instant, Status> {
        let mut cmd = Command::write(slba, nlb);
        if let Some(d) = data {
            cmd = cmd.with_data(Data::Out(d));
        }
        Ok(lzone::at_submission(&self.0.submit(now, cmd)?))
    }

    /// Reads `nlb` LBAs from `slba` (into `buf` with data retention); returns the completion.
    pub fn read(
        &mut self,
        now: Instant,
        slba: u64,
        nlb: u64,
        buf: Option<&mut [u8]>,
    ) -> Result<Instant, Status> {
        let mut cmd = Command::read(slba, nlb);
        if let Some(b) = buf {
            cmd = cmd.with_data(Data::In(b));
        }
        Ok(lzone::at_submission(&self.0.submit(now, cmd)?))
    }

    /// Zone Management Send to the zone starting at `zslba`; returns the completion.
    pub fn manage(
        &mut self,
        now: Instant,
        zslba: u64,
        action: ZoneAction,
    ) -> Result<Instant, Status> {
        Ok(lzone::at_submission(
            &self.0.submit(now, Command::zone(action, zslba))?,
        ))
    }

    pub fn flush(&mut self, now: Instant) -> Result<Instant, Status> {
        Ok(lzone::at_submission(&self.0.submit(
            now,
            Command::new(crate::device::Op::Flush, 0, 0),
        )?))
    }

    pub fn zone_descriptor(&self, pz: u32) -> ZoneDescriptor {
        self.0.zone(0, pz)
    }

    /// The retained bytes at `slba` ([`DeviceModel::peek`]); every model a layer stacks on has it.
    pub fn peek(&self, slba: u64, buf: &mut [u8]) {
        self.0
            .peek(0, slba, buf)
            .expect("the devices eZNS stacks on copy their bytes out untimed");
    }

    pub fn as_model(&self) -> &dyn DeviceModel {
        &*self.0
    }
}

impl Deref for Below {
    type Target = dyn DeviceModel;
    fn deref(&self) -> &Self::Target {
        &*self.0
    }
}

impl DerefMut for Below {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut *self.0
    }
}
