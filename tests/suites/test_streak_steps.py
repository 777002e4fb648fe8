"""The three-consecutive-games wager in the suites (WAC 230-15-040(8)(b)): rounds built from wanted
winners for each table when the case is collected, and which wagers left on the layout are the (8)(b)
exception."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.devices.roles import Wager
from harness.games.baccarat import deal_round
from harness.profiles import load_profile, load_profile_text
from harness.suites.load.schema import load_suite
from harness.suites.steps.streak import riding_exception

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "suites" / "washington" / "wac-230-15-040-streak3.suite.yaml"
MINI = (ROOT / "device_profiles" / "emulated-mini-baccarat.yaml").read_text()


def _games(profile_text: str, case: str) -> tuple[tuple[str, tuple[object, ...]], ...]:
    profile = load_profile_text(profile_text, "mini.yaml")
    (found,) = [c for c in load_suite(SUITE, profile=profile).cases if c.name == case]
    assert found.not_for_table is None and found.bind_error is None
    (streak,) = [s for s in found.steps if s.action == "streak3"]
    return streak.args["games"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("decks", [1, 8])
def test_each_game_is_dealt_from_cards_built_for_the_table(decks: int) -> None:
    games = _games(MINI.replace("  decks: 8", f"  decks: {decks}"), "banker-streak-loses-second")
    assert [w for w, _cards in games] == ["banker", "player", "banker"]
    for winner, cards in games:
        rnd = deal_round(cards)  # type: ignore[arg-type]
        assert rnd.winner == winner and rnd.cards_used == len(cards)


def test_without_a_profile_the_reference_table_builds_them() -> None:
    (case,) = [c for c in load_suite(SUITE).cases if c.name == "tie-in-the-streak-loses"]
    (streak,) = [s for s in case.steps if s.action == "streak3"]
    assert [deal_round(cards).winner for _w, cards in streak.args["games"]] == ["player", "player", "tie", "player"]


def test_the_cases_apply_only_where_the_rules_submission_offers_the_wager() -> None:
    mini = load_profile(ROOT / "device_profiles" / "emulated-mini-baccarat.yaml")
    from harness.games.interpretations import Interpretations
    from harness.suites.load.applicability import not_applicable

    interp = Interpretations.from_overrides({})
    cases = {c.name: c for c in load_suite(SUITE, profile=mini).cases}
    assert not_applicable(mini, interp, cases["player-streak-wins-three"]) is None
    assert "wa-streak3-tie = push" in str(not_applicable(mini, interp, cases["tie-in-the-streak-pushes"]))
    midi = load_profile(ROOT / "device_profiles" / "emulated-midi-5.yaml")
    assert "lacks capability streak3" in str(not_applicable(midi, interp, cases["player-streak-wins-three"]))


def test_riding_exception() -> None:
    listed = [
        Wager(1, "streak3-player", 500, 1),
        Wager(2, "streak3-banker", 500, 2),
        Wager(3, "streak3-banker", 500, 3),  # past its third game
        Wager(4, "streak3-player", 500, 0),  # a settled round it took no part in
        Wager(5, "streak3-player", 500),  # the device does not say how many games
        Wager(6, "player", 500),  # a single-deal wager left over
    ]
    allowed, wrong = riding_exception(listed)
    assert [w.seat for w in allowed] == [1, 2]
    assert len(wrong) == 4
    assert "past its third game" in wrong[0] and "in no game yet" in wrong[1]
    assert "not reported" in wrong[2] and wrong[3] == "seat 6 player $5.00"
