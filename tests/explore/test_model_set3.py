"""The model's checks added for the third set of faults (tests/independent/FAULTS3.md): the config.set
answer, the profile's config_writes:, writes of decks, personal combinations and display capacities,
the payouts' order, every device's identity and serial, the answer time of the acts, two payments
pending at once, and the event numbering after power-up (pure: no device, no process)."""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from typing import Any

from harness.explore import rules as R
from harness.explore.draws import CONFIG_TEMPLATES, Draws
from harness.explore.judge import Observed, config_view, differences, serial_differences
from harness.explore.model import Permitted, TableModel
from harness.explore.ops import ConfigWrite, DealFirst, DealRest, LoadShoe, OpenRound, PlaceWager, ResetKey
from harness.explore.state import State
from harness.profiles.load import load_profile

MIDI5 = load_profile("device_profiles/emulated-midi-5.yaml")


def shown(s: State, **fields: Any) -> Observed:
    base = Observed(code="ok", config=None, meters={n: m.amount for n, m in s.meters.items()},
                    residual={n: m.residual for n, m in s.meters.items()},
                    diverted={n: m.diverted for n, m in s.meters.items()},
                    layout=tuple(sorted((seat, kind, a) for (seat, kind), a in s.layout.items())),
                    locked=s.locked, cause=s.cause if s.locked else None, pending=s.pending,
                    cumulative_paid=s.cumulative_paid, paid_by_table=s.paid_by_table,
                    paid_by_attendant=s.paid_by_attendant)
    return Observed(**{**base.__dict__, **fields})


def pick(outs: list[Permitted], choice: str | None = None) -> Permitted:
    """The outcome of ``choice``; where the model leaves no choice, its one outcome."""
    if choice and len(outs) > 1:
        return next(o for o in outs if o.choice == choice)
    return outs[0]


def test_the_config_set_answer_is_the_configuration_as_it_now_stands(model: TableModel) -> None:
    s = model.initial()
    out = pick(model.step(s, ConfigWrite({"meters": {"major": {"rate": "0.6"}}})), "config write in range taken")
    now = config_view(out.state)
    assert R.CONFIG_ANSWER.name in out.rules
    assert differences(model, out, shown(out.state, config=now, config_answer=now), None) == []
    old = config_view(s)  # the meters as they were before the write
    diffs = differences(model, out, shown(out.state, config=now, config_answer=old), None)
    assert [d.rule for d in diffs] == [R.CONFIG_ANSWER.name]


def test_a_field_the_profile_never_lets_write_is_refused(model: TableModel) -> None:
    fixed = dataclasses.replace(MIDI5, config_writes={"denomination": "never", "meters": "between-rounds",
                                                      "combinations": "never", "decks": "never",
                                                      "commission": "between-rounds"})
    m = TableModel(fixed)
    s = m.initial()
    outs = m.step(s, ConfigWrite({"denomination": 100}))
    assert [o.answer.codes for o in outs] == [frozenset({"REFUSED"})]
    assert outs[0].rules[0] == R.CONFIG_WRITES.name
    # a write of the values in force changes nothing and may be taken (docs/protocol.md 6.4)
    same = m.step(s, ConfigWrite({"decks": s.decks}))
    assert {o.choice for o in same} == {"a write of the values in force taken",
                                        "a write of the values in force refused"}
    # a field it takes between rounds: taken (docs/device-profiles.md, "a refusal then is a FAIL"), a meter's
    # rate and amounts among them; a display capacity stays taken or refused (one the display cannot show)
    assert [o.answer.codes for o in m.step(s, ConfigWrite({"commission": "4"}))] == [frozenset({"ok"})]
    assert len(m.step(s, ConfigWrite({"meters": {"major": {"reset": s.meter_cfg["major"].reset + 1}}}))) == 1
    assert [o.answer.codes for o in m.step(s, ConfigWrite({"meters": {"major": {"rate": "0.25"}}}))] == [
        frozenset({"ok"})]
    assert len(m.step(s, ConfigWrite({"meters": {"major": {"display_capacity": 9_999_999}}}))) == 2


def test_a_field_the_profile_leaves_unstated_is_taken_or_refused() -> None:
    # no config_writes: and no config-write: the suites hold such writes NOT APPLICABLE, and the explorer
    # takes the device's answer either way, recording which (no clause requires a controller to take a write)
    quiet = dataclasses.replace(MIDI5, config_writes={f: "never" for f in MIDI5.config_writes},
                                unstated_writes=frozenset(MIDI5.config_writes),
                                capabilities=MIDI5.capabilities - {"config-write"})
    m = TableModel(quiet)
    s = m.initial()
    outs = m.step(s, ConfigWrite({"decks": 6}))
    assert {(o.choice, tuple(sorted(o.answer.codes))) for o in outs} == {
        ("config write in range taken", ("ok",)),
        ("config write of a field the profile leaves unstated refused", ("REFUSED",))}
    assert pick(outs, "config write in range taken").state.decks == 6
    assert pick(outs, "config write of a field the profile leaves unstated refused").state.decks == s.decks
    # out of range stays refused whatever the profile says
    assert [o.answer.codes for o in m.step(s, ConfigWrite({"decks": 17}))] == [frozenset({"REFUSED", "BAD_ARGS"})]
    # and every write template is drawn, not only the ones a device that takes nothing must refuse
    assert Draws(m).templates() == CONFIG_TEMPLATES


def test_decks_and_personal_combinations_are_configuration(model: TableModel) -> None:
    s = model.initial()
    assert [o.answer.codes for o in model.step(s, ConfigWrite({"decks": 17}))] == [frozenset({"REFUSED", "BAD_ARGS"})]
    # decks and combinations are between-rounds on this profile: taken, the one outcome
    (six,) = model.step(s, ConfigWrite({"decks": 6}))
    assert six.state.decks == 6 and config_view(six.state)["decks"] == 6
    seats = [{"seat": seat, "combo": list(combo) if combo else None} for seat, combo in s.seats]
    seats[0]["combo"], seats[1]["combo"] = seats[1]["combo"], seats[0]["combo"]
    (swapped,) = model.step(s, ConfigWrite({"seats": seats}))
    assert swapped.state.seats[0][1] == s.seats[1][1] and swapped.state.seats[1][1] == s.seats[0][1]
    dup = [dict(x) for x in seats]
    dup[1]["combo"] = dup[0]["combo"]  # two seats with one combination: 629a Royal 9 (e)(5)
    # well-formed (two cards each), declined on purpose: REFUSED, never BAD_ARGS (docs/protocol.md 3, 6.4)
    assert [o.answer.codes for o in model.step(s, ConfigWrite({"seats": dup}))] == [frozenset({"REFUSED"})]
    queen = [dict(x) for x in seats]
    queen[0]["combo"] = ["QS", "9S"]
    refused = [frozenset({"REFUSED"})]
    assert [o.answer.codes for o in model.step(s, ConfigWrite({"seats": queen}))] == refused
    # the combinations in force decide the meter jackpots: seat 1's written combination (seat 2's filed
    # one, KH 9H) on the Banker hand is seat 1's major
    king, nine = s.seats[1][1] or ("KH", "9H")
    t = swapped.state
    for op in (OpenRound(), PlaceWager(1, "player", 500), PlaceWager(1, "royal9", 500),
               LoadShoe(("2C", king, "3D", nine, "4C", "5H")), DealFirst()):
        t = model.step(t, op)[0].state
    settled = model.step(t, DealRest())[0]
    assert [(p.meter, p.seat) for p in settled.state.pending] == [("major", 1)]


def test_a_display_capacity_below_the_payout_limit_is_refused(model: TableModel) -> None:
    s = model.initial()
    limit = s.meter_cfg["major"].payout_limit
    assert limit is not None
    outs = model.step(s, ConfigWrite({"meters": {"major": {"display_capacity": limit - 1}}}))
    assert [o.answer.codes for o in outs] == [frozenset({"REFUSED"})]


def test_payouts_come_in_seat_order_base_wagers_first(model: TableModel) -> None:
    s = model.initial()
    for op in (OpenRound(), PlaceWager(3, "player", 500), PlaceWager(1, "banker", 500),
               PlaceWager(1, "royal9", 500), LoadShoe(("2C", "3D", "4C", "5H", "6C", "7H")), DealFirst()):
        s = model.step(s, op)[0].state
    out = model.step(s, DealRest())[0]
    assert R.PAYOUT_ORDER.name in out.rules
    assert out.settlement is not None
    payouts = dict(out.settlement.payouts)
    good = shown(out.state, payouts=payouts, payout_order=[(1, "banker"), (3, "player"), (1, "royal9")])
    assert differences(model, out, good, None) == []
    placed = shown(out.state, payouts=payouts, payout_order=[(3, "player"), (1, "banker"), (1, "royal9")])
    assert [d.rule for d in differences(model, out, placed, None)] == [R.PAYOUT_ORDER.name]
    mixed = shown(out.state, payouts=payouts, payout_order=[(1, "banker"), (1, "royal9"), (3, "player")])
    assert [d.rule for d in differences(model, out, mixed, None)] == [R.PAYOUT_ORDER.name]


def test_two_devices_answering_one_serial() -> None:
    ok = {"shoe serial": "S-1", "sensors serial": "B-1", "controller serial": "C-1"}
    assert serial_differences(ok) == []
    same = {**ok, "sensors serial": "S-1"}
    assert [(d.rule, d.got) for d in serial_differences(same)] == [(R.IDENTITY_SERIAL.name, "S-1 answered by each")]


def test_an_act_answered_late_every_time_is_a_difference(model: TableModel) -> None:
    s = model.initial()
    out = pick(model.step(s, ConfigWrite({"meters": {"major": {"rate": "0.6"}}})), "config write in range taken")
    slow = shown(out.state, slow_acts=[("config.set", Decimal("250.123"), 6)])
    assert [d.rule for d in differences(model, out, slow, None)] == [R.ACT_TIME.name]
    once = shown(out.state, late_unconfirmed=[("wager.place", Decimal("180"))])
    assert differences(model, out, once, None) == []  # counted, never a finding on its own


def test_the_reset_key_pays_one_meter_of_two_pending(model: TableModel) -> None:
    s = model.initial()
    (k1, n1), (k2, n2) = s.seats[0][1] or ("KS", "9S"), s.seats[1][1] or ("KH", "9H")
    for op in (OpenRound(), PlaceWager(1, "player", 500), PlaceWager(1, "royal9", 500),
               PlaceWager(2, "banker", 500), PlaceWager(2, "royal9", 500),
               LoadShoe((k1, k2, n1, n2, "4C", "5H")), DealFirst()):
        s = model.step(s, op)[0].state
    s = model.step(s, DealRest())[0].state
    assert sorted(p.meter for p in s.pending) == ["major", "minor"]
    out = model.step(s, ResetKey("major"))[0]
    assert [p.meter for p in out.state.pending] == ["minor"]
    cleared = shown(out.state, pending=())
    assert R.RESET_KEY.name in [d.rule for d in differences(model, out, cleared, None)]
