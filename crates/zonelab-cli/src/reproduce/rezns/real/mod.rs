//! ReZNS's workloads on a real Linux F2FS (Lee et al., ReZNS, Appl. Sci. 2024, sections 4.2 and
//! 4.4): the command streams Linux's F2FS sent `zonelab ublk` in the test VM while fio (fsync every
//! 16, 64, 128 writes) and real db_bench ran on it (experiments/rezns/capture.sh), replayed on the
//! same device under the baseline and ReZNS, and set beside the F2FS-like layer running the same
//! workloads on the same device: what real F2FS does, whether ReZNS gains on it, and whether the
//! F2FS-like layer behaves like it.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result, anyhow};
use zonelab::report::Summary;
use zonelab::sim::Inputs;
use zonelab::trace::stats::{Collector, CollectorSink, Phase, TraceStats, ZoneLayout};

use super::f2fs::{FSYNC, PAPER_FEWER_RESETS, PAPER_GAIN, Pair};
use super::standin::{baseline, less, renewable};
use crate::reproduce::claims::{Claim, Stated};
use crate::reproduce::{Run, parallel, run_one_with};

mod agree;
use agree::stats_table;

/// The captured traces, gzipped, in the order of [`WORKLOADS`].
const TRACES: [&[u8]; 4] = [
    include_bytes!("../../../../../../experiments/rezns/real-f2fs/traces/fsync16.csv.gz"),
    include_bytes!("../../../../../../experiments/rezns/real-f2fs/traces/fsync64.csv.gz"),
    include_bytes!("../../../../../../experiments/rezns/real-f2fs/traces/fsync128.csv.gz"),
    include_bytes!("../../../../../../experiments/rezns/real-f2fs/traces/dbbench.csv.gz"),
];
/// What each capture ran: kernel, device, prefill and workload sizes (capture.sh writes it).
pub const SCALE: &str =
    include_str!("../../../../../../experiments/rezns/real-f2fs/traces/scale.txt");
const REPLAY: &str = include_str!("../../../../../../experiments/rezns/real-f2fs/replay.toml");
const LIKE_FIO: &str =
    include_str!("../../../../../../experiments/rezns/real-f2fs/f2fs-like-fio.toml");
const LIKE_DB: &str =
    include_str!("../../../../../../experiments/rezns/real-f2fs/f2fs-like-dbbench.toml");
/// The captured workloads.
pub const WORKLOADS: [&str; 4] = ["fio fsync 16", "fio fsync 64", "fio fsync 128", "db_bench"];
const SLUGS: [&str; 4] = ["fsync16", "fsync64", "fsync128", "dbbench"];

/// One run whose device commands are counted as they go.
struct Traced {
    run: Run,
    /// The gzipped trace its `[[replay]]` reads.
    trace: Option<&'static [u8]>,
    phase: Phase,
}

/// A run and the statistics of its device commands.
pub struct Measured {
    pub summary: Summary,
    pub stats: TraceStats,
}

impl Measured {
    /// MiB/s the host wrote over the counted commands' span of device time.
    pub fn mib_per_s(&self) -> f64 {
        let s = self.stats.span_ns.max(1) as f64 / 1e9;
        self.stats.write_bytes as f64 / (1u64 << 20) as f64 / s
    }
}

/// One captured workload: its replay under both policies, and the F2FS-like layer's run.
pub struct Workload {
    pub name: &'static str,
    pub base: Measured,
    pub rezns: Measured,
    pub like: Measured,
}

impl Workload {
    /// ReZNS's throughput over the baseline's, in percent.
    pub fn gain(&self) -> f64 {
        (self.rezns.mib_per_s() / self.base.mib_per_s().max(f64::MIN_POSITIVE) - 1.0) * 100.0
    }
    /// Percent fewer zone resets under ReZNS.
    pub fn fewer_resets(&self) -> f64 {
        less(
            self.rezns.summary.device_counters.zone_resets_executed as f64,
            self.base.summary.device_counters.zone_resets_executed as f64,
        )
    }
}

fn runs() -> Vec<Traced> {
    // Every command of every run goes to its statistics.
    let traced = |o: Vec<String>| [o, vec!["trace.enabled=true".into()]].concat();
    let mut runs = Vec::new();
    for (slug, trace) in SLUGS.iter().zip(TRACES) {
        for (policy, overrides) in [
            ("baseline", baseline()),
            ("rezns", renewable(0.25, 3_600_000)),
        ] {
            runs.push(Traced {
                run: Run::new(format!("real-{slug}-{policy}"), REPLAY, traced(overrides)),
                trace: Some(trace),
                phase: Phase::AfterMarker,
            });
        }
    }
    for (slug, fsync) in SLUGS.iter().zip(FSYNC) {
        let overrides = [vec![format!("fio_files[0].fsync={fsync}")], baseline()].concat();
        runs.push(Traced {
            run: Run::new(format!("like-{slug}"), LIKE_FIO, traced(overrides)),
            trace: None,
            phase: Phase::All,
        });
    }
    runs.push(Traced {
        run: Run::new("like-dbbench", LIKE_DB, traced(baseline())),
        trace: None,
        phase: Phase::All,
    });
    runs
}

fn run_traced(out: &Path, t: Traced) -> Result<Measured> {
    let mut handle = None;
    let result = run_one_with(out, &t.run, |exp| {
        let layout = ZoneLayout::of(&exp.device.info()).context("the captures' device is zoned")?;
        let (sink, h) = CollectorSink::new(Collector::new(layout, t.phase));
        handle = Some(h);
        Ok(Inputs {
            traces: t.trace.map(zonelab_io::gunzip).into_iter().collect(),
            trace_sink: Some(Box::new(sink)),
            limits: Default::default(),
        })
    })?;
    let stats = handle
        .context("the run counted its commands")?
        .finish()
        .map_err(|e| anyhow!("run {}: its command statistics: {e}", t.run.name))?;
    Ok(Measured {
        summary: result.summary,
        stats,
    })
}

/// Runs every replay and F2FS-like run on `threads` threads.
pub fn measure(out: &Path, threads: usize) -> Result<Vec<Workload>> {
    let mut done = parallel(runs(), threads, |t| run_traced(out, t))?;
    // [`runs`]' order: baseline and ReZNS replays per workload, then the F2FS-like runs.
    let like = done.split_off(2 * WORKLOADS.len());
    let mut replays = done.into_iter();
    WORKLOADS
        .into_iter()
        .zip(like)
        .map(|(name, like)| {
            Ok(Workload {
                name,
                base: replays.next().context("a baseline replay")?,
                rezns: replays.next().context("a ReZNS replay")?,
                like,
            })
        })
        .collect()
}

/// The summary's section: what real F2FS did, beside the F2FS-like layer, and the replays.
pub fn report(w: &[Workload]) -> String {
    let mut s = String::from(
        "## Real F2FS: the paper's workloads on Linux's F2FS over ZoneLab's device\n\n\
         What runs: Linux's own F2FS (the kernel below) on `zonelab ublk` in the test VM, on\n\
         rezns-40g cut to 64 zones of 64 MiB with no open or active zone limit (NVMeVirt's ZNS\n\
         configuration sets both to the zone count), its metadata on a 128 MiB null_blk; each\n\
         workload on a fresh file system prefilled to half of what F2FS offers, as the paper's\n\
         \"50% with dummy data\"; every device command traced (experiments/rezns/capture.sh; the\n\
         traces are experiments/rezns/real-f2fs/traces/). Then: the statistics of what F2FS sent\n\
         the device, the same statistics of the F2FS-like layer running the same workload on the\n\
         same device (experiments/rezns/real-f2fs/f2fs-like-*.toml), and each real trace replayed\n\
         in closed loop (16 in flight) under the baseline and under ReZNS. F2FS decided on the\n\
         baseline device, and its decisions do not depend on the firmware, so the replay is an A/B\n\
         of the firmware alone. Scaled down from the paper (40 GiB, 1000 fio threads of 15 MB);\n\
         what each capture ran:\n\n```\n",
    );
    s += SCALE.trim_end();
    s += "\n```\n\n";
    // The baseline replay sends the capture's commands one for one: its statistics are the
    // capture's (but for the span of device time, which is the replay's).
    let real: Vec<TraceStats> = w.iter().map(|x| x.base.stats.clone()).collect();
    let like: Vec<TraceStats> = w.iter().map(|x| x.like.stats.clone()).collect();
    s += &stats_table(&real, &like);
    s += "\nReplayed (device time of the workload, after the capture's marker):\n\n\
          | workload | MiB/s base | ReZNS | gain | paper gain | zone resets base | ReZNS | fewer | block erases base | ReZNS | erase mJ base | ReZNS | total mJ base | ReZNS |\n\
          |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (i, x) in w.iter().enumerate() {
        let paper = PAPER_GAIN.get(i).filter(|_| i < FSYNC.len());
        let (b, r) = (&x.base.summary, &x.rezns.summary);
        let _ = writeln!(
            s,
            "| {} | {:.1} | {:.1} | {:+.1}% | {} | {} | {} | {:.0}% | {} | {} | {:.1} | {:.1} | {:.1} | {:.1} |",
            x.name,
            x.base.mib_per_s(),
            x.rezns.mib_per_s(),
            x.gain(),
            paper.map_or("-".into(), |g| format!("+{g:.0}%")),
            b.device_counters.zone_resets_executed,
            r.device_counters.zone_resets_executed,
            x.fewer_resets(),
            b.device_counters.block_erases,
            r.device_counters.block_erases,
            b.energy.erase_mj,
            r.energy.erase_mj,
            b.energy.total_mj,
            r.energy.total_mj,
        );
    }
    s += &verdict(w);
    s
}

/// Every gain the paper states for fio and Filebench, three ways: the paper's; real F2FS's
/// trace replayed (fio only: Filebench was not captured); the F2FS-like layer live, at the
/// paper's scale (`pairs`, section "The paper's stack").
pub fn beside_paper(pairs: &[Pair], w: &[Workload]) -> String {
    let mut s = String::from(
        "ReZNS against the baseline, three ways (real F2FS: its replayed trace at the capture's\n\
         scale; F2FS-like: the runs of \"The paper's stack\" at the paper's scale):\n\n\
         | workload | throughput: paper | real F2FS | F2FS-like | fewer zone resets: paper | real F2FS | F2FS-like |\n\
         |---|---:|---:|---:|---:|---:|---:|\n",
    );
    for (i, p) in pairs.iter().enumerate() {
        let real = w.iter().find(|x| x.name == p.workload);
        let paper_fewer = i.checked_sub(FSYNC.len()).map_or("fewer".to_string(), |k| {
            format!("{:.0}%", PAPER_FEWER_RESETS[k])
        });
        let like_fewer = less(p.rezns.resets(), p.base.resets());
        let _ = writeln!(
            s,
            "| {} | +{:.0}% | {} | {:+.1}% | {paper_fewer} | {} | {like_fewer:.0}% |",
            p.workload,
            PAPER_GAIN[i],
            real.map_or("not captured".into(), |x| format!("{:+.1}%", x.gain())),
            p.gain(),
            real.map_or("not captured".into(), |x| format!(
                "{:.0}%",
                x.fewer_resets()
            )),
        );
    }
    s
}

/// One paragraph: whether ReZNS's published gains hold on real F2FS, from the measurements.
fn verdict(w: &[Workload]) -> String {
    let resets: u64 = w.iter().map(|x| x.base.stats.resets).sum();
    let partial: u64 = w
        .iter()
        .map(|x| x.base.stats.reset_fill[1..5].iter().sum::<u64>())
        .sum();
    let range = |f: &dyn Fn(&Workload) -> f64| {
        let v: Vec<f64> = w.iter().map(f).collect();
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (lo, hi)
    };
    let (g0, g1) = range(&|x| x.gain());
    let (r0, r1) = range(&|x| x.fewer_resets());
    // The paper's fio gains (+1% to +9%) and fewer resets, workload by workload: a gain counts
    // when it clears the claims' no-change band (1 percentage point).
    let fio = &w[..FSYNC.len().min(w.len())];
    let held = fio
        .iter()
        .filter(|x| x.gain() > 1.0 && x.fewer_resets() > 0.0)
        .count();
    let answer = match held {
        0 => "No, not on these workloads",
        n if n == fio.len() => "Yes",
        _ => "Partly",
    };
    format!(
        "\n**Do ReZNS's gains hold on a real F2FS?** {answer}: {held} of the {} fio workloads gain and\n\
         reset fewer zones under ReZNS. Over the four captured workloads real F2FS reset {resets}\n\
         zones, {partial} of them before they were full; ReZNS renews only zones reset with room\n\
         left, so it had {} to work with. Replayed under ReZNS, throughput changed by {g0:+.1}% to\n\
         {g1:+.1}% (paper: +1% to +9% for fio) and zone resets by {r0:.0}% to {r1:.0}% fewer (paper:\n\
         fewer). The paper's baseline \"performs the zone-reset commands to reclaim the zones even\n\
         if the zones include available free space if the number of zones reaches the maximum\n\
         zone value\" (section 4.3); on its emulator's ZNS configuration there is no such maximum\n\
         (NVMeVirt sets the open and active limits to the zone count), and real F2FS resets a zone\n\
         only once the section on it holds no valid block, which for a log-structured writer is a\n\
         section it has filled. (Kernel 6.12 here, 5.16 in the paper. In both, and since F2FS\n\
         first supported zoned devices, a zone is reset only when F2FS discards the whole\n\
         section on it: fs/f2fs/segment.c, __f2fs_issue_discard_zone, which refuses a discard\n\
         that is not one whole zone.)\n",
        fio.len(),
        if partial == 0 { "nothing" } else { "something" },
    )
}

/// Where the real-F2FS rows' causes are shown.
pub const WHY: &str = "summary.md, \"Real F2FS\" (how full the zones F2FS reset were)";

/// The paper's fio numbers beside the real-F2FS replays'.
pub fn claims(w: &[Workload]) -> Vec<Claim> {
    let mut claims = Vec::new();
    for (i, x) in w.iter().take(FSYNC.len()).enumerate() {
        claims.push(
            Claim::change(
                format!(
                    "{}: throughput, ReZNS against baseline, real F2FS replayed",
                    x.name
                ),
                PAPER_GAIN[i],
                x.gain(),
            )
            .cause(WHY),
        );
        claims.push(
            Claim::direction(
                format!(
                    "{}: zone resets, ReZNS against baseline, real F2FS replayed",
                    x.name
                ),
                Stated::Lower,
                // 0 - x, not -x: equal counts are +0.0%, not -0.0%.
                0.0 - x.fewer_resets(),
            )
            .cause(WHY),
        );
    }
    claims
}
