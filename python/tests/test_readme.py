"""README's Python example, as a user runs it: saved as a script and run by Python (a sweep's Dask
workers import the script again, so it must work as a file, not only in a notebook), and the two
policies it compares must differ as its comment says."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from helpers import REPO


def readme_example() -> str:
    text = (REPO / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "README has no Python example"
    return blocks[0]


def test_the_readme_example_runs_as_a_script(tmp_path):
    script = tmp_path / "example.py"
    script.write_text(readme_example())
    # As from the repository's root (the example's paths are relative to it), writing elsewhere.
    (tmp_path / "experiments").symlink_to(REPO / "experiments")
    env = dict(os.environ, MPLBACKEND="Agg")
    out = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-4000:]
    # It saved the first run where it says.
    assert (tmp_path / "results" / "pr-preemptive" / "summary.json").is_file()


def test_the_policies_it_compares_differ_as_it_says():
    import zonelab

    exp = str(REPO / "experiments" / "preemptive-reset" / "sequential.toml")
    p99 = {
        p: zonelab.run(exp, seed=7, overrides={"firmware.policy": p}).summary["ops"]["write"]["latency_ns"][
            "percentiles"
        ]["p99"]
        for p in ("preemptive", "mapping")
    }
    # README: "write P99 11.1 ms against 6.6 ms".
    assert round(p99["preemptive"] / 1e6, 1) == 11.1, p99
    assert round(p99["mapping"] / 1e6, 1) == 6.6, p99


def test_the_readme_example_runs_as_a_notebook_cell(tmp_path, monkeypatch):
    """The same block as one notebook cell (nbclient, the venv's kernel): there ``__name__`` is
    ``"__main__"`` too, so the guarded code runs, and the sweep's workers need not import it."""
    import nbformat
    from nbclient import NotebookClient

    (tmp_path / "experiments").symlink_to(REPO / "experiments")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(readme_example())])
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = nb.cells[0].get("outputs", [])
    errors = [o for o in outputs if o.output_type == "error"]
    assert not errors, "\n".join(f"{e.ename}: {e.evalue}" for e in errors)
    stderr = "".join(o.get("text", "") for o in outputs if o.output_type == "stream" and o.name == "stderr")
    assert "Traceback" not in stderr, stderr[-4000:]
    assert (tmp_path / "results" / "pr-preemptive" / "summary.json").is_file()
