"""Writing a finished record and every view of it into its run directory, and checking the views.

Order matters: the canonical ``record.json`` and the digest manifest come first, so a failure while
rendering a view never costs the record itself; the views (the lab report and its appendix, JUnit
XML, Allure results and, for a pre-submission run, the gap report) are derived files and can be
rebuilt at any time with ``tablecert report``.

The views cannot be in the manifest (the lab report prints the digest of the manifest, so it
cannot be covered by it).  Instead rendering is **deterministic**: the same record (and the same
``record.sig``) always gives the same bytes of every view, Allure's file names included.  So
:func:`view_problems` renders each view found in the run folder again from the verified record and
compares it byte for byte: a lab report edited from FAIL to PASS, a failure removed from
``junit.xml``, an Allure result file added or changed, each is caught by ``verify``.  A view that is
absent is not a problem (``tablecert report RECORD --format all`` renders every one).  The packaged
templates render the folder's views; a lab's own template (``report --template``) renders a copy
written elsewhere (``--out``).

Byte-for-byte holds only for the build of tablecert that rendered a view: a later release renders
the same record differently (a new table, a new chart).  So each view written into the folder is
stamped in ``views.json`` with the fingerprint of the build that rendered it (:func:`renderer_id`);
``verify`` compares a view whose stamp is this build's, and says of the others that they were
rendered by another build and were not compared (:func:`views_note`): an archived record still
verifies years later, by its digest, and ``tablecert report RECORD --format all`` renders its views
again with the build at hand.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from harness.record.allure_view import write_allure_results
from harness.record.atomic import replace_folder, write_atomic
from harness.record.digest import (
    EVIDENCE_DIR,
    JOURNAL_FILE,
    MANIFEST_FILE,
    RECORD_FILE,
    canonical_json,
    record_digest,
    write_manifest,
)
from harness.record.document import Record
from harness.record.folder import files_under, member_problem, present, read_member
from harness.record.gap import render_gap_report
from harness.record.html import render_appendix, render_html
from harness.record.integrity import integrity
from harness.record.junit import render_junit
from harness.record.signing import SIGNATURE_FILE, signature_info

HTML_FILE = "record.html"
APPENDIX_FILE = "record-appendix.html"
JUNIT_FILE = "junit.xml"
ALLURE_DIR = "allure-results"
GAP_FILE = "gap-report.md"
#: every view a run folder may hold (the PDF is a print of the report, made by Chromium)
VIEW_FILES = (HTML_FILE, APPENDIX_FILE, JUNIT_FILE, GAP_FILE)
PDF_FILE = "record.pdf"
#: which build rendered each view of the folder: view name -> :func:`renderer_id`
STAMP_FILE = "views.json"


@functools.cache
def renderer_id() -> str:
    """The fingerprint of this build of tablecert: SHA-256 over every file of the package (code,
    templates, the catalogue), so any change that could change a rendered byte changes it."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def view_digest(run_dir: Path, name: str) -> str:
    """SHA-256 of a view as the folder holds it (a folder view: over each file's path and bytes)."""
    target = run_dir / name
    h = hashlib.sha256()
    if target.is_dir() and not target.is_symlink():
        for path in sorted(p for p in target.rglob("*") if p.is_file()):
            h.update(path.relative_to(target).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    else:
        h.update(target.read_bytes())
    return h.hexdigest()


def _stamp_text(views: Mapping[str, Mapping[str, str]]) -> bytes:
    body = {k: dict(sorted(v.items())) for k, v in sorted(views.items())}
    seal = hashlib.sha256(canonical_json(body)).hexdigest()
    return json.dumps({"views": body, "sha256": seal}, indent=1, sort_keys=True).encode() + b"\n"


def read_stamps(run_dir: Path) -> tuple[dict[str, dict[str, str]], list[str]]:
    """``views.json``: view name -> {``renderer``, ``sha256``}, and what is wrong with the file (it
    must be exactly what :func:`stamp` writes, its seal over the entries intact).  Absent: nothing,
    no problem (views written before stamps were kept)."""
    if not present(run_dir, STAMP_FILE):
        return {}, []
    problem = member_problem(run_dir, STAMP_FILE)
    if problem is not None:
        return {}, [f"{STAMP_FILE}: {problem}"]
    raw = read_member(run_dir, STAMP_FILE)
    try:
        data = json.loads(raw)
        views = {str(k): {"renderer": str(v["renderer"]), "sha256": str(v["sha256"])}
                 for k, v in data["views"].items()}
    except (ValueError, KeyError, TypeError, AttributeError):
        return {}, [f"{STAMP_FILE}: not a views stamp (edited after the run); {AGAIN}"]
    if _stamp_text(views) != raw:
        return {}, [f"{STAMP_FILE}: its seal does not match its entries (edited after the run); {AGAIN}"]
    return views, []


def stamps(run_dir: Path) -> dict[str, str]:
    """View name -> the build that rendered it (empty: no readable stamp)."""
    return {name: entry["renderer"] for name, entry in read_stamps(run_dir)[0].items()}


def stamp(run_dir: Path, *names: str) -> None:
    """Record that this build rendered the views ``names`` of the folder, with each one's digest."""
    views = {**read_stamps(run_dir)[0],
             **{n: {"renderer": renderer_id(), "sha256": view_digest(run_dir, n)} for n in names}}
    write_atomic(run_dir / STAMP_FILE, _stamp_text(views))


def views_note(run_dir: Path) -> str | None:
    """What ``verify`` says of the views another build rendered (not compared), or None."""
    mine, seen = renderer_id(), stamps(run_dir)
    other = [n for n in (*VIEW_FILES, ALLURE_DIR) if present(run_dir, n) and seen.get(n) != mine]
    if not other:
        return None
    return (f"{', '.join(other)}: rendered by another build of tablecert (not {mine}), not compared byte for byte: "
            f"the record verified by its digest; {AGAIN}")


def write_record(run_dir: Path, record: Record) -> str:
    """Write ``record.json`` (canonical) and ``record.sha256``; return the record digest."""
    write_atomic(run_dir / RECORD_FILE, canonical_json(record.to_dict()))
    return write_manifest(run_dir, [ev.path for ev in record.evidence()])


def _renderers(run_dir: Path, record: Record, problems: list[str]) -> dict[str, Callable[[], bytes]]:
    """Each file view of the folder and how to render it (``problems``: the record's own, from
    ``verify(..., views=False)``)."""
    digest = record_digest(run_dir) if record.complete else None
    signed = signature_info(run_dir)
    trust = integrity(record, problems, signed)
    return {
        HTML_FILE: lambda: render_html(record, digest=digest, problems=problems, signed=signed).encode("utf-8"),
        APPENDIX_FILE: lambda: render_appendix(record, digest=digest, problems=problems).encode("utf-8"),
        JUNIT_FILE: lambda: render_junit(record, run_dir, digest=digest),
        GAP_FILE: lambda: render_gap_report(record, problems=problems, integrity=trust).encode("utf-8"),
    }


def render_one(run_dir: Path, record: Record, problems: list[str], name: str) -> bytes:
    """The bytes of the view ``name`` (one of :data:`VIEW_FILES`) as the folder holds it."""
    return _renderers(run_dir, record, problems)[name]()


def render_views(run_dir: Path, record: Record, problems: list[str]) -> None:
    """(Re)write the derived views of a record already on disk."""
    renderers = _renderers(run_dir, record, problems)
    for name in (HTML_FILE, APPENDIX_FILE, JUNIT_FILE):
        _replace(run_dir / name, renderers[name]())
    digest = record_digest(run_dir)
    replace_folder(run_dir / ALLURE_DIR, lambda new: write_allure_results(record, run_dir, new, digest=digest))
    written = [HTML_FILE, APPENDIX_FILE, JUNIT_FILE, ALLURE_DIR]
    if record.meta.pre_submission:
        _replace(run_dir / GAP_FILE, renderers[GAP_FILE]())
        written.append(GAP_FILE)
    stamp(run_dir, *written)


def _replace(path: Path, data: bytes) -> None:
    """Write ``data`` as a new regular file at ``path`` (whatever was there: a symlink is replaced,
    never followed), atomically: a failed write leaves the previous file whole."""
    write_atomic(path, data)


def view_problems(run_dir: Path, record: Record) -> list[str]:
    """Each view in the folder of a record that verified that is not what the record renders to."""
    out: list[str] = []
    renderers = _renderers(run_dir, record, [])
    entries, out = read_stamps(run_dir)
    mine = renderer_id()
    seen = {name: entry["renderer"] for name, entry in entries.items()}
    for name, entry in entries.items():  # a view another build rendered: unchanged since, at least
        if name in (*VIEW_FILES, ALLURE_DIR) and present(run_dir, name) and member_problem(run_dir, name) is None \
                and view_digest(run_dir, name) != entry["sha256"]:
            out.append(f"{name}: differs from what {STAMP_FILE} says was rendered (edited after the run); {AGAIN}")
    for name in VIEW_FILES:
        if not present(run_dir, name) or seen.get(name) != mine:
            continue  # absent, or rendered by another build: views_note says so
        problem = member_problem(run_dir, name)
        if problem is not None:
            out.append(f"{name}: {problem}")
        elif read_member(run_dir, name) != renderers[name]():
            out.append(f"{name}: differs from what the record renders (edited after the run); {AGAIN}")
    if present(run_dir, ALLURE_DIR) and seen.get(ALLURE_DIR) == mine:
        out.extend(_allure_problems(run_dir, record))
    return out


AGAIN = "`tablecert report RECORD --format all` renders the views again from the record"


def _allure_problems(run_dir: Path, record: Record) -> list[str]:
    if os.path.islink(run_dir / ALLURE_DIR) or not (run_dir / ALLURE_DIR).is_dir():
        return [f"{ALLURE_DIR}: {member_problem(run_dir, ALLURE_DIR) or 'not a folder'}"]
    found, problems = files_under(run_dir, ALLURE_DIR)
    with tempfile.TemporaryDirectory(prefix="tablecert-allure-") as tmp:
        fresh = Path(tmp) / ALLURE_DIR
        write_allure_results(record, run_dir, fresh, digest=record_digest(run_dir))
        expected = {p.relative_to(fresh).as_posix(): p.read_bytes() for p in sorted(fresh.rglob("*")) if p.is_file()}
    have = {rel.removeprefix(ALLURE_DIR + "/"): rel for rel in found}
    groups = {
        "not rendered from the record (added after the run)": sorted(set(have) - set(expected)),
        "missing (removed after the run)": sorted(set(expected) - set(have)),
        "different from what the record renders (edited after the run)":
            [n for n in sorted(set(expected) & set(have)) if read_member(run_dir, have[n]) != expected[n]],
    }
    for what, names in groups.items():
        if names:
            more = f" and {len(names) - 1} more" if len(names) > 1 else ""
            problems.append(f"{ALLURE_DIR}: {len(names)} file(s) {what}: {names[0]}{more}; {AGAIN}")
    return problems


def known_entries() -> Mapping[str, Any]:
    """Every name a run folder's top level may hold, and what it is (the rest is listed by
    ``verify`` as not part of the record, not checked)."""
    return {RECORD_FILE: "record", JOURNAL_FILE: "record", MANIFEST_FILE: "record", EVIDENCE_DIR: "record",
            SIGNATURE_FILE: "signature", ALLURE_DIR: "view", STAMP_FILE: "view", **dict.fromkeys(VIEW_FILES, "view")}
