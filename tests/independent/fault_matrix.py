"""The independent table's faults kept in a kill matrix: each replayed against the cases that caught it.

Each set of faults (FAULTS.md, FAULTS2.md, FAULTS3.md) was measured once with every suite; the
cases that FAILed on a fault, citing a clause it breaks, are listed in ``caught.yaml``.  Here a fault
is played again against those cases only (``tablecert run -k``, seconds instead of the minutes of
every suite), and it is still caught when at least one of them FAILs.  A fault the suites missed is
not listed: it has nothing to replay until a case is written for it.

  .venv/bin/python tests/independent/fault_matrix.py [--sample N --seed S | FAULT ...] [--out DIR]

With neither --sample nor a fault named, every kept fault is played (about an hour).  A kept fault
must FAIL on its listed cases played alone: a case that FAILed only after another case of its suite
(whose state it inherited) needs that case listed too, or a case that sets the state up itself.

One line per fault; exit 0 when every fault played was caught, 1 otherwise, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from indie_table.faults import ALL_FAULTS  # noqa: E402

CAUGHT = HERE / "caught.yaml"


@dataclass(frozen=True)
class Kept:
    fault: str
    cases: tuple[str, ...]
    profile: str = "independent-midi-5.yaml"


def load(path: Path = CAUGHT) -> dict[str, Kept]:
    """Every fault of ``caught.yaml`` with the cases that caught it."""
    data = yaml.safe_load(path.read_text())["faults"]
    return {name: Kept(name, tuple(entry["cases"]), entry.get("profile", Kept.profile))
            for name, entry in data.items()}


def chosen(kept: dict[str, Kept], names: list[str], sample: int | None, seed: int) -> list[Kept]:
    if names:
        unknown = [n for n in names if n not in kept]
        if unknown:
            raise SystemExit(f"fault_matrix: not in caught.yaml: {', '.join(unknown)}")
        return [kept[n] for n in names]
    if sample is None:
        return list(kept.values())
    return random.Random(seed).sample(sorted(kept.values(), key=lambda k: k.fault), min(sample, len(kept)))


def play(k: Kept, out: Path, timeout_s: float = 600.0) -> tuple[bool, str]:
    """Run the fault's cases against the table with the fault on; (caught, what happened)."""
    report = out / k.fault
    cmd = [sys.executable, str(HERE / "run_independent.py"), "--fault", k.fault, "--profile", str(HERE / k.profile),
           "--report-dir", str(report), "--timeout-s", str(timeout_s), "--", "suites", "-k", " or ".join(k.cases)]
    try:
        subprocess.run(cmd, timeout=timeout_s + 60, check=False, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return False, f"no verdict within {timeout_s + 60:.0f} s"
    records = sorted(report.glob("*/record.json"))
    if not records:
        return False, "no record written"
    cases = json.loads(records[-1].read_text())["cases"]
    failed = [c["case_id"] for c in cases if c["verdict"] == "FAIL" and c.get("clauses")
              and c["case_id"].split("[")[0] in k.cases]
    verdicts = ", ".join(f"{c['case_id']} {c['verdict']}" for c in cases if c["verdict"] != "NOT APPLICABLE")
    return bool(failed), (f"FAIL: {', '.join(failed)}" if failed else f"none FAILed ({verdicts or 'no case ran'})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("faults", nargs="*", help="faults of caught.yaml (default: every one, or --sample)")
    ap.add_argument("--sample", type=int, help="play N faults drawn from --seed")
    ap.add_argument("--seed", type=int, default=None, help="the draw's seed (default: a fresh one, printed)")
    ap.add_argument("--out", help="where the runs' records go (default: a temporary folder, removed)")
    args = ap.parse_args(argv)
    kept = load()
    unknown = sorted(set(kept) - set(ALL_FAULTS))
    if unknown:
        print(f"fault_matrix: caught.yaml names faults the table does not have: {', '.join(unknown)}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**9)
    plan = chosen(kept, args.faults, args.sample, seed)
    if args.sample is not None:
        print(f"fault matrix: {len(plan)} of {len(kept)} kept faults drawn with seed {seed}", flush=True)
    with tempfile.TemporaryDirectory(prefix="fault-matrix-") as tmp:
        out = Path(args.out) if args.out else Path(tmp)
        missed = 0
        for k in plan:
            t0 = time.monotonic()
            caught, what = play(k, out)
            missed += not caught
            print(f"{k.fault:<40} {'CAUGHT' if caught else 'MISSED':<7} {time.monotonic() - t0:6.1f} s  {what}",
                  flush=True)
    print(f"fault matrix {'PASSED' if not missed else 'FAILED'}: {len(plan) - missed} of {len(plan)} caught")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
