"""Suite actions for progressive meters, lock-out and no more bets (58 Pa. Code 461a.12, 629a Royal 9).

The core vocabulary (:mod:`harness.suites.steps.core`) reads and writes meters; these actions add what
the progressive clauses need beyond it:

- ``configure_denomination``: the denomination written against the floors of the one written;
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

Every check is a measurement (:meth:`CaseContext.measure`).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from harness.bench.acts import Removal, RemoveWager
from harness.devices.link import DeviceNak, NakError
from harness.devices.roles import MeterReading
from harness.money import Cents, fmt, parse_amount, parse_rate
from harness.progressive.floors import floors_for
from harness.regulations.catalogue import load_catalogue
from harness.suites.load import refs
from harness.suites.load.model import Step
from harness.suites.load.refs import Ref
from harness.suites.steps.accounts import mystery_paid
from harness.suites.steps.core import WAGER_TYPES
from harness.suites.steps.permitted import permitted_refusal, write_clause
from harness.suites.steps.registry import Action, Arg, choice, step

if TYPE_CHECKING:
    from harness.suites.run.context import CaseContext

MYSTERY_CLAUSE = "pa-midi-r9-mystery"
_METER_KINDS = ("royal9", "hit-and-run")





# ---------------------------------------------------------------------------- helpers


def regulation_mystery(number: int) -> tuple[Cents, Cents, Decimal]:
    """Royal 9 (h) configuration ``number`` as the regulation catalogue states it."""
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
def configure_meter(runner: CaseContext, step: Step, meter: str, expect: str, rate: Ref | Decimal | None = None,
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
    either = expect == "refused" and _limit_either(runner, meter, fields)
    try:
        runner.controller().set_config(meters={meter: fields})
        got, why = "accepted", ""
        if either:
            expect, reason = "accepted", None  # taken: as permitted (recorded in the measurement's label)
            shown += f"; {either}"
    except DeviceNak as exc:  # REFUSED (or BAD_ARGS for a value the device cannot take)
        got, why = "refused", f"{exc.code}: {exc.reason}"
        if expect == "accepted":
            permitted_refusal(runner, step, "meters", f"{got} ({why})",
                              f"what this case checks on a written {meter} meter does not apply")
    ok = got == expect and (reason is None or reason in why)
    runner.measure(step, f"{meter} configuration write ({shown})", got + (f" ({why})" if why else ""),
                 expect + (f" ({reason})" if reason else ""), ok,
                 clause=write_clause(runner, step, ok=ok, taken=got == "accepted", why=why))
    if got == "accepted" and "rate" in fields:  # play from now on is at the rate written
        written, declared = Decimal(fields["rate"]), refs.settings(runner.profile, meter)
        if declared is not None and written == declared.rate:
            runner.rates_written.pop(meter, None)
        else:
            runner.rates_written[meter] = written


def _limit_either(runner: CaseContext, meter: str, fields: Mapping[str, Any]) -> str:
    """Why a payout limit written alone may be taken or refused, or "": under interpretation
    meter-payout-limit-check "current-only" (461a.12(k)(1) holds the limit to the amount on the meter
    only), a limit above the meter and within the display, at or below the initial or reset amount."""
    if set(fields) != {"payout_limit"} or runner.interpretation("meter-payout-limit-check") != "current-only":
        return ""
    now = runner.controller().config().meters.get(meter)
    limit, shown = fields["payout_limit"], runner.read_meters().meters.get(meter)
    if now is None or shown is None or limit <= shown or limit > max(now.initial, now.reset):
        return ""
    if now.display_capacity is not None and limit > now.display_capacity:
        return ""
    return "meter-payout-limit-check current-only: at or below the initial or reset amount, above the meter"


def _below_floors(meters: Any, denomination: int) -> list[str]:
    """The Royal 9 meters of a configuration read back that are below ``denomination``'s floors."""
    short = []
    for name, floor in floors_for(denomination).items():
        m = meters.get(name)
        if m is None:
            short.append(f"no {name} meter")
        elif min(m.initial, m.reset) < floor:
            short.append(f"{name} {fmt(min(m.initial, m.reset))} < {fmt(floor)}")
    return short


@step("configure_denomination", Action(
    {"to": choice("other", "profile", default="other")},
    shorthand="to",
    doc="write the table's Royal 9 denomination, `other` ($1 on a $5 table, $5 on a $1 one) or `profile` "
    "(the filed one): the write must be refused exactly where the meters as configured are below that "
    "denomination's floors (629a Royal 9 (f)(2), (g)(2)), and the denomination read back is then the one "
    "in force (the written one, or the one before a refusal)",
))
def configure_denomination(runner: CaseContext, step: Step, to: str) -> None:
    filed = runner.profile.rules.denomination
    if filed not in (1, 5):
        raise AssertionError("configure_denomination needs a Royal 9 table of the $1 or $5 denomination")
    ctrl = runner.controller()
    before = ctrl.config()
    target = filed if to == "profile" else 1 if filed == 5 else 5
    short = _below_floors(before.meters, target)
    expect = "refused" if short else "accepted"
    try:
        ctrl.set_config(denomination=target * 100)
        got, why = "accepted", ""
    except DeviceNak as exc:
        got, why = "refused", f"{exc.code}: {exc.reason}"
        if expect == "accepted":
            permitted_refusal(runner, step, "denomination", f"{got} ({why})",
                              "the floor check on a written denomination does not apply")
    runner.measure(step, f"denomination write (${target})", got + (f" ({why})" if why else ""), expect,
                   got == expect, detail=f"below the ${target} floors: {', '.join(short)}" if short
                   else f"the meters as configured meet the ${target} floors",
                   clause=write_clause(runner, step, ok=got == expect, taken=got == "accepted", why=why))
    now = ctrl.config().denomination
    want = target * 100 if got == "accepted" else before.denomination
    runner.measure(step, "denomination read back", now, want, now == want, unit="cents")


# ---------------------------------------------------------------------------- meters


def _snapshot(runner: CaseContext, name: str) -> MeterReading:
    base = runner.snapshots.get(name)
    if base is None:
        raise AssertionError(f"no meter snapshot '{name}' (read_meters: {{as: {name}}} first)")
    return base


@step("expect_meters_unchanged", Action(
    {"since": Arg("str", required=True), "accounts": Arg("bool", default=True)},
    shorthand="since",
    doc="every meter, its residual and (with `accounts`) the payout meters and the payments pending equal a "
    "snapshot exactly",
))
def expect_meters_unchanged(runner: CaseContext, step: Step, since: str, accounts: bool) -> None:
    """461a.12(h), (n): nothing but a paid hit turns a meter back; a power cycle or a link loss
    leaves every meter, its fraction of a cent, the payout meters and the payments waiting for the reset
    key (non-volatile, docs/protocol.md section 8) exactly as they were: a payment paid does not come
    back, one waiting does not go."""
    base = _snapshot(runner, since)
    now = runner.read_meters()
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
        pa, pb = sorted(base.pending), sorted(now.pending)
        runner.measure(step, f"payments pending unchanged since {since}", ", ".join(pb) or "none",
                       ", ".join(pa) or "none", pa == pb, clause="pa-461a12-n-meter-kept-on-return")


@step("expect_paid", Action(
    {"since": Arg("str", required=True), "table": Arg("amount"), "attendant": Arg("amount"),
     "cumulative": Arg("amount"), "hits": choice("table", "attendant")},
    doc="payout meter increases since a snapshot (461a.12(b)(2)-(4)); `hits: attendant` expects the "
    "attendant-paid meter to rise by the sum of the meter jackpots seen in the case; a mystery award "
    "the rounds since the snapshot triggered (Royal 9 (h)) is added where the profile says it is paid; "
    "always also checks that the cumulative meter equals table paid + attendant paid",
))
def expect_paid(runner: CaseContext, step: Step, since: str, table: Cents | None = None,
                   attendant: Cents | None = None, cumulative: Cents | None = None,
                   hits: str | None = None) -> None:
    """461a.12(b)(2)-(4): table-paid, attendant-paid and cumulative payout meters."""
    base = _snapshot(runner, since)
    now = runner.read_meters()
    if hits is not None:
        won = sum(int(e.payload.get("amount", 0)) for e in runner.hits_seen
                  if e.name == "hit" and e.payload.get("meter") not in (None, "mystery"))
        if hits == "table":
            table = won
        else:
            attendant = won
    # the amounts the case states are its meter jackpots; a mystery award whose hidden trigger fell
    # in one of the rounds since the snapshot is paid too, by whoever the Rules Submission says
    by_table, by_attendant = mystery_paid(runner, runner.hits_seen[runner.snapshot_hits.get(since, 0):])
    mystery = {"paid by table": by_table, "paid by attendant": by_attendant,
               "cumulative paid": by_table + by_attendant}
    for label, stated, a, b in (("paid by table", table, base.paid_by_table, now.paid_by_table),
                                ("paid by attendant", attendant, base.paid_by_attendant, now.paid_by_attendant),
                                ("cumulative paid", cumulative, base.cumulative_paid, now.cumulative_paid)):
        if stated is not None:
            want = stated + mystery[label]
            runner.measure(step, f"{label} meter increase since {since}", b - a, want, b - a == want, unit="cents",
                           detail=f"with {fmt(mystery[label])} of mystery award(s) the rounds since {since} "
                                  "triggered" if mystery[label] else "")
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
def expect_meter_shows_hit(runner: CaseContext, step: Step, meter: str) -> None:
    """461a.12(b)(1): the hit pays what the meter showed; (h)(1): the meter goes back only after."""
    runner.pump(0.05)
    hits = [e for e in runner.hits_seen if e.name == "hit" and e.payload.get("meter") == meter]
    if not hits:
        runner.measure(step, f"{meter} hit", "no hit event", "a hit", False)
        return
    amount = int(hits[-1].payload["amount"])
    shown = runner.read_meters().meters.get(meter)
    runner.measure(step, f"{meter} meter shows the amount won until paid", shown, amount, shown == amount,
                 unit="cents", detail="the hit event's amount against the meter read after the hit")


# ---------------------------------------------------------------------------- wagers


@step("expect_removal", Action(
    {"seat": Arg("seat", required=True), "type": choice(*WAGER_TYPES, default="royal9"),
     "expect": choice("accepted", "refused", default="refused")},
    doc="attempt to withdraw a wager; the wagering system must accept or refuse it as stated",
    acts=("remove-wager",)
))
def expect_removal(runner: CaseContext, step: Step, seat: int, type: str, expect: str) -> None:
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
def expect_controller_identity(runner: CaseContext, step: Step, fields: tuple[str, ...]) -> None:
    """607a.2(b)(2)(vi): a progressive device names its controller type and progressive software."""
    ident = runner.controller().identity()
    for name in fields:
        value = getattr(ident, name, None)
        runner.measure(step, f"controller identity {name} (607a.2(b)(2)(vi))", value or "missing", "present",
                     bool(value))


# ---------------------------------------------------------------------------- mystery (Royal 9 (h))


def mystery_number(runner: CaseContext) -> int | None:
    got = runner.controller().config().mystery
    return None if not got or got.get("configuration") is None else int(got["configuration"])


def _configuration(runner: CaseContext, configuration: str) -> int | None:
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
def configure_mystery(runner: CaseContext, step: Step, configuration: str, restorable: bool) -> None:
    number = _configuration(runner, configuration)
    reading = runner.read_meters()
    shown = reading.meters.get("mystery")
    running = mystery_number(runner)
    declared = runner.profile.rules.mystery
    if restorable and number is not None and declared is not None \
            and regulation_mystery(number)[0] > regulation_mystery(int(declared.configuration))[0]:
        runner.state.mystery_written = False
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
        runner.controller().set_config(mystery=payload)
        got, why = "accepted", ""
    except NakError as exc:  # REFUSED only: a BUSY or internal error is no refusal by rule (the case ERRORs)
        got, why = "refused", f"{exc.code}: {exc.reason}"
        if expect == "accepted":
            permitted_refusal(runner, step, "mystery", f"{got} ({why})",
                              "what this case checks on a written mystery configuration does not apply")
    runner.state.mystery_written = got == "accepted"
    runner.state.mystery_last = number
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
def expect_mystery_config(runner: CaseContext, step: Step, configuration: str) -> None:
    number = _expected_number(runner, configuration)
    if number is None:
        got = runner.controller().config().mystery
        runner.measure(step, "no mystery configuration", got, None, not got)
        return
    configuration_n = number
    reseed, must_hit_by, rate = regulation_mystery(number)
    got = runner.controller().config().mystery
    have = None if not got else (int(got["reseed"]), int(got["must_hit_by"]), Decimal(str(got["rate"])))
    runner.measure(step, f"mystery configuration {configuration_n} (seed/reseed, must-hit-by, rate)",
                 None if have is None else f"{fmt(have[0])}, {fmt(have[1])}, {have[2]}%",
                 f"{fmt(reseed)}, {fmt(must_hit_by)}, {rate}%", have == (reseed, must_hit_by, rate))


def _expected_number(runner: CaseContext, configuration: str) -> int | None:
    if configuration == "written":
        written = runner.state.mystery_last
        return written if runner.state.mystery_written else _configuration(runner, "profile")
    return _configuration(runner, configuration)


@step("expect_mystery_meter", Action(
    {"configuration": Arg("str", required=True), "equals": choice("reseed"),
     "within_range": Arg("bool", default=True)},
    doc="the mystery meter equals the configuration's reseed, and/or lies within [reseed, must-hit-by]",
))
def expect_mystery_meter(runner: CaseContext, step: Step, configuration: str, within_range: bool,
                            equals: str | None = None) -> None:
    number = _expected_number(runner, configuration)
    if number is None:
        raise AssertionError("expect_mystery_meter: no mystery configuration is expected to run")
    reseed, must_hit_by, _rate = regulation_mystery(number)
    now = runner.read_meters()
    shown = now.meters.get("mystery")
    if equals == "reseed":
        runner.measure(step, f"mystery meter equals configuration {number} reseed", shown, reseed,
                     shown == reseed, unit="cents")
    if within_range:
        runner.measure(step, f"mystery meter within configuration {number} [reseed, must-hit-by]",
                     None if shown is None else fmt(shown), f"{fmt(reseed)}..{fmt(must_hit_by)}",
                     shown is not None and reseed <= shown <= must_hit_by)


__all__ = ["regulation_mystery"]
