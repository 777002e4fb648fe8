"""Stacks found once, kept on disk for every later process running the same code.

Every process that loads the suites binds every case's ``given: {stack: ...}``, so each run's pytest
process (the main job's, every kill-matrix and variant job's) searched the same 19 stacks again:
about a third of a clause-selected job's CPU before its first case.  A search is deterministic for
its inputs (the seed fixes it) unless its deadline cuts it short, so what it proved is kept:

* a stack found, and a proof that no round gives the want (:class:`~harness.stackbuilder.Impossible`),
  are kept; a search that ran out of time is not (it may succeed on a quieter machine);
* the key is the search's inputs; the folder is named by a hash of every ``.py`` and ``.yaml`` file
  of the installed ``harness`` package, so a change to the oracle, the search or the catalogue
  starts a new folder and nothing found by other code is ever read;
* the folder is ``$TABLECERT_CACHE_DIR`` (``off`` keeps nothing), else ``$XDG_CACHE_HOME/tablecert``
  or ``~/.cache/tablecert``; a folder that cannot be written is not an error (the search runs).

Entries are written whole (a temporary file renamed into place), so parallel processes may race.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parents[1]


@functools.cache
def code_version() -> str:
    """A hash of the harness package's code and data (every ``.py`` and ``.yaml`` file)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".yaml")):
        digest.update(str(path.relative_to(PACKAGE)).encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def folder() -> Path | None:
    """Where this code's stacks are kept, or ``None`` when keeping is off."""
    chosen = os.environ.get("TABLECERT_CACHE_DIR", "")
    if chosen == "off":
        return None
    base = Path(chosen) if chosen else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tablecert"
    return base / "stacks" / code_version()


def key_of(*inputs: object) -> str:
    """The entry name of a search's inputs (their ``repr``: plain values and frozen dataclasses)."""
    return hashlib.sha256(repr(inputs).encode()).hexdigest()[:32]


def recall(key: str) -> dict[str, Any] | None:
    """The entry kept under ``key``, or ``None``."""
    where = folder()
    if where is None:
        return None
    try:
        entry = json.loads((where / f"{key}.json").read_text())
    except (OSError, ValueError):
        return None
    return entry if isinstance(entry, dict) else None


def keep(key: str, entry: dict[str, Any]) -> None:
    """Write ``entry`` under ``key`` (whole or not at all; a folder that cannot be written is skipped)."""
    where = folder()
    if where is None:
        return
    try:
        where.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=where, prefix=".entry-")
        with os.fdopen(fd, "w") as out:
            json.dump(entry, out)
        os.replace(tmp, where / f"{key}.json")
    except OSError:
        return
