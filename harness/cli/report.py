"""``tablecert report RECORD``: render a record's HTML certification report again.

The record is verified first: a record that fails verification is rendered with a "RECORD FAILED
VERIFICATION" banner and the verdict NOT VALID, and the command exits 1.  ``--format gap`` renders
the vendor pre-submission gap report (Markdown) instead, ``--format junit`` the JUnit XML and
``--format all`` every view into the run directory.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.errors import InputError

HELP = "Render the HTML certification report (or the gap report, JUnit XML) from a run record"
EXAMPLE = """\
tablecert report reports/20250101T120000Z-1a2b3c                 # rewrites record.html there
tablecert report reports/20250101T120000Z-1a2b3c --out cert.html
tablecert report reports/20250101T120000Z-1a2b3c --format gap    # prints the gap report
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", type=Path, help="run directory, its record.json or its journal.jsonl")
    parser.add_argument("--out", type=Path, default=None, help="file to write (default: in the run directory)")
    parser.add_argument(
        "--format", choices=("html", "gap", "junit", "all"), default="html", help="which view (default html)"
    )


def run(args: argparse.Namespace) -> int:
    from harness.record.digest import record_digest, run_dir_of, verify
    from harness.record.gap import render_gap_report
    from harness.record.html import render_html
    from harness.record.journal import load_record
    from harness.record.junit import render_junit
    from harness.record.views import HTML_FILE, JUNIT_FILE, render_views

    try:
        run_dir = run_dir_of(args.record)
        problems = verify(args.record)
        record = load_record(args.record)
        digest = record_digest(run_dir) if record.complete else None
        if args.format == "all":
            render_views(run_dir, record, problems)
            out = run_dir
        elif args.format == "gap":
            text = render_gap_report(record)
            if args.out is None:
                sys.stdout.write(text)
                return 1 if problems else 0
            out = args.out
            out.write_text(text, "utf-8")
        elif args.format == "junit":
            out = args.out or run_dir / JUNIT_FILE
            out.write_bytes(render_junit(record, run_dir, digest=digest))
        else:
            out = args.out or run_dir / HTML_FILE
            out.write_text(render_html(record, digest=digest, problems=problems), "utf-8")
    except OSError as exc:
        raise InputError(f"{args.record}: {exc.strerror or exc}") from exc
    verdict = "NOT VALID (record failed verification)" if problems else record.derived_verdict()[0]
    print(f"{out}: verdict {verdict}")
    return 1 if problems else 0
