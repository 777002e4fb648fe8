"""``tablecert report RECORD``: render a record's lab report (and its appendix) again, or print it.

The record is verified first: a record that fails verification is rendered with a "RECORD FAILED
VERIFICATION" banner and the verdict NOT VALID, and the command exits 1.  ``--template`` renders
with a lab's own jinja2 template (its letterhead; the context is documented in docs/report.md),
``--report-number`` sets the number printed on every page, ``--pdf`` prints the report through
headless Chromium to ``record.pdf`` (A4, "Page x of y").  ``--format gap`` renders the vendor
pre-submission gap report (Markdown) instead, ``--format junit`` the JUnit XML and ``--format all``
every view into the run directory.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness import exitcodes
from harness.errors import DeviceError, InputError

HELP = "Render the lab report (HTML, --pdf through Chromium), the gap report or JUnit XML from a run record"
EXAMPLE = """\
tablecert report reports/20250101T120000Z-1a2b3c                 # rewrites record.html and its appendix
tablecert report reports/20250101T120000Z-1a2b3c --pdf           # and prints record.pdf (headless Chromium)
tablecert report reports/20250101T120000Z-1a2b3c --template lab.html.j2 --report-number AL-2025-017 --pdf
tablecert report reports/20250101T120000Z-1a2b3c --format gap    # prints the gap report
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", type=Path, help="run directory, its record.json or its journal.jsonl")
    parser.add_argument("--out", type=Path, default=None, help="file to write (default: in the run directory)")
    parser.add_argument(
        "--format", choices=("html", "gap", "junit", "all"), default="html", help="which view (default html)"
    )
    parser.add_argument("--template", type=Path, default=None, metavar="FILE",
                        help="a lab's own jinja2 report template (default: the packaged one; docs/report.md)")
    parser.add_argument("--report-number", default=None, metavar="N",
                        help="report number printed on every page (default: TC-<run id>)")
    parser.add_argument("--pdf", nargs="?", const=True, default=False, metavar="FILE",
                        help="also print the report to PDF through headless Chromium (default: record.pdf "
                             "next to the report)")


def run(args: argparse.Namespace) -> int:
    from harness.record.digest import record_digest, run_dir_of, verify
    from harness.record.gap import render_gap_report
    from harness.record.html import render_html
    from harness.record.journal import load_record
    from harness.record.junit import render_junit
    from harness.record.signing import signature_info
    from harness.record.views import HTML_FILE, JUNIT_FILE, render_views

    if args.template is not None and not args.template.is_file():
        raise InputError(f"report template {args.template}: no such file")
    html_out: Path | None = None
    try:
        run_dir = run_dir_of(args.record)
        problems = verify(args.record)
        record = load_record(args.record)
        digest = record_digest(run_dir) if record.complete else None
        if args.format == "all":
            render_views(run_dir, record, problems)
            out = run_dir
            html_out = run_dir / HTML_FILE
        elif args.format == "gap":
            text = render_gap_report(record)
            if args.out is None:
                sys.stdout.write(text)
                return exitcodes.FAIL if problems else exitcodes.PASS
            out = args.out
            out.write_text(text, "utf-8")
        elif args.format == "junit":
            out = args.out or run_dir / JUNIT_FILE
            out.write_bytes(render_junit(record, run_dir, digest=digest))
        else:
            out = args.out or run_dir / HTML_FILE
            out.write_text(render_html(record, digest=digest, problems=problems, template=args.template,
                                       report_number=args.report_number, signed=signature_info(run_dir)),
                           "utf-8")
            html_out = out
    except OSError as exc:
        raise InputError(f"{args.record}: {exc.strerror or exc}") from exc
    verdict = "NOT VALID (record failed verification)" if problems else record.derived_verdict()[0]
    print(f"{out}: verdict {verdict}")
    if args.pdf:
        if html_out is None:
            raise InputError("--pdf prints the HTML report: use it with --format html or all")
        from harness.record.pdf import print_pdf

        pdf = Path(args.pdf) if isinstance(args.pdf, str) else html_out.with_suffix(".pdf")
        try:
            pages = print_pdf(html_out, pdf)
        except DeviceError as exc:
            print(f"tablecert report: {exc}", file=sys.stderr)
            return exitcodes.RIG_ERROR
        print(f"{pdf}: {pages} page(s), {pdf.stat().st_size} bytes")
    return exitcodes.FAIL if problems else exitcodes.PASS
