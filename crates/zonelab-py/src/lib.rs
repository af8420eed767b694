//! `zonelab._zonelab`: the native part of the `zonelab` Python package (python/zonelab). It
//! parses experiments with the core's parser, runs them with the GIL released, and hands the
//! results to [`convert`], the one module that knows the core's result types. It adds no
//! behaviour of its own: what `zonelab run` models, Python models, byte for byte.

mod convert;
mod value;

use std::cell::RefCell;
use std::io::BufRead;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Mutex, MutexGuard, Once};

use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use zonelab::config::{Blame, ConfigError, ExperimentConfig, blame, presets};
use zonelab::experiment::{Inputs, RunError, RunOutput};
use zonelab::trace::{TraceRecord, TraceSink};

/// The Python exception for a run that cannot finish (an unreadable trace, a deadlock of host
/// tasks): `zonelab.RunError(message)`.
fn run_error(py: Python<'_>, e: &RunError) -> PyErr {
    run_error_text(py, &e.to_string())
}

/// A panic is a ZoneLab bug; Python gets it as `zonelab.RunError` (an `Exception`), naming it as
/// one. PyO3 would raise its `PanicException`, which derives from `BaseException`, so `except
/// Exception` missed it (issue 36).
fn internal_error(py: Python<'_>, payload: &(dyn std::any::Any + Send)) -> PyErr {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into());
    run_error_text(
        py,
        &format!("internal error (a ZoneLab bug; please report it with the experiment): {what}"),
    )
}

fn run_error_text(py: Python<'_>, message: &str) -> PyErr {
    let make = || -> PyResult<PyErr> {
        let class = py.import("zonelab._errors")?.getattr("RunError")?;
        Ok(PyErr::from_value(class.call1((message,))?))
    };
    make().unwrap_or_else(|e| e)
}

/// Runs `f`, turning a panic into [`internal_error`]: every entry point goes through it.
fn guarded<T>(py: Python<'_>, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| Err(internal_error(py, &*payload)))
}

/// Panics, for the tests of [`guarded`] (a panic cannot be provoked from valid input).
#[pyfunction]
fn _panic_for_tests(py: Python<'_>) -> PyResult<()> {
    guarded(py, || panic!("a deliberate panic"))
}

/// Keeps trace records in memory for Python (`Result.trace`).
struct Collect(Rc<RefCell<Vec<TraceRecord>>>);

impl TraceSink for Collect {
    fn record(&mut self, r: &TraceRecord) {
        self.0.borrow_mut().push(r.clone());
    }
}

/// The traces `[[replay]]`s name, relative to the experiment file (or the working directory).
fn replay_inputs(
    exp: &zonelab::Experiment,
    source: Option<&str>,
) -> Result<Vec<Box<dyn BufRead>>, String> {
    let base = source
        .and_then(|s| Path::new(s).parent())
        .unwrap_or(Path::new("."));
    exp.replays
        .iter()
        .map(|r| {
            let p = base.join(&r.trace);
            zonelab_io::open_trace(&p)
                .map_err(|e| format!("replay `{}`: cannot open {}: {e}", r.name, p.display()))
        })
        .collect()
}

/// The Python exception for a bad experiment: `zonelab.ConfigError(message, field)`, defined in
/// python/zonelab/_errors.py so it pickles (Dask workers send it back).
fn config_error(py: Python<'_>, source: Option<&str>, blame: Blame<'_>, e: &ConfigError) -> PyErr {
    // As the CLI prints it (`error: in FILE: field: rule`), with the input to fix first.
    let message = match (blame, source) {
        (Blame::Override(o), _) => format!("override {o}: {e}"),
        (Blame::Overrides, Some(s)) => format!("in {s} with its overrides: {e}"),
        (Blame::File, Some(s)) => format!("in {s}: {e}"),
        (_, None) => e.to_string(),
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
    let fail =
        |e: ConfigError| config_error(py, source, blame(text, default_name, overrides, &e), &e);
    let cfg = ExperimentConfig::parse(text, overrides).map_err(fail)?;
    let exp = cfg.validate(default_name).map_err(fail)?;
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
    guarded(py, || {
        let (cfg, exp) = load(py, text, default_name, &overrides, source)?;
        Ok((cfg.to_toml(), exp.name))
    })
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
    let (cfg, exp) = guarded(py, || load(py, text, default_name, &overrides, source))?;
    quiet_stop_panics();
    let fingerprint = cfg.fingerprint();
    let mut stopped: Option<PyErr> = None;
    let source_path = source.map(str::to_string);
    let outcome = py.detach(|| {
        catch_unwind(AssertUnwindSafe(|| {
            let traces = replay_inputs(&exp, source_path.as_deref())?;
            let records = Rc::new(RefCell::new(Vec::new()));
            let inputs = Inputs {
                traces,
                trace_sink: exp
                    .trace
                    .then(|| Box::new(Collect(records.clone())) as Box<dyn TraceSink>),
                limits: Default::default(),
            };
            let out = zonelab::run(&exp, inputs, fingerprint, &mut |p| {
                let stop = Python::attach(|py| {
                    py.check_signals().err().or_else(|| {
                        progress
                            .as_ref()
                            .and_then(|f| f.call1(py, (p.fraction, p.simulated.ns())).err())
                    })
                });
                if let Some(e) = stop {
                    stopped = Some(e);
                    std::panic::panic_any(Stop);
                }
            });
            let records = std::mem::take(&mut *records.borrow_mut());
            Ok::<_, String>(out.map(|o| (o, records)))
        }))
    });
    match outcome {
        Ok(Err(message)) => Err(pyo3::exceptions::PyOSError::new_err(message)),
        Ok(Ok(Err(e))) => Err(run_error(py, &e)),
        Ok(Ok(Ok((out, trace)))) => Ok(Run {
            state: Mutex::new(State { cfg, out, trace }),
        }),
        Err(payload) if payload.is::<Stop>() => {
            Err(stopped.expect("a stopped run leaves its exception"))
        }
        Err(payload) => Err(internal_error(py, &*payload)),
    }
}

/// An experiment given as a dict, as the TOML text the CLI would read.
#[pyfunction]
fn dict_to_toml(dict: &Bound<'_, PyDict>) -> PyResult<String> {
    guarded(dict.py(), || {
        let table = value::table(dict, "")?;
        Ok(toml::to_string(&table).expect("a TOML table always serializes"))
    })
}

/// `key=value` for the core's override parser, the value written as a TOML literal.
#[pyfunction]
fn override_assignment(key: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    guarded(value.py(), || {
        Ok(format!("{key}={}", value::to_toml(value, key)?))
    })
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
    trace: Vec<TraceRecord>,
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
    fn summary_json(&self, py: Python<'_>) -> PyResult<String> {
        guarded(py, || Ok(convert::summary_json(&self.state().out)))
    }

    fn config_toml(&self) -> String {
        self.state().cfg.to_toml()
    }

    fn ops(&self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        guarded(py, || convert::ops(py, &self.state().out))
    }

    fn timeseries(&self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        guarded(py, || convert::timeseries(py, &self.state().out))
    }

    fn cdf_kinds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, convert::cdf_kinds(&self.state().out))
    }

    /// The per-command trace (None unless the experiment enabled `[trace]`).
    fn trace(&self, py: Python<'_>) -> PyResult<Option<Py<PyDict>>> {
        let state = self.state();
        if !state.cfg.trace.enabled {
            return Ok(None);
        }
        let channels = state.cfg.device.geometry.channels;
        convert::trace(py, &state.trace, channels).map(Some)
    }

    fn latency_cdf(&self, py: Python<'_>, kind: &str) -> PyResult<Option<Py<PyDict>>> {
        guarded(py, || convert::latency_cdf(py, &self.state().out, kind))
    }

    fn zones(&self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        guarded(py, || convert::zones(py, &self.state().out))
    }

    fn firmware(&self, py: Python<'_>) -> PyResult<Option<(String, Py<PyDict>)>> {
        guarded(py, || convert::firmware(py, &self.state().out))
    }

    /// Writes the results directory `zonelab run -o DIR` writes (same files, same bytes).
    fn write(&self, py: Python<'_>, dir: PathBuf) -> PyResult<()> {
        guarded(py, || self.write_files(&dir))
    }
}

impl Run {
    fn write_files(&self, dir: &Path) -> PyResult<()> {
        let state = self.state();
        let os = |e: anyhow::Error| pyo3::exceptions::PyOSError::new_err(format!("{e:#}"));
        // The trace goes in after (it is kept in memory): any trace.csv there now is stale.
        let files = state.out.files(&state.cfg.to_toml());
        zonelab_io::write_results_dir(dir, &files, &[]).map_err(os)?;
        if state.cfg.trace.enabled {
            let channels = state.cfg.device.geometry.channels;
            let mut text = String::from(zonelab::trace::CSV_HEADER);
            text.push('\n');
            for r in &state.trace {
                zonelab::trace::csv_line(r, channels, &mut text);
                text.push('\n');
            }
            std::fs::write(dir.join("trace.csv"), text)
                .map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))?;
        }
        Ok(())
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
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add_class::<Run>()?;
    Ok(())
}
