"""What the device showed after one step, and the model's judgement of it (pure).

:class:`Observed` is every observable read after a step, in plain normalised values.  :func:`judge`
compares it with each outcome the model permits and returns the one the device took, or, when none
matches, the differences from the closest one, each with the rule it breaks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from harness.devices.contract import ContractError
from harness.devices.dropped import FrameWatch, shown
from harness.devices.framing import next_seq
from harness.devices.roles import control_characters
from harness.explore import rules as R
from harness.explore.model import Permitted, TableModel
from harness.explore.ops import ANSWERED_FRAME_KINDS
from harness.explore.state import Pending, State
from harness.money import Cents

#: docs/protocol.md section 5: a device answers a request within 100 ms unless the command says otherwise
ANSWER_DEADLINE_MS = Decimal(100)


@dataclass
class Observed:
    """One step's answer and every observable read after it."""

    #: ``ok`` or the NAK code the device answered
    code: str = "ok"
    fields: Mapping[str, Any] = field(default_factory=dict)
    #: a wager's answer
    accepted: bool | None = None
    reason: str | None = None
    #: configuration, normalised by :func:`config_view`; None when not read
    config: Mapping[str, Any] | None = None
    meters: Mapping[str, Cents] = field(default_factory=dict)
    residual: Mapping[str, Decimal] = field(default_factory=dict)
    #: ``diverted`` as reported (None: the device reports none)
    diverted: Mapping[str, Cents] | None = None
    cumulative_paid: Cents = 0
    paid_by_table: Cents = 0
    paid_by_attendant: Cents = 0
    pending: tuple[Pending, ...] = ()
    layout: tuple[tuple[int, str, Cents], ...] = ()
    #: the shoe's card events are judged (its line is the reference protocol's: events before the answers)
    card_events_judged: bool = False
    #: the seats of ``wager.list`` in the order listed; None when not read
    layout_seats: tuple[int, ...] | None = None
    locked: bool = True
    #: the lock-out cause as lockout.get reports it; "?" where the driver cannot read it
    cause: str | None = "?"
    #: (cards_dealt, cards_remaining); None when not read
    shoe: tuple[int, int] | None = None
    #: a settled round's payouts by (seat, type): (stake, returned, category), and its round_end number
    payouts: Mapping[tuple[int, str], tuple[Cents, Cents, str | None]] | None = None
    round_end: int | None = None
    #: identity fields, when read (at the start, after a power cycle and on a line opened again)
    identity: Mapping[str, str | None] | None = None
    #: ``round_end`` said ``void: true``
    round_end_void: bool = False
    #: False: no ``round_end`` came within the settlement's deadline after the round's last card
    settled: bool = True
    #: every event the step brought, in order of arrival per line: (role, name, payload, SEQ)
    events: list[tuple[str, str, Mapping[str, Any], int]] = field(default_factory=list)
    #: the lock-out latency after the round's first card (ms), how it was measured ("counter" or
    #: "host stamps") and the bench's host-stamp jitter (ms, None where not measured)
    lock_ms: Decimal | None = None
    lock_by: str | None = None
    jitter_ms: Decimal | None = None
    #: the latency was within the jitter of the limit: advisory, it decides nothing
    lock_advisory: bool = False
    #: reads answered past the answer deadline every time they were asked: (request, the fastest of the
    #: answers in ms, how many times it was asked)
    slow: list[tuple[str, Decimal, int]] = field(default_factory=list)
    #: the act's requests answered past the deadline every time they were asked (the act, and the same
    #: request again in a form that changes nothing): (request, the fastest answer in ms, how many asks)
    slow_acts: list[tuple[str, Decimal, int]] = field(default_factory=list)
    #: the act's requests answered late once that could not be asked again harmlessly (counted only)
    late_unconfirmed: list[tuple[str, Decimal]] = field(default_factory=list)
    #: the answer of a ``config.set`` (normalised as ``config``); None when there was none
    config_answer: Mapping[str, Any] | None = None
    #: the seats and wager types of the settlement's ``payout`` events, in the order they came
    payout_order: list[tuple[int, str]] = field(default_factory=list)
    #: the operation the step played (its name, :mod:`harness.explore.ops`); None for a read alone
    op: str | None = None
    #: who paid each settled wager, as its ``payout`` said (``paid_by``)
    paid_by: dict[tuple[int, str], str | None] = field(default_factory=dict)
    #: the settlement's ``hit`` and ``payout`` events in the order they came: (name, seat), mystery awards aside
    settle_order: list[tuple[str, int]] = field(default_factory=list)
    #: the settlement's ``hit``, ``reset`` and ``payout`` events in the order they came: (name, seat or None,
    #: the hit's or the reset's meter or None, the payout's paid_by or None), mystery awards aside
    settle_events: list[tuple[str, int | None, str | None, str | None]] = field(default_factory=list)
    #: the seats the settlement's ``hit`` events named (mystery awards aside)
    hit_seats: tuple[int, ...] = ()
    #: ``config.get`` ``game`` as reported (None when not read)
    config_game: str | None = None
    #: ``config.get`` ``mystery`` where it reports one (None: null, absent or not read)
    config_mystery: Any = None
    #: ``shoe.status`` ``state`` after the step (None when not read)
    shoe_state: str | None = None
    #: the shoe's ``state`` read during a paced deal, before its last card came; None when not read
    shoe_mid_deal: str | None = None
    #: during that deal: (the cards shoe.status counted as dealt in it, the card events received before its answer)
    mid_deal_counted: tuple[int, int] | None = None
    #: a ``test.deal`` sent during such a deal, answered before its last card came: the answer (``ok`` or the NAK
    #: code); None when not sent or answered after the deal
    busy_answer: str | None = None
    #: a deal at once through the test channel: (its card events received before its answer, the cards asked)
    dealt_at_once: tuple[int, int] | None = None
    #: the bench instruments' readings checked in the step (the supply's around a power cycle through it, the
    #: counter's where it was configured or armed to check it): (what was read, what it must read, what it read)
    instrument_reads: list[tuple[str, Any, Any]] = field(default_factory=list)
    #: after power-up (a power cycle or a reboot): the controller's lockout event came before its first answer
    #: to a request (None: not such a step, or the driver cannot ping)
    power_event_unasked: bool | None = None
    #: the time-interval counter, armed before the round's first card, measured no lock-out edge although
    #: it measured the lock-out line in an earlier round (the line did not fall at round.open or rise at
    #: the lock-out: docs/protocol.md section 9)
    lock_no_edge: bool = False
    #: the wagers are placed with ``wager.place`` (the test channel): a bet sensors' ``wager`` or
    #: ``wager_removed`` event is one no hand caused (docs/protocol.md section 11)
    sensor_events_judged: bool = False
    #: a broken frame's step (:class:`~harness.explore.ops.BadFrame`): the SEQ it was sent with, and the answers
    #: (NAK code or ``ok``, SEQ; SEQ None for a NAK that failed the ping after it) that came to it
    frame_seq: int | None = None
    frame_answers: list[tuple[str, int | None]] = field(default_factory=list)
    #: the broken frame's kind (``crc``, ``payload``, ``version``, ``stall``, ...)
    frame_kind: str = "crc"
    #: the pings after the broken frame went unanswered: the line stayed out of step
    frame_stalled: bool = False
    #: requests not answered with their own SEQ (docs/protocol.md sections 3, 4), each as a person reads it
    seq_faults: list[str] = field(default_factory=list)
    #: a line opened again, or a device rebooted, whose ``hello`` named a version the host did not offer or
    #: another role (docs/protocol.md 6.1)
    hello_faults: list[str] = field(default_factory=list)
    #: what a line fault or a reboot should have done to the requests and frames after it, judged (section 7):
    #: (what, expected, what the device did, the rule)
    lost_faults: list[tuple[str, str, str, str]] = field(default_factory=list)
    #: a line stopped answering (out of step after a broken frame, or answering with other SEQs): nothing was
    #: read after the act, and only the line's own differences are judged
    unread: bool = False


@dataclass(frozen=True)
class Difference:
    what: str
    expected: Any
    got: Any
    rule: str

    def text(self) -> str:
        return f"{self.what}: expected {self.expected!r}, the device shows {self.got!r}"


def config_view(state: State) -> dict[str, Any]:
    """The model's configuration in the form :func:`normalise_config` gives a device's."""
    meters = {name: {"rate": _rate(c.rate), "initial": c.initial, "reset": c.reset,
                     "payout_limit": c.payout_limit, "display_capacity": c.display_capacity}
              for name, c in state.meter_cfg.items()}
    return {"denomination": state.denomination, "meters": meters, "commission": _rate(state.commission),
            "decks": state.decks,
            "seats": [[seat, None if combo is None else list(combo)] for seat, combo in state.seats]}


def _seats(raw: Any) -> Any:
    if not isinstance(raw, (list, tuple)):
        return raw
    out = []
    for item in raw:
        if not isinstance(item, Mapping):
            return raw
        combo = item.get("combo")
        out.append([item.get("seat"), None if combo is None else [str(c) for c in combo]
                    if isinstance(combo, (list, tuple)) else combo])
    return sorted(out, key=lambda x: (not isinstance(x[0], int), x[0] if isinstance(x[0], int) else 0))


def normalise_config(raw: Mapping[str, Any], royal9: bool) -> dict[str, Any]:
    meters = {}
    for name, m in dict(raw.get("meters") or {}).items():
        meters[str(name)] = {"rate": _rate(m.get("rate")), "initial": m.get("initial"), "reset": m.get("reset"),
                             "payout_limit": m.get("payout_limit"), "display_capacity": m.get("display_capacity")}
    commission = raw.get("commission")
    return {"denomination": raw.get("denomination") if royal9 else None, "meters": meters,
            "commission": None if commission is None else _rate(str(commission).removesuffix("%")),
            "decks": raw.get("decks"), "seats": _seats(raw.get("seats"))}


def _rate(value: Any) -> str:
    try:
        return format(Decimal(str(value)).normalize(), "f")
    except ArithmeticError:
        return str(value)


def _view_as_reported(s: State, got: Mapping[str, Any]) -> dict[str, Any]:
    """The model's configuration, its optional fields (docs/protocol.md 6.4: ``commission``, ``decks``)
    left out where the device does not report them."""
    view = config_view(s)
    for key in ("commission", "decks", "seats"):
        if got.get(key) is None:
            view[key] = None
    return view


def _meter_rule(out: Permitted) -> str:
    for name in (R.RESET_KEY.name, R.CONTRIBUTE.name, R.POWER.name):
        if name in out.rules:
            return name
    return R.NO_TURN_BACK.name


def differences(model: TableModel, out: Permitted, got: Observed,
                identity: Mapping[str, Any] | None) -> list[Difference]:
    """Every observable where ``got`` differs from outcome ``out`` (empty: the device took it)."""
    s = out.state
    own = out.rules[0]
    diffs: list[Difference] = []

    def check(what: str, expected: Any, actual: Any, rule: str) -> None:
        if expected != actual:
            diffs.append(Difference(what, expected, actual, rule))

    ans = out.answer
    if ans.accepted is not None:
        if got.accepted != ans.accepted:
            want = "accepted" if ans.accepted else f"refused ({' or '.join(sorted(ans.reasons))})"
            shown = "accepted" if got.accepted else f"refused ({got.reason})"
            diffs.append(Difference("the wager's answer", want, shown, own))
        elif not ans.accepted and got.reason not in ans.reasons:
            # a reason that does not apply breaks the refusal reasons (sections 6.3, 12), whatever rule refused
            diffs.append(Difference("the wager's refusal reason", " or ".join(sorted(ans.reasons)), got.reason,
                                    R.WAGER_REFUSE.name))
    elif got.code not in ans.codes:
        diffs.append(Difference("the answer", " or ".join(sorted(ans.codes)), got.code, own))
    elif got.code == "ok":
        for key, value in ans.fields.items():
            # a field the answer may leave out is judged where it is given; `void` a void's answer must carry
            # (docs/protocol.md section 8: "RSP void: true")
            if value is not None and (key in got.fields or key == "void") and got.fields.get(key) != value:
                rule = R.ROUND_NUMBER.name if key in ("round", "first_round", "rounds_consecutive") else own
                diffs.append(Difference(f"the answer's {key}", value, got.fields.get(key), rule))
    if got.config is not None:
        check("config.get", _view_as_reported(s, got.config), dict(got.config),
              R.CONFIG_RANGE.name if own.startswith("config") else
              R.POWER.name if own == R.POWER.name else R.CONFIG_AS_FILED.name)
    if got.config_answer is not None and got.code == "ok":
        # docs/protocol.md 6.4: "The answer is the whole configuration as it now stands"
        check("config.set answer", _view_as_reported(s, got.config_answer), dict(got.config_answer),
              R.CONFIG_ANSWER.name)
    meter_rule = _meter_rule(out)
    check("meters.get meters", {n: m.amount for n, m in s.meters.items()}, dict(got.meters), meter_rule)
    check("meters.get residual", {n: m.residual for n, m in s.meters.items()},
          {n: got.residual.get(n, Decimal(0)) for n in s.meters}, meter_rule)
    for name, m in s.meters.items():
        cap = s.meter_cfg[name].cap
        reported = None if got.diverted is None else got.diverted.get(name)
        if reported is None and cap is not None and m.amount >= cap:
            diffs.append(Difference(f"meters.get diverted {name} (the meter stands at its cap)", m.diverted,
                                    "not reported", R.CAP.name))
        elif reported is not None:
            check(f"meters.get diverted {name}", m.diverted, reported, R.CAP.name)
    for key in ("cumulative_paid", "paid_by_table", "paid_by_attendant"):
        check(f"meters.get {key}", getattr(s, key), getattr(got, key), R.PAYOUT_METERS.name)
    pend_rule = R.RESET_KEY.name if own == R.RESET_KEY.name else R.POWER.name if own == R.POWER.name else R.HIT.name
    check("meters.get pending", [_pending(p) for p in s.pending], [_pending(p) for p in got.pending], pend_rule)
    layout_rule = {R.REMOVE.name: R.REMOVE.name, R.POWER.name: R.POWER.name, R.SHOE.name: R.SETTLE.name,
                   R.OPEN.name: R.OPEN.name, R.VOID.name: R.VOID.name}.get(
        own, R.WAGER_ACCEPT.name if own != R.BASE_WAGER.name else own)
    check("wager.list", sorted((seat, kind, a) for (seat, kind), a in s.layout.items()), sorted(got.layout),
          layout_rule)
    if got.layout_seats is not None and list(got.layout_seats) != sorted(got.layout_seats):
        # docs/protocol.md 6.3: "wager.list lists every wager on the layout now, in seat order"
        diffs.append(Difference("wager.list order", "in seat order", [f"seat {seat}" for seat in got.layout_seats],
                                R.WAGER_LIST.name))
    lock_rule = own if own in (R.POWER.name, R.LINK.name, R.NMB.name, R.VOID.name) else R.LOCKOUT.name
    check("lockout.get locked", s.locked, got.locked, lock_rule)
    if got.cause != "?":
        check("lockout.get cause", s.cause if s.locked else None, got.cause, lock_rule)
    if got.shoe is not None and s.shoe is not None:
        check("shoe.status (cards_dealt, cards_remaining)", (s.dealt, len(s.shoe)), got.shoe, R.SHOE.name)
        if got.shoe_state is not None:
            # section 12, shoe states: "ready: cards in the shoe, not dealing", "empty: no card left"
            check("shoe.status state", "empty" if not s.shoe else "ready", got.shoe_state, R.SHOE.name)
    elif got.shoe_state == "dealing":
        # the shoe's cards unknown (after a power cycle): still, no deal is in progress once the step is
        # over (section 12: "dealing: a deal is in progress"; none was started after power-up)
        check("shoe.status state", "ready or empty (no deal in progress)", got.shoe_state, R.SHOE.name)
    dealt = [p["n"] for role, name, p, _seq in got.events
             if role == "shoe" and name in ("card", "misread") and isinstance(p.get("n"), int)]
    if dealt and got.op in _DEALS and got.shoe is not None and got.shoe_state != "dealing":
        # 6.2: a card's n and shoe.status cards_dealt both count "since the shoe was loaded", and no load came
        # within the deal: once it is over they agree, whether or not the model knows the shoe's cards
        check(f"shoe.status cards_dealt after the card event n {max(dealt)}", max(dealt), got.shoe[0], R.SHOE.name)
    if got.config_game is not None:
        # 6.4: "game: a game (section 12); required", the table's own
        check("config.get game", model.profile.game, got.config_game, R.CONFIG_AS_FILED.name)
    if got.config_mystery is not None:
        # 6.4: "mystery: null, or {...}; required": the model plays only tables without one
        check("config.get mystery", None, got.config_mystery, R.CONFIG_AS_FILED.name)
    if got.shoe_mid_deal is not None:
        # docs/protocol.md section 12, shoe states: "dealing | a deal is in progress"
        check("shoe.status state during a paced deal", "dealing", got.shoe_mid_deal, R.SHOE.name)
    for what, want, read in got.instrument_reads:
        # docs/protocol.md section 9: OUTP? reads the output's setting back, VOLT? the voltage set; FETC? measures
        # from the first start edge after arming to the next stop edge, with the slopes CONF:TINT sets
        check(what, want, read, R.INSTRUMENTS.name)
    if got.dealt_at_once is not None and got.dealt_at_once[0] < got.dealt_at_once[1]:
        # docs/protocol.md section 7, test.deal: "0 = at once, before the RSP"; section 5: "an event comes before any
        # answer that reports what it reports"
        before, count = got.dealt_at_once
        diffs.append(Difference("card events before the answer to test.deal at once (pace_us 0)",
                                f"all {count}", before, R.CARD_EVENTS.name))
    if got.busy_answer is not None:
        # docs/protocol.md section 7, test.deal: "BUSY while dealing"; section 3: BUSY "the device cannot take
        # the command now (the shoe is dealing)" (a NAK without its reason fails the request at the link)
        check("test.deal while the shoe is dealing", "NAK BUSY",
              "RSP (taken)" if got.busy_answer == "ok" else f"NAK {got.busy_answer}", R.DEAL_BUSY.name)
    if got.mid_deal_counted is not None and got.mid_deal_counted[0] > got.mid_deal_counted[1]:
        # section 5: "every card shoe.status counts in cards_dealt has had its card (or misread) event sent
        # before that answer"
        counted, before_answer = got.mid_deal_counted
        diffs.append(Difference("shoe.status cards_dealt during a paced deal (cards of the deal counted)",
                                f"at most {before_answer} (the card events sent before the answer)", counted,
                                R.CARD_EVENTS.name))
    if got.power_event_unasked is False:
        # section 8, Power: "locked (lockout cause power, sent once it is back)"; section 5: events are sent
        # as they happen.  The device answered a request, so it was back, yet its lockout event came after
        diffs.append(Difference("lockout event (cause power) after power-up",
                                "sent once the controller is back: before its first answer",
                                "after its first answer (held until a request)", R.LOCKOUT_EVENT.name))
    diffs.extend(_events_differences(model, out, got))
    if got.op is not None:
        diffs.extend(stray_events(got.op, got))
    diffs.extend(line_differences(got))
    for request, fastest, tries in got.slow:
        diffs.append(Difference(f"{request} answer time (the fastest of {tries} asks)",
                                f"<= {ANSWER_DEADLINE_MS} ms", f"{fastest} ms", R.ANSWER_TIME.name))
    for request, fastest, tries in got.slow_acts:
        diffs.append(Difference(f"{request} answer time (the act, and the fastest of {tries} asks in all)",
                                f"<= {ANSWER_DEADLINE_MS} ms", f"{fastest} ms", R.ACT_TIME.name))
    if out.settlement is not None and out.settlement.void:
        if not got.round_end_void:
            diffs.append(Difference("round_end void", True, "round_end without void: true" if got.round_end is not None
                                    else "no round_end", R.VOID.name))
        elif out.settlement.round is not None and got.round_end is not None:
            check("round_end round", out.settlement.round, got.round_end, R.ROUND_NUMBER.name)
    elif out.settlement is not None and not got.settled:
        diffs.append(Difference(f"round_end after the round's last card ({' '.join(out.settlement.cards)})",
                                f"round {out.settlement.round} settled", "no round_end within 5 s", R.SETTLE.name))
    elif out.settlement is not None:
        paid = dict(out.settlement.payouts)
        sent = dict(got.payouts or {})
        cards = " ".join(out.settlement.cards)
        for wager in sorted(set(paid) | set(sent)):
            if paid.get(wager) != sent.get(wager):
                rule = R.ROYAL9_PAY.name if wager[1] == "royal9" else R.SETTLE.name
                diffs.append(Difference(f"payout seat {wager[0]} {wager[1]} (stake, returned, category) for {cards}",
                                        paid.get(wager), sent.get(wager), rule))
        if out.settlement.round is not None and got.round_end is not None:
            check("round_end round", out.settlement.round, got.round_end, R.ROUND_NUMBER.name)
        ends = sum(1 for role, name, _p, _seq in got.events if role == "controller" and name == "round_end")
        if ends > 1:
            # section 8: the controller settles the round once, "Last comes round_end"; 6.4: round_end is sent
            # when "the round is settled"
            diffs.append(Difference(f"round_end events for the round settled on {cards}", 1, ends, R.SETTLE.name))
        if got.round_end_void:
            # 6.4 events: round_end's void is "true when the round was voided; false or absent otherwise"
            diffs.append(Difference(f"round_end void for a round settled on its cards ({cards})", "false or absent",
                                    True, R.VOID.name))
        unpaid = [seat for i, (name, seat) in enumerate(got.settle_order)
                  if name == "hit" and next((s for n, s in got.settle_order[i + 1:] if n == "payout"), None) != seat]
        if unpaid:
            # section 8: for every wager "the hit events of the lines and meters the wager wins and then its one
            # payout"
            diffs.append(Difference(f"hit events followed by their seat's payout for {cards}",
                                    "each hit, then its seat's payout",
                                    [f"{name} seat {seat}" for name, seat in got.settle_order], R.PAYOUT_ORDER.name))
        diffs.extend(resets_after_hits(got))
        for wager in sorted(out.settlement.attendant):
            if wager in sent and got.paid_by.get(wager) != "attendant":
                # section 8: "an attendant pays them: the payout says paid_by: attendant"
                diffs.append(Difference(f"payout seat {wager[0]} {wager[1]} paid_by (a meter jackpot) for {cards}",
                                        "attendant", got.paid_by.get(wager), R.HIT.name))
        for wager in sorted(set(sent) - set(out.settlement.attendant)):
            if got.paid_by.get(wager) == "attendant":
                # section 12, paid by: "attendant: an attendant pays; a meter award waits for the reset key" and
                # "table: the table (the controller) pays at settlement"; section 8 has an attendant pay the meter
                # jackpots only: an award that waits for no key and is booked on no meter is the table's
                rule = R.ROYAL9_PAY.name if wager[1] == "royal9" else R.SETTLE.name
                diffs.append(Difference(f"payout seat {wager[0]} {wager[1]} paid_by (not a meter jackpot) for {cards}",
                                        "table", "attendant", rule))
        strays = sorted({seat for seat in got.hit_seats if not any(k[0] == seat for k in sent)})
        if strays:
            # 6.4 events: a hit is sent when "a wager wins a paytable line or a meter", one per seat and line, in
            # the round that pays it: a seat the settlement pays nothing names no wager that won
            diffs.append(Difference(f"hit events' seats for {cards}", "seats whose wagers the settlement pays",
                                    [f"seat {seat} (no payout)" for seat in strays], R.ROYAL9_PAY.name))
        order = [(kind == "royal9", seat) for seat, kind in got.payout_order]
        if order != sorted(order):
            # docs/protocol.md section 8: "for every wager on the layout, in seat order, ... (base-game and
            # EZ wagers first, then the Royal 9 wagers)"
            diffs.append(Difference(f"payout events' order for {cards}",
                                    "in seat order, the base-game and EZ wagers first, then the Royal 9 wagers",
                                    [f"seat {seat} {kind}" for seat, kind in got.payout_order], R.PAYOUT_ORDER.name))
    if got.identity is not None and identity is not None:
        for key, value in identity.items():
            check(f"identity {key}", value, got.identity.get(key), R.IDENTITY.name)
    if got.identity is not None:
        diffs.extend(Difference(f"identity {key}", "text without a control character or padding (docs/protocol.md 6.1)",
                                value, R.IDENTITY.name)
                     for key, value in sorted(got.identity.items()) if control_characters(value))
        for key, game_type in got.identity.items():
            if key.endswith(" game_type") and game_type not in (None, "", model.profile.game):
                diffs.append(Difference(f"identity {key}", model.profile.game, game_type, R.IDENTITY.name))
        diffs.extend(serial_differences(got.identity))
    return diffs


def serial_differences(identity: Mapping[str, Any]) -> list[Difference]:
    """Two devices of the table answering the same serial (607a.2(b)(2)(iv): each device is identified
    by the manufacturer's serial number).  ``identity``: ``"<role> <field>"`` -> value."""
    by_serial: dict[str, list[str]] = {}
    for key, value in sorted(identity.items()):
        role, _sep, name = key.partition(" ")
        if name == "serial" and value not in (None, ""):
            by_serial.setdefault(str(value), []).append(role)
    return [Difference(f"identity serial of the {' and the '.join(roles)}", "a serial of each device's own",
                       f"{serial} answered by each", R.IDENTITY_SERIAL.name)
            for serial, roles in by_serial.items() if len(roles) > 1]


def _events_differences(model: TableModel, out: Permitted, got: Observed) -> list[Difference]:
    """The step's events against the contract: the lockout event it must send, each lockout event's
    cause consistent with its state, the SEQ of each line's events, and the lock-out latency."""
    diffs: list[Difference] = []
    locks = [(bool(p.get("locked")), p.get("cause")) for role, name, p, _seq in got.events
             if role == "controller" and name == "lockout"]
    if out.lock_event is not None and out.lock_event not in locks:
        want_locked, want_cause = out.lock_event
        diffs.append(Difference("lockout event", {"locked": want_locked, "cause": want_cause},
                                [{"locked": lk, "cause": c} for lk, c in locks] or "none sent", R.LOCKOUT_EVENT.name))
    if out.lock_event is None and locks and not out.rounds:
        # section 6.4: a lockout event is sent when wagering closes or opens; section 8 sends one again
        # only for a lost link ("even when wagering was already closed"), which the model asks for
        diffs.append(Difference("lockout event", "none: wagering neither closed nor opened",
                                [{"locked": lk, "cause": c} for lk, c in locks], R.LOCKOUT_EVENT.name))
    diffs.extend(_required_events(out, got))
    if out.lock_event != (False, "round-open") and any(not lk for lk, _c in locks) and not out.rounds:
        # wagering is open only when entered by round.open (docs/protocol.md section 8, the state table)
        diffs.append(Difference("lockout event unlocking wagering", "none: only round.open opens wagering",
                                [{"locked": lk, "cause": c} for lk, c in locks], R.LOCKOUT_EVENT.name))
    for locked, cause in locks:  # section 6.4: cause round-open exactly when locked is false
        if (cause == "round-open") == locked:
            diffs.append(Difference("lockout event cause", "round-open exactly when unlocked",
                                    {"locked": locked, "cause": cause}, R.LOCKOUT_EVENT.name))
    if out.state.round is not None:
        # docs/protocol.md 6.4 events: no_more_bets carries the round it closes (the round in play)
        for role, name, p, _seq in got.events:
            if role == "controller" and name == "no_more_bets" and p.get("round") != out.state.round:
                diffs.append(Difference("no_more_bets event round", out.state.round, p.get("round"),
                                        R.NMB.name))
    power_step = out.rules[0] == R.POWER.name
    for role in ("controller", "shoe"):
        last = out.state.seqs.get(role)
        restart = role in out.state.seq_fresh
        for _r, name, p, seq in (e for e in got.events if e[0] == role):
            if restart and seq == 1:
                restart, last = False, 1  # numbered from 1 again after power-up (sections 4, 8)
                continue
            if restart and last is not None and (not power_step or (name == "lockout" and p.get("cause") == "power")):
                # sections 4 and 8: after power-up (or a reboot) the device numbers its events from 1;
                # only an event sent before the power went (read in the power step itself) runs on
                diffs.append(Difference(f"{role} event SEQ ({name}), the first after power-up", 1, seq,
                                        R.EVENT_SEQ.name))
                break
            if last is not None and seq != next_seq(last):
                rule = R.EVENT_SEQ.name
                diffs.append(Difference(f"{role} event SEQ ({name})", next_seq(last), seq, rule))
                break
            last = seq
    if out.timed and got.lock_no_edge:
        diffs.append(Difference("lock-out line at the round's first card (time-interval counter, which measured "
                                "it in an earlier round)", "a stop edge: the line falls when wagering opens and "
                                "rises at the lock-out (docs/protocol.md section 9)",
                                "no edge before the counter's measurement timeout", R.LATENCY.name))
    if out.timed and got.lock_ms is not None and not got.lock_advisory:
        limit = model.lock_limit_ms
        if got.lock_ms > limit:
            how = str(got.lock_by or "host stamps")
            extra = f", host-stamp jitter {got.jitter_ms} ms" if got.jitter_ms is not None and how != "counter" else ""
            diffs.append(Difference(f"lock-out latency after the round's first card ({how}{extra})",
                                    f"<= {limit} ms", f"{got.lock_ms} ms", R.LATENCY.name))
    return diffs


#: the fields of a shoe event the model knows (docs/protocol.md 6.2)
_CARD_FIELDS = {"card": ("card", "n"), "misread": ("n",)}
#: the controller's events and the rule of the only steps that send them (docs/protocol.md 6.4, "sent when"):
#: a settlement's (the round's last card) and a void's round_end; the reset key's reset; a no more bets taken
_EVENT_STEPS = {"hit": (("deal_rest",), R.SETTLE), "payout": (("deal_rest", "void"), R.SETTLE),
                "round_end": (("deal_rest", "void", "void_rounds"), R.SETTLE), "reset": (("reset_key",), R.RESET_KEY),
                "no_more_bets": (("no_more_bets", "void", "void_rounds"), R.NMB_EVENT)}


#: the steps that only deal cards of the round in play (no load, no power within them)
_DEALS = frozenset({"deal_first", "deal_misread", "deal_next", "deal_rest"})


def frame_differences(got: Observed) -> list[Difference]:
    """The answers to a broken frame (docs/protocol.md sections 2, 3).  A frame whose CRC failed
    (``frame_seq`` None): dropped, so any NAK to it is ``BAD_CRC`` (or ``BAD_FRAME`` for the bytes after
    its SOF) with SEQ 0, "the header cannot be trusted".  A frame with a good CRC and a payload that holds a
    float: "a BAD_FRAME error whose SEQ can be trusted", so a NAK to it is ``BAD_FRAME`` with the frame's
    SEQ; an RSP is a command taken from it.  No answer at all is left to the device (a receiver that drops
    what it cannot read says nothing wrong on the wire); the NAKs that failed the ping after it (SEQ
    None) are the line noise the text allows."""
    diffs: list[Difference] = []
    what = _FRAME_KINDS.get(got.frame_kind, "a request whose payload is not a command")
    if got.frame_kind in ANSWERED_FRAME_KINDS:
        # section 2: only the false frame's SOF is dropped, so the genuine ping inside it is read and answered;
        # a NAK to the false frame cannot trust its header (SEQ 0).  A ping whose last byte came late, well
        # inside the silence that abandons a partial frame, is a whole frame: answered
        if ("ok", got.frame_seq) not in got.frame_answers:
            dropped = {"nested": "none (the whole frame dropped, not only its SOF)",
                       "full-length": "none (a frame of the largest LEN dropped)",
                       "spaced": "none (a payload with whitespace between its tokens not read)",
                       "after-false-header": "none (the bytes after the false header dropped with it)"}.get(
                           got.frame_kind, "none (the frame abandoned before its last byte)")
            diffs.append(Difference(f"the answer to {what}", f"RSP with the ping's SEQ {got.frame_seq}",
                                    dropped, R.FRAMING.name))
        for code, seq in got.frame_answers:
            if seq is not None and (code, seq) != ("ok", got.frame_seq) and (
                    code not in ("BAD_CRC", "BAD_FRAME") or seq != 0):
                diffs.append(Difference(f"the answer to {what}", "NAK BAD_CRC (or BAD_FRAME) with SEQ 0, or none",
                                        f"{code} with SEQ {seq}", R.FRAMING.name))
        return diffs
    # VER 2: "a VERSION error"; any other good CRC: "a BAD_FRAME error whose SEQ can be trusted"
    want = "VERSION" if got.frame_kind == "version" else "BAD_FRAME"
    for code, seq in got.frame_answers:
        if seq is None:
            continue
        if got.frame_seq is None and (code not in ("BAD_CRC", "BAD_FRAME") or seq != 0):
            diffs.append(Difference(f"the answer to {what}", "NAK BAD_CRC (or BAD_FRAME) with SEQ 0, or none",
                                    f"{code} with SEQ {seq}", R.FRAMING.name))
        elif got.frame_seq is not None and (code, seq) != (want, got.frame_seq):
            diffs.append(Difference(f"the answer to {what}", f"NAK {want} with the frame's SEQ {got.frame_seq}",
                                    f"{code} with SEQ {seq}", R.FRAMING.name))
    if got.frame_stalled:
        diffs.append(Difference(f"a ping after {what}", "answered (the receiver back in step: section 2)",
                                "no answer within the deadline", R.FRAMING.name))
    return diffs


#: what each kind of broken frame is, for a person (:class:`~harness.explore.ops.BadFrame`)
_FRAME_KINDS = {
    "crc": "a request whose CRC failed",
    "crc-at-once": "a ping whose CRC failed, a good ping at once after it",
    "payload": "a request with a good CRC whose payload holds a float",
    "duplicate-key": "a request with a good CRC whose payload gives a key twice",
    "not-object": "a request with a good CRC whose payload is not an object",
    "not-utf8": "a request with a good CRC whose payload is not UTF-8",
    "unknown-type": "a frame with a good CRC of an unknown TYPE",
    "version": "a request with a good CRC and VER 2",
    "stall": "a partial frame abandoned after a silence",
    "type-high-bits": "a frame with a good CRC of TYPE 0x11",
    "oversized": "a request whose header announces more than 4096 bytes",
    "nested": "a ping inside a false frame whose CRC fails",
    "integral-float": "a request with a good CRC whose payload holds a float with no fraction",
    "nested-float": "a request with a good CRC whose payload holds a float inside a nested object",
    "exponent": "a request with a good CRC whose payload holds a number with an exponent (1e3)",
    "late-byte": "a ping whose last byte came late (within the device's partial-frame timeout)",
    "split-start": "a ping whose start of frame came split across writes (within the partial-frame timeout)",
    "full-length": "a ping of 4096 payload bytes, the largest LEN",
    "spaced": "a ping with whitespace between its tokens",
    "after-false-header": "a ping right after a header announcing 5000 bytes",
    "empty": "a request with an empty payload (LEN 0)",
    "nan": "a request with a good CRC whose payload holds NaN",
    "trailing": "a request with a good CRC whose payload is two objects",
}



def contract_difference(exc: ContractError) -> Difference:
    """A message a device answered or sent outside the contract (docs/protocol.md section 3, "Messages outside the
    contract"): a difference like any other, under rule ``contract-lockout-message`` for a lockout event or a
    ``lockout.get`` answer, ``contract-message`` for any other."""
    rule = R.CONTRACT_LOCKOUT if "lockout" in exc.message else R.CONTRACT_MESSAGE
    return Difference(f"{exc.device}: {exc.message} at '{exc.path}'",
                      f"within the protocol contract ({exc.definition})", exc.problem, rule.name)


def line_differences(got: Observed) -> list[Difference]:
    """The differences on the line itself: the answers to a broken frame, and requests not answered with their
    own SEQ (docs/protocol.md sections 2 to 4)."""
    diffs = frame_differences(got) if got.op == "bad_frame" else []
    for fault in got.seq_faults:
        diffs.append(Difference(fault, "answered with the request's own SEQ", "not so", R.REQUEST_SEQ.name))
    for what, expected, got_text, rule in got.lost_faults:
        diffs.append(Difference(what, expected, got_text, rule))
    for fault in got.hello_faults:
        diffs.append(Difference("hello on a line opened again, or after the device's reboot",
                                "a protocol version the host offered, as the role the device answered before", fault,
                                R.HELLO_VERSION.name))
    return diffs


def stray_events(op_name: str, got: Observed) -> list[Difference]:
    """Events the step could not have caused: a settlement's events outside a settlement, a reset with no
    reset key, a no_more_bets nobody called, a shoe ``error`` where the explorer made no shoe fault, a bet sensors'
    wager event where no hand places the wagers."""
    diffs: list[Difference] = []
    for role, name, p, seq in got.events:
        steps = _EVENT_STEPS.get(name) if role == "controller" else None
        if steps is not None and op_name not in steps[0]:
            diffs.append(Difference(f"controller {name} event (SEQ {seq}) in a {op_name} step", "none: " + (
                f"sent only by {' or '.join(steps[0])}"), dict(p), steps[1].name))
        elif name in ("wager", "wager_removed") and got.sensor_events_judged:
            diffs.append(Difference(f"{role} {name} event (SEQ {seq}) in a {op_name} step",
                                    "none: wagers placed with wager.place and taken off with wager.remove raise no "
                                    "event", dict(p), R.WAGER_NO_EVENT.name))
        elif role == "shoe" and name == "error" and op_name != "shoe_error":
            diffs.append(Difference(f"shoe error event (SEQ {seq})", "none: no shoe fault was made", dict(p),
                                    R.SHOE.name))
    if op_name == "shoe_error" and got.card_events_judged \
            and not any(role == "shoe" and name == "error" for role, name, _p, _seq in got.events):
        # docs/protocol.md 6.2: `error` is sent when a shoe fault happens (section 7: test.fault kind error
        # "emits error")
        diffs.append(Difference("shoe error event", "one: a shoe fault was made", "none sent", R.SHOE.name))
    return diffs


def resets_after_hits(got: Observed) -> list[Difference]:
    """Section 8: "a meter paid by the table is reset (reset) right after its hit": the event after the hit
    of a meter whose wager's payout says paid_by table is that meter's reset."""
    diffs = []
    events = got.settle_events
    for i, (name, seat, meter, _by) in enumerate(events):
        if name != "hit" or meter is None:
            continue
        payout = next((e for e in events[i + 1:] if e[0] == "payout" and e[1] == seat), None)
        if payout is None or payout[3] != "table":
            continue
        after = events[i + 1] if i + 1 < len(events) else None
        if after is None or after[:1] != ("reset",) or after[2] != meter:
            diffs.append(Difference(f"the event after seat {seat}'s {meter} hit, paid by the table",
                                    f"reset of {meter} (section 8: right after its hit)",
                                    "none" if after is None else f"{after[0]} {after[2] or ''}".strip(),
                                    R.PAYOUT_ORDER.name))
    return diffs


def _required_events(out: Permitted, got: Observed) -> list[Difference]:
    """The events the outcome asks for: each controller event found among the step's (with the fields it
    names; a None field is any), ``no_more_bets`` before the ``lockout`` it causes; and on the shoe's line
    exactly the card events of the cards the step dealt, in order, none missing, late or twice."""
    diffs: list[Difference] = []
    ctrl = [(name, p) for role, name, p, _seq in got.events if role == "controller"]
    after = 0  # several rounds in one step: each required event after the one before it
    for role, name, fields in out.events:
        if role != "controller":
            continue
        rule = {"no_more_bets": R.NMB_EVENT.name, "reset": R.RESET_KEY.name, "hit": R.HIT.name,
                "round_end": R.VOID.name}.get(name, R.LOCKOUT_EVENT.name)
        if name == "hit" and "meter" not in fields:  # a fixed Royal 9 line's hit, not a meter's
            rule = R.ROYAL9_PAY.name
        want = {k: v for k, v in fields.items() if v is not None}
        at = next((i for i, (n, p) in enumerate(ctrl) if i >= after and n == name
                   and all(p.get(k) == v for k, v in want.items())), None)
        if at is None:
            diffs.append(Difference(f"{name} event" + (f" (the {after + 1}th event on)" if out.rounds else ""),
                                    want or "sent", [p for n, p in ctrl if n == name][:6] or "none sent", rule))
            if out.rounds:
                break
            continue
        if out.rounds:
            after = at + 1
        if name == "no_more_bets" and out.lock_event is not None:
            lock = next((i for i, (n, p) in enumerate(ctrl) if n == "lockout" and p.get("locked")), None)
            if lock is not None and lock < at:
                diffs.append(Difference("no_more_bets event", "before the lockout it causes (section 8)",
                                        "after it", R.NMB_EVENT.name))
    want_cards = [(name, dict(fields)) for role, name, fields in out.events if role == "shoe"]
    sent_cards = [(name, {k: p.get(k) for k in _CARD_FIELDS[name]}) for role, name, p, _seq in got.events
                  if role == "shoe" and name in _CARD_FIELDS]
    if got.card_events_judged and want_cards != sent_cards:
        diffs.append(Difference("the shoe's card events, before its shoe.status answer",
                                [f"{n} {f}" for n, f in want_cards] or "none",
                                [f"{n} {f}" for n, f in sent_cards] or "none", R.CARD_EVENTS.name))
    return diffs


def learn_seqs(out: Permitted, got: Observed) -> None:
    """The outcome the device took goes on from the last SEQ each line sent in the step; after a power
    cycle, which numbering the device chose is recorded."""
    for role, _name, _p, seq in got.events:
        out.state.seqs[role] = seq
    # a line stays fresh (its next event numbered 1) until it sends its event 1
    out.state.seq_fresh = out.state.seq_fresh - {role for role, _name, _p, seq in got.events if seq == 1}


def learn_shoe(out: Permitted, got: Observed) -> None:
    """After power-up the shoe's cards are unknown until it is loaded again; a shoe.status that counts
    the cards out and in the shoe as before the power went shows the shoe kept them (docs/protocol.md
    6.2: ``cards_dealt`` counts the cards dealt since the shoe was loaded), and from then on every card
    and every count is judged from there.  A shoe that holds the same number of cards but counts them from
    another number took its power-up for a load of what it holds: judged from that count.  A shoe that
    counts otherwise after power-up keeps them unknown: the documents do not say a shoe remembers its
    count across the power."""
    kept = out.state.shoe_kept
    if kept is None or out.state.shoe is not None or got.shoe is None:
        return
    cards, dealt = kept
    if got.shoe == (dealt, len(cards)) and got.shoe_state != "dealing":
        out.state.shoe, out.state.dealt = cards, dealt
        out.choice = out.choice or "the shoe counts its cards on across the power"
    elif got.shoe is not None and got.shoe[1] == len(cards) and cards and got.shoe_state != "dealing":
        # the same cards still in it, counted from another number: the shoe took its power-up for a load of
        # what it holds, so its next card's n is one more than the count it gives now (6.2: n and cards_dealt
        # both count "since the shoe was loaded"); judged from there
        out.state.shoe, out.state.dealt = cards, got.shoe[0]
        out.choice = out.choice or "the shoe counts its cards kept from another number after power-up"
    else:
        out.choice = out.choice or "the shoe counts afresh after power-up"
    out.state.shoe_kept = None


def _pending(p: Pending) -> tuple[str, int, Cents, str]:
    return (p.meter, p.seat, p.amount, p.category)


def judge(model: TableModel, outcomes: list[Permitted], got: Observed,
          identity: Mapping[str, Any] | None = None) -> tuple[Permitted | None, list[Difference]]:
    """The outcome the device took (its round number learnt where the model did not know it yet), or
    None with the differences from the closest permitted outcome."""
    if got.unread:  # the line stopped answering: its own differences are the finding, nothing else was read
        return None, line_differences(got) or [Difference("the line", "answering", "stopped answering",
                                                           R.FRAMING.name)]
    best: list[Difference] | None = None
    for out in outcomes:
        if out.state.round is None and got.code == "ok" and isinstance(got.fields.get("round"), int) \
                and "round" in out.answer.fields:
            out.state.round = int(got.fields["round"])
            out.answer = type(out.answer)(out.answer.codes, {**out.answer.fields, "round": out.state.round},
                                          out.answer.accepted, out.answer.reasons)
        diffs = differences(model, out, got, identity)
        if not diffs:
            learn_seqs(out, got)
            learn_shoe(out, got)
            return out, []
        if best is None or len(diffs) < len(best):
            best = diffs
    return None, best or []


def adopt(model: TableModel, got: Observed, *, config: bool = False) -> State:
    """The state of a table already in play: every meter, payment and the layout as the device shows
    them (and, with ``config``, its configuration: writes taken earlier stay), the configuration
    otherwise as filed, the round number and the shoe unknown."""
    s = model.initial()
    if config and got.config is not None:
        s.denomination = got.config.get("denomination")
        if got.config.get("commission") is not None:
            s.commission = Decimal(got.config["commission"])
        if isinstance(got.config.get("decks"), int):
            s.decks = got.config["decks"]
        seats = got.config.get("seats")
        if isinstance(seats, list) and {item[0] for item in seats} == {seat for seat, _c in s.seats}:
            s.seats = tuple((int(seat), None if combo is None else (str(combo[0]), str(combo[1])))
                            for seat, combo in seats)
        for name, m in dict(got.config.get("meters") or {}).items():
            if name in s.meter_cfg:
                s.meter_cfg[name] = dataclasses.replace(
                    s.meter_cfg[name], rate=Decimal(m["rate"]), initial=m["initial"], reset=m["reset"],
                    payout_limit=m["payout_limit"], display_capacity=m["display_capacity"])
    for name, m in s.meters.items():
        m.amount = got.meters.get(name, m.amount)
        m.residual = got.residual.get(name, Decimal(0))
        m.diverted = (got.diverted or {}).get(name, 0)
    s.cumulative_paid, s.paid_by_table = got.cumulative_paid, got.paid_by_table
    s.paid_by_attendant = got.paid_by_attendant
    s.pending = got.pending
    s.layout = {(seat, kind): amount for seat, kind, amount in got.layout}
    s.locked = got.locked
    s.cause = got.cause if got.cause != "?" else ("power" if got.locked else None)
    s.phase = "open" if not got.locked else "settled"
    return s


def frames_dropped(watch: FrameWatch) -> list[Difference]:
    """The frames each device sent since the last operation that failed their check on a line with no
    noise (docs/protocol.md section 2; an operation that corrupts frames on purpose, ``corrupt_answers``,
    takes its own from the watch and judges them itself)."""
    return [Difference(f"frames the {role} sent that fail their check", 0, f"{len(errors)}: {shown(errors)}",
                       R.FRAMES_SENT.name)
            for role, noiseless, errors in watch.take() if noiseless and errors]

