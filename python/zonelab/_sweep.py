"""``zonelab.sweep``: every (grid point, seed) of an experiment, run on Dask (a local cluster on
every core by default, or any cluster), gathered into one DataFrame in grid order.

Each run is deterministic, so a point gives the same row wherever and whenever it runs; rows
are placed by their index, never by completion order. A point that fails (a value the
experiment rejects, a crash) reports its error in its row and the others go on.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import tomllib
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._errors import ConfigError
from ._source import ExperimentLike, OverridesLike, Source, assignments, looks_like_toml, source

if TYPE_CHECKING:
    import pandas as pd

#: The columns every sweep table starts with, after the grid's.
FIXED_COLUMNS = ("point", "seed", "error")


@dataclass
class Axis:
    """One grid dimension: a key, or several keys that vary together (a "linked" axis, written
    ``"a,b"``: each value is a list giving one value per key)."""

    keys: tuple[str, ...]
    values: list[tuple[Any, ...]]


@dataclass
class Sweep:
    """A sweep, as given to ``zonelab.sweep`` or read from a sweep file. ``experiment`` may be
    None when the grid has an ``experiment`` axis (experiment files, dicts or TOML texts, paths
    relative to ``directory``)."""

    experiment: Source | None
    axes: list[Axis] = field(default_factory=list)
    seeds: list[int | None] = field(default_factory=lambda: [None])
    overrides: list[str] = field(default_factory=list)
    workers: int | None = None
    scheduler: str | None = None
    plot: dict[str, Any] = field(default_factory=dict)
    directory: Path = field(default_factory=Path.cwd)

    @property
    def keys(self) -> list[str]:
        return [k for a in self.axes for k in a.keys]

    def points(self) -> list[dict[str, Any]]:
        """The grid in order: the first axis varies slowest."""
        return [
            {k: v for axis_value, axis in zip(combo, self.axes) for k, v in zip(axis.keys, axis_value)}
            for combo in itertools.product(*(a.values for a in self.axes))
        ]

    def source_of(self, point: Mapping[str, Any]) -> Source:
        """The experiment a point runs: its ``experiment`` value, or the sweep's."""
        if EXPERIMENT_AXIS in point:
            value = point[EXPERIMENT_AXIS]
            if isinstance(value, os.PathLike) or (isinstance(value, str) and not looks_like_toml(value)):
                path = Path(value)
                return source(path if path.is_absolute() else self.directory / path)
            return source(value)
        if self.experiment is None:
            raise ConfigError(
                "experiment: missing: an experiment, or an `experiment` axis in the grid", "experiment"
            )
        return self.experiment


#: The grid key whose values are whole experiments (paths, dicts or TOML text), for sweeping
#: workloads, which overrides cannot reach inside [[job]].
EXPERIMENT_AXIS = "experiment"


def _label(value: Any) -> Any:
    """What the table shows for an ``experiment`` axis value: a path as given, else the name."""
    if isinstance(value, (str, os.PathLike)) and not (isinstance(value, str) and looks_like_toml(value)):
        return os.fspath(value)
    try:
        table = tomllib.loads(value) if isinstance(value, str) else value
    except tomllib.TOMLDecodeError:
        return "experiment"
    return table.get("name", "experiment") if isinstance(table, Mapping) else str(value)


def _flatten_grid(grid: Mapping[Any, Any], prefix: str = "") -> dict[str, Any]:
    """``{"device": {"zones": {"max_open_zones": [..]}}}`` (unquoted dotted keys in a sweep file)
    as ``{"device.zones.max_open_zones": [..]}``."""
    out: dict[str, Any] = {}
    for k, v in grid.items():
        key = ",".join(k) if isinstance(k, tuple) else str(k)
        if isinstance(v, Mapping):
            out.update(_flatten_grid(v, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = v
    return out


def axes(grid: Mapping[Any, Any] | None) -> list[Axis]:
    """Checks a grid and splits it into axes."""
    result: list[Axis] = []
    seen: set[str] = set()
    for key, values in _flatten_grid(grid or {}).items():
        keys = tuple(k.strip() for k in key.split(","))
        where = f"grid.{key}"
        if any(not k for k in keys):
            raise ConfigError(f"{where}: has an empty key", where)
        for k in keys:
            if k in seen:
                raise ConfigError(f"{where}: `{k}` is already an axis of the grid", where)
            seen.add(k)
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            raise ConfigError(f"{where}: must be a list of values", where)
        values = list(values)
        if not values:
            raise ConfigError(f"{where}: has no values", where)
        rows = []
        for i, v in enumerate(values):
            if len(keys) == 1:
                rows.append((v,))
                continue
            if isinstance(v, (str, bytes)) or not isinstance(v, Sequence) or len(v) != len(keys):
                raise ConfigError(
                    f"{where}[{i}]: must be a list of {len(keys)} values, one per key", f"{where}[{i}]"
                )
            rows.append(tuple(v))
        result.append(Axis(keys, rows))
    return result


def seed_list(seeds: int | Iterable[int] | None, where: str = "seeds") -> list[int | None]:
    """``None``: the experiment's own seed; ``n``: seeds 0..n-1; else the seeds given."""
    if seeds is None:
        return [None]
    if isinstance(seeds, bool):
        raise ConfigError(f"{where}: must be a number of seeds or a list of seeds", where)
    if isinstance(seeds, int):
        if seeds < 1:
            raise ConfigError(f"{where}: {seeds} must be at least 1", where)
        return list(range(seeds))
    out: list[int | None] = []
    for i, s in enumerate(seeds):
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise ConfigError(f"{where}[{i}]: {s!r} is not a seed (an integer from 0)", f"{where}[{i}]")
        out.append(s)
    if not out:
        raise ConfigError(f"{where}: has no seeds", where)
    return out


SWEEP_KEYS = {"experiment", "grid", "seeds", "set", "workers", "scheduler", "plot"}


def is_sweep_table(table: Mapping[str, Any]) -> bool:
    """A sweep file has an ``experiment`` or a ``[grid]``, which no experiment file may have."""
    return "grid" in table or "experiment" in table


def from_table(table: Mapping[str, Any], src: Source) -> Sweep:
    """A sweep file: ``experiment`` (a path relative to the file, or an inline table; optional
    when the grid has an ``experiment`` axis), ``seeds``, ``workers``, ``scheduler``, ``[set]``
    (overrides for every point), ``[grid]`` and ``[plot]`` (``metric``, ``x``, ``hue`` for the
    figure ``python -m zonelab sweep`` draws)."""
    label = f"in {src.path}: " if src.path else ""

    def fail(where: str, message: str) -> ConfigError:
        return ConfigError(f"{label}{where}: {message}", where)

    unknown = sorted(set(table) - SWEEP_KEYS)
    if unknown:
        raise fail(unknown[0], f"unknown field; a sweep file has {', '.join(sorted(SWEEP_KEYS))}")
    fixed = table.get("set", {})
    if not isinstance(fixed, Mapping):
        raise fail("set", "must be a table of overrides")
    try:
        sweep = Sweep(
            experiment=None,
            axes=axes(table.get("grid", {})),
            seeds=seed_list(table.get("seeds")),
            overrides=assignments(_flatten_grid(fixed)),
            directory=src.directory,
        )
    except ConfigError as e:
        raise ConfigError(f"{label}{e}", e.field) from None
    exp = table.get("experiment")
    if isinstance(exp, str):
        path = Path(exp)
        if not path.is_absolute():
            path = src.directory / path
        if not path.is_file():
            raise fail("experiment", f"{path} is not a file")
        sweep.experiment = source(path)
    elif isinstance(exp, Mapping):
        sweep.experiment = source(exp, name=Path(src.path).stem if src.path else "sweep")
    elif exp is not None:
        raise fail("experiment", "must be a path or a table")
    elif EXPERIMENT_AXIS not in sweep.keys:
        raise fail(
            "experiment",
            "missing: the path of an experiment file, an [experiment] table,"
            " or an `experiment` axis in [grid]",
        )
    workers = table.get("workers")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise fail("workers", f"{workers!r} must be a positive integer")
    sweep.workers = workers
    scheduler = table.get("scheduler")
    if scheduler is not None and not isinstance(scheduler, str):
        raise fail("scheduler", "must be a scheduler address (tcp://host:port)")
    sweep.scheduler = scheduler
    plot = table.get("plot", {})
    if not isinstance(plot, Mapping) or set(plot) - {"metric", "x", "hue"}:
        raise fail("plot", "is a table with metric, x and hue")
    sweep.plot = dict(plot)
    return sweep


def load(
    experiment: ExperimentLike | Sweep | None,
    grid: Mapping[Any, Any] | None = None,
    seeds: int | Iterable[int] | None = None,
    overrides: OverridesLike = None,
) -> Sweep:
    """A Sweep from ``sweep()``'s arguments: an experiment and a grid, or a sweep file (whose
    grid, seeds and overrides the arguments given replace or extend)."""
    if isinstance(experiment, Sweep):
        sweep = experiment
    elif experiment is None:
        sweep = Sweep(experiment=None)
    else:
        src = source(experiment, name="sweep")
        table = src.table()
        sweep = from_table(table, src) if is_sweep_table(table) else Sweep(experiment=src)
    if grid is not None:
        sweep.axes = axes(grid)
    if sweep.experiment is None and EXPERIMENT_AXIS not in sweep.keys:
        raise ConfigError(
            "experiment: missing: an experiment, or an `experiment` axis in the grid", "experiment"
        )
    if seeds is not None:
        sweep.seeds = seed_list(seeds)
    sweep.overrides = sweep.overrides + assignments(overrides)
    return sweep


# ---- what runs on the workers ------------------------------------------------------------------


def _numeric_keys(d: Mapping[str, Any]) -> bool:
    return bool(d) and all(str(k).lstrip("-").replace(".", "", 1).isdigit() for k in d)


def flatten(summary: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """The summary as one row: each column is the dotted path of a value in summary.json
    (``ops.write.latency_ns.percentiles.p99``); jobs by name (``jobs.writer.reads``);
    histograms keyed by numbers, and other lists, as JSON text."""
    out: dict[str, Any] = {}
    for k, v in summary.items():
        name = f"{prefix}{k}"
        if isinstance(v, Mapping):
            if _numeric_keys(v):
                out[name] = json.dumps(v, sort_keys=True)
            else:
                out.update(flatten(v, name + "."))
        elif isinstance(v, list):
            if v and all(isinstance(x, Mapping) and "name" in x for x in v):
                for x in v:
                    rest = {kk: vv for kk, vv in x.items() if kk != "name"}
                    out.update(flatten(rest, f"{name}.{x['name']}."))
            else:
                out[name] = json.dumps(v)
        else:
            out[name] = v
    return out


def _error(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}"


def run_point(text: str, default_name: str, path: str | None, overrides: list[str]) -> dict[str, Any]:
    """One run, as a row: ``error`` None and the flattened summary, or ``error`` set."""
    from ._run import run_source

    try:
        result = run_source(Source(text, default_name, path), overrides, progress=False)
        return {"error": None, **flatten(result.summary)}
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # a ConfigError, or a panic in the core (a BaseException)
        return {"error": _error(e)}


def run_chunk(chunk: list[tuple[str, str, str | None, list[str]]]) -> list[dict[str, Any]]:
    """Several points in one Dask task, so short runs do not pay a task's overhead each."""
    return [run_point(*task) for task in chunk]


# ---- the driver --------------------------------------------------------------------------------


def _connect(client: Any, workers: int | None) -> tuple[Any, list[Any]]:
    """A Dask client, and what to close afterwards (only what this call started)."""
    from dask.distributed import Client, LocalCluster

    if client is None:
        import logging

        cluster = LocalCluster(
            n_workers=workers or os.cpu_count() or 1,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",  # any free port: never 8787 twice
            silence_logs=logging.ERROR,
        )
        c = Client(cluster)
        return c, [c, cluster]
    if isinstance(client, str):
        c = Client(client)
        return c, [c]
    return client, []


@dataclass
class _Task:
    point: int
    values: dict[str, Any]
    seed: int | None
    run: tuple[str, str, str | None, list[str]] | None
    error: str | None = None


def tasks(sweep: Sweep) -> list[_Task]:
    """Every (point, seed) in grid order, seeds innermost. A point whose values cannot be
    written as overrides, or whose experiment cannot be read, carries its error instead."""
    out = []
    for p, point in enumerate(sweep.points()):
        values = {k: (_label(v) if k == EXPERIMENT_AXIS else v) for k, v in point.items()}
        base_seed = None
        try:
            src = sweep.source_of(point)
            base_seed = src.table().get("seed", 1)
            sets = sweep.overrides + assignments({k: v for k, v in point.items() if k != EXPERIMENT_AXIS})
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception as e:
            out += [_Task(p, values, base_seed if s is None else s, None, _error(e)) for s in sweep.seeds]
            continue
        for seed in sweep.seeds:
            seed_set = [] if seed is None else [f"seed={seed}"]
            shown = base_seed if seed is None else seed
            out.append(_Task(p, values, shown, (src.text, src.default_name, src.path, sets + seed_set)))
    return out


def _chunks(items: list[int], workers: int, chunk_size: int | None) -> list[list[int]]:
    if chunk_size is None:
        # About eight tasks per worker: enough to balance runs of unequal length.
        chunk_size = max(1, math.ceil(len(items) / (max(1, workers) * 8)))
    return [items[i : i + chunk_size] for i in range(0, len(items), chunk_size)]


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _bar(total: int, show: bool) -> Any:
    if not show:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit="run", desc="sweep", leave=False)


def execute(
    sweep: Sweep,
    client: Any = None,
    workers: int | None = None,
    chunk_size: int | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Runs a loaded sweep (see ``sweep`` for the arguments)."""
    todo = tasks(sweep)
    rows: list[dict[str, Any]] = [{"error": t.error} for t in todo]
    runnable = [i for i, t in enumerate(todo) if t.run is not None]
    if progress is None:
        import sys

        progress = sys.stderr is not None and sys.stderr.isatty()
    if client is None and sweep.scheduler is not None:
        client = sweep.scheduler
    workers = workers or sweep.workers
    bar = _bar(len(runnable), progress)
    try:
        if isinstance(client, str) and client == "serial":
            for i in runnable:
                rows[i] = run_point(*todo[i].run)
                bar.update(1)
        elif runnable:
            _on_dask(todo, runnable, rows, client, workers, chunk_size, bar)
    finally:
        bar.close()
    return _table(sweep, todo, rows)


def _on_dask(
    todo: list[_Task],
    runnable: list[int],
    rows: list[dict[str, Any]],
    client: Any,
    workers: int | None,
    chunk_size: int | None,
    bar: Any,
) -> None:
    from dask.distributed import as_completed

    c, owned = _connect(client, workers)
    try:
        n_workers = len(c.scheduler_info().get("workers", {})) or (workers or 1)
        token = uuid.uuid4().hex[:12]
        futures = {}
        for j, chunk in enumerate(_chunks(runnable, n_workers, chunk_size)):
            f = c.submit(
                run_chunk, [todo[i].run for i in chunk], key=f"zonelab-sweep-{token}-{j}", pure=False
            )
            futures[f] = chunk
        for f in as_completed(list(futures)):
            chunk = futures.pop(f)
            try:
                out = f.result()
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as e:  # the worker died, or the task could not run
                out = [{"error": _error(e)}] * len(chunk)
            for i, row in zip(chunk, out):
                rows[i] = row
            bar.update(len(chunk))
            f.release()
    finally:
        for o in reversed(owned):
            o.close()


def _table(sweep: Sweep, todo: list[_Task], rows: list[dict[str, Any]]) -> pd.DataFrame:
    import pandas as pd

    records = []
    for t, row in zip(todo, rows):
        fixed = {**t.values, "point": t.point, "seed": t.seed, "error": row.get("error")}
        # The summary's own `seed` equals the row's; its `experiment` yields to the grid's axis.
        metrics = {k: v for k, v in row.items() if k not in fixed}
        records.append({**fixed, **metrics})
    columns = sweep.keys + list(FIXED_COLUMNS)
    df = pd.DataFrame.from_records(records) if records else pd.DataFrame(columns=columns)
    df = df[columns + [c for c in df.columns if c not in columns]]
    df.attrs["grid"] = sweep.keys
    df.attrs["experiment"] = sweep.experiment.default_name if sweep.experiment else "sweep"
    df.attrs["plot"] = dict(sweep.plot)
    return df


def sweep(
    experiment: ExperimentLike | Sweep | None,
    grid: Mapping[Any, Sequence[Any]] | None = None,
    seeds: int | Iterable[int] | None = None,
    client: Any = None,
    *,
    overrides: OverridesLike = None,
    workers: int | None = None,
    chunk_size: int | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Runs every (grid point, seed) of an experiment and returns one DataFrame.

    ``grid`` maps dotted override keys to lists of values (``{"firmware.policy": ["mapping",
    "preemptive"]}``); a key ``"a,b"`` is a linked axis whose values are ``[a, b]`` pairs; the
    key ``experiment`` takes whole experiments (paths, dicts, TOML text), to sweep workloads.
    Points are the product of the axes, the first varying slowest. ``seeds``: a count (seeds
    0..n-1), a list, or None (the experiment's seed). ``experiment`` may instead be a sweep file
    (see ``from_table``); arguments given here replace its grid and seeds and add overrides.

    ``client``: None starts a local Dask cluster with ``workers`` processes (default: every
    core) and closes it after; a ``dask.distributed.Client`` or a scheduler address runs on that
    cluster (zonelab must be installed on its workers); ``"serial"`` runs here, one by one.
    Points go to workers ``chunk_size`` at a time (default: about eight tasks per worker).

    Columns: the grid's keys, ``point`` (index in the grid), ``seed``, ``error`` (missing, or
    why the point failed: its other columns are then missing), and every value of summary.json by its
    dotted path (``ops.write.latency_ns.percentiles.p99``). Rows in grid order, seeds innermost.
    """
    s = load(experiment, grid, seeds, overrides)
    return execute(s, client=client, workers=workers, chunk_size=chunk_size, progress=progress)


def write(df: pd.DataFrame, directory: str | os.PathLike[str], figure: bool = True) -> list[Path]:
    """Writes a sweep table as ``sweep.parquet`` and ``sweep.csv`` (and ``sweep.png``, the
    figure ``zonelab.plot.sweep_bars`` draws from the sweep's ``[plot]``) into ``directory``."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "sweep.parquet", out / "sweep.csv"]
    # Parquet wants one type per column: a column mixing "1GiB" and 1073741824 becomes text.
    parquet = df.copy()
    for c in parquet.columns:
        if parquet[c].dtype == object:
            kinds = {
                type(v) for v in parquet[c] if v is not None and not (isinstance(v, float) and math.isnan(v))
            }
            if len(kinds) > 1:
                parquet[c] = parquet[c].map(lambda v: None if v is None else str(v))
    parquet.to_parquet(written[0], index=False)
    df.to_csv(written[1], index=False)
    # A figure needs at least one point that ran.
    if figure and df["error"].isna().any():
        from . import plot

        fig = plot.sweep_bars(df, **df.attrs.get("plot", {}))
        fig.savefig(out / "sweep.png", dpi=120, bbox_inches="tight")
        written.append(out / "sweep.png")
    return written
