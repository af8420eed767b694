"""The example notebook runs from top to bottom (nbclient, the venv's own kernel) and draws its
figures."""

from __future__ import annotations

import nbformat
from helpers import REPO
from nbclient import NotebookClient

NOTEBOOK = REPO / "python" / "examples" / "preemptive_reset.ipynb"


def test_example_notebook_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("ZONELAB_REPO", str(REPO))
    monkeypatch.setenv("ZONELAB_EXAMPLE_OUT", str(tmp_path))
    monkeypatch.setenv("ZONELAB_WORKERS", "2")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK.parent)}}
    ).execute()
    errors = [
        o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"
    ]
    assert not errors
    for name in ("table.csv", "p100-bars.png", "cdf-512MiB.png", "cdf-1GiB.png", "bandwidth-1GiB.png"):
        assert (tmp_path / name).stat().st_size > 0, name
    printed = "".join(
        o.get("text", "")
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.output_type == "stream"
    )
    assert "preemptive's tail below mapping's at both sizes: True" in printed
