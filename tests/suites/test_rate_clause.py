"""A measurement of a meter's growth judges the rate clause of the table (Royal 9 (f)(2) at $5,
(g)(2) at $1, (h) for the mystery meter), whatever else its case cites: a gap finding over many cases
then names that clause instead of "no clause is common to these cases"."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from harness.suites.steps.expect import rate_clause


def _runner(den: int, caps: set[str]) -> Any:
    return SimpleNamespace(profile=SimpleNamespace(capabilities=caps, rules=SimpleNamespace(denomination=den)))


def test_each_meter_answers_to_its_table_s_rate_clause() -> None:
    assert rate_clause(_runner(5, {"royal9"}), "major") == "pa-midi-r9-f2-rate-5"
    assert rate_clause(_runner(1, {"royal9"}), "mega") == "pa-midi-r9-g2-rate-1"
    assert rate_clause(_runner(5, {"royal9", "mystery"}), "mystery") == "pa-midi-r9-h-rate"
    assert rate_clause(_runner(5, {"hit-and-run"}), "hit-and-run") is None
    assert rate_clause(_runner(25, {"royal9"}), "mega") is None  # no Royal 9 paytable at that denomination
