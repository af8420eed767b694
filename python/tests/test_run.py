"""zonelab.run against the CLI: the same experiment and seed give the same summary.json, the
same results directory byte for byte, and DataFrames holding what the CSV files hold."""

from __future__ import annotations

import csv
import json
import tomllib
from pathlib import Path

import pandas as pd
import pytest
import zonelab
from helpers import EXPERIMENTS, REPO, run_cli

ZONES_512 = {
    "device.zones.zone_size_bytes": "512MiB",
    "device.zones.zone_capacity_bytes": "512MiB",
}

# (experiment, overrides, seed): every firmware policy, reads and writes, resets, prefill.
CASES = [
    ("quickstart/rezns-randrw.toml", {}, 7),
    ("quickstart/rezns-randrw.toml", {"firmware.policy": "renewable", "firmware.threshold": 0.5}, None),
    (
        "preemptive-reset/sequential.toml",
        {**ZONES_512, "firmware.policy": "mapping", "firmware.t_free": 479},
        None,
    ),
    (
        "preemptive-reset/mixed.toml",
        {**ZONES_512, "firmware.policy": "preemptive", "firmware.t_free": 479},
        3,
    ),
    ("preemptive-reset/random-zone.toml", {"firmware.policy": "synchronous"}, 11),
    ("rezns/zombie.toml", {}, None),
]


def cli_args(overrides: dict, seed: int | None) -> list[str]:
    args = []
    for k, v in overrides.items():
        args += ["--set", f"{k}={json.dumps(v)}"]
    if seed is not None:
        args += ["--seed", str(seed)]
    return args


@pytest.fixture(
    scope="module", params=CASES, ids=lambda c: f"{c[0]}{c[1] or ''}{'' if c[2] is None else f' seed {c[2]}'}"
)
def pair(request, cli, tmp_path_factory):
    """(Result, CLI results directory) for one case."""
    exp, overrides, seed = request.param
    out = tmp_path_factory.mktemp("cli")
    path = f"experiments/{exp}"
    done = run_cli(cli, "run", path, "-q", "-o", str(out), *cli_args(overrides, seed))
    assert done.returncode == 0, done.stderr
    return zonelab.run(REPO / path, seed=seed, overrides=overrides), out


def test_summary_equals_the_clis_summary_json(pair):
    result, out = pair
    assert result.summary == json.loads((out / "summary.json").read_text())


def test_save_writes_the_clis_results_directory_byte_for_byte(pair, tmp_path):
    result, out = pair
    result.save(tmp_path)
    mine = sorted(p.name for p in tmp_path.iterdir())
    assert mine == sorted(p.name for p in out.iterdir())
    for name in mine:
        assert (tmp_path / name).read_bytes() == (out / name).read_bytes(), name


def test_config_is_the_resolved_config(pair):
    result, out = pair
    text = (out / "config.resolved.toml").read_text()
    assert result.config_toml == text
    assert result.config == tomllib.loads(text)


def test_ops_holds_the_summarys_latency_table(pair):
    result, _ = pair
    ops = result.ops
    summary_ops = result.summary["ops"]
    assert sorted(ops["kind"]) == sorted(summary_ops)
    for row in ops.to_dict("records"):
        s = summary_ops[row["kind"]]
        assert (row["count"], row["bytes"], row["iops"], row["mib_per_s"]) == (
            s["count"],
            s["bytes"],
            s["iops"],
            s["mib_per_s"],
        )
        assert (row["min_ns"], row["mean_ns"]) == (s["latency_ns"]["min"], s["latency_ns"]["mean"])
        for name, ns in s["latency_ns"]["percentiles"].items():
            assert row[f"{name}_ns"] == ns


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_timeseries_holds_timeseries_csv(pair):
    result, out = pair
    rows = read_csv(out / "timeseries.csv")
    ts = result.timeseries
    assert len(ts) == len(rows) > 0
    for mine, theirs in zip(ts.to_dict("records"), rows):
        assert f"{mine['time_s']:.3f}" == theirs["time_s"]
        for c in ("read_mib_s", "write_mib_s"):
            assert f"{mine[c]:.3f}" == theirs[c]
        for c in ("read_iops", "write_iops"):
            assert f"{mine[c]:.1f}" == theirs[c]


def test_latency_cdfs_hold_the_cdf_files(pair):
    result, out = pair
    files = {p.name for p in out.iterdir()}
    expected = [
        k for k in ("read", "write", "append", "reset", "finish", "other") if f"latency_cdf_{k}.csv" in files
    ]
    if "erase_wait_cdf.csv" in files:
        expected.append("erase_wait")
    assert result.cdf_kinds == expected
    for kind in expected:
        name = "erase_wait_cdf.csv" if kind == "erase_wait" else f"latency_cdf_{kind}.csv"
        rows = read_csv(out / name)
        cdf = result.latency_cdf(kind)
        assert [f"{p:.6f}" for p in cdf["percentile"]] == [r["percentile"] for r in rows]
        assert list(cdf["latency_ns"]) == [int(r["latency_ns"]) for r in rows]
        assert cdf["percentile"].iloc[-1] == 100.0
    with pytest.raises(KeyError, match="no latency distribution for 'append'"):
        result.latency_cdf("append")


def test_p100_of_each_cdf_is_the_summarys(pair):
    result, _ = pair
    for kind, s in result.summary["ops"].items():
        assert result.latency_cdf(kind)["latency_ns"].max() == s["latency_ns"]["percentiles"]["p100"]


def test_zones_hold_zones_csv(pair):
    result, out = pair
    rows = read_csv(out / "zones.csv")
    zones = result.zones
    assert list(zones.columns) == list(rows[0])
    assert [[str(v) for v in r] for r in zones.itertuples(index=False)] == [list(r.values()) for r in rows]


def test_firmware_holds_firmware_over_time_csv(pair):
    result, out = pair
    path = out / "firmware_over_time.csv"
    fw = result.firmware
    if not path.exists():
        assert fw is None and result.summary["firmware"] is None
        return
    rows = read_csv(path)
    assert fw.attrs["kind"] == result.summary["firmware"]["kind"]
    assert len(fw) == len(rows) > 0
    for mine, theirs in zip(fw.to_dict("records"), rows):
        assert f"{mine['time_s']:.9f}" == theirs["time_s"]
        for c in theirs:
            if c != "time_s":
                assert str(mine[c]) == theirs[c]


# ---- inputs ----------------------------------------------------------------------------------

QUICK = EXPERIMENTS / "quickstart" / "rezns-randrw.toml"


def test_path_text_and_dict_give_the_same_run():
    by_path = zonelab.run(QUICK).summary
    assert zonelab.run(str(QUICK)).summary == by_path
    assert zonelab.run(QUICK.read_text()).summary == by_path
    assert zonelab.run(tomllib.loads(QUICK.read_text())).summary == by_path


def test_dict_and_string_overrides_are_the_same_overrides():
    a = zonelab.run(QUICK, overrides={"device.zones.max_open_zones": 8, "firmware.policy": "renewable"})
    b = zonelab.run(QUICK, overrides=["device.zones.max_open_zones=8", 'firmware.policy="renewable"'])
    assert a.summary == b.summary
    assert a.config["device"]["zones"]["max_open_zones"] == 8


def test_a_run_repeats_exactly_and_the_seed_is_used():
    a, b = zonelab.run(QUICK, seed=5), zonelab.run(QUICK, seed=5)
    assert a.summary == b.summary
    assert a.zones.equals(b.zones) and a.timeseries.equals(b.timeseries)
    c = zonelab.run(QUICK, seed=6)
    assert (a.seed, c.seed) == (5, 6)
    assert a.summary["ops"] != c.summary["ops"], "random reads must depend on the seed"


def test_name_defaults_to_the_file_stem_as_in_the_cli(tmp_path):
    text = QUICK.read_text().replace('name = "quickstart"\n', "")
    path = tmp_path / "my-exp.toml"
    path.write_text(text)
    assert zonelab.run(path).name == "my-exp"
    assert zonelab.run(text).name == "experiment"


def test_progress_reports_fractions_up_to_one():
    seen = []
    r = zonelab.run(EXPERIMENTS / "rezns" / "fio.toml", progress=lambda f, ns: seen.append((f, ns)))
    assert len(seen) > 2, "a run of ~700k writes reports every 65,536 events"
    assert [f for f, _ in seen] == sorted(f for f, _ in seen)
    assert seen[-1][0] == 1.0
    assert seen[-1][1] == r.summary["start_ns"] + r.summary["simulated_time_ns"]


def test_an_exception_in_the_progress_callback_stops_the_run():
    calls = []

    def stop(fraction: float, _ns: int) -> None:
        calls.append(fraction)
        raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        zonelab.run(EXPERIMENTS / "rezns" / "fio.toml", progress=stop)
    assert len(calls) == 1 and calls[0] < 1.0, "stopped at the first report, mid-run"
    # The module is still usable afterwards.
    assert zonelab.run(QUICK).summary["ops"]


def test_the_gil_is_released_while_simulating():
    """With a switch interval too long to force a switch, the main thread runs between two
    progress reports only if the run gives the GIL up by itself (py.detach)."""
    import sys
    import threading
    import time

    counter = 0
    seen: list[int] = []
    done = threading.Event()

    def simulate() -> None:
        try:
            zonelab.run(EXPERIMENTS / "rezns" / "fio.toml", progress=lambda f, ns: seen.append(counter))
        finally:
            done.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    try:
        thread = threading.Thread(target=simulate)
        thread.start()
        while not done.is_set():
            counter += 1
            time.sleep(0)  # lets the simulating thread take the GIL when it needs it
        thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert len(seen) > 2
    assert any(b > a for a, b in zip(seen, seen[1:])), "the main thread never ran during the simulation"


def test_progress_bar_on_request(capsys):
    r = zonelab.run(QUICK, progress=True)
    assert r.summary["ops"]
    assert capsys.readouterr().out == ""


def test_check_returns_the_resolved_config():
    cfg = zonelab.check(QUICK, {"seed": 3})
    assert cfg == zonelab.run(QUICK, seed=3).config


def test_presets_are_the_clis(cli):
    listed = [line.split()[0] for line in run_cli(cli, "presets", "list").stdout.splitlines()]
    assert list(zonelab.presets()["name"]) == listed


def test_result_repr_and_types():
    r = zonelab.run(QUICK)
    assert "quickstart" in repr(r) and "rezns-40g" in repr(r)
    assert isinstance(r.ops, pd.DataFrame) and isinstance(r.zones, pd.DataFrame)
    assert zonelab.__version__ == r.summary["zonelab_version"]


def test_trace_equals_the_cli_trace_csv(cli, tmp_path):
    """With [trace] enabled, Result.trace holds trace.csv's rows, and save() writes the file."""
    path = "experiments/ublk/f2fs-replay.toml"
    out = tmp_path / "cli"
    done = run_cli(cli, "run", path, "-q", "-o", str(out), "--set", "trace.enabled=true")
    assert done.returncode == 0, done.stderr
    r = zonelab.run(REPO / path, overrides={"trace.enabled": True})
    rows = read_csv(out / "trace.csv")
    assert len(r.trace) == len(rows) > 100
    assert list(r.trace["op"]) == [row["op"] for row in rows]
    assert list(r.trace["done_ns"]) == [int(row["done_ns"]) for row in rows]
    saved = tmp_path / "py"
    r.save(saved)
    assert (saved / "trace.csv").read_text() == (out / "trace.csv").read_text()
    assert zonelab.run(REPO / path).trace is None


def test_ops_has_a_row_per_layer_kind_and_tenant():
    r = zonelab.run(REPO / "experiments/quickstart/rezns-randrw.toml")
    assert set(r.ops["layer"]) == {"device"}
    assert set(r.ops["tenant"]) == {"reader", "writer"}
    reads = r.ops[(r.ops["kind"] == "read")]
    assert int(reads["count"].sum()) == r.summary["ops"]["read"]["count"]


def test_an_unreadable_trace_raises_run_error(tmp_path):
    (tmp_path / "bad.csv").write_text("not a trace\n")
    exp = tmp_path / "exp.toml"
    exp.write_text('preset = "rezns-40g"\n[[replay]]\ntrace = "bad.csv"\n')
    with pytest.raises(zonelab.RunError, match="unknown trace format"):
        zonelab.run(exp)
