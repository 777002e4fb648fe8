"""Property tests of the input boundary: random and mutated inputs give a valid object or a clean
``InputError``, nothing else (no other exception, no hang, no runaway memory).

Readers under test: the YAML loader, the profile validator, the suite validator, the stack-file
validator, the record reader (``record.json``, the journal, ``verify``: one byte changed in any file
of a run folder, views included, never verifies) and the command line's numbers.  Inputs are random text
and the shipped files (or a finished record) mutated: characters deleted, inserted (YAML syntax,
controls, look-alike letters), lines duplicated or swapped, JSON values replaced by other JSON
values.  Hypothesis runs derandomized, so CI sees the same examples every time; the example counts
are in :data:`EXAMPLES`.  A hang is caught by pytest-timeout; memory is bounded by the peak that
``tracemalloc`` sees while one example is read (:data:`PEAK_BYTES`), and time by no test's
wall clock (the machines are shared) but by the size limits the inputs meet.
"""

from __future__ import annotations

import json
import shutil
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.errors import InputError
from harness.profiles import load_profile_text
from harness.record import canonical_json
from harness.record.journal import load_journal, load_record
from harness.record.verification import verify
from harness.suites.load.schema import load_suite
from harness.suites.load.stacks import validate_stack_file
from harness.textcheck import unseen_character
from harness.yamlload import load_yaml_text

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "record"))
from recordkit import build_run

ROOT = Path(__file__).resolve().parents[2]
PROFILE_TEXT = (ROOT / "device_profiles" / "emulated-midi-5.yaml").read_text()
SUITE_TEXT = (ROOT / "suites" / "royal9" / "paytable-5.suite.yaml").read_text()
SUITE_SMALL = (ROOT / "suites" / "identity" / "identity.suite.yaml").read_text()
STACK_TEXT = "\n".join((ROOT / "fixtures" / "stacks" / "baccarat.yaml").read_text().splitlines()[:40]) + "\n"
#: examples per property (reported in the closing note of the issue)
EXAMPLES = {"yaml-random": 400, "yaml-mutated": 300, "profile": 300, "suite": 200, "stack": 150,
            "record-json": 300, "record-values": 300, "journal": 200, "record-any-byte": 200,
            "cli-numbers": 400}
#: the most memory one example may take to be read and refused (the files are at most 1 MiB)
PEAK_BYTES = 64 * 1024 * 1024

SYNTAX = ":-[]{}#&*!|>'\"%@`,? \n\t\r.0123456789eE+~"
ODD = "\ufeff\u200b\u0430\u0435\u0661\uff15\x00\x07\x1b\x85\u2028\udcff"
pieces = st.text(alphabet=st.sampled_from(list(SYNTAX + ODD + "abcdefgxyz")), max_size=12)


@st.composite
def mutated(draw: st.DrawFn, text: str) -> str:
    """``text`` after one to six edits: delete, insert, replace, duplicate or swap lines."""
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["delete", "insert", "replace", "dup-line", "swap-lines", "drop-line"]))
        pos = draw(st.integers(0, max(len(text) - 1, 0)))
        if kind == "delete":
            text = text[:pos] + text[pos + draw(st.integers(1, 20)):]
        elif kind == "insert":
            text = text[:pos] + draw(pieces) + text[pos:]
        elif kind == "replace":
            text = text[:pos] + draw(pieces) + text[pos + 1:]
        else:
            lines = text.split("\n")
            if len(lines) < 2:
                continue
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            if kind == "dup-line":
                lines.insert(i, lines[j])
            elif kind == "swap-lines":
                lines[i], lines[j] = lines[j], lines[i]
            else:
                del lines[i]
            text = "\n".join(lines)
    return text


def _clean(exc: InputError) -> None:
    """A clean error: a message, and a position that exists when one is given."""
    assert exc.message and "Traceback" not in str(exc)
    if exc.line is not None:
        assert exc.line >= 1
    if exc.col is not None:
        assert exc.col >= 1


def _bounded(read: Any, *args: Any) -> Any:
    tracemalloc.start()
    try:
        return read(*args)
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak < PEAK_BYTES, peak


def _props(name: str) -> settings:
    return settings(max_examples=EXAMPLES[name], deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                           HealthCheck.data_too_large, HealthCheck.filter_too_much])


# ----------------------------------------------------------------------------- YAML loader
@pytest.mark.timeout(300)
@_props("yaml-random")
@given(st.text(max_size=300))
def test_loader_random_text(text: str) -> None:
    try:
        data = load_yaml_text(text, "random.yaml")
    except InputError as exc:
        _clean(exc)
    else:  # what is accepted holds no value a reader cannot see as written
        assert all(unseen_character(v) is None for v in _strings(data))


def _strings(node: Any) -> list[str]:
    if isinstance(node, dict):
        return [s for v in node.values() for s in _strings(v)]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v)]
    return [node] if isinstance(node, str) else []


@pytest.mark.timeout(300)
@_props("yaml-mutated")
@given(mutated(PROFILE_TEXT))
def test_loader_mutated_profile_text(text: str) -> None:
    try:
        _bounded(load_yaml_text, text, "mutated.yaml")
    except InputError as exc:
        _clean(exc)


# ----------------------------------------------------------------------------- validators
@pytest.mark.timeout(300)
@_props("profile")
@given(mutated(PROFILE_TEXT))
def test_profile_validator(text: str) -> None:
    try:
        profile = load_profile_text(text, "mutated.yaml")
    except InputError as exc:
        _clean(exc)
    else:
        assert profile.rules.seats and profile.game


@pytest.mark.timeout(300)
@_props("suite")
@given(st.one_of(mutated(SUITE_SMALL), mutated(SUITE_TEXT)))
def test_suite_validator(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    path = tmp_path_factory.mktemp("suite") / "m.suite.yaml"
    path.write_bytes(text.encode("utf-8", errors="surrogateescape"))
    try:
        suite = load_suite(path)
    except InputError as exc:
        _clean(exc)
    else:
        assert suite.cases and all(case.steps for case in suite.cases)


@pytest.mark.timeout(300)
@_props("stack")
@given(mutated(STACK_TEXT))
def test_stack_file_validator(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    path = tmp_path_factory.mktemp("stacks") / "s.yaml"
    path.write_bytes(text.encode("utf-8", errors="surrogateescape"))
    try:
        stacks = validate_stack_file(path)
    except InputError as exc:
        _clean(exc)
    else:
        assert all(s.cards for s in stacks.values())


# ----------------------------------------------------------------------------- record reader
@pytest.fixture(scope="module")
def good_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_run(tmp_path_factory.mktemp("good"), verdicts=("PASS", "FAIL"))


def _copy(good_run: Path, tmp_path_factory: pytest.TempPathFactory, prefix: str) -> Path:
    """A copy of the run in a folder of its own name (the folder is named by the run id)."""
    run = tmp_path_factory.mktemp(prefix) / good_run.name
    shutil.copytree(good_run, run)
    return run


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20) | st.floats(allow_nan=True),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


def _replace(node: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    node[path[0]] = _replace(node[path[0]], path[1:], value)
    return node


def _read_record(run: Path) -> None:
    try:
        record = load_record(run)
    except InputError as exc:
        _clean(exc)
        return
    assert record.run_id
    try:
        problems = verify(run)
    except InputError as exc:
        _clean(exc)
        return
    assert isinstance(problems, list)


@pytest.mark.timeout(300)
@_props("record-json")
@given(data=st.data())
def test_record_reader_mutated_bytes(good_run: Path, tmp_path_factory: pytest.TempPathFactory,
                                     data: st.DataObject) -> None:
    run = _copy(good_run, tmp_path_factory, "r")
    text = (run / "record.json").read_text("utf-8")
    (run / "record.json").write_text(data.draw(mutated(text)), "utf-8", errors="surrogateescape")
    _read_record(run)


@pytest.mark.timeout(300)
@_props("record-values")
@given(data=st.data())
def test_record_reader_replaced_values(good_run: Path, tmp_path_factory: pytest.TempPathFactory,
                                       data: st.DataObject) -> None:
    run = _copy(good_run, tmp_path_factory, "r")
    record = json.loads((run / "record.json").read_bytes())
    path = data.draw(st.sampled_from(_paths(record)))
    record = _replace(record, path, data.draw(JSON_VALUES))
    (run / "record.json").write_text(json.dumps(record, allow_nan=True), "utf-8")
    _read_record(run)


@pytest.mark.timeout(300)
@_props("journal")
@given(data=st.data())
def test_journal_reader(good_run: Path, tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    run = _copy(good_run, tmp_path_factory, "j")
    lines = (run / "journal.jsonl").read_bytes().split(b"\n")[:-1]
    n = data.draw(st.integers(0, len(lines) - 1))
    entry = json.loads(lines[n])
    path = data.draw(st.sampled_from(_paths(entry)))
    lines[n] = json.dumps(_replace(entry, path, data.draw(JSON_VALUES)), allow_nan=True).encode()
    (run / "journal.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    try:
        record = load_journal(run / "journal.jsonl")
    except InputError as exc:
        _clean(exc)
    else:
        assert record.run_id
        canonical_json(record.to_dict())  # what was accepted can be written back exactly


@pytest.mark.timeout(600)
@_props("record-any-byte")
@given(data=st.data())
def test_any_byte_changed_anywhere_in_the_folder_fails_verification(
        good_run: Path, tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    """One byte changed in any file of a finished run (record, journal, manifest, evidence or a
    view, Allure results included) and the record no longer verifies: never OK, never a traceback."""
    run = _copy(good_run, tmp_path_factory, "b")
    files = sorted(p for p in run.rglob("*") if p.is_file())
    target = data.draw(st.sampled_from(files))
    raw = bytearray(target.read_bytes())
    if not raw:
        return
    i = data.draw(st.integers(0, len(raw) - 1))
    raw[i] ^= data.draw(st.integers(1, 255))
    target.write_bytes(bytes(raw))
    try:
        problems = verify(run)
    except InputError as exc:
        _clean(exc)
        return
    assert problems, f"{target.relative_to(run)} byte {i} changed and the record still verifies"


@pytest.mark.timeout(300)
@_props("cli-numbers")
@given(st.one_of(st.text(max_size=12), st.integers(-10**6, 10**30).map(str),
                 st.text(alphabet="0123456789_ +-\u0660\u0665\uff10\uff15\u00b2", max_size=8)))
def test_command_line_numbers(text: str) -> None:
    """A number on a command line is read only as ASCII digits within bounds; anything else is a
    usage error (exit 2), whatever int() would have made of it."""
    import argparse
    import re

    from harness.cli.numbers import count

    try:
        value = count(1, 1000)(text)
    except argparse.ArgumentTypeError as exc:
        assert str(exc)
    else:
        assert re.fullmatch(r"[0-9]+", text) and 1 <= value <= 1000 and value == int(text)
