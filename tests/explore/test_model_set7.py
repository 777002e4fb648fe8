"""The model's checks added after the seventh set of faults (tests/independent/FAULTS7.md) was measured:
a round settled once sends one round_end (pure: no device, no process)."""

from __future__ import annotations

import test_model_widened as widened
from test_model_widened import play, rules_of

from harness.explore import rules as R
from harness.explore.model import TableModel
from harness.explore.ops import DealFirst, DealRest, LoadShoe, OpenRound, PlaceWager
from harness.profiles.load import load_profile

MIDI5 = load_profile("device_profiles/emulated-midi-5.yaml")
NATURALS = ("8C", "8D", "TH", "TS")  # player 8C TH, banker 8D TS: two naturals, a tie on four cards


def test_a_round_settled_once_sends_one_round_end(model: TableModel) -> None:
    s = play(model, model.initial(), OpenRound(), PlaceWager(1, "player", 500), LoadShoe(NATURALS), DealFirst())
    out = model.step(s, DealRest())[0]
    assert out.settlement is not None
    payouts = dict(out.settlement.payouts)
    end = ("controller", "round_end", {"round": None, "void": False}, 7)
    once = widened.shown(out.state, payouts=payouts, events=[end])
    assert rules_of(model, out, once) == []
    twice = widened.shown(out.state, payouts=payouts, events=[end, (*end[:3], 8)])
    assert rules_of(model, out, twice) == [R.SETTLE.name]
