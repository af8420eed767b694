//! The device presets shipped in `presets/`, compiled in so the binary is self-contained.
//! Each file cites the source of every constant it sets.

use super::ConfigError;

/// (name, TOML text) of every preset, in the order `zonelab presets list` prints them.
pub const PRESETS: &[(&str, &str)] = &[
    (
        "rezns-40g",
        include_str!("../../../../presets/rezns-40g.toml"),
    ),
    (
        "cosmos-zns",
        include_str!("../../../../presets/cosmos-zns.toml"),
    ),
    (
        "nvmevirt-zn540",
        include_str!("../../../../presets/nvmevirt-zn540.toml"),
    ),
    ("zn540", include_str!("../../../../presets/zn540.toml")),
    (
        "smallzone-4t",
        include_str!("../../../../presets/smallzone-4t.toml"),
    ),
    (
        "hynix-1t",
        include_str!("../../../../presets/hynix-1t.toml"),
    ),
    (
        "zn540-conv-op7",
        include_str!("../../../../presets/zn540-conv-op7.toml"),
    ),
    (
        "zn540-conv-op28",
        include_str!("../../../../presets/zn540-conv-op28.toml"),
    ),
    (
        "proto-conv-1t-op7",
        include_str!("../../../../presets/proto-conv-1t-op7.toml"),
    ),
    (
        "proto-conv-1t-op28",
        include_str!("../../../../presets/proto-conv-1t-op28.toml"),
    ),
];

/// The preset's text, as shipped (with its source comments).
pub fn text(name: &str) -> Result<&'static str, ConfigError> {
    PRESETS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .ok_or_else(|| ConfigError::UnknownPreset(name.to_string()))
}

/// The preset as a TOML table, ready to be overlaid by an experiment's `[device]`.
pub fn table(name: &str) -> Result<toml::Table, ConfigError> {
    toml::from_str(text(name)?).map_err(|e| ConfigError::Syntax(format!("preset {name}: {e}")))
}
