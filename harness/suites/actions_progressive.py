"""Suite actions for progressive meters, lock-out and no more bets (58 Pa. Code 461a.12, 629a Royal 9).

The core vocabulary (:mod:`harness.suites.steps`) reads and writes meters; these actions add what
the progressive clauses need beyond it:

- ``configure_meter``: one meter's Rules Submission values written with money as the author wrote
  it (``"$49,999.99"``), so floor (Royal 9 (f)(2), (g)(2)), payout limit (461a.12(k)(1)) and display
  capacity (461a.12(j)) cases read like the regulation;
- ``expect_meters_unchanged``: two readings equal to the cent, residuals and payout meters
  included (461a.12(h) no turning back, 461a.12(n) meters kept over a power cycle);
- ``expect_paid``: the payout meters of 461a.12(b)(2)-(4) by delta, and cumulative = table paid +
  attendant paid;
- ``expect_removal``: a wager withdrawal attempt accepted or refused (627a.7(c), 629a.7(c), 631a.8(c));
- ``expect_mystery_config`` / ``expect_mystery_meter`` / ``mystery_play``: the mystery progressive
  of Royal 9 (h), checked against the configuration table of the regulation catalogue (the text),
  not against the device's own read-back.

Every check is a measurement (:meth:`CaseRunner.measure`).
"""

from __future__ import annotations

import random
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from harness.bench.acts import Removal, RemoveWager
from harness.devices.link import DeviceNak
from harness.devices.roles import MeterReading
from harness.money import Cents, fmt, parse_amount, parse_rate
from harness.suites import refs
from harness.suites.model import Step
from harness.suites.refs import Ref
from harness.suites.registry import Action, Arg, choice, step
from harness.suites.steps import WAGER_TYPES, hits_to_pay, measure_payments, open_round

if TYPE_CHECKING:
    from harness.suites.runner import CaseRunner

MYSTERY_CLAUSE = "pa-midi-r9-mystery"
_METER_KINDS = ("royal9", "hit-and-run")





# ---------------------------------------------------------------------------- helpers


def regulation_mystery(number: int) -> tuple[Cents, Cents, Decimal]:
    """Royal 9 (h) configuration ``number`` as the regulation catalogue states it."""
    from harness.regulations.catalogue import load_catalogue

    table = load_catalogue().clause(MYSTERY_CLAUSE).params["configurations"]
    row = table.get(number, table.get(str(number)))
    if row is None:
        raise AssertionError(f"Royal 9 (h) has no mystery configuration {number}")
    return parse_amount(row["reseed"]), parse_amount(row["must_hit_by"]), parse_rate(row["rate"])


def _mystery_cents(value: Any) -> Decimal:
    return Decimal(str(value))


# ---------------------------------------------------------------------------- configuration


@step("configure_meter", Action(
    {
        "meter": choice("mega", "major", "minor", "hit-and-run", required=True),
        "rate": Arg("rate-ref"),
        "initial": Arg("amount-ref"),
        "reset": Arg("amount-ref"),
        "payout_limit": Arg("amount-ref"),
        "display_capacity": Arg("amount-ref"),
        "expect": choice("accepted", "refused", default="accepted"),
        "reason": Arg("str"),
    },
    doc="write one meter's rate / initial / reset / payout limit / display capacity: an amount the "
    "regulation fixes ('$49,999.99'), or a reference resolved when the step runs ('profile', 'meter', "
    "'display_capacity + $0.01', 'profile + 0.25%'); the write must be accepted or refused as stated",
))
def configure_meter(runner: CaseRunner, step: Step, meter: str, expect: str, rate: Ref | Decimal | None = None,
                       initial: Ref | Cents | None = None, reset: Ref | Cents | None = None,
                       payout_limit: Ref | Cents | None = None, display_capacity: Ref | Cents | None = None,
                       reason: str | None = None) -> None:
    fields: dict[str, Any] = {}
    if rate is not None:
        fields["rate"] = str(refs.rate(runner, meter, rate))
    for key, value in (("initial", initial), ("reset", reset), ("payout_limit", payout_limit),
                       ("display_capacity", display_capacity)):
        if value is not None:
            fields[key] = refs.amount(runner, meter, value, key)
    shown = ", ".join(f"{k} {v if k == 'rate' else fmt(v)}" for k, v in fields.items())
    try:
        runner._ctrl().set_config(meters={meter: fields})
        got, why = "accepted", ""
    except DeviceNak as exc:  # REFUSED (or BAD_ARGS for a value the device cannot take)
        got, why = "refused", f"{exc.code}: {exc.reason}"
    ok = got == expect and (reason is None or reason in why)
    runner.measure(step, f"{meter} configuration write ({shown})", got + (f" ({why})" if why else ""),
                 expect + (f" ({reason})" if reason else ""), ok)


# ---------------------------------------------------------------------------- meters


def _snapshot(runner: CaseRunner, name: str) -> MeterReading:
    base = runner.snapshots.get(name)
    if base is None:
        raise AssertionError(f"no meter snapshot '{name}' (read_meters: {{as: {name}}} first)")
    return base


@step("expect_meters_unchanged", Action(
    {"since": Arg("str", required=True), "accounts": Arg("bool", default=True)},
    shorthand="since",
    doc="every meter, its residual and (with `accounts`) the payout meters equal a snapshot exactly",
))
def expect_meters_unchanged(runner: CaseRunner, step: Step, since: str, accounts: bool) -> None:
    """461a.12(h), (n): nothing but a paid hit turns a meter back; a power cycle or a link loss
    leaves every meter, its fraction of a cent and the payout meters exactly as they were."""
    base = _snapshot(runner, since)
    now = runner._read_meters()
    for meter in sorted(set(base.meters) | set(now.meters)):
        a, b = base.meters.get(meter), now.meters.get(meter)
        runner.measure(step, f"{meter} meter unchanged since {since}", b, a, a == b, unit="cents")
        ra, rb = base.residual.get(meter, Decimal(0)), now.residual.get(meter, Decimal(0))
        runner.measure(step, f"{meter} residual unchanged since {since}", f"{rb} cents", f"{ra} cents", ra == rb)
    if accounts:
        for label, a, b in (("cumulative paid", base.cumulative_paid, now.cumulative_paid),
                            ("paid by table", base.paid_by_table, now.paid_by_table),
                            ("paid by attendant", base.paid_by_attendant, now.paid_by_attendant)):
            runner.measure(step, f"{label} meter unchanged since {since}", b, a, a == b, unit="cents")


@step("expect_paid", Action(
    {"since": Arg("str", required=True), "table": Arg("amount"), "attendant": Arg("amount"),
     "cumulative": Arg("amount"), "hits": choice("table", "attendant")},
    doc="payout meter increases since a snapshot (461a.12(b)(2)-(4)); `hits: attendant` expects the "
    "attendant-paid meter to rise by the sum of the meter hits seen in the case; "
    "always also checks that the cumulative meter equals table paid + attendant paid",
))
def expect_paid(runner: CaseRunner, step: Step, since: str, table: Cents | None = None,
                   attendant: Cents | None = None, cumulative: Cents | None = None,
                   hits: str | None = None) -> None:
    """461a.12(b)(2)-(4): table-paid, attendant-paid and cumulative payout meters."""
    base = _snapshot(runner, since)
    now = runner._read_meters()
    if hits is not None:
        won = sum(int(e.payload.get("amount", 0)) for e in runner.hits_seen
                  if e.name == "hit" and e.payload.get("meter") is not None)
        if hits == "table":
            table = won
        else:
            attendant = won
    for label, want, a, b in (("paid by table", table, base.paid_by_table, now.paid_by_table),
                              ("paid by attendant", attendant, base.paid_by_attendant, now.paid_by_attendant),
                              ("cumulative paid", cumulative, base.cumulative_paid, now.cumulative_paid)):
        if want is not None:
            runner.measure(step, f"{label} meter increase since {since}", b - a, want, b - a == want, unit="cents")
    total = now.paid_by_table + now.paid_by_attendant
    runner.measure(step, "cumulative paid = paid by table + paid by attendant", now.cumulative_paid, total,
                 now.cumulative_paid == total, unit="cents",
                 detail=f"table {fmt(now.paid_by_table)}, attendant {fmt(now.paid_by_attendant)}")


@step("expect_meter_shows_hit", Action(
    {"meter": choice("mega", "major", "minor", "hit-and-run", required=True)},
    shorthand="meter",
    doc="a meter hit is for exactly the amount the meter shows, and the meter keeps showing it "
    "until the award is paid and the reset key is turned (461a.12(b)(1), (h)(1))",
))
def expect_meter_shows_hit(runner: CaseRunner, step: Step, meter: str) -> None:
    """461a.12(b)(1): the hit pays what the meter showed; (h)(1): the meter goes back only after."""
    runner._pump(0.05)
    hits = [e for e in runner.hits_seen if e.name == "hit" and e.payload.get("meter") == meter]
    if not hits:
        runner.measure(step, f"{meter} hit", "no hit event", "a hit", False)
        return
    amount = int(hits[-1].payload["amount"])
    shown = runner._read_meters().meters.get(meter)
    runner.measure(step, f"{meter} meter shows the amount won until paid", shown, amount, shown == amount,
                 unit="cents", detail="the hit event's amount against the meter read after the hit")


# ---------------------------------------------------------------------------- wagers


@step("expect_removal", Action(
    {"seat": Arg("seat", required=True), "type": choice(*WAGER_TYPES, default="royal9"),
     "expect": choice("accepted", "refused", default="refused")},
    doc="attempt to withdraw a wager; the wagering system must accept or refuse it as stated",
    acts=("remove-wager",)
))
def expect_removal(runner: CaseRunner, step: Step, seat: int, type: str, expect: str) -> None:
    """627a.7(c), 629a.7(c), 631a.8(c): no wager is withdrawn after "no more bets"."""
    if runner.rig.sensors is None:
        raise AssertionError("this case needs bet sensors")
    try:
        removal: Removal = runner.perform(RemoveWager(seat, type))
        got, why = ("accepted", "") if removal.removed else ("refused", removal.reason)
    except DeviceNak as exc:
        got, why = "refused", exc.reason
    if got == "accepted":
        runner.round.wagers.pop((seat, type), None)
    listed = {(w.seat, w.type) for w in runner.rig.sensors.wagers()}
    still = (seat, type) in listed
    runner.measure(step, f"seat {seat} {type} withdrawal", got + (f" ({why})" if why else ""), expect,
                 got == expect and still == (expect == "refused"),
                 detail=f"wager {'still' if still else 'no longer'} on the layout")


# ---------------------------------------------------------------------------- identity


@step("expect_controller_identity", Action(
    {"fields": Arg("str-list", required=True)},
    shorthand="fields",
    doc="the progressive controller reports each named 607a.2(b)(2)(vi) field, non-empty (the shoe "
    "and sensors are not progressive devices and are not asked)",
))
def expect_controller_identity(runner: CaseRunner, step: Step, fields: tuple[str, ...]) -> None:
    """607a.2(b)(2)(vi): a progressive device names its controller type and progressive software."""
    ident = runner._ctrl().identity()
    for name in fields:
        value = getattr(ident, name, None)
        runner.measure(step, f"controller identity {name} (607a.2(b)(2)(vi))", value or "missing", "present",
                     bool(value))


# ---------------------------------------------------------------------------- mystery (Royal 9 (h))


def _mystery_number(runner: CaseRunner) -> int | None:
    got = runner._ctrl().config().mystery
    return None if not got or got.get("configuration") is None else int(got["configuration"])


def _configuration(runner: CaseRunner, configuration: str) -> int | None:
    """``"2"`` -> 2; ``profile``: the Rules Submission's configuration; ``none``: no mystery."""
    if configuration == "profile":
        declared = runner.profile.rules.mystery
        return None if declared is None else int(declared.configuration)
    if configuration == "none":
        return None
    return int(configuration)


@step("configure_mystery", Action(
    {"configuration": Arg("str", required=True), "restorable": Arg("bool", default=False)},
    shorthand="configuration",
    doc="write mystery configuration 1, 2 or 3 of Royal 9 (h) (or `profile`: back to the profile's "
    "Rules Submission, `none`: no mystery progressive).  The expected answer follows from the "
    "regulation: refused where the meter now shows more than the new reseed amount, which would "
    "turn it back, or where removing the mystery progressive would discard a meter funded by play "
    "(461a.12(h)); accepted otherwise.  With `restorable`, a configuration from which the profile's "
    "could not be written back without turning the meter back is not written (the measurement says so)",
))
def configure_mystery(runner: CaseRunner, step: Step, configuration: str, restorable: bool) -> None:
    number = _configuration(runner, configuration)
    reading = runner._read_meters()
    shown = reading.meters.get("mystery")
    running = _mystery_number(runner)
    declared = runner.profile.rules.mystery
    if restorable and number is not None and declared is not None \
            and regulation_mystery(number)[0] > regulation_mystery(int(declared.configuration))[0]:
        runner.__dict__["mystery_written"] = False
        runner.measure(step, f"mystery configuration {number} write", "not written",
                       "not written: the profile's configuration could not be written back after it", True)
        return
    expect = "accepted"
    funded = shown is not None and (running is None or shown > regulation_mystery(running)[0]
                                    or reading.residual.get("mystery", Decimal(0)) > 0)
    if number is not None and number != running and shown is not None \
            and shown > regulation_mystery(number)[0]:
        expect = "refused"
    if number is None and running is not None and funded:
        expect = "refused"
    payload: Any = None
    if number is not None:
        payload = {"configuration": number}
        declared = runner.profile.rules.mystery
        if declared is not None:
            payload.update({"distribution": declared.distribution, "paid_by": declared.paid_by})
    try:
        runner._ctrl().set_config(mystery=payload)
        got, why = "accepted", ""
    except DeviceNak as exc:
        got, why = "refused", f"{exc.code}: {exc.reason}"
    runner.__dict__["mystery_written"] = got == "accepted"
    runner.__dict__["mystery_last"] = number
    runner.measure(step, f"mystery configuration {number} write", got + (f" ({why})" if why else ""), expect,
                 got == expect, detail="meter now " + (fmt(shown) if shown is not None else "absent"))


@step("expect_mystery_config", Action(
    {"configuration": Arg("str", required=True)},
    shorthand="configuration",
    doc="the controller's mystery configuration equals configuration N of Royal 9 (h) as the "
    "regulation catalogue states it (seed/reseed, must-hit-by, rate); `profile`: the one in the "
    "Rules Submission; `written`: the one the case's last `configure_mystery` wrote if the controller "
    "accepted it, else the profile's",
))
def expect_mystery_config(runner: CaseRunner, step: Step, configuration: str) -> None:
    number = _expected_number(runner, configuration)
    if number is None:
        got = runner._ctrl().config().mystery
        runner.measure(step, "no mystery configuration", got, None, not got)
        return
    configuration_n = number
    reseed, must_hit_by, rate = regulation_mystery(number)
    got = runner._ctrl().config().mystery
    have = None if not got else (int(got["reseed"]), int(got["must_hit_by"]), Decimal(str(got["rate"])))
    runner.measure(step, f"mystery configuration {configuration_n} (seed/reseed, must-hit-by, rate)",
                 None if have is None else f"{fmt(have[0])}, {fmt(have[1])}, {have[2]}%",
                 f"{fmt(reseed)}, {fmt(must_hit_by)}, {rate}%", have == (reseed, must_hit_by, rate))


def _expected_number(runner: CaseRunner, configuration: str) -> int | None:
    if configuration == "written":
        written = runner.__dict__.get("mystery_last")
        return written if runner.__dict__.get("mystery_written") else _configuration(runner, "profile")
    return _configuration(runner, configuration)


@step("expect_mystery_meter", Action(
    {"configuration": Arg("str", required=True), "equals": choice("reseed"),
     "within_range": Arg("bool", default=True)},
    doc="the mystery meter equals the configuration's reseed, and/or lies within [reseed, must-hit-by]",
))
def expect_mystery_meter(runner: CaseRunner, step: Step, configuration: str, within_range: bool,
                            equals: str | None = None) -> None:
    number = _expected_number(runner, configuration)
    if number is None:
        raise AssertionError("expect_mystery_meter: no mystery configuration is expected to run")
    reseed, must_hit_by, _rate = regulation_mystery(number)
    now = runner._read_meters()
    shown = now.meters.get("mystery")
    if equals == "reseed":
        runner.measure(step, f"mystery meter equals configuration {number} reseed", shown, reseed,
                     shown == reseed, unit="cents")
    if within_range:
        runner.measure(step, f"mystery meter within configuration {number} [reseed, must-hit-by]",
                     None if shown is None else fmt(shown), f"{fmt(reseed)}..{fmt(must_hit_by)}",
                     shown is not None and reseed <= shown <= must_hit_by)


def _round_cards(runner: CaseRunner, rng: random.Random) -> list[Any]:
    """A random round's cards, exactly as many as the tableau uses: a card left in the shoe would
    come out after the settlement and, once the next round is open, lock it out."""
    from harness.games.baccarat import deal_round

    cards = runner.random_round_cards(rng)
    return list(cards[: deal_round(cards).cards_used])


@step("mystery_play", Action(
    {"configuration": Arg("int"), "max_rounds": Arg("int", default=1000, lo=1, why="0 rounds play nothing"),
     "seats": Arg("seats", default="all"), "seed": Arg("int", default=1),
     "pace_ms": Arg("decimal", default=Decimal(0)), "if_written": Arg("bool", default=False)},
    doc="play random rounds (every listed seat with a Player and a Royal 9 wager) until the mystery "
    "meter awards; checks range, rate, award <= must-hit-by, reseed and the payout meters; with "
    "`if_written`, only when the case's last `configure_mystery` was accepted (a refused write leaves "
    "the profile's configuration, played by its own case)",
    acts=("open-round", "wager", "load", "deal", "reset-key")
))
def mystery_play(runner: CaseRunner, step: Step, max_rounds: int, seats: Any, seed: int, pace_ms: Decimal,
                    if_written: bool, configuration: int | None = None) -> None:
    """Royal 9 (h): random rounds until the hidden trigger awards the mystery meter.

    Every reading lies in [reseed, must-hit-by]; a round without an award grows the meter by exactly
    wagers x rate (growth + residual); the award is at most must-hit-by and at least reseed, the
    meter reseeds (award + new amount - reseed = old amount + the round's contribution, so no cent
    is lost), and the table-paid and cumulative payout meters record the award."""
    running = _mystery_number(runner)
    if if_written and not runner.__dict__.get("mystery_written", False):
        runner.measure(step, "mystery play", "not played: the configuration write was refused",
                     "played only for an accepted configuration write", True)
        return
    if configuration is None:
        if running is None:
            raise AssertionError("mystery_play: the controller runs no numbered mystery configuration")
        configuration = running
    runner.measure(step, "mystery configuration in play", running, configuration, running == configuration)
    reseed, must_hit_by, rate = regulation_mystery(configuration)
    seat_list = runner._seats(seats)
    rng = random.Random(seed)
    pace_us = int(pace_ms * 1000)
    stake = runner.stake_default
    problems: list[str] = []
    paying: list[str] = []
    outside: list[str] = []
    award: Cents | None = None
    rounds = 0
    before = runner._read_meters()
    start = before
    for n in range(1, max_rounds + 1):
        rounds = n
        open_round(runner, step)
        before = runner.snapshots["round-start"]
        for seat in seat_list:
            for kind in ("player", "royal9"):
                res = runner._place(seat, kind, stake)
                if not res.accepted:
                    problems.append(f"round {n}: seat {seat} {kind} wager refused ({res.reason})")
        runner.deal_random_round(lambda: _round_cards(runner, rng), pace_us, seed + n)
        hits = [e for e in runner.round.ctrl_events if e.name == "hit"]
        pay_problems, _keys = hits_to_pay(runner)
        paying += [f"round {n}: {p}" for p in pay_problems]
        now = runner._read_meters()
        shown = now.meters.get("mystery")
        if shown is None:
            problems.append(f"round {n}: no mystery meter")
            break
        if not reseed <= shown <= must_hit_by:
            outside.append(f"round {n}: {fmt(shown)}")
        stakes = sum(a for (_s, k), a in runner.round.wagers.items() if k in _METER_KINDS)
        contribution = Decimal(stakes) * rate / 100
        growth = (Decimal(shown - before.meters["mystery"]) + now.residual.get("mystery", Decimal(0))
                  - before.residual.get("mystery", Decimal(0)))
        mystery_hits = [e for e in hits if e.payload.get("meter") == "mystery"]
        if mystery_hits:
            award = sum(int(e.payload["amount"]) for e in mystery_hits)
            runner.measure(step, "mystery award at most must-hit-by", award, f"<= {fmt(must_hit_by)}",
                         all(int(e.payload["amount"]) <= must_hit_by for e in mystery_hits), unit="cents",
                         detail=f"round {n}; meter before the round {fmt(before.meters['mystery'])}")
            runner.measure(step, "mystery award at least the reseed amount", award, f">= {fmt(reseed)}",
                         award >= reseed, unit="cents")
            carried = shown - reseed
            runner.measure(step, "mystery meter reseeded (new amount - reseed <= the round's contribution)",
                         fmt(shown), f"{fmt(reseed)} + at most {contribution} cents",
                         0 <= carried <= contribution, unit="")
            res_change = now.residual.get("mystery", Decimal(0)) - before.residual.get("mystery", Decimal(0))
            lhs = Decimal(before.meters["mystery"]) + contribution - res_change
            rhs = Decimal(award + shown - reseed)
            # meter-residual-on-reset "discard": the fraction of a cent carried at the reseed is dropped
            discard = runner.interpretation("meter-residual-on-reset") == "discard"
            runner.measure(step, "mystery contributions conserved over the award",
                         f"award + (meter - reseed) = {rhs} cents",
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
            runner.measure(step, "paid-by-table meter records the progressive payouts the table paid (no fixed line)",
                         paid_table, want_table, paid_table == want_table, unit="cents",
                         detail=f"mystery {fmt(award)} paid by {'the table' if by_table else 'an attendant'}")
            runner.measure(step, "paid-by-attendant meter records the progressive payouts an attendant paid",
                         paid_attendant, want_attendant, paid_attendant == want_attendant, unit="cents",
                         detail=f"meter jackpots of the round {fmt(jackpots)}")
            runner.measure(step, "cumulative meter records the mystery award with every other payout",
                         paid_all, paid_table + paid_attendant, paid_all == paid_table + paid_attendant
                         and paid_all >= award, unit="cents")
            break
        if growth != contribution:
            problems.append(f"round {n}: mystery grew {growth} cents (growth + residual), wagers x rate "
                            f"{contribution}")
    runner.measure(step, f"mystery awarded before passing must-hit-by {fmt(must_hit_by)}",
                 "awarded" if award is not None else f"no award in {rounds} rounds", "awarded",
                 award is not None, detail=f"{rounds} rounds from {fmt(start.meters.get('mystery', 0))}")
    runner.measure(step, "mystery meter within [reseed, must-hit-by] at every reading", "; ".join(outside) or "all",
                 "all", not outside, detail=f"{rounds} readings in {fmt(reseed)}..{fmt(must_hit_by)}")
    runner.measure(step, f"mystery grew by wagers x {rate}% each round without an award",
                 "; ".join(problems) or "every round", "every round", not problems)
    measure_payments(runner, step, paying, rounds)


__all__ = ["regulation_mystery"]
