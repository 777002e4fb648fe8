"""The core steps of suite files: opening a round, wagers, the shoe, the controller, power.

A step is a one-key mapping ``{step: arguments}``.  Steps with a single natural argument take a
scalar shorthand (``power: off``, ``wait: 100``, ``reset_key: mega``).  Every step is registered
with :func:`harness.suites.steps.registry.step` next to the function that carries it out; the
registry is the single source of truth the validator checks against and ``docs/writing-suites.md``
documents.  The expectations live in :mod:`harness.suites.steps.expect` and the game- and
progressive-specific steps in the other modules of :mod:`harness.suites.steps`
(:data:`harness.suites.steps.registry.STEP_MODULES`).

The vocabularies below (wager types, meters, events) are shared by every step module.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from harness.bench.acts import (
    Deal,
    InjectFault,
    LoadShoe,
    NoMoreBets,
    OpenRound,
    PressLockout,
    Removal,
    RemoveWager,
    SetComm,
    SwitchPower,
    TurnResetKey,
)
from harness.cards import Card
from harness.devices import vocabulary
from harness.devices.contract import as_sent
from harness.devices.link import DeviceNak, NakError
from harness.errors import DeviceError, DeviceTimeout
from harness.money import Cents
from harness.profiles.configwrites import field_of_wire
from harness.profiles.rules import BACCARAT_GAMES
from harness.suites.load.model import Step
from harness.suites.run.context import ROUND_TIMEOUT_S
from harness.suites.run.timing import lockout_limit, record_round
from harness.suites.steps.accounts import measure_keys
from harness.suites.steps.permitted import permitted_refusal, refusal_reasons, write_clause
from harness.suites.steps.registry import Action, Arg, choice, step

if TYPE_CHECKING:
    from harness.suites.run.context import CaseContext

WAGER_TYPES = tuple(vocabulary.WAGER_TYPES)
#: after the profile's comm_timeout_ms, how long the ``comm: lost`` step still waits for the report
#: to arrive (as long as ``expect_event`` gives an event on its way)
COMM_LOSS_GRACE_S = 0.05
METERS = tuple(vocabulary.METERS)
#: the events a suite may expect: the shoe's and the controller's (docs/protocol.md, section 6)
SHOE_EVENTS = vocabulary.EVENTS["shoe"]
EVENTS = (*SHOE_EVENTS, *vocabulary.EVENTS["controller"])
TIMED_AFTER = ("first-card", "card", "lockout", "no-more-bets")

__all__ = ["EVENTS", "METERS", "SHOE_EVENTS", "TIMED_AFTER", "WAGER_TYPES", "Action", "Arg"]



# --- driving the devices -------------------------------------------------------------------


@step("open_round", Action(
    {"expect": choice("opened", "refused", default="opened"), "reason": Arg("str")},
    doc="open wagering for a new round (dealer's round start); `expect: refused` probes a round the "
    "controller must not open (the sensors link down, a payment waiting for the reset key: docs/protocol.md, "
    "'round.open'; the last round still being dealt): a REFUSED answer passes, `reason` a text the refusal "
    "must contain",
    acts=("open-round",)))
def open_round(runner: CaseContext, step: Step, expect: str = "opened", reason: str | None = None) -> None:
    runner.controller()
    if expect == "opened":
        pay_mystery_award(runner)
        last = runner.round
        runner.new_round()
        runner.round.opened = True
        try:
            opened = runner.perform(OpenRound())
        except NakError as exc:
            open_refused(runner, step, last, exc)
            raise
        runner.round.number = opened if isinstance(opened, int) and not isinstance(opened, bool) else None
        runner.snapshot("round-start", runner.read_meters())
        return
    runner.pump()  # a refused opening starts no round: the round log stays the last round's (its
    # cards may still be coming: round.open is REFUSED while the last round is unsettled)
    try:
        opened = runner.perform(OpenRound(probe=True))
        got, why = "opened" + (f" (round {opened})" if isinstance(opened, int) else ""), ""
    except DeviceNak as exc:
        if exc.code != "REFUSED":
            raise
        got, why = "refused", exc.reason
    ok = got == "refused" and (reason is None or reason in why)
    runner.measure(step, "round opening", got + (f" ({why})" if why else ""),
                   "refused" + (f" ({reason})" if reason else ""), ok)


def open_refused(runner: CaseContext, step: Step, last: Any, exc: NakError) -> None:
    """``round.open`` was REFUSED where the case opens a round.  docs/protocol.md section 8 refuses it
    "while the last round is unsettled, while a payment waits for the reset key, and while the sensors
    link is down"; where the case can tell none of them holds (its own last round saw its ``round_end``,
    no payment is pending, no lost link was reported in the case nor named by ``lockout.get``), the
    refusal breaks the contract: a FAIL
    the runner names with the fault that stopped the case.  Where it cannot tell (the case's first round,
    a round whose end it did not see, a link of tables, a driver of another protocol), it judges nothing."""
    call = getattr(runner.controller(), "call", None)
    ended = any(e.name == "round_end" for e in (*last.ctrl_events, *runner.round.ctrl_events))
    if call is None or runner.profile.link is not None or not last.opened or not ended:
        return
    if getattr(runner, "link_lost_seen", True):
        return  # the sensors link was lost in this case: whether it is back, lockout.get may not say
    if runner.profile.bench.performer("open-round").kind != "test-channel":
        return
    pending = runner.read_meters().pending
    try:
        cause = call("lockout.get").payload.get("cause")
    except DeviceError:
        return
    grounds = [*(f"a payment waits for the reset key ({name})" for name in pending),
               *(["the sensors link is down (lock-out cause comm-lost)"] if cause == "comm-lost" else [])]
    runner.measure(step, "round.open refused only while the last round is unsettled, a payment waits for the "
                   "reset key or the sensors link is down (section 8)", f"refused ({exc.reason})",
                   "opened", bool(grounds), clause="contract-8-round-open-refused",
                   detail="; ".join(grounds) or f"round {last.number} ended (round_end seen), no payment pending, "
                   f"lock-out cause {cause}")


@step("wager", Action(
    {
        "seat": Arg("seat", required=True),
        "type": choice(*WAGER_TYPES, default="royal9"),
        "amount": Arg("amount"),
        "expect": choice("accepted", "rejected", default="accepted"),
        "reason": Arg("str"),
        "at": Arg("timing"),
    },
    doc="place a wager at a seat; `amount` defaults to the profile's denomination; `reason`: the refusal "
    "reason expected, and a Royal 9 wager at a seat with no base-game wager may give `no-base-wager` instead "
    "(both causes hold; the one seen is recorded); "
    "`at: {after: first-card, offset_ms: '5'}` times the attempt relative to a dealing event "
    "(`past_limit_ms: '5'` in place of `offset_ms`: 5 ms past the profile's lock-out limit); an attempt "
    "expected rejected that was sent within the lock-out limit of the first card, before any lock-out "
    "was reported, may be accepted (recorded PERMITTED)",
    acts=("wager",),
))
def wager(runner: CaseContext, step: Step, seat: int, type: str, expect: str, amount: Cents | None = None,
             reason: str | None = None, at: Mapping[str, Any] | None = None) -> None:
    offset_note = within = ""
    if at is not None:
        t_event = runner.event_time(at["after"], at["n"])
        if at.get("past_limit_ms") is not None:
            asked = lockout_limit(runner) + at["past_limit_ms"]
            asked_note = f"asked: the {lockout_limit(runner)} ms lock-out limit + {at['past_limit_ms']} ms"
        else:
            asked = Decimal(at["offset_ms"] or 0)
            asked_note = f"asked: {asked} ms"
        res = runner.place(seat, type, amount, after=at["after"], not_before_ns=t_event + int(asked * 1_000_000))
        by = runner.profile.bench.performer("wager").kind
        what = "sent" if by == "test-channel" else f"placed ({by}; the sensors' report)"
        offset_note = f"{what} {(res.t_sent_ns - t_event) / 1e6:.3f} ms after {at['after']} ({asked_note})"
        if expect == "rejected" and res.accepted:
            within = _within_lockout_limit(runner, res.t_sent_ns)
    else:
        res = runner.place(seat, type, amount)
    got = "accepted" if res.accepted else "rejected"
    reasons = refusal_reasons(runner, seat, type, reason) if reason else ()
    ok = got == expect and (reason is None or res.reason in reasons)
    want = expect + (f" ({' or '.join(reasons)})" if reason else "")
    seen = f"reason seen: {res.reason} (permitted: {', '.join(reasons)})" if len(reasons) > 1 and not res.accepted \
        else ""
    if within:
        ok, want = True, f"{want}, or accepted within the lock-out limit"
    runner.measure(step, f"seat {seat} {type} wager", got + (f" ({res.reason})" if res.reason else ""),
                 want, ok, detail="; ".join(x for x in (offset_note, res.nak, seen, within) if x))


def _within_lockout_limit(runner: CaseContext, t_sent_ns: int) -> str:
    """Why a wager accepted after the first card is a behaviour the rules permit, or "": it was sent
    within the lock-out limit of the round's first card (629a Royal 9 (a)(2) gives the controller
    the profile's deadline to lock out; the host's stamps only shorten the interval the device saw
    to the host's eye, so this never excuses a late lock-out), while wagering was still open (no
    closing event received before it, the dealer closed nothing)."""
    if not runner.round.cards or runner.round.closed_by_dealer:
        return ""
    first_ns = runner.round.cards[0][1]
    if any(e.t_ns <= t_sent_ns and (e.name == "no_more_bets" or (e.name == "lockout" and e.payload.get("locked")))
           for e in runner.round.ctrl_events):
        return ""
    elapsed = Decimal(t_sent_ns - first_ns) / 1_000_000
    limit = lockout_limit(runner)
    if elapsed > limit:
        return ""
    return (f"PERMITTED: sent {elapsed.quantize(Decimal('0.001'))} ms after the first card, within the "
            f"{limit} ms lock-out limit and before any lock-out was reported; a controller may still take it")


@step("wagers", Action(
    {
        "seats": Arg("seats", default="all"),
        "type": choice(*WAGER_TYPES, default="royal9"),
        "amount": Arg("amount", positive=True, why="a $0 wager is no wager"),
        "order": choice("seat", "reverse", default="seat"),
    },
    shorthand="seats",
    doc="place the same wager at several seats (`all` = every seat of the profile); each must be accepted; "
    "`order: reverse` places them last seat first",
    acts=("wager",),
))
def wagers(runner: CaseContext, step: Step, seats: Any, type: str, amount: Cents | None = None,
           order: str = "seat") -> None:
    seat_list = runner.seats_of(seats)
    if order == "reverse":
        seat_list = list(reversed(seat_list))
    results = runner.place_many([(seat, type, amount) for seat in seat_list])
    bad = [f"seat {r.seat}: {r.reason}" for r in results if not r.accepted]
    runner.measure(step, f"{type} wagers at seats {','.join(map(str, seat_list))}",
                 "all accepted" if not bad else "; ".join(bad), "all accepted", not bad)


@step("remove_wager", Action({"seat": Arg("seat", required=True), "type": choice(*WAGER_TYPES, default="royal9")},
                           acts=("remove-wager",)))
def remove_wager(runner: CaseContext, step: Step, seat: int, type: str) -> None:
    if runner.rig.sensors is None:
        raise DeviceError("this case needs bet sensors and the profile has none")
    got: Removal = runner.perform(RemoveWager(seat, type))
    if not got.removed:
        raise NakError("wager.remove", "REFUSED", got.reason, 0)
    runner.round.wagers.pop((seat, type), None)


@step("shoe", Action(
    {"cards": Arg("cards"), "stack": Arg("str")},
    one_of=("cards", "stack"),
    doc="load a scripted sequence (inline cards or a named stack from fixtures/stacks/)",
    acts=("load",),
))
def shoe(runner: CaseContext, step: Step, cards: tuple[Card, ...] | None = None, stack: str | None = None) -> None:
    seq = runner.cards_arg(cards, stack)
    assert seq is not None
    if runner.rig.shoe is None:
        raise DeviceError("this case needs a shoe and the profile has none")
    sheet = stack or f"{runner.case.name}, line {step.line}"
    runner.perform(LoadShoe(tuple(seq), decks=runner.profile.rules.decks, sheet_id=sheet))
    runner.loaded = seq


@step("deal", Action(
    {
        "cards": Arg("cards"),
        "stack": Arg("str"),
        "count": Arg("int"),
        "pace_ms": Arg("decimal"),
        "settle": Arg("bool", default=True),
    },
    doc="deal the loaded (or given) cards; with `settle` (default) wait until the round is settled",
    acts=("load", "deal"),
))
def deal(runner: CaseContext, step: Step, settle: bool, cards: tuple[Card, ...] | None = None, stack: str | None = None,
            count: int | None = None, pace_ms: Decimal | None = None) -> None:
    seq = runner.cards_arg(cards, stack)
    if seq is not None:
        shoe(runner, step, cards=seq)
    if runner.rig.shoe is None:
        raise DeviceError("this case needs a shoe and the profile has none")
    runner.round.meters_before_settle = None
    pace_us = int(pace_ms * 1000) if pace_ms is not None else None
    asked = runner.round.cards_asked
    await_cards_asked(runner)
    runner.dealer_closes_wagering()
    runner.arm_counter()  # before the round's first card: the counter times that one event
    runner.perform(Deal(count, pace_us))
    runner.round.cards_asked = (asked or 0) + count if count is not None and asked is not None else None
    if settle:
        settle_round(runner, step)


def await_cards_asked(runner: CaseContext) -> None:
    """A deal of this round still under way (``deal: {count: N, settle: false}``): wait until its cards
    are out, however loaded the host.  The shoe answers BUSY until they are (docs/protocol.md section
    7), so the next deal waits for them; a power cut waits too, so that the cards the case dealt are out
    when the power goes."""
    asked = runner.round.cards_asked
    if asked:
        with contextlib.suppress(DeviceTimeout):
            runner.wait_for(f"the {asked} card(s) dealt so far", lambda: runner.cards_out() >= asked,
                             timeout_s=2.0)


@step("settle", Action(doc="wait until the controller reports the round settled (after `deal: {settle: false}`)"))
def settle_round(runner: CaseContext, step: Step) -> None:
    """Wait until the controller reports the round settled and the shoe has reported every card
    the round uses (the two arrive on different lines, in either order)."""
    try:
        runner.wait_for("'round_end' event (round settled)",
                        lambda: any(e.name == "round_end" for e in runner.round.ctrl_events))
    except DeviceTimeout:
        unsettled_after_last_card(runner, step)
        raise
    if runner.loaded:
        try:
            n = len(runner.round_cards(list(runner.loaded)))
        except Exception:  # a sequence that is not one round (e.g. count-limited deals)
            n = 0
        runner.wait_for(f"{n} card events from the shoe", lambda: runner.cards_out() >= n, timeout_s=2.0)
    runner.round.settled = True
    runner.count_round()
    record_round(runner)


#: lock-out causes after which a round need not settle by itself: the power went or the sensors link did
_HELD = ("power", "comm-lost")


def unsettled_after_last_card(runner: CaseContext, step: Step) -> None:
    """The wait for ``round_end`` ran out: where the shoe has reported every card of a whole baccarat
    round, read, and nothing in the round held it (no power cut, no link lost, no misread or shoe
    error), the controller broke section 8, "the round's last card ... The controller then settles
    ... Last comes round_end": a FAIL measured before the wait's error ends the case."""
    if runner.profile.game not in BACCARAT_GAMES:
        return  # Hit and Run: the dealer's completed hand may wait for the dealer's word (end_round)
    if any(e.name in ("misread", "error") for e in runner.round.shoe_events) or any(
            e.name == "lockout" and as_sent(e.payload, "cause") in _HELD for e in runner.round.ctrl_events):
        return
    cards = [c for c, _t in runner.round.cards]
    n = runner.round_length(cards)
    if n is None or len(cards) < n:
        return
    runner.measure(step, "'round_end' after the round's last card", "none", "round_end", False,
                   clause="contract-8-round-on-the-shoes-cards",
                   detail=f"the shoe reported the {n} cards of a whole round ({' '.join(map(str, cards[:n]))}) and "
                          f"the controller sent no round_end within {ROUND_TIMEOUT_S:g} s: docs/protocol.md "
                          "section 8, \"The round's last card ... The controller then settles ... Last comes "
                          "round_end\"")


def ensure_settled(runner: CaseContext, step: Step) -> None:
    """:func:`settle_round`, unless a step before has settled the round: what an expectation on the
    settled round asks first."""
    if not runner.round.settled:
        settle_round(runner, step)


@step("end_round", Action(
    {"expect": choice("accepted", "refused", default="accepted")},
    shorthand="expect",
    doc="the dealer ends the round as dealt (Blackjack: no player hand is left standing, so the dealer "
    "draws no more); the controller must accept or refuse, as stated, to settle on the cards out",
))
def end_round(runner: CaseContext, step: Step, expect: str) -> None:
    try:
        runner.controller().settle_round()
        got, why = "accepted", ""
    except NakError as exc:
        got, why = "refused", exc.reason
    runner.measure(step, "the dealer ends the round on the cards dealt", got + (f" ({why})" if why else ""),
                   expect, got == expect)
    if got == "accepted":  # the round is over on the cards out, however many the loaded sequence held
        runner.wait_for("'round_end' event (round settled)",
                         lambda: any(e.name == "round_end" for e in runner.round.ctrl_events))
        runner.loaded = tuple(c for c, _t in runner.round.cards)
        runner.round.settled = True
        runner.count_round()


@step("expect_round_named", Action(
    doc="docs/protocol.md section 6.4: every event of the round that names a round (`no_more_bets`, "
    "`round_end`) names the round the controller's `round.open` answer named; a round opened by a person "
    "(no answer read) is not judged",
))
def expect_round_named(runner: CaseContext, step: Step) -> None:
    runner.pump(0.05)
    number = runner.round.number
    if number is None:
        runner.measure(step, "round number of the round's events", "round.open answer not read", "known",
                       True, advisory=True)
        return
    named = [e for e in runner.round.ctrl_events if e.name in ("no_more_bets", "round_end")]
    if not named:
        raise AssertionError("expect_round_named: the round sent no no_more_bets or round_end event")
    for e in named:
        got = e.payload.get("round")
        runner.measure(step, f"'{e.name}' event round", got, f"{number} (round.open answered)",
                       got == number and not isinstance(got, bool))


@step("lockout_button", Action(doc="press the lock-out button", acts=("lockout-button",)))
def lockout_button(runner: CaseContext, step: Step) -> None:
    runner.controller()
    runner.perform(PressLockout())
    runner.round.closed_by_dealer = True


@step("no_more_bets", Action(
    {"expect": choice("called", "refused", default="called"), "reason": Arg("str")}, shorthand="expect",
    doc="the dealer calls no more bets; `expect: refused` probes a call the controller must refuse (no round "
    "open; a table without a no-more-bets input, nmb-announcement first-card: docs/protocol.md section 8): a "
    "REFUSED answer passes, `reason` a text the refusal must contain, and wagering must stay as it was",
    acts=("no-more-bets",)))
def no_more_bets(runner: CaseContext, step: Step, expect: str = "called", reason: str | None = None) -> None:
    ctrl = runner.controller()
    if expect == "called":
        runner.perform(NoMoreBets())
        runner.round.closed_by_dealer = True
        return
    runner.pump()
    locked = ctrl.lockout_state()
    mark = len(runner.round.ctrl_events)
    try:
        runner.perform(NoMoreBets(probe=True))
        got, why = "called", ""
    except DeviceNak as exc:
        if exc.code != "REFUSED":
            raise
        got, why = "refused", exc.reason
    runner.measure(step, "no more bets", got + (f" ({why})" if why else ""),
                   "refused" + (f" ({reason})" if reason else ""),
                   got == "refused" and (reason is None or reason in why))
    runner.pump(0.01)
    now = ctrl.lockout_state()
    told = [e.name for e in runner.round.ctrl_events[mark:] if e.name in ("no_more_bets", "lockout")]
    runner.measure(step, "refused call left wagering as it was (locked, and no 'no_more_bets' or 'lockout' event)",
                   f"locked {now}" + (f"; events {', '.join(told)}" if told else ""), f"locked {locked}; no event",
                   now == locked and not told)


@step("reset_key", Action({"meter": choice(*METERS, "pending", required=True)}, shorthand="meter",
                           acts=("reset-key",),
                           doc="the attendant has paid a hit and turns the reset key of `meter`; `pending`: "
                           "of every meter the controller reports a payment pending on (none when the "
                           "table paid the hit or the meter reset at the hit); measures that the payout meters "
                           "rose by exactly the awards the keys paid and that each meter kept its fraction of "
                           "a cent (meter-residual-on-reset)"))
def reset_key(runner: CaseContext, step: Step, meter: str) -> None:
    before = runner.read_meters()
    runner.pump()
    mark = len(runner.hits_seen)
    if meter == "pending":
        keys = turn_keys_one_by_one(runner, step)
    else:
        runner.perform(TurnResetKey(meter))
        keys = (meter,)
    if keys:  # every award paid at the key is on the payout meters, its meter's fraction of a cent kept
        measure_keys(runner, step, before, keys, mark)


def turn_keys_one_by_one(runner: CaseContext, step: Step) -> tuple[str, ...]:
    """The reset key of every meter the controller reports a payment pending on, one key at a time
    (docs/protocol.md section 6.4: each payment is in `pending` from its hit until the reset key;
    461a.12(b)(5)): before each key the payments not yet keyed must still be listed, and the key of a
    meter whose payment was listed must be taken.  A refusal or a payment gone before its key is the
    device's (a FAIL citing contract-6-4-pending-until-its-key), not the rig's."""
    clause = "contract-6-4-pending-until-its-key"
    first = tuple(dict.fromkeys(runner.read_meters().pending))  # several winners of one meter: one key
    turned: list[str] = []
    for name in first:
        if turned:
            still = runner.read_meters().pending
            runner.measure(step, f"{name} payment still pending after the key of {', '.join(turned)}",
                           "pending" if name in still else "gone", "pending", name in still, clause=clause,
                           detail=f"pending before the first key: {', '.join(first)}; "
                           f"now: {', '.join(still) or 'none'}")
        try:
            runner.perform(TurnResetKey(name))
            got = "taken"
        except NakError as exc:
            got = f"refused ({exc.reason})"
        runner.measure(step, f"reset key of {name}, whose payment the controller listed pending", got, "taken",
                       got == "taken", clause=clause)
        if got == "taken":
            turned.append(name)
    if first:
        runner.read_meters()
    return tuple(turned)


def pay_mystery_award(runner: CaseContext) -> None:
    """Before a round the case opens: a mystery award one of its earlier rounds triggered, paid by an
    attendant (Royal 9 (h): the Rules Submission's choice), still waits for the reset key.  The hidden
    trigger is not the case's to script, so the attendant pays it and turns the key as on the floor,
    and the round opens (a controller refuses rounds while a payment is pending: docs/protocol.md,
    'round.open').  Only where the Rules Submission has the attendant pay mystery awards (a
    table-paid award left waiting for the key is the device's fault, for the case to see), only
    for a mystery hit announced since the mystery's last reset, and only where the controller
    reports the payment pending."""
    mystery = runner.profile.rules.mystery
    if mystery is None or mystery.paid_by != "attendant":
        return
    runner.pump()
    last = next((e for e in reversed(runner.hits_seen) if e.payload.get("meter") == "mystery"), None)
    if last is None or last.name != "hit":
        return
    if "mystery" in runner.read_meters().pending:
        runner.perform(TurnResetKey("mystery"))


#: turns of the reset key after one round (each after a new award drawn from held contributions)
_KEY_TURNS = 10


def hits_to_pay(runner: CaseContext) -> tuple[list[str], tuple[str, ...]]:
    """After a settled round: the attendant pays the hits waiting for the key and turns it.

    Returns the problems seen and the meters whose key was turned.  Which hits must wait is what
    the controller itself says about them: a hit whose payout it reports ``paid_by: attendant``
    waits for the reset key (461a.12(b)(3), (b)(5), (h)(1)) unless meter-reset-timing is ``at-hit``;
    one it reports paid by the table (a mystery award) is paid and reset at once.  A controller
    whose pending payments disagree with that has lost track of who pays (a FAIL of the case, not a
    refused key turned blindly)."""
    # every hit and payout of a round comes before its round_end on the controller's line
    # (docs/protocol.md, section 8): once round_end is in, they are too, and nothing is waited for; a
    # linked meter's hit may follow round_end (it waits for the link controller), so a link waits
    settled = any(e.name == "round_end" for e in runner.round.ctrl_events)
    runner.pump(0.0 if settled and runner.profile.link is None else 0.01)
    by_seat = {(int(e.payload["seat"]), str(e.payload.get("category"))): str(e.payload.get("paid_by"))
               for e in runner.round.ctrl_events if e.name == "payout" and e.payload.get("type") in ("royal9",
                                                                                                    "hit-and-run")}
    want: set[str] = set()
    if runner.interpretation("meter-reset-timing") != "at-hit":
        for e in runner.round.ctrl_events:
            meter = e.payload.get("meter")
            if e.name != "hit" or not meter:
                continue
            paid_by = by_seat.get((int(e.payload["seat"]), str(e.payload.get("category"))),
                                  by_seat.get((int(e.payload["seat"]), str(meter)), "attendant"))
            if paid_by == "attendant":
                want.add(str(meter))
    pending = runner.read_meters().pending
    problems = []
    if set(pending) != want:
        problems.append(f"payments pending on {', '.join(pending) or 'no meter'}; the hits the controller "
                        f"reported paid by an attendant: {', '.join(sorted(want)) or 'none'}")
    turned: list[str] = []
    for _turn in range(_KEY_TURNS):
        if not pending:
            break
        mark = len(runner.round.ctrl_events)
        for name in pending:
            runner.perform(TurnResetKey(name))
            turned.append(name)
        runner.pump()
        # a mystery meter reseeded with the contributions held while its award waited may reach
        # its new hidden trigger at once (Royal 9 (h)): a new award, announced by a hit after the
        # key, is paid and its key turned in turn; a payment still pending without one is the fault
        again = {str(e.payload.get("meter")) for e in runner.round.ctrl_events[mark:] if e.name == "hit"}
        pending = runner.read_meters().pending
        stuck = [name for name in pending if name not in again]
        if stuck:
            problems.append(f"payments still pending on {', '.join(stuck)} after the reset key, with no new hit")
            break
    else:
        problems.append(f"payments still pending on {', '.join(pending)} after {_KEY_TURNS} turns of the key")
    return problems, tuple(dict.fromkeys(turned))


def measure_payments(runner: CaseContext, step: Step, problems: list[str], rounds: int) -> None:
    """The measurement :func:`hits_to_pay`'s problems over several rounds make."""
    runner.measure(step, f"hits waiting for the reset key exactly where an attendant pays, over {rounds} rounds",
                   len(problems), 0, not problems, unit="rounds", detail="; ".join(problems)[:2000])


@step("power", Action({"state": choice("off", "on", required=True)}, shorthand="state",
                doc="switch the power supply that feeds the controller (`off` once the cards a `deal: {count: N}` "
                "asked are out); evidence the cut happened: with the "
                "power off every device it feeds (devices.power.feeds) answers no ping within 0.3 s (one that "
                "answers was never cut: the case is an ERROR), back on it reports a lock-out with cause power "
                "within 2 s",
                acts=("power",)))
def power(runner: CaseContext, step: Step, state: str) -> None:
    if runner.rig.power is None and runner.profile.bench.performer("power").kind == "supply":
        raise DeviceError("this case needs a power supply and the profile has none")
    if state == "off":
        await_cards_asked(runner)
    runner.pump()
    mark = len(runner.round.ctrl_events)
    runner.perform(SwitchPower(state == "on"))
    if state == "on":
        runner.wait_back()
        came_back(runner, step, mark)
    else:
        _went_dark(runner, step)


def fed_devices(runner: CaseContext) -> list[tuple[str, Any]]:
    """Every device the supply feeds (``devices.power.feeds``; the controller alone unless the profile
    says more, the whole table for the built-in emulator), as (role, device)."""
    spec = runner.profile.devices.get("power")
    fed = [(role, runner.controller() if role == "controller" else getattr(runner.rig, role, None))
           for role in (spec.powers if spec is not None else ("controller",))]
    return [(role, device) for role, device in fed if device is not None]


def answering(fed: list[tuple[str, Any]], within_s: float) -> list[tuple[str, bool]]:
    """Whether each device answers a ping within ``within_s``.  Every device is pinged at once, each
    with its own deadline: the silences overlap instead of adding up."""
    def answers(device: Any) -> bool:
        try:
            device.request("ping", timeout_s=within_s)
        except DeviceError:
            return False
        return True

    with ThreadPoolExecutor(max_workers=max(1, len(fed)), thread_name_prefix="went-dark") as pool:
        alive = list(pool.map(answers, [device for _role, device in fed]))
    return [(role, answered) for (role, _device), answered in zip(fed, alive, strict=True)]


def never_cut(role: str) -> DeviceError:
    """The error of a device that still answers with its power off: the cut never reached it."""
    return DeviceError(f"the {role} still answers 'ping' with its power off: the power cut did not reach it "
                       "(check the supply's wiring or the relay, and devices.power.feeds), so this case cannot "
                       "show what survives a power loss")


def _went_dark(runner: CaseContext, step: Step, within_s: float = 0.3) -> None:
    """Evidence that the power really went: every device the supply feeds answers nothing with its
    power off.  One that still answers was never cut (a miswired supply, a relay that did not open, a
    backup that kept it alive), so nothing the case sees afterwards shows what survives a power loss:
    the case ends as an ERROR with that reason, never a PASS."""
    for role, answered in answering(fed_devices(runner), within_s):
        if answered:
            raise never_cut(role)
        runner.measure(step, f"the {role} went dark with its power off", f"no answer within {within_s} s",
                       "no answer", True)


def came_back(runner: CaseContext, step: Step, mark: int, within_s: float = 2.0) -> None:
    """Evidence that the power really went: a controller powered up is locked with cause ``power``
    and says so (docs/protocol.md, 'Power').  Without it a case about what survives a power loss
    would pass on a supply that never cut (a miswired bench, a relay that did not open)."""
    def causes() -> list[str]:
        return [str(e.payload.get("cause")) for e in runner.round.ctrl_events[mark:] if e.name == "lockout"]

    deadline = time.monotonic() + within_s
    while "power" not in causes() and time.monotonic() < deadline:
        runner.pump(0.05)
    got = causes()
    runner.measure(step, "the controller came back from a power loss: locked, lock-out cause power",
                   ", ".join(got) or "no lockout event", "cause power", "power" in got,
                   detail=f"lockout events after the power came back, within {within_s} s")


@step("comm", Action({"state": choice("lost", "restored", required=True)}, shorthand="state",
               doc="break or restore communication between controller and wagering devices; `lost` then waits "
               "until the controller reports the loss (`lockout`, cause `comm-lost`) or the profile's "
               "`timing.comm_timeout_ms` has passed, whichever comes first: the controller may notice the "
               "loss at any time within that limit", acts=("comm",)))
def comm(runner: CaseContext, step: Step, state: str) -> None:
    runner.controller()
    runner.pump()
    seen = len(runner.round.ctrl_events)
    runner.perform(SetComm(state == "restored"))
    if state == "lost":
        await_comm_loss(runner, seen)


def await_comm_loss(runner: CaseContext, seen: int) -> None:
    """Wait, after the link was cut, for the controller to report the loss (a ``lockout`` event with
    cause ``comm-lost`` after the first ``seen`` events of the round), up to the profile's
    ``timing.comm_timeout_ms`` and the time an event on its way is given (EVENT_WAIT_S).  The
    profile's limit is the silence after which the controller must treat the link as lost: one that
    notices it later than at once but within the limit is compliant, so nothing after the cut may
    judge it before then.  No report by the deadline is no error here: the expectations that follow
    judge a controller that never noticed."""

    def reported() -> bool:
        return any(e.name == "lockout" and e.payload.get("cause") == "comm-lost"
                   for e in runner.round.ctrl_events[seen:])

    limit_s = float(runner.profile.timing.comm_timeout_ms) / 1000 + COMM_LOSS_GRACE_S
    with contextlib.suppress(DeviceTimeout):
        runner.wait_for("'lockout' event with cause comm-lost", reported, timeout_s=limit_s)


@step("configure", Action(
    {"set": Arg("map", required=True), "expect": choice("accepted", "refused", default="accepted"),
     "reason": Arg("str")},
    doc="write controller parameters",
))
def configure(runner: CaseContext, step: Step, set: Mapping[str, Any], expect: str, reason: str | None = None) -> None:
    try:
        runner.controller().set_config(**set)
        got, why = "accepted", ""
    except NakError as exc:  # REFUSED: the device's application-level answer
        got, why = "refused", exc.reason
        if expect == "accepted":
            for key in set:
                permitted_refusal(runner, step, field_of_wire(str(key)), f"{got} ({why})",
                                  f"what this case checks on a written {field_of_wire(str(key))} does not apply")
    ok = got == expect and (reason is None or reason in why)
    runner.measure(step, "configuration write", got + (f" ({why})" if why else ""),
                 expect + (f" ({reason})" if reason else ""), ok,
                 clause=write_clause(runner, step, ok=ok, taken=got == "accepted", why=why))


@step("read_meters", Action({"as": Arg("str", required=True)}, shorthand="as", doc="snapshot the meters under a name"))
def read_meters(runner: CaseContext, step: Step, **args: Any) -> None:
    runner.snapshot(args["as"], runner.read_meters())


@step("wait", Action({"ms": Arg("decimal", required=True)}, shorthand="ms"))
def wait(runner: CaseContext, step: Step, ms: Decimal) -> None:
    end = time.monotonic() + float(ms) / 1000
    while time.monotonic() < end:
        runner.pump(min(0.01, max(0.0, end - time.monotonic())))


@step("fault", Action({"kind": Arg("str", required=True), "role": choice("shoe", "sensors", "controller",
                                                                 default="controller")},
                shorthand="kind", doc="ask an emulator to inject a device fault", acts=("fault",)))
def fault(runner: CaseContext, step: Step, kind: str, role: str) -> None:
    if getattr(runner.rig, role) is None:
        raise DeviceError(f"this case needs a {role} and the profile has none")
    runner.perform(InjectFault(role, kind))
