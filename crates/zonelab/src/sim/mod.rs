//! The simulation kernel: an event queue ordered by (time, sequence) so every run is
//! reproducible, the one path every command takes to the device, and host tasks on a
//! deterministic executor with modelled CPU cores. It knows no workload, host layer or device
//! model: [`crate::experiment`] assembles those and drives the loop.
//!
//! - `kernel`: the clock, the queue, and the one path every command takes to the device;
//! - `host`: host tasks (async) and what they can wait on: I/O, sleep, CPU;
//! - `sync`: semaphores, mutexes and condition variables between tasks;
//! - `cores`: the modelled host cores.
//!
//! What is kept of each command (its trace record, a rejection) is [`crate::record`]'s.

pub mod cores;
pub mod host;
pub(crate) mod kernel;
mod leaf;
pub(crate) mod queue;
pub mod sync;

pub use kernel::TaskId;
