"""Shared fixtures: the repository, the `zonelab` CLI binary the results are compared with, and
a two-worker Dask cluster."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from helpers import REPO


@pytest.fixture(scope="session")
def cli() -> Path:
    """The CLI: $ZONELAB_BIN (python/setup.sh sets it), else built here with cargo."""
    path = os.environ.get("ZONELAB_BIN")
    if not path:
        subprocess.run(["cargo", "build", "--release", "--locked", "-p", "zonelab-cli"], cwd=REPO, check=True)
        path = str(REPO / "target" / "release" / "zonelab")
    assert Path(path).is_file(), f"no zonelab binary at {path}"
    return Path(path)


@pytest.fixture(scope="session")
def dask_client():
    """A local cluster of two single-threaded worker processes, shared by the sweep tests."""
    import logging

    from dask.distributed import Client, LocalCluster

    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=logging.ERROR
    )
    client = Client(cluster)
    yield client
    client.close()
    cluster.close()
