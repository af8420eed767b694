//! `zonelab._zonelab`: the native part of the `zonelab` Python package (python/zonelab). It
//! parses experiments with the core's parser, runs them with the GIL released, and hands the
//! results to [`convert`], the one module that knows the core's result types. It adds no
//! behaviour of its own: what `zonelab run` models, Python models, byte for byte.

mod convert;
mod value;

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, Once};

use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use zonelab::config::{ConfigError, ExperimentConfig, presets};
use zonelab::sim::RunOutput;

/// The Python exception for a bad experiment: `zonelab.ConfigError(message, field)`, defined in
/// python/zonelab/_errors.py so it pickles (Dask workers send it back).
fn config_error(py: Python<'_>, source: Option<&str>, e: &ConfigError) -> PyErr {
    let message = match source {
        // As the CLI prints it: `error: in FILE: field: rule`.
        Some(s) => format!("in {s}: {e}"),
        None => e.to_string(),
    };
    let field = match e {
        ConfigError::Field { path, .. } => Some(path.clone()),
        ConfigError::UnknownPreset(_) => Some("preset".to_string()),
        ConfigError::Syntax(_) => None,
    };
    let make = || -> PyResult<PyErr> {
        let class = py.import("zonelab._errors")?.getattr("ConfigError")?;
        Ok(PyErr::from_value(
            class.call1((message.clone(), field.clone()))?,
        ))
    };
    make().unwrap_or_else(|e| e)
}

/// Parses and validates, as `zonelab check` does.
fn load(
    py: Python<'_>,
    text: &str,
    default_name: &str,
    overrides: &[String],
    source: Option<&str>,
) -> PyResult<(ExperimentConfig, zonelab::Experiment)> {
    let cfg = ExperimentConfig::parse(text, overrides).map_err(|e| config_error(py, source, &e))?;
    let exp = cfg
        .validate(default_name)
        .map_err(|e| config_error(py, source, &e))?;
    Ok((cfg, exp))
}

/// The resolved configuration of an experiment, as TOML (config.resolved.toml), and its name.
/// Raises ConfigError as a run would.
#[pyfunction]
#[pyo3(signature = (text, default_name, overrides, source=None))]
fn check(
    py: Python<'_>,
    text: &str,
    default_name: &str,
    overrides: Vec<String>,
    source: Option<&str>,
) -> PyResult<(String, String)> {
    let (cfg, exp) = load(py, text, default_name, &overrides, source)?;
    Ok((cfg.to_toml(), exp.name))
}

/// Panic payload that unwinds a run out of the core when Python wants it stopped (Ctrl-C, or an
/// exception in the progress callback). The core holds no state outside the run, so dropping it
/// mid-way is safe.
struct Stop;

fn quiet_stop_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !info.payload().is::<Stop>() {
                previous(info);
            }
        }));
    });
}

/// Parses, validates and runs an experiment with the GIL released. `progress(fraction,
/// simulated_ns)` is called every 65,536 events; if it raises, or a signal handler does
/// (Ctrl-C), the run stops and the exception propagates.
#[pyfunction]
#[pyo3(signature = (text, default_name, overrides, source=None, progress=None))]
fn run(
    py: Python<'_>,
    text: &str,
    default_name: &str,
    overrides: Vec<String>,
    source: Option<&str>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Run> {
    let (cfg, exp) = load(py, text, default_name, &overrides, source)?;
    quiet_stop_panics();
    let fingerprint = cfg.fingerprint();
    let mut stopped: Option<PyErr> = None;
    let outcome = py.detach(|| {
        catch_unwind(AssertUnwindSafe(|| {
            zonelab::run(&exp, fingerprint, &mut |p| {
                let stop = Python::attach(|py| {
                    py.check_signals().err().or_else(|| {
                        progress
                            .as_ref()
                            .and_then(|f| f.call1(py, (p.fraction, p.simulated_ns)).err())
                    })
                });
                if let Some(e) = stop {
                    stopped = Some(e);
                    std::panic::panic_any(Stop);
                }
            })
        }))
    });
    match outcome {
        Ok(out) => Ok(Run {
            state: Mutex::new(State { cfg, out }),
        }),
        Err(payload) if payload.is::<Stop>() => {
            Err(stopped.expect("a stopped run leaves its exception"))
        }
        Err(payload) => resume_unwind(payload),
    }
}

/// An experiment given as a dict, as the TOML text the CLI would read.
#[pyfunction]
fn dict_to_toml(dict: &Bound<'_, PyDict>) -> PyResult<String> {
    let table = value::table(dict, "")?;
    Ok(toml::to_string(&table).expect("a TOML table always serializes"))
}

/// `key=value` for the core's override parser, the value written as a TOML literal.
#[pyfunction]
fn override_assignment(key: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(format!("{key}={}", value::to_toml(value, key)?))
}

/// The device presets: (name, description, TOML text).
#[pyfunction]
fn preset_list() -> PyResult<Vec<(String, String, String)>> {
    presets::PRESETS
        .iter()
        .map(|(name, text)| {
            let cfg: zonelab::config::DeviceConfig = toml::from_str(text)
                .map_err(|e| PyKeyError::new_err(format!("preset {name}: {e}")))?;
            Ok((name.to_string(), cfg.description, text.to_string()))
        })
        .collect()
}

struct State {
    cfg: ExperimentConfig,
    out: RunOutput,
}

/// A finished run: the configuration it resolved to and everything it measured. Tables are
/// converted when asked for.
#[pyclass(frozen, module = "zonelab._zonelab")]
struct Run {
    state: Mutex<State>,
}

impl Run {
    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while converting cannot leave the state half-changed: conversions only read.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[pymethods]
impl Run {
    fn summary_json(&self) -> String {
        convert::summary_json(&self.state().out)
    }

    fn config_toml(&self) -> String {
        self.state().cfg.to_toml()
    }

    fn ops(&self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        convert::ops(py, &self.state().out)
    }

    fn timeseries(&self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        convert::timeseries(py, &self.state().out)
    }

    fn cdf_kinds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, convert::cdf_kinds(&self.state().out))
    }

    fn latency_cdf(&self, py: Python<'_>, kind: &str) -> PyResult<Option<Py<PyDict>>> {
        convert::latency_cdf(py, &self.state().out, kind)
    }

    fn zones(&self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        convert::zones(py, &self.state().out)
    }

    fn firmware(&self, py: Python<'_>) -> PyResult<Option<(String, Py<PyDict>)>> {
        convert::firmware(py, &self.state().out)
    }

    /// Writes the results directory `zonelab run -o DIR` writes (same files, same bytes).
    fn write(&self, dir: PathBuf) -> PyResult<()> {
        let state = self.state();
        zonelab_cli::output::write_results(&dir, &state.cfg, &state.out)
            .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("{e:#}")))
    }
}

#[pymodule]
fn _zonelab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(dict_to_toml, m)?)?;
    m.add_function(wrap_pyfunction!(override_assignment, m)?)?;
    m.add_function(wrap_pyfunction!(preset_list, m)?)?;
    m.add_class::<Run>()?;
    Ok(())
}
