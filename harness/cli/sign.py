"""``tablecert sign RECORD --key KEY --signer NAME``: a lab's signature on a record.

The record is verified first; one that does not verify is never signed (exit 1, each problem
listed).  The signature (``record.sig`` in the run folder) covers the record digest, the run id,
the signer and the time; ``tablecert verify RECORD --key KEY.pub`` checks it.  Exit 0 signed, 1 the
record does not verify, 2 bad input (no such record, not an Ed25519 key, a PARTIAL record without
``--partial``).  A PARTIAL record signed with ``--partial`` carries its scope in the signature
("PARTIAL: 1 of 202 applicable cases selected"), and the report shows it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness import exitcodes

HELP = "sign a verified record with the lab's Ed25519 key (writes record.sig)"
EXAMPLE = """
tablecert sign reports/20250101T120000Z-1a2b3c --key keys/acme-lab.key --signer "ACME Test Labs, J. Tester"
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", type=Path, help="run directory, its record.json or its journal.jsonl")
    parser.add_argument("--key", type=Path, required=True, metavar="KEY", help="private key (tablecert keygen)")
    parser.add_argument("--signer", required=True, metavar="NAME", help="who signs: the lab, and the person")
    parser.add_argument("--partial", action="store_true",
                        help="sign a PARTIAL record (a selection of the applicable cases): the signature says so")


def run(args: argparse.Namespace) -> int:
    from harness.record.sign import sign_record
    from harness.record.signing import SIGNATURE_FILE

    try:
        sig = sign_record(args.record, args.key, args.signer, partial=args.partial)
    except ValueError as exc:
        for problem in str(exc).split("; "):
            print(f"{args.record}: {problem}")
        print(f"{args.record}: not signed: the record does not verify")
        return exitcodes.FAIL
    print(f"signed {args.record}: {SIGNATURE_FILE} by {sig['signer']}, key {sig['key_fingerprint']}, "
          f"digest {sig['record_digest']}" + (f"; scope {sig['scope']}" if "scope" in sig else ""))
    return exitcodes.PASS
