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


def test_mystery_laws_and_distance_are_declared_in_the_profile(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(MYSTERY.read_text() + 'randomness:\n  mystery: {laws: [lower-half], distance: "0.3"}\n')
    assert main(["plan-randomness", "--profile", str(path), "--json"]) == 0
    mystery = json.loads(capsys.readouterr().out)["batteries"][2]
    names = [d["name"] for d in mystery["defects"]]
    assert names == ["mystery-trigger-lower-half", "trigger-law-distance"]
    assert mystery["needed"] == max(d["needed"] for d in mystery["defects"])
    path.write_text(MYSTERY.read_text() + "randomness:\n  mystery: {laws: [lower-halve]}\n")
    assert main(["plan-randomness", "--profile", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "randomness.mystery.laws[0]" in err and "lower-half" in err


def test_the_default_mystery_plan_names_the_three_trigger_defects(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan-randomness", "--profile", str(MYSTERY)]) == 0
    out = capsys.readouterr().out
    for defect in ("mystery-trigger-at-must-hit-by", "mystery-trigger-reseed-plus-one", "mystery-trigger-lower-half"):
        assert f"defect {defect}:" in out
    assert "uniform trigger law on [$250.00, $1,000.00]" in out and "rounds per award" in out
