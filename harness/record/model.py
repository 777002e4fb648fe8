"""The certification record's data model (schema ``tablecert/record/1``).

A lab signs a report, not a terminal: everything the report, the JUnit and Allure views and the
vendor gap report show is derived from these dataclasses, and every one of them round-trips through
plain JSON (``to_dict`` / ``from_dict``) so the record on disk is the single source of truth.

Values are exact.  JSON floats are refused everywhere (:func:`jsonable`): money is integer cents and
rates and durations are ``Decimal``, which the record stores as its string form ("0.3").  Device
identity carries every field 58 Pa. Code 607a.2(b) asks a certificate holder to file for a table
game device, read at the start and at the end of a run (the lab report's "signatures of the software
checked before and after testing").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import PurePath
from typing import Any

from harness.jsontree import json_tree
from harness.verdict import CASE_VERDICTS, RUN_VERDICTS, Verdict

#: the record schema this version writes, and every schema it reads and verifies (docs/record.md,
#: "Schema versions"): a record is verified by the rules of its own version, never migrated in place.
#:   tablecert/record/1: the first release.
#:   tablecert/record/2: the verdict PARTIAL and ``meta.selection`` (how much of the certification
#:     suites the run selected); every field of version 1 read as before.
SCHEMA = "tablecert/record/2"
SCHEMAS = ("tablecert/record/1", SCHEMA)

#: outcomes of a measurement, a step and a case (OpenHTF's split: a rig ERROR/TIMEOUT is never a FAIL).
#: NOT APPLICABLE: the case does not apply to the profile (capability, game, denomination,
#: interpretation, or no performer on the bench can carry out an act it needs), with its reason;
#: INCONCLUSIVE: a statistical case with fewer observations than its planned power needs;
#: INTERRUPTED: the operator stopped the run (Ctrl-C), never a device fault.
OUTCOMES = CASE_VERDICTS
#: overall verdicts of a run (exit statuses: harness.exitcodes)
VERDICTS = RUN_VERDICTS

#: the measurement holding every timed round's lock-out latency of a case: ``[[round, ms or null,
#: "counter" | "host"], ...]`` (the report charts them against the limit)
ROUND_LATENCIES = "lock-out latency of each timed round"

#: 58 Pa. Code 607a.2(b) identity fields, in the order a report lists them
IDENTITY_FIELDS = (
    "manufacturer",
    "model",
    "serial",
    "software_id",
    "controller_type",
    "software_name",
    "software_version",
    "program_hash",
    "location",
    "asset_number",
    "game_type",
)
#: the fields that say *which product* this is (a bench's serial or location may differ)
PRODUCT_FIELDS = ("manufacturer", "model", "software_name", "software_version", "program_hash")


def jsonable(value: Any, where: str = "value") -> Any:
    """Return ``value`` as exact JSON data, or raise ``TypeError`` naming ``where``.

    ``Decimal`` becomes its string form, tuples become lists, paths become POSIX strings.  Floats
    are refused: a float in a certification record is either money (forbidden) or a duration whose
    printed form depends on the platform; pass ``int`` or ``Decimal`` instead.
    """
    return json_tree(value, where, _scalar, lambda at, key: f"{at}: key {key!r} is not a string")


def _scalar(value: Any, where: str) -> Any:
    """One scalar of :func:`jsonable`."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        raise TypeError(f"{where}: float {value!r} refused in the record; use int cents or Decimal")
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise TypeError(f"{where}: non-finite Decimal {value} refused")
        return str(value)
    if isinstance(value, PurePath):
        return value.as_posix()
    raise TypeError(f"{where}: {type(value).__name__} cannot be stored in the record")


def check_outcome(outcome: str, where: str) -> str:
    if outcome not in OUTCOMES:
        raise ValueError(f"{where}: outcome {outcome!r} is not one of {', '.join(OUTCOMES)}")
    return outcome


@dataclass
class RunMeta:
    """What the run is about, given by whoever starts it (all optional except what a report needs).

    ``standards`` are the technical standards cited in the report header (e.g. "58 Pa. Code 633a");
    ``submitting_party`` is the certificate holder or vendor who submitted the device.
    """

    profile_name: str = ""
    jurisdiction: str = ""
    game: str = ""
    standards: list[str] = field(default_factory=list)
    submitting_party: str = ""
    lab: str = ""
    operator: str = ""
    station: str = ""
    pre_submission: bool = False
    command: list[str] = field(default_factory=list)
    run_id: str | None = None
    #: how much of the certification suites the run selected: ``selected`` of the ``applicable``
    #: cases of every suite under ``scope`` (None: not known, as in records before it was kept)
    selection: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = jsonable(dataclasses.asdict(self), "meta")
        if data.get("selection") is None:  # not known: written as records before it was kept were
            data.pop("selection", None)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunMeta:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass
class RecordedIdentity:
    """A device's answer to ``identity``: every 58 Pa. Code 607a.2(b) field, as text.

    Fields a device sends beyond these are kept in ``extra`` rather than dropped: the record keeps
    what the device said.
    """

    manufacturer: str = ""
    model: str = ""
    serial: str = ""
    software_id: str = ""
    controller_type: str = ""
    software_name: str = ""
    software_version: str = ""
    program_hash: str = ""
    location: str = ""
    asset_number: str = ""
    game_type: str = ""
    extra: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {name: getattr(self, name) for name in IDENTITY_FIELDS}
        out["extra"] = dict(self.extra)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RecordedIdentity:
        """Build from a device reply or a stored record; non-text values become text."""

        def text(v: Any) -> str:
            return "" if v is None else str(v)

        known = {name: text(data.get(name)) for name in IDENTITY_FIELDS}
        extra = {str(k): text(v) for k, v in data.items() if k not in IDENTITY_FIELDS and k != "extra"}
        stored = data.get("extra")
        if isinstance(stored, Mapping):
            extra.update({str(k): text(v) for k, v in stored.items()})
        return cls(**known, extra=extra)

    def differences(self, other: RecordedIdentity, fields: tuple[str, ...] = IDENTITY_FIELDS) -> list[str]:
        return [name for name in fields if getattr(self, name) != getattr(other, name)]


@dataclass
class Measurement:
    """One named check, OpenHTF style: the measured value sits next to the limit it was held to.

    ``value`` and ``limit`` are exact JSON data (int cents, Decimal → string, text, lists, dicts);
    ``clause`` is the catalogue clause id the check belongs to; ``detail`` is free text (e.g. the
    oracle's reasoning).
    """

    name: str
    value: Any
    unit: str = ""
    limit: Any = None
    outcome: str = Verdict.PASS
    clause: str = ""
    detail: str = ""

    def __post_init__(self) -> None:
        check_outcome(self.outcome, f"measurement {self.name!r}")
        self.value = jsonable(self.value, f"measurement {self.name!r} value")
        self.limit = jsonable(self.limit, f"measurement {self.name!r} limit")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Measurement:
        return cls(**{k: data[k] for k in ("name", "value", "unit", "limit", "outcome", "clause", "detail")})


@dataclass
class StepResult:
    """One YAML step as it ran: its 1-based ``index`` in the case, its text and YAML line."""

    index: int
    text: str
    yaml_line: int | None
    outcome: str
    detail: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_outcome(self.outcome, f"step {self.index}")
        self.detail = jsonable(self.detail, f"step {self.index} detail")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> StepResult:
        return cls(
            data["index"], data["text"], data.get("yaml_line"), data["outcome"], data.get("detail") or {}
        )


@dataclass
class Evidence:
    """A file under the run's ``evidence/`` directory, named by its path relative to the run."""

    path: str
    sha256: str
    kind: str
    name: str = ""
    size: int = 0

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Evidence:
        return cls(data["path"], data["sha256"], data["kind"], data.get("name", ""), data.get("size", 0))


@dataclass
class CaseResult:
    """A finished case: what it checked (clauses), what happened (steps, measurements, evidence,
    meter timelines) and its verdict.  ``reproduce`` is what a vendor needs to run it again (see
    docs/record.md: command, profile, stack, steps)."""

    case_id: str
    title: str
    clauses: list[str]
    suite_file: str
    params: dict[str, Any]
    verdict: str
    message: str | None = None
    steps: list[StepResult] = field(default_factory=list)
    measurements: list[Measurement] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    timelines: dict[str, list[list[Any]]] = field(default_factory=dict)
    reproduce: dict[str, Any] | None = None
    started_at: str = ""
    finished_at: str = ""
    duration_ms: int = 0
    station: str = ""
    source_run: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "case_id": self.case_id,
            "title": self.title,
            "clauses": list(self.clauses),
            "suite_file": self.suite_file,
            "params": jsonable(self.params, f"case {self.case_id} params"),
            "verdict": self.verdict,
            "message": self.message,
            "steps": [s.to_dict() for s in self.steps],
            "measurements": [m.to_dict() for m in self.measurements],
            "evidence": [e.to_dict() for e in self.evidence],
            "timelines": jsonable(self.timelines, f"case {self.case_id} timelines"),
            "reproduce": jsonable(self.reproduce, f"case {self.case_id} reproduce"),
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "duration_ms": self.duration_ms,
            "station": self.station,
            "source_run": self.source_run,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CaseResult:
        return cls(
            case_id=data["case_id"],
            title=data.get("title", ""),
            clauses=list(data.get("clauses", [])),
            suite_file=data.get("suite_file", ""),
            params=dict(data.get("params") or {}),
            verdict=data["verdict"],
            message=data.get("message"),
            steps=[StepResult.from_dict(s) for s in data.get("steps", [])],
            measurements=[Measurement.from_dict(m) for m in data.get("measurements", [])],
            evidence=[Evidence.from_dict(e) for e in data.get("evidence", [])],
            timelines={k: [list(p) for p in v] for k, v in (data.get("timelines") or {}).items()},
            reproduce=data.get("reproduce"),
            started_at=data.get("started_at", ""),
            finished_at=data.get("finished_at", ""),
            duration_ms=int(data.get("duration_ms", 0)),
            station=data.get("station", ""),
            source_run=data.get("source_run", ""),
        )


@dataclass
class Sitting:
    """One sitting of a run: a stretch of time its cases were run in (:mod:`harness.record.sittings`)."""

    index: int
    started_at: str
    ended_at: str | None = None
    end: str = "open"
    #: case ids recorded in this sitting, in the order they finished
    cases: list[str] = field(default_factory=list)
    #: of those, the ones a later sitting ran again (their results left the record)
    superseded: list[str] = field(default_factory=list)
    #: the command line of the sitting
    command: list[str] = field(default_factory=list)
    #: role -> identity read before the first case of a resumed sitting
    identities: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: evidence files moved out of ``evidence/`` when this sitting began (their new paths)
    set_aside: list[str] = field(default_factory=list)

    @property
    def kept(self) -> list[str]:
        return [c for c in self.cases if c not in self.superseded]

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "started_at": self.started_at, "ended_at": self.ended_at, "end": self.end,
                "cases": list(self.cases), "superseded": list(self.superseded), "command": list(self.command),
                "identities": {r: dict(i) for r, i in sorted(self.identities.items())},
                "set_aside": list(self.set_aside)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Sitting:
        return cls(int(data["index"]), str(data["started_at"]), data.get("ended_at"), str(data.get("end", "open")),
                   [str(c) for c in data.get("cases", [])], [str(c) for c in data.get("superseded", [])],
                   [str(c) for c in data.get("command", [])],
                   {str(r): dict(i) for r, i in (data.get("identities") or {}).items()},
                   [str(p) for p in data.get("set_aside", [])])
