//! The files ZoneLab's front ends (the CLI, the fio engine) write: results directories and
//! device state files. A state file is
//! written whole under a temporary name beside it and renamed over the old one, so a reader
//! (the next fio process, `zonelab zone`) sees the old state or the new one, never a mix.
//!
//! A results directory holds only the current run's files: writing one removes the results
//! files an earlier run left there. Only files with the names ZoneLab gives its results go
//! ([`is_results_file`]); anything else a user put there stays, and a directory is only ever
//! removed when it is empty once its ZoneLab files are gone.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

/// Makes sure files can be created in `dir` (creating it), so a run that cannot keep what it
/// measures fails before it starts rather than after.
pub fn check_writable_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let probe = dir.join(format!(".zonelab-probe-{}", std::process::id()));
    std::fs::write(&probe, b"")
        .with_context(|| format!("cannot write files in {}", dir.display()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Whether `name` is a file ZoneLab writes into a run's results directory: `summary.json`,
/// `config.resolved.toml`, `trace.csv`, `zones.csv`, `erase_wait_cdf.csv`,
/// `firmware_over_time.csv`, `latency_percentiles.csv`, `timeseries*.csv` (per tenant too)
/// and `latency_cdf_*.csv`.
pub fn is_results_file(name: &str) -> bool {
    matches!(
        name,
        "summary.json"
            | "config.resolved.toml"
            | "trace.csv"
            | "zones.csv"
            | "erase_wait_cdf.csv"
            | "firmware_over_time.csv"
            | "latency_percentiles.csv"
    ) || (name.starts_with("timeseries") && name.ends_with(".csv"))
        || (name.starts_with("latency_cdf_") && name.ends_with(".csv"))
}

/// Removes the files in `dir` that `ours` recognises (not directories, not other files).
fn remove_files(dir: &Path, ours: &dyn Fn(&str) -> bool) -> Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", dir.display())),
    };
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot read {}", dir.display()))?;
        let name = entry.file_name();
        if ours(&name.to_string_lossy()) && entry.file_type()?.is_file() {
            std::fs::remove_file(entry.path())
                .with_context(|| format!("cannot remove {}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// Creates `dir` if need be and removes the results files an earlier run left in it
/// ([`is_results_file`]), except those named in `keep` (files this run has written already,
/// such as a trace streamed during the run).
pub fn clear_results_dir(dir: &Path, keep: &[&str]) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    remove_files(dir, &|name| is_results_file(name) && !keep.contains(&name))
}

/// Writes a run's results files (name, contents) into `dir`, which then holds no results file
/// of an earlier run: only these, and those named in `keep` that this run wrote already.
pub fn write_results_dir(dir: &Path, files: &[(String, String)], keep: &[&str]) -> Result<()> {
    clear_results_dir(dir, keep)?;
    for (name, text) in files {
        let p = dir.join(name);
        std::fs::write(&p, text).with_context(|| format!("cannot write {}", p.display()))?;
    }
    Ok(())
}

/// Removes what an earlier reproduction (`zonelab reproduce`) left in `dir`: `table.md`,
/// `summary.md`, the SVG figures in `figures/`, and the results files of each run directory in
/// `runs/`; `figures/`, `runs/` and each run's directory go too once that leaves them empty.
pub fn clear_reproduction_dir(dir: &Path) -> Result<()> {
    remove_files(dir, &|name| name == "table.md" || name == "summary.md")?;
    let figures = dir.join("figures");
    remove_files(&figures, &|name| name.ends_with(".svg"))?;
    remove_if_empty(&figures)?;
    let runs = dir.join("runs");
    if let Ok(entries) = std::fs::read_dir(&runs) {
        for entry in entries {
            let entry = entry.with_context(|| format!("cannot read {}", runs.display()))?;
            if entry.file_type()?.is_dir() {
                remove_files(&entry.path(), &is_results_file)?;
                remove_if_empty(&entry.path())?;
            }
        }
    }
    remove_if_empty(&runs)
}

/// Removes `dir` if it exists and is empty.
fn remove_if_empty(dir: &Path) -> Result<()> {
    let empty = std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_none());
    if empty {
        std::fs::remove_dir(dir).with_context(|| format!("cannot remove {}", dir.display()))?;
    }
    Ok(())
}

/// The directory a file goes into ("." for a bare name).
pub fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, synced, then
/// renamed over `path`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = parent(path);
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .with_context(|| format!("cannot write {}", tmp.path().display()))?;
    tmp.persist(path)
        .with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_atomic_write_replaces_the_file_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("zonelab-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("dev.state");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        assert!(check_writable_dir(&dir.join("sub")).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// Regression (stale files in a reused output directory): a trace.csv, a per-tenant time
    /// series, a latency CDF and an erase-wait CDF of an earlier run survived a later run that
    /// wrote none; a user's own files and directories must stay.
    #[test]
    fn stale_results_files_in_a_reused_output_directory() {
        let dir = std::env::temp_dir().join(format!("zonelab-stale-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("mine")).unwrap();
        for f in [
            "summary.json",
            "trace.csv",
            "timeseries_ns1.csv",
            "latency_cdf_kv_get.csv",
            "erase_wait_cdf.csv",
            "firmware_over_time.csv",
            "notes.txt",
            "mine/summary.json",
        ] {
            std::fs::write(dir.join(f), "old").unwrap();
        }
        let files = [("summary.json".to_string(), "new".to_string())];
        write_results_dir(&dir, &files, &[]).unwrap();
        assert_eq!(names(&dir), ["mine", "notes.txt", "summary.json"]);
        assert_eq!(
            std::fs::read_to_string(dir.join("summary.json")).unwrap(),
            "new"
        );
        assert!(
            dir.join("mine/summary.json").exists(),
            "subdirectories stay"
        );
        // A trace this run streamed is kept.
        std::fs::write(dir.join("trace.csv"), "this run").unwrap();
        write_results_dir(&dir, &files, &["trace.csv"]).unwrap();
        assert_eq!(
            names(&dir),
            ["mine", "notes.txt", "summary.json", "trace.csv"]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Regression (stale files in a reused output directory): a reproduction's figures and
    /// the run directories of an earlier reproduction survived a later one.
    #[test]
    fn stale_reproduction_files_in_a_reused_output_directory() {
        let dir = std::env::temp_dir().join(format!("zonelab-stale-rep-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for d in ["figures", "runs/old", "runs/kept"] {
            std::fs::create_dir_all(dir.join(d)).unwrap();
        }
        for f in [
            "summary.md",
            "table.md",
            "figures/fig3.svg",
            "runs/old/summary.json",
            "runs/old/zones.csv",
            "runs/kept/summary.json",
            "runs/kept/notes.txt",
            "README.txt",
        ] {
            std::fs::write(dir.join(f), "old").unwrap();
        }
        clear_reproduction_dir(&dir).unwrap();
        assert_eq!(names(&dir), ["README.txt", "runs"]);
        assert_eq!(names(&dir.join("runs")), ["kept"]);
        assert_eq!(names(&dir.join("runs/kept")), ["notes.txt"]);
        clear_reproduction_dir(&dir.join("absent")).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
