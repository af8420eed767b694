"""The papers' figures from ZoneLab results, with matplotlib: latency CDFs to P100 (the whole
distribution from P50 and the tail from P99, as `zonelab reproduce` draws them), bandwidth over
time, and bars per policy from a sweep. Each returns a ``matplotlib.figure.Figure`` (no pyplot
state: save it with ``fig.savefig``, or let a notebook show it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Union

import pandas as pd
from matplotlib.figure import Figure

from ._run import Result

#: A result, several by label, or several labelled by their firmware policy.
Results = Union[Result, Mapping[str, Result], Sequence[Result]]

COLOURS = ["#5a5a5a", "#c81e1e", "#1e50c8", "#14963c", "#b4641e", "#7828a0"]


def _labelled(results: Results) -> dict[str, Result]:
    if isinstance(results, Result):
        return {results.summary["firmware_policy"]: results}
    if isinstance(results, Mapping):
        return dict(results)
    out: dict[str, Result] = {}
    for r in results:
        label = r.summary["firmware_policy"]
        if label in out:
            label = f"{label} (seed {r.seed})"
        out[label] = r
    return out


def _time_unit(ns_max: float) -> tuple[float, str]:
    if ns_max >= 1e6:
        return 1e6, "ms"
    if ns_max >= 1e3:
        return 1e3, "us"
    return 1.0, "ns"


def latency_cdf(
    results: Results,
    kind: str = "write",
    *,
    start: Sequence[float] = (50.0, 99.0),
    title: str | None = None,
) -> Figure:
    """One panel per entry of ``start``: the CDF of ``kind`` latencies from that percentile to
    P100, one staircase per result (the CDF is flat between recorded values)."""
    curves = {label: r.latency_cdf(kind) for label, r in _labelled(results).items()}
    ns_max = max((c["latency_ns"].max() for c in curves.values() if len(c)), default=1)
    scale, unit = _time_unit(ns_max)
    fig = Figure(figsize=(5.5 * len(start), 4.2), layout="constrained")
    axes = fig.subplots(1, len(start), squeeze=False)[0]
    for ax, low in zip(axes, start):
        for i, (label, c) in enumerate(curves.items()):
            ax.step(
                c["latency_ns"] / scale,
                c["percentile"],
                where="post",
                color=COLOURS[i % len(COLOURS)],
                lw=1.8,
                label=label,
            )
        ax.set_xlim(0, ns_max / scale * 1.05)
        ax.set_ylim(low, 100)
        ax.set_xlabel(f"{kind} latency ({unit})")
        ax.set_ylabel("percentile")
        ax.set_title(f"from P{low:g}" if low > 0 else "CDF")
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right")
    if title:
        fig.suptitle(title)
    return fig


def bandwidth(
    results: Results,
    *,
    ops: Sequence[str] = ("read", "write"),
    title: str | None = None,
) -> Figure:
    """MiB/s per interval over simulated time, one line per result and direction that moved data."""
    fig = Figure(figsize=(8, 4), layout="constrained")
    ax = fig.subplots()
    i = 0
    for label, r in _labelled(results).items():
        ts = r.timeseries
        for op in ops:
            column = f"{op}_mib_s"
            if column in ts and ts[column].any():
                ax.plot(
                    ts["time_s"], ts[column], color=COLOURS[i % len(COLOURS)], lw=1.5, label=f"{label} {op}"
                )
                i += 1
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("MiB/s")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    if i:
        ax.legend()
    if title:
        ax.set_title(title)
    return fig


def _scale(metric: str) -> tuple[float, str]:
    if metric.endswith("_ns") or "latency_ns" in metric or "_ns." in metric:
        return 1e6, " (ms)"
    return 1.0, ""


def bars(
    data: pd.DataFrame | Mapping[str, Result],
    metric: str,
    *,
    x: str | None = None,
    hue: str | None = "firmware.policy",
    ylabel: str | None = None,
    title: str | None = None,
) -> Figure:
    """Grouped bars of ``metric`` (a sweep column, or a dotted summary path for results given by
    label): one group per value of ``x``, one bar per value of ``hue``, the mean over seeds and
    other columns, with the min..max range as whiskers when several runs share a bar. Latencies
    (``*_ns``) are drawn in ms."""
    from ._sweep import flatten

    if isinstance(data, Mapping):
        data = pd.DataFrame([{"label": k, **flatten(r.summary)} for k, r in data.items()])
        hue = "label" if hue == "firmware.policy" and "firmware.policy" not in data else hue
    df = data
    if "error" in df:
        df = df[df["error"].isna()]
    if metric not in df:
        raise KeyError(
            f"no column {metric!r}; latency columns look like ops.write.latency_ns.percentiles.p99"
        )
    if hue is not None and hue not in df:
        hue = None
    scale, unit = _scale(metric)
    groups = list(dict.fromkeys(df[x])) if x else [None]
    hues = list(dict.fromkeys(df[hue])) if hue else [None]
    fig = Figure(figsize=(max(5.0, 1.2 * len(groups) * max(1, len(hues)) + 2), 4.2), layout="constrained")
    ax = fig.subplots()
    width = 0.8 / len(hues)
    for j, h in enumerate(hues):
        means, lows, highs = [], [], []
        for g in groups:
            sel = df
            if x:
                sel = sel[sel[x] == g]
            if hue:
                sel = sel[sel[hue] == h]
            v = pd.to_numeric(sel[metric], errors="coerce").dropna() / scale
            means.append(v.mean() if len(v) else float("nan"))
            lows.append(v.mean() - v.min() if len(v) > 1 else 0.0)
            highs.append(v.max() - v.mean() if len(v) > 1 else 0.0)
        positions = [i + (j - (len(hues) - 1) / 2) * width for i in range(len(groups))]
        spread = [lows, highs] if any(lows) or any(highs) else None
        ax.bar(
            positions,
            means,
            width * 0.95,
            yerr=spread,
            capsize=3,
            color=COLOURS[j % len(COLOURS)],
            label=None if h is None else str(h),
        )
    ax.set_xticks(range(len(groups)), [x if g is None else str(g) for g in groups] if x else [""])
    if x:
        ax.set_xlabel(x)
    ax.set_ylabel(ylabel or f"{metric}{unit}")
    ax.grid(axis="y", alpha=0.3)
    if hue:
        ax.legend(title=hue)
    if title:
        ax.set_title(title)
    return fig


def default_metric(df: pd.DataFrame) -> str:
    """The write P100 when writes ran, else the first kind's P99."""
    if "ops.write.latency_ns.percentiles.p100" in df:
        return "ops.write.latency_ns.percentiles.p100"
    for c in df.columns:
        if c.startswith("ops.") and c.endswith(".latency_ns.percentiles.p99"):
            return c
    return "simulated_time_ns"


def sweep_bars(
    df: pd.DataFrame, metric: str | None = None, x: str | None = None, hue: str | None = None
) -> Figure:
    """Bars for a sweep table: ``hue`` defaults to the first grid key, ``x`` to the second."""
    grid = list(df.attrs.get("grid", []))
    metric = metric or default_metric(df)
    if hue is None and grid:
        hue = grid[0]
    if x is None:
        rest = [k for k in grid if k != hue]
        x = rest[0] if rest else None
    name = df.attrs.get("experiment", "sweep")
    return bars(df, metric, x=x, hue=hue, title=f"{name}: {metric}")
