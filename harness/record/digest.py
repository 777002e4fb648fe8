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
from pathlib import Path
from typing import Any

from harness.errors import InputError
from harness.record.model import jsonable

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


def verify(record_dir: Path, expected_digest: str | None = None) -> list[str]:
    """Every problem that makes the record untrustworthy; an empty list means it verified.

    Raises :class:`InputError` when ``record_dir`` holds no readable record at all.
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
    manifest_path = run_dir / MANIFEST_FILE
    if record.complete and not record_path.exists():
        problems.append(f"{RECORD_FILE}: missing")
    if record_path.exists():
        raw = record_path.read_bytes()
        if canonical_json(json.loads(raw)) != raw:
            problems.append(f"{RECORD_FILE}: not in canonical form (rewritten after the run)")
    entries: dict[str, str] = {}
    if not manifest_path.exists():
        if record.complete:
            problems.append(f"{MANIFEST_FILE}: missing")
    else:
        entries, bad = _parse_manifest(manifest_path.read_text("utf-8", errors="replace"))
        problems.extend(bad)
        for name in (RECORD_FILE, JOURNAL_FILE):
            if name in entries and (run_dir / name).exists() and sha256_file(run_dir / name) != entries[name]:
                problems.append(f"{name}: SHA-256 differs from {MANIFEST_FILE} (edited after the run)")
        if RECORD_FILE not in entries:
            problems.append(f"{MANIFEST_FILE}: does not list {RECORD_FILE}")
        if expected_digest is not None:
            actual = record_digest(run_dir)
            if actual != expected_digest.strip().lower():
                problems.append(f"record digest {actual} is not the expected {expected_digest}")

    # evidence: every recorded file present with its hash, no file unaccounted for
    recorded: dict[str, str] = {}
    for case in record.cases:
        for ev in case.evidence:
            recorded[ev.path] = ev.sha256
            path = run_dir / ev.path
            if not path.is_file():
                problems.append(f"{ev.path}: evidence file missing (case {case.case_id})")
            elif sha256_file(path) != ev.sha256:
                problems.append(f"{ev.path}: SHA-256 differs from the record (case {case.case_id})")
            if entries and entries.get(ev.path, ev.sha256) != ev.sha256:
                problems.append(f"{ev.path}: SHA-256 in {MANIFEST_FILE} differs from the record")
    evidence_root = run_dir / EVIDENCE_DIR
    if record.complete and evidence_root.is_dir():
        for path in sorted(evidence_root.rglob("*")):
            rel = path.relative_to(run_dir).as_posix()
            if path.is_file() and rel not in recorded:
                problems.append(f"{rel}: extra file, not in the record")
    for name in entries:
        if name not in (RECORD_FILE, JOURNAL_FILE) and name not in recorded:
            problems.append(f"{MANIFEST_FILE}: lists {name}, which the record does not")

    problems.extend(consistency_problems(record))
    if record_path.exists() and (run_dir / JOURNAL_FILE).exists():
        journal = load_journal(run_dir / JOURNAL_FILE)
        stored = {c.case_id: c.to_dict() for c in record.cases}
        logged = {c.case_id: c.to_dict() for c in journal.cases}
        for case_id in sorted(set(stored) | set(logged)):
            if stored.get(case_id) != logged.get(case_id):
                problems.append(f"case {case_id}: {RECORD_FILE} differs from {JOURNAL_FILE}")
    return problems


def consistency_problems(record: Any) -> list[str]:
    """Verdicts that do not follow from what the record says happened."""
    problems: list[str] = []
    for case in record.cases:
        bad = [m.name for m in case.measurements if m.outcome not in ("PASS", "SKIP")]
        bad += [f"step {s.index}" for s in case.steps if s.outcome not in ("PASS", "SKIP")]
        if case.verdict == "PASS" and bad:
            problems.append(f"case {case.case_id}: verdict PASS but {', '.join(bad)} did not pass")
        if case.verdict not in ("PASS", "FAIL", "ERROR", "TIMEOUT", "SKIP"):
            problems.append(f"case {case.case_id}: unknown verdict {case.verdict!r}")
    derived, _ = record.derived_verdict()
    if record.stored_verdict is not None and record.stored_verdict != derived:
        problems.append(f"overall verdict {record.stored_verdict} does not follow from the cases ({derived})")
    return problems
