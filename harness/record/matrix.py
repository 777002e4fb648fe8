"""The clause-by-clause matrix: every catalogue clause in scope for the profile, with a status.

A regulator reads a report clause by clause, so the matrix lists *every* clause of the catalogue in
scope for the record's profile (its jurisdiction and game, see the catalogue's ``scope:``), not only
the clauses some case happened to touch.  Each row has one status:

============== =====================================================================================
PASS           every case citing the clause that ran under its conditions passed
FAIL           a case citing it failed (a compliance failure)
ERROR          a case citing it ended in a rig error or timed out, none failed
INCONCLUSIVE   a statistical case citing it had too few observations, none failed or erred
NOT RUN        testable here, but no case citing it ran to a verdict (not selected, skipped,
               interrupted, or no case cites it), with the reason
NOT APPLICABLE the clause, or every case citing it, does not apply to the profile (a capability it
               does not offer, another denomination, another interpretation in force), with reasons
OUT OF SCOPE   not testable on a device (the catalogue's reason: a filing, a layout, a procedure)
============== =====================================================================================

A clause is credited only by cases that ran under its conditions: a case run at a $5 table that also
cites a $1 clause does not make the $1 clause PASS (it is NOT APPLICABLE there).  The jurisdictions in
scope are the profile's (``jurisdiction:``; a profile naming none: those of the clauses of every
case that ran); the standards cited are the catalogue's sources of the clauses tested.  Pure: the
record and the catalogue in, rows out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.record.document import Record
from harness.record.model import CaseResult
from harness.regulations.catalogue import load_catalogue
from harness.verdict import Verdict

#: case verdicts that reached a verdict on the device (a clause can be credited by them)
RAN = (Verdict.PASS, Verdict.FAIL, Verdict.ERROR, Verdict.TIMEOUT, Verdict.INCONCLUSIVE)
#: matrix statuses, most severe first
STATUSES = (Verdict.FAIL, Verdict.ERROR, Verdict.INCONCLUSIVE, Verdict.NOT_RUN, Verdict.PASS, Verdict.NOT_APPLICABLE,
            "OUT OF SCOPE")


@dataclass(frozen=True)
class CaseRef:
    case_id: str
    verdict: str
    #: False: the case ran but the clause's own conditions do not hold at this table
    credited: bool


@dataclass(frozen=True)
class ClauseRow:
    clause_id: str
    citation: str
    text: str
    area: str
    status: str
    reason: str = ""
    cases: tuple[CaseRef, ...] = ()


@dataclass
class ClauseMatrix:
    rows: list[ClauseRow]
    jurisdictions: list[str]
    game: str
    #: catalogue source titles of the clauses in scope, with the sections they contain
    standards: list[str]
    #: clauses of other jurisdictions or games (not listed)
    outside: int = 0
    #: clause ids cited by cases but unknown to the catalogue
    unknown: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(STATUSES, 0)
        for row in self.rows:
            out[row.status] += 1
        return out


def _profile_facts(record: Record) -> tuple[str, frozenset[str], frozenset[str], int | None]:
    p: Mapping[str, Any] = record.profile or {}
    game = str(p.get("game") or record.meta.game or "")
    written = p.get("jurisdiction") or record.meta.jurisdiction or ""
    listed = written if isinstance(written, list) else str(written).split(",")
    jurisdictions = frozenset(str(j).strip() for j in listed if str(j).strip())
    caps = p.get("capabilities") or []
    capabilities = frozenset(str(c) for c in caps) if isinstance(caps, list) else frozenset()
    rules = p.get("rules") if isinstance(p.get("rules"), Mapping) else {}
    den = rules.get("denomination") if isinstance(rules, Mapping) else None
    denomination = den if isinstance(den, int) and not isinstance(den, bool) else None
    return game, jurisdictions, capabilities, denomination


def _dedupe(reasons: Iterable[str]) -> str:
    out = list(dict.fromkeys(r.strip() for r in reasons if r and r.strip()))
    return "; ".join(out)


def _first_line(text: str | None) -> str:
    return (text or "").strip().splitlines()[0] if (text or "").strip() else ""


_SECTION = re.compile(r"\b(\d{3}a\.\d+)")


def _standards(cat: Any, rows: list[ClauseRow]) -> list[str]:
    """The catalogue sources of the clauses tested here (in scope, neither OUT OF SCOPE nor NOT
    APPLICABLE), each with the sections (e.g. 461a.12) those clauses come from."""
    sections: dict[str, dict[str, None]] = {}
    for row in rows:
        if row.status in ("OUT OF SCOPE", Verdict.NOT_APPLICABLE):
            continue
        clause = cat.clause(row.clause_id)
        found = sections.setdefault(clause.source, {})
        for sec in _SECTION.findall(clause.citation):
            found[sec] = None
    out = []
    for source, secs in sections.items():
        title = cat.sources.get(source, source)
        listed = ", ".join(sorted(secs, key=_section_key))
        out.append(f"{title}" + (f" (§§ {listed})" if listed else ""))
    return out


def _section_key(section: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", section))


def build_matrix(record: Record, catalogue: Any | None = None) -> ClauseMatrix:
    """The matrix of ``record`` (catalogue: the packaged one unless given)."""
    if catalogue is None:
        catalogue = load_catalogue()
    game, named, capabilities, denomination = _profile_facts(record)
    citing: dict[str, list[CaseResult]] = {}
    for case in record.cases:
        for cid in case.clauses:
            citing.setdefault(cid, []).append(case)
    unknown = sorted(cid for cid in citing if not catalogue.has(cid))
    # the profile's jurisdictions; a profile naming none is certified for those of the cases that ran
    jurisdictions = set(named)
    if not jurisdictions:
        for case in record.cases:
            if case.verdict in RAN:
                jurisdictions |= {catalogue.applies(c).jurisdiction for c in case.clauses if catalogue.has(c)}
    jurisdictions.discard("")
    scope = frozenset(jurisdictions)
    rows: list[ClauseRow] = []
    outside = 0
    for clause in catalogue.clauses:
        applies = catalogue.applies(clause.id)
        if not applies.in_scope(scope, game):
            outside += 1
            continue
        cases = citing.get(clause.id, [])
        rows.append(_row(clause, applies.not_applicable(capabilities, denomination), cases))
    return ClauseMatrix(rows, sorted(scope), game, _standards(catalogue, rows), outside, unknown)


def _row(clause: Any, not_applicable: str | None, cases: list[CaseResult]) -> ClauseRow:
    credited = not_applicable is None
    refs = tuple(CaseRef(c.case_id, c.verdict, credited and c.verdict in RAN) for c in cases)
    base = {"clause_id": clause.id, "citation": clause.citation, "text": clause.text, "area": clause.area,
            "cases": refs}
    if not_applicable is not None:
        return ClauseRow(**base, status=Verdict.NOT_APPLICABLE, reason=not_applicable)
    if not clause.testable:
        return ClauseRow(**base, status="OUT OF SCOPE", reason=str(clause.out_of_scope or ""))
    verdicts = [c.verdict for c in cases]
    ran = [c for c in cases if c.verdict in RAN]
    unrun = [c for c in cases if c.verdict not in RAN and c.verdict != Verdict.NOT_APPLICABLE]
    if Verdict.FAIL in verdicts:
        n = verdicts.count(Verdict.FAIL)
        return ClauseRow(**base, status=Verdict.FAIL, reason=f"{n} of {len(ran)} case(s) failed")
    if Verdict.ERROR in verdicts or Verdict.TIMEOUT in verdicts:
        bad = [c for c in cases if c.verdict in (Verdict.ERROR, Verdict.TIMEOUT)]
        return ClauseRow(**base, status=Verdict.ERROR, reason=_dedupe(_first_line(c.message) for c in bad))
    if Verdict.INCONCLUSIVE in verdicts:
        return ClauseRow(**base, status=Verdict.INCONCLUSIVE, reason="too few observations for the planned power")
    if unrun:
        why = _dedupe(f"{c.verdict}: {_first_line(c.message)}" for c in unrun)
        lead = f"{len(unrun)} of {len(unrun) + len(ran)} case(s) did not run" if ran else "no case ran"
        return ClauseRow(**base, status=Verdict.NOT_RUN, reason=f"{lead} ({why})")
    if ran:
        return ClauseRow(**base, status=Verdict.PASS, reason="")
    if cases:  # every case citing it is NOT APPLICABLE
        return ClauseRow(**base, status=Verdict.NOT_APPLICABLE, reason=_dedupe(c.message or "" for c in cases))
    return ClauseRow(**base, status=Verdict.NOT_RUN, reason="no case citing this clause was selected for this run")
