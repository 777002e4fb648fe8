"""``tablecert explore``: random legal operation sequences against a device, judged by a model.

The explorer (docs/explore.md) plays rounds with any cards, wagers placed, placed again and removed
at any seat, the lock-out button, no more bets, the reset key, configuration writes inside and outside
the ranges, power cycles, link cuts and shoe loads, through the profile's drivers and performers, and
after every operation compares every observable with the model of the device contract
(:mod:`harness.explore.model`).  At the first difference it shrinks the sequence, writes it as a YAML
case (``finding.suite.yaml``) and runs that case on its own to show it reproduces.

Exit 0 when the budget ran out with no difference, 1 on a finding, 2 for bad input or a bench the
explorer cannot drive (an operator performs the acts), 3 on a rig error.
"""

from __future__ import annotations

import argparse
import random
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from harness.cli.numbers import MAX_SEED, count
from harness.errors import InputError
from harness.verdict import Verdict

HELP = "random legal operation sequences against a device, every observable checked by a model; shrunk to a case"
EXAMPLE = """
tablecert explore --profile device_profiles/emulated-midi-5.yaml --budget 10m --seed 1
tablecert explore --profile device_profiles/emulated-midi-5.yaml --budget 60s --defect reset-key-idle-resets
tablecert explore --profile my-bench.yaml --budget 1h           # a bench whose devices have the test channel
tablecert explore --selfcheck                                   # CI: two profiles clean, a sample of defects found
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--profile", metavar="P", help="device profile (emulated or a bench); required but with "
                                                        "--selfcheck")
    parser.add_argument("--selfcheck", action="store_true",
                        help="CI's short check: two shipped profiles explored clean (must find nothing) and a sample "
                             "of named defects (must find each); prints a table, exit 1 on a miss or a false finding")
    parser.add_argument("--budget", default="10m", metavar="T",
                        help="how long to explore before the first finding: 90s, 10m, 1h (default 10m)")
    parser.add_argument("--seed", type=count(0, MAX_SEED), metavar="S", help="seed (default: random, printed)")
    parser.add_argument("--defect", metavar="NAME", help="start the emulator with this defect (tablecert defects)")
    parser.add_argument("--steps", type=count(5, 10_000), default=120, metavar="N",
                        help="operations drawn per sequence (default 120)")
    parser.add_argument("--shrink", default="60s", metavar="T", help="time allowed to shrink a finding (default 60s)")
    parser.add_argument("--report-dir", default="reports", metavar="D", help="where the run folder goes")
    parser.add_argument("--listen", choices=("pty", "tcp"), default="pty", help="how an emulator is reached")
    parser.add_argument("--fresh", action="store_true",
                        help="an emulated profile: a new emulator for every sequence, so that every sequence and the "
                             "case written for a finding start from the table as filed (the default)")
    parser.add_argument("--history", action="store_true",
                        help="an emulated profile: go on with the same emulator from sequence to sequence (faster; a "
                             "finding may then need what an earlier sequence left, and its case may not reproduce)")
    parser.add_argument("--no-verify", action="store_true", help="do not run the written case to confirm it")


def duration(text: str, what: str) -> float:
    """``90s``, ``10m``, ``1h`` or plain seconds -> seconds."""
    m = re.fullmatch(r"([0-9]{1,7})([smh]?)", text.strip())
    if m is None or int(m.group(1)) == 0:
        raise InputError(f"{what} {text!r}: expected a duration such as 90s, 10m or 1h")
    return int(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)]


def verify_case(case: Path, profile: str, defect: str | None, out: Path, listen: str) -> dict[str, Any]:
    """Run the written case on its own (``tablecert run``) and return its verdict and record folder."""
    cmd = [sys.executable, "-m", "harness", "run", str(case), "--profile", profile, "--report-dir", str(out)]
    if defect:
        cmd += ["--defect", defect]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    verdict = {0: Verdict.PASS, 1: Verdict.FAIL}.get(proc.returncode, f"exit {proc.returncode}")
    records = sorted(str(p.parent) for p in out.glob("*/record.json"))
    return {"command": shlex.join(["tablecert", *cmd[3:]]), "verdict": verdict, "reproduced": proc.returncode == 1,
            "records": records}


def run(args: argparse.Namespace) -> int:
    from harness.emulators.defects import check_defects
    from harness.explore.device import why_not_explorable
    from harness.explore.explorer import Session, explore
    from harness.explore.finding import case_yaml, dumps, report
    from harness.explore.model import unsupported
    from harness.profiles import load_profile

    if args.selfcheck:
        from harness.explore.sweep import selfcheck

        return selfcheck(args.seed if args.seed is not None else 1)
    if not args.profile:
        raise InputError("--profile P is required (or --selfcheck)")
    if args.fresh and args.history:
        raise InputError("--fresh and --history: choose one (a new emulator per sequence is the default)")
    budget = duration(args.budget, "--budget")
    shrink = duration(args.shrink, "--shrink")
    if args.defect:
        check_defects([args.defect])
    profile = load_profile(args.profile)
    if args.defect and not profile.is_emulated:
        raise InputError(f"--defect {args.defect}: profile {profile.name} names no emulated device")
    why = unsupported(profile)
    if why is not None:
        raise InputError(f"{args.profile}: the explorer's model cannot play {why} (docs/explore.md)")
    why = why_not_explorable(profile)
    if why is not None:
        raise InputError(f"{args.profile}: cannot explore this bench: {why}")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    run_dir = Path(args.report_dir) / f"explore-{profile.name}-{stamp}"
    run_dir.mkdir(parents=True, exist_ok=True)
    command = shlex.join(["tablecert", "explore", "--profile", args.profile, "--budget", args.budget,
                          "--seed", str(seed), *(["--defect", args.defect] if args.defect else []),
                          *(["--history"] if args.history else [])])
    print(f"tablecert explore: {profile.name}, seed {seed}, budget {budget:.0f} s -> {run_dir}", flush=True)
    session = Session(profile, defect=args.defect, listen=args.listen, steps=args.steps, shrink_s=shrink,
                      work_dir=run_dir / "device", fresh=not args.history)

    def progress(stats: Any, elapsed: float) -> None:
        print(f"  {elapsed:6.1f} s  {stats.ops:,} operations in {stats.sequences:,} sequences", file=sys.stderr,
              flush=True)

    try:
        result = explore(session, seed=seed, budget_s=budget, progress=progress)
    finally:
        session.close()
    verification = None
    if result.finding is not None:
        case = run_dir / "finding.suite.yaml"
        case.write_text(case_yaml(result, profile_name=profile.name, seed=seed, defect=args.defect,
                                  command=command), encoding="utf-8")
        if not args.no_verify:
            verification = verify_case(case, args.profile, args.defect, run_dir / "verify", args.listen)
    doc = report(result, profile_name=profile.name, seed=seed, defect=args.defect, budget_s=budget,
                 verification=verification)
    (run_dir / "explore.json").write_text(dumps(doc), encoding="utf-8")
    cov = doc["coverage"]
    print(f"{cov['operations']:,} operations in {cov['sequences']:,} sequences, {result.elapsed_s:.1f} s "
          f"({doc['operations_per_s']} operations/s); rules covered {cov['rules_covered']}/{cov['rules_total']}; "
          f"{len(cov['state_pairs'])} (phase, operation) pairs; choices seen: "
          + (", ".join(f"{k} x{v}" for k, v in cov["choices"].items()) or "none"))
    if result.error is not None:
        print(f"ERROR: {result.error}")
        return 3
    f = doc["finding"]
    if f is None:
        print(f"no difference from the model within the budget (seed {seed}); report: {run_dir / 'explore.json'}")
        return 0
    print(f"FINDING after {f['found_after_s']} s: rule {f['rule']} ({f['clause']}), shrunk to {f['shrunk_length']} "
          "operation(s):")
    for op in f["operations"]:
        print(f"    {op[:160]}")
    for d in f["differences"]:
        print(f"  {d['what']}: expected {d['expected']}, the device shows {d['device']}")
    print(f"case: {run_dir / 'finding.suite.yaml'}")
    if verification is not None:
        print(f"the case on its own: {verification['verdict']} ({verification['command']})")
    return 1
