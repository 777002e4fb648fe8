"""The bench check: is this bench ready for a run?  (``tablecert bench check``, after labgrid's probes.)

It opens every device and instrument of the profile (starting the emulator when the profile names
one), reads each one's identity and compares it with what the profile pins (``match:``), measures
the host-stamp jitter on the table devices' lines (:mod:`harness.bench.jitter`), arms the counter,
and operates each actuator of ``bench.performers`` once (a button or key relay pulsed, the cable
relay broken and restored), asking the operator on the bench console or the terminal to confirm
what the table did.  It runs no case and writes no record: one table, and exit 0 when every row
is OK, 3 (a rig error) otherwise.

The power supply is identified but not switched: cutting a table's power is a case's act, not a
check's.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.bench import jitter
from harness.bench.acts import Act, NoMoreBets, OpenRound, PressLockout, SetComm, TurnResetKey
from harness.bench.session import BenchSession
from harness.errors import DeviceError, DeviceTimeout
from harness.suites.run.profile_rig import open_rig

if TYPE_CHECKING:
    from harness.bench.session import BenchSession
    from harness.profiles.model import Profile
    from harness.suites.run.rig import Rig

#: how long the operator has to confirm what an actuator did
CONFIRM_S = 300.0


@dataclass
class CheckRow:
    what: str
    item: str
    ok: bool
    detail: str


def _identity(role: str, device: Any, pinned: dict[str, str]) -> CheckRow:
    identify = getattr(device, "identity", None)
    try:
        if identify is not None:
            got = identify().to_dict()
            said = " ".join(str(got.get(k) or "") for k in ("manufacturer", "model", "serial")).strip()
        else:
            said = str(device.idn())
    except DeviceError as exc:
        return CheckRow("identity", role, False, f"no answer: {exc}")
    if pinned:
        return CheckRow("identity", role, True, f"{said} (the profile's {', '.join(sorted(pinned))} match)")
    return CheckRow("identity", role, True, f"{said} (nothing pinned: add match: to the profile)")


def _questions(kind: str, spec: Any) -> list[tuple[list[Act], str]]:
    """The acts that operate the actuator of ``kind`` once, each with what the operator confirms."""
    hold = f"held {spec.hold_ms} ms"
    if kind == "lockout-button":
        return [([PressLockout()], f"The relay (channel {spec.channel}, {hold}) just pressed the lock-out button: "
                                   "did the table lock out?")]
    if kind == "open-round":
        return [([OpenRound()], f"The relay (channel {spec.channel}, {hold}) just pressed the open-round button: "
                                "did the round open?")]
    if kind == "no-more-bets":
        return [([NoMoreBets()], f"The relay (channel {spec.channel}, {hold}) just pressed no-more-bets: "
                                 "did the table call no more bets?")]
    if kind == "reset-key":
        return [([TurnResetKey(meter)], f"The relay (channel {channel}, {hold}) just turned the {meter} reset key: "
                                        "did the controller take the key?")
                for meter, channel in spec.channels.items()]
    if kind == "comm":
        return [([SetComm(connected=False), SetComm(connected=True)],
                 f"The relay (channel {spec.channel}) just broke the controller-sensors cable and restored it: did "
                 "the controller show the cable broken, then restored?")]
    return []


def check(profile: Profile, *, operator: str = "", say: Any = print) -> list[CheckRow]:
    """Every row of the check (see the module docstring); ``say`` prints progress lines."""

    rows: list[CheckRow] = []
    try:
        rig = open_rig(profile)
    except (DeviceError, OSError) as exc:
        return [CheckRow("devices", "open", False, f"{type(exc).__name__}: {exc}")]
    bench: BenchSession | None = None
    try:
        for role, device in rig.devices().items():
            rows.append(_identity(role, device, dict(profile.devices[role].match)))
        measured = jitter.measure(rig)
        rows.append(CheckRow("jitter", "host stamps", measured is not None,
                             f"{measured['jitter_ms']} ms ({measured['method']})" if measured
                             else "neither the shoe nor the controller answers pings"))
        if rig.counter is not None:
            try:
                rig.counter.arm()
                rows.append(CheckRow("counter", "arm", True, "armed for a lock-out interval"))
            except DeviceError as exc:
                rows.append(CheckRow("counter", "arm", False, str(exc)))
        bench = BenchSession(profile, operator=operator, run_id="bench-check")
        try:
            bench.open_actuators(rig)
            if bench.broker is not None:
                bench.open_front_ends(rig)
        except (DeviceError, OSError) as exc:
            rows.append(CheckRow("actuators", "open", False, f"{type(exc).__name__}: {exc}"))
            return rows
        for name in bench.relays:
            rows.append(CheckRow("actuator", name, True, f"open ({profile.bench.actuators[name].resource})"))
        rows += _operate(bench, rig, say)
    finally:
        if bench is not None:
            bench.close()
        rig.close()
    return rows


def _operate(bench: BenchSession, rig: Rig, say: Any) -> list[CheckRow]:
    rows: list[CheckRow] = []
    for kind, spec in bench.settings.performers.items():
        if spec.kind != "actuator":
            continue
        for acts, question in _questions(kind, spec):
            item = f"{kind}" + (f" {acts[0].meter}" if isinstance(acts[0], TurnResetKey) else "")
            try:
                for act in acts:
                    bench.performers.perform(act, None)  # type: ignore[arg-type]  # no probe: no stage needed
            except DeviceError as exc:
                rows.append(CheckRow("operate", item, False, f"the relay failed: {exc}"))
                continue
            if bench.broker is None or not bench.broker.front_ends:
                rows.append(CheckRow("operate", item, False, "operated; nobody to confirm it (no operator front end)"))
                continue
            say(f"tablecert: confirm on the bench console or the terminal: {question}")
            try:
                answer = bench.broker.ask(acts[0], case="bench check", step=f"actuator {spec.actuator}",
                                          message=question, question="confirm", raise_on_cannot=False,
                                          timeout_s=min(CONFIRM_S, bench.broker.timeout_s))
            except DeviceTimeout:
                rows.append(CheckRow("operate", item, False, "operated; the operator did not confirm in time"))
                continue
            who = f"{answer.operator or 'the operator'} on the {answer.front_end}"
            note = f": {answer.note}" if answer.note else ""
            rows.append(CheckRow("operate", item, answer.answer == "done",
                                 (f"confirmed by {who}" if answer.answer == "done" else f"NOT seen by {who}") + note))
    with contextlib.suppress(Exception):
        for relay in bench.relays.values():
            relay.write("ROUT:OPEN:ALL")
    return rows


def table(rows: list[CheckRow]) -> str:
    width = max([len(r.what) + len(r.item) + 1 for r in rows] + [10])
    lines = [f"{'check':<{width}}  result  detail"]
    for r in rows:
        lines.append(f"{r.what + ' ' + r.item:<{width}}  {'OK' if r.ok else 'FAIL':<6}  {r.detail}")
    return "\n".join(lines)
