"""ZoneLab from Python: run experiments of the deterministic NVMe ZNS SSD simulator and get
their results as a dict and pandas DataFrames, sweep parameter grids on Dask, and draw the
papers' figures (``zonelab.plot``).

>>> import zonelab
>>> r = zonelab.run("experiments/quickstart/rezns-randrw.toml", seed=7)
>>> r.ops[["kind", "count", "p99_ns", "p100_ns"]]
>>> df = zonelab.sweep(r.config, grid={"firmware.policy": ["synchronous", "renewable"]}, seeds=3)

The same experiment and seed give the same results as ``zonelab run`` (summary.json, byte for
byte once parsed), whichever front end runs it.
"""

from ._errors import ConfigError, RunError
from ._run import Result, check, presets, run
from ._sweep import Sweep, sweep
from ._zonelab import __version__

__all__ = ["ConfigError", "Result", "RunError", "Sweep", "check", "presets", "run", "sweep", "__version__"]
