"""``zonelab.run``: one experiment, its results as a dict and pandas DataFrames."""

from __future__ import annotations

import json
import os
import sys
import tomllib
import warnings
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any, Union

from . import _zonelab
from ._source import ExperimentLike, OverridesLike, Source, assignments, source

if TYPE_CHECKING:
    import pandas as pd

#: ``progress``: None (a bar when stderr is a terminal), True/False, or ``f(fraction, simulated_ns)``.
ProgressLike = Union[bool, None, Callable[[float, int], Any]]


def _frame(data: Any, **kwargs: Any) -> pd.DataFrame:
    """A DataFrame. pandas is imported here, when a table is first read, not by ``import
    zonelab`` (it is most of that import's time)."""
    import pandas as pd

    return pd.DataFrame(data, **kwargs)


class Result:
    """A finished run. ``summary`` is summary.json as a dict; the tables are DataFrames, built
    when first read. ``save(dir)`` writes what ``zonelab run -o DIR`` writes."""

    def __init__(self, native: Any) -> None:
        self._native = native

    @cached_property
    def summary(self) -> dict[str, Any]:
        """Everything summary.json holds (per-kind latency percentiles, IOPS, MiB/s, device
        counters, WAF, energy, wear, jobs, NVMe errors, firmware counters)."""
        return json.loads(self._native.summary_json())

    @property
    def name(self) -> str:
        return self.summary["experiment"]

    @property
    def seed(self) -> int:
        return self.summary["seed"]

    @property
    def fingerprint(self) -> str:
        """The config fingerprint the CLI prints first (hex)."""
        return self.summary["config_fingerprint"]

    @cached_property
    def ops(self) -> pd.DataFrame:
        """One row per (layer, kind, tenant) that ran: ``layer`` (device, file, kv), ``kind``
        (read, write, fsync, get, ...), ``tenant`` (the job, workload or namespace), count, bytes,
        iops, mib_per_s, min_ns, mean_ns and every percentile (p50_ns ... p100_ns)."""
        return _frame(self._native.ops())

    @cached_property
    def trace(self) -> pd.DataFrame | None:
        """One row per device command (the columns of trace.csv), or None unless the experiment
        has ``[trace] enabled = true``."""
        table = self._native.trace()
        return None if table is None else _frame(table)

    @cached_property
    def timeseries(self) -> pd.DataFrame:
        """Per interval ([metrics] interval, end time ``time_s``): MiB/s and IOPS for reads and
        writes, and the raw bytes and operation counts."""
        return _frame(self._native.timeseries())

    @property
    def cdf_kinds(self) -> list[str]:
        """The kinds ``latency_cdf`` accepts: device command kinds that ran (``write``), host
        layers' as ``layer_kind`` (``file_fsync``, ``kv_get``), and ``erase_wait``."""
        return list(self._native.cdf_kinds())

    def latency_cdf(self, kind: str = "write") -> pd.DataFrame:
        """The latency CDF of one kind to P100: ``percentile`` (0..100), ``latency_ns``."""
        table = self._native.latency_cdf(kind)
        if table is None:
            raise KeyError(f"no latency distribution for {kind!r}; this run has {self.cdf_kinds}")
        return _frame(table)

    @cached_property
    def zones(self) -> pd.DataFrame:
        """The zones at the end of the run: zone, zslba, state (nvme-cli's names), wp, capacity_lbas."""
        return _frame(self._native.zones())

    @cached_property
    def firmware(self) -> pd.DataFrame | None:
        """The firmware policy's series over time (zone-mapping policies: free and invalid zones
        and the S0/S1/S2 state; renewable: the spare-list length), or None for synchronous.
        ``df.attrs["kind"]`` names the report."""
        report = self._native.firmware()
        if report is None:
            return None
        kind, table = report
        df = _frame(table)
        df.attrs["kind"] = kind
        return df

    @cached_property
    def config_toml(self) -> str:
        """The resolved configuration, seed included (config.resolved.toml): run it to repeat
        this run exactly."""
        return self._native.config_toml()

    @property
    def config(self) -> dict[str, Any]:
        """The resolved configuration as a dict."""
        return tomllib.loads(self.config_toml)

    def save(self, directory: str | os.PathLike[str]) -> None:
        """Writes the results directory ``zonelab run -o DIR`` writes, byte for byte."""
        self._native.write(os.fspath(directory))

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<zonelab.Result {s['experiment']} seed {s['seed']} on {s['device']} "
            f"({s['firmware_policy']}): {', '.join(s['ops'])}; "
            f"{s['simulated_time_ns'] / 1e9:.3f} simulated s>"
        )


def _progress_callback(progress: ProgressLike, label: Callable[[], str]) -> tuple[Any, Callable[[], None]]:
    """The callback for the native run and a function that closes whatever it opened."""
    if callable(progress):
        return progress, lambda: None
    if progress is None:
        progress = sys.stderr is not None and sys.stderr.isatty()
    if not progress:
        return None, lambda: None
    from tqdm import tqdm

    # Shown only for runs longer than half a second.
    bar = tqdm(
        total=1000,
        desc=str(label()),
        delay=0.5,
        leave=False,
        bar_format="{desc} {bar} {percentage:3.0f}% [{elapsed}]",
    )

    def update(fraction: float, _simulated_ns: int) -> None:
        bar.update(max(0, int(fraction * 1000) - bar.n))

    return update, bar.close


def run_source(src: Source, overrides: list[str], progress: ProgressLike = False) -> Result:
    callback, close = _progress_callback(progress, lambda: src.table().get("name", src.default_name))
    try:
        native = _zonelab.run(src.text, src.default_name, overrides, src.path, callback)
    finally:
        close()
    result = Result(native)
    # As the CLI warns: a job that read nothing because nothing was there is rarely what was meant.
    for job in result.summary.get("jobs", []):
        if job["reads"] + job["writes"] + job["resets"] == 0 and "no data to read" in job["stopped"]:
            warnings.warn(
                f"job {job['name']} read nothing: the LBAs it reads hold no data (nothing was "
                "prefilled or written before it); add a [prefill] or a job that writes first",
                RuntimeWarning,
                stacklevel=3,
            )
    return result


def run(
    experiment: ExperimentLike,
    seed: int | None = None,
    overrides: OverridesLike = None,
    *,
    progress: ProgressLike = None,
) -> Result:
    """Runs one experiment, as ``zonelab run EXP [--seed N] [--set k=v]...`` does.

    ``experiment`` is a path to an experiment file, TOML text (any str with a newline or ``=``)
    or a dict of the same tables. ``overrides`` are dotted keys, as a dict
    (``{"firmware.policy": "mapping", "firmware.t_free": 2}``) or ``--set`` strings. ``seed``
    overrides the experiment's seed. The GIL is released while the simulation runs; Ctrl-C
    stops it. Raises ``zonelab.ConfigError`` (with ``.field``) on bad input, with the CLI's
    message.
    """
    src = source(experiment)
    sets = assignments(overrides)
    if seed is not None:
        sets.append(f"seed={int(seed)}")
    return run_source(src, sets, progress)


def check(experiment: ExperimentLike, overrides: OverridesLike = None) -> dict[str, Any]:
    """Validates an experiment as ``zonelab check`` does and returns the resolved configuration
    (raises ``zonelab.ConfigError``)."""
    src = source(experiment)
    text, _name = _zonelab.check(src.text, src.default_name, assignments(overrides), src.path)
    return tomllib.loads(text)


def presets() -> pd.DataFrame:
    """The device presets: name, description and the TOML text (``zonelab presets show NAME``)."""
    return _frame(_zonelab.preset_list(), columns=["name", "description", "toml"])
