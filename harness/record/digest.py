"""Canonical JSON, the record digest, and ``verify``: was anything edited after the run?

A regulator needs to know the evidence was not edited.  At ``finish`` the run directory gets:

* ``record.json``: the record as canonical JSON (sorted keys, no insignificant whitespace, UTF-8,
  no floats: money is integer cents, decimals are strings);
* ``record.sha256``: a manifest in ``sha256sum`` format listing ``record.json``, ``journal.jsonl``
  and every evidence file, so ``sha256sum -c record.sha256`` works without tablecert;
* the **record digest**: the SHA-256 of the manifest's bytes.  One hex string that covers the record
  and every evidence byte; the HTML report and the JUnit properties print it, so a signed report pins
  the exact record it describes (``tablecert verify --digest HEX``).

``verify`` also checks the record against itself (a case verdict against its measurements, the
overall verdict against the cases, ``record.json`` against the journal), which catches a verdict
edit even when the manifest was recomputed after the edit.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from harness.errors import InputError
from harness.record.model import OUTCOMES, jsonable

RECORD_FILE = "record.json"
JOURNAL_FILE = "journal.jsonl"
MANIFEST_FILE = "record.sha256"
EVIDENCE_DIR = "evidence"


def canonical_json(data: Any) -> bytes:
    """The one byte form of ``data``: sorted keys, compact separators, UTF-8; floats refused."""
    return json.dumps(
        jsonable(data, "record"), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


def manifest_text(run_dir: Path, evidence_paths: list[str]) -> str:
    """``sha256sum``-format lines for record.json, the journal and the evidence, in a fixed order."""
    names = [RECORD_FILE]
    if (run_dir / JOURNAL_FILE).exists():
        names.append(JOURNAL_FILE)
    names.extend(sorted(evidence_paths))
    return "".join(f"{sha256_file(run_dir / name)}  {name}\n" for name in names)


def write_manifest(run_dir: Path, evidence_paths: list[str]) -> str:
    """Write ``record.sha256`` and return the record digest (SHA-256 of the manifest bytes)."""
    text = manifest_text(run_dir, evidence_paths)
    (run_dir / MANIFEST_FILE).write_bytes(text.encode("utf-8"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def record_digest(run_dir: Path) -> str | None:
    """The digest of a finished record (``None`` when there is no manifest yet)."""
    path = run_dir / MANIFEST_FILE
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


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


def run_dir_of(target: Path) -> Path:
    """The run directory named by a path to it, to its record.json or to its journal."""
    if target.is_dir():
        return target
    if target.is_file():
        return target.parent
    raise InputError(f"{target}: no such record (give a run directory, its record.json or journal.jsonl)")


def _confined(run_dir: Path, rel: str) -> bool:
    """``rel`` names a file inside ``run_dir`` with no symlink on the way out of it."""
    root = os.path.realpath(run_dir)
    return os.path.realpath(run_dir / rel).startswith(root + os.sep)


def verify(record_dir: Path, expected_digest: str | None = None) -> list[str]:
    """Every problem that makes the record untrustworthy; an empty list means it verified.

    Raises :class:`InputError` when ``record_dir`` holds no readable record at all, or a record or
    journal of the wrong shape (checked field by field before anything in it is trusted).

    What the record format requires, and ``verify`` demands: ``record.json`` (canonical), the
    journal it was written from, the manifest ``record.sha256`` listing exactly those two files and
    every evidence file in the order tablecert writes it, each hash matching; every evidence file
    inside the run folder (no ``..``, no symlink out), present and listed; no evidence file the
    record does not name; and ``record.json`` saying exactly what the journal says, fact by fact and
    in the same order.
    """
    from harness.record.journal import load_journal, load_record

    run_dir = run_dir_of(Path(record_dir))
    record = load_record(run_dir)
    problems: list[str] = []
    if not record.complete:
        problems.append(
            f"the record is incomplete (the run did not finish; {len(record.cases)} finished case(s))"
        )
    record_path = run_dir / RECORD_FILE
    journal_path = run_dir / JOURNAL_FILE
    manifest_path = run_dir / MANIFEST_FILE
    for path in (record_path, journal_path, manifest_path):
        if path.is_symlink():
            problems.append(f"{path.name}: a symlink, not the file itself")
    if record.complete and not record_path.exists():
        problems.append(f"{RECORD_FILE}: missing")
    if record.complete and not journal_path.exists():
        problems.append(f"{JOURNAL_FILE}: missing (every record keeps the journal it was written from)")
    if record_path.exists():
        raw = record_path.read_bytes()
        if canonical_json(json.loads(raw)) != raw:
            problems.append(f"{RECORD_FILE}: not in canonical form (rewritten after the run)")
    recorded: dict[str, str] = {}
    for case in record.cases:
        for ev in case.evidence:
            if ev.path in recorded:
                problems.append(f"{ev.path}: named twice in the record")
            recorded[ev.path] = ev.sha256
    entries: dict[str, str] = {}
    if not manifest_path.exists():
        if record.complete:
            problems.append(f"{MANIFEST_FILE}: missing")
    else:
        text = manifest_path.read_text("utf-8", errors="replace")
        entries, bad = _parse_manifest(text)
        problems.extend(bad)
        required = [RECORD_FILE, JOURNAL_FILE, *sorted(recorded)]
        for name in required:
            if name not in entries:
                problems.append(f"{MANIFEST_FILE}: does not list {name}, which the record format requires")
        for name in (RECORD_FILE, JOURNAL_FILE):
            if name in entries and (run_dir / name).is_file() and sha256_file(run_dir / name) != entries[name]:
                problems.append(f"{name}: SHA-256 differs from {MANIFEST_FILE} (edited after the run)")
        for name in entries:
            if name not in required:
                problems.append(f"{MANIFEST_FILE}: lists {name}, which the record does not")
        listed = [line.partition("  ")[2] for line in text.splitlines()]
        if not bad and set(listed) == set(required) and listed != required:
            problems.append(f"{MANIFEST_FILE}: lines are not in the order tablecert writes them (reordered)")
        if len(listed) != len(set(listed)):
            problems.append(f"{MANIFEST_FILE}: a file is listed twice")
        if expected_digest is not None:
            actual = record_digest(run_dir)
            if actual != expected_digest.strip().lower():
                problems.append(f"record digest {actual} is not the expected {expected_digest}")

    # evidence: every recorded file inside the run folder, present with its hash, none unaccounted for
    for case in record.cases:
        for ev in case.evidence:
            if not _confined(run_dir, ev.path):
                problems.append(f"{ev.path}: outside the run folder (case {case.case_id})")
                continue
            path = run_dir / ev.path
            if path.is_symlink() or not path.is_file():
                problems.append(f"{ev.path}: evidence file missing (case {case.case_id})")
            elif sha256_file(path) != ev.sha256:
                problems.append(f"{ev.path}: SHA-256 differs from the record (case {case.case_id})")
            if ev.path in entries and entries[ev.path] != ev.sha256:
                problems.append(f"{ev.path}: SHA-256 in {MANIFEST_FILE} differs from the record")
    evidence_root = run_dir / EVIDENCE_DIR
    if record.complete and evidence_root.is_dir():
        for path in sorted(evidence_root.rglob("*")):
            rel = path.relative_to(run_dir).as_posix()
            if (path.is_file() or path.is_symlink()) and rel not in recorded:
                problems.append(f"{rel}: extra file, not in the record")

    problems.extend(consistency_problems(record))
    if record_path.exists() and journal_path.is_file():
        journal = load_journal(journal_path)
        problems.extend(_journal_differences(record, journal))
    return problems


def _journal_differences(stored: Any, journal: Any) -> list[str]:
    """Where ``record.json`` says something the journal does not: case by case and in order, then
    every other fact (run, harness, inputs, profile, interpretations, identities, merge sources)."""
    problems: list[str] = []
    if stored.run_id != journal.run_id:
        return [f"{RECORD_FILE} is of run {stored.run_id} but {JOURNAL_FILE} of run {journal.run_id} "
                "(the journal was replaced)"]
    s_cases = [c.to_dict() for c in stored.cases]
    j_cases = [c.to_dict() for c in journal.cases]
    by_id = {c["case_id"]: c for c in j_cases}
    for case in s_cases:
        if by_id.get(case["case_id"]) != case:
            problems.append(f"case {case['case_id']}: {RECORD_FILE} differs from {JOURNAL_FILE}")
    for case_id in sorted(set(by_id) - {c["case_id"] for c in s_cases}):
        problems.append(f"case {case_id}: {RECORD_FILE} differs from {JOURNAL_FILE}")
    if not problems and s_cases != j_cases:
        problems.append(f"cases: {RECORD_FILE} lists them in another order than {JOURNAL_FILE} (reordered)")
    s_all, j_all = stored.to_dict(), journal.to_dict()
    for key in sorted(set(s_all) | set(j_all)):
        if key in ("cases", "notes", "counts", "verdict", "verdict_reasons", "identity_changed"):
            continue
        if s_all.get(key) != j_all.get(key):
            problems.append(f"{key}: {RECORD_FILE} differs from {JOURNAL_FILE}")
    return problems


def consistency_problems(record: Any) -> list[str]:
    """Verdicts that do not follow from what the record says happened."""
    problems: list[str] = []
    for case in record.cases:
        bad = [m.name for m in case.measurements if m.outcome not in ("PASS", "SKIP")]
        bad += [f"step {s.index}" for s in case.steps if s.outcome not in ("PASS", "SKIP")]
        if case.verdict == "PASS" and bad:
            problems.append(f"case {case.case_id}: verdict PASS but {', '.join(bad)} did not pass")
        if case.verdict not in OUTCOMES:
            problems.append(f"case {case.case_id}: unknown verdict {case.verdict!r}")
    from harness.record.sittings import sitting_problems

    problems.extend(sitting_problems(record))
    derived, _ = record.derived_verdict()
    if record.stored_verdict is not None and record.stored_verdict != derived:
        problems.append(f"overall verdict {record.stored_verdict} does not follow from the cases ({derived})")
    return problems
