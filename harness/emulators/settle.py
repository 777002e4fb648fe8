"""Round resolution and the meters inside the emulated controller: the oracle decides, the
controller pays.

The controller is the "device": it resolves each round by calling the same pure oracle the
harness checks against (:mod:`harness.games.baccarat`, :mod:`harness.games.royal9`,
:mod:`harness.games.blackjack`), takes meter awards off its :class:`MeterBank`, and emits ``hit``
and ``payout`` events.  A defect (``harness.emulators.defects``) bends exactly one step here or
in the controller, so the harness can prove it notices.

Who pays (629a Royal 9 (f)/(g); 461a.12): a meter jackpot is paid by an attendant and waits for
the reset key (``meter-reset-timing``); a fixed line and every base-game wager are paid by the
table at once.  The payout meters of 461a.12(b)(2)-(4) count *progressive* payouts, an award that
"increases in a monetary amount based on the amounts wagered" (461a.1): the meter jackpots and the
mystery award, never a fixed paytable line.  ``cumulative_paid`` and the table- and attendant-paid
meters count each such award (the win, stake excluded) when it is paid: at settlement for the
table, at the reset key for an attendant.

The game defects (``harness.emulators.defects``) bend one step each: an EZ settlement here
(:func:`_settle_base`), a Royal 9 award or the Hit and Run paytable through the bent functions of
the defects module.

A Mini-Baccarat three-consecutive-games wager (Wash. Admin. Code 230-15-040(8)(b)) is followed game
by game with the oracle's :func:`~harness.games.streak.settle_streak3` (the Rules Submission's pay,
the tie rule ``wa-streak3-tie``): decided, it is paid (a ``payout`` event) and leaves the layout;
still open, it stays riding and the controller says so with a ``wager_rides`` event instead of a
payout (:func:`_settle_streak`).

The controller's meter bank is built, rebuilt on a configuration write, read (``meters.get``) and
reset (``reset_key``) by the functions at the end of this module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from harness.cards import Card
from harness.emulators import defect_branches, defects
from harness.emulators.base import Answer, Refusal, arg
from harness.emulators.config import EmulatorConfig
from harness.emulators.controller_state import ControllerState
from harness.games.baccarat import BaccaratRound, settle_wager, wager_options
from harness.games.blackjack import DealerHand, dealer_hand, meter_shares, settle_hit_and_run
from harness.games.payouts import Pay, Settlement, parse_pay, settle
from harness.games.royal9 import METERS, SeatResult
from harness.games.streak import STREAK_WAGERS, settle_streak3, tie_rule_of
from harness.money import Cents
from harness.progressive.meter import Hit, Meter, MeterBank, MeterConfig, MeterError
from harness.progressive.mystery import MysteryConfig, MysteryMeter, distribution

BASE_BACCARAT = ("player", "banker", "tie", "dragon7", "panda8")


@dataclass
class Accounts:
    """The payout meters a progressive controller keeps (issue: "meters" of the controller)."""

    cumulative_paid: Cents = 0
    paid_by_table: Cents = 0
    paid_by_attendant: Cents = 0
    #: meter -> {"seat", "amount", "category"}: attendant payouts waiting for the reset key
    pending: dict[str, dict[str, Any]] = field(default_factory=dict)

    def paid(self, amount: Cents, by: str) -> None:
        self.cumulative_paid += amount
        if by == "table":
            self.paid_by_table += amount
        else:
            self.paid_by_attendant += amount

    def to_state(self) -> dict[str, Any]:
        return {"cumulative_paid": self.cumulative_paid, "paid_by_table": self.paid_by_table,
                "paid_by_attendant": self.paid_by_attendant, "pending": self.pending}

    @classmethod
    def from_state(cls, s: dict[str, Any]) -> Accounts:
        return cls(int(s["cumulative_paid"]), int(s["paid_by_table"]), int(s["paid_by_attendant"]),
                   dict(s.get("pending", {})))


def round_complete(ctrl: ControllerState, cards: Sequence[Card]) -> bool:
    """Whether ``cards`` are exactly one complete round: the tableau (baccarat) or the dealer's
    completed hand (Hit and Run: the round's cards are the dealer's, see docs/protocol.md)."""
    try:
        if ctrl.cfg.hit_and_run:  # complete by the house rule; a hand the dealer ends early is round.settle's
            return dealer_hand(cards, hit_soft17=ctrl.cfg.hit_soft17).n_cards == len(cards)
        return ctrl.deal_round(cards).cards_used == len(cards)
    except Exception:  # InputError: the round needs another card
        return False


def settle_round(ctrl: ControllerState) -> None:
    """Settle every wager on the layout for the round dealt in ``ctrl.cards``."""
    wagers = dict(ctrl.sensors.wagers)
    if ctrl.cfg.hit_and_run:
        _settle_hit_and_run(ctrl, wagers, dealer_hand(ctrl.cards, hit_soft17=ctrl.cfg.hit_soft17,
                                                       interpretations=ctrl.interp))
        return
    rnd = ctrl.deal_round(ctrl.cards)
    game: Literal["baccarat", "ez-baccarat"] = "ez-baccarat" if ctrl.cfg.game == "ez-baccarat" else "baccarat"
    for (seat, kind), amount in sorted(wagers.items()):
        if kind in BASE_BACCARAT:
            outcome, st = _settle_base(ctrl, rnd, kind, amount, game)
            ctrl.emit("payout", seat=seat, type=kind, category=outcome, stake=st.stake,
                      returned=st.returned, paid_by="table")
        elif kind in STREAK_WAGERS and ctrl.cfg.streak3_pays is not None:
            _settle_streak(ctrl, seat, kind, amount, rnd.winner)
    r9_seats = frozenset(seat for (seat, kind) in wagers if kind == "royal9")
    if ctrl.r9 is None or ctrl.bank is None:
        return
    shown = meter_amounts(ctrl)
    result = ctrl.r9.resolve(ctrl.r9_cards(rnd), wagers=r9_seats, meters=shown)
    seats: Sequence[SeatResult] = result.seats
    if ctrl.cfg.defects:
        seats = defects.bent_royal9(seats, ctrl.cfg.defects, ctrl.r9.paytable["royal9"],
                                    ctrl.interp.award_returns_stake)
    for sr in seats:
        if not sr.wager and not sr.awarded:
            continue
        stake = wagers.get((sr.seat, "royal9"), 0)
        settlement = sr.settlement
        returned = settlement.returned if settlement is not None else 0
        if sr.category is None:
            ctrl.emit("payout", seat=sr.seat, type="royal9", category=None, stake=stake, returned=0,
                      paid_by="table")
            continue
        award = returned - (stake if ctrl.interp.award_returns_stake else 0)
        fixed_award = award
        by = "table"
        linked = [c for c in sr.awarded if ctrl.link is not None and c in ctrl.link.meters]
        for category in sr.awarded:
            if category in linked:  # a common meter of the link: paid on the controller's acknowledgement
                fixed_award -= shown[category]
            elif category in METERS:
                hit = ctrl.bank.hit(category, paid_by="attendant")
                fixed_award -= hit.paid
                _meter_hit(ctrl, sr.seat, category, category, hit)
                by = "attendant"  # a meter jackpot is the attendant's to pay, at either reset timing (section 8)
            else:
                pay = ctrl.r9.paytable[category]
                ctrl.emit("hit", seat=sr.seat, category=category, meter=None,
                          amount=int(pay.value) if pay.kind == "fixed" else None)
        if fixed_award and "payout-meter-counts-fixed" in ctrl.cfg.defects:
            ctrl.accounts.paid(fixed_award, "table")
        if linked and ctrl.link is not None:
            ctrl.link.claim(ctrl.round_no, sr.seat, linked[0], sr.category, stake, fixed_award)
            continue
        ctrl.emit("payout", seat=sr.seat, type="royal9", category=sr.category, stake=stake,
                  returned=returned, paid_by=by)


def _settle_streak(ctrl: ControllerState, seat: int, kind: str, amount: Cents, winner: str) -> None:
    """One more game of a three-consecutive-games wager: paid when decided, else it rides on."""
    key = (seat, kind)
    games = [*ctrl.sensors.riding.get(key, ()), winner]
    assert ctrl.cfg.streak3_pays is not None
    pay, tie_rule = parse_pay(ctrl.cfg.streak3_pays), tie_rule_of(ctrl.interp.as_dict())
    if ctrl.cfg.defects:
        res, st = defects.bent_streak3(kind, games, amount, pay, tie_rule, ctrl.cfg.defects)
    else:
        res, st = settle_streak3(kind, games, amount, pay, tie_rule=tie_rule)
    if st is None:
        ctrl.sensors.riding[key] = games
        ctrl.emit("wager_rides", seat=seat, type=kind, games=res.rounds, wins=res.wins)
        return
    ctrl.sensors.riding.pop(key, None)
    ctrl.emit("payout", seat=seat, type=kind, category=res.result, stake=st.stake, returned=st.returned,
              paid_by="table")


def _settle_base(ctrl: ControllerState, rnd: BaccaratRound, kind: str, amount: Cents,
                 game: Literal["baccarat", "ez-baccarat"]) -> tuple[str, Settlement]:
    """One base-game or EZ insurance wager (627a.7, 627a.12 and peers)."""
    bent = ctrl.cfg.defects
    if "dragon7-no-banker-push" in bent and kind == "banker" and game == "ez-baccarat" and rnd.dragon7:
        return settle_wager(rnd, kind, amount, game="baccarat", commission=Decimal(0))
    if kind in ("dragon7", "panda8") and game != "ez-baccarat":  # only the extra-wager-type defect takes one
        game = "ez-baccarat"
    options = wager_options(ctrl.interp.as_dict())
    if "dragon7-on-tie" in bent:
        options["dragon7_definition"] = "banker-three-card-7"
    outcome, st = settle_wager(rnd, kind, amount, game=game, commission=ctrl.cfg.commission, **options)
    if "panda8-wrong-odds" in bent and kind == "panda8" and outcome == "win":
        st = settle(Pay("for", Decimal(25)), amount)
    return outcome, st


def _meter_hit(ctrl: ControllerState, seat: int, category: str, meter: str, hit: Hit) -> None:
    """Book one meter award: pending for the reset key, or paid now."""
    ctrl.emit("hit", seat=seat, category=category, meter=meter, amount=hit.paid)
    if hit.pending:
        ctrl.accounts.pending[meter] = {"seat": seat, "amount": hit.paid, "category": category}
    else:
        if not defect_branches.unmetered(ctrl, meter):
            ctrl.accounts.paid(hit.paid, hit.paid_by)
        after_reset(ctrl, meter)


def mystery_hits(ctrl: ControllerState, seat: int, hits: Sequence[Hit]) -> None:
    """A contribution reached the hidden trigger: the award is the seat's (629a Royal 9 (h))."""
    for hit in hits:
        if "mystery-left-pending" in ctrl.cfg.defects and not hit.pending:
            # the table paid it, but the controller still waits for the reset key
            ctrl.accounts.pending[hit.meter] = {"seat": seat, "amount": 0, "category": "mystery"}
        _meter_hit(ctrl, seat, "mystery", hit.meter, hit)
        ctrl.emit("payout", seat=seat, type="royal9", category="mystery", stake=0,
                  returned=hit.paid, paid_by=hit.paid_by)


def _settle_hit_and_run(ctrl: ControllerState, wagers: dict[tuple[int, str], Cents], hand: DealerHand) -> None:
    """Hit and Run (633a.13(l)(1)): every wager is decided by the dealer's hand; the
    eight-or-more line takes the meter.  Several winners of one hand are each paid the amount the
    meter showed, or share it (interpretation ``hr-simultaneous-meter-winners``); an attendant pays
    them and the meter resets once."""
    bank = ctrl.bank
    meter_name = ctrl.hr_meter
    shown = bank[meter_name].amount if bank is not None and meter_name else None
    taken: Hit | None = None
    paytable = defects.hr_paytable(ctrl.cfg.defects)
    hr = [(seat, amount) for (seat, kind), amount in sorted(wagers.items()) if kind == "hit-and-run"]
    shares = meter_shares(ctrl.interp, [(seat, settle_hit_and_run(hand, amount, shown, paytable,
                                                                  interpretations=ctrl.interp)[0])
                                        for seat, amount in hr], shown)
    for seat, amount in hr:
        meter_now = shares.get(seat, shown)
        category, st = settle_hit_and_run(hand, amount, meter_now, paytable, interpretations=ctrl.interp)
        by = "table"
        if category == "8-plus-cards" and bank is not None and meter_name:
            won = st.returned - (st.stake if ctrl.interp.award_returns_stake else 0)
            if taken is None:
                taken = bank.hit(meter_name, paid_by="attendant")
                # booked at the amount won (the pending payment, where it waits for the key, is that)
                _meter_hit(ctrl, seat, category, meter_name, Hit(taken.meter, won, taken.meter_amount,
                                                                 taken.paid_by, taken.pending, taken.carried))
            else:  # a later winner of the same hand: paid with the first, by the attendant
                if "hr-second-winner-unpaid" in ctrl.cfg.defects:
                    ctrl.emit("payout", seat=seat, type="hit-and-run", category=None, stake=st.stake,
                              returned=0, paid_by="table")
                    continue
                ctrl.emit("hit", seat=seat, category=category, meter=meter_name, amount=won)
                if taken.pending:
                    ctrl.accounts.pending[meter_name]["amount"] += won
                else:
                    ctrl.accounts.paid(won, "attendant")
            by = "attendant"
        elif category is not None:
            ctrl.emit("hit", seat=seat, category=category, meter=None, amount=st.returned - st.stake)
            if "payout-meter-counts-fixed" in ctrl.cfg.defects:
                ctrl.accounts.paid(st.returned - st.stake, "table")
        ctrl.emit("payout", seat=seat, type="hit-and-run", category=category, stake=st.stake,
                  returned=st.returned, paid_by=by)


# -- the meter bank: built, rebuilt on a configuration write, read, reset by the key ---------------

def new_meter(ctrl: ControllerState, mc: MeterConfig) -> Meter:
    if "rate-off" in ctrl.cfg.defects:
        mc = MeterConfig(mc.name, mc.rate + Decimal("0.01"), mc.initial, mc.reset, mc.payout_limit,
                         mc.display_capacity)
    if "meter-wraps" in ctrl.cfg.defects:  # the meter runs past its display: only the limit caps it
        mc = MeterConfig(mc.name, mc.rate, mc.initial, mc.reset, mc.payout_limit, None)
    return Meter(mc, ctrl.options)


def new_mystery(ctrl: ControllerState, mystery: MysteryConfig) -> MysteryMeter:
    meter = MysteryMeter(mystery, "mystery", ctrl.options, ctrl.rng,
                         law=defects.trigger_law(distribution(mystery.distribution), ctrl.cfg.defects))
    if "mystery-wrong-reseed" in ctrl.cfg.defects:
        meter.amount -= defects.MYSTERY_SHORT_CENTS
    return meter


def meter_amounts(ctrl: ControllerState) -> dict[str, Cents]:
    """What the table's meters show: its own, and a linked table's common meters as last reported."""
    amounts = ctrl.bank.amounts() if ctrl.bank is not None else {}
    if ctrl.link is not None:
        amounts.update({m: ctrl.link.amount(m) for m in ctrl.link.meters})
    return amounts


def fresh_bank(ctrl: ControllerState) -> MeterBank | None:
    local = ctrl.link.meters if ctrl.link is not None else {}
    meters: list[Meter] = [new_meter(ctrl, mc) for mc in ctrl.cfg.meters.values() if mc.name not in local]
    if ctrl.cfg.mystery is not None:
        meters.append(new_mystery(ctrl, ctrl.cfg.mystery))
    return MeterBank(meters) if meters or local else None


def _diverted(ctrl: ControllerState, amounts: Mapping[str, Cents]) -> dict[str, Cents]:
    """``diverted`` of ``meters.get``: every meter; with persona ``omits-optional-fields`` only the
    meters standing at their cap, where docs/protocol.md (section 8) requires it."""
    bank = ctrl.bank
    if bank is None:
        return {}
    out = {n: m.diverted for n, m in bank.meters.items()}
    if "omits-optional-fields" in ctrl.cfg.personas:
        caps = {n: m.cap for n, m in ctrl.cfg.meters.items()}
        out = {n: d for n, d in out.items() if (c := caps.get(n)) is not None and amounts.get(n, 0) >= c}
    return out


def meters_get(ctrl: ControllerState, req: Mapping[str, Any]) -> Answer:
    bank = ctrl.bank
    amounts = meter_amounts(ctrl)
    if "meter-wraps" in ctrl.cfg.defects:  # the display shows the amount modulo its capacity
        caps = {n: m.display_capacity for n, m in ctrl.cfg.meters.items()}
        amounts = {n: a % (c + 1) if (c := caps.get(n)) is not None else a for n, a in amounts.items()}
    return {
        "meters": amounts,
        "residual": bank.residuals() if bank else {},
        "diverted": _diverted(ctrl, amounts),
        "cumulative_paid": ctrl.accounts.cumulative_paid,
        "paid_by_table": ctrl.accounts.paid_by_table,
        "paid_by_attendant": ctrl.accounts.paid_by_attendant,
        # contract version 1 gave pending no shape: the version-1 persona keys the payments by meter
        "pending": ({k: dict(v) for k, v in sorted(ctrl.accounts.pending.items())} if ctrl.cfg.contract_version == 1
                    else [{"meter": k, **v} for k, v in sorted(ctrl.accounts.pending.items())]),
        **({"link": {"table": ctrl.link.table, "up": ctrl.link.up, "outbox": len(ctrl.link.outbox),
                     "meters": dict(ctrl.link.meters)}} if ctrl.link is not None else {}),
    }


def reset_key(ctrl: ControllerState, req: Mapping[str, Any]) -> Answer:
    name = arg(req, "meter", str)
    entry = ctrl.accounts.pending.get(name)
    if entry is not None and entry.get("linked"):
        return Refusal("REFUSED", f"{name} is a common meter of the link: its reset key is the link controller's")
    if entry is None or ctrl.bank is None:
        if ctrl.cfg.defects and (idle := defect_branches.idle_key(ctrl, name)) is not None:
            return idle
        return Refusal("REFUSED", f"no hit is waiting for the reset key on {name!r}")
    if "mystery-left-pending" in ctrl.cfg.defects and ctrl.bank[name].pending is None:
        del ctrl.accounts.pending[name]  # the award the table paid, kept waiting for no reason
        return {"meter": name, "amount": ctrl.bank[name].amount}
    try:
        hits = ctrl.bank.reset_key(name)
    except MeterError as exc:
        return Refusal("REFUSED", str(exc))
    del ctrl.accounts.pending[name]
    if not defect_branches.unmetered(ctrl, name):
        ctrl.accounts.paid(int(entry["amount"]), "attendant")
    after_reset(ctrl, name)
    if hits:
        mystery_hits(ctrl, int(entry["seat"]), hits)
    ctrl.save()
    return {"meter": name, "amount": ctrl.bank[name].amount}


def after_reset(ctrl: ControllerState, name: str) -> None:
    """A meter went back to its reset amount (the reset key, or a table-paid hit)."""
    if ctrl.bank is None:
        return
    if "reset-zero" in ctrl.cfg.defects:
        ctrl.bank[name].amount = 0
    if "residual-dropped-at-reset" in ctrl.cfg.defects and not isinstance(ctrl.bank[name], MysteryMeter):
        ctrl.bank[name].residual_num = 0
    if "mystery-wrong-reseed" in ctrl.cfg.defects and isinstance(ctrl.bank[name], MysteryMeter):
        ctrl.bank[name].amount -= defects.MYSTERY_SHORT_CENTS
    ctrl.emit("reset", meter=name, amount=ctrl.bank[name].amount)


def mystery_lowered(ctrl: ControllerState, new: EmulatorConfig) -> str | None:
    """A new mystery configuration starts its meter at the new reseed: refused when that is below
    what the meter shows now, which would turn it back (461a.12(h)).  Removing the mystery
    progressive altogether is refused once play has funded its meter: the funded amount would be
    discarded, the meter turned back to nothing."""
    if new.mystery == ctrl.cfg.mystery or ctrl.bank is None:
        return None
    if "mystery" not in ctrl.bank.meters:
        return None
    meter = ctrl.bank["mystery"]
    shown = meter.amount
    if new.mystery is None:
        funded = shown > meter.config.reset or meter.residual_num > 0
        if funded and "mystery-discarded" not in ctrl.cfg.defects:
            return (f"mystery meter shows {shown} cents funded by play; removing the mystery progressive "
                    "would discard it (461a.12(h))")
        return None
    if shown > new.mystery.reseed:
        return (f"mystery meter shows {shown} cents; a configuration reseeding at {new.mystery.reseed} "
                "cents would turn it back (461a.12(h))")
    return None


def rebuilt_bank(ctrl: ControllerState, new: EmulatorConfig, changed: set[str]) -> MeterBank | None:
    if ctrl.bank is None:
        return None
    meters: list[Meter] = []
    for name, meter in ctrl.bank.meters.items():
        if name in changed:
            state = meter.to_state()
            mc = new_meter(ctrl, defect_branches.rate_in_use(ctrl, new.meters[name])).config
            state["config"] = mc.to_dict()
            if "meter-turned-back" in ctrl.cfg.defects:  # a write re-initialises the meter
                state.update(amount=mc.reset, residual="0")
            meters.append(Meter.from_state(state, ctrl.options))
        elif isinstance(meter, MysteryMeter) and new.mystery != ctrl.cfg.mystery:
            continue
        else:
            meters.append(meter)
    if new.mystery is not None and new.mystery != ctrl.cfg.mystery:
        meters.append(new_mystery(ctrl, new.mystery))
    return MeterBank(meters)
