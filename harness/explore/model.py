"""An executable model of the device contract: one table, pure (no I/O, no clock, no randomness).

The state is every observable of a table a host can read: the controller's configuration, its meters
with their fractions of a cent, what it diverted at a cap, the payout meters and the payments waiting
for the reset key, the layout, the lock-out and its cause, the round number, the phase of the round,
the shoe's counts and the sensors link.  :meth:`TableModel.step` takes one legal operation
(:mod:`harness.explore.ops`) and returns every *permitted* outcome: what the device must answer and
the state afterwards.  Where docs/protocol.md lets the device choose (a configuration write inside the
ranges taken or refused, the cause a second lock-out reports, which of several applicable refusal
reasons it gives), there is one outcome per choice, labelled; the explorer keeps the one the device
took and counts it, so no one choice is assumed.

It is built from the rules, not from any device: the round is settled by the oracle
(:class:`harness.suites.run.oracle.Oracle` over :mod:`harness.games`), the meters grow by the exact
arithmetic of :mod:`harness.progressive.meter`, configuration writes are judged by
:mod:`harness.explore.configuration` (over :func:`harness.progressive.floors.configuration_problems`),
the state is :class:`harness.explore.state.State`, and the rest is docs/protocol.md sections 6 and 8,
each as a :mod:`harness.explore.rules` rule with its clause.

Events and time: each outcome says which ``lockout`` event the step must send (docs/protocol.md
sections 6.4 and 8), whether the step's first card starts a lock-out that is timed against the
profile's limit (629a Royal 9 (a)(2); the measurement is the device side's, the limit the model's),
and where the device's event numbering must stand (docs/protocol.md section 4: from 1 after power-up,
running on across host reconnections).

Configuration writes follow the profile's ``config_writes:`` (docs/device-profiles.md): a field declared
``never`` must be refused; the personal combinations and the decks are modelled as configuration (read
back, kept across the power), the combinations also as what the meter jackpots are paid on.

Not modelled yet (the explorer does not play them): the mystery progressive, Hit and Run, the
three-games wager, linked tables, writes that add or remove seats.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from harness.cards import Combo, parse_card
from harness.devices import vocabulary
from harness.errors import InputError
from harness.explore import ops
from harness.explore import rules as R
from harness.explore.configuration import config_after, malformed
from harness.explore.state import MeterState, Pending, State
from harness.games.baccarat import deal_round
from harness.games.interpretations import Interpretations
from harness.money import Cents
from harness.profiles.model import Profile, SeatSettings
from harness.progressive.floors import configuration_problems
from harness.progressive.meter import grow_to_cap
from harness.suites.run.oracle import Oracle

BASE = ("player", "banker", "tie")
EZ = ("dragon7", "panda8")
R9_METERS = ("mega", "major", "minor")
#: games the model plays (the others are refused by :func:`unsupported`)
GAMES = ("minibaccarat", "midibaccarat", "baccarat", "ez-baccarat")


def unsupported(profile: Profile) -> str | None:
    """Why the model cannot stand for this profile's table, or None."""
    if profile.link is not None:
        return "a link of tables (the model is one table)"
    if profile.game not in GAMES:
        return f"game {profile.game} (the model plays {', '.join(GAMES)})"
    if profile.rules.mystery is not None:
        return "the mystery progressive (its hidden trigger is not modelled yet)"
    interp = Interpretations.from_overrides(dict(profile.interpretations)).as_dict()
    if interp.get("meter-reset-timing") != "after-payment":
        return "meter-reset-timing at-hit (only after-payment is modelled yet)"
    if interp.get("lockout-automatic") is False:
        return "lockout-automatic false (the model closes wagering on the first card)"
    return None


#: the answer a host sees to a request the device lost (docs/protocol.md section 7): none by its deadline
LOST = "no answer"


@dataclass(frozen=True)
class ExpectedAnswer:
    """What the device must answer: ``codes`` it may answer with (``ok`` or NAK codes), and for an
    ``ok`` the fields it must carry (``None`` values: any)."""

    codes: frozenset[str] = frozenset({"ok"})
    fields: Mapping[str, Any] = field(default_factory=dict)
    #: a wager's answer: accepted, or refused with one of these reasons
    accepted: bool | None = None
    reasons: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ExpectedSettlement:
    """The payouts a settled round must send, by (seat, wager type): (stake, returned, category)."""

    payouts: Mapping[tuple[int, str], tuple[Cents, Cents, str | None]]
    round: int | None
    cards: tuple[str, ...]
    #: a voided round: ``round_end`` must say ``void``; no payout is judged (the contract names none)
    void: bool = False
    #: the wagers a meter jackpot pays: an attendant pays them (``paid_by: attendant``, section 8)
    attendant: frozenset[tuple[int, str]] = frozenset()


@dataclass
class Permitted:
    """One outcome the contract permits for an operation: the answer, the state after it, what it must send."""

    #: the permitted behaviour this outcome stands for (None where the rules allow one)
    choice: str | None
    answer: ExpectedAnswer
    state: State
    #: the rules this outcome applied (coverage; the first is the op's own)
    rules: tuple[str, ...]
    settlement: ExpectedSettlement | None = None
    #: the ``lockout`` event (locked, cause) the step must send, where the contract requires one
    lock_event: tuple[bool, str] | None = None
    #: the step deals the first card of a round while wagering is open: the lock-out it starts is timed
    timed: bool = False
    #: the events (role, name, fields it must carry) the step must send besides its ``lockout``, in order per
    #: role; for the shoe, exactly these ``card``/``misread`` events (docs/protocol.md sections 5, 6.2, 6.4)
    events: tuple[tuple[str, str, Mapping[str, Any]], ...] = ()
    #: the step plays several rounds (:class:`VoidRounds`): its lockout events are among ``events``, in order
    rounds: bool = False


REFUSED = frozenset({"REFUSED"})


class TableModel:
    """The contract's table for one profile (its Rules Submission and interpretations)."""

    def __init__(self, profile: Profile) -> None:
        why = unsupported(profile)
        if why is not None:
            raise InputError(f"{profile.source_path}: the explorer's model cannot play {why}")
        self.profile = profile
        self.interp = Interpretations.from_overrides(dict(profile.interpretations))
        #: interpretation meter-payout-limit-check: against what a written payout limit is held (461a.12(k)(1))
        self.limit_check = str(self.interp.as_dict().get("meter-payout-limit-check", "set-and-reset"))
        values = self.interp.as_dict()
        self.requires_base = bool(values.get("r9-requires-base-wager", True))
        self.residual_on_reset = str(values.get("meter-residual-on-reset", "carry"))
        self.nmb_input = values.get("nmb-announcement", "controller-input") != "first-card"
        rules = profile.rules
        self.seats = tuple(s.seat for s in rules.seats)
        self.royal9 = rules.denomination is not None and any(s.combo is not None for s in rules.seats)
        self.types = BASE + (EZ if profile.game == "ez-baccarat" else ()) + (("royal9",) if self.royal9 else ())
        self.decks = rules.decks
        self.filed_seats: tuple[tuple[int, tuple[str, str] | None], ...] = tuple(
            (st.seat, None if st.combo is None else st.combo.codes()) for st in rules.seats)
        self._oracles: dict[tuple[Cents | None, Decimal | None, Any], Oracle] = {}
        # the limit the suites judge the lock-out by (harness.suites.run.timing.lockout_limit)
        limit = profile.interpretations.get("lockout-latency-limit-ms")
        self.lock_limit_ms = Decimal(str(limit)) if limit is not None else Decimal(profile.timing.lockout_deadline_ms)

    # ------------------------------------------------------------------ the start

    def initial(self) -> State:
        """The table as filed: the Rules Submission's configuration, every meter at its initial
        amount, nothing paid, nothing pending, idle after power-up."""
        rules = self.profile.rules
        cfg = {name: dataclasses.replace(m, name=name) for name, m in rules.meters.items()}
        return State(denomination=rules.denomination * 100 if rules.denomination is not None else None,
                     meter_cfg=cfg, meters={n: MeterState(m.initial) for n, m in cfg.items()},
                     commission=rules.commission if rules.commission is not None else Decimal(5),
                     decks=rules.decks, seats=self.filed_seats)

    def oracle(self, denomination: Cents | None, commission: Decimal | None = None,
               seats: tuple[tuple[int, tuple[str, str] | None], ...] | None = None) -> Oracle:
        """The oracle of the paytable in force: the denomination's, the Banker commission and the personal
        combinations written."""
        rules = self.profile.rules
        commission = rules.commission if commission is None else commission
        seats = self.filed_seats if seats is None else seats
        key = (denomination, commission, seats)
        got = self._oracles.get(key)
        if got is None:
            den = None if denomination is None else denomination // 100
            written = tuple(SeatSettings(seat, None if combo is None else Combo.of_codes(combo))
                            for seat, combo in seats)
            profile = dataclasses.replace(self.profile, rules=dataclasses.replace(rules, denomination=den,
                                                                                  commission=commission,
                                                                                  seats=written))
            got = self._oracles[key] = Oracle(profile, self.interp)
        return got

    # ------------------------------------------------------------------ legality (what may be played)

    def round_length(self, cards: tuple[str, ...]) -> int | None:
        try:
            return deal_round([parse_card(c) for c in cards[:6]]).cards_used
        except InputError:
            return None

    def legal(self, s: State, op: ops.Op) -> bool:
        if isinstance(op, (ops.DealFirst, ops.DealMisread)):
            return s.phase == "open" and s.shoe is not None and self.round_length(s.shoe) is not None
        if isinstance(op, ops.DealRest):
            return s.phase == "dealing"
        if isinstance(op, (ops.DealNext, ops.PowerCutMidDeal)):
            return s.phase == "dealing" and s.shoe is not None and s.round_need - len(s.round_cards) >= 2 \
                and (s.link_up or isinstance(op, ops.DealNext))
        if isinstance(op, ops.LoadShoe):
            # in the middle of a round, only a shoe that completes the round's tableau: its last cards
            # are the new shoe's (section 8: "the cards a host settles on are the shoe's")
            return s.phase != "dealing" or self.reloaded_need(s, op.cards) is not None
        if isinstance(op, ops.Comm):
            return s.link_up != op.up
        if isinstance(op, ops.PowerCycle):
            return s.link_up
        if isinstance(op, ops.VoidRound):
            return s.link_up
        if isinstance(op, ops.Reboot) and op.role != "controller":
            return s.phase in ("idle", "settled") and s.link_up
        if isinstance(op, ops.VoidRounds):
            return s.phase in ("idle", "settled") and not s.pending and s.link_up and op.count >= 1
        if isinstance(op, ops.SupplyOn):
            return s.link_up
        if isinstance(op, ops.LineDrop):  # nothing in play that could send an event while the line is down
            return s.phase in ("idle", "settled", "open") and s.link_up
        if isinstance(op, ops.LostRequest | ops.CorruptAnswers):
            return s.phase in ("idle", "settled") and not s.pending and s.link_up
        return True

    # ------------------------------------------------------------------ one step

    def step(self, s: State, op: ops.Op) -> list[Permitted]:
        """Every permitted outcome of ``op`` in state ``s`` (``s`` itself is not changed)."""
        handler = getattr(self, "_" + op.name)
        out: list[Permitted] = handler(s, op)
        cards = self.card_events(s, op)
        for o in out:
            o.events = (*o.events, *cards)
            o.rules = (*o.rules, *((R.CARD_EVENTS.name,) if cards else ()))
        return out

    def card_events(self, s: State, op: ops.Op) -> tuple[tuple[str, str, Mapping[str, Any]], ...]:
        """The shoe's events a deal must send: one ``card`` per card out with its code and its count ``n``
        since the load (a misread first card: ``misread`` with its ``n``), docs/protocol.md section 6.2."""
        if s.shoe is None:
            return ()
        if isinstance(op, ops.DealMisread):
            return (("shoe", "misread", {"n": s.dealt + 1}),)
        if isinstance(op, (ops.DealFirst, ops.DealNext, ops.PowerCutMidDeal)):
            cards: tuple[str, ...] = s.shoe[:1]
        elif isinstance(op, ops.DealRest):
            cards = s.shoe[:s.round_need - len(s.round_cards)]
        else:
            return ()
        return tuple(("shoe", "card", {"card": c, "n": s.dealt + i}) for i, c in enumerate(cards, 1))

    @staticmethod
    def _event(outs: list[Permitted], locked: bool, cause: str, timed: bool = False) -> list[Permitted]:
        for out in outs:
            out.lock_event = (locked, cause)
            out.timed = timed
            out.rules = (*out.rules, R.LOCKOUT_EVENT.name, *((R.LATENCY.name,) if timed else ()))
        return outs

    def _unchanged(self, s: State, rule: R.Rule, codes: frozenset[str] = REFUSED,
                   choice: str | None = None) -> Permitted:
        return Permitted(choice, ExpectedAnswer(codes), s.clone(), (rule.name,))

    def _open_round(self, s: State, op: ops.OpenRound) -> list[Permitted]:
        if s.phase in ("open", "dealing") or s.pending or not s.link_up:
            return [self._unchanged(s, R.OPEN)]
        n = s.clone()
        n.round = None if s.round is None else s.round + 1
        n.phase, n.locked, n.cause = "open", False, None
        n.layout = {}
        out = [Permitted(None, ExpectedAnswer(fields={"round": n.round}), n, (R.OPEN.name, R.ROUND_NUMBER.name))]
        return self._event(out, False, "round-open")

    def _lost_request(self, s: State, op: ops.LostRequest) -> list[Permitted]:
        # docs/protocol.md section 7, no-answer: "the next count (default 1) requests are lost: not executed, not
        # answered"; the host sees "a TIMEOUT at the request's deadline"
        return [Permitted(None, ExpectedAnswer(frozenset({LOST})), s.clone(), (R.LOST_REQUEST.name,))]

    def _corrupt_answers(self, s: State, op: ops.CorruptAnswers) -> list[Permitted]:
        # docs/protocol.md section 7: bad-crc and garbage corrupt the next count frames (answers); nothing on the
        # table changes (the pings are judged on the line, harness.explore.device)
        return [Permitted(None, ExpectedAnswer(), s.clone(), (R.LINE_FAULTS.name,))]

    def _shoe_refusal(self, s: State, op: ops.ShoeRefusal) -> list[Permitted]:
        # docs/protocol.md sections 3, 7: a load past the decks refused BAD_ARGS, a deal of no card dealing none;
        # nothing changes (the shoe's observables are read after it)
        codes = {"BAD_ARGS"} if op.kind == "overfull" else {"ok", "BAD_ARGS", "REFUSED"}
        return [Permitted(None, ExpectedAnswer(frozenset(codes)), s.clone(), (R.SHOE.name, R.CARD_EVENTS.name))]

    def _line_drop(self, s: State, op: ops.LineDrop) -> list[Permitted]:
        # docs/protocol.md section 7: disconnect drops the device's line; the host opens it again and the device is
        # as it was, its event SEQ running on (section 4); the other devices' lines are judged on the line
        # (harness.explore.device)
        return [Permitted(None, ExpectedAnswer(), s.clone(), (R.LINE_DROP.name, R.EVENT_SEQ.name))]

    def _supply_on(self, s: State, op: ops.SupplyOn) -> list[Permitted]:
        # docs/protocol.md section 9: OUTP ON switches the output on; on already, nothing changes
        return [Permitted(None, ExpectedAnswer(), s.clone(), (R.INSTRUMENTS.name,))]

    def refusal_reasons(self, s: State, op: ops.PlaceWager) -> set[str]:
        reasons: set[str] = set()
        if op.seat not in self.seats:
            reasons.add("bad-seat")
        if op.type not in self.types:
            reasons.add("disabled")
        if op.amount <= 0 or (op.type == "royal9" and op.amount != s.denomination):
            reasons.add("bad-amount")
        if not s.link_up:
            reasons.add("comm-lost")
        # section 12: locked-out is "the round's first card is out, the lock-out button was pressed, or no
        # round is open"; a round closed by the lost link alone refuses comm-lost (section 8, Link loss)
        closed_by_link = s.phase == "open" and s.cause == "comm-lost" and not s.link_up
        if (s.phase != "open" or s.locked) and not closed_by_link:
            reasons.add("locked-out")
        if s.phase != "open" or s.locked:
            if s.cause == "no-more-bets":
                reasons.add("no-more-bets")
            if s.cause == "comm-lost":
                reasons.add("comm-lost")
        if op.type == "royal9" and self.requires_base and not any((op.seat, b) in s.layout for b in BASE):
            reasons.add("no-base-wager")
        return reasons

    def _wager(self, s: State, op: ops.PlaceWager) -> list[Permitted]:
        reasons = self.refusal_reasons(s, op)
        if reasons:
            rule = R.BASE_WAGER if reasons == {"no-base-wager"} else R.WAGER_REFUSE
            refused = ExpectedAnswer(accepted=False, reasons=frozenset(reasons))
            return [Permitted(None, refused, s.clone(), (rule.name,))]
        n = s.clone()
        n.layout[(op.seat, op.type)] = op.amount
        return [Permitted(None, ExpectedAnswer(accepted=True), n, (R.WAGER_ACCEPT.name,))]

    def _remove_wager(self, s: State, op: ops.RemoveWager) -> list[Permitted]:
        key = (op.seat, op.type)
        if key not in s.layout or s.phase != "open" or s.locked or not s.link_up:
            codes = REFUSED | {"BAD_ARGS"} if op.seat not in self.seats else REFUSED
            return [self._unchanged(s, R.REMOVE, codes)]
        n = s.clone()
        del n.layout[key]
        if (op.type in BASE and self.requires_base and (op.seat, "royal9") in n.layout
                and not any((op.seat, b) in n.layout for b in BASE)):
            both = n.clone()
            del both.layout[(op.seat, "royal9")]
            return [self._unchanged(s, R.BASE_WAGER, choice="base under a Royal 9 kept"),
                    Permitted("the Royal 9 removed with its base", ExpectedAnswer(fields={"removed": True}), both,
                            (R.BASE_WAGER.name,))]
        return [Permitted(None, ExpectedAnswer(fields={"removed": True}), n, (R.REMOVE.name,))]

    def _close(self, n: State, cause: str) -> tuple[str, ...]:
        """Wagering closes now with ``cause``: the Royal 9 wagers on the layout contribute."""
        n.locked, n.cause = True, cause
        return (R.LOCKOUT.name, *self._contribute(n))

    def _contribute(self, n: State) -> tuple[str, ...]:
        stakes = [a for (_seat, kind), a in sorted(n.layout.items()) if kind == "royal9"]
        if not stakes or not n.meter_cfg:
            return ()
        applied = [R.CONTRIBUTE.name]
        for name, cfg in n.meter_cfg.items():
            m = n.meters[name]
            for stake in stakes:
                total = m.residual + Decimal(stake) * cfg.rate / 100
                whole = int(total)
                m.residual = total - whole
                m.amount, excess = grow_to_cap(m.amount, whole, cfg.cap)
                if excess:
                    m.diverted += excess
                    applied.append(R.CAP.name)
        return tuple(applied)

    def _second_close(self, s: State, cause: str, rule: R.Rule, fields: Mapping[str, Any]) -> list[Permitted]:
        """A closing act while wagering is already closed: the cause may stay or become ``cause``."""
        keep = s.clone()
        new = s.clone()
        new.cause = cause
        out = [Permitted(f"{rule.name}: cause stays", ExpectedAnswer(fields=fields), keep, (rule.name,))]
        if s.cause != cause:
            out.append(Permitted(f"{rule.name}: cause becomes {cause}", ExpectedAnswer(fields=fields), new,
                                 (rule.name,)))
        return out

    def _lockout_button(self, s: State, op: ops.PressLockout) -> list[Permitted]:
        if s.phase == "open" and not s.locked:
            n = s.clone()
            return self._event([Permitted(None, ExpectedAnswer(fields={"locked": True}), n, self._close(n, "button"))],
                               True, "button")
        return self._second_close(s, "button", R.LOCKOUT, {"locked": True})

    def _no_more_bets(self, s: State, op: ops.NoMoreBets) -> list[Permitted]:
        if not self.nmb_input or s.phase in ("idle", "settled"):
            return [self._unchanged(s, R.NMB)]
        # a call the controller takes is the dealer's announcement: its no_more_bets event names the round
        # (docs/protocol.md 6.4 events; section 8: before the lockout it causes)
        called = (("controller", "no_more_bets", {"round": s.round}),)
        if s.phase == "open" and not s.locked:
            n = s.clone()
            # docs/protocol.md 6.4: the answer names the round, {"ok":true,"round":8}
            taken = Permitted(None, ExpectedAnswer(fields={"round": s.round}), n,
                              (R.NMB.name, R.NMB_EVENT.name, *self._close(n, "no-more-bets")), events=called)
            return self._event([taken], True, "no-more-bets")
        again = self._second_close(s, "no-more-bets", R.NMB, {"round": s.round})
        for out in again:
            out.events, out.rules = called, (*out.rules, R.NMB_EVENT.name)
        # closed already (the button, the link, the first card): the round is open all the same, and section 8
        # refuses the call only with no round open or where the table has no such input.  Once the first card
        # is out the round has left the state `open` for `dealing` (the state table): whether a round being
        # dealt is "open" the text leaves to the device, so a refusal there is taken too, and recorded
        if s.phase == "dealing":
            again.append(self._unchanged(s, R.NMB, choice="no more bets refused once the round is dealing"))
        return again

    def reloaded_need(self, s: State, cards: tuple[str, ...]) -> int | None:
        """The round's length once the shoe is loaded again after its first cards: the tableau of the
        cards out and the new shoe's, where the new shoe holds the cards it still needs."""
        need = self.round_length((*s.round_cards, *cards))
        if need is None or need <= len(s.round_cards) or need - len(s.round_cards) > len(cards):
            return None
        return need

    def _load(self, s: State, op: ops.LoadShoe) -> list[Permitted]:
        n = s.clone()
        n.shoe, n.dealt, n.shoe_kept = tuple(op.cards), 0, None
        if s.phase == "dealing":
            # loaded again with the round's first cards out: the shoe counts from 1 again (6.2: "cards
            # dealt since the shoe was loaded"), and the round is completed from the new shoe
            need = self.reloaded_need(s, op.cards)
            assert need is not None
            n.round_need = need
        return [Permitted(None, ExpectedAnswer(fields={}), n, (R.SHOE.name,))]

    def _deal_first(self, s: State, op: ops.DealFirst) -> list[Permitted]:
        assert s.shoe is not None
        n = s.clone()
        need = self.round_length(s.shoe)
        assert need is not None
        n.round_need = need
        n.round_cards, n.shoe = s.shoe[:1], s.shoe[1:]
        n.dealt += 1
        n.phase = "dealing"
        if not s.locked:
            return self._event([Permitted(None, ExpectedAnswer(), n, (R.SHOE.name, *self._close(n, "card")))],
                               True, "card", timed=True)
        keep = Permitted("first card after the lock-out: cause stays", ExpectedAnswer(), n,
                         (R.SHOE.name, R.LOCKOUT.name))
        if s.cause == "card":
            return [keep]
        card = n.clone()
        card.cause = "card"
        return [keep, Permitted("first card after the lock-out: cause card", ExpectedAnswer(), card,
                              (R.SHOE.name, R.LOCKOUT.name))]

    def _deal_misread(self, s: State, op: ops.DealMisread) -> list[Permitted]:
        """A misread first card is still out and counts as out for the controller (docs/protocol.md
        section 6.2): wagering closes on it, timed, as on a card read; the controller settles on it."""
        return self._deal_first(s, ops.DealFirst())

    def _deal_next(self, s: State, op: ops.DealNext) -> list[Permitted]:
        """One more card of the round, not its last: out of the shoe and counted, the round still dealing
        (wagering stays closed, nothing is settled)."""
        assert s.shoe is not None
        n = s.clone()
        n.round_cards, n.shoe = s.round_cards + s.shoe[:1], s.shoe[1:]
        n.dealt += 1
        return [Permitted(None, ExpectedAnswer(), n, (R.SHOE.name,))]

    def _deal_rest(self, s: State, op: ops.DealRest) -> list[Permitted]:
        assert s.shoe is not None
        n = s.clone()
        rest = s.round_need - len(s.round_cards)
        cards = s.round_cards + s.shoe[:rest]
        n.shoe, n.dealt = s.shoe[rest:], s.dealt + rest
        n.round_cards, n.round_need = (), 0
        applied = [R.SHOE.name, R.SETTLE.name]
        amounts = {name: m.amount for name, m in n.meters.items()}
        oracle = self.oracle(s.denomination, s.commission, s.seats)
        expected = oracle.round([parse_card(c) for c in cards], dict(s.layout), amounts)
        payouts: dict[tuple[int, str], tuple[Cents, Cents, str | None]] = {}
        pending = list(n.pending)
        hits: list[tuple[str, str, Mapping[str, Any]]] = []
        for key, p in sorted(expected.payouts.items()):
            payouts[key] = (p.stake, p.returned, p.category)
            if key[1] == "royal9":
                applied.append(R.ROYAL9_PAY.name)
            for meter in p.meters:
                applied.append(R.HIT.name)
                pending.append(Pending(meter, key[0], amounts[meter], str(p.category)))
                # the meter won is announced by a hit naming the seat, the meter and the amount it shows
                # (docs/protocol.md 6.4 events: "one hit per seat and line, in the round that pays it")
                hits.append(("controller", "hit", {"seat": key[0], "meter": meter, "amount": amounts[meter]}))
            for category, amount in p.lines:
                # a fixed line won: its hit names the line and "the fixed line's award as the paytable writes
                # it" (6.4 events; an odds line's amount is not judged)
                hits.append(("controller", "hit", {"seat": key[0], "category": category, "amount": amount}))
        if len(payouts) > 1:
            applied.append(R.PAYOUT_ORDER.name)
        n.pending = tuple(sorted(pending))
        n.layout = {}
        n.phase = "settled"
        attendant = frozenset(key for key, p in expected.payouts.items() if p.meters)
        return [Permitted(None, ExpectedAnswer(), n, tuple(dict.fromkeys(applied)),
                        ExpectedSettlement(payouts, s.round, cards, attendant=attendant), events=tuple(hits))]

    def _reset_key(self, s: State, op: ops.ResetKey) -> list[Permitted]:
        paid = [p for p in s.pending if p.meter == op.meter]
        if not paid:
            # "a reset key with nothing to reset" is REFUSED (docs/protocol.md section 3); the key of a meter the
            # table does not have (the mystery's on a table without one) may also be BAD_ARGS, an argument out of
            # range: nothing changes either way
            return [self._unchanged(s, R.RESET_KEY, REFUSED if op.meter in s.meters else REFUSED | {"BAD_ARGS"})]
        n = s.clone()
        cfg = n.meter_cfg[op.meter]
        m = n.meters[op.meter]
        m.amount = cfg.reset
        if self.residual_on_reset == "discard":
            m.residual = Decimal(0)
        total = sum(p.amount for p in paid)
        n.paid_by_attendant += total
        n.cumulative_paid += total
        n.pending = tuple(p for p in s.pending if p.meter != op.meter)
        # the meter back to its reset amount is sent as a reset event (docs/protocol.md 6.4 events)
        return [Permitted(None, ExpectedAnswer(fields={"meter": op.meter, "amount": cfg.reset}), n,
                        (R.RESET_KEY.name, R.PAYOUT_METERS.name),
                        events=(("controller", "reset", {"meter": op.meter, "amount": cfg.reset}),))]

    def write_policy(self, changes: Mapping[str, Any]) -> set[str]:
        """When the device takes each field of a write (docs/device-profiles.md ``config_writes``):
        ``unstated`` for a field the profile says nothing of (taken or refused, the device's choice)."""
        names = {"seats": "combinations"}
        return {self.profile.write_choice(names.get(str(k), str(k))) for k in changes}

    def _config_write(self, s: State, op: ops.ConfigWrite) -> list[Permitted]:
        if "game" in op.changes:
            # docs/protocol.md 6.4: "config.set takes any subset of these fields except game"; "BAD_ARGS for a
            # field that is not configurable" (or REFUSED: "a field the device does not let an operator
            # write", and while live); nothing changes either way
            return [Permitted(None, ExpectedAnswer(REFUSED | {"BAD_ARGS"}), s.clone(),
                              (R.CONFIG_RANGE.name, R.CONFIG_WRITES.name))]
        if s.phase in ("open", "dealing") or s.layout:
            return [self._unchanged(s, R.CONFIG_LIVE)]
        after, broken = config_after(s, op.changes, royal9=self.royal9, limit_check=self.limit_check)
        if after is None:
            # BAD_ARGS only for a malformed value; a well-formed one below a floor or outside a limit is
            # declined on purpose: REFUSED (docs/protocol.md sections 3 and 6.4, clause
            # contract-6-4-config-set-arguments)
            codes = REFUSED | {"BAD_ARGS"} if malformed(op.changes) else REFUSED
            return [Permitted(None, ExpectedAnswer(codes), s.clone(),
                            tuple(dict.fromkeys([R.CONFIG_RANGE.name, *(r.name for r in broken)])))]
        policy = self.write_policy(op.changes)
        same = after.in_force() == s.in_force()
        if "never" in policy and same:
            # "A write of the values in force changes nothing and may be taken" (docs/protocol.md 6.4)
            return [Permitted("a write of the values in force taken", ExpectedAnswer(), after,
                            (R.CONFIG_WRITES.name, R.CONFIG_ANSWER.name)),
                    self._unchanged(s, R.CONFIG_WRITES, choice="a write of the values in force refused")]
        changed = {k: v for k, v in op.changes.items() if self._field_changed(s, after, str(k))}
        kept_never = "never" in policy
        policy = self.write_policy(changed)
        if "never" in policy:
            # the profile says the device takes no write of this field: REFUSED, nothing changes
            return [Permitted(None, ExpectedAnswer(REFUSED), s.clone(), (R.CONFIG_WRITES.name, R.CONFIG_RANGE.name))]
        if kept_never:
            # a field the device never takes, written at its value in force beside fields that change: that
            # field changes nothing and may be taken (docs/protocol.md 6.4), so the write is judged by the
            # others; refusing the whole write for it is the device's choice
            return [Permitted("a write with a field it never takes, at its value in force, taken", ExpectedAnswer(),
                              after, (R.CONFIG_RANGE.name, R.NO_TURN_BACK.name, R.CONFIG_ANSWER.name,
                                      R.CONFIG_WRITES.name)),
                    self._unchanged(s, R.CONFIG_WRITES,
                                    choice="a write with a field it never takes, at its value in force, refused")]
        rules = (R.CONFIG_RANGE.name, R.NO_TURN_BACK.name, R.CONFIG_ANSWER.name,
                 *((R.CONFIG_WRITES.name,) if {"no-amount-shown", "unstated"} & policy or "seats" in op.changes
                   or "decks" in op.changes else ()))
        if policy == {"between-rounds"} and not self._refusal_permitted(s, op.changes, after):
            # docs/device-profiles.md config_writes: "between-rounds: the device takes a write with no round
            # open; a refusal then is a FAIL" (as the suites judge it), a meter's rate, initial, reset and payout
            # limit among them; a display capacity stays a choice (a compliant controller may refuse one its
            # display cannot show, above the one filed), and so does a limit removed (a controller may keep
            # one), which the suites do not ask for either
            return [Permitted(None, ExpectedAnswer(), after, (*rules, R.CONFIG_WRITES.name))]
        refused = "config write in range refused"
        if "unstated" in policy:
            # a field the profile does not declare (docs/device-profiles.md config_writes): no clause requires
            # a controller to take a write, nor to refuse one; which it did is recorded
            refused = "config write of a field the profile leaves unstated refused"
        elif "no-amount-shown" in policy and any(m.amount for m in s.meters.values()):
            refused = "config write refused while a meter shows an amount"
        return [Permitted("config write in range taken", ExpectedAnswer(), after, rules),
                self._unchanged(s, R.CONFIG_RANGE, choice=refused)]

    def _refusal_permitted(self, s: State, changes: Mapping[str, Any], after: State) -> bool:
        """Whether a write in range of fields taken between rounds may still be refused, the device's choice:

        * a display capacity (one the display cannot show), or a payout limit removed (null: a controller may
          keep one);
        * a limit the interpretation meter-payout-limit-check ``current-only`` lets through, which the default
          reading refuses;
        * a denomination written with meter fields where the meters in force fall short of its floors:
          docs/protocol.md 6.4 "a denomination written is checked with the meters as configured against its
          own floors" reads as the meters before the write's meter fields or after them;
        * a configuration in force that already breaks a bound the write does not touch (a meter at its payout
          limit: "a payout limit must be greater than the meter's current amount"): :func:`config_after`
          judges only what the write brings in."""
        meters = [dict(fields) for fields in dict(changes.get("meters") or {}).values()]
        if any("display_capacity" in f or ("payout_limit" in f and f["payout_limit"] is None) for f in meters):
            return True
        if self.limit_check != "set-and-reset" and config_after(
                s, changes, royal9=self.royal9, limit_check="set-and-reset")[0] is None:
            return True
        if "denomination" in changes and meters and self.royal9 and after.denomination in (100, 500) \
                and configuration_problems(s.meter_cfg.values(), after.denomination // 100):
            return True
        if any(cfg.payout_limit is not None and cfg.payout_limit <= s.meters[name].amount
               for name, cfg in s.meter_cfg.items() if name in s.meters):
            return True
        den = s.denomination // 100 if self.royal9 and s.denomination in (100, 500) else None
        return bool(configuration_problems(s.meter_cfg.values(), den))

    @staticmethod
    def _field_changed(s: State, after: State, key: str) -> bool:
        """Whether the write's field ``key`` changes what is in force (a field the model does not keep: yes)."""
        if key == "meters":
            return after.meter_cfg != s.meter_cfg
        if key in ("denomination", "commission", "decks", "seats"):
            return bool(getattr(after, key) != getattr(s, key))
        return True

    def _power_cycle(self, s: State, op: ops.PowerCycle) -> list[Permitted]:
        n = s.clone()
        n.phase, n.locked, n.cause = "idle", True, "power"
        n.layout, n.round_cards, n.round_need = {}, (), 0
        n.shoe, n.dealt = None, 0
        # the cards stay in the shoe, and may still be counted: docs/protocol.md 6.2 counts cards_dealt and
        # each card's n "since the shoe was loaded", and no load came since (judge.learn_shoe)
        n.shoe_kept = (s.shoe, s.dealt) if s.shoe is not None else s.shoe_kept
        # after power-up the event numbering starts at 1 (docs/protocol.md sections 4, 8); the one "must"
        # of section 4 is the reconnection's, so numbering that runs on across the power is kept too
        n.seq_fresh = frozenset(n.seqs)
        return self._event([Permitted(None, ExpectedAnswer(), n, (R.POWER.name, R.NO_TURN_BACK.name, R.IDENTITY.name,
                                                         R.IDENTITY_SERIAL.name, R.EVENT_SEQ.name))], True, "power")

    def _power_cut_mid_deal(self, s: State, op: ops.PowerCutMidDeal) -> list[Permitted]:
        """One card more of the round, then the power lost with the shoe in the middle of its deal: as a
        power cycle after that card (the shoe's state after power-up is judged wherever it is read)."""
        dealt = self._deal_next(s, ops.DealNext())[0].state
        return self._power_cycle(dealt, ops.PowerCycle())

    def _reboot(self, s: State, op: ops.Reboot) -> list[Permitted]:
        if op.role == "shoe":
            return self._reboot_shoe(s)
        return self._reboot_controller(s) if op.role == "controller" else self._reboot_sensors(s)

    def _reboot_shoe(self, s: State) -> list[Permitted]:
        """The shoe's line fault ``reboot`` between rounds (docs/protocol.md section 7): back from non-volatile
        storage, the same device (its identity is read again), its event SEQ from 1 again.  Its cards as after
        a power cycle: kept and counted on, or counted from another number, or unknown until the next load
        (:func:`harness.explore.judge.learn_shoe`).  The controller did not restart: every card the shoe deals
        after it is out of the shoe for the controller too (section 6.2: the card-out line locks wagering)."""
        n = s.clone()
        n.shoe_kept = (s.shoe, s.dealt) if s.shoe is not None else s.shoe_kept
        n.shoe, n.dealt = None, 0
        n.seq_fresh = s.seq_fresh | {"shoe"}
        return [Permitted(None, ExpectedAnswer(), n, (R.IDENTITY.name, R.IDENTITY_SERIAL.name, R.SHOE.name,
                                                        R.EVENT_SEQ.name))]

    def _reboot_sensors(self, s: State) -> list[Permitted]:
        """The bet sensors' line fault ``reboot`` between rounds (docs/protocol.md section 7): back from
        non-volatile storage, the same device (its identity is read again).  The controller decides acceptance
        (section 6.3): wagering stays closed, as the controller has it.  The wagers of the last round may stay
        listed or be gone (the layout is volatile, section 8), both kept; a controller that saw its sensors link
        lost while they were silent may send the lost link's ``lockout`` (cause ``comm-lost``: "sent even when
        wagering was already closed", section 8) and report that cause, recorded as its choice."""
        outs: list[Permitted] = []
        for keep in ((True, False) if s.layout else (True,)):
            n = s.clone()
            if not keep:
                n.layout = {}
            choice = None if not s.layout else "sensors reboot: the layout " + ("stays" if keep else "is cleared")
            outs.append(Permitted(choice, ExpectedAnswer(), n, (R.IDENTITY.name, R.IDENTITY_SERIAL.name,
                                                               R.WAGER_REFUSE.name)))
        for out in list(outs):
            lost = dataclasses.replace(out, state=out.state.clone(), choice=(
                f"{out.choice or 'sensors reboot'}, the link seen lost: lockout cause comm-lost"))
            lost.state.cause = "comm-lost"
            outs += self._event([lost], True, "comm-lost")
        return outs

    def _foreign(self, s: State, op: ops.ForeignCommand) -> list[Permitted]:
        """Another role's command (docs/protocol.md section 6): NAK UNKNOWN_CMD, nothing changes.  A command that
        stands for an act at the table may be NAK REFUSED too: a device without a test channel refuses those
        (section 11), whatever device it is asked of."""
        codes = {"UNKNOWN_CMD", *(("REFUSED",) if op.cmd in vocabulary.REMOTE_ACTS else ())}
        return [Permitted(None, ExpectedAnswer(frozenset(codes)), s.clone(), (R.FOREIGN.name,))]

    def _reboot_controller(self, s: State) -> list[Permitted]:
        """The controller's line fault ``reboot`` (docs/protocol.md section 7): its volatile state lost,
        back from non-volatile storage idle and locked, the lockout event with cause ``power`` sent once
        it is back (section 8), its event SEQ from 1 again.  The shoe is not rebooted (its cards and
        counts stay).  The layout is the bet sensors' (section 6.3), which did not reboot, but the
        controller decides what stands: the wagers may stay listed or be gone, both are kept."""
        outs: list[Permitted] = []
        for keep in (True, False):
            n = s.clone()
            n.phase, n.locked, n.cause = "idle", True, "power"
            n.round_cards, n.round_need = (), 0
            if not keep:
                n.layout = {}
            elif not s.layout:
                outs.append(Permitted(None, ExpectedAnswer(), n, (R.POWER.name, R.NO_TURN_BACK.name, R.EVENT_SEQ.name)))
                break
            outs.append(Permitted("controller reboot: the layout " + ("stays" if keep else "is cleared"),
                                  ExpectedAnswer(), n, (R.POWER.name, R.NO_TURN_BACK.name, R.EVENT_SEQ.name)))
        for out in outs:  # a line that has sent nothing since an earlier power-up may still start at 1
            out.state.seq_fresh = s.seq_fresh | {"controller"}
        outs = self._event(outs, True, "power")
        if not s.link_up:
            # the sensors link is still down (section 8, Link loss): round.open stays REFUSED until it is
            # back (a reboot does not forget it); the controller back from the reboot may report the
            # lock-out's cause as power or as comm-lost, and send either as its lockout event
            for out in list(outs):
                lost = dataclasses.replace(out, state=out.state.clone(), lock_event=(True, "comm-lost"),
                                           rules=(*out.rules, R.LINK.name))
                lost.state.cause = "comm-lost"
                lost.choice = f"{out.choice or 'controller reboot'}, link down: cause comm-lost"
                out.choice = f"{out.choice or 'controller reboot'}, link down: cause power"
                out.rules = (*out.rules, R.LINK.name)
                outs.append(lost)
        return outs

    def _comm(self, s: State, op: ops.Comm) -> list[Permitted]:
        n = s.clone()
        n.link_up = op.up
        if op.up:
            return [Permitted(None, ExpectedAnswer(), n, (R.LINK.name,))]
        # the lockout event is sent "even when wagering was already closed" (docs/protocol.md section 8)
        if s.phase == "open" and not s.locked:
            return self._event([Permitted(None, ExpectedAnswer(), n, (R.LINK.name, *self._close(n, "comm-lost")))],
                               True, "comm-lost")
        return self._event(self._second_close(n, "comm-lost", R.LINK, {}), True, "comm-lost")

    def _reconnect(self, s: State, op: ops.Reconnect) -> list[Permitted]:
        """The host's line to the controller closed and opened again: nothing on the table changes, and
        the controller's next event goes on from its last SEQ (docs/protocol.md section 4)."""
        return [Permitted(None, ExpectedAnswer(), s.clone(), (R.EVENT_SEQ.name,))]

    def _shoe_error(self, s: State, op: ops.ShoeError) -> list[Permitted]:
        """The shoe's ``error`` event (docs/protocol.md sections 6.2, 7; judged with the events no step could
        have caused, :func:`~harness.explore.judge.stray_events`): no card leaves the shoe, so its count and the
        next card's ``n`` stay (cards dealt since the load); the controller sees no card out."""
        return [Permitted(None, ExpectedAnswer(), s.clone(), (R.SHOE.name, R.CARD_EVENTS.name))]

    def _bad_frame(self, s: State, op: ops.BadFrame) -> list[Permitted]:
        """A broken request (docs/protocol.md section 2): no command is taken from it, so nothing on the table
        changes, and the device's event SEQ runs on (section 4); the NAKs it got are judged by
        :func:`~harness.explore.judge.frame_differences`."""
        return [Permitted(None, ExpectedAnswer(), s.clone(), (R.FRAMING.name, R.EVENT_SEQ.name))]

    def _pipelined(self, s: State, op: ops.Pipelined) -> list[Permitted]:
        """Pings in one write (docs/protocol.md section 4): each answered with its SEQ (judged by
        :func:`~harness.explore.judge.line_differences`); nothing on the table changes."""
        return [Permitted(None, ExpectedAnswer(), s.clone(), (R.REQUEST_SEQ.name,))]

    def _seq_from(self, s: State, op: ops.SeqFrom) -> list[Permitted]:
        """The host's requests numbered on from ``op.seq`` (docs/protocol.md sections 3, 4): each answered with
        its SEQ; nothing on the table changes."""
        return [Permitted(None, ExpectedAnswer(), s.clone(), (R.REQUEST_SEQ.name,))]

    def _void_rounds(self, s: State, op: ops.VoidRounds) -> list[Permitted]:
        """``count`` rounds opened and voided (docs/protocol.md section 8): each ``round.open`` gives one more
        than the last and sends its unlocking ``lockout``; each void closes wagering (cause ``no-more-bets``)
        and ends its round with ``round_end`` ``void: true``.  No wager, no contribution, nothing paid."""
        n = s.clone()
        first = None if s.round is None else s.round + 1
        n.round = None if s.round is None else s.round + op.count
        n.phase, n.locked, n.cause, n.layout = "settled", True, "no-more-bets", {}
        events: list[tuple[str, str, Mapping[str, Any]]] = []
        for i in range(op.count):
            events += [("controller", "lockout", {"locked": False, "cause": "round-open"}),
                       ("controller", "lockout", {"locked": True, "cause": "no-more-bets"}),
                       ("controller", "round_end", {"round": None if first is None else first + i, "void": True})]
        answer = ExpectedAnswer(fields={"first_round": first, "rounds_consecutive": True})
        return [Permitted(None, answer, n, (R.OPEN.name, R.ROUND_NUMBER.name, R.VOID.name, R.LOCKOUT_EVENT.name),
                        events=tuple(events), rounds=True)]

    def _void(self, s: State, op: ops.VoidRound) -> list[Permitted]:
        """``round.settle`` (docs/protocol.md section 8): with no card out it voids the round; with no
        round open, or while the tableau needs a card (any round dealing), it is REFUSED."""
        if s.phase != "open":
            return [self._unchanged(s, R.VOID)]
        settlement = ExpectedSettlement({}, s.round, (), void=True)
        answer = ExpectedAnswer(fields={"round": s.round, "void": True})
        outs: list[Permitted] = []
        if not s.locked:
            # wagering closes (cause no-more-bets).  Whether the wagers of a voided round contribute is
            # not written (they close, but the round they were final for never plays): both are kept
            for contributes in (False, True):
                n = s.clone()
                applied: tuple[str, ...] = (R.VOID.name, R.LOCKOUT.name)
                if contributes:
                    applied = (R.VOID.name, *self._close(n, "no-more-bets"))
                else:
                    n.locked, n.cause = True, "no-more-bets"
                n.layout, n.phase = {}, "settled"
                has_royal9 = any(kind == "royal9" for _seat, kind in s.layout) and bool(s.meter_cfg)
                if contributes and not has_royal9:
                    continue
                choice = None if not has_royal9 else (
                    "a voided round's Royal 9 wagers contribute" if contributes
                    else "a voided round's Royal 9 wagers do not contribute")
                outs.append(Permitted(choice, answer, n, applied, settlement))
            return self._event(outs, True, "no-more-bets")
        # already closed (the button, no more bets, a lost link): the wagers contributed at that close
        for cause in dict.fromkeys((s.cause, "no-more-bets")):
            n = s.clone()
            n.cause = cause
            n.layout, n.phase = {}, "settled"
            outs.append(Permitted(f"void after the lock-out: cause {'stays' if cause == s.cause else 'no-more-bets'}",
                                answer, n, (R.VOID.name, R.LOCKOUT.name), settlement))
        return outs
