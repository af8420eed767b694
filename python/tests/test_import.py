"""`import zonelab` stays cheap: pandas, numpy, Dask, matplotlib and tqdm load when first used (a
table read, a sweep, a figure, a progress bar), not at import (pandas alone was 0.8 s of it)."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers import EXPERIMENTS

HEAVY = ("pandas", "numpy", "dask", "distributed", "matplotlib", "tqdm")

PROBE = """
import json, sys
import zonelab
heavy = {heavy!r}
loaded = sorted({{m.split(".")[0] for m in sys.modules}} & set(heavy))
r = zonelab.run({experiment!r}, seed=7)
import pandas
print(json.dumps({{
    "loaded": loaded,
    "is_frame": isinstance(r.ops, pandas.DataFrame),
    "rows": len(r.ops),
    "zones": isinstance(r.zones, pandas.DataFrame),
    "presets": isinstance(zonelab.presets(), pandas.DataFrame),
}}))
"""


def test_import_loads_no_heavy_module_and_tables_are_still_dataframes(tmp_path):
    code = PROBE.format(heavy=HEAVY, experiment=str(EXPERIMENTS / "quickstart" / "rezns-randrw.toml"))
    # A fresh interpreter (this one has pandas loaded already), outside the repository.
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-4000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["loaded"] == [], f"`import zonelab` imported {got['loaded']}"
    assert got["is_frame"] and got["rows"] > 0, got
    assert got["zones"] and got["presets"], got
