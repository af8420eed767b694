//! ZoneLab as a Linux zoned block device. `zonelab ublk` serves a simulated ZNS SSD through
//! ublk (userspace block devices, zoned since Linux 6.6) as a host-managed `/dev/ublkbN`, so
//! unmodified file systems, fio and blkzone run on it while ZoneLab models every command.
//!
//! `proto` is the kernel's side of the protocol (operation codes, `struct blk_zone`, errno
//! values), `adapter` the only module that calls ZoneLab's device, `clock` the device time in
//! virtual and real-time mode, and `server` the ublk queue that ties them to the kernel.

pub mod adapter;
pub mod clock;
pub mod proto;
pub mod server;
