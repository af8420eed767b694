//! ReZNS (Lee et al., ReZNS, Appl. Sci. 2024), section 4, on `rezns-40g`: the paper's stack ([`f2fs`]:
//! fio and Filebench on the F2FS-like file layer, Figures 3-6 and 11-14; YCSB on RocksDB over
//! it, [`ycsb`], Figures 7-14), real Linux F2FS's command streams of the same workloads replayed
//! under both policies beside the F2FS-like layer's ([`real`]) and, labelled as a stand-in, the
//! writers that reset partially written zones ([`standin`]). Every run goes to every core at once.

mod f2fs;
mod real;
mod standin;
mod summary;
mod ycsb;

use std::path::Path;

use anyhow::{Context, Result, bail};

use super::claims::publish;
use super::{Done, run_parallel, threads};

/// Fails when the YCSB stores would not fit the drive at `scale`.
pub fn check_scale(scale: super::Scale) -> Result<()> {
    if scale.factor() > ycsb::MAX_SCALE {
        bail!(
            "rezns runs at --scale {} at most (its YCSB stores' records on the 40 GB drive), \
             not {}",
            ycsb::MAX_SCALE,
            scale.factor()
        );
    }
    Ok(())
}

pub fn run(out: &Path, scale: super::Scale) -> Result<()> {
    check_scale(scale)?;
    run_at(out, f2fs::PAPER, Some(scale), threads())
}

/// Runs the paper's stack at `scale` (with the YCSB runs at `ycsb`'s scale, if given) and the
/// stand-in on `threads` threads, writes the figures and `summary.md`.
fn run_at(
    out: &Path,
    scale: f2fs::Scale,
    ycsb: Option<super::Scale>,
    threads: usize,
) -> Result<()> {
    let figures = out.join("figures");
    std::fs::create_dir_all(&figures)
        .with_context(|| format!("cannot create {}", figures.display()))?;
    let paper = f2fs::runs(scale);
    let n = paper.len();
    let mut runs = paper;
    let standin = standin::runs();
    let m = standin.len();
    runs.extend(standin);
    let kv_runs = ycsb.map_or_else(Vec::new, ycsb::runs);
    let kv_names: Vec<String> = kv_runs.iter().map(|r| r.name.clone()).collect();
    runs.extend(kv_runs);
    let mut outputs = run_parallel(out, runs, threads, |o| o)?;
    let kv = outputs.split_off(n + m);
    let rest = outputs.split_off(n);
    let pairs = f2fs::pairs(outputs.into_iter().map(|o| o.summary).collect())?;
    f2fs::figures(&figures, &pairs)?;
    let mut s = summary::paper_stack(&pairs, scale);
    if let Some(k) = ycsb {
        let what = format!(
            "the YCSB runs load {} records and run {} operations (fio, Filebench and the real \
             traces run as shipped: fio and Filebench already run at the paper's sizes)",
            k.count(ycsb::RECORDS),
            k.count(ycsb::OPERATIONS)
        );
        s = k.noted(&what, &s);
    }
    let mut claims = f2fs::claims(&pairs);
    if ycsb.is_some() {
        let mut done: Done = kv_names.into_iter().zip(kv).collect();
        claims.extend(ycsb::report(&mut done, &figures, &mut s)?);
        s += "\n";
    }
    let real = real::measure(out, threads)?;
    s += &real::report(&real);
    s += "\n";
    s += &real::beside_paper(&pairs, &real);
    s += "\n";
    claims.extend(real::claims(&real));
    s += &standin::report(&figures, rest.into_iter().map(|o| o.summary).collect())?;
    let s = publish(out, "rezns", &s, &claims)?;
    std::fs::write(out.join("summary.md"), &s)?;
    print!("{s}");
    eprintln!("results, figures and summary.md in {}", out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At a tiny scale the reproduction writes every figure and a summary whose numbers are the
    /// runs' own.
    #[test]
    fn a_tiny_reproduction_writes_figures_and_a_summary_from_its_runs() {
        // Removed when dropped, whether the test passes or fails.
        let tmp = tempfile::Builder::new()
            .prefix("zonelab-rezns-tiny-")
            .tempdir()
            .expect("a temporary directory");
        let out = tmp.path().to_path_buf();
        let scale = f2fs::Scale {
            fio_threads: 4,
            fio_file: "256KiB",
            filebench_run: "100ms",
        };
        run_at(&out, scale, None, 2).unwrap();
        let read = |name: &str| -> serde_json::Value {
            let p = out.join(format!("runs/{name}/summary.json"));
            serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
        };
        let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
        for w in [
            "fio-fsync16",
            "fio-fsync64",
            "fio-fsync128",
            "varmail",
            "fileserver",
        ] {
            let (b, r) = (
                read(&format!("f2fs-{w}-baseline")),
                read(&format!("f2fs-{w}-rezns")),
            );
            assert_eq!(b["layers"]["fs"]["personality"], "f2fs", "{w}");
            assert_eq!(r["firmware"]["kind"], "renewable", "{w}");
            let perf = |s: &serde_json::Value| {
                let f = &s["layers"]["files"][0];
                if w.starts_with("fio") {
                    f["mib_per_s"].as_f64()
                } else {
                    f["ops_per_s"].as_f64()
                }
                .unwrap()
            };
            assert!(perf(&b) > 0.0, "{w}");
            let row = summary
                .lines()
                .find(|l| l.starts_with(&format!("| {} |", w.replace("-fsync", " fsync "))))
                .unwrap_or_else(|| panic!("{w} row in\n{summary}"));
            assert!(row.contains(&format!("| {:.1} |", perf(&b))), "{row}");
            assert!(row.contains(&format!("| {:.1} |", perf(&r))), "{row}");
        }
        // The stand-in (run at full size: it is cheap) keeps the paper's direction of effect
        // (Figures 3, 4, 14): fewer zone erases, less erase energy, no lower throughput.
        assert!(summary.contains("## Stand-in (no file system)"));
        assert!(summary.contains("### The 25% threshold"));
        for f in [16, 64, 128] {
            let (base, renew) = (
                read(&format!("standin-fio-fsync{f}-baseline")),
                read(&format!("standin-fio-fsync{f}-renewable")),
            );
            let erased = |s: &serde_json::Value| {
                s["device_counters"]["zone_resets_executed"]
                    .as_u64()
                    .unwrap()
            };
            let erase_mj = |s: &serde_json::Value| s["energy"]["erase_mj"].as_f64().unwrap();
            let mib_s = |s: &serde_json::Value| s["ops"]["write"]["mib_per_s"].as_f64().unwrap();
            assert!(erased(&renew) < erased(&base), "fsync {f}");
            assert!(erase_mj(&renew) < erase_mj(&base), "fsync {f}");
            assert!(mib_s(&renew) >= mib_s(&base), "fsync {f}");
            assert_eq!(
                base["device_counters"]["zone_resets_requested"],
                renew["device_counters"]["zone_resets_requested"],
                "the host issues the same resets"
            );
        }
        assert!(
            out.join("runs/standin-zombie-idle-200ms/firmware_over_time.csv")
                .exists()
        );
        for f in [
            "fig3-fio-throughput.svg",
            "fig4-fio-zone-resets.svg",
            "fig5-filebench-ops.svg",
            "fig6-filebench-zone-resets.svg",
            "gain-beside-paper.svg",
            "fewer-resets-beside-paper.svg",
            "fig11-energy.svg",
            "fig12-breakdown-rezns.svg",
            "fig13-breakdown-baseline.svg",
            "fig14-reset-energy.svg",
            "standin-fig3-throughput.svg",
        ] {
            let svg = std::fs::read_to_string(out.join("figures").join(f)).unwrap();
            assert!(svg.contains("<svg"), "{f}");
        }
    }
}
