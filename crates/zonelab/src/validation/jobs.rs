//! The microbenchmarks `zonelab calibrate` fits a drive's timing to, as fio job files a user runs
//! on a real zoned drive (`zonelab calibrate --jobs DIR`) and as the same jobs on ZoneLab. Each
//! isolates what sets one group of fields: QD1 reads by size (firmware, tR, channel and host
//! transfers, page types from the percentiles), deep-queue reads (the firmware pipeline and the
//! channels), QD1 writes (write firmware time), large writes (tPROG) and writes from eight zones
//! (the pipeline under writes). Zone management is not in fio's reach (it times no reset), so
//! erase and reset times stay the base preset's.

use serde_json::Value;

/// One microbenchmark.
#[derive(Clone, Copy, Debug)]
pub struct CalJob {
    pub name: &'static str,
    pub what: &'static str,
    /// fio's `rw`: "randread" or "write".
    pub rw: &'static str,
    pub bs_kib: u32,
    pub iodepth: u32,
    pub numjobs: u32,
    /// Zones the job works in (readers share them; writers take `zones / numjobs` each).
    pub zones: u32,
    /// What to read from its results, and the weight of each in the fit.
    pub metrics: &'static [(Metric, f64)],
}

/// A number both fio's JSON and ZoneLab's summary give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    MeanUs,
    P50Us,
    P99Us,
    Iops,
    MibS,
}

impl Metric {
    /// The name `validation::device::metric` reads for operation `op`.
    pub fn zonelab_name(self, op: &str) -> String {
        let stat = match self {
            Metric::MeanUs => "mean_us",
            Metric::P50Us => "p50_us",
            Metric::P99Us => "p99_us",
            Metric::Iops => "iops",
            Metric::MibS => "mib_s",
        };
        format!("{op}.{stat}")
    }
}

use Metric::*;

/// The job set. Reads work in zones 0..8 (the prefill job writes them first), writers from zone
/// 16 on, each in zones of its own.
pub const JOBS: &[CalJob] = &[
    CalJob {
        name: "randread-4k-qd1",
        what: "4 KiB random reads at QD1 in one zone",
        rw: "randread",
        bs_kib: 4,
        iodepth: 1,
        numjobs: 1,
        zones: 1,
        metrics: &[(MeanUs, 1.0), (P50Us, 0.5), (P99Us, 0.5)],
    },
    CalJob {
        name: "randread-16k-qd1",
        what: "16 KiB random reads at QD1 in one zone",
        rw: "randread",
        bs_kib: 16,
        iodepth: 1,
        numjobs: 1,
        zones: 1,
        metrics: &[(MeanUs, 1.0)],
    },
    CalJob {
        name: "randread-128k-qd1",
        what: "128 KiB random reads at QD1 in one zone",
        rw: "randread",
        bs_kib: 128,
        iodepth: 1,
        numjobs: 1,
        zones: 1,
        metrics: &[(MeanUs, 1.0)],
    },
    CalJob {
        name: "randread-4k-qd128",
        what: "4 KiB random reads at QD128 over 8 zones",
        rw: "randread",
        bs_kib: 4,
        iodepth: 128,
        numjobs: 1,
        zones: 8,
        metrics: &[(Iops, 1.0)],
    },
    CalJob {
        name: "randread-16k-qd64",
        what: "16 KiB random reads at QD64 over 8 zones",
        rw: "randread",
        bs_kib: 16,
        iodepth: 64,
        numjobs: 1,
        zones: 8,
        metrics: &[(MibS, 1.0)],
    },
    CalJob {
        name: "randread-64k-qd32",
        what: "64 KiB random reads at QD32 over 8 zones",
        rw: "randread",
        bs_kib: 64,
        iodepth: 32,
        numjobs: 1,
        zones: 8,
        metrics: &[(MibS, 1.0)],
    },
    CalJob {
        name: "write-4k-qd1",
        what: "4 KiB sequential writes at QD1 in one zone",
        rw: "write",
        bs_kib: 4,
        iodepth: 1,
        numjobs: 1,
        zones: 2,
        metrics: &[(MeanUs, 1.0)],
    },
    CalJob {
        name: "write-128k-qd1",
        what: "128 KiB sequential writes at QD1 in one zone",
        rw: "write",
        bs_kib: 128,
        iodepth: 1,
        numjobs: 1,
        zones: 2,
        metrics: &[(MibS, 1.0)],
    },
    CalJob {
        name: "write-4k-8zones",
        what: "4 KiB sequential writes at QD1 from 8 jobs, each in zones of its own",
        rw: "write",
        bs_kib: 4,
        iodepth: 1,
        numjobs: 8,
        zones: 16,
        metrics: &[(Iops, 1.0)],
    },
];

/// Zones written before the reads, and where writers start.
pub const READ_ZONES: u32 = 8;
pub const WRITE_FIRST_ZONE: u32 = 16;

impl CalJob {
    fn op(&self) -> &'static str {
        if self.rw == "write" { "write" } else { "read" }
    }

    fn offset_zones(&self) -> u32 {
        if self.rw == "write" {
            WRITE_FIRST_ZONE
        } else {
            0
        }
    }

    /// The fio job file for a real zoned drive (`filename` from the `DEV` environment variable,
    /// as fio expands it), run for `runtime_s` seconds after `ramp_s`.
    pub fn fio_job(&self, runtime_s: u32, ramp_s: u32) -> String {
        let z = self.zones / if self.rw == "write" { self.numjobs } else { 1 };
        let mut s = format!(
            "# {}: {}\n[global]\nfilename=${{DEV}}\nioengine=io_uring\ndirect=1\nzonemode=zbd\n\
             thread=1\ngroup_reporting=1\ntime_based=1\nruntime={runtime_s}s\nramp_time={ramp_s}s\n\
             lat_percentiles=1\n\n[{}]\nrw={}\nbs={}k\niodepth={}\nnumjobs={}\noffset={}z\nsize={z}z\n",
            self.name,
            self.what,
            self.name,
            self.rw,
            self.bs_kib,
            self.iodepth,
            self.numjobs,
            self.offset_zones(),
        );
        if self.rw == "write" {
            s.push_str(&format!("offset_increment={z}z\njob_max_open_zones=1\n"));
        } else {
            s.push_str("norandommap=1\n");
        }
        s
    }

    /// The same job on ZoneLab: an experiment without a device (the caller names one), run for
    /// `runtime` of simulated time.
    pub fn zonelab_toml(&self, runtime: &str) -> String {
        let region = if self.rw == "write" {
            format!("offset = \"{WRITE_FIRST_ZONE}z\"\nmax_open_zones = 1\n")
        } else {
            format!("[prefill]\nsize = \"{READ_ZONES}z\"\n\n")
        };
        let (pre, job_region) = if self.rw == "write" {
            (String::new(), region)
        } else {
            (region, String::new())
        };
        format!(
            "{pre}[[job]]\nname = \"{}\"\nrw = \"{}\"\nbs = \"{}KiB\"\niodepth = {}\nnumjobs = {}\n\
             size = \"{}z\"\n{job_region}time_based = true\nruntime = \"{runtime}\"\n",
            self.name, self.rw, self.bs_kib, self.iodepth, self.numjobs, self.zones
        )
    }

    /// The prefill job file: writes the zones the reads use.
    pub fn fio_prefill() -> String {
        format!(
            "# prefill: writes zones 0..{READ_ZONES} for the read jobs (run it first)\n[global]\n\
             filename=${{DEV}}\nioengine=io_uring\ndirect=1\nzonemode=zbd\n\n[prefill]\nrw=write\n\
             bs=1m\niodepth=8\noffset=0z\nsize={READ_ZONES}z\n"
        )
    }

    /// Its measured values from fio's JSON output (`--output-format=json`): one per metric, in
    /// order; None where fio gave nothing.
    pub fn from_fio(&self, doc: &Value) -> Vec<Option<f64>> {
        let job = &doc["jobs"][0];
        let side = &job[if self.rw == "write" { "write" } else { "read" }];
        self.metrics
            .iter()
            .map(|(m, _)| {
                let pct = |p: &str| {
                    let lat = &side["lat_ns"]["percentile"][p];
                    let clat = &side["clat_ns"]["percentile"][p];
                    lat.as_f64().or(clat.as_f64()).map(|ns| ns / 1e3)
                };
                match m {
                    MeanUs => side["lat_ns"]["mean"].as_f64().map(|ns| ns / 1e3),
                    P50Us => pct("50.000000"),
                    P99Us => pct("99.000000"),
                    Iops => side["iops"].as_f64(),
                    MibS => side["bw_bytes"].as_f64().map(|b| b / (1u64 << 20) as f64),
                }
            })
            .collect()
    }

    /// Its values from a ZoneLab results directory's summary.json (the fio engine's
    /// `zonelab_results`, or `zonelab run`): the model's own latencies.
    pub fn from_summary(&self, doc: &Value) -> Vec<Option<f64>> {
        let op = &doc["ops"][self.op()];
        self.metrics
            .iter()
            .map(|(m, _)| {
                let pct = |p: &str| op["latency_ns"]["percentiles"][p].as_f64().map(|v| v / 1e3);
                match m {
                    MeanUs => op["latency_ns"]["mean"].as_f64().map(|v| v / 1e3),
                    P50Us => pct("p50"),
                    P99Us => pct("p99"),
                    Iops => op["iops"].as_f64(),
                    MibS => op["mib_per_s"].as_f64(),
                }
            })
            .collect()
    }

    /// The name of each of its metrics for `validation::device::metric`.
    pub fn metric_names(&self) -> Vec<String> {
        self.metrics
            .iter()
            .map(|(m, _)| m.zonelab_name(self.op()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_files_and_experiments_describe_the_same_jobs() {
        for j in JOBS {
            let fio = j.fio_job(30, 5);
            assert!(fio.contains(&format!("bs={}k", j.bs_kib)), "{fio}");
            assert!(fio.contains(&format!("iodepth={}", j.iodepth)));
            assert!(fio.contains("zonemode=zbd") && fio.contains("lat_percentiles=1"));
            let toml = format!("preset = \"zn540\"\n{}", j.zonelab_toml("10ms"));
            let cfg = crate::ExperimentConfig::parse(&toml, &[]).unwrap();
            cfg.validate("t")
                .unwrap_or_else(|e| panic!("{}: {e}", j.name));
        }
    }

    #[test]
    fn fio_json_is_read_as_fio_writes_it() {
        let doc: Value = serde_json::from_str(
            r#"{"jobs":[{"read":{"iops":13700.5,"bw_bytes":56117248,
                "lat_ns":{"mean":72600.0,"percentile":{"50.000000":69120,"99.000000":81408}},
                "clat_ns":{"mean":71000.0}}}]}"#,
        )
        .unwrap();
        let v = JOBS[0].from_fio(&doc);
        assert_eq!(v, [Some(72.6), Some(69.12), Some(81.408)]);
        let v = JOBS[4].from_fio(&doc);
        assert_eq!(v, [Some(53.517578125)]);
    }
}
