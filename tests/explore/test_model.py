"""The explorer's model of the device contract, alone (pure: no device)."""

from __future__ import annotations

import dataclasses
import random
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.cards import shoe_composition
from harness.explore import rules as R
from harness.explore.judge import Observed, differences, judge
from harness.explore.model import Permitted, TableModel
from harness.explore.ops import (
    Comm,
    ConfigWrite,
    DealFirst,
    DealMisread,
    DealRest,
    LoadShoe,
    NoMoreBets,
    Op,
    OpenRound,
    PlaceWager,
    PowerCutMidDeal,
    PowerCycle,
    PressLockout,
    Reboot,
    Reconnect,
    RemoveWager,
    ResetKey,
    VoidRound,
    op_text,
    parse_op,
)
from harness.explore.state import State
from harness.profiles.load import load_profile

MIDI5 = load_profile("device_profiles/emulated-midi-5.yaml")


def one(model: TableModel, s: State, op: Op) -> Permitted:
    outs = model.step(s, op)
    assert len(outs) == 1, [o.choice for o in outs]
    return outs[0]


def play(model: TableModel, s: State, *ops: Op) -> State:
    for op in ops:
        s = model.step(s, op)[0].state
    return s


def test_initial_is_the_rules_submission(model: TableModel) -> None:
    s = model.initial()
    assert s.denomination == 500
    assert {n: m.amount for n, m in s.meters.items()} == {"mega": 5_000_000, "major": 45_000, "minor": 45_000}
    assert (s.phase, s.locked, s.cause, s.layout, s.pending) == ("idle", True, "power", {}, ())


def test_wager_refused_before_a_round_and_accepted_in_one(model: TableModel) -> None:
    s = model.initial()
    refused = one(model, s, PlaceWager(1, "player", 500))
    assert refused.answer.accepted is False and refused.answer.reasons == {"locked-out"}
    s = play(model, s, OpenRound())
    s2 = one(model, s, PlaceWager(1, "player", 500)).state
    s3 = one(model, s2, PlaceWager(1, "player", 2500)).state
    assert s3.layout == {(1, "player"): 2500}  # placed again: the new amount replaces the first


def test_royal9_needs_a_base_wager_and_the_denomination(model: TableModel) -> None:
    s = play(model, model.initial(), OpenRound())
    out = one(model, s, PlaceWager(2, "royal9", 500))
    assert out.answer.reasons == {"no-base-wager"} and out.rules == (R.BASE_WAGER.name,)
    s = play(model, s, PlaceWager(2, "banker", 1000))
    assert one(model, s, PlaceWager(2, "royal9", 100)).answer.reasons == {"bad-amount"}
    assert one(model, s, PlaceWager(2, "royal9", 500)).answer.accepted is True


def test_a_bad_seat_may_be_refused_with_another_applicable_reason(model: TableModel) -> None:
    s = play(model, model.initial(), Comm(False))
    assert one(model, s, PlaceWager(8, "royal9", 100)).answer.reasons >= {"bad-seat", "comm-lost"}


def test_contribution_is_exact_at_the_lockout(model: TableModel) -> None:
    s = play(model, model.initial(), OpenRound(), PlaceWager(1, "player", 500), PlaceWager(1, "royal9", 500))
    out = one(model, s, PressLockout())
    m = out.state.meters
    # $5 x 1.25% = 6.25 cents, x 0.5% = 2.5 cents, x 0.35% = 1.75 cents
    assert (m["mega"].amount, m["mega"].residual) == (5_000_006, Decimal("0.25"))
    assert (m["major"].amount, m["major"].residual) == (45_002, Decimal("0.5"))
    assert (m["minor"].amount, m["minor"].residual) == (45_001, Decimal("0.75"))
    assert R.CONTRIBUTE.name in out.rules and out.state.cause == "button"
    # the first card after the button: the device may keep the cause or report card (one outcome each)
    s = play(model, out.state, LoadShoe(("2S", "3H", "4D", "5C", "6S", "7H")))
    assert {o.choice for o in model.step(s, DealFirst())} == {"first card after the lock-out: cause stays",
                                                              "first card after the lock-out: cause card"}


def test_settlement_pays_the_stake_accepted_and_a_meter_jackpot_waits_for_the_key(model: TableModel) -> None:
    # seat 1's suited king-9 (KS 9S) on the Player hand, the Banker without a Royal 9: a meter jackpot
    s = play(model, model.initial(), OpenRound(), PlaceWager(1, "player", 100), PlaceWager(1, "player", 1000),
             PlaceWager(1, "royal9", 500), LoadShoe(("KS", "2H", "9S", "3D", "4C", "5H")), DealFirst())
    out = one(model, s, DealRest())
    assert out.settlement is not None
    stake, returned, _cat = out.settlement.payouts[(1, "player")]
    assert stake == 1000 and returned == 2000
    r9 = out.settlement.payouts[(1, "royal9")]
    assert r9[2] in ("minor", "major", "mega")
    pending = out.state.pending
    assert len(pending) == 1 and pending[0].amount == out.state.meters[pending[0].meter].amount
    assert (out.state.cumulative_paid, out.state.layout, out.state.phase) == (0, {}, "settled")
    assert one(model, out.state, OpenRound()).answer.codes == {"REFUSED"}  # a payment waits for the key
    keyed = one(model, out.state, ResetKey(pending[0].meter)).state
    meter = pending[0].meter
    assert keyed.pending == () and keyed.meters[meter].amount == keyed.meter_cfg[meter].reset
    assert keyed.paid_by_attendant == keyed.cumulative_paid == pending[0].amount
    assert keyed.meters[meter].residual == out.state.meters[meter].residual  # carried across the reset


def test_reset_key_with_nothing_pending_is_refused_and_changes_nothing(model: TableModel) -> None:
    s = model.initial()
    out = one(model, s, ResetKey("mega"))
    assert out.answer.codes == {"REFUSED"} and out.state.meters == s.meters


def test_config_writes(model: TableModel) -> None:
    s = model.initial()
    # the profile's meters are written between rounds (docs/device-profiles.md): a write in range must be taken
    inside = model.step(s, ConfigWrite({"meters": {"major": {"rate": "2"}}}))
    assert [o.answer.codes for o in inside] == [frozenset({"ok"})]
    taken = inside[0].state
    # a display capacity stays the device's choice (one its display cannot show)
    capacity = model.step(s, ConfigWrite({"meters": {"major": {"display_capacity": 99_999_999}}}))
    assert {o.choice for o in capacity} == {"config write in range taken", "config write in range refused"}
    assert taken.meter_cfg["major"].rate == Decimal(2) and taken.meters == s.meters  # never turned back
    # the $1 floors (629a Royal 9 (g)(2)): the later field below its floor, so the denomination is not taken either
    below = one(model, s, ConfigWrite({"denomination": 100, "meters": {"major": {"reset": 8_999}}}))
    # below a floor is well-formed: declined on purpose, REFUSED, never BAD_ARGS (docs/protocol.md 3, 6.4)
    assert below.answer.codes == {"REFUSED"} and below.state.denomination == 500
    malformed = one(model, s, ConfigWrite({"meters": {"major": {"reset": -1}}}))
    assert malformed.answer.codes == {"REFUSED", "BAD_ARGS"}
    limit = one(model, s, ConfigWrite({"meters": {"mega": {"payout_limit": 5_000_000}}}))
    assert R.CONFIG_LIMIT.name in limit.rules
    # the limit in force written again changes nothing: permitted even where the meter stands at it
    capped = s.clone()
    capped.meters["major"].amount = capped.meter_cfg["major"].payout_limit or 0
    again = model.step(capped, ConfigWrite({"meters": {"major": {"payout_limit": capped.meters["major"].amount}}}))
    assert {o.choice for o in again} == {"config write in range taken", "config write in range refused"}
    live = play(model, s, OpenRound())
    assert one(model, live, ConfigWrite({"meters": {"major": {"rate": "2"}}})).rules == (R.CONFIG_LIVE.name,)


def test_power_cycle_keeps_what_is_non_volatile(model: TableModel) -> None:
    s = play(model, model.initial(), OpenRound(), PlaceWager(1, "tie", 500), PlaceWager(1, "royal9", 500),
             PressLockout())
    s.round = 7
    after = one(model, s, PowerCycle()).state
    assert (after.phase, after.locked, after.cause, after.layout) == ("idle", True, "power", {})
    assert after.meters == s.meters and after.round == 7
    # the round number is non-volatile: round 7 was given before the power went, the next is 8 (never 7 again)
    assert {o.answer.fields["round"] for o in model.step(after, OpenRound())} == {8}


def test_judge_names_the_rule_a_device_breaks_and_accepts_a_permitted_choice(model: TableModel) -> None:
    s = model.initial()
    outs = model.step(s, ConfigWrite({"meters": {"minor": {"reset": 45_000}}}))
    shown = Observed(code="ok", config=None, meters={n: m.amount for n, m in s.meters.items()},
                     residual={n: Decimal(0) for n in s.meters}, diverted={n: 0 for n in s.meters},
                     locked=True, cause="power")
    out, diffs = judge(model, outs, shown)
    assert out is not None and not diffs and out.answer.codes == {"ok"}
    turned_back = Observed(**{**shown.__dict__, "meters": {**shown.meters, "major": 44_000}})
    out, diffs = judge(model, outs, turned_back)
    assert out is None and [d.rule for d in diffs] == [R.NO_TURN_BACK.name]
    refused = Observed(**{**shown.__dict__, "code": "REFUSED", "cause": "button"})
    diffs = differences(model, one(model, s, ResetKey("mega")), refused, None)
    assert [d.what for d in diffs] == ["lockout.get cause"]


def _shown(s: State, **fields: object) -> Observed:
    """What a device that took outcome state ``s`` shows (every observable as the model has it)."""
    base = Observed(code="ok", config=None, meters={n: m.amount for n, m in s.meters.items()},
                    residual={n: m.residual for n, m in s.meters.items()},
                    diverted={n: m.diverted for n, m in s.meters.items()},
                    layout=tuple(sorted((seat, kind, a) for (seat, kind), a in s.layout.items())),
                    locked=s.locked, cause=s.cause if s.locked else None, pending=s.pending)
    return Observed(**{**base.__dict__, **fields})


def _lock(locked: bool, cause: str, seq: int) -> tuple[str, str, dict[str, object], int]:
    return ("controller", "lockout", {"event": "lockout", "locked": locked, "cause": cause}, seq)


def test_each_closing_act_must_send_its_lockout_event(model: TableModel) -> None:
    opened = play(model, model.initial(), OpenRound())
    for op, cause in ((PressLockout(), "button"), (NoMoreBets(), "no-more-bets"), (Comm(False), "comm-lost")):
        out = one(model, opened, op)
        assert out.lock_event == (True, cause)
        called = [("controller", "no_more_bets", {"round": None}, 1)] if cause == "no-more-bets" else []
        silent = differences(model, out, _shown(out.state, fields={"locked": True}), None)
        assert {d.rule for d in silent} == {R.LOCKOUT_EVENT.name, *((R.NMB_EVENT.name,) if called else ())}, \
            (op, silent)
        sent = _shown(out.state, fields={"locked": True}, events=[*called, _lock(True, cause, len(called) + 1)])
        assert differences(model, out, sent, None) == []
    # the button once wagering is closed: no event required, either cause permitted, and none may come
    # (a lockout event is sent when wagering closes or opens, docs/protocol.md 6.4)
    closed = play(model, opened, PressLockout())
    assert all(o.lock_event is None for o in model.step(closed, PressLockout()))
    again = one(model, closed, PressLockout())
    extra = differences(model, again, _shown(again.state, fields={"locked": True}, events=[_lock(True, "button", 1)]),
                        None)
    assert [d.rule for d in extra] == [R.LOCKOUT_EVENT.name]
    # a lost link is sent even when wagering was already closed (docs/protocol.md section 8)
    assert {o.lock_event for o in model.step(closed, Comm(False))} == {(True, "comm-lost")}
    assert one(model, model.initial(), OpenRound()).lock_event == (False, "round-open")


def test_the_first_card_of_an_open_round_is_timed_against_the_profile_limit(model: TableModel) -> None:
    s = play(model, model.initial(), OpenRound(), LoadShoe(("8C", "2D", "TC", "3D", "5H", "6S")))
    out = one(model, s, DealFirst())
    assert out.timed and model.lock_limit_ms == Decimal("1.0")
    events = [_lock(True, "card", 1)]
    late = _shown(out.state, events=events, lock_ms=Decimal("1.2"), lock_by="counter")
    assert [d.rule for d in differences(model, out, late, None)] == [R.LATENCY.name]
    near = _shown(out.state, events=events, lock_ms=Decimal("1.2"), lock_by="host stamps", lock_advisory=True)
    assert differences(model, out, near, None) == []  # within the bench's jitter: advisory, no verdict
    assert differences(model, out, _shown(out.state, events=events, lock_ms=Decimal("0.3"), lock_by="counter"),
                       None) == []
    # closed by the button before the card: nothing runs from the card, the round is not timed
    pressed = play(model, s, PressLockout())
    assert not any(o.timed for o in model.step(pressed, DealFirst()))


def test_event_seq_runs_on_across_a_reconnection_and_restarts_at_1_after_power_up(model: TableModel) -> None:
    s = model.initial()
    s.seqs = {"controller": 41, "shoe": None}
    out = one(model, s, Reconnect())
    assert differences(model, out, _shown(out.state, events=[("controller", "payout", {}, 42)]), None) == []
    restarted = differences(model, out, _shown(out.state, events=[("controller", "payout", {}, 1)]), None)
    assert [(d.rule, d.expected, d.got) for d in restarted] == [(R.EVENT_SEQ.name, 42, 1)]
    s.seqs = {"controller": 41, "shoe": 5}
    powered = one(model, s, PowerCycle())
    assert differences(model, powered, _shown(powered.state, events=[_lock(True, "power", 1)]), None) == []
    # the power step may still read an event sent before the power went (running on), then the 1
    before = [("controller", "round_end", {}, 42), _lock(True, "power", 1)]
    assert differences(model, powered, _shown(powered.state, events=before), None) == []
    # after power-up the numbering starts at 1 (docs/protocol.md sections 4, 8): running on is a difference
    ran_on = differences(model, powered, _shown(powered.state, events=[_lock(True, "power", 42)]), None)
    assert [(d.rule, d.expected, d.got) for d in ran_on] == [(R.EVENT_SEQ.name, 1, 42)]
    jumped = differences(model, powered, _shown(powered.state, events=[_lock(True, "power", 7)]), None)
    assert [d.rule for d in jumped] == [R.EVENT_SEQ.name]
    # judged and taken, the outcome goes on from the last SEQ seen; a line silent in the power cycle's
    # step starts from 1 at its first event afterwards
    taken, _ = judge(model, model.step(s, PowerCycle()), _shown(powered.state, events=[_lock(True, "power", 1)]))
    assert taken is not None and taken.state.seqs["controller"] == 1 and "shoe" in taken.state.seq_fresh
    later = one(model, taken.state, OpenRound())
    events = [_lock(False, "round-open", 2), ("shoe", "card", {}, 1)]
    assert differences(model, later, _shown(later.state, events=events), None) == []
    events = [_lock(False, "round-open", 2), ("shoe", "card", {}, 6)]
    assert [d.rule for d in differences(model, later, _shown(later.state, events=events), None)] == [R.EVENT_SEQ.name]


def test_void_round(model: TableModel) -> None:
    s = play(model, model.initial(), OpenRound(), PlaceWager(1, "player", 500), PlaceWager(1, "royal9", 500))
    outs = model.step(s, VoidRound())
    # whether a voided round's Royal 9 wagers contribute is not written: both are permitted
    assert {o.choice for o in outs} == {"a voided round's Royal 9 wagers contribute",
                                        "a voided round's Royal 9 wagers do not contribute"}
    for o in outs:
        assert (o.state.phase, o.state.locked, o.state.cause, o.state.layout) == ("settled", True, "no-more-bets", {})
        assert o.lock_event == (True, "no-more-bets") and o.settlement is not None and o.settlement.void
        assert o.answer.fields["void"] is True
    out = outs[0]
    shown = _shown(out.state, events=[_lock(True, "no-more-bets", 1)], round_end=out.state.round,
                   fields={"void": True})
    assert [d.rule for d in differences(model, out, shown, None)] == [R.VOID.name]  # round_end without void
    shown.round_end_void = True
    assert differences(model, out, shown, None) == []
    # no round open, or a card out: REFUSED, nothing changes
    assert one(model, model.initial(), VoidRound()).answer.codes == frozenset({"REFUSED"})
    dealing = play(model, s, LoadShoe(("8C", "2D", "TC", "3D", "5H", "6S")), DealFirst())
    assert all(o.answer.codes == frozenset({"REFUSED"}) for o in model.step(dealing, VoidRound()))


def test_every_rule_cites_a_catalogue_clause() -> None:
    from harness.regulations.catalogue import load_catalogue

    cat = load_catalogue()
    known = {c.id for c in cat.clauses}
    assert {r.clause for r in R.RULES.values()} <= known


SHOE = list(shoe_composition(8).elements())
OP_STRATEGY = st.one_of(
    st.just(OpenRound()), st.just(PressLockout()), st.just(NoMoreBets()), st.just(DealFirst()), st.just(DealRest()),
    st.just(PowerCycle()), st.builds(Comm, st.booleans()), st.just(VoidRound()), st.just(Reconnect()),
    st.just(Reboot()), st.just(DealMisread()),
    st.builds(PlaceWager, st.integers(1, 8), st.sampled_from(["player", "banker", "tie", "royal9", "dragon7"]),
              st.sampled_from([0, 100, 500, 2500])),
    st.builds(RemoveWager, st.integers(1, 8), st.sampled_from(["player", "banker", "royal9"])),
    st.builds(ResetKey, st.sampled_from(["mega", "major", "minor"])),
    st.builds(ConfigWrite, st.sampled_from([{"denomination": 100}, {"denomination": 500},
                                            {"meters": {"major": {"rate": "0.25"}}},
                                            {"meters": {"mega": {"reset": 4_999_999}}},
                                            {"commission": "4"}, {"commission": "101"},
                                            {"meters": {"major": {"payout_limit": 45_001}}}])),
    st.integers(0, 2**32).map(lambda n: LoadShoe(tuple(c.code for c in random.Random(n).sample(SHOE, 60)))),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(OP_STRATEGY, max_size=80), st.randoms(use_true_random=False))
def test_model_invariants_over_random_sequences(ops: list[Op], rng: random.Random) -> None:
    """Whatever outcome is taken: a meter never goes down but at its reset key, residuals stay in
    [0, 1), the layout is empty outside a round, and the contributions are exact."""
    model = TableModel(MIDI5)
    s = model.initial()
    for op in ops:
        if not model.legal(s, op):
            continue
        out = rng.choice(model.step(s, op))
        n = out.state
        for name, m in n.meters.items():
            assert Decimal(0) <= m.residual < 1
            if not isinstance(op, ResetKey):
                assert m.amount >= s.meters[name].amount
        if n.phase == "settled" or isinstance(op, PowerCycle):  # a controller reboot may leave the layout
            assert n.layout == {}
        if R.CONTRIBUTE.name in out.rules:
            stakes = sum(a for (_seat, kind), a in s.layout.items() if kind == "royal9")
            for name, cfg in n.meter_cfg.items():
                before, after = s.meters[name], n.meters[name]
                grown = (after.amount - before.amount) + (after.residual - before.residual) \
                    + (after.diverted - before.diverted)
                assert grown == Decimal(stakes) * cfg.rate / 100
        assert parse_op(op_text(op)) == op
        s = n


def test_a_reboot_with_the_link_down_keeps_round_open_refused(model: TableModel) -> None:
    down = play(model, model.initial(), Comm(False))
    assert model.legal(down, Reboot())
    outs = model.step(down, Reboot())
    assert {(o.state.cause, o.lock_event) for o in outs} == {("power", (True, "power")),
                                                             ("comm-lost", (True, "comm-lost"))}
    for out in outs:
        assert not out.state.link_up
        assert one(model, out.state, OpenRound()).answer.codes == frozenset({"REFUSED"})


def test_the_no_more_bets_event_names_the_round_in_play(model: TableModel) -> None:
    opened = play(model, model.initial(), OpenRound())
    opened.round = 8
    out = one(model, opened, NoMoreBets())
    lock = _lock(True, "no-more-bets", 1)
    right = _shown(out.state, events=[("controller", "no_more_bets", {"round": 8}, 1), _lock(True, "no-more-bets", 2)])
    assert differences(model, out, right, None) == []
    wrong = _shown(out.state, events=[("controller", "no_more_bets", {"round": 7}, 1), _lock(True, "no-more-bets", 2)])
    assert {d.rule for d in differences(model, out, wrong, None)} == {R.NMB.name, R.NMB_EVENT.name}
    # docs/protocol.md section 8: the no_more_bets event comes before the lockout it causes, and is sent
    late = _shown(out.state, events=[lock, ("controller", "no_more_bets", {"round": 8}, 2)])
    assert [d.rule for d in differences(model, out, late, None)] == [R.NMB_EVENT.name]
    silent = _shown(out.state, events=[lock])
    assert [d.rule for d in differences(model, out, silent, None)] == [R.NMB_EVENT.name]


def test_a_wager_placed_again_at_amount_0_is_refused_and_stays(model: TableModel) -> None:
    s = play(model, model.initial(), OpenRound(), PlaceWager(1, "banker", 1050))
    out = one(model, s, PlaceWager(1, "banker", 0))
    assert out.answer.accepted is False and "bad-amount" in out.answer.reasons
    assert out.state.layout == {(1, "banker"): 1050}


def test_the_shoe_read_during_a_paced_deal_says_dealing(model: TableModel) -> None:
    s = play(model, model.initial(), OpenRound(), LoadShoe(("8C", "2D", "TC", "3D", "5H", "6S")), DealFirst())
    out = one(model, s, DealRest())
    assert [d.rule for d in differences(model, out, _shown(out.state, shoe_mid_deal="ready"), None)
            if d.what.startswith("shoe")] == [R.SHOE.name]
    assert not [d for d in differences(model, out, _shown(out.state, shoe_mid_deal="dealing"), None)
                if d.what.startswith("shoe")]


def test_the_shoe_read_during_a_paced_deal_counts_no_card_whose_event_came_after(model: TableModel) -> None:
    # docs/protocol.md section 5: every card shoe.status counts has had its card event sent before that answer
    s = play(model, model.initial(), OpenRound(), LoadShoe(("8C", "2D", "TC", "3D", "5H", "6S")), DealFirst())
    out = one(model, s, DealRest())
    ahead = _shown(out.state, shoe_mid_deal="dealing", mid_deal_counted=(2, 1))
    assert [d.rule for d in differences(model, out, ahead, None) if d.what.startswith("shoe")] == [R.CARD_EVENTS.name]
    for counted in ((1, 1), (0, 1)):  # as many as sent, or fewer (a count that lags is not this rule's)
        shown = _shown(out.state, shoe_mid_deal="dealing", mid_deal_counted=counted)
        assert not [d for d in differences(model, out, shown, None) if d.what.startswith("shoe")]


def test_a_wager_at_a_negative_amount_is_refused_bad_amount(model: TableModel) -> None:
    # docs/protocol.md sections 6.3, 12: "amount not positive"
    s = play(model, model.initial(), OpenRound(), PlaceWager(1, "banker", 1050))
    out = one(model, s, PlaceWager(1, "banker", -1050))
    assert out.answer.accepted is False and out.answer.reasons == {"bad-amount"}
    assert out.state.layout == {(1, "banker"): 1050}


def test_the_power_lockout_event_held_until_the_first_request_is_a_difference(model: TableModel) -> None:
    # docs/protocol.md section 8, Power: "locked (lockout cause power, sent once it is back)"
    powered = one(model, model.initial(), PowerCycle())
    events = [_lock(True, "power", 1)]
    held = differences(model, powered, _shown(powered.state, events=events, power_event_unasked=False), None)
    assert [(d.what, d.rule) for d in held] == [("lockout event (cause power) after power-up", R.LOCKOUT_EVENT.name)]
    for unasked in (True, None):  # sent unasked, or not judged (no such step, or no ping)
        shown = _shown(powered.state, events=events, power_event_unasked=unasked)
        assert differences(model, powered, shown, None) == []


def test_a_power_cut_mid_deal_is_one_card_more_then_a_power_cycle(model: TableModel) -> None:
    # docs/protocol.md sections 8 and 12: the round and layout lost; after power-up no deal is in progress
    s = play(model, model.initial(), OpenRound(), LoadShoe(("8C", "2D", "TC", "3D", "5H", "6S")), DealFirst())
    assert model.legal(s, PowerCutMidDeal())
    out = one(model, s, PowerCutMidDeal())
    assert out.state.phase == "idle" and out.state.locked and out.state.cause == "power" and out.state.shoe is None
    assert [e for e in out.events if e[1] == "card"] == [("shoe", "card", {"card": "2D", "n": 2})]
    assert out.lock_event == (True, "power")
    still = [d.rule for d in differences(model, out, _shown(out.state, shoe_state="dealing"), None)
             if d.what.startswith("shoe")]
    assert still == [R.SHOE.name]
    for state in ("ready", "empty", None):
        assert not [d for d in differences(model, out, _shown(out.state, shoe_state=state), None)
                    if d.what.startswith("shoe")]
    last = play(model, s, DealRest())
    assert not model.legal(last, PowerCutMidDeal())  # the round over: nothing to cut in


def test_a_denomination_written_with_its_meters_may_be_checked_against_the_meters_in_force(model: TableModel) -> None:
    # docs/protocol.md 6.4: "a denomination written is checked with the meters as configured against its own
    # floors": as configured before the write's meter fields or after them; where the two readings differ, the
    # write may be taken or refused, and where they agree, it must be taken
    s = model.initial()
    s.meter_cfg["minor"] = dataclasses.replace(s.meter_cfg["minor"], reset=44_999)
    s.denomination = 100  # a $1 table whose minor resets below the $5 floor
    up = model.step(s, ConfigWrite({"denomination": 500, "meters": {"minor": {"reset": 45_000}}}))
    assert {o.answer.codes for o in up} == {frozenset({"ok"}), frozenset({"REFUSED"})}
    # the meters in force meet the $1 floors: only the write's own fields decide, and they are within them
    down = model.step(model.initial(), ConfigWrite({"denomination": 100,
                                                    "meters": {"major": {"initial": 9_000, "reset": 9_000}}}))
    assert [o.answer.codes for o in down] == [frozenset({"ok"})]
