//! When GC runs: foreground balancing and making room for a write, waking the policy, and the
//! threshold daemon.

use std::rc::Rc;

use super::{collect, f2fs, zenfs};
use crate::host::fs::io;
use crate::host::fs::{FsError, GcPolicyKind, Inner, Personality};
use crate::sim::host::Host;
use crate::time::Duration;

/// A writer about to write (the F2FS personality; ZenFS makes room as it takes a zone):
/// Linux 6.12's `f2fs_balance_fs` and the `f2fs_gc` it calls (BG_GC with `no_bg_gc`,
/// `nr_free_secs` 1; fs/f2fs/segment.c, gc.c). Free sections are counted without the prefree
/// ones (emptied, waiting for a checkpoint): a writer that finds too few takes the GC lock;
/// if there are still too few, it checkpoints (prefree sections become free) and then always
/// collects one victim, stopping once the free sections with the ones it freed are enough.
/// What it freed stays prefree until the next writer's call, so each writer that queued on
/// the lock collects a section, and a prefree section is held from use most of the time.
pub(crate) async fn balance(fs: &Rc<Inner>, h: &Host) -> Result<(), FsError> {
    let wanted = |freed: u32| {
        let st = fs.st.borrow();
        fs.gc.borrow().fg_wanted_with(fs, &st, freed)
    };
    let checkpoint_if_prefree = async || -> Result<(), FsError> {
        if fs.st.borrow().dead.is_empty() {
            return Ok(());
        }
        Box::pin(crate::host::fs::f2fs::checkpoint(fs, h)).await
    };
    if !wanted(0) {
        return Ok(());
    }
    let _g = fs.gc_lock.lock(h).await;
    loop {
        if !wanted(0) {
            return Ok(());
        }
        f2fs::note_trigger(fs, &mut fs.st.borrow_mut());
        checkpoint_if_prefree().await?;
        let victim = {
            let st = fs.st.borrow();
            fs.gc.borrow_mut().victim(fs, &st, true, h.now())
        };
        let Some(v) = victim else {
            return Ok(());
        };
        collect(fs, &fs.gc_host, v, true).await?;
        let freed = (fs.st.borrow().space.zones[v as usize].valid == 0) as u32;
        if !wanted(freed) {
            return Ok(());
        }
        // Still short: `free_sections <= upper_secs + NR_GC_CHECKPOINT_SECS` holds, so a
        // checkpoint frees what this call emptied before the next victim.
        checkpoint_if_prefree().await?;
    }
}

/// An allocation found no room: make some (a checkpoint or reset for dead zones, else a
/// collection). False: nothing can be freed.
pub(crate) async fn make_room(fs: &Rc<Inner>, h: &Host) -> Result<bool, FsError> {
    let (dead, cp_seen) = {
        let st = fs.st.borrow();
        (!st.dead.is_empty(), st.stats.checkpoints)
    };
    if dead {
        match fs.spec.personality {
            Personality::F2fs(_) => {
                Box::pin(crate::host::fs::f2fs::checkpoint_after(fs, h, cp_seen)).await?
            }
            Personality::Zenfs(_) => io::reset_dead(fs, h).await?,
        }
        return Ok(true);
    }
    let generation = fs.st.borrow().generation;
    let _g = fs.gc_lock.lock(h).await;
    if fs.st.borrow().generation != generation {
        // Another task freed space while this one waited for the lock.
        return Ok(true);
    }
    let victim = {
        let st = fs.st.borrow();
        let now = h.now();
        fs.gc.borrow_mut().victim(fs, &st, true, now)
    };
    match victim {
        Some(v) => {
            collect(fs, &fs.gc_host, v, true).await?;
            Ok(true)
        }
        None => Ok(false),
    }
}

/// Wakes the background collector if its policy wants to run.
pub(crate) fn kick(fs: &Inner, h: &Host) {
    let want = {
        let st = fs.st.borrow();
        fs.gc.borrow().bg_wanted(fs, &st)
    };
    if want {
        fs.gc_cv.notify_all(h);
    }
}

/// Starts the policy's background collector.
pub(crate) fn spawn_daemon(fs: &Rc<Inner>) {
    let kind = fs.gc.borrow().kind();
    let f = fs.clone();
    match kind {
        GcPolicyKind::None => {}
        GcPolicyKind::BasicZgc | GcPolicyKind::LsmZgc => {
            fs.host
                .spawn("fs.gc", true, async move { threshold_daemon(f).await });
        }
        GcPolicyKind::Native => match fs.spec.personality {
            Personality::F2fs(_) => {
                fs.host
                    .spawn("fs.gc", true, async move { f2fs::bg_daemon(f).await });
            }
            Personality::Zenfs(_) => {
                fs.host
                    .spawn("fs.gc", true, async move { zenfs::gc_worker(f).await });
            }
        },
    }
}

/// Basic_ZGC and LSM_ZGC's collector: runs while free zones are at or below the policy's
/// background threshold, one victim after another; woken when writers use zones up.
async fn threshold_daemon(fs: Rc<Inner>) {
    let h = fs.gc_host.clone();
    loop {
        let want = {
            let st = fs.st.borrow();
            fs.gc.borrow().bg_wanted(&fs, &st)
        };
        if !want {
            io::notified_or(&h, &fs.gc_cv, h.now() + Duration::from_ms(100)).await;
            continue;
        }
        // F2FS frees dead sections only at a checkpoint.
        let (dead, cp_seen) = {
            let st = fs.st.borrow();
            (!st.dead.is_empty(), st.stats.checkpoints)
        };
        if dead && matches!(fs.spec.personality, Personality::F2fs(_)) {
            if crate::host::fs::f2fs::checkpoint_after(&fs, &h, cp_seen)
                .await
                .is_err()
            {
                h.sleep(Duration::from_ms(100)).await;
            }
            continue;
        }
        let _g = fs.gc_lock.lock(&h).await;
        let victim = {
            let st = fs.st.borrow();
            let now = h.now();
            fs.gc.borrow_mut().victim(&fs, &st, false, now)
        };
        match victim {
            Some(v) => {
                if collect(&fs, &h, v, false).await.is_err() {
                    drop(_g);
                    h.sleep(Duration::from_ms(100)).await;
                }
            }
            None => {
                drop(_g);
                io::notified_or(&h, &fs.gc_cv, h.now() + Duration::from_ms(100)).await;
            }
        }
    }
}
