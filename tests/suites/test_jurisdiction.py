"""A profile is certified for its jurisdictions: a case every clause of which belongs to another one
is NOT APPLICABLE with that reason; a case of its own jurisdiction applies."""

from __future__ import annotations

from pathlib import Path

from harness.games.interpretations import Interpretations
from harness.profiles import load_profile_text
from harness.suites.load.applicability import not_applicable
from harness.suites.load.schema import load_suite

ROOT = Path(__file__).resolve().parents[2]
MIDI5 = (ROOT / "device_profiles" / "emulated-midi-5.yaml").read_text()
WA_SUITE = ROOT / "suites" / "washington" / "wac-230-15-040.suite.yaml"
PA_SUITE = ROOT / "suites" / "identity" / "identity.suite.yaml"


def _reasons(jurisdiction: str | None, suite: Path) -> dict[str, str | None]:
    head, _, tail = MIDI5.partition("\njurisdiction:")
    text = head + ("" if jurisdiction is None else f"\njurisdiction: {jurisdiction}") + "\n" + tail.split("\n", 1)[1]
    profile = load_profile_text(text, "p.yaml")
    interp = Interpretations.from_overrides(dict(profile.interpretations))
    cases = load_suite(suite, fixtures=ROOT / "fixtures", profile=profile).cases
    return {c.name: not_applicable(profile, interp, c) for c in cases}


def test_washington_cases_do_not_apply_to_a_pennsylvania_table() -> None:
    reasons = _reasons("PA", WA_SUITE)
    applying = [name for name, why in _reasons("[PA, WA]", WA_SUITE).items() if why is None]
    assert len(applying) >= 5
    assert all(why is not None for why in reasons.values())
    for name in applying:
        why = reasons[name]
        assert why is not None and "case is for WA" in why and "certified for PA" in why, name


def test_washington_cases_apply_where_the_profile_names_washington() -> None:
    for jurisdiction in ("[PA, WA]", "WA", None):
        reasons = _reasons(jurisdiction, WA_SUITE)
        assert not any(why and "case is for WA" in why for why in reasons.values()), jurisdiction
    assert reasons["at-most-nine-wagering-areas"] is None


def test_pennsylvania_cases_do_not_apply_to_a_washington_only_table() -> None:
    assert all(why and "case is for PA" in why for why in _reasons("WA", PA_SUITE).values())
    assert not any(_reasons("PA", PA_SUITE).values())
