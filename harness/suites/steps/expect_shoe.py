"""Expectations on the shoe's own reports: the cards it reported, by position, and its count.

WAC 230-15-040(1): the game is played with standard cards or approved electronic facsimiles; the
facsimile an electronic shoe reports must be the card dealt.  A card the shoe cannot read is
reported as ``misread`` at its position and is still out of the shoe (docs/protocol.md section 6.2).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from harness.errors import DeviceError, DeviceTimeout
from harness.suites.load.model import Step
from harness.suites.steps.registry import Action, Arg, step

if TYPE_CHECKING:
    from harness.suites.run.context import CaseContext


def _loaded(runner: CaseContext, name: str) -> tuple[Any, ...]:
    if not runner.loaded:
        raise RuntimeError(f"{name} follows a deal from a loaded stack (a `deal` with `cards` or `stack`)")
    if runner.rig.shoe is None:
        raise DeviceError("this case needs a shoe and the profile has none")
    return tuple(runner.loaded)


@step("expect_shoe_count", Action(
    doc="WAC 230-15-040(1): after a deal from a loaded stack the shoe's own count (`shoe.status`) agrees "
    "with the cards it reported out: `cards_dealt` the cards reported since the load (read or misread), "
    "`cards_remaining` the rest of the stack, `state` empty exactly when nothing is left",
))
def expect_shoe_count(runner: CaseContext, step: Step) -> None:
    loaded = _loaded(runner, "expect_shoe_count")
    reported = runner.cards_out()
    shoe = runner.rig.shoe
    assert shoe is not None  # _loaded checked it
    status = shoe.status()
    left = len(loaded) - reported
    runner.measure(step, "cards the shoe counts as dealt since the load", status.cards_dealt, reported,
                   status.cards_dealt == reported, unit="cards",
                   detail=f"{reported} card(s) reported out ('card' or 'misread' events)")
    runner.measure(step, "cards the shoe counts as left", status.cards_remaining, left,
                   status.cards_remaining == left, unit="cards", detail=f"{len(loaded)} loaded")
    want = "empty" if left == 0 else "ready"
    runner.measure(step, "shoe state after the deal", status.state, want, status.state == want)


def _show(reports: list[tuple[str, int, str]]) -> str:
    return " ".join(f"{n}:{card if name == 'card' else name}" for name, n, card in reports)


@step("expect_cards_reported", Action(
    {"misread": Arg("int", lo=1, why="cards are counted from 1 since the shoe was loaded")},
    doc="WAC 230-15-040(1): after a deal from a loaded stack the shoe reported the round's cards in order, "
    "each as a `card` event with the card dealt and its position `n` since the load, and nothing else; the "
    "card at position `misread` (after `device_fault: misread`) as one `misread` event with that `n`, never "
    "as another card, and the cards after it read again",
))
def expect_cards_reported(runner: CaseContext, step: Step, misread: int | None = None) -> None:
    loaded = _loaded(runner, "expect_cards_reported")
    count = runner.round_length(list(loaded)) or len(loaded)
    with contextlib.suppress(DeviceTimeout):  # what did not come is the measurement's FAIL
        runner.wait_for(f"{count} cards out of the shoe", lambda: runner.cards_out() >= count, timeout_s=2.0)
    got = [(e.name, int(e.payload.get("n") or 0), str(e.payload.get("card") or ""))
           for e in runner.round.shoe_events if e.name in ("card", "misread")]
    want = [("misread", k, "") if k == misread else ("card", k, loaded[k - 1].code) for k in range(1, count + 1)]
    runner.measure(step, "cards the shoe reported, by position", _show(got), _show(want), got == want,
                   detail="'card' events as 'n:card', 'misread' events as 'n:misread'")
