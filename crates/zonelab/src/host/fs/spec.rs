//! The file layer's validated settings (built by `config::files` from an experiment's `[fs]`
//! table). Every default cites where it comes from or says it was chosen.

use crate::time::Duration;

/// File-layer block: 4 KiB (F2FS's block, ZenFS's usual device block).
pub const BLOCK_BYTES: u64 = 4096;

#[derive(Clone, Debug, PartialEq)]
pub struct FsSpec {
    /// The device zones the file layer owns: `first_zone..first_zone + zone_count`.
    pub first_zone: u32,
    pub zone_count: u32,
    pub personality: Personality,
    pub gc: GcSpec,
    pub cache: CacheSpec,
    pub cpu: CpuSpec,
    /// Largest device command the layer sends, in blocks (chosen 256 = 1 MiB: Linux's
    /// BIO_MAX_VECS of 256 pages per bio).
    pub max_io_blocks: u32,
    /// Writes go through the block layer's zone write plugs (`io/plug.rs`).
    pub zone_write_plug: bool,
    /// Carry file bytes to and from the device (the device keeps data).
    pub data: bool,
    /// What a write the device refuses does to the layer.
    pub on_zone_error: OnZoneError,
    /// Unmount once the file workloads end (`Fs::unmount`): the dirty pages written back and a
    /// checkpoint, as `umount` does at the end of a captured run.
    pub unmount: bool,
}

/// What the layer does when the device refuses one of its writes (`[fs] on_zone_error`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnZoneError {
    /// The caller gets the error, as Linux F2FS (EIO at fsync, or a stopped checkpoint) and
    /// RocksDB over ZenFS (a background error) give it (the default).
    #[default]
    Stop,
    /// The layer gives up the zone and writes the refused blocks elsewhere: a zone gone Read
    /// Only or Offline is retired for good; after a Write Fault, an Internal Error or a write
    /// the zone no longer takes, the zone is finished and stays in use (experiments/faults).
    Relocate,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Personality {
    Zenfs(ZenfsSpec),
    F2fs(F2fsSpec),
}

impl Personality {
    pub fn name(&self) -> &'static str {
        match self {
            Personality::Zenfs(_) => "zenfs",
            Personality::F2fs(_) => "f2fs",
        }
    }
}

/// ZenFS (westerndigitalcorporation/zenfs @919c2eb; docs/reference/host-stack.md (a)).
#[derive(Clone, Debug, PartialEq)]
pub struct ZenfsSpec {
    /// Metadata log zones at the start of the region (`ZENFS_META_ZONES` 3).
    pub meta_zones: u32,
    /// Zones kept from the device's open/active limits for metadata and GC (ZenFS reserves 2).
    pub reserved_zones: u32,
    /// mkfs `--finish_threshold` in percent of zone capacity (default 0 = off).
    pub finish_threshold_pct: u32,
    /// Per-file write buffer (1 MiB for buffered files).
    pub buffer_blocks: u32,
    /// mkfs `--enable_gc` (off by default).
    pub gc: bool,
    /// GC worker period (10 s).
    pub gc_interval: Duration,
    /// `GC_START_LEVEL` 20 (%) and `GC_SLOPE` 3.
    pub gc_start_level: u32,
    pub gc_slope: u32,
}

impl Default for ZenfsSpec {
    fn default() -> Self {
        ZenfsSpec {
            meta_zones: 3,
            reserved_zones: 2,
            finish_threshold_pct: 0,
            buffer_blocks: 256,
            gc: false,
            gc_interval: Duration::from_secs(10),
            gc_start_level: 20,
            gc_slope: 3,
        }
    }
}

/// F2FS in zoned mode (fs/f2fs, f2fs-tools; docs/reference/host-stack.md (b)).
#[derive(Clone, Debug, PartialEq)]
pub struct F2fsSpec {
    /// Segment: 512 blocks = 2 MiB.
    pub segment_blocks: u32,
    /// `active_logs` = 6 (hot/warm/cold x node/data).
    pub active_logs: u32,
    /// Sections (= zones) kept free for cleaning; None: mkfs.f2fs's computation.
    pub reserved_sections: Option<u32>,
    /// Over-provisioning in percent of the main area; None: mkfs.f2fs's best ratio.
    pub overprovision_pct: Option<f64>,
    /// Checkpoint period (`cp_interval` 60 s).
    pub cp_interval: Duration,
    /// Which kernel's background cleaner: [`F2fsGcMode`].
    pub gc_mode: F2fsGcMode,
    /// Background cleaner sleeps: zoned `DEF_GC_THREAD_MIN/MAX/NOGC_SLEEP_TIME_ZONED` 10 ms,
    /// 20 ms, 60 s; classic `DEF_GC_THREAD_MIN/MAX/NOGC_SLEEP_TIME` 30 s, 60 s, 300 s.
    pub bg_gc_min_sleep: Duration,
    pub bg_gc_max_sleep: Duration,
    pub bg_gc_nogc_sleep: Duration,
    /// Zoned mode: no background cleaning while free sections are above this share of all
    /// sections (`LIMIT_NO_ZONED_GC` 60, sysfs `gc_no_zoned_gc_percent`).
    pub no_zoned_gc_pct: u32,
    /// Zoned mode: boosted cleaning (greedy, a wider window, shorter sleeps) at or below this
    /// share (`LIMIT_BOOST_ZONED_GC` 25, sysfs `gc_boost_zoned_gc_percent`).
    pub boost_zoned_gc_pct: u32,
    /// Zoned mode: a boosted pass skips sections at least this full of valid blocks
    /// (`DEF_GC_THREAD_VALID_THRESH_RATIO` 95, sysfs `gc_valid_thresh_ratio`).
    pub valid_thresh_pct: u32,
    /// Zoned mode: segments one background pass migrates from its victim section
    /// (`DEF_MIGRATION_WINDOW_GRANULARITY_ZONED` 3, sysfs `migration_window_granularity`), times
    /// `BOOST_GC_MULTIPLE` (5) when boosted; the next pass goes on where it stopped.
    pub migration_window_segments: u32,
    /// Fixed-location metadata (CP, SIT, NAT, SSA) go to a separate conventional device, as
    /// `mkfs.f2fs -m -c zns regular` sets it up. It is modelled as a queue with this latency
    /// per request and this rate (chosen: a conventional NVMe SSD's ~20 us write, 2000 MB/s).
    pub meta_latency: Duration,
    pub meta_rate_mb_s: u64,
    /// Foreground cleaning counts what the dirty pages need, as Linux 6.12.95 does
    /// (`gc::f2fs::has_not_enough_free_secs`); off (the default): the reserved sections alone.
    /// Off by default until the comparison with real F2FS settles it (experiments/rezns/README.md,
    /// "The write-volume gap").
    pub dirty_sections: bool,
}

impl Default for F2fsSpec {
    fn default() -> Self {
        let zoned_sleeps = F2fsGcMode::Zoned.sleeps();
        F2fsSpec {
            segment_blocks: 512,
            active_logs: 6,
            reserved_sections: None,
            overprovision_pct: None,
            cp_interval: Duration::from_secs(60),
            gc_mode: F2fsGcMode::Zoned,
            bg_gc_min_sleep: zoned_sleeps.0,
            bg_gc_max_sleep: zoned_sleeps.1,
            bg_gc_nogc_sleep: zoned_sleeps.2,
            no_zoned_gc_pct: 60,
            boost_zoned_gc_pct: 25,
            valid_thresh_pct: 95,
            migration_window_segments: 3,
            meta_latency: Duration::from_us(20),
            meta_rate_mb_s: 2000,
            dirty_sections: false,
        }
    }
}

/// F2FS's background cleaner, by kernel (fs/f2fs/gc.c and gc.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum F2fsGcMode {
    /// Linux 6.12 and later on a zoned device ("f2fs: make BG GC more aggressive for zoned
    /// devices", Daeho Jeong, 2024): the cleaner wakes every 10-20 ms whenever free sections are
    /// at most 60% of all, runs unless a read is in flight (no idle time needed), migrates a
    /// window of 3 segments per pass by cost-benefit, and at 25% or fewer free sections runs
    /// greedy, synchronous passes of 15 segments that skip sections 95% valid or more.
    Zoned,
    /// Linux 5.16: sleeps of 30-60 s, runs only after 5 s without I/O and when
    /// `has_enough_invalid_blocks`, one whole section per pass by cost-benefit.
    Classic,
}

impl F2fsGcMode {
    /// The cleaner's (min, max, no-GC) sleeps in this mode (gc.h).
    pub fn sleeps(self) -> (Duration, Duration, Duration) {
        match self {
            F2fsGcMode::Zoned => (
                Duration::from_ms(10),
                Duration::from_ms(20),
                Duration::from_secs(60),
            ),
            F2fsGcMode::Classic => (
                Duration::from_secs(30),
                Duration::from_secs(60),
                Duration::from_secs(300),
            ),
        }
    }
}

/// mkfs.f2fs's reserved segments and over-provisioning for a main area of `main_segs` segments
/// in sections of `segs_per_sec` (f2fs-tools 1.14 `get_best_overprovision`: the ratio from
/// 0.01% to 10% in 0.01% steps that leaves users the most space, reserved =
/// (2 x (100 / ovp + 1) + 6) sections). Returns (reserved segments, over-provision segments
/// including the reserved ones), or None if no ratio leaves any space.
pub fn f2fs_mkfs_space(main_segs: u64, segs_per_sec: u64, ovp: Option<f64>) -> Option<(u64, u64)> {
    let main = main_segs as f64;
    let reserved_for = |c: f64| (2.0 * (100.0 / c + 1.0) + 6.0) * segs_per_sec as f64;
    let best = match ovp {
        Some(c) => c,
        None => {
            let (mut best, mut best_space) = (0.0, 0.0);
            let (mut c, end, step) = if main_segs < 256 {
                (10.0, 95.0, 5.0)
            } else {
                (0.01, 10.0, 0.01)
            };
            while c <= end + 1e-9 {
                let r = reserved_for(c);
                let space = main - r - (main - r) * c / 100.0;
                if space > best_space {
                    best_space = space;
                    best = c;
                }
                c += step;
            }
            best
        }
    };
    if best <= 0.0 {
        return None;
    }
    let reserved = reserved_for(best);
    if reserved >= main {
        return None;
    }
    let ovp_segs = ((main - reserved) * best / 100.0) as u64;
    Some((reserved as u64, ovp_segs + reserved as u64))
}

/// Which zone GC runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GcPolicyKind {
    /// The personality's own: ZenFS's GC worker (if enabled), F2FS's cleaner.
    Native,
    /// No GC: space comes back only when whole zones die.
    None,
    /// Basic_ZGC (Choi et al., LSM-ZGC, HotStorage 2020): copy valid runs, reset the victim.
    BasicZgc,
    /// LSM_ZGC (Choi et al., LSM-ZGC, HotStorage 2020): large reads, C0/C1C/C1H/C2 levels.
    LsmZgc,
}

impl GcPolicyKind {
    pub fn name(self) -> &'static str {
        match self {
            GcPolicyKind::Native => "native",
            GcPolicyKind::None => "none",
            GcPolicyKind::BasicZgc => "basic_zgc",
            GcPolicyKind::LsmZgc => "lsm_zgc",
        }
    }
}

/// How a victim zone is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Victim {
    /// Fewest live blocks.
    Greedy,
    /// Most (1 - u) x age / (1 + u) (Rosenblum's LFS, F2FS's `get_cb_cost`).
    CostBenefit,
}

/// Where LSM_ZGC without separation appends the blocks it moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Survivors {
    /// A log of their own (C1C), apart from user writes.
    GcLog,
    /// The data log the file's user writes go to (F2FS-like), mixed with new data: a baseline
    /// with no separation by age at all (chosen, to test what the slides' "without" may be).
    UserLog,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GcSpec {
    pub policy: GcPolicyKind,
    /// Victim choice for Basic_ZGC and LSM_ZGC (F2FS's cleaner uses greedy in the foreground and
    /// cost-benefit in the background whatever this says).
    pub victim: Victim,
    /// LSM_ZGC segment, in blocks (the slides: 2 MiB).
    pub segment_blocks: u32,
    /// LSM_ZGC: a C0 segment above this utilisation is cold (the slides evaluate 0.8).
    pub threshold_cold: f64,
    /// LSM_ZGC hot/cold separation (off: every survivor goes to one class, as Basic_ZGC does).
    pub separate: bool,
    /// LSM_ZGC without separation: where survivors go.
    pub survivors: Survivors,
    /// GC read and write unit, in blocks (the authors' simulator: 128 KiB = 32 blocks).
    pub io_blocks: u32,
    /// GC reads in flight (chosen 1: the authors' code reads synchronously).
    pub read_depth: u32,
    /// Basic_ZGC and LSM_ZGC: the background collector runs while free zones are at most this
    /// (chosen), and writers stop to collect when at most `fg_free_zones` are left (chosen).
    pub bg_free_zones: u32,
    pub fg_free_zones: u32,
}

impl Default for GcSpec {
    fn default() -> Self {
        GcSpec {
            policy: GcPolicyKind::Native,
            victim: Victim::Greedy,
            segment_blocks: 512,
            threshold_cold: 0.8,
            separate: true,
            survivors: Survivors::GcLog,
            io_blocks: 32,
            read_depth: 1,
            bg_free_zones: 4,
            fg_free_zones: 2,
        }
    }
}

/// The page cache and its writeback (Linux defaults; ZenFS bypasses the page cache).
#[derive(Clone, Debug, PartialEq)]
pub struct CacheSpec {
    /// Clean and dirty file pages kept (chosen: 4 GiB, a tenth of ReZNS's 40 GB server).
    pub page_cache_bytes: u64,
    /// Background writeback starts above this many dirty bytes (`dirty_background_ratio` 10%
    /// of that memory, chosen 4 GiB), and writers wait above `dirty_limit_bytes`
    /// (`dirty_ratio` 20%: 8 GiB).
    pub dirty_background_bytes: u64,
    pub dirty_limit_bytes: u64,
    /// Dirty data older than this is written back (`dirty_expire_centisecs` 3000).
    pub dirty_expire: Duration,
    /// The flusher wakes this often (`dirty_writeback_centisecs` 500).
    pub writeback_interval: Duration,
}

impl CacheSpec {
    pub fn linux() -> Self {
        CacheSpec {
            page_cache_bytes: 4 << 30,
            dirty_background_bytes: 4 << 30,
            dirty_limit_bytes: 8 << 30,
            dirty_expire: Duration::from_secs(30),
            writeback_interval: Duration::from_secs(5),
        }
    }

    /// No page cache: ZenFS's own per-file buffers only.
    pub fn none() -> Self {
        CacheSpec {
            page_cache_bytes: 0,
            dirty_background_bytes: u64::MAX,
            dirty_limit_bytes: u64::MAX,
            dirty_expire: Duration::from_secs(u64::MAX / 2_000_000_000),
            writeback_interval: Duration::ZERO,
        }
    }
}

/// Host CPU the file layer uses, on the modelled cores (all chosen: orders of magnitude of a
/// Linux system call, a metadata operation, a memory copy and block-layer submission).
#[derive(Clone, Debug, PartialEq)]
pub struct CpuSpec {
    /// Every call (system call and VFS): 1 us.
    pub call: Duration,
    /// Create, delete, rename, mkdir on top: 10 us.
    pub metadata: Duration,
    /// Copying data between the caller and the page cache, per KiB: 0.1 us (10 GB/s).
    pub copy_per_kib_ns: u64,
    /// Each device command submitted: 2 us.
    pub submit: Duration,
    /// GC bookkeeping per block moved: 0.2 us.
    pub gc_per_block_ns: u64,
}

impl Default for CpuSpec {
    fn default() -> Self {
        CpuSpec {
            call: Duration::from_us(1),
            metadata: Duration::from_us(10),
            copy_per_kib_ns: 100,
            submit: Duration::from_us(2),
            gc_per_block_ns: 200,
        }
    }
}

impl FsSpec {
    /// F2FS over zones `first..first + count` with every default.
    pub fn f2fs(first_zone: u32, zone_count: u32) -> Self {
        FsSpec {
            first_zone,
            zone_count,
            personality: Personality::F2fs(F2fsSpec::default()),
            gc: GcSpec::default(),
            cache: CacheSpec::linux(),
            cpu: CpuSpec::default(),
            max_io_blocks: 256,
            zone_write_plug: false,
            data: false,
            on_zone_error: OnZoneError::Stop,
            unmount: false,
        }
    }

    /// ZenFS over zones `first..first + count` with every default.
    pub fn zenfs(first_zone: u32, zone_count: u32) -> Self {
        FsSpec {
            first_zone,
            zone_count,
            personality: Personality::Zenfs(ZenfsSpec::default()),
            gc: GcSpec::default(),
            cache: CacheSpec::none(),
            cpu: CpuSpec::default(),
            max_io_blocks: 256,
            zone_write_plug: false,
            data: false,
            on_zone_error: OnZoneError::Stop,
            unmount: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mkfs_space_for_rezns_40g_matches_the_formula() {
        // 640 sections of 32 segments (64 MiB zones).
        let (rsvd, ovp) = f2fs_mkfs_space(640 * 32, 32, None).unwrap();
        // The best ratio is near 5.6%: about 44 reserved sections, 35 GiB left to users.
        assert!((1350..1450).contains(&rsvd), "{rsvd}");
        let user_gib = (640 * 32 - ovp) as f64 * 2.0 / 1024.0;
        assert!((34.5..35.8).contains(&user_gib), "{user_gib}");
        assert!(
            f2fs_mkfs_space(16 * 512, 512, None).is_none(),
            "too few 1 GiB sections"
        );
    }
}
