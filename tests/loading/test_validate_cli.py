"""``tablecert validate``: ok lines, positioned errors with context, exit status, directories."""

import shutil
from pathlib import Path

import pytest

from harness.cli import main

ROOT = Path(__file__).resolve().parents[2]
GOOD = ROOT / "device_profiles" / "emulated-midi-5.yaml"


def test_valid_profile(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(GOOD)]) == 0
    out = capsys.readouterr()
    assert out.out.strip() == f"ok  {GOOD}"
    assert out.err == ""


def test_directory_walk_and_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(GOOD, tmp_path / "a.yaml")
    sub = tmp_path / "sub"
    sub.mkdir()
    bad = sub / "b.yaml"
    bad.write_text(GOOD.read_text().replace("decks: 8", "decks: 9"))
    (tmp_path / "notes.txt").write_text("not yaml")
    assert main(["validate", str(tmp_path)]) == 2
    out = capsys.readouterr()
    assert f"ok  {tmp_path / 'a.yaml'}" in out.out
    error_lines = [line for line in out.err.splitlines() if line.startswith(str(bad))]
    assert len(error_lines) == 1
    assert error_lines[0].startswith(f"{bad}:18:10: rules.decks: 9 is out of range (1..8)")
    # the offending lines follow, indented
    assert "    18 |   decks: 9" in out.err
    assert "1 valid, 1 invalid" in out.err


def test_suite_without_validator(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.cli import validate

    monkeypatch.setattr(validate, "_suite_validator", lambda: None)
    suite = tmp_path / "x.suite.yaml"
    suite.write_text("spec: tablecert/suite/1\ncases: []\n")
    assert main(["validate", str(suite)]) == 2
    assert f"{suite}:1:7: suite validation not available" in capsys.readouterr().err


def test_suite_delegated_to_validator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.cli import validate

    seen: list[str] = []
    monkeypatch.setattr(validate, "_suite_validator", lambda: seen.append)
    suite = tmp_path / "x.suite.yaml"
    suite.write_text("spec: tablecert/suite/1\n")
    assert main(["validate", str(suite)]) == 0
    assert seen == [str(suite)]


def test_missing_file_and_empty_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(tmp_path / "nope.yaml")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["validate", str(tmp_path)]) == 2
    assert "no *.yaml files" in capsys.readouterr().err


def test_unknown_spec_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "c.yaml"
    f.write_text("spec: tablecert/catalogue/1\n")
    assert main(["validate", str(f)]) == 2
    assert f"{f}:1:7: spec 'tablecert/catalogue/1'" in capsys.readouterr().err


def test_shipped_profiles_all_valid(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(ROOT / "device_profiles")]) == 0
    assert capsys.readouterr().out.count("ok  ") >= 6
