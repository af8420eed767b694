//! Host threads that append and flush: `count` threads each doing `ops` rounds of CPU work, a
//! Zone Append of `bs` and (with `fsync`) a Flush, sharing a ring of zones. A thread reserves
//! room under a host mutex; the thread that moves the ring onto a used zone resets it (and
//! finishes a zone it leaves with room too small for a block), while the others wait for the
//! mutex. It is the simplest workload that exercises the kernel's host threads, modelled cores
//! and locks, and the shape of a logging or WAL-heavy application.

use std::cell::Cell;
use std::rc::Rc;

use crate::device::{Command, Op, ZoneAction};
use crate::sim::host::Host;
use crate::sim::sync::Mutex;
use crate::time::Duration;

#[derive(Clone, Debug, PartialEq)]
pub struct ThreadsSpec {
    pub name: String,
    pub threads: u32,
    pub block_lbas: u64,
    pub ops_per_thread: u64,
    pub fsync: bool,
    pub cpu_per_op: Duration,
    pub first_zone: u32,
    pub zone_count: u32,
}

struct Ring {
    current: u32,
    /// LBAs reserved in each zone of the ring since its last reset.
    used: Vec<u64>,
}

/// Starts the threads of `spec` on `host`.
pub fn spawn(spec: &ThreadsSpec, host: &Host) {
    let zoned = host
        .device_info()
        .zoned
        .expect("threads append to zones (checked by config)");
    let (zone_lbas, cap) = (zoned.zone_size_lbas, zoned.zone_capacity_lbas);
    let ring = Rc::new(Mutex::new(Ring {
        current: 0,
        used: vec![0; spec.zone_count as usize],
    }));
    let done = Rc::new(Cell::new(0u64));
    let total = spec.ops_per_thread * spec.threads as u64;
    for t in 0..spec.threads {
        let h = host.for_tenant(&spec.name, &format!("{}.{t}", spec.name));
        let (ring, done, spec) = (ring.clone(), done.clone(), spec.clone());
        let name = format!("{}.{t}", spec.name);
        host.spawn(&name, false, async move {
            let bs = spec.block_lbas;
            for _ in 0..spec.ops_per_thread {
                h.cpu(spec.cpu_per_op).await;
                let zslba = {
                    let mut r = ring.lock(&h).await;
                    let zone_of = |i: u32| (spec.first_zone + i) as u64 * zone_lbas;
                    if r.used[r.current as usize] + bs > cap {
                        let left = r.current;
                        if r.used[left as usize] < cap {
                            let cmd = Command::zone(ZoneAction::Finish, zone_of(left));
                            if h.io(cmd).await.is_err() {
                                return;
                            }
                        }
                        r.current = (left + 1) % spec.zone_count;
                        let next = r.current;
                        if r.used[next as usize] > 0 {
                            let cmd = Command::zone(ZoneAction::Reset, zone_of(next));
                            if h.io(cmd).await.is_err() {
                                return;
                            }
                            r.used[next as usize] = 0;
                        }
                    }
                    let cur = r.current as usize;
                    r.used[cur] += bs;
                    zone_of(r.current)
                };
                if h.io(Command::append(zslba, bs)).await.is_err() {
                    return;
                }
                if spec.fsync && h.io(Command::new(Op::Flush, 0, 0)).await.is_err() {
                    return;
                }
                done.set(done.get() + 1);
                h.set_progress(done.get() as f64 / total as f64);
            }
        });
    }
}
