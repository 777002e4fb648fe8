"""Where the checkout is: a module of its own so that a command can find it without loading the
suites' machinery (``tablecert --help`` imports only what building the parser needs)."""

from __future__ import annotations

import os
from pathlib import Path


def project_root() -> Path:
    """The checkout (or ``$TABLECERT_HOME``): where ``suites/``, ``fixtures/`` and profiles live."""
    env = os.environ.get("TABLECERT_HOME")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parents[1]
    if (here / "suites").is_dir():
        return here
    return Path.cwd()
