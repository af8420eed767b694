//! Every conversion from the core's result types to Python objects, in one place, so a change to
//! the core's report types is ported here and nowhere else. Tables go to Python as column
//! dictionaries (`{column: list}`), which the package turns into pandas DataFrames without
//! knowing their columns; the summary goes as the JSON text `zonelab run` writes to summary.json.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use zonelab::device::report::CombinedReport;
use zonelab::device::report::elastic::ElasticReport;
use zonelab::device::report::ftl::FtlReport;
use zonelab::experiment::RunOutput;
use zonelab::firmware::{FirmwareReport, PoolReport, RenewableReport};
use zonelab::metrics::{Layer, OpKind, Percentile, cdf};
use zonelab::time::{Instant, NS_PER_S};
use zonelab::trace::TraceRecord;
use zonelab::units::MIB;

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

    /// A table of samples over time: `time_ns` and `time_s`, then `columns`, all declared.
    fn over_time(columns: &[(&str, NewColumn)]) -> Self {
        let mut t = Table::default();
        t.declare(&[("time_ns", ints), ("time_s", floats)]);
        t.declare(columns);
        t
    }

    /// A sample's time, in nanoseconds and in seconds.
    fn time(&mut self, at: Instant) {
        self.u64("time_ns", at.ns());
        self.f64("time_s", at.secs_f64());
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

/// One row per (layer, operation, tenant) that ran, in the core's order (summary.json's
/// `table`): count, bytes, IOPS, MiB/s, min, mean and every percentile of the latency (ns).
/// Device commands are layer `device`; file and key-value operations have their own layers.
pub fn ops(py: Python<'_>, out: &RunOutput) -> PyResult<Py<PyDict>> {
    let mut t = Table::default();
    t.declare(&[
        ("layer", strs),
        ("kind", strs),
        ("tenant", strs),
        ("count", ints),
        ("bytes", ints),
        ("iops", floats),
        ("mib_per_s", floats),
        ("min_ns", ints),
        ("mean_ns", floats),
    ]);
    for p in Percentile::ALL {
        t.column(&format!("{}_ns", p.name()), ints);
    }
    for row in &out.summary.table {
        let o = &row.summary;
        t.str("layer", row.layer.name());
        t.str("kind", row.op.name());
        t.str("tenant", &row.tenant);
        t.u64("count", o.count);
        t.u64("bytes", o.bytes);
        t.f64("iops", o.iops);
        t.f64("mib_per_s", o.mib_per_s);
        t.u64("min_ns", o.latency_ns.min);
        t.f64("mean_ns", o.latency_ns.mean);
        for p in Percentile::ALL {
            t.u64(&format!("{}_ns", p.name()), o.latency_ns.get(p));
        }
    }
    Ok(t.into_py(py)?.unbind())
}

/// Bandwidth and IOPS per interval (timeseries.csv, unrounded, plus the raw counts): the time is
/// the end of the interval, from the start of the measured phase.
pub fn timeseries(py: Python<'_>, out: &RunOutput) -> PyResult<Py<PyDict>> {
    let s = out.metrics.bandwidth();
    let interval = s.interval().ns();
    let per_s = NS_PER_S as f64 / interval as f64;
    let mut t = Table::over_time(&[
        ("read_mib_s", floats),
        ("write_mib_s", floats),
        ("read_iops", floats),
        ("write_iops", floats),
        ("read_bytes", ints),
        ("write_bytes", ints),
        ("read_ops", ints),
        ("write_ops", ints),
    ]);
    for (i, b) in s.buckets().iter().enumerate() {
        let end_ns = (i as u64 + 1) * interval;
        t.time(Instant::from_ns(end_ns));
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

/// A distribution's name, as its CSV file is named: the device command kind (`write`), or
/// `layer_kind` for host layers (`file_fsync`, `kv_get`).
fn cdf_name(layer: Layer, kind: OpKind) -> String {
    match layer {
        Layer::Device => kind.name().to_string(),
        _ => format!("{}_{}", layer.name(), kind.name()),
    }
}

/// The kinds [`latency_cdf`] has a distribution for: what ran, by layer, then `erase_wait` (how
/// long erases held up each foreground I/O) when any I/O waited.
pub fn cdf_kinds(out: &RunOutput) -> Vec<String> {
    let mut kinds = Vec::new();
    for layer in Layer::ALL {
        for kind in OpKind::ALL {
            if out.metrics.merged(layer, kind).is_some() {
                kinds.push(cdf_name(layer, kind));
            }
        }
    }
    if out.device.report(out.metrics.last_done()).erase_wait.max() > 0 {
        kinds.push("erase_wait".into());
    }
    kinds
}

/// The CDF of one kind as (percentile, latency_ns) rows, as latency_cdf_<kind>.csv holds it
/// (unrounded). `None` for a kind [`cdf_kinds`] does not list.
pub fn latency_cdf(py: Python<'_>, out: &RunOutput, kind: &str) -> PyResult<Option<Py<PyDict>>> {
    let histogram = if kind == "erase_wait" {
        Some(out.device.report(out.metrics.last_done()).erase_wait).filter(|h| h.max() > 0)
    } else {
        Layer::ALL
            .into_iter()
            .flat_map(|l| OpKind::ALL.into_iter().map(move |k| (l, k)))
            .find(|&(l, k)| cdf_name(l, k) == kind)
            .and_then(|(l, k)| out.metrics.merged(l, k))
    };
    let Some(histogram) = histogram else {
        return Ok(None);
    };
    let mut t = Table::default();
    t.declare(&[("percentile", floats), ("latency_ns", ints)]);
    for (ns, p) in cdf(&histogram) {
        t.f64("percentile", p);
        t.u64("latency_ns", ns);
    }
    Ok(Some(t.into_py(py)?.unbind()))
}

/// The per-command trace (`[trace] enabled`): one row per device command, the columns of
/// trace.csv (dies and channels as range text such as `0-3;8`).
pub fn trace(py: Python<'_>, records: &[TraceRecord], channels: u32) -> PyResult<Py<PyDict>> {
    let mut t = Table::default();
    t.declare(&[
        ("submit_ns", ints),
        ("start_ns", ints),
        ("done_ns", ints),
        ("op", strs),
        ("nsid", ints),
        ("zone", floats),
        ("lba", ints),
        ("nlb", ints),
        ("dies", strs),
        ("channels", strs),
        ("erase_wait_ns", ints),
        ("source", strs),
        ("status", strs),
    ]);
    for r in records {
        let mut line = String::new();
        zonelab::trace::csv_line(r, channels, &mut line);
        let f: Vec<&str> = line.split(',').collect();
        t.u64("submit_ns", r.submit.ns());
        t.u64("start_ns", r.start.ns());
        t.u64("done_ns", r.done.ns());
        t.str("op", r.op.name());
        t.u64("nsid", r.nsid as u64);
        t.f64("zone", r.zone.map_or(f64::NAN, |z| z as f64));
        t.u64("lba", r.lba);
        t.u64("nlb", r.nlb);
        t.str("dies", f[8]);
        t.str("channels", f[9]);
        t.u64("erase_wait_ns", r.erase_wait.ns());
        t.str("source", &r.source);
        t.str("status", f[12]);
    }
    Ok(t.into_py(py)?.unbind())
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
    let count = out.device.info().zoned().map_or(0, |z| z.zone_count);
    for z in 0..count {
        let d = out.device.zone(0, z);
        t.u64("zone", z as u64);
        t.u64("zslba", d.zslba);
        t.str("state", d.state.nvme_cli_name());
        t.u64("wp", d.wp);
        t.u64("capacity_lbas", d.capacity_lbas);
    }
    Ok(t.into_py(py)?.unbind())
}

/// The firmware policy's series (firmware_over_time.csv): `(kind, table)`, the kind naming the
/// report (`zone_mapping`, `renewable`, `combined` for both, `ftl`, `elastic` for the eZNS layer); `None` for policies without one.
pub fn firmware(py: Python<'_>, out: &RunOutput) -> PyResult<Option<(String, Py<PyDict>)>> {
    let (kind, t) = match &out.summary.firmware {
        None => return Ok(None),
        Some(FirmwareReport::ZoneMapping(r)) => ("zone_mapping", zone_mapping_table(r)),
        Some(FirmwareReport::Renewable(r)) => ("renewable", renewable_table(r)),
        Some(FirmwareReport::Combined(r)) => ("combined", combined_table(r)),
        Some(FirmwareReport::Ftl(r)) => ("ftl", ftl_table(r)),
        Some(FirmwareReport::Elastic(r)) => ("elastic", elastic_table(r)),
    };
    Ok(Some((kind.to_string(), t.into_py(py)?.unbind())))
}

/// Mapping and preemptive erasing: free and invalid zones and the pool's state.
fn zone_mapping_table(r: &PoolReport) -> Table {
    let mut t = Table::over_time(&[
        ("free_zones", ints),
        ("invalid_zones", ints),
        ("state", strs),
    ]);
    for s in &r.samples {
        t.time(s.t);
        t.u64("free_zones", s.free as u64);
        t.u64("invalid_zones", s.invalid as u64);
        t.str("state", &format!("S{}", s.state));
    }
    t
}

/// ReZNS: the spare zones left.
fn renewable_table(r: &RenewableReport) -> Table {
    let mut t = Table::over_time(&[("spare_zones", ints)]);
    for s in &r.spare_samples {
        t.time(s.t);
        t.u64("spare_zones", s.spare_zones as u64);
    }
    t
}

/// Both, row by row.
fn combined_table(r: &CombinedReport) -> Table {
    let mut t = Table::over_time(&[
        ("free_zones", ints),
        ("invalid_zones", ints),
        ("state", strs),
        ("spare_zones", ints),
    ]);
    for row in r.rows() {
        t.time(row.t);
        t.u64("free_zones", row.free as u64);
        t.u64("invalid_zones", row.invalid as u64);
        t.str("state", &format!("S{}", row.state));
        t.u64("spare_zones", row.spare_zones as u64);
    }
    t
}

/// The conventional SSD's FTL: traffic, garbage collection, free superblocks, WAF.
fn ftl_table(r: &FtlReport) -> Table {
    let mut t = Table::over_time(&[
        ("host_bytes", ints),
        ("gc_copied_bytes", ints),
        ("superblocks_erased", ints),
        ("free_superblocks", ints),
        ("waf", floats),
    ]);
    for s in &r.samples {
        t.time(s.t);
        t.u64("host_bytes", s.host_bytes);
        t.u64("gc_copied_bytes", s.gc_copied_bytes);
        t.u64("superblocks_erased", s.superblocks_erased);
        t.u64("free_superblocks", s.free_superblocks as u64);
        t.f64("waf", s.waf().unwrap_or(f64::NAN));
    }
    t
}

/// The eZNS layer: spares each namespace uses, and the pool left.
fn elastic_table(r: &ElasticReport) -> Table {
    let mut t = Table::over_time(&[
        ("namespace", ints),
        ("spares_used", ints),
        ("spare_pool", ints),
    ]);
    for s in &r.spare_samples {
        t.time(s.t);
        t.u64("namespace", s.namespace as u64);
        t.u64("spares_used", s.spares_used as u64);
        t.u64("spare_pool", s.spare_pool as u64);
    }
    t
}
