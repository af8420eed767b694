//! The ublk side: creates a host-managed zoned `/dev/ublkbN` whose geometry and limits are the
//! device's, and serves its one queue. Each tag's task takes a command from the driver, copies
//! the data in from `/dev/ublkcN` (user copy, which zoned ublk requires), hands the command to
//! the adapter at the clock's device time, copies data back, holds the completion until the
//! modelled time in real-time mode, and commits the result (with the written sector for zone
//! appends). One queue keeps every command in one submission order, as one NVMe queue pair.
//!
//! Stop: SIGINT or SIGTERM (or `zonelab ublk --stop`, which sends SIGTERM to the pid in the
//! device's pid file) stops the device; the queue drains, the caller writes the results, and
//! the device is deleted.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use io_uring::{opcode, types};
use libublk::ctrl::{UblkCtrl, UblkCtrlBuilder};
use libublk::io::{BufDesc, UblkDev, UblkIOCtx, UblkQueue};
use libublk::{UblkError, UblkFlags, sys};

use crate::adapter::{BlockAdapter, Limits};
use crate::clock::{Clock, TimeMode};
use crate::proto::{BLK_ZONE_BYTES, Command, Op, SECTOR_BYTES};

/// Where running servers leave their pid, one file per device: `ublkb<ID>.pid`.
pub const PID_DIR: &str = "/run/zonelab-ublk";

/// Real-time mode: the longest the firmware waits to be offered idle time when it has asked for
/// nothing (chosen: short against its timers, long against the cost of a wake-up).
const IDLE_TICK: Duration = Duration::from_millis(100);

#[derive(Clone, Debug)]
pub struct ServeOptions {
    pub time: TimeMode,
    /// Commands the kernel may have outstanding at once.
    pub queue_depth: u16,
    /// The largest command, in bytes (the block layer splits larger I/O).
    pub max_io_bytes: u32,
    /// Device id (N of /dev/ublkbN), or -1 for the next free one.
    pub dev_id: i32,
}

/// Chosen: libublk's defaults (64 commands, 512 KiB each).
impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            time: TimeMode::Virtual,
            queue_depth: 64,
            max_io_bytes: 512 << 10,
            dev_id: -1,
        }
    }
}

/// Serves `adapter` as a zoned block device until it is stopped. `ready` runs once the device
/// is live (with its id); `stopped` runs after the queue has drained and before the device is
/// deleted (write the results there).
pub fn serve(
    adapter: BlockAdapter,
    opts: &ServeOptions,
    ready: impl FnOnce(u32) + Send + Sync + 'static,
    stopped: impl FnOnce(&mut BlockAdapter) -> Result<()>,
) -> Result<()> {
    check_driver()?;
    let limits = adapter.limits();
    wait_for_id(opts.dev_id)?;
    let ctrl = Arc::new(add_device(opts)?);
    stop_on_signal(ctrl.clone())?;

    let shared = Arc::new(Mutex::new(Some(adapter)));
    let queue_shared = shared.clone();
    let time = opts.time;
    let target = move |dev: &mut UblkDev| {
        set_params(dev, &limits);
        Ok(())
    };
    let queue = move |qid: u16, dev: &UblkDev| {
        let Some(adapter) = queue_shared.lock().expect("adapter lock").take() else {
            return;
        };
        let adapter = run_queue(qid, dev, adapter, time);
        *queue_shared.lock().expect("adapter lock") = Some(adapter);
    };
    let started = move |ctrl: &UblkCtrl| {
        let id = ctrl.dev_info().dev_id;
        let _ = write_pid_file(id);
        ready(id);
    };
    let run = ctrl.run_target(target, queue, started);
    let id = ctrl.dev_info().dev_id;
    let mut adapter = shared
        .lock()
        .map_err(|_| anyhow!("the queue thread panicked"))?
        .take()
        .ok_or_else(|| anyhow!("the queue thread did not hand the device back"))?;
    let written = stopped(&mut adapter);
    // The signal handler holds a clone of the control, so it is never dropped, and dropping it
    // is what deletes a device libublk added: without this the stopped device stayed in the
    // kernel after the server exited, and a new server of the same id could not be added.
    if let Err(e) = ctrl.del_dev() {
        eprintln!("warning: cannot delete ublk device {id}: {e}");
    }
    let _ = std::fs::remove_file(pid_path(id));
    run.map_err(|e| anyhow!("ublk device {id}: {e}"))?;
    written
}

/// The ublk driver is loaded.
fn check_driver() -> Result<()> {
    if !Path::new("/dev/ublk-control").exists() {
        bail!(
            "/dev/ublk-control does not exist: load the driver with `modprobe ublk_drv` (as root; \
             zoned ublk needs Linux 6.6 or later)"
        );
    }
    Ok(())
}

/// A device of this id that an earlier server stopped may still be going (the kernel frees
/// its id once every user of the old device has let go): wait for it, as `--stop` does.
fn wait_for_id(dev_id: i32) -> Result<()> {
    if let Ok(id) = u32::try_from(dev_id)
        && !wait_until_gone(id, DEVICE_GONE_WAIT)
    {
        bail!(
            "/dev/ublkb{id} still exists after {DEVICE_GONE_WAIT:?}: another server has it, \
             or the kernel has not let go of a stopped one (`zonelab ublk --stop --id {id}`)"
        );
    }
    Ok(())
}

/// Adds the device (one queue, user copy, zoned), if the kernel's driver can serve zones.
fn add_device(opts: &ServeOptions) -> Result<UblkCtrl> {
    let ctrl = UblkCtrlBuilder::default()
        .name("zonelab")
        .id(opts.dev_id)
        .nr_queues(1)
        .depth(opts.queue_depth)
        .io_buf_bytes(opts.max_io_bytes)
        .ctrl_flags((sys::UBLK_F_USER_COPY | sys::UBLK_F_ZONED) as u64)
        .dev_flags(UblkFlags::UBLK_DEV_F_ADD_DEV)
        .build()
        .map_err(|e| anyhow!("cannot add a ublk device: {e} (are you root?)"))?;
    match ctrl.get_driver_features() {
        Some(f) if f & sys::UBLK_F_ZONED as u64 != 0 => {}
        _ => bail!("this kernel's ublk driver has no zoned support (it needs Linux 6.6 or later)"),
    }
    Ok(ctrl)
}

/// SIGINT and SIGTERM stop the device (the queue then drains and `serve` returns).
fn stop_on_signal(ctrl: Arc<UblkCtrl>) -> Result<()> {
    ctrlc::set_handler(move || {
        // libublk sends control commands through a per-thread ring; this is the handler's own
        // thread, so it needs one first.
        let ring = libublk::ctrl::ublk_init_ctrl_task_ring(|ring| {
            if ring.is_none() {
                *ring = Some(io_uring::IoUring::<io_uring::squeue::Entry128>::builder().build(4)?);
            }
            Ok(())
        });
        match ring.and_then(|_| ctrl.kill_dev()) {
            Ok(_) => {}
            Err(e) => eprintln!("error: cannot stop the ublk device: {e}"),
        }
    })
    .context("cannot install the SIGINT/SIGTERM handler")
}

/// The device's parameters as the kernel sees them: size, block sizes, zones and discard.
fn set_params(dev: &mut UblkDev, limits: &Limits) {
    dev.set_default_params(limits.dev_sectors * SECTOR_BYTES);
    let p = &mut dev.tgt.params;
    p.types |= sys::UBLK_PARAM_TYPE_ZONED | sys::UBLK_PARAM_TYPE_DISCARD;
    // No volatile write cache: a write the model completed is durable, so no flushes.
    p.basic.attrs = 0;
    p.basic.logical_bs_shift = limits.lba_shift;
    p.basic.physical_bs_shift = limits.lba_shift;
    p.basic.io_min_shift = limits.lba_shift;
    p.basic.io_opt_shift = limits.lba_shift;
    p.basic.chunk_sectors = limits.zone_sectors;
    p.zoned = sys::ublk_param_zoned {
        max_open_zones: limits.max_open_zones,
        max_active_zones: limits.max_active_zones,
        max_zone_append_sectors: limits.max_zone_append_sectors,
        ..Default::default()
    };
    p.discard = sys::ublk_param_discard {
        discard_granularity: 1 << limits.lba_shift,
        max_discard_sectors: limits.zone_sectors,
        max_discard_segments: 1,
        ..Default::default()
    };
}

/// How long a new server waits for a stopped device of its id to go (chosen; in the VM test the
/// device was gone by the time `--stop` returned).
const DEVICE_GONE_WAIT: Duration = Duration::from_secs(10);

/// Whether `/dev/ublkbN` and `/dev/ublkcN` are gone, waiting up to `timeout` for them.
fn wait_until_gone(dev_id: u32, timeout: Duration) -> bool {
    let exists = || {
        Path::new(&format!("/dev/ublkb{dev_id}")).exists()
            || Path::new(&format!("/dev/ublkc{dev_id}")).exists()
    };
    let waited = std::time::Instant::now();
    while exists() {
        if waited.elapsed() > timeout {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

pub fn pid_path(dev_id: u32) -> PathBuf {
    Path::new(PID_DIR).join(format!("ublkb{dev_id}.pid"))
}

fn write_pid_file(dev_id: u32) -> std::io::Result<()> {
    std::fs::create_dir_all(PID_DIR)?;
    std::fs::write(pid_path(dev_id), format!("{}\n", std::process::id()))
}

/// Stops the servers of `dev_id` (or of every ZoneLab device) and waits until each has written
/// its results and exited, and the kernel has deleted its device, so a new server can take the
/// id at once. Returns the devices stopped.
pub fn stop(dev_id: Option<u32>, timeout: Duration) -> Result<Vec<u32>> {
    let mut targets = Vec::new();
    match dev_id {
        Some(id) => targets.push(id),
        None => {
            if let Ok(dir) = std::fs::read_dir(PID_DIR) {
                for entry in dir.flatten() {
                    let name = entry.file_name().to_string_lossy().to_string();
                    if let Some(id) = name
                        .strip_prefix("ublkb")
                        .and_then(|n| n.strip_suffix(".pid"))
                        .and_then(|n| n.parse().ok())
                    {
                        targets.push(id);
                    }
                }
            }
        }
    }
    targets.sort_unstable();
    if targets.is_empty() {
        bail!("no ZoneLab ublk device is running (no pid file in {PID_DIR})");
    }
    for &id in &targets {
        let path = pid_path(id);
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "/dev/ublkb{id} is not served by zonelab ({})",
                path.display()
            )
        })?;
        let pid: i32 = text
            .trim()
            .parse()
            .with_context(|| format!("{}: not a pid", path.display()))?;
        // SAFETY: kill(2) with a pid read from our own pid file.
        if unsafe { libc::kill(pid, libc::SIGTERM) } != 0 {
            let _ = std::fs::remove_file(&path);
            bail!("/dev/ublkb{id}: its server (pid {pid}) is gone; removed the stale pid file");
        }
        let waited = std::time::Instant::now();
        // SAFETY: signal 0 only checks that the process exists.
        while unsafe { libc::kill(pid, 0) } == 0 {
            if waited.elapsed() > timeout {
                bail!("/dev/ublkb{id}: server pid {pid} still running after {timeout:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if !wait_until_gone(id, timeout.saturating_sub(waited.elapsed())) {
            bail!(
                "/dev/ublkb{id}: its server exited, but the kernel still has the device after {timeout:?}"
            );
        }
    }
    Ok(targets)
}

struct QueueState {
    adapter: BlockAdapter,
    clock: Clock,
}

fn run_queue(qid: u16, dev: &UblkDev, adapter: BlockAdapter, time: TimeMode) -> BlockAdapter {
    let clock = Clock::new(time, adapter.start_ns());
    let state = Rc::new(RefCell::new(QueueState { adapter, clock }));
    let q = match UblkQueue::new(qid, dev) {
        Ok(q) => Rc::new(q),
        Err(e) => {
            eprintln!("error: ublk queue {qid}: {e}");
            return take(state);
        }
    };
    let exe_rc = Rc::new(smol::LocalExecutor::new());
    let exe = exe_rc.clone();
    let mut tasks = Vec::new();
    for tag in 0..dev.dev_info.queue_depth {
        let (q, state) = (q.clone(), state.clone());
        tasks.push(exe.spawn(async move {
            match serve_tag(&q, &state, tag).await {
                Ok(()) | Err(UblkError::QueueIsDown) => {}
                Err(e) => eprintln!("error: ublk tag {tag}: {e}"),
            }
        }));
    }
    if time == TimeMode::Realtime {
        let (q, state) = (q.clone(), state.clone());
        exe.spawn(async move { idle_time(&q, &state).await })
            .detach();
    }
    let batch_state = state.clone();
    smol::block_on(exe_rc.run(async {
        let run_ops = || {
            while exe.try_tick() {}
            let mut s = batch_state.borrow_mut();
            let now = s.clock.end_batch();
            if s.clock.mode() == TimeMode::Virtual {
                s.adapter.advance(now);
            }
        };
        let done = || tasks.iter().all(|t| t.is_finished());
        if let Err(e) = libublk::wait_and_handle_io_events(&q, Some(20), run_ops, done).await {
            eprintln!("error: ublk queue {qid}: {e}");
        }
    }));
    // The executor owns the detached idle-time task and its share of the state.
    drop(tasks);
    drop(batch_state);
    drop(exe);
    drop(exe_rc);
    drop(q);
    take(state)
}

fn take(state: Rc<RefCell<QueueState>>) -> BlockAdapter {
    match Rc::try_unwrap(state) {
        Ok(s) => s.into_inner().adapter,
        Err(_) => panic!("queue state still shared after the queue stopped"),
    }
}

/// Real-time mode: offers the firmware idle time when it asks for it, and at least every
/// `IDLE_TICK`, while the host sends nothing.
async fn idle_time(q: &UblkQueue<'_>, state: &RefCell<QueueState>) {
    while !q.is_stopping() {
        let wait = {
            let mut s = state.borrow_mut();
            let now = s.clock.now_ns();
            let next = s.adapter.advance(now);
            next.map_or(IDLE_TICK, |t| Duration::from_nanos(t - now).min(IDLE_TICK))
        };
        sleep(q, wait).await;
    }
}

async fn sleep(q: &UblkQueue<'_>, d: Duration) {
    let ts = types::Timespec::new()
        .sec(d.as_secs())
        .nsec(d.subsec_nanos());
    let sqe = opcode::Timeout::new(&ts).build();
    // The timespec lives in this frame until the timeout completes.
    q.ublk_submit_sqe(sqe).await;
}

async fn serve_tag(
    q: &UblkQueue<'_>,
    state: &RefCell<QueueState>,
    tag: u16,
) -> Result<(), UblkError> {
    let mut buf: Vec<u8> = Vec::new();
    q.submit_io_prep_cmd(tag, BufDesc::ZonedAppendLba(0), 0, None)
        .await?;
    loop {
        let (result, append_sector, hold) = serve_one(q, state, tag, &mut buf);
        if let Some(d) = hold {
            sleep(q, d).await;
        }
        q.submit_io_commit_cmd(tag, BufDesc::ZonedAppendLba(append_sector), result)
            .await?;
    }
}

/// Serves the command in `tag`'s slot: (result, appended sector, how long to hold it).
fn serve_one(
    q: &UblkQueue<'_>,
    state: &RefCell<QueueState>,
    tag: u16,
    buf: &mut Vec<u8>,
) -> (i32, u64, Option<Duration>) {
    let iod = q.get_iod(tag);
    let Some(op) = Op::from_ublk(iod.op_flags) else {
        return (-libc::EOPNOTSUPP, 0, None);
    };
    // For REPORT_ZONES the driver puts the zone count where the sector count goes.
    let cmd = Command {
        op,
        sector: iod.start_sector,
        count: iod.nr_sectors,
    };
    let len = match op {
        Op::ReportZones => cmd.count as usize * BLK_ZONE_BYTES,
        Op::Read | Op::Write | Op::ZoneAppend => cmd.count as usize * SECTOR_BYTES as usize,
        _ => 0,
    };
    if buf.len() < len {
        buf.resize(len, 0);
    }
    let data = &mut buf[..len];
    let fd = q.dev.tgt.fds[0];
    let pos = UblkIOCtx::ublk_user_copy_pos(q.get_qid(), tag, 0) as libc::off_t;
    if op.takes_data() && !copy(fd, data, pos, false) {
        return (-libc::EIO, 0, None);
    }
    let mut s = state.borrow_mut();
    let now = s.clock.now_ns();
    if s.clock.mode() == TimeMode::Realtime {
        s.adapter.advance(now);
    }
    let reply = s.adapter.submit(now, &cmd, data);
    s.clock.completed(reply.done_ns);
    let hold = s.clock.hold(reply.done_ns);
    drop(s);
    if op.returns_data()
        && reply.result > 0
        && !copy(fd, &mut data[..reply.result as usize], pos, true)
    {
        return (-libc::EIO, 0, None);
    }
    (reply.result, reply.append_sector.unwrap_or(0), hold)
}

/// Copies a command's data between `buf` and the request, through `/dev/ublkcN` at `pos`.
fn copy(fd: i32, buf: &mut [u8], pos: libc::off_t, to_request: bool) -> bool {
    // SAFETY: `buf` is valid for `buf.len()` bytes; `fd` is the device's char device.
    let n = unsafe {
        if to_request {
            libc::pwrite(fd, buf.as_ptr().cast(), buf.len(), pos)
        } else {
            libc::pread(fd, buf.as_mut_ptr().cast(), buf.len(), pos)
        }
    };
    if n != buf.len() as isize {
        eprintln!(
            "error: copying {} bytes {} the request at {pos:#x}: {}",
            buf.len(),
            if to_request { "to" } else { "from" },
            if n < 0 {
                std::io::Error::last_os_error().to_string()
            } else {
                format!("{n} bytes copied")
            }
        );
        return false;
    }
    true
}

#[cfg(test)]
mod tests {
    use libublk::sys;

    use crate::proto::{BLK_ZONE_BYTES, BLK_ZONE_TYPE_SEQWRITE_REQ, op};

    /// The codes `proto` spells out are the kernel's, as libublk's bindings generate them from
    /// ublk_cmd.h and linux/blkzoned.h.
    #[test]
    fn protocol_constants_match_the_kernel_headers() {
        assert_eq!(op::READ, sys::UBLK_IO_OP_READ);
        assert_eq!(op::WRITE, sys::UBLK_IO_OP_WRITE);
        assert_eq!(op::FLUSH, sys::UBLK_IO_OP_FLUSH);
        assert_eq!(op::DISCARD, sys::UBLK_IO_OP_DISCARD);
        assert_eq!(op::WRITE_SAME, sys::UBLK_IO_OP_WRITE_SAME);
        assert_eq!(op::WRITE_ZEROES, sys::UBLK_IO_OP_WRITE_ZEROES);
        assert_eq!(op::ZONE_OPEN, sys::UBLK_IO_OP_ZONE_OPEN);
        assert_eq!(op::ZONE_CLOSE, sys::UBLK_IO_OP_ZONE_CLOSE);
        assert_eq!(op::ZONE_FINISH, sys::UBLK_IO_OP_ZONE_FINISH);
        assert_eq!(op::ZONE_APPEND, sys::UBLK_IO_OP_ZONE_APPEND);
        assert_eq!(op::ZONE_RESET_ALL, sys::UBLK_IO_OP_ZONE_RESET_ALL);
        assert_eq!(op::ZONE_RESET, sys::UBLK_IO_OP_ZONE_RESET);
        assert_eq!(op::REPORT_ZONES, sys::UBLK_IO_OP_REPORT_ZONES);
        assert_eq!(BLK_ZONE_BYTES, std::mem::size_of::<sys::blk_zone>());
        assert_eq!(
            BLK_ZONE_TYPE_SEQWRITE_REQ as u32,
            sys::BLK_ZONE_TYPE_SEQWRITE_REQ
        );
        assert_eq!(sys::BLK_ZONE_COND_EXP_OPEN, 3);
        assert_eq!(sys::BLK_ZONE_COND_OFFLINE, 0xF);
    }

    /// `struct blk_zone` field offsets, as `proto::encode_blk_zone` writes them.
    #[test]
    fn blk_zone_field_offsets() {
        let z = sys::blk_zone::default();
        let base = &z as *const _ as usize;
        let at = |p: *const u8| p as usize - base;
        assert_eq!(at(&z.start as *const u64 as *const u8), 0);
        assert_eq!(at(&z.len as *const u64 as *const u8), 8);
        assert_eq!(at(&z.wp as *const u64 as *const u8), 16);
        assert_eq!(at(&z.type_ as *const u8), 24);
        assert_eq!(at(&z.cond as *const u8), 25);
        assert_eq!(at(&z.capacity as *const u64 as *const u8), 32);
    }
}
