"""``record.json`` must say exactly what its journal says: every field, recomputed and compared.

The journal is what the run wrote while it went, one fsync'ed line per fact; ``record.json`` is
written from it at ``finish``.  So the record of a run is fully determined by its journal: replay
the journal (:func:`harness.record.journal.load_journal`), render it the way ``finish`` does
(:meth:`Record.to_dict`), and the canonical bytes must be ``record.json``'s.  This covers every
field at once, those the journal carries (run, harness and git state, meta, inputs with their
SHA-256, profile, interpretations, identities, cases, merge sources, bench) and those derived from
them (``counts``, ``verdict``, ``verdict_reasons``, ``identity_changed``, ``notes``): a count, a
reason, a planted note or an identity change edited into ``record.json`` alone is caught even when
the manifest was recomputed.  A field added to the record later is covered without a change here,
as long as the journal carries it.

When the bytes differ, :func:`journal_disagreements` names what differs: each case (by id, then
the order), then each other field with both values shortened.
"""

from __future__ import annotations

import json
from typing import Any

from harness.record.digest import JOURNAL_FILE, RECORD_FILE, canonical_json

#: the fields ``finish`` derives from the others (an edit of one is "does not follow")
DERIVED = ("counts", "verdict", "verdict_reasons", "identity_changed")
_SHOWN = 120


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def journal_disagreements(stored: Any, journal: Any) -> list[str]:
    """Every difference between ``stored`` (the parsed ``record.json``) and the record the journal
    replays to (a :class:`~harness.record.document.Record`); an empty list when they agree."""
    expected = journal.to_dict()
    if canonical_json(expected) == canonical_json(stored):
        return []
    if not isinstance(stored, dict):
        return [f"{RECORD_FILE} is not the record its {JOURNAL_FILE} gives"]
    if stored.get("run_id") != expected["run_id"]:
        return [f"{RECORD_FILE} is of run {str(stored.get('run_id'))[:80]} but {JOURNAL_FILE} of run "
                f"{expected['run_id']} (the journal was replaced)"]
    problems = _case_disagreements(stored.get("cases"), expected["cases"])
    for key in sorted(set(stored) | set(expected)):
        if key == "cases" or stored.get(key) == expected.get(key):
            continue
        said, given = _short(stored.get(key)), _short(expected.get(key))
        if key in DERIVED:
            problems.append(f"{key}: {RECORD_FILE} says {said}, which does not follow from the cases and "
                            f"identities of {JOURNAL_FILE} ({given})")
        else:
            problems.append(f"{key}: {RECORD_FILE} says {said} but {JOURNAL_FILE} says {given}")
    return problems or [f"{RECORD_FILE} differs from the record its {JOURNAL_FILE} gives"]


def _case_disagreements(stored: Any, expected: list[dict[str, Any]]) -> list[str]:
    if not isinstance(stored, list):
        return [f"cases: {RECORD_FILE} differs from {JOURNAL_FILE}"]
    problems: list[str] = []
    by_id = {c["case_id"]: c for c in expected}
    stored_ids = {c.get("case_id") for c in stored if isinstance(c, dict)}
    for case in stored:
        case_id = case.get("case_id") if isinstance(case, dict) else None
        if by_id.get(str(case_id)) != case:
            fields = sorted(k for k in set(case) | set(by_id.get(str(case_id), {}))
                            if case.get(k) != by_id.get(str(case_id), {}).get(k)) if isinstance(case, dict) else []
            which = f" ({', '.join(fields)})" if str(case_id) in by_id and fields else " (not in the journal)"
            problems.append(f"case {case_id}: {RECORD_FILE} differs from {JOURNAL_FILE}{which}")
    for case_id in sorted(set(by_id) - stored_ids):
        problems.append(f"case {case_id}: in {JOURNAL_FILE} but not in {RECORD_FILE}")
    if not problems and stored != expected:
        problems.append(f"cases: {RECORD_FILE} lists them in another order than {JOURNAL_FILE} (reordered)")
    return problems
