"""Every progressive award on the payout meters, and the fraction of a cent across every reset.

The payout meters of 461a.12(b)(2)-(4) count progressive payouts (461a.1: an award that increases
with the amounts wagered): the meter jackpots, paid by an attendant, and the mystery award, paid by
whoever the Rules Submission says.  A suite that looks at them after one kind of award lets a
controller that leaves another kind off pass.  These checks are applied wherever an award is
paid: each reset key turned (``reset_key``) and every round of the bulk steps (``rounds``,
``single_deal_rounds``), so every award of the case is on the payout meters, not some.

A reset turns the meter back to its reset amount, not its fraction of a cent: the residual
belongs to wagers already made and is carried (``meter-residual-on-reset`` carry, the default),
or dropped at the reset where the Rules Submission says so (discard).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from harness.money import Cents, fmt
from harness.suites.run.oracle import meter_settings

if TYPE_CHECKING:
    from harness.devices.roles import MeterReading
    from harness.suites.run.context import CaseContext


def paid_by(runner: CaseContext, meter: str) -> str:
    """Who pays an award of ``meter``: the mystery award as the Rules Submission says, a meter
    jackpot an attendant (629a Royal 9 (f), (g); 633a.13(l)(1))."""
    if meter == "mystery":
        mystery = runner.profile.rules.mystery
        return "table" if mystery is None else str(mystery.paid_by)
    return "attendant"


def awards(runner: CaseContext, events: Iterable[Any]) -> tuple[Cents, Cents]:
    """The progressive awards among ``events`` (``hit`` events naming a meter): (table, attendant)."""
    table = attendant = 0
    for e in events:
        meter = e.payload.get("meter") if e.name == "hit" else None
        if not meter:
            continue
        amount = int(e.payload.get("amount") or 0)
        if paid_by(runner, str(meter)) == "table":
            table += amount
        else:
            attendant += amount
    return table, attendant


def mystery_paid(runner: CaseContext, events: Sequence[Any]) -> tuple[Cents, Cents]:
    """The mystery awards among ``events`` already paid: (table, attendant).  Its hidden trigger falls
    in whatever round the wagers carry the meter past it (Royal 9 (h)), so a case that scripts a
    meter jackpot may see one too: table-paid it is on the meters at the hit, attendant-paid once a
    later ``reset`` of the mystery meter says the attendant paid it."""
    table = attendant = 0
    for i, e in enumerate(events):
        if e.name != "hit" or str(e.payload.get("meter")) != "mystery":
            continue
        amount = int(e.payload.get("amount") or 0)
        if paid_by(runner, "mystery") == "table":
            table += amount
        elif any(r.name == "reset" and str(r.payload.get("meter")) == "mystery" for r in events[i + 1:]):
            attendant += amount
    return table, attendant


def account_problems(runner: CaseContext, start: MeterReading, now: MeterReading, events: Sequence[Any],
                     where: str) -> list[str]:
    """The payout meters moved by exactly the progressive awards among ``events``, every one of them
    paid between the two readings (461a.12(b)(2)-(4))."""
    table, attendant = awards(runner, events)
    got = (now.paid_by_table - start.paid_by_table, now.paid_by_attendant - start.paid_by_attendant,
           now.cumulative_paid - start.cumulative_paid)
    want = (table, attendant, table + attendant)
    if got == want:
        return []
    return [f"{where}: payout meters rose by table {fmt(got[0])}, attendant {fmt(got[1])}, cumulative "
            f"{fmt(got[2])}; the progressive awards paid: table {fmt(want[0])}, attendant {fmt(want[1])}, "
            f"cumulative {fmt(want[2])}"]


def carried(runner: CaseContext) -> bool:
    """``meter-residual-on-reset``: the fraction of a cent is carried across a reset."""
    return runner.interpretation("meter-residual-on-reset") != "discard"


def residual_problems(runner: CaseContext, start: MeterReading, now: MeterReading, stakes: Cents,
                      meters: Iterable[str], where: str) -> list[str]:
    """For meters that reset between the readings: the fraction of a cent is what the wagers since
    left, as if no reset had happened (carried); under ``discard`` nothing is checked, the fraction
    then depends on when the reset fell."""
    if not carried(runner):
        return []
    settings = meter_settings(runner.profile, runner.rates_written)
    out = []
    for name in meters:
        m = settings.get(name)
        if m is None or name not in now.residual:
            continue
        exact = start.residual.get(name, Decimal(0)) + Decimal(stakes) * m.rate / 100
        want = exact - int(exact)
        got = now.residual.get(name, Decimal(0))
        if got != want:
            out.append(f"{where}: {name} carries {got} c after its reset, the wagers left {want} c")
    return out


def owed(runner: CaseContext, meter: str, upto: int) -> Cents:
    """What the hits of ``meter`` since its last reset owe, among the first ``upto`` hit and reset
    events of the case (what the attendant pays at the key)."""
    total = 0
    for e in runner.hits_seen[:upto]:
        if str(e.payload.get("meter")) != meter:
            continue
        if e.name == "reset":
            total = 0
        elif e.name == "hit":
            total += int(e.payload.get("amount") or 0)
    return total


def measure_keys(runner: CaseContext, step: Any, before: MeterReading, keys: Sequence[str], mark: int) -> None:
    """After the reset keys of ``keys`` were turned: the payout meters rose by exactly what those
    hits owed (461a.12(b)(3), (b)(4)), and each meter kept its fraction of a cent (carry) or dropped
    it (discard) across the reset."""
    runner.pump(0.01)
    now = runner.read_meters()
    table = attendant = 0
    for name in keys:
        amount = owed(runner, name, mark)
        if paid_by(runner, name) == "table":
            table += amount
        else:
            attendant += amount
    got = (now.paid_by_table - before.paid_by_table, now.paid_by_attendant - before.paid_by_attendant,
           now.cumulative_paid - before.cumulative_paid)
    want = (table, attendant, table + attendant)

    def show(v: tuple[Cents, Cents, Cents]) -> str:
        return f"table +{fmt(v[0])}, attendant +{fmt(v[1])}, cumulative +{fmt(v[2])}"

    runner.measure(step, f"payout meters record the awards paid at the reset key ({', '.join(keys)})", show(got),
                   show(want), got == want, detail="each hit's amount as the controller announced it")
    keep = carried(runner)
    for name in keys:
        was, shown = before.residual.get(name, Decimal(0)), now.residual.get(name, Decimal(0))
        want_res = was if keep else Decimal(0)
        runner.measure(step, f"{name} fraction of a cent {'carried' if keep else 'dropped'} across the reset",
                       f"{shown} cents", f"{want_res} cents", shown == want_res,
                       detail=f"meter-residual-on-reset {'carry' if keep else 'discard'}; {was} c before the key")
