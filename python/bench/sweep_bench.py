"""Sweep throughput: a 1,000-run sweep of short runs (10 grid points x 100 seeds), as

  1. zonelab.sweep on a local Dask cluster of 1 and of 2 worker processes (the machine's
     cores), timed on a running cluster, and with client=None (starting and stopping it);
  2. the same runs in this process, one after another (client="serial"): the simulation and
     the summary alone, the reference for the overheads;
  3. the same runs through the CLI binary, one process per run (`zonelab run EXP --set ...
     --seed N -q -o DIR`), one at a time and two at a time.

It checks that the Dask table equals the serial one and that every CLI summary.json equals its
row, then prints runs per second and the overhead per run beside the in-process time.

  target/pyenv/bin/python python/bench/sweep_bench.py [--seeds 100] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import zonelab
from zonelab._sweep import flatten

REPO = Path(__file__).resolve().parents[2]

# A short run: 1,024 random 4 KiB reads at QD8 on prefilled zones beside a 4 MiB sequential
# writer, on ReZNS's 40 GiB device (a few ms of simulation).
EXPERIMENT = """\
name = "bench-point"
preset = "rezns-40g"

[prefill]
fraction = 0.1

[[job]]
name = "reader"
rw = "randread"
bs = "4KiB"
iodepth = 8
size = "64z"
io_size = "4MiB"

[[job]]
name = "writer"
rw = "write"
bs = "128KiB"
iodepth = 2
offset = "320z"
size = "8z"
io_size = "4MiB"
"""

GRID = {
    "firmware.policy": ["synchronous", "renewable"],
    "device.zones.max_open_zones": [4, 6, 8, 10, 14],
}


def cli_runs(binary: Path, exp: Path, df: pd.DataFrame, out: Path, parallel: int) -> float:
    def one(i: int) -> None:
        row = df.iloc[i]
        args = [str(binary), "run", str(exp), "-q", "-o", str(out / str(i)), "--seed", str(row["seed"])]
        for k in GRID:
            args += ["--set", f"{k}={json.dumps(row[k].item() if hasattr(row[k], 'item') else row[k])}"]
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)

    start = time.perf_counter()
    with ThreadPoolExecutor(parallel) as pool:
        list(pool.map(one, range(len(df))))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", type=int, default=100, help="seeds per grid point (10 points)")
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    parser.add_argument("--cli", type=Path, default=REPO / "target" / "release" / "zonelab")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    args = parser.parse_args()
    from dask.distributed import Client, LocalCluster

    n = 10 * args.seeds
    results: dict[str, float] = {"runs": n, "workers": args.workers}
    with tempfile.TemporaryDirectory() as tmp:
        exp = Path(tmp) / "bench-point.toml"
        exp.write_text(EXPERIMENT)

        zonelab.sweep(exp, GRID, seeds=1, client="serial")  # warm up (imports, page cache)
        start = time.perf_counter()
        serial = zonelab.sweep(exp, GRID, seeds=args.seeds, client="serial")
        results["serial_s"] = time.perf_counter() - start
        assert serial["error"].isna().all(), serial["error"].dropna().iloc[0]

        for workers, key in [(1, "dask_1_s"), (args.workers, "dask_s")]:
            start = time.perf_counter()
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=":0")
            client = Client(cluster)
            results["cluster_start_s"] = time.perf_counter() - start
            zonelab.sweep(exp, GRID, seeds=1, client=client)  # workers import zonelab
            start = time.perf_counter()
            on_dask = zonelab.sweep(exp, GRID, seeds=args.seeds, client=client)
            results[key] = time.perf_counter() - start
            client.close()
            cluster.close()
            pd.testing.assert_frame_equal(on_dask, serial)

        start = time.perf_counter()
        default = zonelab.sweep(exp, GRID, seeds=args.seeds, workers=args.workers)
        results["dask_with_cluster_start_s"] = time.perf_counter() - start
        pd.testing.assert_frame_equal(default, serial)

        out = Path(tmp) / "cli"
        results["cli_serial_s"] = cli_runs(args.cli, exp, serial, out / "serial", 1)
        results["cli_parallel_s"] = cli_runs(args.cli, exp, serial, out / "parallel", args.workers)
        for i, row in enumerate(serial.to_dict("records")):
            for d in ("serial", "parallel"):
                summary = json.loads((out / d / str(i) / "summary.json").read_text())
                for k, v in flatten(summary).items():
                    if k != "experiment":
                        assert row[k] == v or (v is None and pd.isna(row[k])), (i, d, k)

    per = results["serial_s"] / n
    results["in_process_ms_per_run"] = per * 1e3
    lines = [
        f"{n} runs (10 points x {args.seeds} seeds), {args.workers} workers, {os.cpu_count()} cores",
        "| how | wall s | runs/s | overhead per run beyond in-process (ms, per worker) |",
        "|---|---:|---:|---:|",
    ]

    def line(name: str, wall: float, workers: int) -> None:
        overhead = (wall * workers / n - per) * 1e3
        lines.append(f"| {name} | {wall:.2f} | {n / wall:.0f} | {overhead:.2f} |")

    line("in process, serial (reference)", results["serial_s"], 1)
    line("zonelab.sweep, Dask LocalCluster (1 worker, running)", results["dask_1_s"], 1)
    line(
        f"zonelab.sweep, Dask LocalCluster ({args.workers} workers, running)", results["dask_s"], args.workers
    )
    line(
        "zonelab.sweep, client=None (starts and stops the cluster)",
        results["dask_with_cluster_start_s"],
        args.workers,
    )
    line("CLI, one process per run, serial", results["cli_serial_s"], 1)
    line(f"CLI, one process per run, {args.workers} at a time", results["cli_parallel_s"], args.workers)
    lines.append(
        f"in-process time per run: {per * 1e3:.2f} ms; cluster start: {results['cluster_start_s']:.2f} s; "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    print("\n".join(lines))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    sys.exit(main())
