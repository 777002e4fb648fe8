"""What changed between two runs of the same product: cases whose verdict changed, measurements
whose value or outcome changed, cases only one run has.  Pure: two records in, changes out."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from harness.record.document import Record
from harness.record.model import PRODUCT_FIELDS, CaseResult


@dataclass(frozen=True)
class CaseChange:
    """One case that differs between run A and run B."""

    case_id: str
    before: str  # the verdict in A ("-" when A does not have the case)
    after: str  # the verdict in B ("-" when B does not have it)
    measurements: tuple[str, ...] = ()  # "name: A -> B" for each measurement that changed

    def lines(self) -> list[str]:
        head = f"{self.case_id}: {self.before} -> {self.after}" if self.before != self.after \
            else f"{self.case_id}: {self.after}, measurements changed"
        return [head, *(f"    {m}" for m in self.measurements)]


@dataclass
class RunDiff:
    a: str
    b: str
    changes: list[CaseChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def verdict_changes(self) -> list[CaseChange]:
        return [c for c in self.changes if c.before != c.after]


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)


def _measurements(case: CaseResult) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for m in case.measurements:
        key, n = m.name, 2
        while key in out:  # a name measured twice in one case: the second is "name #2"
            key, n = f"{m.name} #{n}", n + 1
        out[key] = (_shown(m.value) + (f" {m.unit}" if m.unit else ""), m.outcome)
    return out


def _outcome(measured: dict[str, tuple[str, str]], name: str) -> str:
    return measured[name][1] if name in measured else "not measured"


def product(record: Record) -> dict[str, dict[str, str]]:
    """role -> the identity fields that say which product it is (read at the start of the run)."""
    out = {}
    for role, pair in sorted(record.identities.items()):
        ident = pair.get("start") or pair.get("end")
        if ident is not None:
            out[role] = {f: str(getattr(ident, f)) for f in PRODUCT_FIELDS}
    return out


def diff_records(a: Record, b: Record, *, values: bool = False) -> RunDiff:
    """The cases of ``b`` that differ from ``a`` (verdict, or a measurement's outcome; with
    ``values`` also a measurement's value: timings measured on a host differ from run to run), in
    ``b``'s order, then the cases only ``a`` has."""
    out = RunDiff(a.run_id, b.run_id)
    if a.meta.profile_name != b.meta.profile_name:
        out.notes.append(f"the runs are of different profiles ({a.meta.profile_name}, {b.meta.profile_name})")
    pa, pb = product(a), product(b)
    for role in sorted(set(pa) | set(pb)):
        before, after = pa.get(role, {}), pb.get(role, {})
        changed = [f"{f} {before.get(f, '-')} -> {after.get(f, '-')}" for f in PRODUCT_FIELDS
                   if before.get(f) != after.get(f)]
        if changed:
            out.notes.append(f"{role}: {'; '.join(changed)}")
    cases_a = {c.case_id: c for c in a.cases}
    seen = set()
    for cb in b.cases:
        seen.add(cb.case_id)
        ca = cases_a.get(cb.case_id)
        if ca is None:
            out.changes.append(CaseChange(cb.case_id, "-", cb.verdict))
            continue
        ma, mb = _measurements(ca), _measurements(cb)
        moved = tuple(
            f"{name}: {ma[name][0] if name in ma else '-'} ({ma[name][1] if name in ma else 'not measured'}) -> "
            f"{mb[name][0] if name in mb else '-'} ({mb[name][1] if name in mb else 'not measured'})"
            for name in [*mb, *(n for n in ma if n not in mb)]
            if ((ma.get(name) != mb.get(name)) if values else (_outcome(ma, name) != _outcome(mb, name))))
        if ca.verdict != cb.verdict or moved:
            out.changes.append(CaseChange(cb.case_id, ca.verdict, cb.verdict, moved))
    out.changes += [CaseChange(c.case_id, c.verdict, "-") for c in a.cases if c.case_id not in seen]
    return out
