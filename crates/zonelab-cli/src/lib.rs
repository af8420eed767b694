//! The `zonelab` command's reusable parts: loading experiment files and writing results, shared
//! by the CLI and the fio engine.

pub mod output;

use std::path::Path;

use anyhow::{Context, Result};
use zonelab::config::ExperimentConfig;

/// Reads, overrides, merges and validates an experiment file.
pub fn load(path: &Path, overrides: &[String]) -> Result<(ExperimentConfig, zonelab::Experiment)> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("experiment");
    let cfg = ExperimentConfig::parse(&text, overrides)
        .with_context(|| format!("in {}", path.display()))?;
    let exp = cfg
        .validate(stem)
        .with_context(|| format!("in {}", path.display()))?;
    Ok((cfg, exp))
}
