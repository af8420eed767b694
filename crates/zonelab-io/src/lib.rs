//! The files ZoneLab's front ends (the CLI, the fio engine) write: results directories and
//! device state files. A state file is
//! written whole under a temporary name beside it and renamed over the old one, so a reader
//! (the next fio process, `zonelab zone`) sees the old state or the new one, never a mix.
//!
//! A results directory holds only the current run's files: writing one removes the results
//! files an earlier run left there. Only files with the names ZoneLab gives its results go
//! ([`is_results_file`]); anything else a user put there stays, and a directory is only ever
//! removed when it is empty once its ZoneLab files are gone.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;

use anyhow::{Context, Result};

/// Opens a trace to replay; a file whose name ends in `.gz` is read through gzip (the traces the
/// repository keeps are compressed).
pub fn open_trace(path: &Path) -> std::io::Result<Box<dyn BufRead>> {
    let file = std::fs::File::open(path)?;
    Ok(if path.extension().is_some_and(|e| e == "gz") {
        Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(file)))
    } else {
        Box::new(BufReader::new(file))
    })
}

/// A gzipped trace held in memory (one the binary carries), read as text.
pub fn gunzip(bytes: &'static [u8]) -> Box<dyn BufRead> {
    Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(bytes)))
}

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
/// of an earlier run: only these, and those named in `keep` that this run wrote already. All
/// or nothing: every file is written under a temporary name first, and only when all are
/// written do they replace the earlier run's (a full disk left half a results directory:
/// issue 36); if one cannot be written, the temporaries go and the directory is as it was.
pub fn write_results_dir(dir: &Path, files: &[(String, String)], keep: &[&str]) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut written = Vec::new();
    for (name, text) in files {
        let tmp = temporary(&dir.join(name));
        let result = std::fs::File::create(&tmp)
            .and_then(|mut f| f.write_all(text.as_bytes()).and_then(|()| f.sync_all()));
        written.push(tmp);
        if let Err(e) = result {
            for t in &written {
                let _ = std::fs::remove_file(t);
            }
            return Err(e).with_context(|| format!("cannot write {}", dir.join(name).display()));
        }
    }
    let mut ours: Vec<&str> = keep.to_vec();
    ours.extend(files.iter().map(|(n, _)| n.as_str()));
    clear_results_dir(dir, &ours)?;
    for ((name, _), tmp) in files.iter().zip(&written) {
        let p = dir.join(name);
        std::fs::rename(tmp, &p).with_context(|| format!("cannot write {}", p.display()))?;
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

/// The temporary a write of `path` by this process goes through: beside it, named after it,
/// so whoever next holds the file's lock finds what a killed writer left
/// ([`remove_stale_temporaries`]).
fn temporary(path: &Path) -> std::path::PathBuf {
    let name = path
        .file_name()
        .map_or("file".into(), |n| n.to_string_lossy().to_string());
    parent(path).join(format!(".{name}.{}{TMP_SUFFIX}", std::process::id()))
}

/// What every temporary ends with.
const TMP_SUFFIX: &str = ".zonelab-tmp";

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, synced, then
/// renamed over `path`. The new file has the old one's permissions, or those the umask gives
/// a new file (a temporary file library's 0600 ignored the umask: issue 36). A write that
/// fails removes its temporary; one killed leaves it for [`remove_stale_temporaries`].
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, |f| Ok(f.write_all(bytes)?))
}

/// [`write_atomic`] of what `write` writes into the file, for contents too large to build in
/// memory first. `write` may fail with an error of its own; the temporary then goes.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut std::fs::File) -> Result<()>,
) -> Result<()> {
    let tmp = temporary(path);
    let written = (|| -> Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)?;
        if let Ok(meta) = std::fs::metadata(path) {
            f.set_permissions(meta.permissions())?;
        }
        write(&mut f)?;
        Ok(f.sync_all()?)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("cannot write {}", path.display()));
    }
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("cannot replace {}", path.display()));
    }
    Ok(())
}

/// Removes the temporaries earlier writes of `path` left when they were killed mid-save (a
/// kill during each of 22 saves of a 268 MB state file left 1 GB of them: issue 36). Call it
/// holding the file's lock ([`lock`]): no other writer of `path` is running then.
pub fn remove_stale_temporaries(path: &Path) -> Result<()> {
    let name = path
        .file_name()
        .map_or("file".into(), |n| n.to_string_lossy().to_string());
    let prefix = format!(".{name}.");
    let dir = parent(path);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let n = entry.file_name().to_string_lossy().to_string();
        let pid = n
            .strip_prefix(&prefix)
            .and_then(|r| r.strip_suffix(TMP_SUFFIX));
        if pid.is_some_and(|p| p.parse::<u32>().is_ok()) {
            std::fs::remove_file(entry.path())
                .with_context(|| format!("cannot remove {}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// An advisory lock on a device state file (`flock` on `.NAME.lock` beside it, since the
/// file itself is replaced at every save), held from load to save: a second process using the
/// same file is refused, naming the holder, instead of both saving and the last one silently
/// dropping the other's acknowledged writes (issue 36). Released when dropped (or when the
/// holder dies).
pub struct StateLock {
    _file: std::fs::File,
}

/// How long a held lock is waited for before its would-be user is refused (CHOSEN): a user
/// that has just let go may not have released it yet (the seed swarm, which runs many process
/// lifetimes of the device manager in one process, was once refused by the lifetime before,
/// beside a loaded test suite, and not again when replayed); a real second user is still refused
/// within a second.
const LOCK_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// Takes the lock of the state file `path` for `holder` (a description such as "zonelab zone
/// open"), or says who has it.
pub fn lock(path: &Path, holder: &str) -> Result<StateLock> {
    let name = path
        .file_name()
        .map_or("file".into(), |n| n.to_string_lossy().to_string());
    let lock_path = parent(path).join(format!(".{name}.lock"));
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock_path)
        .with_context(|| format!("cannot open the lock file {}", lock_path.display()))?;
    let deadline = std::time::Instant::now() + LOCK_GRACE;
    loop {
        match file.try_lock() {
            Ok(()) => break,
            Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut who = String::new();
                let _ = std::io::Read::read_to_string(&mut file, &mut who);
                let who = who.trim();
                anyhow::bail!(
                    "{} is in use by {}; wait for it to finish (two users of one state file would each save their own device, and the last save would drop the other's writes)",
                    path.display(),
                    if who.is_empty() {
                        "another process"
                    } else {
                        who
                    }
                );
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("cannot lock {}", lock_path.display()));
            }
        }
    }
    file.set_len(0)?;
    writeln!(file, "process {} ({holder})", std::process::id())?;
    remove_stale_temporaries(path)?;
    Ok(StateLock { _file: file })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_atomic_write_replaces_the_file_and_leaves_no_temporary() {
        // Removed when dropped, whether the test passes or fails.
        let tmp = tempfile::Builder::new()
            .prefix("zonelab-files-")
            .tempdir()
            .expect("a temporary directory");
        let dir = tmp.path().to_path_buf();
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("dev.state");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        // What a save killed half-way leaves goes when the file is next locked.
        std::fs::write(dir.join(".dev.state.99999.zonelab-tmp"), b"half").unwrap();
        std::fs::write(dir.join(".other.state.99999.zonelab-tmp"), b"half").unwrap();
        let held = lock(&p, "test").unwrap();
        assert!(!dir.join(".dev.state.99999.zonelab-tmp").exists());
        assert!(
            dir.join(".other.state.99999.zonelab-tmp").exists(),
            "another file's stays"
        );
        drop(held);
        assert!(check_writable_dir(&dir.join("sub")).is_ok());
    }

    /// Regression (issue 36, defect 10): a results directory on a full disk was left
    /// half-written (the earlier run's files removed, some of this run's written). A file that
    /// cannot be written now leaves the directory as it was, and no temporary behind.
    #[test]
    fn a_results_directory_is_written_whole_or_not_at_all() {
        // Removed when dropped, whether the test passes or fails.
        let tmp = tempfile::Builder::new()
            .prefix("zonelab-whole-")
            .tempdir()
            .expect("a temporary directory");
        let dir = tmp.path().to_path_buf();
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("summary.json"), "old").unwrap();
        std::fs::write(dir.join("zones.csv"), "old").unwrap();
        // The second file's temporary cannot be created (a directory is in its way), as a
        // write fails on a full disk.
        std::fs::create_dir(temporary(&dir.join("zones.csv"))).unwrap();
        let files = [
            ("summary.json".to_string(), "new".to_string()),
            ("zones.csv".to_string(), "new".to_string()),
        ];
        assert!(write_results_dir(&dir, &files, &[]).is_err());
        std::fs::remove_dir(temporary(&dir.join("zones.csv"))).unwrap();
        assert_eq!(names(&dir), ["summary.json", "zones.csv"]);
        assert_eq!(
            std::fs::read_to_string(dir.join("summary.json")).unwrap(),
            "old"
        );
        write_results_dir(&dir, &files, &[]).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("zones.csv")).unwrap(),
            "new"
        );
        assert_eq!(names(&dir), ["summary.json", "zones.csv"]);
    }

    /// Regression (issue 36, defect 3): two processes on one state file each saved their own
    /// device and the last save dropped the other's acknowledged writes. The second is refused
    /// while the first holds the file, and is told who holds it; once released, it may go.
    #[test]
    fn a_second_user_of_a_state_file_is_refused_naming_the_holder() {
        // Removed when dropped, whether the test passes or fails.
        let tmp = tempfile::Builder::new()
            .prefix("zonelab-lock-")
            .tempdir()
            .expect("a temporary directory");
        let dir = tmp.path().to_path_buf();
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("dev.state");
        let first = lock(&p, "zonelab run exp.toml").unwrap();
        let err = lock(&p, "zonelab zone open")
            .err()
            .expect("refused")
            .to_string();
        assert!(err.contains("is in use by process"), "{err}");
        assert!(err.contains("zonelab run exp.toml"), "{err}");
        drop(first);
        let _again = lock(&p, "zonelab zone open").unwrap();
    }

    /// A holder that lets go within the grace is waited for, not reported as a second user.
    #[test]
    fn a_lock_released_within_the_grace_is_taken() {
        // Removed when dropped, whether the test passes or fails.
        let tmp = tempfile::Builder::new()
            .prefix("zonelab-lock-")
            .tempdir()
            .expect("a temporary directory");
        let p = tmp.path().join("dev.state");
        let first = lock(&p, "the lifetime before").unwrap();
        let letting_go = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            drop(first);
        });
        let taken = lock(&p, "the next lifetime");
        letting_go.join().unwrap();
        assert!(taken.is_ok(), "{:#}", taken.err().unwrap());
    }

    /// Regression (issue 36, defect 11): state files ignored the umask (always 0600).
    #[cfg(unix)]
    #[test]
    fn a_new_file_takes_the_umask_and_a_replaced_one_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        // Removed when dropped, whether the test passes or fails.
        let tmp = tempfile::Builder::new()
            .prefix("zonelab-mode-")
            .tempdir()
            .expect("a temporary directory");
        let dir = tmp.path().to_path_buf();
        std::fs::create_dir_all(&dir).unwrap();
        let (fresh, kept) = (dir.join("fresh"), dir.join("kept"));
        std::fs::write(dir.join("plain"), b"x").unwrap();
        let umasked = std::fs::metadata(dir.join("plain"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        write_atomic(&fresh, b"x").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&fresh), umasked, "as any new file");
        std::fs::write(&kept, b"x").unwrap();
        std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&kept, b"y").unwrap();
        assert_eq!(mode(&kept), 0o640);
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
        // Removed when dropped, whether the test passes or fails.
        let tmp = tempfile::Builder::new()
            .prefix("zonelab-stale-")
            .tempdir()
            .expect("a temporary directory");
        let dir = tmp.path().to_path_buf();
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
    }

    /// Regression (stale files in a reused output directory): a reproduction's figures and
    /// the run directories of an earlier reproduction survived a later one.
    #[test]
    fn stale_reproduction_files_in_a_reused_output_directory() {
        // Removed when dropped, whether the test passes or fails.
        let tmp = tempfile::Builder::new()
            .prefix("zonelab-stale-rep-")
            .tempdir()
            .expect("a temporary directory");
        let dir = tmp.path().to_path_buf();
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
    }
}
