"""Where the checkout is, and file-safe names: a module of its own so that a command can find
them without loading the suites' machinery or the record (``tablecert --help`` imports only what
building the parser needs)."""

from __future__ import annotations

import os
import re
from pathlib import Path

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def project_root() -> Path:
    """The checkout (or ``$TABLECERT_HOME``): where ``suites/``, ``fixtures/`` and profiles live."""
    env = os.environ.get("TABLECERT_HOME")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parents[1]
    if (here / "suites").is_dir():
        return here
    return Path.cwd()


def safe_name(text: str, fallback: str = "item") -> str:
    """``text`` as a file name: runs of anything but ASCII letters, digits, ``.``, ``_`` and ``-``
    made one ``_``, no leading or trailing dot or underscore (``fallback`` if nothing is left), at
    most 80 characters (a run id, an evidence file, a case's anchor in the report)."""
    name = _SAFE.sub("_", text).strip("._") or fallback
    return name[:80]
