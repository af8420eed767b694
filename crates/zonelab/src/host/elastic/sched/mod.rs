//! eZNS's hierarchical I/O scheduler (ezns.md, "Hierarchical I/O scheduler"): weighted
//! round-robin across namespaces ([`wrr`]), then per stripe group delay-based read congestion
//! control ([`read_cc`]) and global write admission control with token buckets
//! ([`admission`]). Read and write control need no coordination.

pub mod admission;
pub mod read_cc;
pub mod wrr;
