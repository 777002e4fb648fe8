"""One boundary for text and options (issue 32): odd names, long paths, an ASCII locale and options
after ``--`` get one message and an exit status, never a traceback, and nothing is written."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main

ROOT = Path(__file__).resolve().parents[2]
PROFILE = str(ROOT / "device_profiles" / "emulated-mini-baccarat.yaml")


@pytest.mark.parametrize("opt", ["--tc-run-id", "--tc-profile", "--tc-report-dir", "--tc-resume=x"])
def test_options_after_double_dash_cannot_set_tablecerts_own(opt: str, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--profile", PROFILE, "--report-dir", str(tmp_path), "--", opt, "../x"]) == 2
    err = capsys.readouterr().err
    assert f"{opt.split('=', maxsplit=1)[0]} after '--'" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("name", "said"), [
    ("J\udce9r\udcf4me", "the byte 0xE9, which is not UTF-8"),  # a Latin-1 byte, as Python decodes argv
    ("a\x1b[31mb", "U+001B ESCAPE"),
    ("two\nlines", "a line break"),
    ("x" * 201, "201 characters long"),
])
def test_operator_is_checked_before_anything_is_written(name: str, said: str, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--profile", PROFILE, "--report-dir", str(tmp_path), "--operator", name]) == 2
    err = capsys.readouterr().err
    assert f"--operator {said}" in err or ("--operator" in err and said in err), err
    assert list(tmp_path.iterdir()) == []


def test_a_report_folder_name_too_long_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--profile", PROFILE, "--report-dir", str(tmp_path / ("r" * 300))]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "File name too long" in err[0] and "characters)" in err[0]


@pytest.mark.parametrize("command", [["catalogue"], ["catalogue", "--help"]])
def test_output_on_an_ascii_only_locale(command: list[str]) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "PYTHONUTF8")}
    env.update(LC_ALL="C", LANG="C", PYTHONUTF8="0", PYTHONCOERCECLOCALE="0")
    out = subprocess.run([sys.executable, "-m", "harness", *command], cwd=ROOT, env=env, capture_output=True,
                         timeout=120, check=False)
    assert out.returncode == 0, out.stderr.decode("ascii", "replace")[-500:]
    assert b"Traceback" not in out.stderr
    out.stdout.decode("ascii")  # every byte ASCII: characters the locale lacks are escaped


@pytest.mark.parametrize("command", [
    ["validate", "{long}.yaml"], ["report", "{long}"], ["keygen", "{long}.key"], ["verify", "{long}"],
    ["run", "{long}.suite.yaml", "--profile", PROFILE], ["run", "--resume", "{long}"],
])
def test_a_file_name_too_long_is_a_message_never_a_traceback(command: list[str], tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    long = str(tmp_path / ("x" * 300))
    assert main([arg.replace("{long}", long) for arg in command]) == 2
    err = capsys.readouterr().err
    assert err.strip() and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []
