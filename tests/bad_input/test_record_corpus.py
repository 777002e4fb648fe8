"""The record corpus: records of the wrong shape, read by every reader (verify, report, merge), are
refused with exit 2 and ``file:line: message``, never a traceback, never trusted.

Each entry takes a finished run, damages one file the way a hostile or broken tool could, and
names the file, the line and the words the refusal must carry.  ``record.json`` is one line of
canonical JSON, so its problems are at line 1 with the JSON path of the field; a journal's at the
line of the entry.  Forgeries of well-formed records are in ``tests/record/test_forged_records.py``.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.cli import main
from harness.record import canonical_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "record"))
from recordkit import build_run


@dataclass(frozen=True)
class Bad:
    damage: Callable[[Path], None]
    file: str
    line: int
    words: str


def _record(edit: Callable[[dict], None]) -> Callable[[Path], None]:
    def damage(run: Path) -> None:
        data = json.loads((run / "record.json").read_bytes())
        edit(data)
        (run / "record.json").write_bytes(json.dumps(data, sort_keys=True, separators=(",", ":")).encode())
    return damage


def _raw_record(text: bytes) -> Callable[[Path], None]:
    def damage(run: Path) -> None:
        (run / "record.json").write_bytes(text)
    return damage


def _journal_line(n: int, replace: Callable[[bytes], bytes]) -> Callable[[Path], None]:
    def damage(run: Path) -> None:
        lines = (run / "journal.jsonl").read_bytes().split(b"\n")
        lines[n - 1] = replace(lines[n - 1])
        (run / "journal.jsonl").write_bytes(b"\n".join(lines))
    return damage


def _journal_entry(n: int, edit: Callable[[dict], None]) -> Callable[[Path], None]:
    def replace(line: bytes) -> bytes:
        entry = json.loads(line)
        edit(entry)
        return canonical_json(entry)
    return _journal_line(n, replace)


def _set(path: str, value: object) -> Callable[[dict], None]:
    def edit(data: dict) -> None:
        *parents, last = path.split(".")
        node: object = data
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]  # type: ignore[index]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value  # type: ignore[index]
    return edit


def _delete(path: str) -> Callable[[dict], None]:
    def edit(data: dict) -> None:
        *parents, last = path.split(".")
        node: object = data
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]  # type: ignore[index]
        del node[last]  # type: ignore[attr-defined]
    return edit


def _journal_append(entry: bytes) -> Callable[[Path], None]:
    def damage(run: Path) -> None:
        with (run / "journal.jsonl").open("ab") as fh:
            fh.write(entry + b"\n")
    return damage


R, J = "record.json", "journal.jsonl"
SECOND_HEADER = (b'{"type":"header","schema":"tablecert/record/2","run_id":"x","started_at":"t",'
                 b'"harness":{"version":"1","git_revision":"r"}}')
DOUBLE_VERDICT = b'"verdict":"FAIL","verdict":'
CORPUS: dict[str, Bad] = {
    # --- record.json: not JSON, or JSON of the wrong shape
    "not-json": Bad(_raw_record(b"{not json"), R, 1, "not valid JSON"),
    "json-array": Bad(_raw_record(b"[1, 2, 3]"), R, 1, "record: expected an object, got a list"),
    "json-string": Bad(_raw_record(b'"record"'), R, 1, "record: expected an object, got a string"),
    "nan-literal": Bad(_raw_record(b'{"schema": NaN}'), R, 1, "NaN is not a number a record holds"),
    "float": Bad(_raw_record(b'{"schema": 1.5}'), R, 1, "the float 1.5 is never in a record"),
    "huge-integer": Bad(_raw_record(b'{"x": ' + b"9" * 5000 + b"}"), R, 1, "a number of 5000 digits is too large"),
    "deep-nesting": Bad(_raw_record(b"[" * 100_000 + b"]" * 100_000), R, 1, "nested too deeply"),
    "bad-utf8": Bad(_raw_record(b'{"schema": "\xff"}'), R, 1, "not valid JSON"),
    "empty-file": Bad(_raw_record(b""), R, 1, "not valid JSON"),
    "wrong-schema": Bad(_record(_set("schema", "tablecert/record/9")), R, 1,
                        "not a record of a schema this version reads"),
    "run-id-dotdot": Bad(_record(_set("run_id", "..")), R, 1, "record.run_id: '..' is not a run id"),
    "run-id-slash": Bad(_record(_set("run_id", "../../etc")), R, 1, "record.run_id: '../../etc' is not a run id"),
    "run-id-number": Bad(_record(_set("run_id", 7)), R, 1, "record.run_id: expected a string, got a number"),
    "meta-run-id-escapes": Bad(_record(_set("meta.run_id", "a/../../b")), R, 1, "record.meta.run_id"),
    "evidence-dotdot": Bad(_record(_set("cases.1.evidence.0.path", "evidence/../../../etc/passwd")), R, 1,
                           "record.cases[1].evidence[0].path: 'evidence/../../../etc/passwd' is not an evidence path"),
    "evidence-absolute": Bad(_record(_set("cases.1.evidence.0.path", "/etc/passwd")), R, 1,
                             "record.cases[1].evidence[0].path: '/etc/passwd' is not an evidence path"),
    "evidence-backslash": Bad(_record(_set("cases.1.evidence.0.path", "evidence\\..\\x")), R, 1,
                              "is not an evidence path"),
    "evidence-outside-folder": Bad(_record(_set("cases.1.evidence.0.path", "record.json")), R, 1,
                                   "'record.json' is not an evidence path"),
    "evidence-sha-not-hex": Bad(_record(_set("cases.1.evidence.0.sha256", "z" * 64)), R, 1,
                                "record.cases[1].evidence[0].sha256: " + repr("z" * 64) + " is not a SHA-256"),
    "evidence-size-negative": Bad(_record(_set("cases.1.evidence.0.size", -1)), R, 1,
                                  "record.cases[1].evidence[0].size: -1 is below 0"),
    "verdict-unknown": Bad(_record(_set("cases.1.verdict", "MOSTLY")), R, 1,
                           "record.cases[1].verdict: 'MOSTLY' is not one of PASS"),
    "cases-not-a-list": Bad(_record(_set("cases", {"a": 1})), R, 1, "record.cases: expected a list, got an object"),
    "case-not-an-object": Bad(_record(_set("cases.0", "PASS")), R, 1, "record.cases[0]: expected an object"),
    "case-id-missing": Bad(_record(_delete("cases.0.case_id")), R, 1, "record.cases[0]: missing 'case_id'"),
    "steps-index-zero": Bad(_record(_set("cases.0.steps.0.index", 0)), R, 1, "record.cases[0].steps[0].index: 0"),
    "measurement-float": Bad(_record(_set("cases.1.measurements.0.value", 0.5)), R, 1,
                             "the float 0.5 is never in a record"),
    "complete-as-text": Bad(_record(_set("complete", "yes")), R, 1, "record.complete: expected true or false"),
    "harness-missing": Bad(_record(_delete("harness")), R, 1, "record: missing 'harness'"),
    "input-kind-unknown": Bad(_record(_set("inputs.0.kind", "binary")), R, 1,
                              "record.inputs[0].kind: 'binary' is not one of suite, fixture, profile"),
    "unknown-top-field": Bad(_record(_set("trusted", True)), R, 1, "record: unknown field 'trusted'"),
    "overall-verdict-unknown": Bad(_record(_set("verdict", "GREAT")), R, 1, "record.verdict: 'GREAT'"),
    # --- journal.jsonl: line by line
    "journal-not-json": Bad(_journal_line(3, lambda _line: b"{oops"), J, 3, "not valid JSON"),
    "journal-first-not-header": Bad(_journal_line(1, lambda _line: b'{"type":"finish","finished_at":"x"}'), J, 1,
                                    "not a tablecert journal of a schema this version reads"),
    "journal-unknown-type": Bad(_journal_entry(2, _set("type", "backdoor")), J, 2,
                                "type 'backdoor' is not one of header"),
    "journal-case-missing": Bad(_journal_line(7, lambda _line: b'{"type":"case"}'), J, 7, "case: missing 'case'"),
    "journal-evidence-escape": Bad(_journal_entry(7, _set("case.evidence.0.path", "evidence/../../x")), J, 7,
                                   "case.case.evidence[0].path: 'evidence/../../x' is not an evidence path"),
    "journal-run-id-escape": Bad(_journal_entry(1, _set("run_id", "../up")), J, 1, "header.run_id: '../up'"),
    "journal-second-header": Bad(_journal_line(2, lambda _line: SECOND_HEADER), J, 2, "a second header"),
    "journal-after-finish": Bad(_journal_append(b'{"type":"finish","finished_at":"later"}'), J, 11,
                                "an entry after the finish line"),
    "journal-identity-when": Bad(_journal_entry(6, _set("when", "middle")), J, 6,
                                 "identity.when: 'middle' is not one of start, end"),
    # --- a key twice in one object, a lone UTF-16 surrogate (redteam rows 68-70)
    "record-duplicate-key": Bad(_raw_record(b'{"schema":"tablecert/record/1","schema":"x"}'), R, 1,
                                "duplicate key 'schema' in one object"),
    "record-lone-surrogate": Bad(_record(_set("cases.0.title", "\ud800")), R, 1,
                                 "not valid text: a lone surrogate \\ud800"),
    "record-lone-surrogate-key": Bad(_record(_set("profile.\udfff", 1)), R, 1, "a lone surrogate \\udfff"),
    "journal-duplicate-key": Bad(_journal_line(7, lambda ln: ln.replace(b'"verdict":', DOUBLE_VERDICT, 1)),
                                 J, 7, "duplicate key 'verdict'"),
    "journal-lone-surrogate": Bad(_journal_line(7, lambda ln: ln.replace(b'"message":null', b'"message":"\\udc00"')),
                                  J, 7, "a lone surrogate \\udc00"),
}


@pytest.fixture(scope="module")
def good_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_run(tmp_path_factory.mktemp("good"), verdicts=("PASS", "FAIL"))


def test_corpus_size() -> None:
    assert len(CORPUS) >= 40


def test_the_journal_lines_the_corpus_names(good_run: Path) -> None:
    """The line numbers above are those of this run's journal."""
    kinds = [json.loads(line)["type"] for line in (good_run / "journal.jsonl").read_bytes().splitlines()]
    assert kinds == ["header", "input", "input", "profile", "interpretations", "identity", "case", "case",
                     "identity", "finish"]


@pytest.mark.parametrize("command", ["verify", "report", "merge"])
@pytest.mark.parametrize("name", sorted(CORPUS))
def test_bad_record(name: str, command: str, good_run: Path, tmp_path: Path,
                    capsys: pytest.CaptureFixture[str]) -> None:
    bad = CORPUS[name]
    run = tmp_path / good_run.name
    shutil.copytree(good_run, run)
    bad.damage(run)
    argv = {"verify": ["verify", str(run)], "report": ["report", str(run), "--out", str(tmp_path / "r.html")],
            "merge": ["merge", str(run), "--out", str(tmp_path / "merged")]}[command]
    code = main(argv)
    out = capsys.readouterr()
    assert code == 2, out
    assert "Traceback" not in out.err
    where = f"{run / bad.file}:{bad.line}: "
    lines = [line for line in out.err.splitlines() if line.startswith(where)]
    assert lines, f"expected {where}... in\n{out.err}"
    assert any(bad.words in line for line in lines), out.err
    assert not (tmp_path / "merged").exists() or not any((tmp_path / "merged").iterdir())
    assert not (tmp_path / "r.html").exists()
