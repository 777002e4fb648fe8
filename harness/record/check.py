"""Checking a record's shape before anything trusts it.

``verify``, ``report`` and ``merge`` read files someone else may have written.  Before a record is
built from them, every field is checked for its type and form (a JSON path names the field,
``cases[2].evidence[0].path``), and the names that become file paths are confined:

* a **run id** is 1-80 of ``[A-Za-z0-9._-]``, starting with a letter or digit (never ``..``);
* an **evidence path** is ``evidence/`` followed by segments of ``[A-Za-z0-9._@-]`` (no ``..``, no
  empty segment, no absolute path, no backslash), so no reader can be led outside the run folder;
* a digest is 64 lower-case hex digits; outcomes and verdicts are from the record vocabulary.

A record of the wrong shape is bad input (exit 2) with ``file:line: message``, never a traceback.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from harness.errors import InputError, InputErrors
from harness.jsontree import distinct_keys
from harness.record.model import OUTCOMES, VERDICTS

RUN_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")
EVIDENCE_RE = re.compile(r"^evidence(?:/[A-Za-z0-9_@-][A-Za-z0-9._@-]{0,119})+$")
HEX64_RE = re.compile(r"^[0-9a-f]{64}$")
SET_ASIDE_RE = re.compile(r"^set-aside/sitting-[0-9]{1,6}(?:/[A-Za-z0-9_@-][A-Za-z0-9._@-]{0,119})+$")
INPUT_KINDS = ("suite", "fixture", "profile")
#: the most problems listed for one file (a file of the wrong shape can have thousands)
MAX_REPORTED = 20

Check = Callable[[Any, str, list[str]], None]


def _name(value: Any) -> str:
    return {bool: "true/false", int: "a number", str: "a string", list: "a list", dict: "an object",
            type(None): "null", float: "a float"}.get(type(value), type(value).__name__)


def string(pattern: re.Pattern[str] | None = None, what: str = "") -> Check:
    def check(value: Any, path: str, out: list[str]) -> None:
        if not isinstance(value, str):
            out.append(f"{path}: expected a string, got {_name(value)}")
        elif pattern is not None and not pattern.match(value):
            out.append(f"{path}: {value[:80]!r} is not {what or 'of the expected form'}")
    return check


def integer(lo: int | None = None) -> Check:
    def check(value: Any, path: str, out: list[str]) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            out.append(f"{path}: expected a whole number, got {_name(value)}")
        elif lo is not None and value < lo:
            out.append(f"{path}: {value} is below {lo}")
    return check


def boolean(value: Any, path: str, out: list[str]) -> None:
    if not isinstance(value, bool):
        out.append(f"{path}: expected true or false, got {_name(value)}")


def one_of(*choices: str) -> Check:
    def check(value: Any, path: str, out: list[str]) -> None:
        if value not in choices:
            out.append(f"{path}: {value!r} is not one of {', '.join(choices)}")
    return check


def exact(value: Any, path: str, out: list[str]) -> None:
    """Exact JSON data: no float anywhere (money is integer cents, decimals are strings)."""
    if isinstance(value, float):
        out.append(f"{path}: a float ({value!r}) is never in a record")
    elif isinstance(value, dict):
        for k, v in value.items():
            exact(v, f"{path}.{k}", out)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            exact(v, f"{path}[{i}]", out)


def optional(inner: Check) -> Check:
    def check(value: Any, path: str, out: list[str]) -> None:
        if value is not None:
            inner(value, path, out)
    return check


def list_of(inner: Check) -> Check:
    def check(value: Any, path: str, out: list[str]) -> None:
        if not isinstance(value, list):
            out.append(f"{path}: expected a list, got {_name(value)}")
            return
        for i, item in enumerate(value):
            inner(item, f"{path}[{i}]", out)
    return check


def map_of(inner: Check) -> Check:
    def check(value: Any, path: str, out: list[str]) -> None:
        if not isinstance(value, dict):
            out.append(f"{path}: expected an object, got {_name(value)}")
            return
        for k, item in value.items():
            inner(item, f"{path}.{k}", out)
    return check


def obj(required: Mapping[str, Check], optional_keys: Mapping[str, Check] | None = None,
        *, extra: bool = False) -> Check:
    """An object with ``required`` and optional keys; others refused unless ``extra``."""
    opt = dict(optional_keys or {})

    def check(value: Any, path: str, out: list[str]) -> None:
        if not isinstance(value, dict):
            out.append(f"{path}: expected an object, got {_name(value)}")
            return
        for key, inner in required.items():
            if key not in value:
                out.append(f"{path}: missing {key!r}")
            else:
                inner(value[key], f"{path}.{key}", out)
        for key, inner in opt.items():
            if key in value:
                inner(value[key], f"{path}.{key}", out)
        if not extra:
            for key in value:
                if key not in required and key not in opt:
                    out.append(f"{path}: unknown field {str(key)[:40]!r}")
    return check


TEXT = string()
HEX64 = string(HEX64_RE, "a SHA-256 (64 lower-case hex digits)")
RUN_ID = string(RUN_ID_RE, "a run id (letters, digits, '.', '_', '-'; at most 80)")
EVIDENCE_PATH = string(EVIDENCE_RE, "an evidence path inside the run folder (evidence/...)")
OUTCOME = one_of(*OUTCOMES)
STRINGS = list_of(TEXT)

META = obj({}, {
    "profile_name": TEXT, "jurisdiction": TEXT, "game": TEXT, "standards": STRINGS,
    "submitting_party": TEXT, "lab": TEXT, "operator": TEXT, "station": TEXT,
    "pre_submission": boolean, "command": STRINGS, "run_id": optional(RUN_ID),
    "selection": optional(obj({"selected": integer(0), "applicable": integer(0), "scope": TEXT})),
})
HARNESS = obj({"version": TEXT, "git_revision": TEXT}, {"git_dirty": optional(boolean)})
INPUT = obj({"path": TEXT, "kind": one_of(*INPUT_KINDS), "sha256": HEX64, "size": integer(0)})
IDENTITY = map_of(exact)
EVIDENCE = obj({"path": EVIDENCE_PATH, "sha256": HEX64, "kind": TEXT}, {"name": TEXT, "size": integer(0)})
STEP = obj({"index": integer(1), "text": TEXT, "outcome": OUTCOME},
           {"yaml_line": optional(integer(1)), "detail": map_of(exact)})
MEASUREMENT = obj({"name": TEXT, "outcome": OUTCOME},
                  {"value": exact, "unit": TEXT, "limit": exact, "clause": TEXT, "detail": TEXT})
CASE = obj(
    {"case_id": TEXT, "verdict": OUTCOME},
    {"title": TEXT, "clauses": STRINGS, "suite_file": TEXT, "params": map_of(exact),
     "message": optional(TEXT), "steps": list_of(STEP), "measurements": list_of(MEASUREMENT),
     "evidence": list_of(EVIDENCE), "timelines": map_of(list_of(list_of(exact))),
     "reproduce": optional(map_of(exact)), "started_at": TEXT, "finished_at": TEXT,
     "duration_ms": integer(0), "station": TEXT, "source_run": TEXT},
)
SET_ASIDE = list_of(string(SET_ASIDE_RE, "a path under set-aside/sitting-N/ in the run folder"))
SITTING = obj(
    {"index": integer(1), "started_at": TEXT, "end": one_of("open", "finished", "interrupted", "killed"),
     "cases": STRINGS},
    {"ended_at": optional(TEXT), "superseded": STRINGS, "command": STRINGS, "identities": map_of(IDENTITY),
     "set_aside": SET_ASIDE},
)
RECORD = obj(
    {"schema": TEXT, "run_id": RUN_ID, "started_at": TEXT, "complete": boolean, "harness": HARNESS,
     "cases": list_of(CASE)},
    {"finished_at": optional(TEXT), "interrupted": boolean, "meta": META, "inputs": list_of(INPUT),
     "profile": map_of(exact),
     "interpretations": list_of(map_of(exact)), "identities": map_of(map_of(IDENTITY)),
     "identity_changed": map_of(STRINGS), "counts": map_of(integer(0)), "verdict": one_of(*VERDICTS, "INVALID"),
     "verdict_reasons": STRINGS, "merged_from": list_of(map_of(exact)), "notes": STRINGS,
     "bench": map_of(exact), "sittings": list_of(SITTING), "contract": map_of(exact)},
)
JOURNAL = {
    "header": obj({"type": TEXT, "schema": TEXT, "run_id": RUN_ID, "started_at": TEXT, "harness": HARNESS},
                  {"meta": META}),
    "input": obj({"type": TEXT, "path": TEXT, "kind": one_of(*INPUT_KINDS), "sha256": HEX64, "size": integer(0)}),
    "profile": obj({"type": TEXT, "profile": map_of(exact)}),
    "interpretations": obj({"type": TEXT, "interpretations": list_of(map_of(exact))}),
    "identity": obj({"type": TEXT, "when": one_of("start", "end"), "role": TEXT, "identity": IDENTITY}),
    "case": obj({"type": TEXT, "case": CASE}),
    "merged": obj({"type": TEXT, "merged_from": list_of(map_of(exact))}),
    "bench": obj({"type": TEXT, "bench": map_of(exact)}),
    "contract": obj({"type": TEXT, "contract": map_of(exact)}),
    "finish": obj({"type": TEXT, "finished_at": TEXT}, {"interrupted": boolean}),
    "resume": obj({"type": TEXT, "sitting": integer(2), "started_at": TEXT, "identities": map_of(IDENTITY)},
                  {"command": STRINGS, "rerun": STRINGS, "set_aside": SET_ASIDE,
                   "dropped_cut_line": integer(1)}),
}


def problems_of(check: Check, value: Any, root: str) -> list[str]:
    out: list[str] = []
    check(value, root, out)
    return out


def _raise(problems: list[str], path: str, line: int | None) -> None:
    if not problems:
        return
    shown = problems[:MAX_REPORTED]
    if len(problems) > MAX_REPORTED:
        shown.append(f"... and {len(problems) - MAX_REPORTED} more problems of shape")
    errors = [InputError(f"not a valid record: {p}", path=path, line=line) for p in shown]
    raise InputErrors(errors)


def check_record_data(data: Any, path: str) -> None:
    """Raise :class:`InputError` (every problem, ``file:1: ...``) unless ``data`` has a record's shape."""
    _raise(problems_of(RECORD, data, "record"), path, 1)


def check_journal_entry(entry: Any, path: str, line: int) -> None:
    """Raise unless a journal line has the shape of its ``type``."""
    kind = entry.get("type") if isinstance(entry, dict) else None
    if not isinstance(kind, str) or kind not in JOURNAL:
        shown = repr(kind)[:40]
        raise InputError(f"not a valid journal entry: type {shown} is not one of {', '.join(JOURNAL)}",
                         path=path, line=line)
    _raise(problems_of(JOURNAL[entry["type"]], entry, entry["type"]), path, line)


#: the largest record.json or journal read (a long soak's journal is a few MB)
MAX_RECORD_BYTES = 256 * 1024 * 1024


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a record holds")


def _no_float(text: str) -> Any:
    raise ValueError(f"the float {text[:40]} is never in a record (money is integer cents)")


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > 30:
        raise ValueError(f"a number of {len(text)} digits is too large")
    return int(text)


#: an object whose keys are distinct: with two ``"verdict"`` keys a reader would keep one and
#: another tool the other, so the record would say two things
_no_duplicates = distinct_keys(lambda key: f"duplicate key {key[:40]!r} in one object")


#: a UTF-16 surrogate code point (a string holding one is not text)
_SURROGATE = re.compile("[\ud800-\udfff]")
#: where a JSON text can hold one: the code point itself, or an escape of one (a pair, or a lone half)
_MAYBE_SURROGATE = re.compile(r"[\ud800-\udfff]|\\u[dD][89a-fA-F]")


def _lone_surrogate(data: Any) -> str | None:
    """The first string (or key) of ``data`` holding a lone UTF-16 surrogate (``\\ud800``): not
    text, so no report, JUnit file or terminal can show it."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            bad = _SURROGATE.search(item)
            if bad is not None:
                return f"\\u{ord(bad.group()):04x}"
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def parse_json(raw: bytes | str, path: str, line: int | None = None) -> Any:
    """Strict JSON: no NaN/Infinity, no floats, no huge integers, no duplicate keys, no lone
    surrogates, bounded nesting; a clear error."""
    try:
        text = raw if isinstance(raw, str) else raw.decode(json.detect_encoding(raw), "surrogatepass")  # as json.loads
        data = json.loads(text, parse_constant=_no_constant, parse_float=_no_float, parse_int=_bounded_int,
                          object_pairs_hook=_no_duplicates)
    except RecursionError:
        raise InputError("not a valid record: nested too deeply", path=path, line=line) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"not valid JSON ({exc})", path=path, line=line) from None
    bad = _lone_surrogate(data) if _MAYBE_SURROGATE.search(text) else None
    if bad is not None:
        raise InputError(f"not valid text: a lone surrogate {bad} (half of a UTF-16 pair) in a string",
                         path=path, line=line)
    return data
