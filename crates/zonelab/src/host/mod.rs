//! Host layers that run as tasks on the simulation kernel: the key-value store ([`kv`]), and
//! next to it the zoned file layer it runs on. Each is a handle shared by tasks whose async
//! operations take the calling task's [`Host`](crate::sim::host::Host).

pub mod kv;
