//! The file layer's report (`layers.fs` in summary.json): space, what it wrote and why, its
//! write amplification apart from the device's, zone resets and finishes, and GC.

use serde::{Deserialize, Serialize};

use super::space::Role;
use super::{BLOCK_BYTES, Inner};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GcReport {
    pub policy: String,
    pub runs_foreground: u64,
    pub runs_background: u64,
    pub zones_collected: u64,
    /// Simulated time spent collecting (victim chosen to victim reset), all of it and the part
    /// writers waited for.
    pub time_ns: u64,
    pub foreground_time_ns: u64,
    pub bytes_read: u64,
    /// Bytes GC read that held no live data (LSM_ZGC reads units whole).
    pub dead_bytes_read: u64,
    /// Live bytes GC took from clean cached pages without reading them (F2FS).
    #[serde(default)]
    pub bytes_from_cache: u64,
    pub bytes_written: u64,
    /// Victims by live share when chosen: 0-10%, 10-20%, ... 100%.
    pub victim_utilisation_tenths: Vec<u64>,
    /// LSM_ZGC: bytes copied into C1C, C1H and C2 (Basic_ZGC's one level counts as C1C).
    pub c1c_bytes: u64,
    pub c1h_bytes: u64,
    pub c2_bytes: u64,
}

/// What `on_zone_error = "relocate"` did (absent with "stop").
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ZoneErrorReport {
    /// Writes the device refused, and the zones given up for them: retired (Read Only,
    /// Offline) or finished and kept (Write Fault, Internal Error).
    pub writes_refused: u64,
    pub zones_retired: u64,
    pub zones_finished: u64,
    /// Bytes of refused writes written again elsewhere.
    pub bytes_relocated: u64,
    /// Live bytes of Offline zones written again from memory, and those lost with the zone.
    pub bytes_recovered: u64,
    pub bytes_lost: u64,
    /// Reads refused because their zone was Offline.
    pub reads_refused: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FsReport {
    pub personality: String,
    pub zones: u32,
    pub zone_capacity_bytes: u64,
    pub capacity_bytes: u64,
    pub used_bytes: u64,
    pub live_bytes: u64,
    pub free_zones: u32,
    pub files: u64,
    /// Bytes callers wrote and read.
    pub user_write_bytes: u64,
    pub user_read_bytes: u64,
    /// Bytes the layer wrote to the device: file data, GC copies, its own metadata (node and
    /// dentry blocks, the ZenFS log); and metadata written to F2FS's conventional device.
    pub data_bytes_written: u64,
    pub gc_bytes_written: u64,
    pub meta_bytes_written: u64,
    pub meta_device_bytes: u64,
    /// GC bytes / file data bytes written.
    pub gc_write_amplification: Option<f64>,
    /// All bytes the layer wrote to the zoned device / file data bytes written.
    pub write_amplification: Option<f64>,
    pub device_reads: u64,
    pub zone_resets: u64,
    pub zone_finishes: u64,
    /// Room left unwritten in finished zones.
    pub finish_padding_bytes: u64,
    pub checkpoints: u64,
    pub metadata_records: u64,
    pub metadata_log_rolls: u64,
    pub dirty_throttles: u64,
    pub writeback_bytes: u64,
    pub gc: GcReport,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone_errors: Option<ZoneErrorReport>,
    /// Extents in all files, reverse-map runs in all zones, and the zone table's bytes.
    pub extents: u64,
    pub reverse_map_runs: u64,
    pub zone_table_bytes: u64,
}

pub(super) fn make(fs: &Inner) -> FsReport {
    let st = fs.st.borrow();
    let s = &st.stats;
    let b = BLOCK_BYTES;
    let ratio =
        |a: u64| (s.data_blocks_written > 0).then(|| a as f64 / s.data_blocks_written as f64);
    let files = st.inodes.iter().flatten().filter(|i| !i.is_dir()).count() as u64;
    FsReport {
        personality: fs.spec.personality.name().into(),
        zones: st.space.count(),
        zone_capacity_bytes: st.space.zones.first().map_or(0, |z| z.cap as u64 * b),
        capacity_bytes: st.capacity_blocks * b,
        used_bytes: st.used_blocks * b,
        live_bytes: st
            .space
            .zones
            .iter()
            .filter(|z| z.role != Role::Meta)
            .map(|z| z.valid as u64)
            .sum::<u64>()
            * b,
        free_zones: st.space.free_count(),
        files,
        user_write_bytes: s.user_write_bytes,
        user_read_bytes: s.user_read_bytes,
        data_bytes_written: s.data_blocks_written * b,
        gc_bytes_written: s.gc_blocks_written * b,
        meta_bytes_written: s.meta_blocks_written * b,
        meta_device_bytes: s.meta_device_bytes,
        gc_write_amplification: ratio(s.gc_blocks_written),
        write_amplification: ratio(
            s.data_blocks_written + s.gc_blocks_written + s.meta_blocks_written,
        ),
        device_reads: s.device_reads,
        zone_resets: s.zone_resets,
        zone_finishes: s.zone_finishes,
        finish_padding_bytes: s.finish_padding_blocks * b,
        checkpoints: s.checkpoints,
        metadata_records: st.zen.records,
        metadata_log_rolls: st.zen.rolls,
        dirty_throttles: s.dirty_throttles,
        writeback_bytes: s.writeback_blocks * b,
        gc: gc_report(fs, s),
        zone_errors: (fs.spec.on_zone_error == super::OnZoneError::Relocate).then(|| {
            let e = &s.zone_errors;
            ZoneErrorReport {
                writes_refused: e.writes_refused,
                zones_retired: e.zones_retired,
                zones_finished: e.zones_finished,
                bytes_relocated: e.blocks_relocated * b,
                bytes_recovered: e.blocks_recovered * b,
                bytes_lost: e.blocks_lost * b,
                reads_refused: e.reads_refused,
            }
        }),
        extents: st
            .inodes
            .iter()
            .flatten()
            .map(|i| i.map.run_count() as u64)
            .sum(),
        reverse_map_runs: st.space.zones.iter().map(|z| z.rev_len() as u64).sum(),
        zone_table_bytes: st.space.memory_bytes(),
    }
}

/// The GC part of the report.
fn gc_report(fs: &Inner, s: &super::state::Stats) -> GcReport {
    let b = BLOCK_BYTES;
    GcReport {
        policy: match fs.spec.gc.policy {
            super::GcPolicyKind::Native => format!("native ({})", fs.spec.personality.name()),
            k => k.name().into(),
        },
        runs_foreground: s.gc_runs_fg,
        runs_background: s.gc_runs_bg,
        zones_collected: s.gc_zones,
        time_ns: s.gc_ns,
        foreground_time_ns: s.gc_fg_ns,
        bytes_read: s.gc_blocks_read * b,
        dead_bytes_read: s.gc_dead_blocks_read * b,
        bytes_from_cache: s.gc_blocks_from_cache * b,
        bytes_written: s.gc_blocks_written * b,
        victim_utilisation_tenths: s.victim_util_tenths.to_vec(),
        c1c_bytes: s.gc_class_blocks[1] * b,
        c1h_bytes: s.gc_class_blocks[2] * b,
        c2_bytes: s.gc_class_blocks[3] * b,
    }
}
