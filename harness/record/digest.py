"""Canonical JSON and the record digest: the hashing of a record, with no record type behind it.

A regulator needs to know the evidence was not edited.  At ``finish`` the run directory gets:

* ``record.json``: the record as canonical JSON (sorted keys, no insignificant whitespace, UTF-8,
  no floats: money is integer cents, decimals are strings);
* ``record.sha256``: a manifest in ``sha256sum`` format listing ``record.json``, ``journal.jsonl``
  and every evidence file, so ``sha256sum -c record.sha256`` works without tablecert;
* the **record digest**: the SHA-256 of the manifest's bytes.  One hex string that covers the record
  and every evidence byte; the HTML report and the JUnit properties print it, so a signed report pins
  the exact record it describes (``tablecert verify --digest HEX``).

:func:`harness.record.verification.verify` checks a folder against its manifest, and the record
against itself.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from harness.errors import InputError
from harness.record.atomic import write_atomic
from harness.record.folder import member_problem, read_member
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
    write_atomic(run_dir / MANIFEST_FILE, text.encode("utf-8"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def record_digest(run_dir: Path) -> str | None:
    """The digest of a finished record (``None`` when there is no manifest yet, or what is there in
    its place is not a regular file: it is never opened)."""
    if member_problem(run_dir, MANIFEST_FILE) is not None:
        return None
    return hashlib.sha256(read_member(run_dir, MANIFEST_FILE)).hexdigest()


def run_dir_of(target: Path) -> Path:
    """The run directory named by a path to it, to its record.json or to its journal."""
    target = Path(target)
    if target.is_dir():
        return target
    if target.is_file() and target.name in (RECORD_FILE, JOURNAL_FILE):
        return target.parent
    if target.is_file():
        raise InputError(f"{target}: a file, not a record: give a run directory, its {RECORD_FILE} or its "
                         f"{JOURNAL_FILE}")
    if os.path.lexists(target):
        raise InputError(f"{target}: not a record (neither a folder nor a regular file)")
    raise InputError(f"{target}: no such record (give a run directory, its record.json or journal.jsonl)")
