"""Clause text for the report views, from the regulation catalogue when it is available.

The record stores clause ids only; what the regulation says is looked up at render time in
``harness.regulations.catalogue``.  When the catalogue (or a clause in it) is missing, the views fall
back to the bare id rather than failing: a report must always render.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from harness.regulations.catalogue import load_catalogue


@dataclass(frozen=True)
class ClauseInfo:
    id: str
    citation: str
    text: str


@lru_cache(maxsize=1)
def _catalogue() -> Any:
    try:
        return load_catalogue()
    except Exception:  # the catalogue is optional for rendering; any failure means "ids only"
        return None


def clause_info(clause_id: str) -> ClauseInfo:
    """Citation and text of a clause, or the id itself when the catalogue does not know it."""
    cat = _catalogue()
    if cat is not None:
        try:
            clause = cat.clause(clause_id)
            return ClauseInfo(clause_id, str(clause.citation or ""), str(clause.text or ""))
        except Exception:  # unknown id or a catalogue without that shape: fall back to the id
            pass
    return ClauseInfo(clause_id, "", "")
