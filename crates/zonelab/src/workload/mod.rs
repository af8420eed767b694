//! Workloads: what the host asks of the device. fio-like jobs ([`fio`]) run on the simulator's
//! fast path; trace replay ([`replay`]) reissues a recorded stream.

pub mod block;
pub mod files;
pub mod fio;
pub mod kv;
pub mod replay;
pub mod threads;

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::device::{Op, Status, ZoneAction};
use crate::host::fs::Fs;
pub use crate::seed::mix_seed;
use crate::sim::host::Host;
use crate::time::Duration;
use threads::ThreadsSpec;

/// A host-side workload: it runs as tasks on the kernel (host threads, file workloads, key-value
/// stores), unlike fio-like jobs, which run on the fast path.
#[derive(Clone, Debug, PartialEq)]
pub enum HostWorkload {
    Threads(ThreadsSpec),
    /// The host file layer and the file workloads on it.
    Files(files::FilesSpec),
    /// db_bench on the key-value store model.
    DbBench(kv::dbbench::DbBenchSpec),
    /// A YCSB core workload on the key-value store model.
    Ycsb(kv::ycsb::YcsbSpec),
}

/// The file layers of a run: `[fs]`, mounted once on each namespace that uses it.
#[derive(Default)]
pub struct FileLayers {
    spec: Option<crate::host::fs::FsSpec>,
    mounted: std::collections::BTreeMap<u32, Fs>,
}

impl FileLayers {
    /// The layer on `host`'s namespace, mounted now if it is not yet.
    pub fn on(&mut self, host: &Host) -> Result<Fs, String> {
        let nsid = host.nsid();
        if let Some(fs) = self.mounted.get(&nsid) {
            return Ok(fs.clone());
        }
        let spec = self
            .spec
            .as_ref()
            .ok_or("files = \"fs\" needs the experiment's file layer ([fs]), and there is none")?;
        let fs =
            Fs::mount(host, spec).map_err(|e| format!("mounting [fs] on namespace {nsid}: {e}"))?;
        self.mounted.insert(nsid, fs.clone());
        Ok(fs)
    }
}

/// Zones a host workload writes: the region and how many it keeps open at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZoneUse {
    pub first_zone: u32,
    pub zone_count: u32,
    pub open_zones: u32,
}

impl HostWorkload {
    pub fn name(&self) -> &str {
        match self {
            HostWorkload::Threads(t) => &t.name,
            HostWorkload::Files(_) => "files",
            HostWorkload::DbBench(d) => &d.name,
            HostWorkload::Ycsb(y) => &y.name,
        }
    }

    /// Starts its tasks. The file layer comes first (config orders the workloads): it leaves
    /// its spec in `layers`, mounted on namespace 0 if file workloads run there, and the
    /// key-value stores that keep their files on it mount it on their namespace.
    pub fn spawn(&self, host: &Host, layers: &mut FileLayers) {
        match self {
            HostWorkload::Threads(t) => threads::spawn(t, host),
            HostWorkload::Files(f) => {
                layers.spec = Some(f.fs.clone());
                if !f.workloads.is_empty() {
                    layers.mounted.insert(0, files::spawn(f, host));
                }
            }
            HostWorkload::DbBench(d) => kv::dbbench::spawn(d, host, layers),
            HostWorkload::Ycsb(y) => kv::ycsb::spawn(y, host, layers),
        }
    }

    /// The zones it writes, for the checks that writers do not overlap and fit the open limit.
    pub fn zones(&self) -> Option<ZoneUse> {
        match self {
            // One zone open at a time, two while moving on.
            HostWorkload::Threads(t) => Some(ZoneUse {
                first_zone: t.first_zone,
                zone_count: t.zone_count,
                open_zones: 2,
            }),
            // The file layer's logs (F2FS) or at least one zone per writer and its metadata
            // (ZenFS, whose tokens adapt to the device's limits).
            HostWorkload::Files(f) => Some(ZoneUse {
                first_zone: f.fs.first_zone,
                zone_count: f.fs.zone_count,
                open_zones: match &f.fs.personality {
                    crate::host::fs::Personality::F2fs(p) => {
                        p.active_logs
                            + match f.fs.gc.policy {
                                crate::host::fs::GcPolicyKind::BasicZgc => 1,
                                crate::host::fs::GcPolicyKind::LsmZgc if f.fs.gc.separate => 3,
                                crate::host::fs::GcPolicyKind::LsmZgc => 1,
                                _ => 0,
                            }
                    }
                    crate::host::fs::Personality::Zenfs(z) => z.reserved_zones + 1,
                },
            }),
            // Key-value stores write through a file layer, which owns its zones.
            HostWorkload::DbBench(_) | HostWorkload::Ycsb(_) => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Rw {
    Read,
    Write,
    Randread,
    Randwrite,
    Randrw,
}

impl Rw {
    pub fn writes(self) -> bool {
        matches!(self, Rw::Write | Rw::Randwrite | Rw::Randrw)
    }
    pub fn random(self) -> bool {
        matches!(self, Rw::Randread | Rw::Randwrite | Rw::Randrw)
    }
}

/// What a sequential writer does with a zone it leaves at `zone_fill`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ZoneFillAction {
    #[default]
    Reset,
    Abandon,
    /// Finish it (as ZenFS and F2FS finish a zone they are done with), and reset it before
    /// writing it again.
    Finish,
}

/// A fio-like job resolved against the device: LBAs and zones instead of human units.
#[derive(Clone, Debug, PartialEq)]
pub struct JobSpec {
    pub name: String,
    /// The namespace it works in, and the tenant its metrics go to.
    pub nsid: u32,
    pub tenant: String,
    pub rw: Rw,
    pub block_lbas: u64,
    pub iodepth: u32,
    pub numjobs: u32,
    pub first_zone: u32,
    pub zone_count: u32,
    /// The region in LBAs (block jobs; zoned jobs: their zones).
    pub first_lba: u64,
    pub region_lbas: u64,
    /// LBAs per loop (per clone).
    pub io_lbas: u64,
    pub loops: u32,
    pub runtime: Option<Duration>,
    /// When it starts, after the run's start.
    pub startdelay: Duration,
    pub time_based: bool,
    pub read_percent: u32,
    pub rate_bytes_per_s: Option<u64>,
    pub rate_iops: Option<u64>,
    pub thinktime: Duration,
    pub max_open_zones: u32,
    pub zone_reset_threshold: f64,
    pub zone_reset_frequency: f64,
    pub zone_append: bool,
    pub zone_fill_lbas: Option<u64>,
    pub zone_fill_action: ZoneFillAction,
    /// Conventional sequential writers: ranges written in random order, each trimmed first.
    pub trim_range_lbas: Option<u64>,
    /// What the host's I/O stack adds to each command's latency.
    pub host_overhead: Duration,
}

/// One command a job wants to issue (zone management names the zone by its start LBA).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub op: Op,
    pub slba: u64,
    pub nlb: u64,
}

impl Request {
    pub fn new(op: Op, slba: u64, nlb: u64) -> Self {
        Request { op, slba, nlb }
    }
    pub fn zone(action: ZoneAction, zslba: u64) -> Self {
        Request::new(Op::ZoneMgmt(action), zslba, 0)
    }
}

/// What a job does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    Issue(Request),
    /// Wait for in-flight I/O to complete (a reset must not overtake writes).
    Drain,
    /// Nothing left to do.
    Done(StopReason),
}

/// Why a job (or a clone of it) stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StopReason {
    /// It transferred its `io_size` (times `loops`).
    IoSize,
    /// Its `runtime` ran out.
    Runtime,
    NoDataToRead,
    NoWritableZone,
    /// A replayed trace ran out of records.
    TraceEnd,
    /// A replayed trace has a line that cannot be read (the run's errors say which).
    TraceError,
    /// The device rejected one of its commands.
    Device(Status),
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::IoSize => f.write_str("io_size"),
            StopReason::Runtime => f.write_str("runtime"),
            StopReason::NoDataToRead => f.write_str("no data to read"),
            StopReason::NoWritableZone => f.write_str("no writable zone in range"),
            StopReason::TraceEnd => f.write_str("end of trace"),
            StopReason::TraceError => f.write_str("unreadable trace line"),
            StopReason::Device(s) => write!(f, "{s}"),
        }
    }
}

impl Serialize for StopReason {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}
