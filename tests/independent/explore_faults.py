"""Run `tablecert explore` once, with a fixed budget and seed, against the independent table started
clean and with each fault; print one line per run (what the explorer found, how long it took, how
long the shrunk sequence is).  Nothing here was tuned to the faults: the explorer and its model were
written without them (issue 33, item 4).

  .venv/bin/python tests/independent/explore_faults.py --out /tmp/explore-faults [--budget 90s] [FAULT ...]
  .venv/bin/python tests/independent/explore_faults.py --out /tmp/explore-clean --clean \
      --profile tests/independent/independent-midi-1.yaml --budget 120s     # the table clean, no fault

With no FAULT (and no --clean) every fault of indie_table.faults.ALL_FAULTS is run.

Writes OUT/<fault>/ (the explorer's run folder, explore.json) and OUT/summary.tsv.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from indie_table.faults import ALL_FAULTS  # noqa: E402
from run_independent import PROFILE, ROOT, Device  # noqa: E402

TABLECERT = ROOT / ".venv" / "bin" / "tablecert"


def explore(out: Path, fault: str | None, budget: str, seed: int,
            profile: Path = PROFILE) -> tuple[int, float, dict[str, object]]:
    state = out / (fault or "clean")
    state.mkdir(parents=True, exist_ok=True)
    dev = Device(state, [fault] if fault else [], profile)
    t0 = time.monotonic()
    try:
        dev.wait_ready(deadline_s=30)
        cmd = [str(TABLECERT), "explore", "--profile", str(dev.profile()), "--budget", budget, "--seed", str(seed),
               "--shrink", "60s", "--report-dir", str(state / "runs")]
        with open(state / "explore.log", "wb") as log:
            rc = subprocess.run(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, timeout=1200,
                                check=False).returncode
    except subprocess.TimeoutExpired:
        rc = -1
    finally:
        dev.stop()
    found = sorted((state / "runs").glob("*/explore.json"))
    return rc, time.monotonic() - t0, json.loads(found[-1].read_text()) if found else {}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget", default="90s")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--clean", action="store_true", help="also explore the table without a fault first")
    ap.add_argument("--profile", default=str(PROFILE),
                    help="independent-midi-5.yaml (default) or independent-midi-1.yaml")
    ap.add_argument("faults", nargs="*")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    runs: list[str | None] = ([None] if args.clean else []) + list(args.faults or ([] if args.clean else
                                                                                  sorted(ALL_FAULTS)))
    with open(out / "summary.tsv", "w") as summary:
        summary.write("fault\texit\twall_s\tfound_after_s\tshrunk_ops\trule\n")
        for fault in runs:
            rc, wall, doc = explore(out, fault, args.budget, args.seed, Path(args.profile))
            finding = doc.get("finding") if isinstance(doc.get("finding"), dict) else None
            after = finding.get("found_after_s", "") if finding else ""
            ops = finding.get("shrunk_length", "") if finding else ""
            rule = finding.get("rule", "") if finding else ""
            line = f"{fault or 'clean'}\t{rc}\t{wall:.0f}\t{after}\t{ops}\t{rule}"
            summary.write(line + "\n")
            summary.flush()
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
