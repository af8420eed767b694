//! The zoned file layer's report (`layers.fs` in summary.json): space, what it wrote and why, its
//! write amplification apart from the device's, zone resets and finishes, and GC. Plain data here
//! so the kernel can carry it (`host/fs/report.rs` fills it in).

use serde::{Deserialize, Serialize};

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
    /// F2FS with `fs.f2fs.dirty_sections`: why each foreground collection started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foreground_triggers: Option<FgTriggersReport>,
}

/// Why F2FS's foreground collections started, counted per victim (Linux 6.12's
/// `has_not_enough_free_secs`): free sections at or under the reserved ones plus the whole
/// sections the dirty pages fill, or, within one part section of that, a current log's section
/// without room for the dirty pages of its kind (the first such log counts).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FgTriggersReport {
    pub sections_needed: u64,
    pub hot_data_room: u64,
    pub warm_data_room: u64,
    pub cold_data_room: u64,
    pub hot_node_room: u64,
    pub warm_node_room: u64,
    pub cold_node_room: u64,
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
