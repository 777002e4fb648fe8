"""The model's checks added after the sixteenth set of faults (tests/independent/FAULTS16.md) was measured:
a card's n held to shoe.status cards_dealt once a deal is over, a shoe that counts its kept cards from
another number after power-up judged from that count, a test.deal during a deal answered BUSY, the bench
supply's settings read back across a power cycle, and two frames a receiver must answer (a start of frame
split across writes, a payload of the largest LEN) (pure: no device, no process)."""

from __future__ import annotations

from test_model import _shown
from test_model_widened import play

from harness.explore import rules as R
from harness.explore.judge import Observed, differences, judge, line_differences
from harness.explore.model import TableModel
from harness.explore.ops import DealFirst, LoadShoe, OpenRound, PlaceWager, PowerCycle, op_text, parse_op
from harness.explore.state import State

CARDS = ("2S", "3H", "4D", "5C", "6S", "7H", "8D", "9C")


def _card(n: int, card: str = "2S") -> tuple[str, str, dict[str, object], int]:
    return ("shoe", "card", {"event": "card", "card": card, "n": n}, n)


def _rules(model: TableModel, out: object, got: Observed) -> list[tuple[str, object, object]]:
    return [(d.rule, d.expected, d.got) for d in differences(model, out, got, None)]  # type: ignore[arg-type]


def test_a_cards_n_and_the_shoes_count_agree_once_a_deal_is_over(model: TableModel) -> None:
    # docs/protocol.md 6.2: a card's n and shoe.status cards_dealt both count "since the shoe was loaded"
    s = play(model, model.initial(), LoadShoe(CARDS), OpenRound(), PlaceWager(1, "player", 500))
    out = model.step(s, DealFirst())[0]
    shown = _shown(out.state, op="deal_first", events=[_card(1)], shoe=(1, 7), shoe_state="ready")
    assert [r for r in _rules(model, out, shown) if r[0] == R.SHOE.name] == []
    # the shoe's cards unknown to the model (after a power cycle): the n and the count still must agree
    unknown = State(**{**out.state.__dict__, "shoe": None})
    out.state = unknown
    ok = _shown(unknown, op="deal_first", events=[_card(3)], shoe=(3, 5), shoe_state="ready")
    assert [r for r in _rules(model, out, ok) if r[0] == R.SHOE.name] == []
    zeroed = _shown(unknown, op="deal_first", events=[_card(3)], shoe=(1, 5), shoe_state="ready")
    assert ("shoe", 3, 1) in _rules(model, out, zeroed)
    # a deal still under way, or a step that is not a deal (a load in it), is not held to it
    dealing = _shown(unknown, op="deal_first", events=[_card(3)], shoe=(1, 5), shoe_state="dealing")
    assert ("shoe", 3, 1) not in _rules(model, out, dealing)
    loaded = _shown(unknown, op="load", events=[_card(3)], shoe=(0, 8), shoe_state="ready")
    assert ("shoe", 3, 0) not in _rules(model, out, loaded)


def test_a_shoe_counting_its_kept_cards_from_another_number_is_judged_from_there(model: TableModel) -> None:
    # two cards dealt, the power cycled: the shoe holds the same six cards and counts them from 0 (it took the
    # power-up for a load of what it holds): its next card must be n 1, and n 3 is a difference
    dealt = play(model, model.initial(), LoadShoe(CARDS), OpenRound(), PlaceWager(1, "player", 500), DealFirst())
    s = play(model, dealt, OpenRound()) if dealt.phase == "settled" else dealt
    s.dealt, s.shoe = 2, CARDS[2:]
    outs = model.step(s, PowerCycle())
    taken, diffs = judge(model, outs, _shown(outs[0].state, shoe=(0, 6), shoe_state="ready",
                                             events=[("controller", "lockout",
                                                      {"event": "lockout", "locked": True, "cause": "power"}, 1)]))
    assert taken is not None and not diffs, diffs
    assert taken.choice == "the shoe counts its cards kept from another number after power-up"
    assert (taken.state.shoe, taken.state.dealt) == (CARDS[2:], 0)
    # counted on as before the power (2 out, 6 in): the shoe kept its count
    outs = model.step(s, PowerCycle())
    kept, _ = judge(model, outs, _shown(outs[0].state, shoe=(2, 6), shoe_state="ready",
                                        events=[("controller", "lockout",
                                                 {"event": "lockout", "locked": True, "cause": "power"}, 1)]))
    assert kept is not None and (kept.state.shoe, kept.state.dealt) == (CARDS[2:], 2)
    # another number of cards in it: unknown until the next load
    outs = model.step(s, PowerCycle())
    fresh, _ = judge(model, outs, _shown(outs[0].state, shoe=(0, 0), shoe_state="empty",
                                         events=[("controller", "lockout",
                                                  {"event": "lockout", "locked": True, "cause": "power"}, 1)]))
    assert fresh is not None and fresh.state.shoe is None
    assert fresh.choice == "the shoe counts afresh after power-up"


def test_a_deal_asked_while_the_shoe_deals_is_answered_busy(model: TableModel) -> None:
    # docs/protocol.md section 7, test.deal: "BUSY while dealing"
    out = model.step(model.initial(), OpenRound())[0]
    busy = R.DEAL_BUSY.name
    assert [r for r in _rules(model, out, _shown(out.state, busy_answer="BUSY")) if r[0] == busy] == []
    assert (busy, "NAK BUSY", "RSP (taken)") in _rules(model, out, _shown(out.state, busy_answer="ok"))
    assert (busy, "NAK BUSY", "NAK REFUSED") in _rules(model, out, _shown(out.state, busy_answer="REFUSED"))
    assert R.DEAL_BUSY.clause == "contract-7-deal-busy"


def test_the_bench_instrument_reads_each_setting_back_across_a_power_cycle(model: TableModel) -> None:
    # docs/protocol.md section 9: OUTP? reads 1 / 0, VOLT? the voltage set
    out = model.step(model.initial(), OpenRound())[0]
    right = [("VOLT? after VOLT 11.900", "11.900", "11.900"), ("OUTP? after OUTP OFF", "0", "0"),
             ("OUTP? after OUTP ON", "1", "1"), ("VOLT? after OUTP OFF and OUTP ON", "11.900", "11.900")]
    shown = _shown(out.state, instrument_reads=right)
    assert [r for r in _rules(model, out, shown) if r[0] == R.INSTRUMENTS.name] == []
    lost = [*right[:3], ("VOLT? after OUTP OFF and OUTP ON", "11.900", "12.000")]
    assert (R.INSTRUMENTS.name, "11.900", "12.000") in _rules(model, out, _shown(out.state, instrument_reads=lost))
    assert R.INSTRUMENTS.clause == "contract-9-instruments"


def test_a_ping_split_at_its_start_or_of_the_largest_length_must_be_answered() -> None:
    # docs/protocol.md section 2: the receiver "scans for A5 5A" and "waits for the whole frame"; LEN is 0..4096
    def seen(kind: str, answers: list[tuple[str, int | None]]) -> list[str]:
        return [str(d.got) for d in line_differences(Observed(op="bad_frame", frame_kind=kind, frame_seq=9,
                                                              frame_answers=answers))]

    for kind in ("split-start", "full-length"):
        assert seen(kind, [("ok", 9)]) == []
        assert seen(kind, [("BAD_FRAME", 9)]) != []
        assert seen(kind, []) != []
        text = f"bad_frame role=shoe kind={kind}"
        assert op_text(parse_op(text)) == text
    assert seen("full-length", []) == ["none (a frame of the largest LEN dropped)"]
