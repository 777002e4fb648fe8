"""The whole record of one run, and the rules that derive its overall verdict.

The overall verdict is PASS only when the record is complete, at least one case ran, every case
that ran passed and no device's identity changed between the start and the end of the run (the
software checked before testing must be the software checked after it; 58 Pa. Code 607a.2(b)
fields).  A case NOT APPLICABLE to the profile is recorded with its reason and never makes a run
incomplete.  Precedence of the others: INTERRUPTED (the operator stopped the run) over FAIL (a
compliance failure or an identity change) over ERROR (a rig problem: ERROR or TIMEOUT, or no case
ran) over INCOMPLETE (unfinished run, skipped or inconclusive cases).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.record.model import (
    OUTCOMES,
    SCHEMA,
    SCHEMAS,
    CaseResult,
    Evidence,
    RecordedIdentity,
    RunMeta,
    Sitting,
    jsonable,
)
from harness.verdict import Verdict


@dataclass
class InputFile:
    """A suite, fixture or profile file the run used, by its SHA-256."""

    path: str
    kind: str
    sha256: str
    size: int

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "kind": self.kind, "sha256": self.sha256, "size": self.size}


@dataclass
class Record:
    """A run's certification record (see docs/record.md for every field)."""

    run_id: str
    started_at: str
    meta: RunMeta
    harness_version: str
    git_revision: str
    #: uncommitted changes in the harness checkout when the run started (None: not a checkout)
    git_dirty: bool | None = None
    finished_at: str | None = None
    complete: bool = False
    inputs: list[InputFile] = field(default_factory=list)
    profile: dict[str, Any] = field(default_factory=dict)
    interpretations: list[dict[str, Any]] = field(default_factory=list)
    identities: dict[str, dict[str, RecordedIdentity]] = field(default_factory=dict)
    cases: list[CaseResult] = field(default_factory=list)
    merged_from: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: the bench: who performed each act, the operator, the host-stamp jitter (harness.bench)
    bench: dict[str, Any] = field(default_factory=dict)
    #: the stretches of time the cases ran in (harness.record.sittings; one unless resumed)
    sittings: list[Sitting] = field(default_factory=list)
    schema: str = SCHEMA
    #: as stored in record.json; ``None`` until computed (see :meth:`derived_verdict`)
    stored_verdict: str | None = None
    #: the operator stopped the run (Ctrl-C, SIGTERM) before every selected case had run
    interrupted: bool = False
    #: the protocol contract: ``versions`` (role -> the version its device negotiated) and
    #: ``findings`` (each message kind a device sent outside it, once, with its fields;
    #: harness.record.contract_findings)
    contract: dict[str, Any] = field(default_factory=dict)

    # ---------------------------------------------------------------- derived facts
    def identity_changed(self) -> dict[str, list[str]]:
        """role -> identity fields that differ between the start and the end of the run."""
        out: dict[str, list[str]] = {}
        for role, pair in sorted(self.identities.items()):
            start, end = pair.get("start"), pair.get("end")
            if start is not None and end is not None:
                diff = start.differences(end)
                if diff:
                    out[role] = diff
        return out

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = dict.fromkeys(OUTCOMES, 0)
        for case in self.cases:
            counts[case.verdict] = counts.get(case.verdict, 0) + 1
        return counts

    def derived_verdict(self) -> tuple[str, list[str]]:
        """The overall verdict that follows from the record, with the reasons for it."""
        reasons: list[str] = []
        counts = self.counts()
        fail = counts[Verdict.FAIL] > 0
        if fail:
            reasons.append(f"{counts[Verdict.FAIL]} case(s) failed")
        changed = self.identity_changed()
        for role, fields in changed.items():
            fail = True
            reasons.append(f"{role} identity changed during the run: {', '.join(fields)}")
        error = counts[Verdict.ERROR] + counts[Verdict.TIMEOUT] > 0
        if error:
            reasons.append(f"{counts[Verdict.ERROR]} case(s) in error, {counts[Verdict.TIMEOUT]} timed out")
        if not any(c.verdict != Verdict.NOT_APPLICABLE for c in self.cases):
            error = True
            reasons.append("no case was run" if not self.cases else "no case applies to the profile")
        interrupted = self.interrupted or counts[Verdict.INTERRUPTED] > 0
        if interrupted:
            reasons.insert(0, "the run was interrupted before every selected case had run")
        incomplete = not self.complete or counts[Verdict.SKIP] > 0 or counts[Verdict.INCONCLUSIVE] > 0
        if not self.complete:
            reasons.append("the record is incomplete (the run did not finish)")
        if counts[Verdict.SKIP]:
            reasons.append(f"{counts[Verdict.SKIP]} case(s) skipped")
        if counts[Verdict.INCONCLUSIVE]:
            reasons.append(f"{counts[Verdict.INCONCLUSIVE]} case(s) inconclusive")
        if interrupted:
            return Verdict.INTERRUPTED, reasons
        if fail:
            return Verdict.FAIL, reasons
        if error:
            return Verdict.ERROR, reasons
        if incomplete:
            return Verdict.INCOMPLETE, reasons
        partial = self.partial()
        if partial:
            return Verdict.PARTIAL, [partial + ": the selected cases passed; the run certifies nothing beyond them"]
        na = counts[Verdict.NOT_APPLICABLE]
        return Verdict.PASS, ["every case that applies to the profile passed"
                        + (f" ({na} not applicable, each with its reason)" if na else "")]

    def partial(self) -> str | None:
        """``PARTIAL: 1 of 202 applicable cases selected`` when the run selected only part of the
        certification suites' cases that apply to the profile; None for a whole run."""
        sel = self.meta.selection
        if not sel or sel.get("selected", 0) >= sel.get("applicable", 0):
            return None
        return f"PARTIAL: {sel['selected']} of {sel['applicable']} applicable cases selected"

    @property
    def verdict(self) -> str:
        return self.stored_verdict if self.stored_verdict is not None else self.derived_verdict()[0]

    def evidence(self) -> list[Evidence]:
        return [ev for case in self.cases for ev in case.evidence]

    def case(self, case_id: str) -> CaseResult:
        for case in self.cases:
            if case.case_id == case_id:
                return case
        raise KeyError(case_id)

    # ---------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        verdict, reasons = self.derived_verdict()
        return {
            "schema": self.schema,
            "run_id": self.run_id,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "complete": self.complete,
            "interrupted": self.interrupted,
            "harness": {"version": self.harness_version, "git_revision": self.git_revision,
                        "git_dirty": self.git_dirty},
            "meta": self.meta.to_dict(),
            "inputs": [i.to_dict() for i in self.inputs],
            "profile": jsonable(self.profile, "profile"),
            "interpretations": jsonable(self.interpretations, "interpretations"),
            "identities": {
                role: {when: ident.to_dict() for when, ident in sorted(pair.items())}
                for role, pair in sorted(self.identities.items())
            },
            "identity_changed": self.identity_changed(),
            "cases": [c.to_dict() for c in self.cases],
            "counts": self.counts(),
            "verdict": verdict,
            "verdict_reasons": reasons,
            "merged_from": jsonable(self.merged_from, "merged_from"),
            "notes": list(self.notes),
            "bench": jsonable(self.bench, "bench"),
            "sittings": [s.to_dict() for s in self.sittings],
            **({"contract": jsonable(self.contract, "contract")} if self.contract else {}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Record:
        if data.get("schema") not in SCHEMAS:
            raise ValueError(f"schema {data.get('schema')!r} is none of {', '.join(SCHEMAS)}")
        harness = data.get("harness") or {}
        return cls(
            run_id=data["run_id"],
            started_at=data["started_at"],
            meta=RunMeta.from_dict(data.get("meta") or {}),
            harness_version=harness.get("version", "unknown"),
            git_revision=harness.get("git_revision", "unknown"),
            git_dirty=harness.get("git_dirty"),
            finished_at=data.get("finished_at"),
            complete=bool(data.get("complete")),
            interrupted=bool(data.get("interrupted")),
            inputs=[
                InputFile(i["path"], i["kind"], i["sha256"], i.get("size", 0)) for i in data.get("inputs", [])
            ],
            profile=dict(data.get("profile") or {}),
            interpretations=list(data.get("interpretations") or []),
            identities={
                role: {when: RecordedIdentity.from_dict(ident) for when, ident in pair.items()}
                for role, pair in (data.get("identities") or {}).items()
            },
            cases=[CaseResult.from_dict(c) for c in data.get("cases", [])],
            merged_from=list(data.get("merged_from") or []),
            notes=list(data.get("notes") or []),
            bench=dict(data.get("bench") or {}),
            sittings=[Sitting.from_dict(s) for s in data.get("sittings") or []],
            contract=dict(data.get("contract") or {}),
            stored_verdict=data.get("verdict"),
            schema=data["schema"],
        )
