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
    monkeypatch.setattr(validate, "_suite_validator", lambda: lambda name, **kw: seen.append(name))
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


# ----------------------------------------------------------------------------- the boundary (issue 11)
def test_shipped_inputs_all_valid(capsys: pytest.CaptureFixture[str]) -> None:
    """No false rejection of what ships: profiles, suites, and the stack files under fixtures/
    (another tool's YAML there, the pyvisa-sim definitions, is skipped in a walk)."""
    code = main(["validate", str(ROOT / "device_profiles"), str(ROOT / "suites"), str(ROOT / "fixtures")])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert f"ok  {ROOT / 'fixtures' / 'stacks' / 'royal9.yaml'}" in out.out
    assert f"skip {ROOT / 'fixtures' / 'visa' / 'instruments.yaml'}" in out.out


def test_foreign_yaml_named_explicitly_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(ROOT / "fixtures" / "visa" / "instruments.yaml")]) == 2
    assert "spec '1.1': expected tablecert/profile/<version>" in capsys.readouterr().err


@pytest.mark.parametrize("resource", ["ASRL/dev/ttyS0::INSTR", "ASRL1::INSTR", "ASRL/dev/serial/by-id/usb-X::INSTR",
                                      "TCPIP::192.0.2.10::5025::SOCKET", "USB0::0x1234::0x5678::SN1::INSTR"])
def test_visa_resources_the_docs_give_are_accepted(resource: str, tmp_path: Path) -> None:
    import re

    text = GOOD.read_text()
    path = tmp_path / "p.yaml"
    path.write_text(re.sub(r"(power: +\{driver: scpi-power, +resource: )emulator", rf'\1"{resource}"', text))
    assert resource in path.read_text()
    assert main(["validate", str(path)]) == 0


def test_every_error_of_a_file_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "b.yaml"
    bad.write_text(GOOD.read_text().replace("decks: 8", "decks: 9").replace("name: emulated-midi-5", "name: -x"))
    assert main(["validate", str(bad)]) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith(str(bad))]
    assert len(lines) == 2
    assert "name: '-x' does not match" in lines[0] and "rules.decks: 9" in lines[1]


def test_symlinked_folder_is_followed_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    real = tmp_path / "real"
    real.mkdir()
    shutil.copy(GOOD, real / "a.yaml")
    (tmp_path / "walk").mkdir()
    (tmp_path / "walk" / "link").symlink_to(real, target_is_directory=True)
    (real / "loop").symlink_to(tmp_path / "walk", target_is_directory=True)  # a loop ends
    assert main(["validate", str(tmp_path / "walk")]) == 0
    assert capsys.readouterr().out.count("ok  ") == 1


def test_unreadable_folder_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder the walk cannot list fails the run (as root a chmod cannot show it: os.walk's error
    hook is driven directly)."""
    import os

    shutil.copy(GOOD, tmp_path / "a.yaml")
    real_walk = os.walk

    def walk(top: str, onerror: object = None, followlinks: bool = False) -> object:
        assert callable(onerror)
        onerror(PermissionError(13, "Permission denied", str(tmp_path / "locked")))
        return real_walk(top, followlinks=followlinks)

    monkeypatch.setattr("harness.cli.validate.os.walk", walk)
    assert main(["validate", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'locked'}: cannot read this folder: Permission denied" in err


def test_broken_pipe_keeps_the_exit_status(tmp_path: Path) -> None:
    """`tablecert validate DIR | head -1` over an invalid file still exits 2."""
    import subprocess
    import sys

    for n in range(30):
        shutil.copy(GOOD, tmp_path / f"g{n:02d}.yaml")
    (tmp_path / "zz-bad.yaml").write_text(GOOD.read_text().replace("decks: 8", "decks: 9"))
    proc = subprocess.run(
        ["sh", "-c", f"('{sys.executable}' -m harness validate '{tmp_path}'; echo \"status $?\" >&2) | head -1"],
        check=False, capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    assert proc.stdout.count("\n") == 1
    assert "status 2" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_suite_checked_against_a_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--profile: a seat the profile's table does not have is refused at the step naming it."""
    profile = tmp_path / "six.yaml"
    text = GOOD.read_text()
    assert "    - {seat: 7" in text
    profile.write_text("\n".join(line for line in text.splitlines() if "{seat: 7" not in line) + "\n")
    suite = ROOT / "suites" / "royal9" / "paytable-5.suite.yaml"
    assert main(["validate", str(suite)]) == 0
    capsys.readouterr()
    assert main(["validate", str(suite), "--profile", str(profile)]) == 2
    err = capsys.readouterr().err
    assert "seat 7 is not on the table of profile" in err
