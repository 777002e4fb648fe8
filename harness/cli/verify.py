"""``tablecert verify RECORD``: has anything been edited since the run finished?

Prints ``OK`` with the record digest and verdict, or one line per problem (an edited verdict or
measurement, a changed transcript byte, a missing or extra evidence file, an incomplete record).
Exit 0 when the record verifies, 1 when it does not, 2 when the input is not a readable record.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.errors import InputError

HELP = "Check a run record against its digest: exit 0 if untouched, 1 listing each problem"
EXAMPLE = """\
tablecert verify reports/20250101T120000Z-1a2b3c
tablecert verify reports/20250101T120000Z-1a2b3c --digest 5d41...   # the digest printed in a signed report
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", type=Path, help="run directory, its record.json or its journal.jsonl")
    parser.add_argument("--digest", default=None, help="the record digest it must have (from a signed report)")


def run(args: argparse.Namespace) -> int:
    from harness.record.digest import record_digest, run_dir_of, verify
    from harness.record.journal import load_record

    try:
        problems = verify(args.record, expected_digest=args.digest)
        run_dir = run_dir_of(args.record)
        verdict = load_record(run_dir).derived_verdict()[0]
    except OSError as exc:
        raise InputError(f"{args.record}: cannot read ({exc.strerror or exc})") from exc
    if problems:
        for problem in problems:
            print(f"{args.record}: {problem}")
        print(f"{args.record}: FAILED VERIFICATION ({len(problems)} problem(s)); verdict NOT VALID")
        return 1
    print(f"OK {args.record}: digest {record_digest(run_dir)}, verdict {verdict}")
    return 0
