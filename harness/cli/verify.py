"""``tablecert verify RECORD``: has anything been edited since the run finished, and who signed it?

Prints ``OK`` with the record digest and verdict, or one line per problem (an edited verdict or
measurement, a changed transcript byte, a missing or extra evidence file, a missing journal or
manifest line, an incomplete record).  With ``--key PUB`` the record must also carry a signature
(``tablecert sign``) by that key over its current digest.  Without it, a signature present is
checked against the key it names (intact, but not proof of who signed) and shown.

Exit 0 when the record verifies, 1 when it does not (or the signature fails), 2 when the input is
not a readable record or key (see :mod:`harness.exitcodes`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness import exitcodes
from harness.cli.output import Out
from harness.errors import InputError

HELP = "check a run record against its digest (and --key: its signature): exit 0 untouched, 1 listing each problem"
EXAMPLE = """\
tablecert verify reports/20250101T120000Z-1a2b3c
tablecert verify reports/20250101T120000Z-1a2b3c --digest 5d41...   # the digest printed in a signed report
tablecert verify reports/20250101T120000Z-1a2b3c --key keys/acme-lab.key.pub
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", type=Path, help="run directory, its record.json or its journal.jsonl")
    parser.add_argument("--digest", default=None, help="the record digest it must have (from a signed report)")
    parser.add_argument("--key", type=Path, default=None, metavar="PUB",
                        help="the signing lab's public key: the record must carry its valid signature")


def run(args: argparse.Namespace) -> int:
    from harness.record.digest import record_digest, run_dir_of, verify
    from harness.record.journal import load_record
    from harness.record.signing import signature_info, signature_problems

    public = None
    if args.key is not None:
        from harness.record.signing import load_public_key

        public = load_public_key(args.key)
    try:
        problems = verify(args.record, expected_digest=args.digest)
        run_dir = run_dir_of(args.record)
        verdict = load_record(run_dir).derived_verdict()[0]
        info = signature_info(run_dir)
        if public is not None:
            problems += signature_problems(run_dir, public)
        elif info is not None:
            problems += info["problems"]
    except OSError as exc:
        raise InputError(f"{args.record}: cannot read ({exc.strerror or exc})") from exc
    out = Out()  # `verify R | head -1` still ends with what verification found
    if problems:
        for problem in problems:
            out.print(f"{args.record}: {problem}")
        out.print(f"{args.record}: FAILED VERIFICATION ({len(problems)} problem(s)); verdict NOT VALID")
        return exitcodes.FAIL
    out.print(f"OK {args.record}: digest {record_digest(run_dir)}, verdict {verdict}")
    if info is not None:
        how = "checked against the key given" if public is not None else "intact; give --key PUB to check whose key"
        out.print(f"signed by {info['signer']} at {info['signed_at']}, key {info['key_fingerprint']} ({how})")
    return exitcodes.PASS
