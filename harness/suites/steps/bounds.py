"""Every writable amount of every meter at its bound: ``expect_meter_bounds``.

The limits of a meter's configuration are the regulation's: initial and reset amounts at least the
floor (629a Royal 9 (f)(2), (g)(2)), a payout limit greater than the amount then on the meter and
the initial and reset amounts (461a.12(k)(1), interpretation meter-payout-limit-check) and not
past the display capacity, which may not be below it (461a.12(j)).  A suite that writes some meters
and some fields, one at a time and never at the bound itself, passes a controller whose check is
one cent lenient on one meter, or that checks one field only when another is written with it.

So for every meter and every writable field, alone and in a write of the whole meter, the step
writes the bound itself and one cent either side: a value the regulation forbids must be refused
and leave the configuration as filed; the bound and a value inside it must be accepted and read
back as written, after which the Rules Submission's values are written back.  A value inside the
bound that a compliant controller may still refuse for a reason of its own is not asked for (a
reset amount above what the meter shows; a display capacity above the one filed).  At the end the
configuration is the profile's again and no meter moved (461a.12(h)).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.devices.link import DeviceNak
from harness.money import Cents, fmt
from harness.suites.load import refs
from harness.suites.load.model import Step
from harness.suites.steps.permitted import permitted_refusal
from harness.suites.steps.probes import trace
from harness.suites.steps.registry import Action, Arg, step

if TYPE_CHECKING:
    from harness.profiles.model import MeterSettings
    from harness.suites.run.context import CaseContext

FIELDS = ("initial", "reset", "payout_limit", "display_capacity")
_FLOORED = ("mega", "major", "minor")


@dataclass(frozen=True)
class Probe:
    label: str
    write: dict[str, Cents]
    expect: str


def _floor_probes(runner: CaseContext, meter: str, m: MeterSettings, shown: Cents, fields: tuple[str, ...],
                  full: dict[str, Cents]) -> list[Probe]:
    floor = refs.floor(runner.profile, meter)
    out: list[Probe] = []
    for f in ("initial", "reset"):
        if f not in fields:
            continue
        out += [Probe(f"{f} = floor - $0.01", {f: floor - 1}, "refused"),
                Probe(f"{f} = floor", {f: floor}, "accepted")]
        if f == "initial" or floor + 1 <= shown:
            out.append(Probe(f"{f} = floor + $0.01", {f: floor + 1}, "accepted"))
        out.append(Probe(f"the whole meter with {f} = floor - $0.01", {**full, f: floor - 1}, "refused"))
    if "initial" in fields and "reset" in fields:
        out += [Probe("initial and reset = floor - $0.01", {"initial": floor - 1, "reset": floor - 1}, "refused"),
                Probe("initial and reset = floor", {"initial": floor, "reset": floor}, "accepted")]
    return out


def _limit_probes(m: MeterSettings, shown: Cents, fields: tuple[str, ...], full: dict[str, Cents],
                  check: str = "set-and-reset") -> list[Probe]:
    """``check``: interpretation meter-payout-limit-check.  Under "current-only" a limit at or below the
    initial or reset amount but above the meter may be taken or refused: it is not asked for."""
    out: list[Probe] = []
    limit, capacity = m.payout_limit, m.display_capacity
    settings = max(m.initial, m.reset)
    low = shown if check == "current-only" else max(shown, settings)
    what = "meter" if low == shown else "initial" if low == m.initial else "reset"
    if "payout_limit" in fields and limit is not None:
        out += [Probe(f"payout_limit = {what} - $0.01", {"payout_limit": low - 1}, "refused"),
                Probe(f"payout_limit = {what}", {"payout_limit": low}, "refused")]
        if low + 1 > settings or check != "current-only":
            out.append(Probe(f"payout_limit = {what} + $0.01", {"payout_limit": low + 1}, "accepted"))
        out.append(Probe(f"the whole meter with payout_limit = {what}", {**full, "payout_limit": low}, "refused"))
        if capacity is not None:
            if capacity - 1 > low:
                out.append(Probe("payout_limit = display_capacity - $0.01", {"payout_limit": capacity - 1},
                                 "accepted"))
            out += [Probe("payout_limit = display_capacity", {"payout_limit": capacity}, "accepted"),
                    Probe("payout_limit = display_capacity + $0.01", {"payout_limit": capacity + 1}, "refused"),
                    Probe("the whole meter with payout_limit = display_capacity + $0.01",
                          {**full, "payout_limit": capacity + 1}, "refused")]
    if "display_capacity" in fields and capacity is not None and limit is not None:
        out += [Probe("display_capacity = payout_limit - $0.01", {"display_capacity": limit - 1}, "refused"),
                Probe("display_capacity = payout_limit", {"display_capacity": limit}, "accepted"),
                Probe("the whole meter with display_capacity = payout_limit - $0.01",
                      {**full, "display_capacity": limit - 1}, "refused")]
        if limit + 1 <= capacity:
            out.append(Probe("display_capacity = payout_limit + $0.01", {"display_capacity": limit + 1},
                             "accepted"))
        if "payout_limit" in fields:
            out += [Probe("payout_limit = display_capacity + $0.01, display_capacity as filed",
                          {"payout_limit": capacity + 1, "display_capacity": capacity}, "refused"),
                    Probe("display_capacity = payout_limit - $0.01, payout_limit as filed",
                          {"payout_limit": limit, "display_capacity": limit - 1}, "refused"),
                    Probe("payout_limit and display_capacity = display_capacity",
                          {"payout_limit": capacity, "display_capacity": capacity}, "accepted")]
    return out


def _read(runner: CaseContext, meter: str) -> dict[str, Any]:
    got = runner.controller().config().meters.get(meter)
    return {f: getattr(got, f, None) for f in FIELDS}


def _write(runner: CaseContext, meter: str, fields: dict[str, Cents]) -> tuple[str, str]:
    try:
        runner.controller().set_config(meters={meter: fields})
        return "accepted", ""
    except DeviceNak as exc:
        return "refused", f"{exc.code}: {exc.reason}"


@step("expect_meter_bounds", Action(
    {"meters": Arg("meters"), "fields": Arg("str-list")},
    doc="every listed meter (default: every meter of the Rules Submission) and every listed writable "
    "field (initial, reset, payout_limit, display_capacity; default all), alone and in a write of the whole "
    "meter, at the regulation's bound and one cent either side: the floor, the amount on the meter (and the "
    "initial and reset amounts) for the payout limit, the display capacity and the payout limit for each "
    "other; a forbidden value is refused and leaves the configuration as filed, the bound and a value "
    "inside it are accepted and read back, then the filed values are written back; at the end no meter moved",
))
def expect_meter_bounds(runner: CaseContext, step: Step, meters: tuple[str, ...] | None = None,
                        fields: tuple[str, ...] | None = None) -> None:
    chosen = tuple(fields) if fields else FIELDS
    unknown = [f for f in chosen if f not in FIELDS]
    if unknown:
        raise AssertionError(f"expect_meter_bounds: unknown fields {', '.join(unknown)} (fields: {', '.join(FIELDS)})")
    rules = runner.profile.rules
    declared = list(rules.meters) + (["hit-and-run"] if rules.hit_and_run is not None else [])
    names = declared if meters in (None, ("all",)) else [n for n in (meters or ()) if n != "mystery"]
    start = runner.read_meters()
    writes = 0
    for meter in names:
        m = refs.settings(runner.profile, meter)
        if m is None:
            raise AssertionError(f"expect_meter_bounds: the Rules Submission declares no {meter} meter")
        filed = {f: getattr(m, f) for f in FIELDS}
        full = {f: v for f, v in filed.items() if v is not None}
        shown = start.meters.get(meter, m.reset)
        as_filed = ", ".join(f"{f} {fmt(v)}" for f, v in full.items())
        probes = _limit_probes(m, shown, chosen, full, str(runner.interpretation("meter-payout-limit-check")))
        if meter in _FLOORED and rules.denomination is not None:
            probes = _floor_probes(runner, meter, m, shown, chosen, full) + probes
        for probe in probes:
            writes += 1
            got, why = _write(runner, meter, probe.write)
            now = _read(runner, meter)
            problems = []
            if got == "refused" and probe.expect == "accepted" and now == filed:
                permitted_refusal(runner, step, "meters", f"{got} ({why}) for {meter} {probe.label}",
                                  "the bounds this case checks on a written meter do not apply")
            if got == "refused":
                if now != filed:
                    problems.append(f"refused, but the configuration reads {now}")
            else:
                wrong = {f: now.get(f) for f, v in probe.write.items() if now.get(f) != v}
                if wrong:
                    problems.append(f"reads back {wrong}")
                writes += 1
                back, back_why = _write(runner, meter, full)
                if back != "accepted" or _read(runner, meter) != filed:
                    problems.append(f"the filed values could not be written back ({back_why or 'read back wrong'})")
            shown_write = ", ".join(f"{f} {fmt(v)}" for f, v in probe.write.items())
            runner.measure(step, f"{meter} {probe.label} ({shown_write})",
                           got + (f" ({why})" if why else "") + ("; " + "; ".join(problems) if problems else ""),
                           probe.expect, got == probe.expect and not problems,
                           detail=f"{meter} meter shows {fmt(shown)}; filed {as_filed}")
    moved = trace(start, runner.read_meters())
    runner.measure(step, f"meters, fractions of a cent and payout meters unmoved by {writes} configuration writes",
                   "; ".join(moved) or "unchanged", "unchanged", not moved,
                   detail="461a.12(h): no write turns a meter back")
