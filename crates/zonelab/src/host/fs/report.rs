//! Fills in the file layer's report (`layers.fs` in summary.json; its plain data is
//! [`crate::device::report::fs`]) from the layer's state and counters.

use super::space::Role;
use super::{BLOCK_BYTES, Inner};
use crate::device::report::fs::{FgTriggersReport, FsReport, GcReport, ZoneErrorReport};

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
        foreground_triggers: counts_triggers(fs).then(|| {
            let [
                hot_data,
                warm_data,
                cold_data,
                hot_node,
                warm_node,
                cold_node,
            ] = s.fg_triggers.log_room;
            FgTriggersReport {
                sections_needed: s.fg_triggers.sections_needed,
                hot_data_room: hot_data,
                warm_data_room: warm_data,
                cold_data_room: cold_data,
                hot_node_room: hot_node,
                warm_node_room: warm_node,
                cold_node_room: cold_node,
            }
        }),
    }
}

/// F2FS's own cleaner counting dirty sections ([`super::gc::f2fs::note_trigger`]).
fn counts_triggers(fs: &Inner) -> bool {
    matches!(&fs.spec.personality, super::Personality::F2fs(f) if f.dirty_sections)
        && fs.spec.gc.policy == super::GcPolicyKind::Native
}
