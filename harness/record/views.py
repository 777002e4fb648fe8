"""Writing a finished record and every view of it into its run directory.

Order matters: the canonical ``record.json`` and the digest manifest come first, so a failure while
rendering a view never costs the record itself; the views (the lab report and its appendix, JUnit
XML, Allure results and, for a pre-submission run, the gap report) are derived files outside the
digest and can be rebuilt at any time with ``tablecert report``.
"""

from __future__ import annotations

import os
from pathlib import Path

from harness.record.digest import RECORD_FILE, canonical_json, record_digest, write_manifest
from harness.record.document import Record

HTML_FILE = "record.html"
APPENDIX_FILE = "record-appendix.html"
JUNIT_FILE = "junit.xml"
ALLURE_DIR = "allure-results"
GAP_FILE = "gap-report.md"


def write_record(run_dir: Path, record: Record) -> str:
    """Write ``record.json`` (canonical) and ``record.sha256``; return the record digest."""
    path = run_dir / RECORD_FILE
    with path.open("wb") as fh:
        fh.write(canonical_json(record.to_dict()))
        fh.flush()
        os.fsync(fh.fileno())
    return write_manifest(run_dir, [ev.path for ev in record.evidence()])


def write_views(run_dir: Path, record: Record) -> str:
    """Write the record, its digest and all its views; return the digest.

    The fresh record is verified before rendering, so even the report written by the run itself can
    never show a record that does not verify as passing.
    """
    from harness.record.digest import verify

    digest = write_record(run_dir, record)
    render_views(run_dir, record, problems=verify(run_dir))
    return digest


def render_views(run_dir: Path, record: Record, problems: list[str]) -> None:
    """(Re)write the derived views of a record already on disk."""
    from harness.record.allure_view import write_allure_results
    from harness.record.gap import render_gap_report
    from harness.record.html import render_appendix, render_html
    from harness.record.junit import render_junit
    from harness.record.signing import signature_info

    digest = record_digest(run_dir)
    signed = signature_info(run_dir)
    (run_dir / HTML_FILE).write_text(render_html(record, digest=digest, problems=problems, signed=signed), "utf-8")
    (run_dir / APPENDIX_FILE).write_text(render_appendix(record, digest=digest, problems=problems), "utf-8")
    (run_dir / JUNIT_FILE).write_bytes(render_junit(record, run_dir, digest=digest))
    write_allure_results(record, run_dir, run_dir / ALLURE_DIR, digest=digest)
    if record.meta.pre_submission:
        (run_dir / GAP_FILE).write_text(render_gap_report(record), "utf-8")
