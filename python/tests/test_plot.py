"""The plot helpers draw what they are given: one staircase per result from each start
percentile, one bar per (group, hue) at the mean of its runs, one line per direction."""

from __future__ import annotations

import numpy as np
import pytest
import zonelab
from helpers import EXPERIMENTS
from zonelab import plot

SEQ = EXPERIMENTS / "preemptive-reset" / "mixed.toml"
Z512 = {
    "device.zones.zone_size_bytes": "512MiB",
    "device.zones.zone_capacity_bytes": "512MiB",
    "firmware.t_free": 479,
}


@pytest.fixture(scope="module")
def runs():
    return {p: zonelab.run(SEQ, overrides={**Z512, "firmware.policy": p}) for p in ("mapping", "preemptive")}


def test_latency_cdf_draws_each_result_from_p50_and_p99(runs, tmp_path):
    fig = plot.latency_cdf(runs, "read")
    axes = fig.axes
    assert [ax.get_ylim() for ax in axes] == [(50.0, 100.0), (99.0, 100.0)]
    for ax in axes:
        assert [line.get_label() for line in ax.get_lines()] == ["mapping", "preemptive"]
        for line, r in zip(ax.get_lines(), runs.values()):
            cdf = r.latency_cdf("read")
            assert np.allclose(line.get_xdata(), cdf["latency_ns"] / 1e6)
            assert np.array_equal(line.get_ydata(), cdf["percentile"])
        # The x range reaches the largest P100.
        p100 = max(r.summary["ops"]["read"]["latency_ns"]["percentiles"]["p100"] for r in runs.values())
        assert ax.get_xlim()[1] >= p100 / 1e6
    fig.savefig(tmp_path / "cdf.png")
    assert (tmp_path / "cdf.png").stat().st_size > 0


def test_a_list_of_results_is_labelled_by_policy(runs):
    fig = plot.latency_cdf(list(runs.values()), "write", start=[0])
    assert [line.get_label() for line in fig.axes[0].get_lines()] == ["mapping", "preemptive"]


def test_bandwidth_draws_a_line_per_direction_that_moved_data(runs):
    fig = plot.bandwidth(runs)
    labels = [line.get_label() for line in fig.axes[0].get_lines()]
    assert labels == ["mapping read", "mapping write", "preemptive read", "preemptive write"]
    ts = runs["mapping"].timeseries
    assert np.array_equal(fig.axes[0].get_lines()[1].get_ydata(), ts["write_mib_s"])


def test_bars_are_means_over_seeds_with_the_range_as_whiskers():
    exp = EXPERIMENTS / "quickstart" / "rezns-randrw.toml"
    df = zonelab.sweep(exp, {"firmware.policy": ["synchronous", "renewable"]}, seeds=3, client="serial")
    metric = "ops.read.latency_ns.percentiles.p99"
    fig = plot.bars(df, metric)
    ax = fig.axes[0]
    heights = [p.get_height() for p in ax.patches]
    expected = df.groupby("firmware.policy", sort=False)[metric].mean() / 1e6
    assert np.allclose(heights, expected.values)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["synchronous", "renewable"]
    # The default sweep figure picks the first grid key as hue.
    assert plot.sweep_bars(df).axes[0].get_legend().get_title().get_text() == "firmware.policy"


def test_bars_from_results_by_label(runs):
    fig = plot.bars(runs, "device_counters.block_erases")
    ax = fig.axes[0]
    assert [p.get_height() for p in ax.patches] == [
        r.summary["device_counters"]["block_erases"] for r in runs.values()
    ]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["mapping", "preemptive"]
    with pytest.raises(KeyError, match="no column"):
        plot.bars(runs, "ops.nothing")
