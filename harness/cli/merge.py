"""``tablecert merge RECORD... --out DIR``: one certification record from several benches.

Refuses records that do not verify or that are of different products (a product field of a shared
device role differs, named in the message), different jurisdictions or interpretations.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.errors import InputError

HELP = "Merge the records of one product run on several benches into one record"
EXAMPLE = """\
tablecert merge reports/20250101T120000Z-1a2b3c reports/20250101T121500Z-4d5e6f --out reports/merged-cert
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("records", type=Path, nargs="+", help="run directories to merge")
    parser.add_argument("--out", type=Path, required=True, help="directory for the merged record (new or empty)")


def run(args: argparse.Namespace) -> int:
    from harness.record.digest import record_digest
    from harness.record.journal import load_record
    from harness.record.merge import merge_records

    try:
        out = merge_records(list(args.records), args.out)
    except OSError as exc:
        raise InputError(f"merge: {exc.strerror or exc}: {exc.filename or ''}") from exc
    record = load_record(out)
    print(
        f"{out}: {len(record.cases)} case(s) from {len(args.records)} record(s), digest {record_digest(out)},"
        f" verdict {record.derived_verdict()[0]}"
    )
    return 0
