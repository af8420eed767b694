//! The block layer's zone write plugging (Linux 6.10 and later, block/blk-zoned.c): at most one
//! write in flight per zone; writes to a busy zone wait in the zone's plug, and when the zone's
//! write completes, the next plugged write becomes a new request and the plugged writes that
//! follow it on the device merge into it up to the device's largest command
//! (`blk_zone_write_plug_init_request`). Many writers appending to one zone, as F2FS's tasks
//! fsyncing into one log, so send fewer and larger commands than they wrote. Before 6.10,
//! mq-deadline's zone write lock serialised zone writes the same way and merged them in the
//! scheduler's queue.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use crate::device::{Command, Data, Status};
use crate::host::fs::Inner;
use crate::sim::host::{Host, IoDone};

/// One write waiting in, or sent from, a zone's plug.
struct Plugged {
    lba: u64,
    nlb: u64,
    data: Option<Vec<u8>>,
    /// Set when the command that carried this write completed.
    done: Cell<Option<Result<IoDone, Status>>>,
}

/// A zone's plug: its write in flight and the writes behind it, in submission order.
#[derive(Default)]
struct ZonePlug {
    busy: bool,
    queue: VecDeque<Rc<Plugged>>,
}

/// Every zone's plug.
pub(crate) struct Plugs {
    zones: RefCell<Vec<ZonePlug>>,
    cv: crate::sim::sync::Condvar,
}

impl Plugs {
    /// The plugs of a layer of `zones` zones.
    pub(crate) fn new(zones: usize) -> Self {
        Plugs {
            zones: RefCell::new((0..zones).map(|_| ZonePlug::default()).collect()),
            cv: crate::sim::sync::Condvar::new(),
        }
    }
}

/// Sends a write of `nlb` LBAs at `lba` (zone `zone` of the layer) through the zone's plug and
/// waits for the command that carries it.
pub(crate) async fn write(
    fs: &Inner,
    h: &Host,
    zone: u32,
    lba: u64,
    nlb: u64,
    data: Option<&[u8]>,
) -> Result<IoDone, Status> {
    if !fs.spec.zone_write_plug {
        return h.io(command(lba, nlb, data)).await;
    }
    let me = Rc::new(Plugged {
        lba,
        nlb,
        data: data.map(<[u8]>::to_vec),
        done: Cell::new(None),
    });
    let plugs = &fs.plugs;
    plugs.zones.borrow_mut()[zone as usize]
        .queue
        .push_back(me.clone());
    loop {
        if let Some(r) = me.done.take() {
            return r;
        }
        let batch = {
            let mut zones = plugs.zones.borrow_mut();
            let plug = &mut zones[zone as usize];
            let first = plug.queue.front().is_some_and(|p| Rc::ptr_eq(p, &me));
            (!plug.busy && first)
                .then(|| take_batch(plug, fs.spec.max_io_blocks as u64 * fs.lbas_per_block))
        };
        let Some(batch) = batch else {
            plugs.cv.notified(h).await;
            continue;
        };
        let r = send(h, &batch).await;
        plugs.zones.borrow_mut()[zone as usize].busy = false;
        for p in &batch[1..] {
            p.done.set(Some(r));
        }
        plugs.cv.notify_all(h);
        return r;
    }
}

/// Takes the plug's first write and those that continue it on the device, up to `max_lbas` in
/// all, and marks the zone busy.
fn take_batch(plug: &mut ZonePlug, max_lbas: u64) -> Vec<Rc<Plugged>> {
    let first = plug.queue.pop_front().expect("the caller is first");
    let mut end = first.lba + first.nlb;
    let mut total = first.nlb;
    let mut batch = vec![first];
    while let Some(next) = plug.queue.front() {
        if next.lba != end || total + next.nlb > max_lbas {
            break;
        }
        end += next.nlb;
        total += next.nlb;
        batch.push(plug.queue.pop_front().expect("peeked"));
    }
    plug.busy = true;
    batch
}

/// One command for the whole batch (a write alone sends its own bytes).
async fn send(h: &Host, batch: &[Rc<Plugged>]) -> Result<IoDone, Status> {
    let nlb = batch.iter().map(|p| p.nlb).sum();
    let merged: Option<Vec<u8>> = (batch.len() > 1 && batch[0].data.is_some()).then(|| {
        batch
            .iter()
            .flat_map(|p| p.data.iter().flatten().copied())
            .collect()
    });
    let data = merged.as_deref().or(batch[0].data.as_deref());
    h.io(command(batch[0].lba, nlb, data)).await
}

/// A write of `nlb` LBAs at `lba`, carrying `data` if the layer keeps bytes.
fn command(lba: u64, nlb: u64, data: Option<&[u8]>) -> Command<'_> {
    let cmd = Command::write(lba, nlb);
    match data {
        Some(d) => cmd.with_data(Data::Out(d)),
        None => cmd,
    }
}
