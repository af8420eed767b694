"""Paths and the CLI runner the tests share."""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXPERIMENTS = REPO / "experiments"


def run_cli(cli: Path, *args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(cli), *args], cwd=cwd, capture_output=True, text=True)
