//! The device under the eZNS layer, through the device seam: a ZNS drive, an array of drives,
//! static zones or zones emulated over a conventional SSD. Every model a layer can stack on
//! completes commands at submission ([`lzone::at_submission`]), so the layer's own scheduler
//! decides when a command goes down and knows at once when it completes. eZNS's die placement
//! (a stripe group of at most #dies zones has no two on one die) holds on a ZNS drive, which
//! gives each newly written zone the next die; on the others the layer runs unchanged and the
//! device below decides where the bytes go.
//!
//! A drive is held as itself and called directly, the rest through `dyn DeviceModel`: eZNS
//! sends several device commands per host command, and the seam's dispatch and command building
//! showed in its benchmark (`zonelab bench --case ezns-4k`).

use std::ops::{Deref, DerefMut};

use crate::device::{Command, Data, DeviceModel, Status, ZoneAction, ZoneDescriptor};
use crate::host::lzone;
use crate::time::Instant;
use crate::zns::Device;

pub enum Below {
    Drive(Box<Device>),
    Model(Box<dyn DeviceModel>),
}

impl From<Device> for Below {
    fn from(d: Device) -> Self {
        Below::Drive(Box::new(d))
    }
}

impl From<Box<dyn DeviceModel>> for Below {
    fn from(d: Box<dyn DeviceModel>) -> Self {
        Below::Model(d)
    }
}

/// The completion of a command the device below took.
fn done(a: Result<crate::device::Accepted, Status>) -> Result<Instant, Status> {
    Ok(lzone::at_submission(&a?))
}

impl Below {
    /// Writes `nlb` LBAs at `slba` (a physical zone's write pointer); returns the completion.
    pub fn write(
        &mut self,
        now: Instant,
        slba: u64,
        nlb: u64,
        data: Option<&[u8]>,
    ) -> Result<Instant, Status> {
        match self {
            Below::Drive(d) => done(d.write(now, slba, nlb, data)),
            Below::Model(m) => {
                let mut cmd = Command::write(slba, nlb);
                if let Some(d) = data {
                    cmd = cmd.with_data(Data::Out(d));
                }
                done(m.submit(now, cmd))
            }
        }
    }

    /// Reads `nlb` LBAs from `slba` (into `buf` with data retention); returns the completion.
    pub fn read(
        &mut self,
        now: Instant,
        slba: u64,
        nlb: u64,
        buf: Option<&mut [u8]>,
    ) -> Result<Instant, Status> {
        match self {
            Below::Drive(d) => done(d.read(now, slba, nlb, buf)),
            Below::Model(m) => {
                let mut cmd = Command::read(slba, nlb);
                if let Some(b) = buf {
                    cmd = cmd.with_data(Data::In(b));
                }
                done(m.submit(now, cmd))
            }
        }
    }

    /// Zone Management Send to the zone starting at `zslba`; returns the completion.
    pub fn manage(
        &mut self,
        now: Instant,
        zslba: u64,
        action: ZoneAction,
    ) -> Result<Instant, Status> {
        match self {
            Below::Drive(d) => done(d.zone_mgmt_send(now, zslba, action, false)),
            Below::Model(m) => done(m.submit(now, Command::zone(action, zslba))),
        }
    }

    pub fn flush(&mut self, now: Instant) -> Result<Instant, Status> {
        match self {
            Below::Drive(d) => done(d.flush(now)),
            Below::Model(m) => done(m.submit(now, Command::new(crate::device::Op::Flush, 0, 0))),
        }
    }

    pub fn zone_descriptor(&self, pz: u32) -> ZoneDescriptor {
        match self {
            Below::Drive(d) => d.zone_descriptor(pz),
            Below::Model(m) => m.zone(0, pz),
        }
    }

    /// The retained bytes at `slba` ([`DeviceModel::peek`]); every model a layer stacks on has it.
    pub fn peek(&self, slba: u64, buf: &mut [u8]) {
        self.as_model()
            .peek(0, slba, buf)
            .expect("the devices eZNS stacks on copy their bytes out untimed");
    }

    pub fn as_model(&self) -> &(dyn DeviceModel + 'static) {
        match self {
            Below::Drive(d) => &**d,
            Below::Model(m) => &**m,
        }
    }
}

impl Deref for Below {
    type Target = dyn DeviceModel;
    fn deref(&self) -> &Self::Target {
        self.as_model()
    }
}

impl DerefMut for Below {
    fn deref_mut(&mut self) -> &mut Self::Target {
        match self {
            Below::Drive(d) => &mut **d,
            Below::Model(m) => &mut **m,
        }
    }
}
