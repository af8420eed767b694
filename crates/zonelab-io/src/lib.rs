//! The files ZoneLab's front ends (the CLI, the fio engine) write: results directories and
//! device state files. A state file is
//! written whole under a temporary name beside it and renamed over the old one, so a reader
//! (the next fio process, `zonelab zone`) sees the old state or the new one, never a mix.

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
}
