//! Opening a device for fio: the options checked, the state file read, the configuration
//! resolved, and the trace pointed into the results directory.

use anyhow::{Context, Result, anyhow, bail};
use zonelab::config::{ExperimentConfig, preset_file};
use zonelab::driver::Driver;
use zonelab::state;
use zonelab::trace::CsvWriter;

use crate::{DEFAULT_PRESET, OpenOptions, overrides_for};

/// The options make sense together, and the results directory can be written.
pub(crate) fn check_options(o: &OpenOptions) -> Result<()> {
    if o.preset.is_some() && o.config_file.is_some() {
        bail!("give zonelab_preset or zonelab_config, not both");
    }
    if let Some(dir) = &o.results {
        zonelab_io::check_writable_dir(dir)
            .with_context(|| format!("zonelab_results={}", dir.display()))?;
    }
    Ok(())
}

/// The state file's bytes, if it exists; if not, its directory must take the file later.
pub(crate) fn read_state(o: &OpenOptions) -> Result<Option<Vec<u8>>> {
    Ok(match &o.state {
        Some(p) if p.exists() => Some(
            std::fs::read(p)
                .with_context(|| format!("zonelab_state: cannot read {}", p.display()))?,
        ),
        Some(p) => {
            zonelab_io::check_writable_dir(zonelab_io::parent(p))
                .with_context(|| format!("zonelab_state={}", p.display()))?;
            None
        }
        None => None,
    })
}

/// A state file's error, naming the file.
pub(crate) fn in_state(o: &OpenOptions) -> impl Fn(state::StateError) -> anyhow::Error + '_ {
    move |e| {
        let p = o.state.as_ref().expect("a state file").display();
        anyhow!("zonelab_state={p}: {e}")
    }
}

/// The configuration (from the config file, the preset, the state file or the default preset,
/// in that order), its identity for the state file, and the zoned device it validates to.
pub(crate) fn configure(
    name: &str,
    o: &OpenOptions,
    saved: Option<&state::Saved<'_>>,
) -> Result<(ExperimentConfig, String, zonelab::Experiment)> {
    let text = match (&o.config_file, &o.preset, saved) {
        (Some(path), _, _) => std::fs::read_to_string(path)
            .with_context(|| format!("zonelab_config: cannot read {path}"))?,
        (None, Some(preset), _) => preset_file(preset),
        (None, None, Some(s)) => s.identity.clone(),
        (None, None, None) => preset_file(DEFAULT_PRESET),
    };
    let overrides = overrides_for(o, &text, saved.is_some())?;
    let cfg = ExperimentConfig::parse(&text, &overrides)?;
    let identity = state::identity(&cfg);
    let exp = cfg.validate_device(name)?;
    if o.state.is_some() {
        state::check_storable(&exp).map_err(|e| anyhow!("zonelab_state: {e}"))?;
    }
    if exp.info().zoned.is_none() {
        bail!(
            "device `{}` is a conventional SSD; the ZoneLab fio engine drives zoned devices only (run conventional devices with `zonelab run`)",
            exp.device.name()
        );
    }
    Ok((cfg, identity, exp))
}

/// `trace.enabled`: the driver writes trace.csv into the results directory.
pub(crate) fn trace_into_results(
    driver: &mut Driver,
    o: &OpenOptions,
    channels: u32,
) -> Result<()> {
    let Some(dir) = &o.results else {
        bail!(
            "trace.enabled: the fio engine writes trace.csv into the results directory; set zonelab_results"
        );
    };
    let path = dir.join("trace.csv");
    let file = std::fs::File::create(&path)
        .with_context(|| format!("zonelab_results: cannot create {}", path.display()))?;
    let mut csv = CsvWriter::new(std::io::BufWriter::with_capacity(1 << 20, file), channels);
    csv.header();
    driver.set_trace(Box::new(csv));
    Ok(())
}
