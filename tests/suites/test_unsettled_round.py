"""A round the controller leaves unsettled after the shoe reported its last card is the controller's FAIL
(docs/protocol.md section 8, clause contract-8-round-on-the-shoes-cards), measured before the wait's
error ends the case; a round something held (a power cut, a lost link, a misread) or a Hit and Run hand
(the dealer may end it) stays the wait's error."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from harness.cards import parse_card
from harness.devices.link import DeviceEvent
from harness.suites.load.model import Step
from harness.suites.run.context import RoundLog
from harness.suites.steps.core import unsettled_after_last_card

STEP = Step("deal", {}, "<test>", 1, 1, "- deal")
NATURAL = [parse_card(c) for c in ["9S", "6D", "9C", "3H"]]


def _runner(game: str = "midibaccarat", cards: list[Any] = NATURAL, shoe: tuple[str, ...] = (),
            causes: tuple[str, ...] = ("card",)) -> Any:
    measured: list[tuple[str, Any, bool, str | None]] = []
    log = RoundLog()
    log.cards = [(c, i) for i, c in enumerate(cards)]
    log.shoe_events = [DeviceEvent(name, {}, i, i) for i, name in enumerate(shoe)]
    log.ctrl_events = [DeviceEvent("lockout", {"locked": True, "cause": c}, i, i) for i, c in enumerate(causes)]
    return SimpleNamespace(profile=SimpleNamespace(game=game), round=log, measured=measured,
                           round_length=lambda got: 4 if len(got) >= 4 else None,
                           measure=lambda step, name, value, limit, passed, *a, clause=None, **k:
                           measured.append((name, value, passed, clause)))


def test_a_whole_round_reported_by_the_shoe_and_left_unsettled_fails() -> None:
    runner = _runner()
    unsettled_after_last_card(runner, STEP)
    assert runner.measured == [("'round_end' after the round's last card", "none", False,
                                "contract-8-round-on-the-shoes-cards")]


@pytest.mark.parametrize("runner", [
    _runner(cards=NATURAL[:3]),  # the round is not whole yet
    _runner(shoe=("card", "misread")),  # a card out unread
    _runner(shoe=("error",)),
    _runner(causes=("card", "power")),  # the power went
    _runner(causes=("card", "comm-lost")),  # the sensors link went
    _runner(game="blackjack-hit-and-run"),  # the dealer may end the hand (end_round)
], ids=["three-cards", "misread", "shoe-error", "power", "comm-lost", "hit-and-run"])
def test_a_round_something_held_stays_the_waits_error(runner: Any) -> None:
    unsettled_after_last_card(runner, STEP)
    assert runner.measured == []
