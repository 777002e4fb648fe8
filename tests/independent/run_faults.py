"""Run the applicable suites once against the table started with each fault; print one line per fault.

  .venv/bin/python tests/independent/run_faults.py --out /tmp/faults [--profile P] [FAULT ...]

Writes OUT/<fault>.txt (the failing and erroring cases with their messages) and OUT/summary.tsv.
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from indie_table.faults import FAULTS  # noqa: E402

SUITES = ["suites/contract", "suites/lockout", "suites/baccarat", "suites/royal9", "suites/progressive",
          "suites/identity", "suites/washington"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--profile", help="the table's profile (default independent-midi-5.yaml; a fault of the $1 "
                    "table needs independent-midi-1.yaml)")
    ap.add_argument("faults", nargs="*")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for fault in args.faults or sorted(FAULTS):
        rep = out / fault
        t0 = time.monotonic()
        try:
            profile = ["--profile", args.profile] if args.profile else []
            rc = subprocess.run([sys.executable, str(HERE / "run_independent.py"), "--fault", fault, *profile,
                                 "--report-dir", str(rep), *SUITES], timeout=1200, check=False,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        except subprocess.TimeoutExpired:
            rc = -1
        wall = time.monotonic() - t0
        lines = []
        runs = sorted(glob.glob(str(rep / "*" / "junit.xml")), key=os.path.getmtime)
        if runs:
            for tc in ET.parse(runs[-1]).iter("testcase"):
                for child in tc:
                    if child.tag in ("failure", "error"):
                        msg = (child.get("message") or "").replace("\n", " | ")[:400]
                        lines.append(f"{child.tag.upper()} {tc.get('name')} :: {msg}")
        (out / f"{fault}.txt").write_text("\n".join(lines) + "\n")
        with open(out / "summary.tsv", "a") as fh:
            fh.write(f"{fault}\trc={rc}\t{len(lines)} failing\t{wall:.0f}s\n")
        print(f"{fault}\trc={rc}\t{len(lines)} failing\t{wall:.0f}s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
