"""Bulk rounds (``rounds:`` step): random shoes, every listed seat wagering, each round checked.

Per round: the device's payouts against the oracle, and for every meter not hit in the round the
exact contribution arithmetic (wagers x rate == meter growth + residual growth).  The results are
aggregated into a few measurements so a 200-round case stays readable; every mismatch is listed.
"""

from __future__ import annotations

import random
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from harness.cards import format_cards
from harness.money import Cents
from harness.suites.load.model import Step
from harness.suites.run.oracle import contribution_check, meter_settings, qualifying_stakes
from harness.suites.steps.accounts import account_problems, residual_problems
from harness.suites.steps.core import WAGER_TYPES, hits_to_pay, measure_payments, open_round
from harness.suites.steps.expect import expected_round, rate_clause
from harness.suites.steps.payouts import settlements
from harness.suites.steps.registry import Action, Arg, choice, step

if TYPE_CHECKING:
    from harness.suites.run.context import CaseContext



BASE_TYPES = ("player", "banker", "tie")


def base_wagers(runner: CaseContext, seat: int, kind: str, base: str, amount: int | None) -> list[tuple[int, str, int]]:
    """The base wager placed at a seat before a Royal 9 wager (629a Royal 9 (b))."""
    if kind != "royal9" or base == "none" or (base == "auto" and not runner.requires_base_wager):
        return []
    btype = "banker" if base == "auto" else BASE_TYPES[(seat - 1) % 3] if base == "mixed" else base
    return [(seat, btype, amount if amount is not None else runner.stake_default * 2)]


def play_rounds(
    runner: CaseContext, step: Step, *, count: int, seed: int, seats: list[int], kind: str, pace_us: int | None,
    base: str = "auto", base_amount: int | None = None,
) -> None:
    rng = random.Random(seed)
    payout_checks = payout_bad = 0
    conservation_checks = 0
    problems: list[str] = []
    paying: list[str] = []
    booked: list[str] = []
    settings = meter_settings(runner.profile, runner.rates_written)
    # bulk rounds (no act's timing is judged in them): a person's prompts say so, a scripted operator may hurry
    with runner.performers.bulk_rounds():
        for n in range(1, count + 1):
            open_round(runner, step)
            batch: list[tuple[int, str, int | None]] = []
            for seat in seats:
                batch += base_wagers(runner, seat, kind, base, base_amount)
                batch.append((seat, kind, None))
            for res in runner.place_many(batch):
                if not res.accepted:
                    problems.append(f"round {n}: seat {res.seat} {res.type} wager refused ({res.reason})")
            runner.deal_random_round(lambda: runner.round_cards(runner.random_round_cards(rng)), pace_us, seed + n)
            start = runner.snapshots["round-start"]
            exp = expected_round(runner)
            paid = settlements(runner.round.ctrl_events)
            for key, e in exp.payouts.items():
                payout_checks += 1
                wager = paid.get(key)
                if wager is None or wager.returned != e.returned or wager.times > 1:
                    payout_bad += 1
                    twice = f"; {wager.describe()}" if wager is not None and wager.times > 1 else ""
                    returned = wager.returned if wager else None
                    problems.append(f"round {n} ({format_cards(runner.cards_read())}): seat {key[0]} {key[1]} "
                                    f"returned {returned} cents, oracle {e.returned} ({e.category}){twice}")
            hit = {str(ev.payload.get("meter")) for ev in runner.round.ctrl_events if ev.name == "hit"}
            pay_problems, _keys = hits_to_pay(runner)
            paying += [f"round {n}: {p}" for p in pay_problems]
            now = runner.read_meters()
            stakes = qualifying_stakes(runner.round.wagers)
            booked += account_problems(runner, start, now, runner.round.ctrl_events, f"round {n}")
            booked += residual_problems(runner, start, now, stakes, hit, f"round {n}")
            for name, m in settings.items():
                if name in hit or name not in now.meters:
                    continue
                conservation_checks += 1
                got, want = contribution_check(m.rate, stakes, start, now, name, m.cap)
                if got != want:
                    problems.append(f"round {n}: {name} grew {got} cents (growth + residual), wagers x rate {want}")
    runner.measure(step, f"payouts matching the oracle over {count} rounds", payout_checks - payout_bad,
                   payout_checks, payout_bad == 0, unit="wagers",
                   detail="; ".join(p for p in problems if "returned" in p)[:2000])
    bad_cons = [p for p in problems if "grew" in p]
    runner.measure(step, f"meter contributions conserved over {count} rounds", conservation_checks - len(bad_cons),
                   conservation_checks, not bad_cons, unit="meter-rounds", detail="; ".join(bad_cons)[:2000],
                   clause=step.clause or rate_clause(runner, "mega"))
    measure_payments(runner, step, paying, count)
    runner.measure(step, f"payout meters moved by exactly the progressive awards, fractions of a cent carried "
                   f"across every reset, over {count} rounds", len(booked), 0, not booked, unit="rounds",
                   detail="; ".join(booked)[:2000])
    refused = [p for p in problems if "refused" in p]
    runner.measure(step, "wagers accepted before dealing", len(refused), 0, not refused, unit="refusals",
                   detail="; ".join(refused)[:2000])


@step("rounds", Action(
    {
        "count": Arg("int", required=True),
        "seed": Arg("int", default=1),
        "seats": Arg("seats", default="all"),
        "type": choice(*WAGER_TYPES, default="royal9"),
        "pace_ms": Arg("decimal", default=Decimal(1)),
        "base": choice("auto", "none", "player", "banker", "tie", "mixed", default="auto"),
        "base_amount": Arg("amount", positive=True, why="a $0 wager is no wager"),
    },
    doc="play `count` rounds of random shoes, every listed seat wagering; each round's payouts are "
    "checked against the oracle, the meters against exact contribution arithmetic (the fraction of a cent "
    "across every reset included) and the payout meters against the round's progressive awards, and each "
    "round's lock-out is timed for `expect_lockout_rounds`; `base` is the "
    "base wager placed before a Royal 9 wager (`auto`: a Banker wager where r9-requires-base-wager "
    "holds; `mixed`: Player, Banker, Tie by seat)",
    acts=("open-round", "wager", "load", "deal", "reset-key"),
))
def rounds(runner: CaseContext, step: Step, count: int, seed: int, seats: Any, type: str, base: str,
              pace_ms: Decimal | None = None, base_amount: Cents | None = None) -> None:
    pace_us = int(pace_ms * 1000) if pace_ms is not None else None
    play_rounds(runner, step, count=count, seed=seed, seats=runner.seats_of(seats), kind=type, pace_us=pace_us,
                base=base, base_amount=base_amount)
