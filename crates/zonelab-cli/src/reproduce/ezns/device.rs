//! The device observations that motivate eZNS (Min et al., eZNS, OSDI 2023 (talk notes), sections 7-9;
//! docs/reference/ezns.md), on `smallzone-4t` with its default placement (physical zone p
//! on die p % 128; die d on channel d % 16) and static logical zones whose physical zones the
//! runs place explicitly: read bandwidth against stripe size and width, logical zones placed 2,
//! 4 or 8 per channel, two logical zones overlapping on 0-100% of their dies, and a narrow writer
//! filling the shared write cache beside wide writers. The experiment text is built here from
//! experiments/ezns/device-read.toml (the reads) and device-write.toml (the writers).

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use zonelab::report::Summary;

use crate::reproduce::Run;
use crate::reproduce::plot::{Scale, bar_chart, line_chart};

const READ: &str = include_str!("../../../../../experiments/ezns/device-read.toml");
const WRITE: &str = include_str!("../../../../../experiments/ezns/device-write.toml");

pub const WIDTHS: [u32; 5] = [1, 2, 4, 8, 16];
pub const STRIPES_KIB: [u32; 5] = [4, 8, 16, 32, 64];
pub const PER_CHANNEL: [u32; 3] = [2, 4, 8];
pub const CHUNKS_KIB: [u32; 3] = [4, 16, 64];
/// Queue depths of the placement sweep: eZNS's Figure 6 plots bandwidth against QD 1-64 per
/// placement. Its chunk is 16 KiB (the page); its QD 8 run is the channel run's.
pub const DEPTHS: [u32; 7] = [1, 2, 4, 8, 16, 32, 64];
const DEPTH_CHUNK_KIB: u32 = 16;
/// Dies shared by the two logical zones of the overlap runs, of their `OVERLAP_WIDTH`.
pub const OVERLAP: [u32; 5] = [0, 1, 2, 3, 4];
/// Physical zones (and dies) of each logical zone of the overlap runs: narrow enough that two
/// readers stay below the host link (3.2 GB/s, eZNS Table 1).
const OVERLAP_WIDTH: u32 = 4;
const DIES: u32 = 128;
const CHANNELS: u32 = 16;

fn placement(zones: &[Vec<u32>]) -> String {
    let lists: Vec<String> = zones
        .iter()
        .map(|z| {
            let v: Vec<String> = z.iter().map(u32::to_string).collect();
            format!("[{}]", v.join(", "))
        })
        .collect();
    format!("layer.placement=[{}]", lists.join(", "))
}

fn sets(width: u32, stripe_kib: u32, zones: &[Vec<u32>]) -> Vec<String> {
    vec![
        format!("layer.stripe_width={width}"),
        format!("layer.zones_per_logical={width}"),
        format!("layer.stripe_size=\"{stripe_kib}KiB\""),
        placement(zones),
    ]
}

/// Physical zones of `n` logical zones of `width` zones, zone k on die k (no die shared).
fn spread(n: u32, width: u32) -> Vec<Vec<u32>> {
    (0..n)
        .map(|l| (l * width..(l + 1) * width).collect())
        .collect()
}

/// 16 physical zones on distinct dies, `per` on each of 16 / `per` channels.
fn per_channel(per: u32) -> Vec<u32> {
    (0..CHANNELS / per)
        .flat_map(|c| (0..per).map(move |j| c + CHANNELS * j))
        .collect()
}

/// Two logical zones of `OVERLAP_WIDTH` physical zones on as many dies each, sharing `shared`
/// dies.
fn overlapping(shared: u32) -> Vec<Vec<u32>> {
    let w = OVERLAP_WIDTH;
    let a: Vec<u32> = (0..w).collect();
    // Zone d + 128 is on die d: B takes A's first `shared` dies, then dies w.. of its own.
    let b: Vec<u32> = (0..w)
        .map(|k| {
            if k < shared {
                k + DIES
            } else {
                w + k - shared + DIES
            }
        })
        .collect();
    vec![a, b]
}

/// The read experiment with reader "a" alone over one logical zone.
fn one_reader() -> String {
    let cut = READ.find("[[job]]\nname = \"b\"").expect("reader b");
    READ[..cut].replace("size = \"2z\"", "size = \"1z\"")
}

/// The readers' runtime (jobs a and b) and the writers' (wide0-wide3 and narrow).
const READ_TIME: &str = "100ms";
const WRITE_TIME: &str = "1s";

/// `run` with its first `jobs` jobs' runtime `time` times the scale.
fn timed(run: Run, scale: crate::reproduce::Scale, jobs: usize, time: &str) -> Run {
    (0..jobs).fold(run, |run, j| {
        run.scale_text(scale, &format!("job.{j}.runtime"), time)
    })
}

/// The runs at `scale`: each job's runtime times the scale (bandwidths are per second).
pub fn runs(scale: crate::reproduce::Scale) -> Vec<Run> {
    let mut runs = Vec::new();
    for w in WIDTHS {
        for s in STRIPES_KIB {
            runs.push(timed(
                Run::new(
                    format!("dev-stripe-w{w}-{s}k"),
                    one_reader(),
                    sets(w, s, &spread(1, w)),
                ),
                scale,
                1,
                READ_TIME,
            ));
        }
    }
    for per in PER_CHANNEL {
        for c in CHUNKS_KIB {
            runs.push(timed(
                Run::new(
                    format!("dev-channel-{per}-{c}k"),
                    one_reader(),
                    sets(16, c, &[per_channel(per)]),
                ),
                scale,
                1,
                READ_TIME,
            ));
        }
    }
    for per in PER_CHANNEL {
        for qd in DEPTHS.into_iter().filter(|&qd| qd != 8) {
            let mut o = sets(16, DEPTH_CHUNK_KIB, &[per_channel(per)]);
            o.push(format!("job.0.iodepth={qd}"));
            let run = Run::new(format!("dev-depth-{per}-qd{qd}"), one_reader(), o);
            runs.push(timed(run, scale, 1, READ_TIME));
        }
    }
    for o in OVERLAP {
        runs.push(timed(
            Run::new(
                format!("dev-overlap-{o}"),
                READ,
                sets(OVERLAP_WIDTH, 16, &overlapping(o)),
            ),
            scale,
            2,
            READ_TIME,
        ));
    }
    for narrow in [false, true] {
        let text = if narrow {
            WRITE.to_string()
        } else {
            let cut = WRITE
                .find("[[job]]\nname = \"narrow\"")
                .expect("the narrow job");
            WRITE[..cut].to_string()
        };
        let name = if narrow { "with" } else { "without" };
        let jobs = if narrow { 5 } else { 4 };
        let run = Run::new(format!("dev-cache-{name}"), text, vec![]);
        runs.push(timed(run, scale, jobs, WRITE_TIME));
    }
    runs
}

fn mib_s(s: &Summary, read: bool) -> f64 {
    let secs = s.simulated_time_ns as f64 / 1e9;
    let bytes: u64 = s
        .jobs
        .iter()
        .map(|j| if read { j.read_bytes } else { j.write_bytes })
        .sum();
    bytes as f64 / (1 << 20) as f64 / secs.max(1e-9)
}

fn job_mib_s(s: &Summary, prefix: &str) -> f64 {
    let secs = s.simulated_time_ns as f64 / 1e9;
    let bytes: u64 = s
        .jobs
        .iter()
        .filter(|j| j.name.starts_with(prefix))
        .map(|j| j.write_bytes)
        .sum();
    bytes as f64 / (1 << 20) as f64 / secs.max(1e-9)
}

/// The section of the summary, with its figures; `get` takes a finished run by name.
pub fn observations(
    get: &mut dyn FnMut(&str) -> Summary,
    figures: &Path,
    s: &mut String,
) -> Result<()> {
    stripe_section(get, figures, s)?;
    let row_16k = channel_section(get, figures, s)?;
    depth_sweep(get, &row_16k, figures, s)?;
    overlap_section(get, figures, s)?;
    cache_section(get, figures, s)
}

/// The section's opening and "Stripe size and width" (figures/device-stripe.svg).
fn stripe_section(
    get: &mut dyn FnMut(&str) -> Summary,
    figures: &Path,
    s: &mut String,
) -> Result<()> {
    let mut grid = Vec::new();
    for w in WIDTHS {
        let row: Vec<f64> = STRIPES_KIB
            .iter()
            .map(|k| mib_s(&get(&format!("dev-stripe-w{w}-{k}k")), true))
            .collect();
        grid.push((format!("width {w}"), row));
    }
    let groups: Vec<String> = STRIPES_KIB.iter().map(|k| format!("{k} KiB")).collect();
    bar_chart(
        &figures.join("device-stripe.svg"),
        "Read bandwidth against stripe size and width",
        "read MiB/s",
        &groups,
        &grid,
    )?;
    *s += "## The device observations behind eZNS (talk notes, sections 7-9)\n\n\
           `smallzone-4t` with its default placement (physical zone p on die p % 128, die d on\n\
           channel d % 16) and static logical zones whose physical zones each run names\n\
           (experiments/ezns/device-read.toml, device-write.toml; `reproduce ezns` sets the\n\
           placement). Reads: 128 KiB random reads at QD8 per reader over prefilled logical\n\
           zones for 100 ms (CHOSEN: the notes give no request size or depth).\n\n\
           Stripe size and width (one logical zone of `width` physical zones on distinct dies and\n\
           channels; width 1 is one physical zone), read MiB/s:\n\n";
    let columns: Vec<String> = STRIPES_KIB.iter().map(|k| format!("{k} KiB")).collect();
    let rows: Vec<(String, &[f64])> = WIDTHS
        .iter()
        .zip(&grid)
        .map(|(w, (_, row))| (w.to_string(), &row[..]))
        .collect();
    mib_table(s, ("width", "---:"), &columns, &rows);
    // Width 1 at 4 and 8 KiB stripes against 16 KiB (STRIPES_KIB starts 4, 8, 16).
    let w1 = &grid[0].1;
    let _ = write!(
        s,
        "\nNotes: bandwidth grows with the width and with the stripe size, and falls steeply below\n\
         16 KiB, the page size. Here: one physical zone reads at the ~200 MB/s of eZNS Table 1\n\
         from 16 KiB stripes up; below the page size a stripe read costs a page read for less\n\
         data, so at width 1 8 KiB stripes read {:.0}% and 4 KiB ones {:.0}% of what 16 KiB ones\n\
         do (a 4 KiB read senses a partial page, faster than a whole one: `read_4k_latency_ns`).\n\
         **Where ZoneLab differs:** at widths 4-16, stripes above 16 KiB read less, not more: a\n\
         128 KiB read then covers only 128 KiB / stripe dies, and QD8 leaves dies idle (the notes\n\
         give neither request size nor depth). Figure: figures/device-stripe.svg.\n\n",
        100.0 * w1[1] / w1[2],
        100.0 * w1[0] / w1[2]
    );
    Ok(())
}

/// "Placement": 16 physical zones 2, 4 or 8 per channel (figures/device-channel.svg); returns
/// the 16 KiB chunk row, the depth sweep's QD 8 point.
fn channel_section(
    get: &mut dyn FnMut(&str) -> Summary,
    figures: &Path,
    s: &mut String,
) -> Result<Vec<f64>> {
    let mut series = Vec::new();
    for c in CHUNKS_KIB {
        let row: Vec<f64> = PER_CHANNEL
            .iter()
            .map(|p| mib_s(&get(&format!("dev-channel-{p}-{c}k")), true))
            .collect();
        series.push((format!("{c} KiB chunks"), row));
    }
    let groups: Vec<String> = PER_CHANNEL
        .iter()
        .map(|p| format!("{p} per channel"))
        .collect();
    bar_chart(
        &figures.join("device-channel.svg"),
        "Read bandwidth: 16 physical zones placed 2, 4 or 8 per channel",
        "read MiB/s",
        &groups,
        &series,
    )?;
    *s += "Placement: one logical zone of 16 physical zones (width 16) on 16 distinct dies, 2, 4\n\
           or 8 of them on each of 8, 4 or 2 channels, read MiB/s:\n\n\
           | chunk | 2 per channel | 4 per channel | 8 per channel |\n|---:|---:|---:|---:|\n";
    for (c, (_, row)) in CHUNKS_KIB.iter().zip(&series) {
        let _ = writeln!(
            s,
            "| {c} KiB | {:.0} | {:.0} | {:.0} |",
            row[0], row[1], row[2]
        );
    }
    // The 16 KiB chunk row: what one channel moved when 8 and 4 zones shared it (2 and 4
    // channels), and the depth sweep's QD 8 point.
    let at_16k = CHUNKS_KIB
        .iter()
        .position(|&c| c == DEPTH_CHUNK_KIB)
        .expect("the depth sweep's chunk is a channel run's");
    let per_channel_mib_s = [series[at_16k].1[2] / 2.0, series[at_16k].1[1] / 4.0];
    let _ = write!(
        s,
        "\nNotes: whatever the chunk size, fewer zones per channel read faster. Here: a channel\n\
         moves 600 MB/s of data (eZNS Table 1) plus a fitted fixed cost per command\n\
         (`channel_op_overhead_ns`, docs/validation.md), so in 16 KiB transfers it moved {:.0} and\n\
         {:.0} MiB/s (8 and 4 zones per channel); one die reads 200 MB/s. With 16 KiB chunks each\n\
         placement is therefore bound by its 8, 4 or 2 channels. **Where ZoneLab differs:** with\n\
         4 KiB chunks every placement reads alike: each 4 KiB read senses a whole 16 KiB page, so\n\
         the dies (16 x 4 KiB per tR) bind before any channel does. Figure:\n\
         figures/device-channel.svg.\n\n",
        per_channel_mib_s[0], per_channel_mib_s[1]
    );
    Ok(series.swap_remove(at_16k).1)
}

/// "Die overlap": two logical zones sharing 0-100% of their dies (figures/device-overlap.svg).
fn overlap_section(
    get: &mut dyn FnMut(&str) -> Summary,
    figures: &Path,
    s: &mut String,
) -> Result<()> {
    let overlap: Vec<f64> = OVERLAP
        .iter()
        .map(|o| mib_s(&get(&format!("dev-overlap-{o}")), true))
        .collect();
    let groups: Vec<String> = OVERLAP
        .iter()
        .map(|o| format!("{}%", o * 100 / OVERLAP_WIDTH))
        .collect();
    bar_chart(
        &figures.join("device-overlap.svg"),
        "Two logical zones overlapping on their dies",
        "read MiB/s, both readers",
        &groups,
        &[("16 KiB stripes, width 4".into(), overlap.clone())],
    )?;
    *s += "Die overlap: two logical zones (4 physical zones each, width 4, 16 KiB stripes: two of\n\
           them stay below the host link), each read by its own reader, sharing 0-100% of their\n\
           dies; both readers' MiB/s together:\n\n";
    mib_table(
        s,
        ("overlap", "---"),
        &groups,
        &[("read MiB/s".into(), &overlap[..])],
    );
    let _ = write!(
        s,
        "\nNotes: even 25% overlap costs bandwidth, because an operation on a shared die delays\n\
         the operations queued behind it on that die. Here too: {:.0}% less at 25% overlap, and at\n\
         100% the two readers share one logical zone's dies ({:.0}% less). The talk notes give\n\
         the shape, not the paper's numbers. Figure: figures/device-overlap.svg.\n\n",
        (1.0 - overlap[1] / overlap[0].max(1e-9)) * 100.0,
        (1.0 - overlap[4] / overlap[0].max(1e-9)) * 100.0,
    );
    Ok(())
}

/// "Write cache": wide writers alone and beside a narrow one (figures/device-cache.svg).
fn cache_section(
    get: &mut dyn FnMut(&str) -> Summary,
    figures: &Path,
    s: &mut String,
) -> Result<()> {
    let without = get("dev-cache-without");
    let with = get("dev-cache-with");
    let (w0, w1) = (job_mib_s(&without, "wide"), job_mib_s(&with, "wide"));
    let narrow = job_mib_s(&with, "narrow");
    bar_chart(
        &figures.join("device-cache.svg"),
        "A narrow writer filling the shared write cache",
        "write MiB/s",
        &["wide writers".to_string(), "narrow writer".to_string()],
        &[
            ("wide writers alone".into(), vec![w0, 0.0]),
            ("beside the narrow writer".into(), vec![w1, narrow]),
        ],
    )?;
    let _ = write!(
        s,
        "Write cache: four wide writers (each its own logical zone of 4 physical zones on 4\n\
         dies, 128 KiB at QD1) alone, and beside a narrow writer (a logical zone whose 4 physical\n\
         zones are all on die 0, 512 KiB at QD32), 1 s:\n\n\
         | | wide writers MiB/s | narrow writer MiB/s |\n|---|---:|---:|\n\
         | wide writers alone | {w0:.0} | - |\n\
         | beside the narrow writer | {w1:.0} | {narrow:.0} |\n\n\
         Notes: a writer on few dies fills the shared write cache, and the other zones' writes\n\
         wait for its slots, which free at that one die's pace. Here: the narrow writer gets one\n\
         die's ~40 MB/s, yet the wide writers lose {:.0}% of their bandwidth. Figure:\n\
         figures/device-cache.svg.\n\n",
        (1.0 - w1 / w0.max(1e-9)) * 100.0
    );
    Ok(())
}

/// A table of MiB/s in markdown: a header of `columns` after `corner` (its separator cell
/// given), then one row per (label, values), values to the MiB.
fn mib_table(
    s: &mut String,
    (corner, sep): (&str, &str),
    columns: &[String],
    rows: &[(String, &[f64])],
) {
    let _ = write!(s, "| {corner} |");
    for c in columns {
        let _ = write!(s, " {c} |");
    }
    let _ = write!(s, "\n|{sep}|");
    for _ in columns {
        *s += "---:|";
    }
    *s += "\n";
    for (label, values) in rows {
        let _ = write!(s, "| {label} |");
        for v in *values {
            let _ = write!(s, " {v:.0} |");
        }
        *s += "\n";
    }
}

/// The channel placements against queue depth (eZNS Figure 6's axes): the figure, the table and
/// its notes. `qd8` holds each placement's QD 8 result (the channel runs' 16 KiB row).
fn depth_sweep(
    get: &mut dyn FnMut(&str) -> Summary,
    qd8: &[f64],
    figures: &Path,
    s: &mut String,
) -> Result<()> {
    let depth_series: Vec<(String, Vec<(f64, f64)>)> = PER_CHANNEL
        .iter()
        .enumerate()
        .map(|(k, per)| {
            let points = DEPTHS
                .iter()
                .map(|&qd| {
                    let v = if qd == 8 {
                        qd8[k]
                    } else {
                        mib_s(&get(&format!("dev-depth-{per}-qd{qd}")), true)
                    };
                    (f64::from(qd), v)
                })
                .collect();
            (format!("{per} per channel"), points)
        })
        .collect();
    line_chart(
        &figures.join("device-channel-depth.svg"),
        "Read bandwidth against queue depth per placement, 16 KiB chunks (cf. eZNS Figure 6)",
        ("queue depth (128 KiB reads)", Scale::Log2),
        "read MiB/s",
        &depth_series,
    )?;
    *s += "The same placements against queue depth (16 KiB chunks, 128 KiB random reads), read\n\
           MiB/s, as eZNS's Figure 6 plots them:\n\n";
    let columns: Vec<String> = DEPTHS.iter().map(|qd| format!("QD{qd}")).collect();
    let values: Vec<(String, Vec<f64>)> = depth_series
        .iter()
        .map(|(name, points)| (name.clone(), points.iter().map(|p| p.1).collect()))
        .collect();
    let rows: Vec<(String, &[f64])> = values.iter().map(|(n, v)| (n.clone(), &v[..])).collect();
    mib_table(s, ("placement", "---"), &columns, &rows);
    *s += "\nNotes: every placement gains with depth until its bound (the dies, then its channels or\n\
           the host link, as above); the placements part where the channels bind. The notes give\n\
           no numbers for this figure, so none is set beside it. Figure:\n\
           figures/device-channel-depth.svg.\n\n";
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::Scale;

    /// `--scale 2` doubles every job's runtime; the shipped scale adds nothing.
    #[test]
    fn scale_doubles_every_jobs_runtime() {
        let shipped = runs(Scale::SHIPPED);
        let two = runs(Scale::new(2).unwrap());
        assert_eq!(shipped.len(), two.len());
        for (s, t) in shipped.iter().zip(&two) {
            assert!(
                s.overrides.iter().all(|o| !o.contains("runtime")),
                "{}",
                s.name
            );
            let added: Vec<&str> = t.overrides[s.overrides.len()..]
                .iter()
                .map(String::as_str)
                .collect();
            let want: Vec<String> = if s.name.starts_with("dev-cache") {
                let jobs = if s.name.ends_with("with") { 5 } else { 4 };
                (0..jobs)
                    .map(|j| format!("job.{j}.runtime=\"2s\""))
                    .collect()
            } else {
                let jobs = if s.name.starts_with("dev-overlap") {
                    2
                } else {
                    1
                };
                (0..jobs)
                    .map(|j| format!("job.{j}.runtime=\"200ms\""))
                    .collect()
            };
            assert_eq!(added, want, "{}", s.name);
        }
    }

    #[test]
    fn placements_put_the_zones_where_the_runs_say() {
        for per in PER_CHANNEL {
            let zones = per_channel(per);
            let mut dies = zones.clone();
            dies.sort_unstable();
            dies.dedup();
            assert_eq!(dies.len(), 16, "distinct dies");
            for c in 0..CHANNELS {
                let n = zones
                    .iter()
                    .filter(|&&z| (z % DIES) % CHANNELS == c)
                    .count();
                assert!(n == 0 || n == per as usize, "channel {c}: {n}");
            }
        }
        for o in OVERLAP {
            let [a, b] = &overlapping(o)[..] else {
                panic!("two zones")
            };
            let shared = b.iter().filter(|z| a.contains(&(*z % DIES))).count();
            assert_eq!(shared, o as usize);
        }
    }
}
