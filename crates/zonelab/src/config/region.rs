//! Regions of zones (`offset` and `size` of jobs, `[prefill]` and `[fs]`) and the open and
//! active zone budgets of the writers that share them.

use super::ConfigError;
use crate::device::ZonedInfo;
use crate::units::Extent;
use crate::workload::{HostWorkload, JobSpec};

/// A region of zones given by `offset` and `size` (bytes, "16z" or "50%"): its first zone, its
/// zone count, and its size in bytes. `prefix` names the fields in errors.
pub(super) fn zone_region(
    prefix: &str,
    offset: Option<Extent>,
    size: Option<Extent>,
    lba: u64,
    z: &ZonedInfo,
) -> Result<(u32, u32, u64), ConfigError> {
    let f = |name: &str| format!("{prefix}{name}");
    let zone_bytes = z.zone_size_lbas * lba;
    let ns_bytes = zone_bytes * z.zone_count as u64;
    let offset = offset.map_or(0, |o| o.to_bytes(zone_bytes, ns_bytes));
    if !offset.is_multiple_of(zone_bytes) {
        return Err(ConfigError::field(
            f("offset"),
            format!(
                "{offset} is not on a zone boundary (zone size {zone_bytes}); zoned work starts at a zone"
            ),
        ));
    }
    if offset >= ns_bytes {
        return Err(ConfigError::field(
            f("offset"),
            format!("{offset} is beyond the end of the device ({ns_bytes} bytes)"),
        ));
    }
    let size = match size {
        Some(s) => s.to_bytes(zone_bytes, ns_bytes),
        None => ns_bytes - offset,
    };
    if size == 0 {
        return Err(ConfigError::field(f("size"), "must be greater than 0"));
    }
    if size > ns_bytes - offset {
        return Err(ConfigError::field(
            f("size"),
            format!(
                "offset {offset} + size {size} goes beyond the end of the device ({ns_bytes} bytes)"
            ),
        ));
    }
    let first = (offset / zone_bytes) as u32;
    let count = size.div_ceil(zone_bytes) as u32;
    Ok((first, count, size))
}

/// Writers of different jobs (and host threads) must not share zones: their write pointers
/// would collide.
pub(super) fn check_writer_overlap(
    jobs: &[JobSpec],
    host: &[HostWorkload],
) -> Result<(), ConfigError> {
    let writers: Vec<(String, u32, u32, u32)> = jobs
        .iter()
        .enumerate()
        .filter(|(_, j)| j.rw.writes())
        .map(|(i, j)| (format!("job[{i}]"), j.first_zone, j.zone_count, j.nsid))
        .chain(host.iter().filter_map(|w| {
            let z = w.zones()?;
            Some((w.name().to_string(), z.first_zone, z.zone_count, 0))
        }))
        .collect();
    for (i, (na, a0, an, ans)) in writers.iter().enumerate() {
        for (nb, b0, bn, bns) in &writers[i + 1..] {
            let (a1, b1) = (a0 + an, b0 + bn);
            if ans == bns && a0 < &b1 && b0 < &a1 {
                return Err(ConfigError::field(
                    format!("{nb}.offset"),
                    format!(
                        "writes zones {b0}..{b1}, which overlap {na}'s zones {a0}..{a1}; give writers separate regions"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Gives writers without `max_open_zones` an equal share of the device's open and active
/// limits left after the prefill's partly written zones (each holds an active resource), then
/// checks that all writers together fit.
pub(super) fn resolve_open_budget(
    jobs: &mut [JobSpec],
    host: &[HostWorkload],
    z: &ZonedInfo,
    prefill_active: u32,
) -> Result<(), ConfigError> {
    // Each namespace has its own limits; host threads and the prefill's count work in
    // namespace 0 (a layer's prefill of other namespaces leaves them as full as namespace 0's).
    let mut namespaces: Vec<u32> = jobs.iter().map(|j| j.nsid).collect();
    namespaces.push(0);
    namespaces.sort_unstable();
    namespaces.dedup();
    for ns in namespaces {
        let index: Vec<usize> = (0..jobs.len()).filter(|&i| jobs[i].nsid == ns).collect();
        let mut mine: Vec<JobSpec> = index.iter().map(|&i| jobs[i].clone()).collect();
        let no_host: &[HostWorkload] = &[];
        let host = if ns == 0 { host } else { no_host };
        resolve_namespace_budget(&mut mine, &index, host, z, prefill_active)?;
        let mut resolved = mine.into_iter();
        for j in jobs.iter_mut().filter(|j| j.nsid == ns) {
            *j = resolved.next().expect("one resolved job per job");
        }
    }
    Ok(())
}

/// As [`resolve_open_budget`] for the jobs of one namespace; `index` gives each one's place in
/// the experiment's `[[job]]` list (errors name `job[i]`).
fn resolve_namespace_budget(
    jobs: &mut [JobSpec],
    index: &[usize],
    host: &[HostWorkload],
    z: &ZonedInfo,
    prefill_active: u32,
) -> Result<(), ConfigError> {
    let clones: u64 = jobs
        .iter()
        .filter(|j| j.rw.writes())
        .map(|j| j.numjobs as u64)
        .sum();
    let thread_zones: u64 = host
        .iter()
        .filter_map(|w| w.zones())
        .map(|z| z.open_zones as u64)
        .sum();
    let open = z.max_open_zones;
    let active = z.max_active_zones.map(|a| a.saturating_sub(prefill_active));
    let device_limit = match (open, active) {
        (Some(o), Some(a)) => Some(o.min(a)),
        (o, a) => o.or(a),
    };
    let budget = device_limit.map(|l| (l as u64).saturating_sub(thread_zones));
    let blame = budget_blame(jobs, index, host);
    for job in jobs.iter_mut().filter(|j| j.max_open_zones == 0) {
        let slice = (job.zone_count / job.numjobs).max(1);
        let share = budget.map_or(u32::MAX, |l| (l / clones.max(1)).max(1) as u32);
        job.max_open_zones = share.min(slice);
    }
    let Some(limit) = device_limit else {
        return Ok(());
    };
    let wanted: u64 = jobs
        .iter()
        .filter(|j| j.rw.writes())
        .map(|j| j.max_open_zones as u64 * j.numjobs as u64)
        .sum::<u64>()
        + thread_zones;
    check_abandoned_zones(jobs, index, thread_zones, z, prefill_active)?;
    if wanted > limit as u64 {
        let why = if prefill_active > 0 {
            format!(
                " ({prefill_active} of the device's active zones are the prefill's partly written zones)"
            )
        } else {
            String::new()
        };
        return Err(ConfigError::field(
            blame,
            format!(
                "the writers keep up to {wanted} zones open in all, above the {limit} the device allows{why}; lower max_open_zones or numjobs"
            ),
        ));
    }
    Ok(())
}

/// The field to name if the writers' zones do not fit: the first writer that sets
/// max_open_zones, else the first writer (its numjobs), else what holds the zones (host
/// threads, the file layer, the prefill). Taken before the defaults are filled in.
fn budget_blame(jobs: &[JobSpec], index: &[usize], host: &[HostWorkload]) -> String {
    let explicit = jobs
        .iter()
        .position(|j| j.rw.writes() && j.max_open_zones != 0)
        .map(|i| format!("job[{}].max_open_zones", index[i]));
    explicit
        .or_else(|| {
            jobs.iter()
                .position(|j| j.rw.writes())
                .map(|i| format!("job[{}].numjobs", index[i]))
        })
        .unwrap_or_else(|| {
            match host.iter().find(|w| w.zones().is_some()) {
                Some(HostWorkload::Threads(_)) => "threads",
                Some(_) => "fs",
                None => "prefill.fill",
            }
            .to_string()
        })
}

/// Writers that abandon zones (`zone_fill_action = "abandon"`) leave each zone they stop
/// writing open, holding an active resource until they come back and reset it: such a writer
/// may keep every zone of its region active at once. With the other writers' open zones,
/// those must fit the device's active limit, or the run fails with Too Many Active Zones
/// (issue 36, defect 7).
fn check_abandoned_zones(
    jobs: &[JobSpec],
    index: &[usize],
    thread_zones: u64,
    z: &ZonedInfo,
    prefill_active: u32,
) -> Result<(), ConfigError> {
    let Some(active) = z.max_active_zones else {
        return Ok(());
    };
    let abandons = |j: &JobSpec| {
        j.rw.writes()
            && j.zone_fill_lbas.is_some()
            && j.zone_fill_action == crate::workload::ZoneFillAction::Abandon
    };
    let Some(first) = jobs.iter().position(abandons) else {
        return Ok(());
    };
    let wanted: u64 = jobs
        .iter()
        .filter(|j| j.rw.writes())
        .map(|j| {
            if abandons(j) {
                j.zone_count as u64
            } else {
                j.max_open_zones as u64 * j.numjobs as u64
            }
        })
        .sum::<u64>()
        + thread_zones
        + prefill_active as u64;
    if wanted <= active as u64 {
        return Ok(());
    }
    Err(ConfigError::field(
        format!("job[{}].zone_fill_action", index[first]),
        format!(
            "\"abandon\" leaves each zone of the job's {} zones active until the job comes back to reset it; with the other writers{} that is up to {wanted} active zones, above the device's {active}; use \"reset\", a smaller size, or a device with more active zones",
            jobs[first].zone_count,
            if prefill_active > 0 {
                " and the prefill's partly written zones"
            } else {
                ""
            },
        ),
    ))
}
