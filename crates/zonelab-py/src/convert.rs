//! Every conversion from the core's result types to Python objects, in one place, so a change to
//! the core's report types is ported here and nowhere else. Tables go to Python as column
//! dictionaries (`{column: list}`), which the package turns into pandas DataFrames without
//! knowing their columns; the summary goes as the JSON text `zonelab run` writes to summary.json.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use zonelab::firmware::FirmwareReport;
use zonelab::metrics::{OpKind, PERCENTILES, cdf};
use zonelab::sim::RunOutput;
use zonelab::units::{MIB, NS_PER_S};

/// One column of a table.
enum Column {
    U64(Vec<u64>),
    F64(Vec<f64>),
    Str(Vec<String>),
}

/// Makes an empty column of one type.
type NewColumn = fn() -> Column;

/// Columns in order, built row by row.
#[derive(Default)]
struct Table {
    columns: Vec<(String, Column)>,
}

impl Table {
    fn column(&mut self, name: &str, make: NewColumn) -> &mut Column {
        if let Some(i) = self.columns.iter().position(|(n, _)| n == name) {
            return &mut self.columns[i].1;
        }
        self.columns.push((name.to_string(), make()));
        &mut self.columns.last_mut().expect("just pushed").1
    }

    fn u64(&mut self, name: &str, v: u64) {
        match self.column(name, || Column::U64(Vec::new())) {
            Column::U64(c) => c.push(v),
            _ => unreachable!("column {name} holds integers"),
        }
    }

    fn f64(&mut self, name: &str, v: f64) {
        match self.column(name, || Column::F64(Vec::new())) {
            Column::F64(c) => c.push(v),
            _ => unreachable!("column {name} holds floats"),
        }
    }

    fn str(&mut self, name: &str, v: &str) {
        match self.column(name, strs) {
            Column::Str(c) => c.push(v.to_string()),
            _ => unreachable!("column {name} holds strings"),
        }
    }

    /// Declares the columns of a table that may have no rows, so it still has them.
    fn declare(&mut self, columns: &[(&str, NewColumn)]) {
        for (name, make) in columns {
            self.column(name, *make);
        }
    }

    fn into_py(self, py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        let dict = PyDict::new(py);
        for (name, column) in self.columns {
            let list = match column {
                Column::U64(v) => PyList::new(py, v)?,
                Column::F64(v) => PyList::new(py, v)?,
                Column::Str(v) => PyList::new(py, v)?,
            };
            dict.set_item(name, list)?;
        }
        Ok(dict)
    }
}

fn ints() -> Column {
    Column::U64(Vec::new())
}

fn floats() -> Column {
    Column::F64(Vec::new())
}

fn strs() -> Column {
    Column::Str(Vec::new())
}

/// The summary exactly as `zonelab run` writes it to summary.json.
pub fn summary_json(out: &RunOutput) -> String {
    serde_json::to_string(&out.summary).expect("a Summary always serializes")
}

/// One row per operation kind that ran, in the core's kind order: count, bytes, IOPS, MiB/s,
/// min, mean and every percentile of the latency (ns). When the core reports per layer, a `layer`
/// column goes first.
pub fn ops(py: Python<'_>, out: &RunOutput) -> PyResult<Py<PyDict>> {
    let mut t = Table::default();
    t.declare(&[
        ("kind", strs),
        ("count", ints),
        ("bytes", ints),
        ("iops", floats),
        ("mib_per_s", floats),
        ("min_ns", ints),
        ("mean_ns", floats),
    ]);
    for (name, _) in PERCENTILES {
        t.column(&format!("{name}_ns"), ints);
    }
    for kind in OpKind::ALL {
        let Some(o) = out.summary.ops.get(kind.name()) else {
            continue;
        };
        t.str("kind", kind.name());
        t.u64("count", o.count);
        t.u64("bytes", o.bytes);
        t.f64("iops", o.iops);
        t.f64("mib_per_s", o.mib_per_s);
        t.u64("min_ns", o.latency_ns.min);
        t.f64("mean_ns", o.latency_ns.mean);
        for (name, _) in PERCENTILES {
            t.u64(&format!("{name}_ns"), o.latency_ns.percentiles[name]);
        }
    }
    Ok(t.into_py(py)?.unbind())
}

/// Bandwidth and IOPS per interval (timeseries.csv, unrounded, plus the raw counts): the time is
/// the end of the interval, from the start of the measured phase.
pub fn timeseries(py: Python<'_>, out: &RunOutput) -> PyResult<Py<PyDict>> {
    let s = &out.metrics.series;
    let per_s = NS_PER_S as f64 / s.interval_ns as f64;
    let mut t = Table::default();
    t.declare(&[
        ("time_ns", ints),
        ("time_s", floats),
        ("read_mib_s", floats),
        ("write_mib_s", floats),
        ("read_iops", floats),
        ("write_iops", floats),
        ("read_bytes", ints),
        ("write_bytes", ints),
        ("read_ops", ints),
        ("write_ops", ints),
    ]);
    for (i, b) in s.buckets.iter().enumerate() {
        let end_ns = (i as u64 + 1) * s.interval_ns;
        t.u64("time_ns", end_ns);
        t.f64("time_s", end_ns as f64 / NS_PER_S as f64);
        t.f64("read_mib_s", b[0] as f64 / MIB as f64 * per_s);
        t.f64("write_mib_s", b[1] as f64 / MIB as f64 * per_s);
        t.f64("read_iops", b[2] as f64 * per_s);
        t.f64("write_iops", b[3] as f64 * per_s);
        t.u64("read_bytes", b[0]);
        t.u64("write_bytes", b[1]);
        t.u64("read_ops", b[2]);
        t.u64("write_ops", b[3]);
    }
    Ok(t.into_py(py)?.unbind())
}

/// The kinds [`latency_cdf`] has a distribution for: the operation kinds that ran, then
/// `erase_wait` (how long erases held up each foreground I/O) when any I/O waited.
pub fn cdf_kinds(out: &RunOutput) -> Vec<&'static str> {
    let mut kinds: Vec<&'static str> = OpKind::ALL
        .into_iter()
        .filter(|&k| out.metrics.ops(k) > 0)
        .map(OpKind::name)
        .collect();
    if out.device.erase_wait_histogram().max() > 0 {
        kinds.push("erase_wait");
    }
    kinds
}

/// The CDF of one kind as (percentile, latency_ns) rows, as latency_cdf_<kind>.csv holds it
/// (unrounded). `None` for a kind [`cdf_kinds`] does not list.
pub fn latency_cdf(py: Python<'_>, out: &RunOutput, kind: &str) -> PyResult<Option<Py<PyDict>>> {
    if !cdf_kinds(out).contains(&kind) {
        return Ok(None);
    }
    let histogram = match OpKind::ALL.into_iter().find(|k| k.name() == kind) {
        Some(k) => out.metrics.histogram(k),
        None => out.device.erase_wait_histogram(),
    };
    let mut t = Table::default();
    t.declare(&[("percentile", floats), ("latency_ns", ints)]);
    for (ns, p) in cdf(histogram) {
        t.f64("percentile", p);
        t.u64("latency_ns", ns);
    }
    Ok(Some(t.into_py(py)?.unbind()))
}

/// The zones at the end of the run, as zones.csv holds them.
pub fn zones(py: Python<'_>, out: &RunOutput) -> PyResult<Py<PyDict>> {
    let mut t = Table::default();
    t.declare(&[
        ("zone", ints),
        ("zslba", ints),
        ("state", strs),
        ("wp", ints),
        ("capacity_lbas", ints),
    ]);
    for z in 0..out.device.zone_count() {
        let d = out.device.zone(z);
        t.u64("zone", z as u64);
        t.u64("zslba", d.zslba);
        t.str("state", d.state.nvme_cli_name());
        t.u64("wp", d.wp);
        t.u64("capacity_lbas", d.capacity_lbas);
    }
    Ok(t.into_py(py)?.unbind())
}

/// The firmware policy's series (firmware_over_time.csv): `(kind, table)`, the kind naming the
/// report (`zone_mapping`, `renewable`); `None` for policies without one.
pub fn firmware(py: Python<'_>, out: &RunOutput) -> PyResult<Option<(String, Py<PyDict>)>> {
    let secs = |t: u64| t as f64 / NS_PER_S as f64;
    let mut t = Table::default();
    let kind = match &out.summary.firmware {
        None => return Ok(None),
        Some(FirmwareReport::ZoneMapping(r)) => {
            t.declare(&[
                ("time_ns", ints),
                ("time_s", floats),
                ("free_zones", ints),
                ("invalid_zones", ints),
                ("state", strs),
            ]);
            for s in &r.samples {
                t.u64("time_ns", s.t_ns);
                t.f64("time_s", secs(s.t_ns));
                t.u64("free_zones", s.free as u64);
                t.u64("invalid_zones", s.invalid as u64);
                t.str("state", &format!("S{}", s.state));
            }
            "zone_mapping"
        }
        Some(FirmwareReport::Renewable(r)) => {
            t.declare(&[("time_ns", ints), ("time_s", floats), ("spare_zones", ints)]);
            for s in &r.spare_samples {
                t.u64("time_ns", s.t_ns);
                t.f64("time_s", secs(s.t_ns));
                t.u64("spare_zones", s.spare_zones as u64);
            }
            "renewable"
        }
    };
    Ok(Some((kind.to_string(), t.into_py(py)?.unbind())))
}
