"""``verify``: was anything edited after the run?

``verify`` checks a run folder against its digest manifest (:mod:`harness.record.digest`), every
evidence file against its hash, and the record against itself (a case verdict against its
measurements, the overall verdict against the cases, ``record.json`` against the journal), which
catches a verdict edit even when the manifest was recomputed after the edit; then each view against
what the record renders to.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from harness.record.check import parse_json
from harness.record.digest import (
    EVIDENCE_DIR,
    JOURNAL_FILE,
    MANIFEST_FILE,
    RECORD_FILE,
    canonical_json,
    record_digest,
    run_dir_of,
)
from harness.record.folder import files_under, member_problem, read_member, sha256_member
from harness.record.journal_agreement import journal_disagreements
from harness.record.model import OUTCOMES
from harness.record.replay import load_journal, load_record
from harness.record.sittings import sitting_problems
from harness.record.views import view_problems
from harness.verdict import Verdict


def _parse_manifest(text: str) -> tuple[dict[str, str], list[str]]:
    entries: dict[str, str] = {}
    problems: list[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        digest, sep, name = line.partition("  ")
        if not sep or len(digest) != 64 or not name:
            problems.append(f"{MANIFEST_FILE}:{n}: malformed line")
            continue
        entries[name] = digest
    return entries, problems


def _confined(run_dir: Path, rel: str) -> bool:
    """``rel`` names a file inside ``run_dir`` with no symlink on the way out of it."""
    root = os.path.realpath(run_dir)
    return os.path.realpath(run_dir / rel).startswith(root + os.sep)


#: how ``verify`` begins the problem of a run that did not finish (``tablecert verify`` exits 3 for it)
INCOMPLETE = "the record is incomplete"


def verify(record_dir: Path, expected_digest: str | None = None, *, views: bool = True) -> list[str]:
    """Every problem that makes the record untrustworthy; an empty list means it verified.

    Raises :class:`InputError` when ``record_dir`` holds no readable record at all, or a record or
    journal of the wrong shape (checked field by field before anything in it is trusted).

    What the record format requires, and ``verify`` demands: the folder named by the run id;
    ``record.json`` (canonical), the journal it was written from, the manifest ``record.sha256``
    listing exactly those two files and every evidence file in the order tablecert writes it, each
    hash matching; each of them, and every evidence file, a regular file inside the run folder (no
    ``..``, no symlink, no FIFO or directory in its place), present and listed; no evidence file the
    record does not name; ``record.json`` saying exactly what the journal says, every field
    (:mod:`harness.record.journal_agreement`); and, with ``views``, each view in the folder exactly what the
    record renders to (:func:`harness.record.views.view_problems`).
    """
    run_dir = run_dir_of(Path(record_dir))
    record = load_record(run_dir)
    problems: list[str] = []
    if not record.complete:
        problems.append(f"{INCOMPLETE} (the run did not finish; {len(record.cases)} finished case(s))")
    state = {name: member_problem(run_dir, name) for name in (RECORD_FILE, JOURNAL_FILE, MANIFEST_FILE)}
    for name, problem in state.items():
        if problem not in (None, "missing"):
            problems.append(f"{name}: {problem}: the record format requires the file itself")
    if record.complete and state[RECORD_FILE] == "missing":
        problems.append(f"{RECORD_FILE}: missing")
    if record.complete and state[JOURNAL_FILE] == "missing":
        problems.append(f"{JOURNAL_FILE}: missing (every record keeps the journal it was written from)")
    stored: Any = None
    if state[RECORD_FILE] is None:
        raw = read_member(run_dir, RECORD_FILE)
        stored = parse_json(raw, str(run_dir / RECORD_FILE), 1)
        if canonical_json(stored) != raw:
            problems.append(f"{RECORD_FILE}: not in canonical form (rewritten after the run)")
    recorded: dict[str, str] = {}
    for case in record.cases:
        for ev in case.evidence:
            if ev.path in recorded:
                problems.append(f"{ev.path}: named twice in the record")
            recorded[ev.path] = ev.sha256
    entries = _manifest_problems(run_dir, record, recorded, state, problems)
    problems.extend(_evidence_problems(run_dir, record, recorded, entries))
    problems.extend(consistency_problems(record))
    if stored is not None and state[JOURNAL_FILE] is None:
        problems.extend(journal_disagreements(stored, load_journal(run_dir / JOURNAL_FILE)))
    if views and not problems:  # the views of a record that verified must be what it renders to
        problems.extend(view_problems(run_dir, record))
    if expected_digest is not None:
        actual = record_digest(run_dir)
        if actual != expected_digest.strip().lower():
            problems.append(f"record digest {actual} is not the expected {expected_digest}")
    return problems


def _manifest_problems(run_dir: Path, record: Any, recorded: dict[str, str], state: dict[str, str | None],
                       problems: list[str]) -> dict[str, str]:
    """Check ``record.sha256`` (appending to ``problems``); return its entries."""
    if state[MANIFEST_FILE] is not None:
        if state[MANIFEST_FILE] == "missing" and record.complete:
            problems.append(f"{MANIFEST_FILE}: missing")
        return {}
    text = read_member(run_dir, MANIFEST_FILE).decode("utf-8", errors="replace")
    entries, bad = _parse_manifest(text)
    problems.extend(bad)
    required = [RECORD_FILE, JOURNAL_FILE, *sorted(recorded)]
    for name in required:
        if name not in entries:
            problems.append(f"{MANIFEST_FILE}: does not list {name}, which the record format requires")
    for name in (RECORD_FILE, JOURNAL_FILE):
        if name in entries and state[name] is None and sha256_member(run_dir, name) != entries[name]:
            problems.append(f"{name}: SHA-256 differs from {MANIFEST_FILE} (edited after the run)")
    for name in entries:
        if name not in required:
            problems.append(f"{MANIFEST_FILE}: lists {name}, which the record does not")
    listed = [line.partition("  ")[2] for line in text.splitlines()]
    if not bad and set(listed) == set(required) and listed != required:
        problems.append(f"{MANIFEST_FILE}: lines are not in the order tablecert writes them (reordered)")
    if len(listed) != len(set(listed)):
        problems.append(f"{MANIFEST_FILE}: a file is listed twice")
    return entries


def _evidence_problems(run_dir: Path, record: Any, recorded: dict[str, str], entries: dict[str, str]) -> list[str]:
    """Every recorded evidence file a regular file inside the run folder, present with its hash;
    none unaccounted for."""
    problems: list[str] = []
    for case in record.cases:
        for ev in case.evidence:
            if not _confined(run_dir, ev.path):
                problems.append(f"{ev.path}: outside the run folder (case {case.case_id})")
                continue
            problem = member_problem(run_dir, ev.path)
            if problem == "missing":
                problems.append(f"{ev.path}: evidence file missing (case {case.case_id})")
            elif problem is not None:
                problems.append(f"{ev.path}: {problem} (case {case.case_id})")
            elif ev.size and os.lstat(run_dir / ev.path).st_size != ev.size:  # sizes first: never hash a huge file
                problems.append(f"{ev.path}: SHA-256 differs from the record (case {case.case_id}): it has "
                                f"{os.lstat(run_dir / ev.path).st_size} bytes, the record says {ev.size}")
            elif sha256_member(run_dir, ev.path) != ev.sha256:
                problems.append(f"{ev.path}: SHA-256 differs from the record (case {case.case_id})")
            if ev.path in entries and entries[ev.path] != ev.sha256:
                problems.append(f"{ev.path}: SHA-256 in {MANIFEST_FILE} differs from the record")
    evidence_root = run_dir / EVIDENCE_DIR
    if record.complete and os.path.lexists(evidence_root):
        if evidence_root.is_symlink() or not evidence_root.is_dir():
            problems.append(f"{EVIDENCE_DIR}: {member_problem(run_dir, EVIDENCE_DIR) or 'not a folder'}")
        else:
            files, odd = files_under(run_dir, EVIDENCE_DIR)
            problems.extend(p for p in odd if p.partition(":")[0] not in recorded)
            problems.extend(f"{rel}: extra file, not in the record" for rel in files if rel not in recorded)
    return problems


def consistency_problems(record: Any) -> list[str]:
    """Verdicts that do not follow from what the record says happened."""
    problems: list[str] = []
    for case in record.cases:
        bad = [m.name for m in case.measurements if m.outcome not in (Verdict.PASS, Verdict.SKIP)]
        bad += [f"step {s.index}" for s in case.steps if s.outcome not in (Verdict.PASS, Verdict.SKIP)]
        if case.verdict == Verdict.PASS and bad:
            problems.append(f"case {case.case_id}: verdict PASS but {', '.join(bad)} did not pass")
        if case.verdict not in OUTCOMES:
            problems.append(f"case {case.case_id}: unknown verdict {case.verdict!r}")
    problems.extend(sitting_problems(record))
    derived, _ = record.derived_verdict()
    if record.stored_verdict is not None and record.stored_verdict != derived:
        problems.append(f"overall verdict {record.stored_verdict} does not follow from the cases ({derived})")
    return problems
