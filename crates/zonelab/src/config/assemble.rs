//! The steps of [`ExperimentConfig::validate_with`] that span several sections of the file, each
//! checking its sections in the order the whole file is checked (the first error stays the same).

use super::{ConfigError, ExperimentConfig, FirmwareConfig, MAX_INTERVAL, MIN_INTERVAL};
use super::{MAX_INTERVALS, files, kv, ranges, region};
use crate::device::DeviceInfo;
use crate::experiment::DeviceSpec;
use crate::firmware::PolicySpec;
use crate::ftl::PreconditionPlan;
use crate::host::LayerSpec;
use crate::workload::files::FilesSpec;
use crate::workload::{HostWorkload, JobSpec};
use crate::zns::PrefillPlan;

/// What a device is set up with before the run: its prefill, its precondition, and the
/// namespaces the prefill fills.
pub(super) type SetUp = (PrefillPlan, Option<PreconditionPlan>, Vec<u32>);

impl ExperimentConfig {
    /// The device, the layer over it, and what the workloads see of the two.
    pub(super) fn device_and_layer(
        &self,
    ) -> Result<(DeviceSpec, Option<LayerSpec>, DeviceInfo), ConfigError> {
        let device = self.device.validate("device.", self.seed)?;
        let layer = match (&self.layer, &device) {
            (None, _) => None,
            (Some(l), DeviceSpec::Zns(spec)) => Some(l.validate(spec)?),
            (Some(l), d) => Some(l.validate_over_block(&d.info(), d.nand().geometry.dies())?),
        };
        let info = match (&layer, &device) {
            (Some(l), DeviceSpec::Zns(spec)) => l.info(spec),
            (Some(l), d) => l.info_over_block(&d.info()),
            (None, d) => d.info(),
        };
        Ok((device, layer, info))
    }

    /// The `[[job]]`s, each named at most once.
    pub(super) fn validate_jobs(&self, info: &DeviceInfo) -> Result<Vec<JobSpec>, ConfigError> {
        let jobs = self
            .jobs
            .iter()
            .enumerate()
            .map(|(i, j)| j.validate(i, info))
            .collect::<Result<Vec<_>, _>>()?;
        // `--set job.NAME.key=value` reaches a job by its name: two jobs of one name would leave
        // the second out of reach (and the reports could not tell them apart).
        for (i, name) in self
            .jobs
            .iter()
            .enumerate()
            .filter_map(|(i, j)| Some((i, j.name.as_deref()?)))
        {
            if let Some(k) = self.jobs[..i]
                .iter()
                .position(|j| j.name.as_deref() == Some(name))
            {
                return Err(ConfigError::field(
                    format!("job[{i}].name"),
                    format!("`{name}` is also job[{k}]'s name: give each job its own"),
                ));
            }
        }
        Ok(jobs)
    }

    /// The workloads that run as host tasks (threads, the file layer, then the key-value
    /// stores), and the file layer alone.
    pub(super) fn host_workloads(
        &self,
        info: &DeviceInfo,
    ) -> Result<(Vec<HostWorkload>, Option<FilesSpec>), ConfigError> {
        let mut host = Vec::new();
        for (i, t) in self.threads.iter().enumerate() {
            host.push(HostWorkload::Threads(t.validate(i, info)?));
        }
        let mut stores = Vec::new();
        for (i, d) in self.dbbench.iter().enumerate() {
            stores.push(HostWorkload::DbBench(d.validate(i, self.seed)?));
        }
        for (i, y) in self.ycsb.iter().enumerate() {
            stores.push(HostWorkload::Ycsb(y.validate(
                i,
                self.seed,
                self.host.cores,
            )?));
        }
        kv::check_namespaces(&stores, info.namespaces)?;
        let file_layer = files::validate(self, kv::store_on_fs(&stores).as_deref(), info)?;
        // The file layer first: it mounts before the stores that keep their files on it.
        if let Some(f) = &file_layer {
            host.push(HostWorkload::Files(f.clone()));
        }
        host.extend(stores);
        kv::check_names(&host)?;
        Ok((host, file_layer))
    }

    /// The firmware policy, the metrics, the seed, the faults and the host cores, in that order.
    pub(super) fn run_settings(
        &self,
        info: &DeviceInfo,
        device: &DeviceSpec,
        layer: Option<&LayerSpec>,
    ) -> Result<PolicySpec, ConfigError> {
        let firmware = match &info.zoned {
            Some(z) => self.firmware.validate(z.zone_count)?,
            None if self.firmware != FirmwareConfig::default() => {
                return Err(ConfigError::field(
                    "firmware.policy",
                    "zone reset policies apply to ZNS devices; a conventional device's FTL is set in [device.ftl]",
                ));
            }
            None => self.firmware.validate(1)?,
        };
        if !(MIN_INTERVAL..=MAX_INTERVAL).contains(&self.metrics.interval) {
            return Err(ConfigError::field(
                "metrics.interval",
                format!(
                    "{} must be between {MIN_INTERVAL} and {MAX_INTERVAL}",
                    self.metrics.interval
                ),
            ));
        }
        ranges::within(
            "metrics.max_intervals",
            self.metrics.max_intervals as u64,
            16,
            MAX_INTERVALS as u64,
        )?;
        if self.seed > i64::MAX as u64 {
            return Err(ConfigError::field(
                "seed",
                format!("{} must be at most {}", self.seed, i64::MAX),
            ));
        }
        // An array's dies count across its drives, and its zones take faults on every drive;
        // the other layers hide the device's zones and dies.
        let dies = device.nand().geometry.dies();
        let (dies, drives, hides_device) = match layer {
            Some(l @ LayerSpec::Array(a)) => (l.dies(dies), Some(a.drives), false),
            Some(_) => (dies, None, true),
            None => (dies, None, false),
        };
        self.faults.validate(info, dies, drives, hides_device)?;
        if !(1..=4096).contains(&self.host.cores) {
            return Err(ConfigError::field(
                "host.cores",
                format!("{} must be between 1 and 4096", self.host.cores),
            ));
        }
        Ok(firmware)
    }

    /// The device's set-up (`[prefill]` on zones, `[precondition]` on a conventional SSD), and
    /// the zones the writers share once it is done.
    pub(super) fn set_up(
        &self,
        info: &DeviceInfo,
        device: &DeviceSpec,
        jobs: &mut [JobSpec],
        host: &[HostWorkload],
    ) -> Result<SetUp, ConfigError> {
        Ok(match (&info.zoned, device) {
            // Zones emulated over a conventional SSD start empty; the SSD under them may be
            // preconditioned (its FTL then holds data the zones do not show until a reset trims it).
            (Some(zoned), DeviceSpec::Conventional(spec)) => {
                if self.prefill.is_some() {
                    return Err(ConfigError::field(
                        "prefill",
                        "emulated zones start empty; set the conventional SSD under them up with [precondition]",
                    ));
                }
                let plan = match &self.precondition {
                    Some(p) => Some(p.plan(spec, self.seed)?),
                    None => None,
                };
                region::check_writer_overlap(jobs, host)?;
                region::resolve_open_budget(jobs, host, zoned, 0)?;
                (PrefillPlan::default(), plan, Vec::new())
            }
            (Some(zoned), _) => {
                if self.precondition.is_some() {
                    return Err(ConfigError::field(
                        "precondition",
                        "applies to conventional devices; a ZNS device is set up with [prefill]",
                    ));
                }
                let mut faulty: Vec<u32> = self.faults.read_only_zones.clone();
                faulty.extend(&self.faults.offline_zones);
                let prefill = match &self.prefill {
                    None => PrefillPlan::default(),
                    Some(p) => p.plan(info, &faulty, self.seed)?,
                };
                let prefill_namespaces = self.prefill_namespaces(info.namespaces)?;
                let active_after_prefill = prefill.partial_zones(zoned.zone_capacity_lbas);
                region::check_writer_overlap(jobs, host)?;
                region::resolve_open_budget(jobs, host, zoned, active_after_prefill)?;
                (prefill, None, prefill_namespaces)
            }
            (None, _) => {
                if self.prefill.is_some() {
                    return Err(ConfigError::field(
                        "prefill",
                        "fills zones; a conventional device is set up with [precondition]",
                    ));
                }
                let plan = match (&self.precondition, device) {
                    (Some(p), DeviceSpec::Conventional(spec)) => Some(p.plan(spec, self.seed)?),
                    _ => None,
                };
                (PrefillPlan::default(), plan, Vec::new())
            }
        })
    }
}

/// A prefill leaves ZenFS's metadata zones alone.
pub(super) fn check_prefill_spares_zenfs_meta(
    file_layer: Option<&FilesSpec>,
    prefill: &PrefillPlan,
) -> Result<(), ConfigError> {
    if let Some(f) = file_layer
        && let crate::host::fs::Personality::Zenfs(z) = &f.fs.personality
    {
        let meta = f.fs.first_zone..f.fs.first_zone + z.meta_zones;
        if let Some((zone, _)) = prefill.zones.iter().find(|(zone, _)| meta.contains(zone)) {
            return Err(ConfigError::field(
                "prefill.offset",
                format!(
                    "zone {zone} is one of ZenFS's metadata zones {}..{}; start the prefill after them",
                    meta.start, meta.end
                ),
            ));
        }
    }
    Ok(())
}
