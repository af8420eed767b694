//! Checkers shared by the core's own tests and the seed swarm (`crates/zonelab-swarm`): built
//! for tests, or with the `testing` feature. Nothing here runs in a simulation.
//!
//! - `fixtures`: the tiny device the end-to-end tests run on, written once;
//! - `reference`: a small, independent model of the ZNS zone rules (states, open and active
//!   resources, write pointers, statuses and the bytes a read returns), written apart from the
//!   device so that the device can be compared with it command by command;
//! - `tidy` (tests only): checks of the source tree, such as the core modules importing one
//!   another without a circle.

pub mod fixtures;
pub mod reference;

#[cfg(test)]
mod tidy;
