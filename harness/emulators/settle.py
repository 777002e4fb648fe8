"""Round resolution inside the emulated controller: the oracle decides, the controller pays.

The controller is the "device": it resolves each round by calling the same pure oracle the
harness checks against (:mod:`harness.games.baccarat`, :mod:`harness.games.royal9`,
:mod:`harness.games.blackjack`), takes meter awards off its :class:`MeterBank`, and emits ``hit``
and ``payout`` events.  A defect (``harness.emulators.defects``) bends exactly one step here or
in the controller, so the harness can prove it notices.

Who pays (629a Royal 9 (f)/(g); 461a.12): a meter jackpot is paid by an attendant and waits for
the reset key (``meter-attendant-reset``); a fixed line and every base-game wager are paid by the
table at once.  ``cumulative_paid`` counts progressive-wager awards (the win, stake excluded) when
they are paid: at settlement for the table, at the reset key for an attendant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from harness.cards import Card
from harness.games.baccarat import BaccaratRound, deal_round, settle_wager
from harness.games.blackjack import DealerHand, dealer_hand, settle_hit_and_run
from harness.games.royal9 import METERS
from harness.money import Cents
from harness.progressive.meter import Hit

if TYPE_CHECKING:
    from harness.emulators.controller import Controller

BASE_BACCARAT = ("player", "banker", "tie", "dragon7", "panda8")


@dataclass
class Accounts:
    """The payout meters a progressive controller keeps (issue: "meters" of the controller)."""

    cumulative_paid: Cents = 0
    paid_by_table: Cents = 0
    paid_by_attendant: Cents = 0
    #: meter -> {"seat", "amount", "category"}: attendant payouts waiting for the reset key
    pending: dict[str, dict[str, Any]] = field(default_factory=dict)
    history: list[dict[str, Any]] = field(default_factory=list)

    def paid(self, amount: Cents, by: str) -> None:
        self.cumulative_paid += amount
        if by == "table":
            self.paid_by_table += amount
        else:
            self.paid_by_attendant += amount

    def record(self, entry: dict[str, Any]) -> None:
        self.history.append(entry)
        del self.history[:-50]

    def to_state(self) -> dict[str, Any]:
        return {"cumulative_paid": self.cumulative_paid, "paid_by_table": self.paid_by_table,
                "paid_by_attendant": self.paid_by_attendant, "pending": self.pending,
                "history": self.history}

    @classmethod
    def from_state(cls, s: dict[str, Any]) -> Accounts:
        return cls(int(s["cumulative_paid"]), int(s["paid_by_table"]), int(s["paid_by_attendant"]),
                   dict(s.get("pending", {})), list(s.get("history", [])))


def round_complete(ctrl: Controller, cards: Sequence[Card]) -> bool:
    """Whether ``cards`` are exactly one complete round: the tableau (baccarat) or the dealer's
    completed hand (Hit and Run: the round's cards are the dealer's, see docs/protocol.md)."""
    try:
        if ctrl.cfg.hit_and_run:
            return dealer_hand(cards, hit_soft17=ctrl.cfg.hit_soft17,
                               interpretations=ctrl.interp).n_cards == len(cards)
        return ctrl.deal_round(cards).cards_used == len(cards)
    except Exception:  # InputError: the round needs another card
        return False


def baccarat_round(cards: Sequence[Card]) -> BaccaratRound:
    return deal_round(cards)


def settle_round(ctrl: Controller) -> None:
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
            outcome, st = settle_wager(rnd, kind, amount, game=game, commission=ctrl.cfg.commission)
            ctrl.emit("payout", seat=seat, type=kind, category=outcome, stake=st.stake,
                      returned=st.returned, paid_by="table")
    r9_seats = frozenset(seat for (seat, kind) in wagers if kind == "royal9")
    if ctrl.r9 is None or ctrl.bank is None:
        return
    result = ctrl.r9.resolve(ctrl.r9_cards(rnd), wagers=r9_seats, meters=ctrl.bank.amounts())
    for sr in result.seats:
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
        for category in sr.awarded:
            if category in METERS:
                hit = ctrl.bank.hit(category, paid_by="attendant")
                fixed_award -= hit.paid
                _meter_hit(ctrl, sr.seat, category, category, hit)
                by = "attendant" if hit.pending or by == "attendant" else by
            else:
                pay = ctrl.r9.paytable[category]
                ctrl.emit("hit", seat=sr.seat, category=category, meter=None,
                          amount=int(pay.value) if pay.kind == "fixed" else None)
        if fixed_award:
            ctrl.accounts.paid(fixed_award, "table")
        ctrl.emit("payout", seat=sr.seat, type="royal9", category=sr.category, stake=stake,
                  returned=returned, paid_by=by)


def _meter_hit(ctrl: Controller, seat: int, category: str, meter: str, hit: Hit) -> None:
    """Book one meter award: pending for the reset key, or paid now."""
    entry = {"round": ctrl.round_no, "seat": seat, "category": category, "meter": meter,
             "amount": hit.paid, "paid_by": hit.paid_by}
    ctrl.accounts.record(entry)
    ctrl.emit("hit", seat=seat, category=category, meter=meter, amount=hit.paid)
    if hit.pending:
        ctrl.accounts.pending[meter] = {"seat": seat, "amount": hit.paid, "category": category}
    else:
        ctrl.accounts.paid(hit.paid, hit.paid_by)
        ctrl.after_reset(meter)


def mystery_hits(ctrl: Controller, seat: int, hits: Sequence[Hit]) -> None:
    """A contribution reached the hidden trigger: the award is the seat's (629a Royal 9 (h))."""
    for hit in hits:
        _meter_hit(ctrl, seat, "mystery", hit.meter, hit)
        ctrl.emit("payout", seat=seat, type="royal9", category="mystery", stake=0,
                  returned=hit.paid, paid_by=hit.paid_by)


def _settle_hit_and_run(ctrl: Controller, wagers: dict[tuple[int, str], Cents], hand: DealerHand) -> None:
    """Hit and Run (633a.13(l)(1)): every wager is decided by the dealer's hand; the
    eight-or-more line takes the meter.  Simultaneous meter winners are each paid the amount
    the meter showed (an attendant pays them; the meter resets once)."""
    bank = ctrl.bank
    meter_name = ctrl.hr_meter
    shown = bank[meter_name].amount if bank is not None and meter_name else None
    taken: Hit | None = None
    for (seat, kind), amount in sorted(wagers.items()):
        if kind != "hit-and-run":
            continue
        category, st = settle_hit_and_run(hand, amount, shown, interpretations=ctrl.interp)
        by = "table"
        if category == "8-plus-cards" and bank is not None and meter_name:
            if taken is None:
                taken = bank.hit(meter_name, paid_by="attendant")
                _meter_hit(ctrl, seat, category, meter_name, taken)
            else:  # a later winner of the same hand: paid what the meter showed, with the first
                ctrl.emit("hit", seat=seat, category=category, meter=meter_name, amount=taken.paid)
                ctrl.accounts.record({"round": ctrl.round_no, "seat": seat, "category": category,
                                      "meter": meter_name, "amount": taken.paid, "paid_by": "attendant"})
                if taken.pending:
                    ctrl.accounts.pending[meter_name]["amount"] += taken.paid
                else:
                    ctrl.accounts.paid(taken.paid, "attendant")
            by = "attendant"
        elif category is not None:
            ctrl.emit("hit", seat=seat, category=category, meter=None, amount=st.returned - st.stake)
            ctrl.accounts.paid(st.returned - st.stake, "table")
        ctrl.emit("payout", seat=seat, type=kind, category=category, stake=st.stake,
                  returned=st.returned, paid_by=by)
