"""``tablecert plan-randomness``: the plan for a profile, text and JSON; bad profile keys refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main

ROOT = Path(__file__).resolve().parents[2]
MYSTERY = ROOT / "device_profiles" / "emulated-midi-5-mystery.yaml"


def test_plan_prints_every_battery(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan-randomness", "--profile", str(MYSTERY), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    kinds = [b["kind"] for b in data["batteries"]]
    assert kinds == ["shuffler", "shoe", "mystery"]
    shuffler = data["batteries"][0]
    assert shuffler["needed"] == max(d["needed"] for d in shuffler["defects"])
    assert all(d["needed"] is not None for b in data["batteries"] for d in b["defects"])


def test_plan_level_follows_the_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = MYSTERY.read_text() + 'randomness:\n  confidence: "95%"\n  shuffler: {period: 40}\n'
    path = tmp_path / "p.yaml"
    path.write_text(text)
    assert main(["plan-randomness", "--profile", str(path)]) == 0
    out = capsys.readouterr().out
    assert "95% confidence from the profile's randomness.confidence" in out
    assert "41 shuffles" in out


def test_bad_randomness_key_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(MYSTERY.read_text() + "randomness:\n  confidense: 95%\n")
    assert main(["plan-randomness", "--profile", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "unknown key 'confidense'" in err and str(path) in err
