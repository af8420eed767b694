//! ReZNS's workloads on a real Linux F2FS (Lee et al., ReZNS, Appl. Sci. 2024, sections 4.2 to
//! 4.4): the command streams Linux's F2FS sent `zonelab ublk` in the test VM while fio (fsync every
//! 16, 64, 128 writes), Filebench (varmail, fileserver) and real db_bench ran on it
//! (experiments/rezns/capture.sh), replayed on the
//! same device under the baseline and ReZNS, and set beside the F2FS-like layer running the same
//! workloads on the same device: what real F2FS does, whether ReZNS gains on it, and whether the
//! F2FS-like layer behaves like it.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result, anyhow};
use zonelab::experiment::Inputs;
use zonelab::report::Summary;
use zonelab::trace::stats::{Collector, CollectorSink, Phase, TraceStats, ZoneLayout};

use super::f2fs::{FSYNC, PAPER_FEWER_RESETS, PAPER_GAIN, Pair};
use super::standin::{baseline, less, renewable};
use crate::reproduce::claims::{Claim, Stated};
use crate::reproduce::{Run, parallel, run_one_with};

mod agree;
use agree::stats_table;

/// The captured traces, gzipped, in the order of [`WORKLOADS`].
const TRACES: [&[u8]; 6] = [
    include_bytes!("../../../../../../experiments/rezns/real-f2fs/traces/fsync16.csv.gz"),
    include_bytes!("../../../../../../experiments/rezns/real-f2fs/traces/fsync64.csv.gz"),
    include_bytes!("../../../../../../experiments/rezns/real-f2fs/traces/fsync128.csv.gz"),
    include_bytes!("../../../../../../experiments/rezns/real-f2fs/traces/varmail.csv.gz"),
    include_bytes!("../../../../../../experiments/rezns/real-f2fs/traces/fileserver.csv.gz"),
    include_bytes!("../../../../../../experiments/rezns/real-f2fs/traces/dbbench.csv.gz"),
];
/// Filebench's output in the captures (varmail, fileserver): the operations each did.
const FILEBENCH_LOGS: [&str; 2] = [
    include_str!("../../../../../../experiments/rezns/real-f2fs/traces/varmail.log"),
    include_str!("../../../../../../experiments/rezns/real-f2fs/traces/fileserver.log"),
];
/// What each capture ran: kernel, device, prefill and workload sizes (capture.sh writes it).
pub const SCALE: &str =
    include_str!("../../../../../../experiments/rezns/real-f2fs/traces/scale.txt");
const REPLAY: &str = include_str!("../../../../../../experiments/rezns/real-f2fs/replay.toml");
const LIKE_FIO: &str =
    include_str!("../../../../../../experiments/rezns/real-f2fs/f2fs-like-fio.toml");
const LIKE_DB: &str =
    include_str!("../../../../../../experiments/rezns/real-f2fs/f2fs-like-dbbench.toml");
const LIKE_FB: &str =
    include_str!("../../../../../../experiments/rezns/real-f2fs/f2fs-like-filebench.toml");
/// The captured workloads: the paper's (fio, then Filebench, in [`PAPER_GAIN`]'s order), then
/// db_bench.
pub const WORKLOADS: [&str; 6] = [
    "fio fsync 16",
    "fio fsync 64",
    "fio fsync 128",
    "varmail",
    "fileserver",
    "db_bench",
];
const SLUGS: [&str; 6] = [
    "fsync16",
    "fsync64",
    "fsync128",
    "varmail",
    "fileserver",
    "dbbench",
];
/// The workloads with a number in the paper (fio and Filebench).
const PAPER_WORKLOADS: usize = PAPER_GAIN.len();

/// Filebench's operation count in a capture's output ("IO Summary: N ops").
fn filebench_ops(log: &str) -> Result<u64> {
    let line = log
        .lines()
        .find_map(|l| l.split_once("IO Summary: ").map(|(_, r)| r))
        .context("a capture's Filebench output has no IO Summary")?;
    let n = line.split_whitespace().next().unwrap_or("");
    n.parse()
        .with_context(|| format!("Filebench's IO Summary: {n:?} is not a count"))
}

/// The file count a Filebench capture used (scale.txt's fb_nfiles).
fn filebench_nfiles(slug: &str) -> Result<u64> {
    let line = SCALE
        .lines()
        .find(|l| l.split_whitespace().next() == Some(slug))
        .with_context(|| format!("scale.txt has no line for {slug}"))?;
    let v = line
        .split_whitespace()
        .find_map(|kv| kv.strip_prefix("fb_nfiles="))
        .with_context(|| format!("scale.txt's {slug} line has no fb_nfiles"))?;
    v.parse()
        .with_context(|| format!("scale.txt's {slug} fb_nfiles {v:?} is not a count"))
}

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
            self.rezns
                .summary
                .device_counters
                .counters
                .zone_resets_executed as f64,
            self.base
                .summary
                .device_counters
                .counters
                .zone_resets_executed as f64,
        )
    }
}

fn runs() -> Result<Vec<Traced>> {
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
    // Filebench as many operations as the capture did: the VM ran it at emulation speed (about
    // 2,600 operations a second), a small share of what the layer does in the same time.
    for (slug, log) in SLUGS[FSYNC.len()..PAPER_WORKLOADS]
        .iter()
        .zip(FILEBENCH_LOGS)
    {
        let overrides = vec![
            format!("filebench[0].personality=\"{slug}\""),
            format!("filebench[0].nfiles={}", filebench_nfiles(slug)?),
            format!("filebench[0].ops={}", filebench_ops(log)?),
        ];
        runs.push(Traced {
            run: Run::new(
                format!("like-{slug}"),
                LIKE_FB,
                traced([overrides, baseline()].concat()),
            ),
            trace: None,
            phase: Phase::All,
        });
    }
    runs.push(Traced {
        run: Run::new("like-dbbench", LIKE_DB, traced(baseline())),
        trace: None,
        phase: Phase::All,
    });
    Ok(runs)
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
    let mut done = parallel(runs()?, threads, |t| run_traced(out, t))?;
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
        let paper = PAPER_GAIN.get(i);
        let (b, r) = (&x.base.summary, &x.rezns.summary);
        let _ = writeln!(
            s,
            "| {} | {:.1} | {:.1} | {:+.1}% | {} | {} | {} | {:.0}% | {} | {} | {:.1} | {:.1} | {:.1} | {:.1} |",
            x.name,
            x.base.mib_per_s(),
            x.rezns.mib_per_s(),
            x.gain(),
            paper.map_or("-".into(), |g| format!("+{g:.0}%")),
            b.device_counters.counters.zone_resets_executed,
            r.device_counters.counters.zone_resets_executed,
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
/// trace replayed; the F2FS-like layer live, at the paper's scale (`pairs`, section "The
/// paper's stack").
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
    // The paper's gains (fio +1% to +9%, Filebench +13% and +60%) and fewer resets, workload
    // by workload: a gain counts when it clears the claims' no-change band (1 percentage point).
    let paper = &w[..PAPER_WORKLOADS.min(w.len())];
    let held = paper
        .iter()
        .filter(|x| x.gain() > 1.0 && x.fewer_resets() > 0.0)
        .count();
    let answer = match held {
        0 => "No, not on these workloads",
        n if n == paper.len() => "Yes",
        _ => "Partly",
    };
    // Workloads that never reset a zone: nothing for ReZNS to change, whatever the policy.
    let none: Vec<&str> = w
        .iter()
        .filter(|x| x.base.stats.resets == 0)
        .map(|x| x.name)
        .collect();
    let none = if none.is_empty() {
        String::new()
    } else {
        format!(
            " {} reset no zone at all: in the capture's 60 s, Filebench ran at the test VM's\n\
             emulated speed (about 2,600 operations a second) and wrote less than the free space.",
            none.join(" and ")
        )
    };
    format!(
        "\n**Do ReZNS's gains hold on a real F2FS?** {answer}: {held} of the {} fio and Filebench\n\
         workloads gain and reset fewer zones under ReZNS. Over the {} captured workloads real\n\
         F2FS reset {resets} zones, {partial} of them before they were full; ReZNS renews only\n\
         zones reset with room left, so it had {} to work with.{none} Replayed under ReZNS,\n\
         throughput changed by {g0:+.1}% to {g1:+.1}% (paper: +1% to +9% for fio, +13% and +60%\n\
         for Filebench) and zone resets by {r0:.0}% to {r1:.0}% fewer (paper: fewer; 20% and 29%\n\
         fewer for Filebench). The paper's baseline \"performs the zone-reset commands to reclaim\n\
         the zones even if the zones include available free space if the number of zones reaches\n\
         the maximum zone value\" (section 4.3); on its emulator's ZNS configuration there is no\n\
         such maximum (NVMeVirt sets the open and active limits to the zone count), and real F2FS\n\
         resets a zone only once the section on it holds no valid block, which for a\n\
         log-structured writer is a section it has filled. (Kernel 6.12 here, 5.16 in the paper.\n\
         In both, and since F2FS first supported zoned devices, a zone is reset only when F2FS\n\
         discards the whole section on it: fs/f2fs/segment.c, __f2fs_issue_discard_zone, which\n\
         refuses a discard that is not one whole zone.)\n",
        paper.len(),
        w.len(),
        if partial == 0 { "nothing" } else { "something" },
    )
}

/// Where the real-F2FS rows' causes are shown.
pub const WHY: &str = "summary.md, \"Real F2FS\" (how full the zones F2FS reset were)";

/// The paper's fio and Filebench numbers beside the real-F2FS replays'.
pub fn claims(w: &[Workload]) -> Vec<Claim> {
    let mut claims = Vec::new();
    for (i, x) in w.iter().take(PAPER_WORKLOADS).enumerate() {
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
        let what = format!(
            "{}: zone resets, ReZNS against baseline, real F2FS replayed",
            x.name
        );
        // 0 - x, not -x: equal counts are +0.0%, not -0.0%.
        let change = 0.0 - x.fewer_resets();
        let claim = match i.checked_sub(FSYNC.len()) {
            Some(k) => Claim::change(what, -PAPER_FEWER_RESETS[k], change),
            None => Claim::direction(what, Stated::Lower, change),
        };
        claims.push(claim.cause(WHY));
    }
    claims
}
