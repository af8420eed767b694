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
