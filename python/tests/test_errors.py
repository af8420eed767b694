"""Bad input raises zonelab.ConfigError naming the field, with the message the CLI prints."""

from __future__ import annotations

import json

import pytest
import zonelab
from helpers import EXPERIMENTS, REPO, run_cli

SEQ = "experiments/preemptive-reset/sequential.toml"

# (overrides, the field named)
BAD_OVERRIDES = [
    ({"firmware.policy": "mapping", "firmware.t_free": 9999}, "firmware.t_free"),
    ({"firmware.policy": "preemptive", "firmware.t_free": 3, "firmware.t_invalid": 0}, "firmware.t_invalid"),
    ({"firmware.policy": "bogus"}, "firmware.policy"),
    ({"firmware.policy": "synchronous", "firmware.t_free": 3}, "firmware.t_free"),
    ({"device.zones.zone_count": "many"}, "device.zones.zone_count"),
    ({"prefill.fraction": 2.0}, "prefill.fraction"),
    ({"metrics.interval": "0s"}, "metrics.interval"),
    ({"faults.offline_zones": [100000]}, "faults.offline_zones"),
    ({"preset": "no-such-preset"}, "preset"),
    ({"nonsense": 1}, "nonsense"),
]


@pytest.mark.parametrize("overrides,field", BAD_OVERRIDES, ids=[f for _, f in BAD_OVERRIDES])
def test_bad_override_raises_the_clis_error(cli, overrides, field):
    args = [a for k, v in overrides.items() for a in ("--set", f"{k}={json.dumps(v)}")]
    done = run_cli(cli, "run", SEQ, "-q", "-o", "/nonexistent/never-written", *args)
    assert done.returncode == 2
    assert done.stderr.startswith("error: ")
    with pytest.raises(zonelab.ConfigError) as e:
        zonelab.run(SEQ, overrides=overrides)
    assert e.value.field == field
    # Both name the override to fix, the CLI as `--set KEY=VALUE`, Python as `override KEY=VALUE`.
    assert str(e.value).startswith(f"override {field}="), str(e.value)
    assert done.stderr == "error: --set " + str(e.value).removeprefix("override ") + "\n"
    assert field in str(e.value)


def test_bad_field_in_a_file(cli, tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(
        (EXPERIMENTS / "quickstart" / "rezns-randrw.toml")
        .read_text()
        .replace('bs = "128KiB"', 'bs = "3000B"')
    )
    done = run_cli(cli, "check", str(path))
    with pytest.raises(zonelab.ConfigError) as e:
        zonelab.run(path)
    assert e.value.field == "job[1].bs"
    assert f"error: {e.value}\n" == done.stderr
    with pytest.raises(zonelab.ConfigError) as c:
        zonelab.check(path)
    assert str(c.value) == str(e.value)


def test_syntax_error_has_no_field(cli, tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('preset = "rezns-40g"\n[[job]\n')
    done = run_cli(cli, "run", str(path), "-q")
    with pytest.raises(zonelab.ConfigError) as e:
        zonelab.run(path)
    assert e.value.field is None
    assert f"error: {e.value}\n" == done.stderr
    assert "not valid TOML" in str(e.value)


def test_dict_experiment_names_the_field_without_a_file():
    exp = {
        "preset": "rezns-40g",
        "job": [{"name": "w", "rw": "write", "bs": "4KiB"}, {"name": "r", "rw": "randread", "bs": 0}],
    }
    with pytest.raises(zonelab.ConfigError) as e:
        zonelab.run(exp)
    assert e.value.field == "job[1].bs"
    assert str(e.value).startswith("job[1].bs: ")
    assert isinstance(e.value, ValueError)


def test_no_jobs_and_no_device():
    with pytest.raises(zonelab.ConfigError) as e:
        zonelab.run({"preset": "rezns-40g"})
    assert e.value.field == "job"
    with pytest.raises(zonelab.ConfigError) as e:
        zonelab.run({"seed": 3})
    assert e.value.field == "preset"


def test_values_python_cannot_write_as_toml():
    with pytest.raises(TypeError, match=r"firmware.t_free: a NoneType cannot be written"):
        zonelab.run(SEQ, overrides={"firmware.t_free": None})
    with pytest.raises(TypeError, match=r"job\[0\].bs: a set cannot be written"):
        zonelab.run({"preset": "rezns-40g", "job": [{"bs": {1}}]})
    with pytest.raises(TypeError, match="an experiment is a path, TOML text or a dict"):
        zonelab.run(42)


def test_missing_file():
    with pytest.raises(FileNotFoundError):
        zonelab.run(REPO / "experiments" / "no-such.toml")


def test_config_error_pickles():
    import pickle

    e = zonelab.ConfigError("in x.toml: job[0].bs: bad", "job[0].bs")
    back = pickle.loads(pickle.dumps(e))
    assert (str(back), back.field) == (str(e), e.field)


def test_a_panic_is_a_run_error_not_a_base_exception():
    """Regression (issue 36, defect 12): a panic in the native module reached Python as PyO3's
    PanicException, which derives from BaseException, so ``except Exception`` missed it. It is
    now a zonelab.RunError naming it a ZoneLab bug."""
    from zonelab import _zonelab

    try:
        _zonelab._panic_for_tests()
    except Exception as e:  # noqa: BLE001 - the point: an ordinary Exception catches it
        assert isinstance(e, zonelab.RunError)
        assert "internal error" in str(e) and "a deliberate panic" in str(e)
    else:
        pytest.fail("no exception")


EMPTY_READ = 'preset = "zn540"\n[[job]]\nrw = "randread"\nbs = "4KiB"\nsize = "4z"\nio_size = "4MiB"\n'


def test_a_read_of_an_empty_device_warns_as_the_cli_does(cli, tmp_path):
    path = tmp_path / "empty-read.toml"
    path.write_text(EMPTY_READ)
    done = run_cli(cli, "run", str(path), "-q", "-o", str(tmp_path / "out"))
    assert done.returncode == 0
    assert "warning: job job0 read nothing" in done.stderr
    with pytest.warns(RuntimeWarning, match="job job0 read nothing"):
        zonelab.run(path)
