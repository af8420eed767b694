"""``python -m zonelab sweep SWEEP.toml -o DIR``: run a sweep file and write sweep.parquet,
sweep.csv and sweep.png into DIR. Exits 1 when a point failed (its row says why), 2 on bad input."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ._errors import ConfigError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m zonelab", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    s = commands.add_parser("sweep", help="run a sweep file")
    s.add_argument("sweep", type=Path, help="a sweep file (experiment, seeds, [set], [grid], [plot])")
    s.add_argument("-o", "--output", type=Path, help="where to write (default: results/<sweep file name>)")
    s.add_argument("--workers", type=int, help="local cluster size (default: the file's, else every core)")
    s.add_argument("--scheduler", help="a Dask scheduler address: run on that cluster")
    s.add_argument("--serial", action="store_true", help="run in this process, one point after another")
    s.add_argument("--no-figure", action="store_true", help="write the tables only")
    args = parser.parse_args(argv)

    from . import _sweep

    try:
        spec = _sweep.load(args.sweep)
    except (ConfigError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    client = "serial" if args.serial else args.scheduler
    out = args.output or Path("results") / args.sweep.stem
    n = len(spec.points()) * len(spec.seeds)
    print(
        f"zonelab sweep {args.sweep}: {len(spec.points())} points x {len(spec.seeds)} seeds = {n} runs",
        file=sys.stderr,
    )
    df = _sweep.execute(spec, client=client, workers=args.workers)
    written = _sweep.write(df, out, figure=not args.no_figure)
    failed = df[df["error"].notna()]
    for _, row in failed.iterrows():
        point = ", ".join(f"{k}={row[k]!r}" for k in spec.keys)
        print(f"error: point {row['point']} ({point}) seed {row['seed']}: {row['error']}", file=sys.stderr)
    print(
        f"{len(df) - len(failed)} of {len(df)} runs ok; wrote {', '.join(str(p) for p in written)}",
        file=sys.stderr,
    )
    return 1 if len(failed) else 0


if __name__ == "__main__":
    sys.exit(main())
