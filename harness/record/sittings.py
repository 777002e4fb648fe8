"""Sittings: the stretches of time a run's cases were run in.

A bench run of several hours meets people: someone stops it for the night (Ctrl-C, the record says
INTERRUPTED) or the host dies (the journal keeps every finished case).  ``tablecert run --resume RUN``
continues it from its journal in a new **sitting**: the devices' 58 Pa. Code 607a.2(b) identity is
read again and compared with the identity read at the start of the run before any case, the cases
already finished are not run again, and the record says which cases ran in which sitting, with the
start and end of each.

The journal carries it (:mod:`harness.record.journal`): the header starts sitting 1, every ``case``
line belongs to the sitting it was written in, a ``finish`` line ends a sitting (``finished`` or
``interrupted``), and a ``resume`` line starts the next one.  A sitting followed by a ``resume`` line
without a ``finish`` line was **killed**; it ended, as far as the record can tell, when its last case
ended.  A case that did not finish in an earlier sitting (INTERRUPTED, or SKIP because a device had
stopped answering) is run again: the ``resume`` line names it, the earlier result leaves the record's
``cases`` and the sitting lists it as ``superseded``; evidence files no recorded case names (those of
a case cut short by the kill, those of a superseded case) are moved out of ``evidence/`` to
``set-aside/<sitting>/`` and listed in the new sitting.

:func:`sitting_problems` is what ``verify`` holds the sittings to, so a forged sitting is caught even
when the journal and ``record.json`` were rewritten to agree: every case in exactly one sitting and
in the record's order, each case's times inside its sitting's, sittings one after another, every
sitting but the last ended by an interruption or a kill, and every resumed sitting's identity equal
to the run's starting identity.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from harness.record.document import Record
from harness.record.model import RecordedIdentity, Sitting
from harness.verdict import Verdict

#: how a sitting ended: ``open`` while it runs (or when the journal simply stops)
ENDS = ("open", "finished", "interrupted", "killed")
#: verdicts of a case that did not finish, run again by the next sitting
RERUN_VERDICTS = (Verdict.INTERRUPTED, Verdict.SKIP)
SET_ASIDE_DIR = "set-aside"


# -- replaying the journal ------------------------------------------------------------------------

def start(record: Record, started_at: str, command: list[str]) -> None:
    """The journal's header: sitting 1 begins."""
    record.sittings = [Sitting(1, started_at, command=list(command))]


def case_finished(record: Record, case_id: str) -> None:
    if record.sittings:
        record.sittings[-1].cases.append(case_id)


def finished(record: Record, finished_at: str, interrupted: bool) -> None:
    if record.sittings:
        last = record.sittings[-1]
        last.ended_at, last.end = finished_at, "interrupted" if interrupted else "finished"


def resumed(record: Record, entry: Mapping[str, Any]) -> None:
    """A ``resume`` line: the sitting before ends (killed when it has no finish line), the cases the
    line names leave the record (they run again), and the next sitting begins."""
    if not record.sittings:
        raise ValueError("a resume line in a journal without sittings (a merged record)")
    if entry.get("sitting") != len(record.sittings) + 1:
        raise ValueError(f"the resume line starts sitting {entry.get('sitting')}, "
                         f"the next is {len(record.sittings) + 1}")
    last = record.sittings[-1]
    if last.end == "open":
        times = {c.case_id: c.finished_at for c in record.cases}
        ended = [times[c] for c in last.cases if c in times]
        last.ended_at, last.end = (ended[-1] if ended else last.started_at), "killed"
    rerun = [str(c) for c in entry.get("rerun", [])]
    by_id = {c.case_id: c for c in record.cases}
    for case_id in rerun:
        if case_id not in by_id:
            raise ValueError(f"the resume line runs again case {case_id!r}, which the record does not hold")
        owner = next(s for s in reversed(record.sittings) if case_id in s.kept)
        owner.superseded.append(case_id)
    record.cases = [c for c in record.cases if c.case_id not in rerun]
    record.complete, record.finished_at, record.interrupted = False, None, False
    for pair in record.identities.values():  # the identity at the end of the run is read when it ends
        pair.pop("end", None)
    dropped = entry.get("dropped_cut_line")
    if dropped:
        record.notes.append(f"sitting {len(record.sittings) + 1} began by dropping the journal's last line, "
                            f"{int(dropped)} byte(s) the kill cut short")
    record.sittings.append(Sitting(len(record.sittings) + 1, str(entry["started_at"]),
                                   command=[str(c) for c in entry.get("command", [])],
                                   identities={str(r): dict(i) for r, i in (entry.get("identities") or {}).items()},
                                   set_aside=[str(p) for p in entry.get("set_aside", [])]))


def to_rerun(record: Record) -> list[str]:
    """The cases of an unfinished run that its next sitting runs again (in record order)."""
    return [c.case_id for c in record.cases if c.verdict in RERUN_VERDICTS]


# -- what verify holds the sittings to ------------------------------------------------------------

def _when(text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def sitting_problems(record: Record) -> list[str]:
    """Where the sittings contradict the record (see the module docstring); empty when they agree."""
    if record.merged_from:
        return [] if not record.sittings else ["sittings: a merged record has none (its sources list theirs)"]
    sittings = record.sittings
    if not sittings:
        return ["sittings: none (every run has at least its first)"]
    problems: list[str] = []
    if [s.index for s in sittings] != list(range(1, len(sittings) + 1)):
        problems.append("sittings: not numbered 1, 2, ... in order")
    kept = [c for s in sittings for c in s.kept]
    if kept != [c.case_id for c in record.cases]:
        problems.append("sittings: the cases they list are not the record's cases in the record's order")
    for i, s in enumerate(sittings):
        label = f"sitting {s.index}"
        if s.end not in ENDS:
            problems.append(f"{label}: unknown end {s.end!r}")
        for case_id in s.superseded:
            if case_id not in s.cases or not any(case_id in t.cases for t in sittings[i + 1:]):
                problems.append(f"{label}: case {case_id} is listed as run again, and no later sitting ran it")
        last = i == len(sittings) - 1
        if not last and s.end not in ("interrupted", "killed"):
            problems.append(f"{label}: ended {s.end}, yet a later sitting resumed the run")
        if last and record.complete and s.end not in ("finished", "interrupted"):
            problems.append(f"{label}: the record is finished but its last sitting ended {s.end}")
        if last and not record.complete and s.end != "open":
            problems.append(f"{label}: ended {s.end}, yet the record is not finished")
        problems += _times(record, s, sittings[i + 1] if not last else None)
        if s.index > 1:
            problems += _identities(record, s)
    if record.started_at != sittings[0].started_at:
        problems.append("sitting 1: does not start when the run started")
    if record.complete and sittings[-1].ended_at != record.finished_at:
        problems.append(f"sitting {sittings[-1].index}: does not end when the run finished")
    return problems


def _times(record: Record, s: Sitting, following: Sitting | None) -> list[str]:
    label = f"sitting {s.index}"
    begin, end = _when(s.started_at), _when(s.ended_at)
    if begin is None or (s.ended_at is not None and end is None):
        return [f"{label}: a start or end that is not a UTC time"]
    out: list[str] = []
    if end is not None and end < begin:
        out.append(f"{label}: ends before it starts")
    times = {c.case_id: (c.started_at, c.finished_at) for c in record.cases}
    for case_id in s.kept:
        if case_id not in times:
            continue
        c_start, c_end = (_when(t) for t in times[case_id])
        if c_start is None or c_end is None or c_start < begin or (end is not None and c_end > end):
            out.append(f"{label}: case {case_id} ran outside the sitting's start and end")
    if following is not None:
        nxt = _when(following.started_at)
        if end is None or nxt is None or nxt < end:
            out.append(f"sitting {following.index}: starts before sitting {s.index} ended")
    return out


def _identities(record: Record, s: Sitting) -> list[str]:
    """A resumed sitting read every device's identity before its first case, and it was the one the
    run started with (tablecert refuses to resume otherwise)."""
    out = []
    for role, pair in sorted(record.identities.items()):
        first = pair.get("start")
        if first is None:
            continue
        seen = s.identities.get(role)
        if seen is None:
            out.append(f"sitting {s.index}: the {role}'s identity was not checked before its first case")
            continue
        diff = first.differences(RecordedIdentity.from_dict(seen))
        if diff:
            out.append(f"sitting {s.index}: the {role}'s identity differs from the start of the run "
                       f"({', '.join(diff)})")
    return out
