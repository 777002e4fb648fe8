"""``tablecert report RECORD``: render a record's lab report (and its appendix) again, or print it.

The record is verified first: a record that fails verification is rendered with a "RECORD FAILED
VERIFICATION" banner and the verdict NOT VALID, and the command exits 1 (3 for a run that did not
finish).  Every view says what the record's integrity rests on (:mod:`harness.record.integrity`):
a record that agrees only with its own manifest is "unverified without digest or signature".
``--template`` renders with a lab's own jinja2 template (its letterhead; the context is documented
in docs/report.md) and ``--report-number`` sets the number printed on every page: that is a lab's
copy, written with ``--out`` elsewhere than the run folder's views (the folder's views are the
packaged rendering, which ``verify`` renders again and compares).  ``--pdf`` prints the report
to ``record.pdf`` (A4, "Page x of y") with WeasyPrint, installed with tablecert (no browser needed),
or ``--pdf-engine chromium`` through headless Chromium.  ``--format gap`` renders the
vendor pre-submission gap report (Markdown) instead, ``--format junit`` the JUnit XML and
``--format all`` every view into the run directory.  ``--out`` is a file to write: a directory, a
device (``/dev/null``, ``/dev/full``) or a FIFO is refused (exit 2).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness import exitcodes
from harness.errors import DeviceError, InputError

HELP = "Render the lab report (HTML, --pdf to print it), the gap report or JUnit XML from a run record"
EXAMPLE = """\
tablecert report reports/20250101T120000Z-1a2b3c                 # rewrites record.html and its appendix
tablecert report reports/20250101T120000Z-1a2b3c --pdf           # and prints record.pdf (WeasyPrint)
tablecert report reports/20250101T120000Z-1a2b3c --template lab.html.j2 --report-number AL-2025-017 \\
    --out AL-2025-017.html --pdf
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
                        help="also print the report to PDF (default: record.pdf next to the report)")
    parser.add_argument("--pdf-engine", choices=("auto", "weasyprint", "chromium"), default="auto",
                        help="the PDF printer: weasyprint (installed with tablecert), chromium (headless, where "
                             "installed); auto: weasyprint where it loads (default)")


def writable_out(path: Path, flag: str = "--out") -> Path:
    """A file the command may write: not a directory, a device or a FIFO (``/dev/null`` and
    ``/dev/full`` included: the view would be lost), in a folder that exists."""
    import os
    import stat

    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise InputError(f"{flag} {path}: {exc.strerror or exc}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise InputError(f"{flag} {path}: a directory; give the file to write (e.g. {path}/record.html)")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise InputError(f"{flag} {path}: not a regular file (a device, FIFO or socket); give the file to write")
    if not path.parent.is_dir():
        raise InputError(f"{flag} {path}: the folder {path.parent} does not exist (No such file or directory)")
    return path


def _lab_copy(args: argparse.Namespace, run_dir: Path) -> None:
    """A lab's template or report number renders a copy of the report, written with ``--out``
    elsewhere than the folder's views (which ``verify`` renders again and compares)."""
    import os

    from harness.record.views import VIEW_FILES

    if args.template is None and args.report_number is None:
        return
    views = {os.path.realpath(run_dir / name) for name in VIEW_FILES}
    if args.out is None or os.path.realpath(args.out) in views:
        raise InputError("--template and --report-number render a lab's own copy of the report: write it with "
                         "--out FILE elsewhere than the run folder's views (the folder's record.html is the "
                         "packaged rendering, which verify renders again and compares)")


def run(args: argparse.Namespace) -> int:
    from harness.cli.verify import status_of
    from harness.record.atomic import write_atomic, write_text_atomic
    from harness.record.digest import record_digest, run_dir_of
    from harness.record.gap import render_gap_report
    from harness.record.html import render_html
    from harness.record.integrity import integrity
    from harness.record.journal import load_record
    from harness.record.signing import signature_info
    from harness.record.verification import verify
    from harness.record.views import HTML_FILE, JUNIT_FILE, render_one, render_views, view_problems

    if args.template is not None and not args.template.is_file():
        raise InputError(f"report template {args.template}: no such file")
    html_out: Path | None = None
    run_dir = run_dir_of(args.record)
    _lab_copy(args, run_dir)
    if args.out is not None:
        writable_out(args.out)
    if isinstance(args.pdf, str):
        writable_out(Path(args.pdf), "--pdf")
    problems = verify(run_dir, views=False)  # the record's own problems, which every view shows
    record = load_record(args.record)
    out: Path = args.out or run_dir
    try:
        if args.format == "all":
            render_views(run_dir, record, problems)
            out, html_out = run_dir, run_dir / HTML_FILE
        elif args.format == "gap":
            text = render_gap_report(record, problems=problems,
                                     integrity=integrity(record, problems, signature_info(run_dir)))
            if args.out is None:
                sys.stdout.write(text)
                return status_of(problems)
            write_text_atomic(out, text)
        elif args.format == "junit":
            out = args.out or run_dir / JUNIT_FILE
            write_atomic(out, render_one(run_dir, record, problems, JUNIT_FILE))
        elif args.template is not None or args.report_number is not None:
            digest = record_digest(run_dir) if record.complete else None
            write_text_atomic(out, render_html(record, digest=digest, problems=problems, template=args.template,
                                               report_number=args.report_number, signed=signature_info(run_dir)))
            html_out = out
        else:
            out = args.out or run_dir / HTML_FILE
            write_atomic(out, render_one(run_dir, record, problems, HTML_FILE))
            html_out = out
    except BrokenPipeError:
        raise  # the reader of stdout went away: harness.cli ends with the status for that
    except OSError as exc:
        raise InputError(f"{out}: cannot write: {exc.strerror or exc}") from exc
    remaining = [] if problems else view_problems(run_dir, record)
    verdict = "NOT VALID (record failed verification)" if problems else record.derived_verdict()[0]
    trust = integrity(record, problems, signature_info(run_dir))["state"]
    print(f"{out}: verdict {verdict} (integrity: {trust})")
    for problem in remaining:
        print(f"{run_dir}: {problem}")
    if args.pdf:
        if html_out is None:
            raise InputError("--pdf prints the HTML report: use it with --format html or all")
        from harness.record.pdf import print_pdf

        pdf = Path(args.pdf) if isinstance(args.pdf, str) else html_out.with_suffix(".pdf")
        try:
            pages = print_pdf(html_out, pdf, engine=args.pdf_engine)
        except DeviceError as exc:
            print(f"tablecert report: {exc}", file=sys.stderr)
            return exitcodes.RIG_ERROR
        print(f"{pdf}: {pages} page(s), {pdf.stat().st_size} bytes")
    return status_of(problems + remaining)
