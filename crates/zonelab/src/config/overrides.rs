//! `--set key.path=value`: overrides applied to an experiment's TOML before it is read.

use super::ConfigError;

/// Sets `a.b.c = value` in a TOML table, creating tables on the way. The value is read as a TOML
/// literal when it parses as one, else as a string. Arrays of tables (`[[job]]`, `[[replay]]`,
/// `[[threads]]`) are reached by index or by name: `job.0.bs`, `job[0].bs`, `job.reader.bs`
/// (an entry without a name answers to its default name, `job0`).
pub fn apply_override(root: &mut toml::Table, assignment: &str) -> Result<(), ConfigError> {
    let (path, raw) = assignment
        .split_once('=')
        .ok_or_else(|| ConfigError::field(assignment, "an override is written key.path=value"))?;
    let path = path.trim();
    let raw = raw.trim();
    let value = match toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
    {
        Some(v) => v,
        None if raw
            .trim_start_matches(['-', '+'])
            .chars()
            .all(|c| c.is_ascii_digit())
            && !raw.is_empty() =>
        {
            return Err(ConfigError::field(
                path,
                format!("{raw} is not an integer TOML can hold (-2^63 to 2^63-1)"),
            ));
        }
        None => toml::Value::String(raw.to_string()),
    };
    let keys: Vec<String> = path
        .split('.')
        .flat_map(|k| match k.split_once('[') {
            Some((name, rest)) if rest.ends_with(']') => {
                vec![name.to_string(), rest.trim_end_matches(']').to_string()]
            }
            _ => vec![k.to_string()],
        })
        .collect();
    let mut table = root;
    let mut i = 0;
    while i < keys.len() {
        let key = &keys[i];
        if key.is_empty() {
            return Err(ConfigError::field(path, "has an empty key"));
        }
        if i + 1 == keys.len() {
            table.insert(key.clone(), value);
            return Ok(());
        }
        let entry = table
            .entry(key.clone())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        table = match entry {
            toml::Value::Table(t) => t,
            toml::Value::Array(entries) => {
                i += 1;
                if i + 1 == keys.len() {
                    return Err(ConfigError::field(
                        path,
                        format!("name a field of the `{key}` entry: {key}.{}.FIELD", keys[i]),
                    ));
                }
                array_entry(entries, key, &keys[i], path)?
            }
            _ => {
                return Err(ConfigError::field(
                    path,
                    format!("`{key}` is not a table, so it has no fields"),
                ));
            }
        };
        i += 1;
    }
    Ok(())
}

/// The entry of an array of tables `key` that `which` names: an index, a `name`, or the default
/// name `{key}{index}`.
fn array_entry<'a>(
    entries: &'a mut [toml::Value],
    key: &str,
    which: &str,
    path: &str,
) -> Result<&'a mut toml::Table, ConfigError> {
    let names: Vec<String> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            e.get("name")
                .and_then(|n| n.as_str())
                .map_or(format!("{key}{i}"), String::from)
        })
        .collect();
    let index = which
        .parse::<usize>()
        .ok()
        .or_else(|| names.iter().position(|n| n == which))
        .filter(|&i| i < entries.len())
        .ok_or_else(|| {
            ConfigError::field(
                path,
                format!(
                    "no [[{key}]] entry `{which}`: the file has {} ({})",
                    entries.len(),
                    names.join(", ")
                ),
            )
        })?;
    entries[index]
        .as_table_mut()
        .ok_or_else(|| ConfigError::field(path, format!("`{key}` entry {index} is not a table")))
}

/// Which input a configuration error comes from, so a front end names the one to fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blame<'a> {
    /// The experiment text itself (it gives the same error without the overrides).
    File,
    /// This override (`key.path=value`): the error's field is its key.
    Override(&'a str),
    /// The overrides together, none of them alone named by the error.
    Overrides,
}

/// Where `error`, from loading `text` with `overrides` (parsed, then validated with
/// `default_name`), comes from: the text is loaded again without them to tell.
pub fn blame<'a>(
    text: &str,
    default_name: &str,
    overrides: &'a [String],
    error: &ConfigError,
) -> Blame<'a> {
    if overrides.is_empty() {
        return Blame::File;
    }
    let alone = super::ExperimentConfig::parse(text, &[])
        .and_then(|cfg| cfg.validate(default_name).map(|_| ()))
        .err();
    if alone.is_some_and(|e| e.to_string() == error.to_string()) {
        return Blame::File;
    }
    let field = match error {
        ConfigError::Field { path, .. } => path.as_str(),
        ConfigError::UnknownPreset(_) => "preset",
        ConfigError::Syntax(_) => return Blame::Overrides,
    };
    overrides
        .iter()
        .rev()
        .find(|o| same_key(o.split_once('=').map_or(o.as_str(), |(k, _)| k), field))
        .map_or(Blame::Overrides, |o| Blame::Override(o))
}

/// Whether an override's key names an error's field path: `job[1].iodepth` answers to
/// `job.1.iodepth`, `job[1].iodepth` and, for any entry's name, `job.writer.iodepth` (the
/// error is not the file's, so it is the override's when the rest of the path agrees).
fn same_key(key: &str, field: &str) -> bool {
    let split = |s: &str| -> Vec<String> {
        s.trim()
            .replace('[', ".")
            .replace(']', "")
            .split('.')
            .map(str::to_string)
            .collect()
    };
    let (k, f) = (split(key), split(field));
    k.len() == f.len()
        && k.iter().zip(&f).enumerate().all(|(i, (a, b))| {
            a == b || (i == 1 && matches!(k[0].as_str(), "job" | "replay" | "threads"))
        })
}

#[cfg(test)]
mod blame_tests {
    use super::{Blame, blame};
    use crate::config::ExperimentConfig;

    const TEXT: &str = "preset = \"rezns-40g\"\n[[job]]\nname = \"w\"\nrw = \"write\"\nbs = \"4KiB\"\nsize = \"1z\"\n";

    fn blamed<'a>(text: &str, overrides: &'a [String]) -> Blame<'a> {
        let e = ExperimentConfig::parse(text, overrides)
            .and_then(|c| c.validate("t").map(|_| ()))
            .expect_err("an error");
        blame(text, "t", overrides, &e)
    }

    #[test]
    fn an_error_is_blamed_on_the_input_that_causes_it() {
        let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let o = set(&["job.w.iodepth=-1"]);
        assert_eq!(blamed(TEXT, &o), Blame::Override("job.w.iodepth=-1"));
        let o = set(&["job[0].rwmixread=300", "seed=3"]);
        assert_eq!(blamed(TEXT, &o), Blame::Override("job[0].rwmixread=300"));
        let o = set(&["device.zones.zone_count=0"]);
        assert_eq!(
            blamed(TEXT, &o),
            Blame::Override("device.zones.zone_count=0")
        );
        let o = set(&["nonsense"]);
        assert_eq!(blamed(TEXT, &o), Blame::Override("nonsense"));
        // The file's own error stays the file's, whatever is set beside it.
        let bad = TEXT.replace("bs = \"4KiB\"", "bs = \"4KiB\"\niodepth = -3");
        assert_eq!(blamed(&bad, &set(&["job.w.bs=8KiB"])), Blame::File);
        assert_eq!(blamed(&bad, &[]), Blame::File);
    }
}
