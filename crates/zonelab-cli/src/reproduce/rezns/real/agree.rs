//! Real F2FS beside the F2FS-like layer: the statistics compared, the tolerances a test holds
//! the layer to (and the differences known to leave them), and docs/real-f2fs.md.

use std::fmt::Write as _;

use zonelab::trace::stats::TraceStats;

use super::WORKLOADS;

fn gib(b: u64) -> f64 {
    b as f64 / (1u64 << 30) as f64
}

/// One statistic of a trace.
type Stat = fn(&TraceStats) -> f64;

/// The statistics compared, as (name, real F2FS's value, the F2FS-like layer's).
pub fn compared(real: &TraceStats, like: &TraceStats) -> Vec<(&'static str, f64, f64)> {
    let rows: [(&str, Stat); 9] = [
        ("GiB written to the device", |s| gib(s.write_bytes)),
        ("mean write, KiB", |s| s.mean_write_bytes() / 1024.0),
        ("GiB read back (cleaning)", |s| gib(s.read_bytes)),
        ("flushes", |s| s.flushes as f64),
        ("zones opened", |s| s.zones_opened as f64),
        ("zones written to capacity", |s| s.zones_filled as f64),
        ("zone resets", |s| s.resets as f64),
        ("resets per GiB written", |s| s.resets_per_gib()),
        ("resets of zones not full, %", |s| {
            100.0 * s.partial_reset_share()
        }),
    ];
    rows.into_iter()
        .map(|(name, f)| (name, f(real), f(like)))
        .collect()
}

fn num(v: f64) -> String {
    if v == v.trunc() && v.abs() < 1e9 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// The statistics a test holds the F2FS-like layer to, with their tolerances: what decides
/// ReZNS's gain (how full the zones were when reset; how often a zone is reset for the data
/// written), how fsync reaches the device, what cleaning reads back (the blocks it moves that
/// are not in the page cache), and the size of the commands (F2FS's writes merged at the block
/// layer's zone write plugs).
pub const AGREE: [(&str, Tolerance); 5] = [
    ("resets of zones not full, %", Tolerance::Points(5.0)),
    ("resets per GiB written", Tolerance::Relative(0.25)),
    ("flushes", Tolerance::Points(0.0)),
    ("GiB read back (cleaning)", Tolerance::Relative(0.25)),
    ("mean write, KiB", Tolerance::Relative(0.25)),
];

/// Where the F2FS-like layer is known to leave a tolerance of [`AGREE`]: (workload, statistic,
/// what was measured). The test fails on any other, and on one of these agreeing again (so the
/// list stays true).
pub const KNOWN: [(&str, &str, &str); 3] = [
    (
        "db_bench",
        "resets per GiB written",
        "real F2FS wrote 1.91 GiB to the device and reset 20 zones, the F2FS-like layer under \
         the RocksDB-like store 1.30 GiB and 9 (resets per GiB 10.45 against 6.93; RocksDB's \
         directory fsync after each flush and compaction is an F2FS checkpoint in both, 14 in \
         the layer's run, and it resets what the deleted tables emptied). The gap is time, not \
         the layer: the real run took 318 s of emulated wall time where the model takes 11 s, \
         so Linux's 30 s page-cache expiry wrote back write-ahead logs that the model deletes \
         before they expire; with the expiry scaled to the model's time \
         (fs.cache.dirty_expire = 1 s, writeback_interval = 160 ms) the layer writes 1.72 GiB \
         and resets 16 zones, 9.30 per GiB, within 25% of real F2FS",
    ),
    (
        "varmail",
        "mean write, KiB",
        "real F2FS's commands average 16.6 KiB, the layer's 7.7: the layer sends 48,006 \
         commands for 361 MiB, real F2FS 22,218 for 360 MiB. The layer's node-log zone takes \
         16,036 commands of 1.02 blocks on average, where no zone of real F2FS's trace with more \
         than ten commands averages under 2.2 blocks a command: real F2FS's node writes merge. \
         The host's pace is not the cause: in 60-s runs with the host's time per file call at \
         42, 200 and 800 us (772,511 to 75,944 writes, the last near the capture's 2,600 \
         operations a second) the layer's writes average 7.60, 7.59 and 7.67 KiB. The device's \
         pace is: a write in flight holds its zone's plug, and with 100 or 300 us added to each \
         write (a stand-in for the capture VM's block path, ublk under emulation, where fio's \
         fsyncs took 10x the layer's) the writes that queue behind it merge, to 8.19 and 17.82 \
         KiB (experiments/rezns/real-f2fs/varmail-pace.sh): the capture's slow I/O path alone can \
         make the gap. The shipped configuration keeps the preset's write time",
    ),
    (
        "varmail",
        "resets per GiB written",
        "real F2FS reset no zone in varmail, its unmount included; the layer resets 3 (8.5 per \
         GiB), all at the unmount's checkpoint, of sections every block of which varmail's \
         deletes and rewrites had left dead: zones 17 and 22 of its data logs and zone 20 of its \
         node log (16,036 commands of 1.02 blocks). Before the layer unmounted at the end (as \
         the capture does) it made no checkpoint in its 3.5 s, and so no reset. Not the order \
         in which Filebench picks files: the layer's Filebench picks them in rotation as \
         Filebench 1.5 does (fileset.c `fileset_pick`) since 2026-12-01, where it picked at \
         random, and the same three zones die. Which sections real F2FS left partly valid, and \
         why, is not yet measured",
    ),
];

#[derive(Clone, Copy, Debug)]
pub enum Tolerance {
    /// Within this many units (percentage points for a share).
    Points(f64),
    /// Within this share of real F2FS's value.
    Relative(f64),
}

impl Tolerance {
    pub fn holds(self, real: f64, like: f64) -> bool {
        match self {
            Tolerance::Points(p) => (like - real).abs() <= p,
            Tolerance::Relative(r) => (like - real).abs() <= r * real.abs(),
        }
    }
}

/// Each statistic for each workload, real F2FS beside the F2FS-like layer, and what a test holds
/// the layer to.
pub(super) fn stats_table(real: &[TraceStats], like: &[TraceStats]) -> String {
    let mut s = String::from("| statistic |");
    for name in WORKLOADS {
        let _ = write!(s, " {name}: real | F2FS-like |");
    }
    s += " held to |\n|---|";
    s += &"---:|---:|".repeat(WORKLOADS.len());
    s += "---|\n";
    let tables: Vec<_> = real.iter().zip(like).map(|(r, l)| compared(r, l)).collect();
    for (i, (name, _, _)) in tables[0].iter().enumerate() {
        let _ = write!(s, "| {name} |");
        for t in &tables {
            let _ = write!(s, " {} | {} |", num(t[i].1), num(t[i].2));
        }
        let held =
            AGREE
                .iter()
                .find(|a| a.0 == *name)
                .map_or("not yet (open)".to_string(), |&(_, t)| {
                    let off: Vec<String> = WORKLOADS
                        .iter()
                        .zip(&tables)
                        .filter(|(_, row)| !t.holds(row[i].1, row[i].2))
                        .map(|(w, _)| {
                            let known = KNOWN.iter().any(|k| k.0 == *w && k.1 == *name);
                            if known {
                                format!("{w} (known)")
                            } else {
                                w.to_string()
                            }
                        })
                        .collect();
                    let within = match t {
                        Tolerance::Points(p) => format!("within {p} of real"),
                        Tolerance::Relative(r) => format!("within {:.0}% of real", r * 100.0),
                    };
                    if off.is_empty() {
                        format!("{within}: holds")
                    } else {
                        format!("{within}: holds but for {}", off.join(", "))
                    }
                });
        let _ = writeln!(s, " {held} |");
    }
    s
}

#[cfg(test)]
mod tests {
    use anyhow::{Context, Result};
    use zonelab::config::ExperimentConfig;
    use zonelab::trace::stats::Phase;

    use super::super::{REPLAY, SCALE, SLUGS, TRACES, run_traced, runs};
    use super::*;
    use crate::reproduce::parallel;

    /// F2FS's own counters after the fio fsync 16 workload of a recapture (debugfs f2fs/status,
    /// `experiments/rezns/capture.sh` keeps it beside the trace).
    const FSYNC16_STATUS: &str = include_str!(
        "../../../../../../experiments/rezns/real-f2fs/traces/fsync16.f2fs-status.txt"
    );

    /// The two numbers of line `name` (`name: a (BG: b)`) in a debugfs status, after the
    /// workload.
    fn status_field(status: &str, name: &str) -> Option<(u64, u64)> {
        let after = status.split("== after the workload").nth(1)?;
        let line = after.lines().find(|l| l.trim_start().starts_with(name))?;
        let rest = line.split_once(':')?.1;
        let mut nums = rest
            .split(|c: char| !c.is_ascii_digit())
            .filter(|t| !t.is_empty())
            .map(|t| t.parse::<u64>());
        Some((nums.next()?.ok()?, nums.next()?.ok()?))
    }

    /// What F2FS's cleaner did, from its debugfs status: (data blocks moved, data sections
    /// collected, of them by the background thread), counted after the workload.
    fn cleaner_counts(status: &str) -> Option<(u64, u64, u64)> {
        let (blocks, _) = status_field(status, "- data blocks")?;
        let (sections, bg) = status_field(status, "- data sections")?;
        Some((blocks, sections, bg))
    }

    /// The statistics of each committed trace's workload (after its marker), straight from the file.
    fn captured() -> Result<Vec<TraceStats>> {
        let cfg = ExperimentConfig::parse(REPLAY, &[])?;
        let exp = cfg.validate_device("rezns-real-f2fs-replay")?;
        TRACES
            .iter()
            .zip(SLUGS)
            .map(|(t, slug)| {
                crate::trace_stats::of_text(zonelab_io::gunzip(t), &exp, Phase::AfterMarker)
                    .with_context(|| format!("trace {slug}"))
            })
            .collect()
    }

    /// docs/real-f2fs.md: what real F2FS did (the committed traces) beside the F2FS-like layer.
    fn doc(real: &[TraceStats], like: &[TraceStats]) -> String {
        let mut s = String::from(
            "# What real F2FS sends a zoned device\n\n\
             Linux's own F2FS on `zonelab ublk` in the test VM, running ReZNS's fio workloads (4 KiB\n\
             random writes at QD1, an fsync every 16, 64 or 128 writes, three consecutive runs),\n\
             Filebench 1.5's varmail and fileserver (60 s each, the paper's parameters; fileserver's\n\
             file count cut so its files fit, fb_nfiles below) and real db_bench (fillrandom, then\n\
             overwrite), each on a fresh file system over rezns-40g cut to 64 zones of 64 MiB (no zone\n\
             limit, as NVMeVirt), prefilled to half of what F2FS offers. The F2FS-like layer runs\n\
             Filebench for as many operations as the capture did (Filebench's IO Summary), not for\n\
             60 s: the VM ran it at emulation speed, about 2,600 operations a second.\n\
             Each capture ends with an unmount, which writes back what the page cache still holds\n\
             and checkpoints; so do the layer's fio and Filebench runs (`fs.unmount = true`, all\n\
             files written back together: Linux's WB_SYNC_ALL). Filebench's set-up closes its\n\
             files unsynced (fileset.c `fileset_alloc_file`), so fileserver's writes are nearly all\n\
             that unmount's, in both.\n\
             The traces are experiments/rezns/real-f2fs/traces/ (`experiments/rezns/capture.sh`\n\
             recaptures them); the statistics count the workload only (the commands after the\n\
             capture's marker), as `zonelab trace-stats experiments/rezns/real-f2fs/traces/fsync16.csv.gz --experiment experiments/ublk/vm-rezns.toml --after-marker`\n\
             prints them for one trace. Beside each, the F2FS-like layer on the same device and\n\
             workload (experiments/rezns/real-f2fs/f2fs-like-*.toml).\n\
             Generated and checked current by `cargo test -p zonelab-cli real_f2fs` (ZONELAB_BLESS=1\n\
             rewrites it). What each capture ran (kernel, sizes):\n\n```\n",
        );
        s += SCALE.trim_end();
        s += "\n```\n\n";
        s += &stats_table(real, like);
        let resets: u64 = real.iter().map(|r| r.resets).sum();
        let partial: u64 = real
            .iter()
            .map(|r| r.reset_fill[1..5].iter().sum::<u64>())
            .sum();
        let _ = write!(
            s,
            "\nReal F2FS reset {resets} zones in these workloads, {partial} of them before they were full\n\
             (resets by fill, per workload:"
        );
        for (name, r) in WORKLOADS.iter().zip(real) {
            let _ = write!(s, " {name} {:?};", r.reset_fill);
        }
        s += " buckets: empty, 1-25%, 26-50%, 51-75%, 76-99%, full).\n\
             It sent no Flush: the device advertises no volatile write cache, so the block layer\n\
             completes F2FS's flushes itself.\n\n\
             The open rows are what the F2FS-like layer does not yet match.\n\n";
        let ratios: Vec<f64> = real[..3]
            .iter()
            .zip(&like[..3])
            .map(|(r, l)| r.write_bytes as f64 / l.write_bytes.max(1) as f64)
            .collect();
        let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ratios.iter().copied().fold(0.0, f64::max);
        let _ = write!(
            s,
            "Real F2FS writes {lo:.2}-{hi:.2}x as much to the device for the same fio workload (16 jobs\n\
             x 48 MiB x 3 runs = 2.25 GiB of writes).\n\n\
             The size of the commands comes from the block layer and the host's speed, and the\n\
             comparison runs the layer as the capture ran F2FS (experiments/rezns/real-f2fs/\n\
             f2fs-like-*.toml). Linux 6.12 keeps one write in flight per zone and merges the\n\
             writes queued behind it into one command, up to the device's 512 KiB (zone write\n\
             plugging, block/blk-zoned.c; `fs.zone_write_plug`): the 16 fio jobs fsync into one\n\
             hot-data zone, so their writes merge. How many merge depends on how fast the host\n\
             sends them against how fast the device takes them, and the capture's host was the\n\
             test VM under TCG emulation: a buffered 4 KiB write took 40-47 us (fio's clat P50\n\
             in the three fio captures' logs), which the layer's host is given\n\
             (`fs.cpu.call = \"42us\"`; 1 us by default, a native host). fio fsync 16's mean\n\
             command, real F2FS 154.8 KiB (188.3 in a recapture): 85.5-85.6 KiB without the plugs at\n\
             either speed (each fsync its own commands), 309.2 KiB with them on a native host (the device is the\n\
             bottleneck and nearly every write waits behind another), and the table's figure with\n\
             both; fsync 64, real 347.3 KiB: 257.9, 297.0 and the table's. Without the plugs fio's\n\
             bytes written and resets are the same within 0.1%; db_bench writes 1.34 GiB\n\
             instead of 1.30 and resets as many zones.\n\n"
        );
        if let (Some((blocks, sections, bg)), Some((cps, _)), Some((node_sections, _))) = (
            cleaner_counts(FSYNC16_STATUS),
            status_field(FSYNC16_STATUS, "CP calls"),
            status_field(FSYNC16_STATUS, "- node sections"),
        ) {
            let cleaned = sections + node_sections;
            let moved = blocks as f64 * 4096.0 / (1u64 << 30) as f64;
            let full = 100.0 * blocks as f64 / (sections.max(1) * 16384) as f64;
            let share = if bg == 0 { "all" } else { "most" };
            let _ = write!(
                s,
                "Where the volume comes from, measured: a recapture of fio fsync 16 with F2FS's own\n\
                 counters (experiments/rezns/real-f2fs/traces/fsync16.f2fs-status.txt, debugfs\n\
                 f2fs/status before and after the workload). F2FS's cleaner moved {moved:.2} GiB of data\n\
                 blocks out of {sections} sections, {full:.0}% valid on average when chosen, {bg} of those\n\
                 sections by the background thread: {share} of it is foreground cleaning on the\n\
                 writers' path. It read back only {real_read:.2} GiB of what it moved: it reads a block\n\
                 through the page cache, and keeps what it reads there, so a block it moves again\n\
                 costs no read (gc.c `gc_data_segment`, `move_data_page`). The F2FS-like layer does\n\
                 the same since 2026-11-29 (`fs/gc/copy.rs`), with fio dropping each file's clean\n\
                 pages when a run opens it (fio's default `invalidate`): its cleaner read back\n\
                 {:.2} GiB, where it read every block it moved before.\n\n\
                 Five things Linux 6.12 and mkfs.f2fs do, found in their source and modelled since\n\
                 2026-11-29, took the layer from 5.08, 4.19 and 3.91 GiB (fsync 16, 64, 128) to the\n\
                 figures above:\n\
                 - Foreground cleaning as `f2fs_balance_fs` runs it (gc.c `f2fs_gc`): a writer that\n\
                 finds too few free sections, prefree ones not counted, checkpoints and then always\n\
                 collects one section, and the section it emptied stays prefree until the next\n\
                 writer's call. So about one section is held from use all the time, and each cleaning\n\
                 comes with a checkpoint: real F2FS made {cps} checkpoints for {cleaned} sections cleaned.\n\
                 - `FI_HOT_DATA` (data.c `f2fs_write_cache_pages`): a writeback that finds at most\n\
                 16 dirty pages sends the file's data to the hot log. With an fsync every 16 writes\n\
                 the warm log stays in the section the prefill left part-written, as real F2FS's\n\
                 status shows (warm data unmoved, the workload in hot data).\n\
                 - Indirect nodes go to the cold node log (segment.c `__get_segment_type_6`), a\n\
                 section of its own, written at checkpoints.\n\
                 - The log that wrote the prefill goes on in the section the prefill left\n\
                 part-written, where the layer had left that section stranded.\n\
                 - Each of the six logs holds a section from mkfs on (f2fs-tools\n\
                 `f2fs_prepare_super_block` gives every `cur_seg` a zone) and takes the next the\n\
                 moment one fills (segment.c `f2fs_allocate_data_block`), written or not: the cold\n\
                 data log, which only the cleaner writes, no longer leaves a section free until\n\
                 cleaning begins.\n\n\
                 What is left: real F2FS's data victims are fuller still ({full:.0}% valid). As\n\
                 measured on 2026-11-30 (experiments/rezns/README.md, \"The write-volume gap\"), the\n\
                 sections written in one run and cleaned in the next agree in count and validity,\n\
                 and the difference is in what real F2FS cleans a second time; the same section\n\
                 gives real F2FS's own spread over two captures. The background cleaner is not\n\
                 the cause of the committed captures' gap: the layer runs Linux 6.12's cleaner for\n\
                 zoned devices (`fs.f2fs.gc_mode = \"zoned\"`), whose first look after mount finds\n\
                 more than 60% free and sleeps 60 s, longer than the run; with that sleep cut to 1 s\n\
                 (`fs.f2fs.bg_gc_nogc_sleep`) it runs and changes fio fsync 16's volume by a few\n\
                 percent (the same section of experiments/rezns/README.md).\n\n",
                gib(like[0].read_bytes),
                real_read = gib(real[0].read_bytes),
            );
        }
        s += "None of this changes\n\
             the row that decides ReZNS's gain: no workload reset a zone before it was full.\n\n\
             Known differences (the test lists them, and fails if one closes or another opens):\n\n";
        for (w, stat, why) in KNOWN {
            let _ = writeln!(s, "- {w}, {stat}: {why}.");
        }
        s
    }

    /// The F2FS-like layer agrees with real F2FS, on the committed traces, on the statistics
    /// that decide what ReZNS can gain; docs/real-f2fs.md is this comparison.
    #[test]
    fn real_f2fs_and_the_f2fs_like_layer_agree_where_it_matters() {
        let tmp = tempfile::Builder::new()
            .prefix("zonelab-real-f2fs-")
            .tempdir()
            .expect("a temporary directory");
        let real = captured().unwrap();
        let like: Vec<TraceStats> = parallel(
            runs()
                .unwrap()
                .into_iter()
                .filter(|r| r.trace.is_none())
                .collect(),
            2,
            |t| run_traced(tmp.path(), t),
        )
        .unwrap()
        .into_iter()
        .map(|m| m.stats)
        .collect();
        let mut off = Vec::new();
        for ((w, r), l) in WORKLOADS.iter().zip(&real).zip(&like) {
            for (name, rv, lv) in compared(r, l) {
                let Some((_, t)) = AGREE.iter().find(|a| a.0 == name) else {
                    continue;
                };
                let known = KNOWN.iter().any(|k| k.0 == *w && k.1 == name);
                if t.holds(rv, lv) == known {
                    let what = if known { "agrees now" } else { "differs" };
                    off.push(format!(
                        "{w}: {name} {what}: real {rv:.3}, F2FS-like {lv:.3} ({t:?})"
                    ));
                }
            }
        }
        assert!(
            off.is_empty(),
            "the F2FS-like layer against real F2FS (a known difference that agrees again \
             leaves KNOWN): {off:#?}"
        );
        let doc = doc(&real, &like);
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/real-f2fs.md");
        if std::env::var_os("ZONELAB_BLESS").is_some() {
            std::fs::write(path, &doc).unwrap();
        }
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            committed == doc,
            "docs/real-f2fs.md is not current: rerun this test with ZONELAB_BLESS=1"
        );
    }

    /// The recapture's counters are read as the status prints them; a status without the
    /// workload's part gives nothing.
    #[test]
    fn f2fs_status_counters_parse() {
        assert_eq!(cleaner_counts(FSYNC16_STATUS), Some((1_004_507, 84, 0)));
        assert_eq!(status_field(FSYNC16_STATUS, "CP calls"), Some((103, 0)));
        assert_eq!(
            status_field(FSYNC16_STATUS, "- node sections"),
            Some((19, 0))
        );
        let before_only = FSYNC16_STATUS
            .split("== after the workload")
            .next()
            .unwrap();
        assert_eq!(cleaner_counts(before_only), None);
    }

    #[test]
    fn tolerances_can_fail() {
        assert!(Tolerance::Points(5.0).holds(0.0, 5.0));
        assert!(!Tolerance::Points(5.0).holds(0.0, 5.1));
        assert!(Tolerance::Relative(0.25).holds(10.0, 12.5));
        assert!(!Tolerance::Relative(0.25).holds(10.0, 12.6));
        assert!(!Tolerance::Points(0.0).holds(0.0, 1.0));
    }
}
