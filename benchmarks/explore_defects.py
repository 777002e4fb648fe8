"""`tablecert explore` against every named defect of the emulator: how long each took to be found and
how long its shrunk sequence is (issue 33: each observable defect within a 10-minute budget).

  .venv/bin/python benchmarks/explore_defects.py [--budget 600] [--shrink 30] [--seed 1] [--out FILE] [DEFECT ...]

One exploration per defect, on the shipped profile of its kind of table, a fresh emulator per
sequence; a defect the explorer cannot reach (a table the model does not play, a shuffler's
statistics) is listed with the reason and not run.  Prints one line per defect as it finishes and
writes the table to --out (default benchmarks/results/explore_defects.txt).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.emulators.defects import DEFECTS  # noqa: E402
from harness.explore.sweep import HEADER, Row, line, sweep, write_table  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", type=float, default=600.0, help="seconds per defect (default 600)")
    ap.add_argument("--shrink", type=float, default=30.0, help="seconds to shrink each finding (default 30)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "explore_defects.txt"))
    ap.add_argument("defects", nargs="*")
    args = ap.parse_args()
    names = args.defects or list(DEFECTS)
    print(HEADER, flush=True)
    rows: list[Row] = []

    def show(row: Row) -> None:
        rows.append(row)
        print(line(row), flush=True)
        write_table(rows, Path(args.out))

    sweep(names, budget_s=args.budget, seed=args.seed, shrink_s=args.shrink, out=show)
    found = [r for r in rows if r.result == "found"]
    reach = [r for r in rows if r.result != "out of reach"]
    print(f"found {len(found)} of {len(reach)} defects in the explorer's reach "
          f"({len(rows) - len(reach)} out of reach)", flush=True)
    return 0 if len(found) == len(reach) else 1


if __name__ == "__main__":
    sys.exit(main())
