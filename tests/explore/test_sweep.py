"""The defect sweep and the self-check around the explorer: which defects it cannot reach and why, and
the self-check's sample (fast: nothing is explored here; the slow tier and CI explore)."""

from __future__ import annotations

import pytest

from harness.cli import main
from harness.emulators.defects import DEFECTS
from harness.explore.sweep import SELFCHECK_DEFECTS, SELFCHECK_PROFILES, Row, line, out_of_reach


def test_out_of_reach_names_the_reason() -> None:
    assert out_of_reach("lockout-late") is None
    assert "shuffles" in (out_of_reach("shuffler-few-riffles") or "")
    assert "mystery" in (out_of_reach("mystery-redrawn") or "")
    assert "link of tables" in (out_of_reach("link-hit-paid-twice") or "")
    assert "three-games wager" in (out_of_reach("streak3-settled-in-one-deal") or "")


def test_the_selfcheck_sample_is_in_reach_on_two_profiles() -> None:
    assert len(SELFCHECK_PROFILES) == 2
    for _profile, defect in SELFCHECK_DEFECTS:
        assert defect in DEFECTS and out_of_reach(defect) is None


def test_a_false_finding_or_a_miss_is_not_ok() -> None:
    assert Row("p", None, "clean").ok and Row("p", "d", "found").ok and Row("p", "d", "out of reach").ok
    assert not Row("p", None, "FALSE FINDING").ok and not Row("p", "d", "missed").ok
    assert "(clean)" in line(Row("p", None, "clean"))


def test_explore_needs_a_profile_or_the_selfcheck(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore"]) == 2
    assert "--profile P is required" in capsys.readouterr().err
