//! The `zonelab` command's reusable parts: loading experiment files and writing results, shared
//! by the CLI and the fio engine.

pub mod output;
pub mod state_file;

use std::path::Path;

use anyhow::{Context, Result};
use zonelab::config::{Blame, ConfigError, ExperimentConfig, blame};

/// Reads, overrides, merges and validates an experiment file.
pub fn load(path: &Path, overrides: &[String]) -> Result<(ExperimentConfig, zonelab::Experiment)> {
    let text = read(path)?;
    let name = default_name(path);
    let cfg = ExperimentConfig::parse(&text, overrides)
        .map_err(|e| blamed(path, &text, &name, overrides, e))?;
    let exp = cfg
        .validate(&name)
        .map_err(|e| blamed(path, &text, &name, overrides, e))?;
    Ok((cfg, exp))
}

/// Reads, overrides and merges an experiment file (not validated).
pub fn load_config(path: &Path, overrides: &[String]) -> Result<ExperimentConfig> {
    let text = read(path)?;
    ExperimentConfig::parse(&text, overrides)
        .map_err(|e| blamed(path, &text, &default_name(path), overrides, e))
}

/// A configuration error met after loading `path` with `overrides` (validating it again, say),
/// as [`load`] reports it: prefixed with the input to fix.
pub fn config_error(path: &Path, overrides: &[String], e: ConfigError) -> anyhow::Error {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    blamed(path, &text, &default_name(path), overrides, e)
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

/// The error as the CLI prints it, prefixed with the input to fix: `in FILE` or `--set KEY=VALUE`.
fn blamed(
    path: &Path,
    text: &str,
    name: &str,
    overrides: &[String],
    e: ConfigError,
) -> anyhow::Error {
    let prefix = match blame(text, name, overrides, &e) {
        Blame::File => format!("in {}", path.display()),
        Blame::Override(o) => format!("--set {o}"),
        Blame::Overrides => {
            let all: Vec<String> = overrides.iter().map(|o| format!("--set {o}")).collect();
            format!("in {} with {}", path.display(), all.join(" "))
        }
    };
    anyhow::Error::new(e).context(prefix)
}

/// An experiment's name when it gives none: the file's stem.
pub fn default_name(path: &Path) -> String {
    path.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("experiment")
        .to_string()
}
