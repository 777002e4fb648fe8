"""Suite actions for the Royal 9 progressive wager (58 Pa. Code 629a Royal 9 (a)-(g)).

The core vocabulary (:mod:`harness.suites.steps`) places wagers, deals and compares payouts; the
Royal 9 clauses need a few checks beyond it:

- ``r9_rounds``: bulk random rounds like ``rounds:``, but every seat first places a Midibaccarat
  wager (Player, Banker, Tie in turn by seat), because the Royal 9 wager is offered only to a
  player who placed one (Royal 9 (b), interpretation ``r9-requires-base-wager``), and only the
  cards the round uses are dealt; both the base and the Royal 9 payouts are checked against the
  oracle, and the meters against the exact contribution arithmetic, round by round;
- ``expect_r9_meter_award``: a meter jackpot ((e)(6)-(8), (f)(1), (g)(1) "100% of ... jackpot")
  pays exactly what the meter showed at settlement: the round-start reading plus this round's
  contributions at the Rules Submission rate, which the meter must still show until the reset key;
- ``expect_r9_round_cards``: the shoe reported every card the round used (Royal 9 (c): the cards
  the wager is settled on are the ones dealt); it also waits for those card events, which travel
  on the shoe's own line and may arrive after the controller's ``round_end``;
- ``expect_r9_wagers_listed``: every accepted wager is known to the wagering system ((a)(2));
- ``expect_r9_combos``: the controller's personal combinations are a king and a nine each, unique
  per position, and the ones in the Rules Submission ((e)(5)).

Every check is a measurement (:meth:`CaseRunner.measure`).
"""

from __future__ import annotations

import random
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from harness.cards import format_cards
from harness.games.baccarat import deal_round
from harness.money import Cents, fmt
from harness.suites.expect import expected_round
from harness.suites.model import Step
from harness.suites.steps import Action, Arg

if TYPE_CHECKING:
    from harness.suites.runner import CaseRunner

#: the Midibaccarat wagers of 629a.7(b) that open the Royal 9 option
BASE_TYPES = ("player", "banker", "tie")


def _enum(*choices: str, required: bool = False, default: str | None = None) -> Arg:
    return Arg("enum", required=required, default=default, choices=choices)


ACTIONS: dict[str, Action] = {
    "r9_rounds": Action(
        {
            "count": Arg("int", required=True),
            "seed": Arg("int", default=1),
            "seats": Arg("seats", default="all"),
            "base": _enum("mixed", *BASE_TYPES, default="mixed"),
            "base_amount": Arg("amount"),
            "pace_ms": Arg("decimal"),
        },
        doc="play `count` random rounds; each listed seat places a base wager (`mixed`: Player, Banker, "
        "Tie by seat; `base_amount` defaults to the denomination) then a Royal 9 wager; only the cards "
        "the round uses are dealt (`pace_ms`, default 2); every payout is checked against the oracle "
        "and every meter against exact contribution arithmetic",
    ),
    "expect_r9_meter_award": Action(
        {"seat": Arg("seat", required=True), "meter": _enum("mega", "major", "minor", required=True)},
        doc="a meter jackpot pays what the meter showed at settlement (round-start reading plus this "
        "round's contributions at the profile's rate); the meter shows that amount until the reset key",
    ),
    "expect_r9_round_cards": Action(
        doc="the shoe reported every card the round used, in the order loaded (waits for the shoe's "
        "card events, which may arrive after the controller's round_end)",
    ),
    "expect_r9_wagers_listed": Action(
        doc="the wagering system lists exactly the wagers accepted in this round (Royal 9 (a)(2))",
    ),
    "expect_r9_combos": Action(
        doc="every seat's personal combination read back from the controller is a king and a nine, "
        "unique, and the one in the profile's Rules Submission (Royal 9 (e)(5))",
    ),
}


# ---------------------------------------------------------------------------- bulk rounds


def do_r9_rounds(self: CaseRunner, step: Step, count: int, seed: int, seats: Any, base: str,
                 base_amount: Cents | None = None, pace_ms: Decimal | None = None) -> None:
    """Random rounds, each checked against the oracle and the exact contribution arithmetic.

    Only the cards the round uses are loaded and dealt (the tableau decides 4 to 6), so no card of
    one round is still coming out of the shoe when the next round opens."""
    rng = random.Random(seed)
    seat_list = self._seats(seats)
    pace_us = int((pace_ms if pace_ms is not None else Decimal(2)) * 1000)
    settings = dict(self.profile.rules.meters)
    checked = bad_pay = conserved = 0
    paid_wrong: list[str] = []
    grew_wrong: list[str] = []
    refused: list[str] = []
    for n in range(1, count + 1):
        self.do_open_round(step)
        for seat in seat_list:
            btype = BASE_TYPES[(seat - 1) % 3] if base == "mixed" else base
            for kind, amount in ((btype, base_amount), ("royal9", None)):
                res = self._place(seat, kind, amount)
                if not res.accepted:
                    refused.append(f"round {n}: seat {seat} {kind} refused ({res.reason})")
        cards = self.random_round_cards(rng)
        cards = cards[: deal_round(cards).cards_used]
        assert self.rig.shoe is not None
        self.rig.shoe.load(cards)
        self.loaded = tuple(cards)
        self.rig.shoe.deal(len(cards), pace_us)
        self.do_settle(step)
        _await_cards(self, len(cards))
        start = self.snapshots["round-start"]
        exp = expected_round(self)
        paid = {(int(e.payload["seat"]), str(e.payload["type"])): int(e.payload["returned"])
                for e in self.round.ctrl_events if e.name == "payout"}
        for key, e in exp.payouts.items():
            checked += 1
            if paid.get(key) != e.returned:
                bad_pay += 1
                paid_wrong.append(f"round {n} ({format_cards(cards)}): seat {key[0]} {key[1]} returned "
                                  f"{paid.get(key)} c, oracle {e.returned} c ({e.category})")
        hit = {str(ev.payload.get("meter")) for ev in self.round.ctrl_events if ev.name == "hit"}
        for meter in sorted(m for m in hit if m in start.meters):
            self._ctrl().reset_key(meter)
        now = self._read_meters()
        stakes = sum(a for (_s, k), a in self.round.wagers.items() if k == "royal9")
        for name, m in settings.items():
            if name in hit or name not in now.meters:
                continue
            conserved += 1
            want = Decimal(stakes) * m.rate / 100
            got = (Decimal(now.meters[name] - start.meters.get(name, 0))
                   + now.residual.get(name, Decimal(0)) - start.residual.get(name, Decimal(0)))
            if got != want:
                grew_wrong.append(f"round {n}: {name} grew {got} c (growth + residual), wagers x rate {want} c")
    self.measure(step, f"payouts matching the oracle over {count} rounds", checked - bad_pay, checked,
                 bad_pay == 0 and checked > 0, unit="wagers", detail="; ".join(paid_wrong)[:2000])
    self.measure(step, f"meter contributions conserved over {count} rounds", conserved - len(grew_wrong),
                 conserved, not grew_wrong, unit="meter-rounds", detail="; ".join(grew_wrong)[:2000])
    self.measure(step, "base and Royal 9 wagers accepted before dealing", len(refused), 0, not refused,
                 unit="refusals", detail="; ".join(refused)[:2000])


def _await_cards(self: CaseRunner, n: int) -> None:
    """The shoe's card events travel on their own line: wait until ``n`` have been read."""
    self._wait_for(f"{n} card events from the shoe", lambda: len(self.round.cards) >= n)


def do_expect_r9_round_cards(self: CaseRunner, step: Step) -> None:
    if not self.round.settled:
        self.do_settle(step)
    if not self.loaded:
        raise AssertionError("expect_r9_round_cards needs a scripted deal (cards or stack)")
    used = deal_round(self.loaded).cards_used
    _await_cards(self, used)
    got = [c.code for c, _t in self.round.cards[:used]]
    want = [c.code for c in self.loaded[:used]]
    self.measure(step, "cards reported by the shoe", " ".join(got), " ".join(want), got == want,
                 detail=f"the round uses {used} cards")


# ---------------------------------------------------------------------------- meter awards


def _meter_at_settlement(self: CaseRunner, meter: str) -> tuple[Cents, str]:
    """The round-start reading plus this round's exact contributions (residual carried)."""
    start = self.snapshots["round-start"]
    settings = self.profile.rules.meters[meter]
    stakes = sum(a for (_s, k), a in self.round.wagers.items() if k == "royal9")
    carried = start.residual.get(meter, Decimal(0)) + Decimal(stakes) * settings.rate / 100
    amount = start.meters[meter] + int(carried)
    return amount, (f"round start {fmt(start.meters[meter])} + {fmt(stakes)} wagered x {settings.rate}% "
                    f"(residual {start.residual.get(meter, Decimal(0))} c carried)")


def do_expect_r9_meter_award(self: CaseRunner, step: Step, seat: int, meter: str) -> None:
    if not self.round.settled:
        self.do_settle(step)
    self._pump(0.02)
    if "round-start" not in self.snapshots or meter not in self.profile.rules.meters:
        raise AssertionError(f"expect_r9_meter_award needs open_round first and a '{meter}' meter in the profile")
    want_meter, how = _meter_at_settlement(self, meter)
    stake = self.round.wagers.get((seat, "royal9"), 0)
    returns_stake = self.oracle.interp.award_returns_stake
    want_ret = want_meter + (stake if returns_stake else 0)
    payout = next((e.payload for e in self.round.ctrl_events
                   if e.name == "payout" and int(e.payload["seat"]) == seat and e.payload["type"] == "royal9"),
                  None)
    got_ret = int(payout["returned"]) if payout else None
    self.measure(step, f"seat {seat} Royal 9 returned: 100% of the {meter} jackpot"
                 + (" + stake" if returns_stake else ""), got_ret, want_ret, got_ret == want_ret, unit="cents",
                 detail=how)
    got_cat = payout.get("category") if payout else None
    self.measure(step, f"seat {seat} Royal 9 category", got_cat, meter, got_cat == meter)
    hit = next((e.payload for e in self.round.ctrl_events
                if e.name == "hit" and e.payload.get("meter") == meter), None)
    got_hit = int(hit["amount"]) if hit and hit.get("amount") is not None else None
    self.measure(step, f"{meter} hit amount", got_hit, want_meter, got_hit == want_meter, unit="cents",
                 detail=f"hit event {hit}" if hit else "no hit event for this meter")
    shown = self._read_meters().meters.get(meter)
    self.measure(step, f"{meter} meter shows the amount won until the reset key", shown, want_meter,
                 shown == want_meter, unit="cents")


# ---------------------------------------------------------------------------- wagering system


def do_expect_r9_wagers_listed(self: CaseRunner, step: Step) -> None:
    if self.rig.sensors is None:
        raise AssertionError("this case needs bet sensors")
    listed = {(w.seat, w.type): w.amount for w in self.rig.sensors.wagers()}
    accepted = dict(self.round.wagers)

    def show(d: dict[tuple[int, str], Cents]) -> str:
        return ", ".join(f"{s}/{k} {fmt(a)}" for (s, k), a in sorted(d.items())) or "none"

    self.measure(step, "wagers listed by the wagering system", show(listed), show(accepted), listed == accepted,
                 detail="every accepted wager, and nothing else")


def do_expect_r9_combos(self: CaseRunner, step: Step) -> None:
    cfg = self._ctrl().config()
    got = {s.seat: tuple(s.combo) if s.combo else None for s in cfg.seats}
    want = {s.seat: tuple(c.code for c in s.combo) if s.combo else None for s in self.profile.rules.seats}
    self.measure(step, "personal combinations equal the Rules Submission", got, want, got == want)
    combos = [c for c in got.values() if c]
    bad = [" ".join(c) for c in combos
           if len(c) != 2 or sorted(x[0] for x in c) != ["9", "K"]]
    self.measure(step, "each personal combination is a king and a nine", ", ".join(bad) or "all", "all",
                 not bad and bool(combos))
    keys = [frozenset(c) for c in combos]
    dupes = sorted({" ".join(c) for c, k in zip(combos, keys, strict=True) if keys.count(k) > 1})
    self.measure(step, "personal combinations unique per position", ", ".join(dupes) or "unique", "unique",
                 not dupes)
