//! The performance monitor (Shin et al., NVMSA 2020, section III): latency histograms down to
//! P100 keyed by (layer, operation, tenant), so device commands, file operations and key-value
//! operations are recorded side by side; bandwidth and IOPS over time per tenant, with a memory
//! bound. A tenant is whoever the operations are for: a job, a workload, a namespace.

mod recorder;
pub mod series;

pub use recorder::Recorder;

use rustc_hash::FxHashMap;

use hdrhistogram::Histogram;

use crate::time::{Duration, Instant, NS_PER_S};
use series::{BucketSeries, Sampling};

/// Where in the stack an operation was measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Layer {
    /// NVMe commands as the host submitted them.
    Device,
    /// File-system calls (create, write, fsync, ...).
    File,
    /// Key-value operations (get, put, ...).
    Kv,
}

impl Layer {
    pub const ALL: [Layer; 3] = [Layer::Device, Layer::File, Layer::Kv];
    pub fn name(self) -> &'static str {
        match self {
            Layer::Device => "device",
            Layer::File => "file",
            Layer::Kv => "kv",
        }
    }
}

/// Operation kinds, each with its own latency histogram per layer and tenant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OpKind {
    // Device commands.
    Read,
    Write,
    Append,
    Reset,
    Finish,
    Open,
    Close,
    Trim,
    Flush,
    // File operations.
    Create,
    Delete,
    Rename,
    Fsync,
    Stat,
    // Key-value operations.
    Get,
    Put,
    Update,
    Insert,
    Scan,
    ReadModifyWrite,
    Other,
}

impl OpKind {
    pub const ALL: [OpKind; 21] = [
        OpKind::Read,
        OpKind::Write,
        OpKind::Append,
        OpKind::Reset,
        OpKind::Finish,
        OpKind::Open,
        OpKind::Close,
        OpKind::Trim,
        OpKind::Flush,
        OpKind::Create,
        OpKind::Delete,
        OpKind::Rename,
        OpKind::Fsync,
        OpKind::Stat,
        OpKind::Get,
        OpKind::Put,
        OpKind::Update,
        OpKind::Insert,
        OpKind::Scan,
        OpKind::ReadModifyWrite,
        OpKind::Other,
    ];

    pub fn name(self) -> &'static str {
        match self {
            OpKind::Read => "read",
            OpKind::Write => "write",
            OpKind::Append => "append",
            OpKind::Reset => "reset",
            OpKind::Finish => "finish",
            OpKind::Open => "open",
            OpKind::Close => "close",
            OpKind::Trim => "trim",
            OpKind::Flush => "flush",
            OpKind::Create => "create",
            OpKind::Delete => "delete",
            OpKind::Rename => "rename",
            OpKind::Fsync => "fsync",
            OpKind::Stat => "stat",
            OpKind::Get => "get",
            OpKind::Put => "put",
            OpKind::Update => "update",
            OpKind::Insert => "insert",
            OpKind::Scan => "scan",
            OpKind::ReadModifyWrite => "rmw",
            OpKind::Other => "other",
        }
    }

    pub fn parse(name: &str) -> Option<OpKind> {
        OpKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Counted in the bandwidth time series as reads (true) or writes (false).
    pub fn direction(self) -> Option<bool> {
        match self {
            OpKind::Read | OpKind::Get | OpKind::Scan => Some(true),
            OpKind::Write | OpKind::Append | OpKind::Put | OpKind::Update | OpKind::Insert => {
                Some(false)
            }
            _ => None,
        }
    }
}

/// A tenant's index in [`Metrics::tenants`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TenantId(pub u32);

/// A (layer, op, tenant) slot, looked up once and then recorded into directly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MetricKey(u32);

/// Percentiles every latency table reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Percentile {
    P50,
    P90,
    P99,
    P999,
    P9999,
    P99999,
    P100,
}

impl Percentile {
    pub const ALL: [Percentile; 7] = [
        Percentile::P50,
        Percentile::P90,
        Percentile::P99,
        Percentile::P999,
        Percentile::P9999,
        Percentile::P99999,
        Percentile::P100,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Percentile::P50 => "p50",
            Percentile::P90 => "p90",
            Percentile::P99 => "p99",
            Percentile::P999 => "p99.9",
            Percentile::P9999 => "p99.99",
            Percentile::P99999 => "p99.999",
            Percentile::P100 => "p100",
        }
    }
    pub fn value(self) -> f64 {
        match self {
            Percentile::P50 => 50.0,
            Percentile::P90 => 90.0,
            Percentile::P99 => 99.0,
            Percentile::P999 => 99.9,
            Percentile::P9999 => 99.99,
            Percentile::P99999 => 99.999,
            Percentile::P100 => 100.0,
        }
    }
}

/// A latency histogram: 1 ns to 1 hour at 3 significant digits (exact to 0.1%).
pub fn latency_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 3_600 * NS_PER_S, 3).expect("valid histogram bounds")
}

pub struct Slot {
    pub layer: Layer,
    pub op: OpKind,
    pub tenant: TenantId,
    pub latency: Recorder,
    pub count: u64,
    pub bytes: u64,
    /// The bandwidth series column a device-layer read (0) or write (1) counts its bytes in
    /// (its op count goes two columns on); None for everything else.
    column: Option<usize>,
}

impl Slot {
    /// The latency histogram (built from the recorder's counts).
    pub fn histogram(&self) -> Histogram<u64> {
        self.latency.histogram()
    }
}

/// Bandwidth series columns: read bytes, write bytes, read ops, write ops.
pub type Bandwidth = BucketSeries<4>;

pub struct Metrics {
    origin: Instant,
    last_done: Instant,
    interval: Duration,
    max_buckets: usize,
    tenants: Vec<String>,
    slots: Vec<Slot>,
    index: FxHashMap<(Layer, OpKind, TenantId), MetricKey>,
    /// Device-layer bandwidth over time per tenant (all tenants: [`Metrics::bandwidth`]).
    per_tenant: Vec<Option<Bandwidth>>,
}

impl Metrics {
    /// Measuring from `origin`, with time series of `interval` holding at most `max_buckets`.
    pub fn new(origin: Instant, sampling: Sampling) -> Self {
        Metrics {
            origin,
            last_done: origin,
            interval: sampling.interval,
            max_buckets: sampling.max_points,
            tenants: Vec::new(),
            slots: Vec::new(),
            index: FxHashMap::default(),
            per_tenant: Vec::new(),
        }
    }

    /// Measures again from `origin`: counts, histograms and series go back to zero; tenants and
    /// keys stay valid.
    pub fn restart(&mut self, origin: Instant) {
        self.origin = origin;
        self.last_done = origin;
        for s in &mut self.slots {
            s.latency.reset();
            s.count = 0;
            s.bytes = 0;
        }
        self.per_tenant.iter_mut().for_each(|t| *t = None);
    }

    /// The tenant called `name`, added if new.
    pub fn tenant(&mut self, name: &str) -> TenantId {
        if let Some(i) = self.tenants.iter().position(|t| t == name) {
            return TenantId(i as u32);
        }
        self.tenants.push(name.to_string());
        self.per_tenant.push(None);
        TenantId(self.tenants.len() as u32 - 1)
    }

    pub fn tenants(&self) -> &[String] {
        &self.tenants
    }

    pub fn tenant_name(&self, t: TenantId) -> &str {
        &self.tenants[t.0 as usize]
    }

    /// The slot for (layer, op, tenant), made if new.
    pub fn key(&mut self, layer: Layer, op: OpKind, tenant: TenantId) -> MetricKey {
        if let Some(&k) = self.index.get(&(layer, op, tenant)) {
            return k;
        }
        let k = MetricKey(self.slots.len() as u32);
        self.slots.push(Slot {
            layer,
            op,
            tenant,
            latency: Recorder::default(),
            count: 0,
            bytes: 0,
            column: op
                .direction()
                .filter(|_| layer == Layer::Device)
                .map(|read| if read { 0 } else { 1 }),
        });
        self.index.insert((layer, op, tenant), k);
        k
    }

    /// One operation submitted at `submit` and done at `done`, moving `bytes`.
    #[inline]
    pub fn record(&mut self, key: MetricKey, submit: Instant, done: Instant, bytes: u64) {
        let slot = &mut self.slots[key.0 as usize];
        slot.latency.record(done.since(submit).ns().max(1));
        slot.count += 1;
        slot.bytes += bytes;
        self.last_done = self.last_done.max(done);
        if let Some(k) = slot.column {
            let t = slot.tenant.0 as usize;
            self.per_tenant[t]
                .get_or_insert_with(|| {
                    BucketSeries::new(self.origin, self.interval, self.max_buckets)
                })
                .update(done, |b| {
                    // (k is 0 or 1; `% 2` lets the compiler drop both bounds checks.)
                    b[k % 2] += bytes;
                    b[k % 2 + 2] += 1;
                });
        }
    }

    /// Every slot, in the order their keys were made.
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    pub fn slot(&self, key: MetricKey) -> &Slot {
        &self.slots[key.0 as usize]
    }

    /// Every (layer, op) histogram summed over tenants.
    pub fn merged(&self, layer: Layer, op: OpKind) -> Option<Histogram<u64>> {
        let mut out: Option<Histogram<u64>> = None;
        for s in self
            .slots
            .iter()
            .filter(|s| s.layer == layer && s.op == op && s.count > 0)
        {
            match &mut out {
                Some(h) => h.add(s.histogram()).expect("histograms of one shape"),
                None => out = Some(s.histogram()),
            }
        }
        out
    }

    pub fn origin(&self) -> Instant {
        self.origin
    }

    /// From the start of measurement to the last completion.
    pub fn elapsed(&self) -> Duration {
        self.last_done - self.origin
    }

    pub fn last_done(&self) -> Instant {
        self.last_done
    }

    /// Device-layer bandwidth of all tenants together, at the coarsest interval any tenant's
    /// series reached.
    pub fn bandwidth(&self) -> Bandwidth {
        let mut total = BucketSeries::new(self.origin, self.interval, self.max_buckets);
        for s in self.per_tenant.iter().flatten() {
            total.merge(s);
        }
        total
    }

    pub fn tenant_bandwidth(&self, t: TenantId) -> Option<&Bandwidth> {
        self.per_tenant[t.0 as usize].as_ref()
    }
}

/// A histogram's CDF as (value, percentile) points (HDR quantile iteration, 8 ticks per half
/// distance to 100%, dense enough for P99.999).
pub fn cdf(h: &Histogram<u64>) -> Vec<(u64, f64)> {
    if h.is_empty() {
        return Vec::new();
    }
    h.iter_quantiles(8)
        .map(|v| (v.value_iterated_to(), v.quantile_iterated_to() * 100.0))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ns: u64) -> Instant {
        Instant::from_ns(ns)
    }

    #[test]
    fn slots_keep_layers_and_tenants_apart() {
        let mut m = Metrics::new(
            t(1000),
            Sampling {
                interval: Duration::from_ns(500_000_000),
                max_points: 100,
            },
        );
        let a = m.tenant("a");
        let b = m.tenant("b");
        assert_eq!(m.tenant("a"), a, "tenants are found by name");
        let ka = m.key(Layer::Device, OpKind::Read, a);
        let kb = m.key(Layer::Device, OpKind::Read, b);
        let kf = m.key(Layer::File, OpKind::Fsync, a);
        for i in 1..=1000u64 {
            m.record(ka, t(1000), t(1000 + i * 1000), 4096);
        }
        m.record(kb, t(1000), t(3000), 4096);
        m.record(kf, t(1000), t(9000), 0);
        let s = m.slot(ka);
        assert_eq!(s.count, 1000);
        let p50 = s.histogram().value_at_percentile(50.0);
        assert!((499_000..=501_000).contains(&p50), "p50 {p50}");
        assert_eq!(m.merged(Layer::Device, OpKind::Read).unwrap().len(), 1001);
        assert_eq!(m.merged(Layer::File, OpKind::Fsync).unwrap().len(), 1);
        assert_eq!(m.elapsed(), Duration::from_ns(1_000_000));
    }

    #[test]
    fn only_device_data_commands_make_bandwidth() {
        let mut m = Metrics::new(
            t(0),
            Sampling {
                interval: Duration::from_ns(1000),
                max_points: 100,
            },
        );
        let a = m.tenant("a");
        let w = m.key(Layer::Device, OpKind::Write, a);
        let r = m.key(Layer::Device, OpKind::Read, a);
        let reset = m.key(Layer::Device, OpKind::Reset, a);
        let put = m.key(Layer::Kv, OpKind::Put, a);
        m.record(w, t(0), t(500), 100);
        m.record(w, t(0), t(1500), 100);
        m.record(r, t(0), t(1600), 50);
        m.record(reset, t(0), t(9000), 0);
        m.record(put, t(0), t(1700), 10);
        assert_eq!(m.bandwidth().buckets(), &[[0, 100, 0, 1], [50, 100, 1, 1]]);
        assert_eq!(m.tenant_bandwidth(a).unwrap().buckets().len(), 2);
    }
}
