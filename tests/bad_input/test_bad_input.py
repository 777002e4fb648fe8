"""The bad-input corpus: every malformed or hostile input file gives exit 2 and exactly the
``file:line:col: message`` errors it announces, never a traceback, never "ok".

Kinds (one folder each): ``profiles/`` device profiles, ``suites/`` suite files, ``stacks/`` named
stack files, ``yaml/`` hostile YAML (bad bytes, CR-only and CR LF line ends, control characters,
tags, aliases, nesting, huge numbers, other tools' files).  Inputs that cannot live in git (a FIFO,
a symlink to a device, a file over the size limit, a dangling link, a folder named ``x.yaml``) are
made by :func:`test_hostile_files` in a temporary folder; records and command lines have their own
corpora in ``test_record_corpus.py`` and ``test_command_lines.py``.

Each corpus file starts with one ``# expect: <line>:<col>: <message words>`` line per error it
must produce (the file reports every error, not only the first).  Every file is checked through
``tablecert validate`` in-process (one exit status each), and the whole corpus once more through
the real command line in a subprocess.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
KINDS = ("profiles", "suites", "stacks", "yaml")
CORPUS = {kind: sorted((HERE / kind).glob("*.yaml")) for kind in KINDS}
FILES = [p for kind in KINDS for p in CORPUS[kind]]
EXPECT = re.compile(r"^# expect: (?P<line>\d+):(?P<col>\d+): (?P<message>.+)$")
#: the least each kind of input must have (the issue asks for at least 150 bad inputs in all)
MINIMUM = {"profiles": 60, "suites": 60, "stacks": 12, "yaml": 20}


def expectations(path: Path) -> list[tuple[int, int, str]]:
    text = path.read_bytes().decode("utf-8", errors="replace").lstrip("\ufeff")
    out = []
    for line in re.split(r"\r\n|\r|\n", text):
        m = EXPECT.match(line)
        if not m:
            break
        out.append((int(m["line"]), int(m["col"]), m["message"]))
    return out


def located_errors(rel: str, stderr: str) -> list[tuple[int, int, str]]:
    pattern = re.compile(rf"^{re.escape(rel)}:(\d+):(\d+): (.*)$")
    return [(int(m[1]), int(m[2]), m[3]) for m in map(pattern.match, stderr.splitlines()) if m]


def test_corpus_is_large_enough() -> None:
    for kind, least in MINIMUM.items():
        assert len(CORPUS[kind]) >= least, kind
    assert len(FILES) >= 150


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name.removesuffix('.yaml')}")
def test_bad_input(path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    expected = expectations(path)
    assert expected, f"{path.name}: must start with '# expect: <line>:<col>: <message>' lines"
    monkeypatch.chdir(ROOT)
    rel = str(path.relative_to(ROOT))
    code = main(["validate", rel])
    out = capsys.readouterr()
    assert code == 2, out
    assert f"ok  {rel}" not in out.out
    errors = located_errors(rel, out.err)
    assert len(errors) == len(expected), out.err
    for line, col, words in expected:
        assert any((line, col) == (el, ec) and words in msg for el, ec, msg in errors), (
            f"expected {line}:{col}: {words}\ngot:\n{out.err}")


def test_whole_corpus_through_the_command_line() -> None:
    """The real command, as a lab engineer runs it: exit 2, no traceback, every file invalid."""
    proc = subprocess.run(
        [sys.executable, "-m", "harness", "validate", *(f"tests/bad_input/{k}" for k in KINDS)],
        check=False, cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "\nok  " not in "\n" + proc.stdout
    # another tool's YAML is skipped in a folder walk; named on its own (above) it is an error
    foreign = [p for p in FILES if p.name.startswith("foreign-")]
    assert f"0 valid, {len(FILES) - len(foreign)} invalid, {len(foreign)} skipped" in proc.stderr


# ----------------------------------------------------------------------------- made at test time
def _fifo(d: Path) -> Path:
    os.mkfifo(d / "fifo.yaml")
    return d / "fifo.yaml"


def _device_link(d: Path) -> Path:
    (d / "zero.yaml").symlink_to("/dev/zero")
    return d / "zero.yaml"


def _fifo_link(d: Path) -> Path:
    os.mkfifo(d / "pipe")
    (d / "pipe.yaml").symlink_to(d / "pipe")
    return d / "pipe.yaml"


def _too_big(d: Path) -> Path:
    path = d / "big.suite.yaml"
    with path.open("w") as fh:
        fh.write("spec: tablecert/suite/1\nsuite: big\ntitle: t\ncases:\n")
        fh.write("  # padding\n" * 1_000_000)
    return path


def _dangling(d: Path) -> Path:
    (d / "gone.yaml").symlink_to(d / "nowhere.yaml")
    return d / "gone.yaml"


def _folder(d: Path) -> Path:
    (d / "folder.yaml").mkdir()
    return d / "folder.yaml"


HOSTILE = {
    "fifo": (_fifo, "not a regular file"),
    "symlink-to-device": (_device_link, "not a regular file"),
    "symlink-to-fifo": (_fifo_link, "not a regular file"),
    "ten-megabytes": (_too_big, "larger than the 1,048,576-byte limit"),
    "dangling-symlink": (_dangling, "cannot read: No such file or directory"),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_files(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Never read for ever, never read gigabytes: refused before reading, with a message."""
    make, words = HOSTILE[name]
    path = make(tmp_path)
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}: "), err
    assert words in err


def test_folder_named_like_a_file_is_walked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A folder called x.yaml is a folder: walked, not read as a file."""
    folder = _folder(tmp_path)
    assert main(["validate", str(folder)]) == 2
    assert "no *.yaml files" in capsys.readouterr().err


def test_hostile_corpus_counts() -> None:
    """Corpus size per kind, as the closing note reports it."""
    sizes = {kind: len(CORPUS[kind]) for kind in KINDS} | {"hostile files": len(HOSTILE) + 1}
    assert sum(sizes.values()) >= 150, sizes


def test_stack_file_errors_are_reported_at_the_stack_files_line(tmp_path: Path) -> None:
    """A suite naming a stack whose entry is wrong: the error names the stack file and its line, and
    the suite's step says which stack it cannot use."""
    from harness.errors import InputError, error_lines
    from harness.suites.load.schema import load_suite

    stacks = tmp_path / "fixtures" / "stacks"
    stacks.mkdir(parents=True)
    (stacks / "mine.yaml").write_text(
        "spec: tablecert/stacks/1\nstacks:\n"
        "  good-one:\n    cards: \"9S 2D 9C 9H\"\n    game: baccarat\n    want: \"player+natural-8\"\n"
        "  bad-one:\n    cards: \"AC 5H TH 5D 4D 2D\"\n    game: baccarat\n    want: \"banker\"\n")
    suite = tmp_path / "s.suite.yaml"
    suite.write_text(
        "spec: tablecert/suite/1\nsuite: s\ntitle: t\ncases:\n"
        "  - id: a\n    title: t\n    clauses: [pa-midi-r9-f1-royal9]\n    steps:\n"
        "      - open_round\n      - deal: {stack: bad-one}\n      - expect_outcome: oracle\n"
        "  - id: b\n    title: t\n    clauses: [pa-midi-r9-f1-royal9]\n    steps:\n"
        "      - open_round\n      - deal: {stack: good-one}\n      - expect_outcome: oracle\n")
    with pytest.raises(InputError) as info:
        load_suite(suite, fixtures=tmp_path / "fixtures")
    errors = [(e.path, e.line, e.message) for e in error_lines(info.value)]
    assert (str(stacks / "mine.yaml"), 8, "stacks.bad-one.cards: the cards do not produce the want 'banker': "
            "banker: winner is player") in errors
    assert any(path == str(suite) and line == 10 and "stack 'bad-one' cannot be used" in msg
               for path, line, msg in errors)
    assert len(errors) == 2  # the good stack in the same file is usable
