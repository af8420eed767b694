//! The `zonelab` command's reusable parts: loading experiment files and writing results, shared
//! by the CLI and the fio engine.

pub mod output;
pub mod state_file;

use std::path::Path;

use anyhow::{Context, Result};
use zonelab::config::ExperimentConfig;

/// Reads, overrides, merges and validates an experiment file.
pub fn load(path: &Path, overrides: &[String]) -> Result<(ExperimentConfig, zonelab::Experiment)> {
    let cfg = load_config(path, overrides)?;
    let exp = cfg
        .validate(&default_name(path))
        .with_context(|| format!("in {}", path.display()))?;
    Ok((cfg, exp))
}

/// Reads, overrides and merges an experiment file (not validated).
pub fn load_config(path: &Path, overrides: &[String]) -> Result<ExperimentConfig> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    ExperimentConfig::parse(&text, overrides).with_context(|| format!("in {}", path.display()))
}

/// An experiment's name when it gives none: the file's stem.
pub fn default_name(path: &Path) -> String {
    path.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("experiment")
        .to_string()
}
