"""``tablecert variants``: certify compliant Rules Submissions other than ours against the built-in
emulators configured to each; every one must PASS (see :mod:`harness.selfcheck.variants`).

Why: a suite tuned to the shipped emulator's configuration gives a false FAIL on a compliant device
whose Rules Submission differs.  The variants are drawn from a seed (a fresh one unless given; it
is printed first), written as profiles, and each is certified in its own ``tablecert run``.  A
variant that does not pass is listed with its seed and the commands that reproduce it.  Exit 0
only when every variant passed, 1 otherwise, 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness.cli import shard as sh
from harness.cli.numbers import MAX_SEED, count, duration
from harness.errors import InputError
from harness.verdict import Verdict

HELP = "certify N compliant Rules Submissions drawn from a seed against the emulators configured to each"
EXAMPLE = """
tablecert variants --count 24 --seed 7          # 24 variants, every one must PASS
tablecert variants --count 24 --seed 7 --only 5 # reproduce variant 5 of that set
tablecert variants --count 24 --seed 7 --list   # the profiles only, without running them
tablecert variants --count 4 --jobs 2 --work-dir reports/variants
tablecert variants --count 3 --persona fixed-configuration   # every variant played by that persona
tablecert variants --personas                   # list the personas (permitted behaviours)
tablecert variants --count 24 --seed 7 --shard 2/4 --json > shard-2.json   # a quarter, on one of 4 machines
tablecert variants --collect shard-1.json shard-2.json shard-3.json shard-4.json   # the table of the whole run
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--count", type=count(1, 10_000), default=24, metavar="N", help="variants to draw (default 24)")
    p.add_argument("--seed", type=count(0, MAX_SEED), default=None, metavar="S",
                   help="seed (default: a fresh one, printed)")
    p.add_argument("--only", type=count(0, 10_000), action="append", default=[], metavar="I",
                   help="run only variant I of the set (repeatable)")
    p.add_argument("--jobs", type=count(1, 64), default=2, metavar="J", help="variants certified at once (default 2)")
    p.add_argument("--work-dir", default=None, metavar="D",
                   help="where the profiles and records go (default: a temporary folder, kept on failure)")
    p.add_argument("--deadline", type=duration(86_400), default=900.0, metavar="SECONDS",
                   help="end a variant's run still going after this long (default 900)")
    p.add_argument("--list", action="store_true", help="write and list the profiles; run nothing")
    p.add_argument("--persona", action="append", default=[], metavar="NAME",
                   help="draw only these personas (repeatable; 'reference' for the reference behaviour; "
                   "default: every persona and the reference)")
    p.add_argument("--personas", action="store_true", help="list the personas and exit")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("suites", nargs="*", metavar="SUITES", help="suite files or directories (default: all)")
    sh.add_arguments(p, "variants")


def run(args: argparse.Namespace) -> int:
    from harness.selfcheck import variants as vm

    if args.collect:
        return _collect(args)
    if args.shard and args.seed is None:
        raise InputError("--shard needs --seed: every shard must draw the same variants")
    if args.count < 1:
        raise InputError(f"--count {args.count}: at least 1")
    if args.jobs < 1:
        raise InputError(f"--jobs {args.jobs}: at least 1")
    from harness.emulators.personas import PERSONAS

    if args.personas:
        for p in PERSONAS.values():
            print(f"{p.name:<26} {p.description}\n{'':<26} permitted: {p.permitted_by}")
        return 0
    for name in args.persona:
        if name != "reference" and name not in PERSONAS:
            raise InputError(f"--persona {name}: unknown (known: reference, {', '.join(sorted(PERSONAS))})")
    drawn = [None if n == "reference" else n for n in dict.fromkeys(args.persona)] or None
    seed = args.seed if args.seed is not None else secrets.randbelow(10**9)
    every = vm.generate(seed, args.count, drawn)
    for i in args.only:
        if not 0 <= i < args.count:
            raise InputError(f"--only {i}: the set has variants 0 to {args.count - 1}")
    chosen = [every[i] for i in args.only] if args.only else every
    if args.shard:
        chosen = args.shard.pick(chosen)
    keep = args.work_dir is not None
    work = Path(args.work_dir) if keep else Path(tempfile.mkdtemp(prefix=f"tablecert-variants-{seed}-"))
    part = f" (shard {args.shard})" if args.shard else ""
    print(f"tablecert variants: seed {seed}, {len(chosen)} of {args.count} variant(s){part}, {args.jobs} at once; "
          f"work folder {work}", file=sys.stderr, flush=True)
    if args.list:
        for v, path in zip(chosen, vm.write(chosen, work / "profiles"), strict=True):
            print(f"{v.index:>3}  {path}  {v.summary()}")
        return 0
    t0 = time.monotonic()

    def progress(o: vm.VariantOutcome) -> None:
        if not args.json:
            state = Verdict.PASS if o.passed else Verdict.FAIL
            print(f"  [{o.variant.index:>2}] {state} {o.seconds:>6}s  {o.tally:<14} {o.variant.summary()}",
                  file=sys.stderr, flush=True)

    outcomes = vm.run_variants(chosen, jobs=args.jobs, work_dir=work, deadline_s=args.deadline,
                               suites=args.suites, progress=progress)
    wall = round(time.monotonic() - t0, 1)
    # what --collect needs to merge shards (an unsharded run is shard 1/1 of itself)
    extra = {"kind": "variants", "shard": str(args.shard or sh.Shard(1, 1)), "only": list(args.only),
             "suites": list(args.suites)}
    failed = _report(args, seed, outcomes, wall, extra)
    if not failed and not keep:
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    return 0 if not failed else 1


def _report(args: argparse.Namespace, seed: int, outcomes: list[Any], wall: float,
            extra: dict[str, Any]) -> list[Any]:
    """Print the table (or ``--json``) of ``outcomes``; returns those that did not pass."""
    from harness.selfcheck import variants as vm

    failed = [o for o in outcomes if not o.passed]
    covered = vm.choices_covered(o.variant for o in outcomes)
    if args.json:
        print(json.dumps({
            "seed": seed, "count": args.count, "wall_seconds": wall, "passed": not failed, **extra,
            "variants": [{"index": o.variant.index, "name": o.variant.name, "passed": o.passed,
                          "exit": o.exit_code, "seconds": str(o.seconds), "tally": o.tally,
                          "failures": o.failures, "played_again": o.played_again,
                          "profile": str(o.profile_path),
                          "covers": list(o.variant.covers), "persona": o.variant.persona} for o in outcomes],
            "interpretation_choices": {k: sorted(v) for k, v in covered.items()},
        }, indent=2))
    else:
        print(f"{'#':>3}  {'verdict':<7} {'time':>7}  pass/fail/error/n-a  variant")
        for o in outcomes:
            state = Verdict.PASS if o.passed else Verdict.FAIL
            print(f"{o.variant.index:>3}  {state:<7} {o.seconds:>6}s  {o.tally:<19}  {o.variant.summary()}")
        n_choices = sum(len(v) for v in covered.values())
        print(f"\n{len(outcomes) - len(failed)}/{len(outcomes)} variant(s) passed; {n_choices} interpretation "
              f"choice(s) of {len(covered)} interpretation(s) exercised; wall time {wall} s")
        for o in outcomes:
            for line in o.played_again:
                print(f"variant {o.variant.index}: {line}")
        for o in failed:
            print(f"\nFAILED variant {o.variant.index} of seed {seed} ({o.variant.name}):")
            for line in o.failures[:20]:
                print(f"  {line}")
            chosen_personas = "".join(f" --persona {n}" for n in dict.fromkeys(args.persona))
            print(f"  reproduce (persona {o.variant.persona or 'reference'}, Rules Submission "
                  f"{o.variant.rules_summary()}): tablecert variants --count {args.count} --seed {seed}"
                  f"{chosen_personas} --only {o.variant.index}")
            print(f"         or: tablecert run --profile {o.profile_path}")
    return failed


def _collect(args: argparse.Namespace) -> int:
    """``--collect``: the shards' results merged, printed as one run of the whole set prints them."""
    from decimal import Decimal

    from harness.selfcheck import variants as vm

    docs = sh.load_shards(args.collect, "variants", ("seed", "count", "only", "suites"))
    seed, total = int(docs[0]["seed"]), int(docs[0]["count"])
    every = vm.generate(seed, total)
    outcomes = []
    for doc in docs:
        for v in doc["variants"]:
            variant = every[int(v["index"])]
            outcomes.append(vm.VariantOutcome(variant, int(v["exit"]), Decimal(v["seconds"]), Path(v["profile"]),
                                              v["tally"], list(v["failures"]), list(v.get("played_again", []))))
    order = {i: n for n, i in enumerate(docs[0]["only"] or range(total))}
    outcomes.sort(key=lambda o: order.get(o.variant.index, o.variant.index))
    args.count = total
    # the wall time of the whole run: its longest shard's (the shards ran at once)
    wall = max(float(doc["wall_seconds"]) for doc in docs)
    whole = {"kind": "variants", "shard": "1/1", "only": docs[0]["only"], "suites": docs[0]["suites"]}
    failed = _report(args, seed, outcomes, wall, whole)
    return 0 if not failed else 1
