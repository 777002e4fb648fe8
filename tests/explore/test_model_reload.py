"""A shoe loaded again with a round's first cards out (pure: no device, no process): the round is completed
from the new shoe's cards (docs/protocol.md section 8: "the cards a host settles on are the shoe's"), which
count from 1 again (6.2: ``n``, "cards dealt since the shoe was loaded"); a new shoe that cannot complete
the tableau is not loaded by the explorer."""

from __future__ import annotations

from test_model_widened import play

from harness.explore.model import TableModel
from harness.explore.ops import DealFirst, DealNext, DealRest, LoadShoe, OpenRound, PlaceWager
from harness.explore.replay import round_need


def test_the_round_is_completed_from_the_shoe_loaded_again(model: TableModel) -> None:
    first = play(model, model.initial(), OpenRound(), PlaceWager(1, "player", 1000),
                 LoadShoe(("2C", "3D", "9S", "9H", "9D", "9C")), DealFirst(), DealNext())
    assert first.round_cards == ("2C", "3D") and first.dealt == 2
    reload = LoadShoe(("4H", "4S", "KD", "KC"))
    assert model.legal(first, reload)
    # the tableau 2C 3D 4H 4S: Player 6, Banker 7, no third card: two cards still to come
    assert round_need(model, first, reload) == 2
    loaded = play(model, first, reload)
    assert (loaded.round_need, loaded.dealt, loaded.shoe) == (4, 0, ("4H", "4S", "KD", "KC"))
    cards = model.card_events(loaded, DealRest())
    assert [(e[2]["card"], e[2]["n"]) for e in cards] == [("4H", 1), ("4S", 2)]
    outs = model.step(loaded, DealRest())
    assert {(o.state.phase, o.state.shoe, o.state.dealt) for o in outs} == {("settled", ("KD", "KC"), 2)}


def test_a_shoe_that_cannot_complete_the_round_is_not_loaded_in_it(model: TableModel) -> None:
    first = play(model, model.initial(), OpenRound(), PlaceWager(1, "player", 1000),
                 LoadShoe(("2C", "3D", "9S", "9H", "9D", "9C")), DealFirst())
    assert not model.legal(first, LoadShoe(("4H",)))
    # 2C 4H 4S 3D: Player 6, Banker 7, four cards (with KD for 3D the Banker's 4 draws a fifth card)
    assert model.legal(first, LoadShoe(("4H", "4S", "3D")))
    assert not model.legal(first, LoadShoe(("4H", "4S", "KD")))
    # between rounds any shoe may be loaded
    assert model.legal(model.initial(), LoadShoe(("4H",)))
