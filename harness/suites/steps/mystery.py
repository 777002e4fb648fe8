"""Playing the mystery progressive of Royal 9 (h) to its awards: ``mystery_play``.

One award says little about the state after it: a controller that reseeds correctly but re-arms
its hidden trigger wrongly shows it only at the next award.  So the step plays to as many awards
as it is asked for (``awards``), and checks each one the same way: the meter within [reseed,
must-hit-by] at every reading, growth by exactly wagers x rate in every round without an award, the
award at most must-hit-by and at least the reseed, the reseed, the contributions conserved over
the award and the payout meters of 461a.12(b)(2)-(4).  Every round's wagers are placed as one act
(pipelined on the test channel).
"""

from __future__ import annotations

import random
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from harness.devices.vocabulary import MYSTERY_CATEGORY
from harness.games.baccarat import deal_round
from harness.money import Cents, fmt
from harness.suites.load.model import Step
from harness.suites.steps.accounts import account_problems, paid_by
from harness.suites.steps.core import hits_to_pay, measure_payments, open_round
from harness.suites.steps.progressive import mystery_number, regulation_mystery
from harness.suites.steps.registry import Action, Arg, step

if TYPE_CHECKING:
    from harness.devices.roles import MeterReading
    from harness.suites.run.context import CaseContext

_METER_KINDS = ("royal9", "hit-and-run")


def _round_cards(runner: CaseContext, rng: random.Random) -> list[Any]:
    """A random round's cards, exactly as many as the tableau uses: a card left in the shoe would
    come out after the settlement and, once the next round is open, lock it out."""
    cards = runner.random_round_cards(rng)
    return list(cards[: deal_round(cards).cards_used])


@step("mystery_play", Action(
    {"configuration": Arg("int"), "max_rounds": Arg("int", default=1000, lo=1, why="0 rounds play nothing"),
     "seats": Arg("seats", default="all"), "seed": Arg("int", default=1),
     "pace_ms": Arg("decimal", default=Decimal(0)), "if_written": Arg("bool", default=False),
     "awards": Arg("int", default=1, lo=1, why="play until at least one award")},
    doc="play random rounds (every listed seat with a Player and a Royal 9 wager) until the mystery "
    "meter has awarded `awards` times; checks range, rate, each award <= must-hit-by, the reseed after "
    "each and the payout meters; with `if_written`, only when the case's last `configure_mystery` was "
    "accepted (a refused write leaves the profile's configuration, played by its own case)",
    acts=("open-round", "wager", "load", "deal", "reset-key")
))
def mystery_play(runner: CaseContext, step: Step, max_rounds: int, seats: Any, seed: int, pace_ms: Decimal,
                 if_written: bool, awards: int, configuration: int | None = None) -> None:
    """Royal 9 (h): random rounds until the hidden trigger has awarded the mystery meter ``awards``
    times.

    Every reading lies in [reseed, must-hit-by]; a round without an award grows the meter by exactly
    wagers x rate (growth + residual); each award is at most must-hit-by and at least reseed, the
    meter reseeds (award + new amount - reseed = old amount + the round's contribution, so no cent
    is lost), and the payout meters record the award."""
    running = mystery_number(runner)
    if if_written and not runner.state.mystery_written:
        runner.measure(step, "mystery play", "not played: the configuration write was refused",
                       "played only for an accepted configuration write", True)
        return
    if configuration is None:
        if running is None:
            raise AssertionError("mystery_play: the controller runs no numbered mystery configuration")
        configuration = running
    runner.measure(step, "mystery configuration in play", running, configuration, running == configuration)
    reseed, must_hit_by, rate = regulation_mystery(configuration)
    seat_list = runner.seats_of(seats)
    rng = random.Random(seed)
    pace_us = int(pace_ms * 1000)
    stake = runner.stake_default
    problems: list[str] = []
    paying: list[str] = []
    booked: list[str] = []
    outside: list[str] = []
    won: list[Cents] = []
    rounds = 0
    start = runner.read_meters()
    # bulk rounds (no act's timing is judged in them): a person's prompts say so, a scripted operator may hurry
    with runner.performers.bulk_rounds():
        for n in range(1, max_rounds + 1):
            rounds = n
            open_round(runner, step)
            before = runner.snapshots["round-start"]
            batch: list[tuple[int, str, int | None]] = [(seat, kind, stake) for seat in seat_list
                                                        for kind in ("player", "royal9")]
            for res in runner.place_many(batch):
                if not res.accepted:
                    problems.append(f"round {n}: seat {res.seat} {res.type} wager refused ({res.reason})")
            runner.deal_random_round(lambda: _round_cards(runner, rng), pace_us, seed + n)
            # the hits of the round, with any award drawn at a key turn from contributions held
            # while an attendant paid the one before (hits_to_pay turns the key again for it)
            pay_problems, _keys = hits_to_pay(runner)
            hits = [e for e in runner.round.ctrl_events if e.name == "hit"]
            keyed = _awards_at_the_key(runner.round.ctrl_events) if paid_by(runner, "mystery") == "attendant" else 0
            if keyed:
                runner.measure(step, "a mystery award falling at the key turn, from the contributions held while "
                               "the last one waited (the device's choice: docs/protocol.md section 8)",
                               keyed, "at the key turn or on the next contribution", True, unit="award(s)",
                               detail=f"round {n}")
            paying += [f"round {n}: {p}" for p in pay_problems]
            now = runner.read_meters()
            shown = now.meters.get("mystery")
            if shown is None:
                problems.append(f"round {n}: no mystery meter")
                break
            if not reseed <= shown <= must_hit_by:
                outside.append(f"round {n}: {fmt(shown)}")
            stakes = sum(a for (_s, k), a in runner.round.wagers.items() if k in _METER_KINDS)
            contribution = Decimal(stakes) * rate / 100
            mystery_hits = [e for e in hits if e.payload.get("meter") == "mystery"]
            if mystery_hits:
                first = len(won) + 1
                won.extend(int(e.payload["amount"]) for e in mystery_hits)
                label = ("" if awards == 1 and len(won) == 1 else
                         f"award {first}: " if len(won) == first else f"awards {first}-{len(won)}: ")
                _award(runner, step, label, n, before, now, hits, contribution, (reseed, must_hit_by))
                if len(won) >= awards:
                    break
                continue
            booked += account_problems(runner, before, now, runner.round.ctrl_events, f"round {n}")
            growth = (Decimal(shown - before.meters["mystery"]) + now.residual.get("mystery", Decimal(0))
                      - before.residual.get("mystery", Decimal(0)))
            if growth != contribution:
                problems.append(f"round {n}: mystery grew {growth} cents (growth + residual), wagers x rate "
                                f"{contribution}")
    times = "once" if awards == 1 else f"{awards} times"
    runner.measure(step, f"mystery awarded {times} before passing must-hit-by {fmt(must_hit_by)}",
                   f"awarded {len(won)} time(s)" + (f": {', '.join(map(fmt, won))}" if won else "")
                   + (f" in {rounds} rounds" if len(won) < awards else ""),
                   f"awarded {awards} time(s)", len(won) >= awards,
                   detail=f"{rounds} rounds from {fmt(start.meters.get('mystery', 0))}")
    runner.measure(step, "mystery meter within [reseed, must-hit-by] at every reading", "; ".join(outside) or "all",
                   "all", not outside, detail=f"{rounds} readings in {fmt(reseed)}..{fmt(must_hit_by)}")
    runner.measure(step, f"mystery grew by wagers x {rate}% each round without an award",
                   "; ".join(problems) or "every round", "every round", not problems)
    runner.measure(step, "payout meters unmoved by rounds without a progressive award", len(booked), 0,
                   not booked, unit="rounds", detail="; ".join(booked)[:2000])
    measure_payments(runner, step, paying, rounds)


def _awards_at_the_key(events: list[Any]) -> int:
    """The mystery hits announced after a ``reset`` of the mystery meter in the round's events: awards the
    held contributions reached at the key turn (docs/protocol.md section 8 leaves when to the device)."""
    reset = next((i for i, e in enumerate(events) if e.name == "reset" and e.payload.get("meter") == "mystery"), None)
    if reset is None:
        return 0
    return sum(1 for e in events[reset + 1:] if e.name == "hit" and e.payload.get("meter") == "mystery")


def _award(runner: CaseContext, step: Step, label: str, n: int, before: MeterReading, now: MeterReading,
           hits: list[Any], contribution: Decimal, bounds: tuple[Cents, Cents]) -> None:
    """The measurements of one mystery award (round ``n``)."""
    reseed, must_hit_by = bounds
    mystery_hits = [e for e in hits if e.payload.get("meter") == "mystery"]
    amounts = [int(e.payload["amount"]) for e in mystery_hits]
    award = sum(amounts)
    each = ", ".join(map(fmt, amounts))
    shown = now.meters["mystery"]
    runner.measure(step, f"{label}mystery award at most must-hit-by (each)", each, f"<= {fmt(must_hit_by)}",
                   all(a <= must_hit_by for a in amounts), unit="",
                   detail=f"round {n}; meter before the round {fmt(before.meters['mystery'])}")
    runner.measure(step, f"{label}mystery award at least the reseed amount (each)", each, f">= {fmt(reseed)}",
                   all(a >= reseed for a in amounts), unit="",
                   detail=f"{len(mystery_hits)} award(s) in the round and at its key turns")
    # the award's own payout (docs/protocol.md, section 8): to the seat that won it, for no stake (the
    # award is no wager's: the Royal 9 wager is settled in its own payout) and for the amount won
    won = sorted((int(e.payload["seat"]), int(e.payload["amount"])) for e in mystery_hits)
    awards = [e for e in runner.round.ctrl_events
              if e.name == "payout" and e.payload.get("category") == MYSTERY_CATEGORY]
    paid = sorted((int(e.payload.get("seat", 0)), int(e.payload.get("returned") or 0)) for e in awards)
    staked = [e.payload.get("stake") for e in awards if e.payload.get("stake") != 0]
    runner.measure(step, f"{label}mystery award paid to the seat that won it, for the amount won (seat, cents)",
                   paid, won, paid == won)
    runner.measure(step, f"{label}mystery award payouts with a stake (the award is no wager's)", len(staked), 0,
                   not staked, unit="payouts", detail=", ".join(map(str, staked)))
    if paid_by(runner, "mystery") == "table":
        # docs/protocol.md, section 8: a table-paid award resets its meter at once, announced by a
        # `reset` of the meter right after its `hit` (the amount: the reseed plus what later seats'
        # wagers of the same round added)
        resets = [int(e.payload.get("amount") or 0) for e in runner.round.ctrl_events
                  if e.name == "reset" and e.payload.get("meter") == "mystery"]
        runner.measure(step, f"{label}mystery meter reset announced after each table-paid award (amounts)",
                       [fmt(a) for a in resets],
                       f"{len(mystery_hits)} reset(s) within {fmt(reseed)}..{fmt(must_hit_by)}",
                       len(resets) == len(mystery_hits) and all(reseed <= a <= must_hit_by for a in resets))
    carried = shown - reseed
    runner.measure(step, f"{label}mystery meter reseeded (new amount - reseed <= the round's contribution)",
                   fmt(shown), f"{fmt(reseed)} + at most {contribution} cents",
                   0 <= carried <= contribution, unit="")
    res_change = now.residual.get("mystery", Decimal(0)) - before.residual.get("mystery", Decimal(0))
    lhs = Decimal(before.meters["mystery"]) + contribution - res_change
    # each award reseeds the meter: two awards in one round (the trigger drawn after the first
    # reached by a later seat's contribution) put the reseed in twice
    reseeds = len(mystery_hits)
    rhs = Decimal(award + shown - reseeds * reseed)
    # meter-residual-on-reset "discard": the fraction of a cent carried at the reseed is dropped
    discard = runner.interpretation("meter-residual-on-reset") == "discard"
    runner.measure(step, f"{label}mystery contributions conserved over the award",
                   f"award + (meter - reseed{'' if reseeds == 1 else f' x {reseeds}'}) = {rhs} cents",
                   f"meter before + wagers x rate - residual change = {lhs} cents"
                   + (" (less a fraction of a cent discarded at the reseed)" if discard else ""),
                   lhs == rhs or (discard and Decimal(0) < lhs - rhs < 1),
                   detail=f"before {fmt(before.meters['mystery'])}, award {fmt(award)}, now {fmt(shown)}")
    # 461a.12(b)(2)-(4) count progressive payouts only (461a.1): the mystery award where the
    # table pays it, the meter jackpots of the round where an attendant pays them; no fixed line
    by_table = runner.profile.rules.mystery is None or runner.profile.rules.mystery.paid_by == "table"
    jackpots = sum(int(e.payload.get("amount") or 0) for e in hits
                   if e.payload.get("meter") in ("mega", "major", "minor"))
    want_table = award if by_table else 0
    want_attendant = jackpots + (0 if by_table else award)
    paid_table = now.paid_by_table - before.paid_by_table
    paid_attendant = now.paid_by_attendant - before.paid_by_attendant
    paid_all = now.cumulative_paid - before.cumulative_paid
    runner.measure(step, f"{label}paid-by-table meter records the progressive payouts the table paid "
                   "(no fixed line)", paid_table, want_table, paid_table == want_table, unit="cents",
                   detail=f"mystery {fmt(award)} paid by {'the table' if by_table else 'an attendant'}")
    runner.measure(step, f"{label}paid-by-attendant meter records the progressive payouts an attendant paid",
                   paid_attendant, want_attendant, paid_attendant == want_attendant, unit="cents",
                   detail=f"meter jackpots of the round {fmt(jackpots)}")
    runner.measure(step, f"{label}cumulative meter records the mystery award with every other payout",
                   paid_all, paid_table + paid_attendant, paid_all == paid_table + paid_attendant
                   and paid_all >= award, unit="cents")
