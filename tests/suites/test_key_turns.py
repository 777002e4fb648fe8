"""The attendant's reset key after a round (``hits_to_pay``): a mystery award drawn at the key turn
from the contributions held while the last one waited (Royal 9 (h), attendant-paid) is a new
award, paid and keyed in turn; a payment still pending after its key with no new hit is the fault.

Found when a compliant table (configuration 3 paid by an attendant, awards of the trigger amount)
reached its new trigger at the reseed: the key was turned once and the second award left pending."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from harness.devices.link import DeviceEvent
from harness.suites.steps.core import hits_to_pay


def _event(name: str, **payload: Any) -> DeviceEvent:
    return DeviceEvent(name, payload, 0, 0)


class _Table:
    """A controller whose mystery award waits for the key; each turn in ``chain`` announces a new
    award and leaves the meter pending again, a turn in ``stuck`` leaves it pending silently."""

    def __init__(self, chain: int, stuck: bool = False) -> None:
        self.chain, self.stuck = chain, stuck
        self.pending = {"mystery": 19761}
        self.turns = 0
        self.round = SimpleNamespace(ctrl_events=[
            _event("hit", seat=5, category="mystery", meter="mystery", amount=19761),
            _event("payout", seat=5, type="royal9", category="mystery", paid_by="attendant"),
            _event("round_end", round=200)])
        self.profile = SimpleNamespace(link=None)

    def pump(self, timeout_s: float = 0.0) -> None:
        pass

    def interpretation(self, name: str) -> Any:
        return None

    def read_meters(self) -> Any:
        return SimpleNamespace(pending=dict(self.pending))

    def perform(self, act: Any) -> None:
        assert act.meter == "mystery"
        self.turns += 1
        if self.stuck:
            return
        self.pending.pop("mystery")
        if self.turns <= self.chain:
            self.round.ctrl_events += [_event("reset", meter="mystery", amount=10026),
                                       _event("hit", seat=5, category="mystery", meter="mystery", amount=10026)]
            self.pending["mystery"] = 10026


def test_an_award_drawn_at_the_key_is_keyed_in_turn() -> None:
    for chain in (0, 1, 3):
        table = _Table(chain)
        problems, turned = hits_to_pay(table)  # type: ignore[arg-type]
        assert (problems, turned, table.turns, table.pending) == ([], ("mystery",), chain + 1, {})


def test_a_payment_still_pending_after_its_key_is_a_problem() -> None:
    table = _Table(0, stuck=True)
    problems, _turned = hits_to_pay(table)  # type: ignore[arg-type]
    assert table.turns == 1 and problems == ["payments still pending on mystery after the reset key, with no new hit"]


def test_a_key_that_never_settles_ends() -> None:
    table = _Table(100)
    problems, _turned = hits_to_pay(table)  # type: ignore[arg-type]
    assert table.turns == 10 and problems == ["payments still pending on mystery after 10 turns of the key"]


def test_an_award_at_the_key_turn_is_counted_as_the_devices_choice() -> None:
    from harness.suites.steps.mystery import _awards_at_the_key

    table = _Table(2)
    hits_to_pay(table)  # type: ignore[arg-type]
    assert _awards_at_the_key(table.round.ctrl_events) == 2
    assert _awards_at_the_key(_Table(0).round.ctrl_events) == 0
