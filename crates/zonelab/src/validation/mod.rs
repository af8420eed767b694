//! ZoneLab against measurements of things it did not write: the key-value model against real
//! db_bench's counters ([`kv`], re-exported here), the device models against published
//! measurements of real drives ([`device`]), and fitting a device's timing fields to
//! measurements ([`fit`], behind `zonelab calibrate`).

pub mod device;
pub mod fit;
pub mod jobs;
mod kv;

pub use kv::*;
