//! Python values to TOML: an experiment given as a dict becomes the TOML text the CLI would read,
//! and an override value becomes the literal of a `--set key=value`. Everything then goes
//! through the core's one parser, so a dict and a file fail with the same field and message.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// `value` as TOML; `path` names it in errors (`job[0].bs`).
pub fn to_toml(value: &Bound<'_, PyAny>, path: &str) -> PyResult<toml::Value> {
    // bool before int: Python's bool is an int.
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(toml::Value::Boolean(b.is_true()));
    }
    if value.cast::<PyInt>().is_ok() {
        let i: i64 = value.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "{path}: {value} does not fit a TOML integer (64-bit signed)"
            ))
        })?;
        return Ok(toml::Value::Integer(i));
    }
    if let Ok(f) = value.cast::<PyFloat>() {
        return Ok(toml::Value::Float(f.value()));
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(toml::Value::String(s.to_str()?.to_string()));
    }
    if let Ok(d) = value.cast::<PyDict>() {
        return Ok(toml::Value::Table(table(d, path)?));
    }
    if value.cast::<PyList>().is_ok() || value.cast::<PyTuple>().is_ok() {
        let mut items = Vec::new();
        for (i, item) in value.try_iter()?.enumerate() {
            items.push(to_toml(&item?, &format!("{path}[{i}]"))?);
        }
        return Ok(toml::Value::Array(items));
    }
    let kind = value.get_type().name()?;
    Err(PyTypeError::new_err(format!(
        "{path}: a {kind} cannot be written in an experiment (use str, int, float, bool, list or dict)"
    )))
}

/// A dict of str keys as a TOML table.
pub fn table(dict: &Bound<'_, PyDict>, path: &str) -> PyResult<toml::Table> {
    let mut t = toml::Table::new();
    for (k, v) in dict.iter() {
        let key: String = k
            .extract()
            .map_err(|_| PyTypeError::new_err(format!("{path}: keys must be strings, not {k}")))?;
        let child = if path.is_empty() {
            key.clone()
        } else {
            format!("{path}.{key}")
        };
        t.insert(key, to_toml(&v, &child)?);
    }
    Ok(t)
}
