"""zonelab.sweep: grid order, one row per (point, seed) equal to a single run, the same table
on a two-worker Dask cluster as serially, failed points in their rows, sweep files and
`python -m zonelab sweep`."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest
import zonelab
from helpers import EXPERIMENTS, REPO
from zonelab._sweep import flatten

SWEEP_FILE = REPO / "python" / "examples" / "preemptive-reset.sweep.toml"
QUICK = EXPERIMENTS / "quickstart" / "rezns-randrw.toml"
LINKED = "device.zones.zone_size_bytes,device.zones.zone_capacity_bytes,firmware.t_free"

# Random reads, two policies, three seeds, one point the experiment rejects (the renewable
# policy has no t_free): 18 runs.
GRID = {
    "firmware.policy,firmware.t_free": [["synchronous", None], ["renewable", None], ["renewable", 3]],
    "device.zones.max_open_zones": [14, 6],
}


def quick_grid():
    # None is not a TOML value: leave the key out for those points by using separate overrides.
    return {
        "firmware.policy": ["synchronous", "renewable", "mapping"],
        "device.zones.max_open_zones": [14, 6],
    }


@pytest.fixture(scope="module")
def serial():
    return zonelab.sweep(QUICK, quick_grid(), seeds=3, client="serial", overrides={"firmware.t_free": 600})


def test_rows_follow_the_grid_with_seeds_innermost(serial):
    grid = quick_grid()
    assert list(serial.columns[:5]) == [
        "firmware.policy",
        "device.zones.max_open_zones",
        "point",
        "seed",
        "error",
    ]
    expected = [
        (p, z, s)
        for p in grid["firmware.policy"]
        for z in grid["device.zones.max_open_zones"]
        for s in range(3)
    ]
    got = list(zip(serial["firmware.policy"], serial["device.zones.max_open_zones"], serial["seed"]))
    assert got == expected
    assert list(serial["point"]) == [i // 3 for i in range(18)]


def test_each_row_is_the_run_of_its_point(serial):
    for row in serial.to_dict("records"):
        overrides = {
            "firmware.t_free": 600,
            "firmware.policy": row["firmware.policy"],
            "device.zones.max_open_zones": row["device.zones.max_open_zones"],
        }
        try:
            summary = zonelab.run(QUICK, seed=row["seed"], overrides=overrides).summary
        except zonelab.ConfigError as e:
            assert row["error"] == f"ConfigError: {e}"
            continue
        assert pd.isna(row["error"])
        flat = flatten(summary)
        for k, v in flat.items():
            if k not in ("experiment",):
                assert row[k] == v, k


def test_a_failed_point_reports_in_its_row_and_the_rest_run(serial):
    failed = serial[serial["error"].notna()]
    # t_free is a mapping-policy field: the synchronous and renewable points reject it.
    assert set(failed["firmware.policy"]) == {"synchronous", "renewable"}
    assert all("firmware.t_free: unknown field `t_free`" in e for e in failed["error"])
    ok = serial[serial["error"].isna()]
    assert set(ok["firmware.policy"]) == {"mapping"} and len(ok) == 6
    assert ok["ops.read.count"].gt(0).all()
    assert failed["ops.read.count"].isna().all()
    # Seeds change the random reads.
    assert ok["ops.read.latency_ns.mean"].nunique() > 1


def test_two_worker_cluster_equals_serial(serial, dask_client):
    assert len(dask_client.scheduler_info()["workers"]) == 2
    on_dask = zonelab.sweep(
        QUICK, quick_grid(), seeds=3, client=dask_client, overrides={"firmware.t_free": 600}
    )
    pd.testing.assert_frame_equal(on_dask, serial)
    # One point per task, and the scheduler given by its address: still the same table.
    by_address = zonelab.sweep(
        QUICK,
        quick_grid(),
        seeds=3,
        client=dask_client.scheduler.address,
        chunk_size=1,
        overrides={"firmware.t_free": 600},
    )
    pd.testing.assert_frame_equal(by_address, serial)


def test_default_local_cluster_equals_serial():
    grid = {
        LINKED: [["512MiB", "512MiB", 479], ["1GiB", "1GiB", 239]],
        "firmware.policy": ["mapping", "preemptive"],
    }
    exp = EXPERIMENTS / "preemptive-reset" / "random-zone.toml"
    local = zonelab.sweep(exp, grid, seeds=[1, 2], workers=2)
    serial = zonelab.sweep(exp, grid, seeds=[1, 2], client="serial")
    pd.testing.assert_frame_equal(local, serial)
    assert local["error"].isna().all()
    assert list(local["device.zones.zone_size_bytes"]) == ["512MiB"] * 4 + ["1GiB"] * 4
    assert list(local["firmware.t_free"]) == [479] * 4 + [239] * 4


def test_sweep_file_gives_the_grid_and_seeds():
    df = zonelab.sweep(SWEEP_FILE, client="serial")
    assert df.attrs["grid"] == ["firmware.policy", *LINKED.split(",")]
    assert list(zip(df["firmware.policy"], df["device.zones.zone_size_bytes"])) == [
        ("mapping", "512MiB"),
        ("mapping", "1GiB"),
        ("preemptive", "512MiB"),
        ("preemptive", "1GiB"),
    ]
    assert df["error"].isna().all() and list(df["seed"]) == [1] * 4
    # The paper's shape: preemptive's write tail is below mapping's at both sizes.
    p100 = df.set_index(["firmware.policy", "device.zones.zone_size_bytes"])[
        "ops.write.latency_ns.percentiles.p100"
    ]
    for size in ("512MiB", "1GiB"):
        assert p100[("preemptive", size)] < p100[("mapping", size)]
    # Arguments replace the file's seeds.
    assert list(zonelab.sweep(SWEEP_FILE, seeds=2, client="serial")["seed"]) == [0, 1] * 4


def test_sweep_text_with_nested_grid_and_set(tmp_path):
    text = f'''
experiment = "{EXPERIMENTS / "quickstart" / "rezns-randrw.toml"}"
seeds = 2
[set]
device.zones.max_open_zones = 6
[grid]
firmware.policy = ["synchronous", "renewable"]
'''
    df = zonelab.sweep(text, client="serial")
    assert df.attrs["grid"] == ["firmware.policy"]
    assert len(df) == 4 and df["error"].isna().all()
    assert (df["device_counters.open_zones_max"] <= 6).all()


def test_experiment_axis_sweeps_workloads():
    grid = {
        "experiment": [
            str(EXPERIMENTS / "preemptive-reset" / "sequential.toml"),
            str(EXPERIMENTS / "preemptive-reset" / "mixed.toml"),
        ]
    }
    df = zonelab.sweep(
        None, grid, client="serial", overrides={"firmware.policy": "preemptive", "firmware.t_free": 200}
    )
    assert list(df["experiment"]) == grid["experiment"]
    assert df["ops.read.count"].isna().tolist() == [True, False]
    assert list(df["jobs.writer.writes"]) == [32768, 32768]
    # Paths relative to a sweep file's directory, dicts by their name.
    table = {
        "grid": {
            "experiment": [
                "sequential.toml",
                {
                    "preset": "rezns-40g",
                    "name": "tiny",
                    "job": [{"name": "w", "rw": "write", "bs": "1MiB", "io_size": "64MiB"}],
                },
            ]
        }
    }
    src = EXPERIMENTS / "preemptive-reset" / "x.sweep.toml"
    from zonelab._source import Source
    from zonelab._sweep import from_table

    df = zonelab.sweep(from_table(table, Source("", "x", str(src))), client="serial")
    assert list(df["experiment"]) == ["sequential.toml", "tiny"]
    assert df["error"].isna().all()
    assert list(df["jobs.w.writes"].fillna(0)) == [0, 64]


@pytest.mark.parametrize(
    "table,field",
    [
        ({"grid": {"firmware.policy": ["mapping"]}}, "experiment"),
        ({"experiment": str(QUICK), "grid": {"firmware.policy": []}}, "grid.firmware.policy"),
        ({"experiment": str(QUICK), "grid": {"a,b": [[1, 2], [3]]}}, "grid.a,b[1]"),
        ({"experiment": str(QUICK), "grid": {"a": [1], "a,b": [[1, 2]]}}, "grid.a,b"),
        ({"experiment": str(QUICK), "seeds": [1, -2]}, "seeds[1]"),
        ({"experiment": str(QUICK), "seeds": 0}, "seeds"),
        ({"experiment": str(QUICK), "grids": {}}, "grids"),
        ({"experiment": "no-such-file.toml"}, "experiment"),
        ({"experiment": str(QUICK), "workers": 0}, "workers"),
    ],
)
def test_bad_sweep_files_name_the_field(table, field):
    with pytest.raises(zonelab.ConfigError) as e:
        zonelab.sweep(table, client="serial")
    assert e.value.field == field


def test_flatten_names_columns_by_their_path_in_summary_json():
    r = zonelab.run(QUICK)
    flat = flatten(r.summary)
    assert (
        flat["ops.read.latency_ns.percentiles.p99.9"]
        == r.summary["ops"]["read"]["latency_ns"]["percentiles"]["p99.9"]
    )
    assert flat["jobs.writer.writes"] == r.summary["jobs"][1]["writes"]
    assert flat["device_counters.waf"] == r.summary["device_counters"]["waf"]
    assert isinstance(flat["wear.histogram"], str) and flat["errors"] == "[]"


def test_python_m_zonelab_sweep_writes_parquet_csv_and_figure(tmp_path, dask_client):
    out = tmp_path / "out"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "zonelab",
            "sweep",
            str(SWEEP_FILE),
            "-o",
            str(out),
            "--scheduler",
            dask_client.scheduler.address,
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "4 of 4 runs ok" in done.stderr
    expected = zonelab.sweep(SWEEP_FILE, client="serial")
    parquet = pd.read_parquet(out / "sweep.parquet")
    pd.testing.assert_frame_equal(parquet, expected, check_dtype=False)
    csv = pd.read_csv(out / "sweep.csv")
    assert list(csv.columns) == list(expected.columns) and len(csv) == 4
    assert (out / "sweep.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_python_m_zonelab_sweep_exits_1_when_a_point_fails(tmp_path):
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text(f'experiment = "{QUICK}"\n[grid]\n"firmware.t_free" = [1]\n')
    done = subprocess.run(
        [sys.executable, "-m", "zonelab", "sweep", str(sweep_file), "-o", str(tmp_path / "o"), "--serial"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert "0 of 1 runs ok" in done.stderr and "firmware: missing field `policy`" in done.stderr
    assert (tmp_path / "o" / "sweep.csv").exists()
    bad = tmp_path / "bad.toml"
    bad.write_text('experiment = "x.toml"\n')
    done = subprocess.run(
        [sys.executable, "-m", "zonelab", "sweep", str(bad), "--serial"], capture_output=True, text=True
    )
    assert done.returncode == 2 and "experiment:" in done.stderr
