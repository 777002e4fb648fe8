"""Sweeps: a rule of the contract tried on every line, every meter, every field and every state.

A device built apart from the shipped emulator passed cases that looked at one line's events, one
meter's cap, one field's write and one state's answer time.  Each step here asks the same question
everywhere it can be asked:

- ``expect_answer_times``: every read request of every device, answered within the 100 ms of
  docs/protocol.md section 5, judged on the fastest of several tries (one slow sample on a loaded
  host decides nothing);
- ``expect_event_seq``: every line's events in the case numbered one more than the last (section 4);
- ``expect_writes_refused_while_live``: a write of every configuration field declined while a
  round is open or dealing or a wager is on the layout (section 6.4);
- ``expect_meters_within_caps``: every meter at or below the payout limit and display capacity
  the controller reads back (461a.12(j), (k)(1)), with ``diverted`` reported at the cap;
- ``expect_meters_at_reset``: every listed meter at the reset amount the controller reads back
  (a reset amount written in the case, not the one it powered up with; 461a.12(b)(5));
- ``expect_royal9_denomination``: Royal 9 wagers accepted at the denomination the controller reads
  back and refused ``bad-amount`` at every other one (section 12).
"""

from __future__ import annotations

import contextlib
import copy
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from harness.devices import vocabulary
from harness.devices.link import DeviceNak
from harness.money import fmt
from harness.suites.load.model import Step
from harness.suites.run.context import NotApplicableHere
from harness.suites.steps.permitted import refusal_reasons
from harness.suites.steps.probes import table_writes
from harness.suites.steps.registry import Action, Arg, choice, step

if TYPE_CHECKING:
    from harness.suites.run.context import CaseContext

ROLES = ("shoe", "sensors", "controller")
#: the requests of each role that read and change nothing (docs/protocol.md sections 6.1-6.4)
READ_REQUESTS: dict[str, tuple[str, ...]] = {
    "shoe": ("ping", "identity", "shoe.status"),
    "sensors": ("ping", "identity", "wager.list"),
    "controller": ("ping", "identity", "config.get", "meters.get", "lockout.get"),
}
#: docs/protocol.md section 5: a device answers a request within 100 ms
ANSWER_LIMIT_MS = Decimal(vocabulary.ANSWER_LIMIT_MS)
#: a restart of the numbering (power-up, reboot) is the intended evidence of section 4, not a gap
RESTART_SEQ = 1


def device_lines(runner: CaseContext) -> list[tuple[str, Any]]:
    """The devices of the rig reached over a line of the reference protocol, by role."""
    out = []
    for role in ROLES:
        dev = getattr(runner.rig, role, None)
        if dev is not None and getattr(dev, "link", None) is not None and callable(getattr(dev, "call", None)):
            out.append((role, dev))
    return out


def reference_lines(runner: CaseContext, settle_s: float = 0.0) -> list[tuple[str, Any]]:
    """:func:`device_lines`, the events waiting on them taken in (``settle_s``); a rig with none is NOT
    APPLICABLE to a check of the reference protocol's lines."""
    lines = device_lines(runner)
    if not lines:
        raise NotApplicableHere("no device is reached over a line of the reference protocol (docs/protocol.md)")
    runner.pump(settle_s)
    return lines


def fastest_ms(samples_ns: list[int]) -> Decimal:
    """The fastest of several answer times, ms (three decimals)."""
    return (Decimal(min(samples_ns)) / Decimal(1_000_000)).quantize(Decimal("0.001"))


def measure_answer_time(runner: CaseContext, step: Step, what: str, samples_ns: list[int], detail: str, *,
                        few: bool = False) -> None:
    """docs/protocol.md section 5: ``what`` answered within 100 ms, judged on the fastest of its answer
    times ``samples_ns`` (host stamps), so one slow sample on a loaded host decides nothing.  ``few``: too
    few samples to judge even that, so a fastest over the limit is INCONCLUSIVE (advisory), said after
    ``detail``."""
    best = fastest_ms(samples_ns)
    ok = best <= ANSWER_LIMIT_MS
    inconclusive = few and not ok
    runner.measure(step, f"{what} (fastest of {len(samples_ns)})", best, f"<= {ANSWER_LIMIT_MS}", ok, unit="ms",
                   advisory=inconclusive,
                   detail=detail + ("; INCONCLUSIVE: too few answers of this kind to judge one slow sample"
                                    if inconclusive else ""))


@step("expect_answer_times", Action(
    {"tries": Arg("int", default=5, lo=1)},
    doc="docs/protocol.md section 5: every read request of every device (`ping`, `identity`; the shoe's "
    "`shoe.status`, the sensors' `wager.list`, the controller's `config.get`, `meters.get`, `lockout.get`) "
    "is sent `tries` times in the table's present state (a round open, a payment waiting for the reset key, "
    "...); the fastest answer of each, from the request written to the answer read (host stamps), must come "
    "within 100 ms: one slow sample on a loaded host decides nothing.  A device reached through a driver "
    "of another protocol is NOT APPLICABLE",
))
def expect_answer_times(runner: CaseContext, step: Step, tries: int = 5) -> None:
    lines = reference_lines(runner)
    for role, dev in lines:
        for cmd in READ_REQUESTS[role]:
            samples = []
            for _ in range(tries):
                reply = dev.call(cmd)
                samples.append(reply.t_reply_ns - reply.t_sent_ns)
            measure_answer_time(runner, step, f"{role} answers {cmd}", samples,
                                "every try: " + ", ".join(f"{Decimal(s) / 1_000_000:.3f}" for s in samples) + " ms")
    runner.pump()


def _first_event_seq(runner: CaseContext, link: Any) -> int | None:
    """The SEQ of the first event ``link`` received in the case (its transcript since the case began)."""
    start = runner.transcript_marks.get(id(link), 0)
    for entry in link.transcript.entries[start:]:
        if entry.fields.get("type") == "EVT":
            seq = entry.fields.get("seq")
            return seq if isinstance(seq, int) else None
    return None


def seq_gaps(gaps: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The gaps (expected, got) that break section 4: a restart at 1 after power-up is intended."""
    return [(want, got) for want, got in gaps if got != RESTART_SEQ]


@step("expect_event_seq", Action(
    {"restarts": choice("allowed", "none", default="allowed")},
    doc="docs/protocol.md section 4: on every line of the table (the shoe's, the sensors', the "
    "controller's) the events received in the case so far each carry the SEQ one more than the event "
    "before it on that line: each device numbers its own events (a counter shared by several lines shows "
    "as gaps); a restart at 1 after a power-up or a reboot is not a gap.  `restarts: none` for a case with "
    "no power-up and no reboot in it: a SEQ back at 1 is then a gap too (65535 wraps to 1, nothing before it), "
    "but for the line's first event of the case (the table may have been powered up between cases)",
))
def expect_event_seq(runner: CaseContext, step: Step, restarts: str = "allowed") -> None:
    lines = reference_lines(runner, 0.05)
    for role, dev in lines:
        link = dev.link
        start = runner.seq_marks.get(id(link), 0)
        gaps = link.event_gaps[start:]
        if restarts == "none" and gaps and gaps[0][1] == RESTART_SEQ and _first_event_seq(runner, link) == RESTART_SEQ:
            gaps = gaps[1:]  # the line's first event of the case numbered 1: a power-up before the case began
        broken = seq_gaps(gaps) if restarts == "allowed" else list(gaps)
        shown = "; ".join(f"expected {want}, got {got}" for want, got in broken[:10]) or "none"
        runner.measure(step, f"event SEQ gaps on the {role}'s line in this case", shown, "none", not broken,
                       detail=f"{len(broken)} gap(s)" if broken else "every event the successor of the one before")


def _live_writes(raw: dict[str, Any]) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(label, the write of another value, the write of the value before) for every field a
    configuration read back (``config.get``) holds that config.set takes."""
    out = table_writes(raw)
    for meter, fields in sorted((raw.get("meters") or {}).items()):
        limit = fields.get("payout_limit") if isinstance(fields, dict) else None
        if isinstance(limit, int):
            out.append((f"{meter} payout limit", {"meters": {meter: {"payout_limit": limit - 1}}},
                        {"meters": {meter: {"payout_limit": limit}}}))
    return out


@step("expect_writes_refused_while_live", Action(
    {},
    doc="docs/protocol.md section 6.4 ('REFUSED while live'), 461a.12(i): with a round open or being "
    "dealt, or a wager on the layout, every field the configuration reads back (decks, commission, "
    "hit_soft17, the denomination, each meter's payout limit) is written alone with another value: "
    "each write must be declined (a NAK) and change nothing; one taken is written back",
))
def expect_writes_refused_while_live(runner: CaseContext, step: Step) -> None:
    ctrl = runner.controller()
    before = copy.deepcopy(dict(ctrl.config().raw))
    for label, write, back in _live_writes(before):
        try:
            ctrl.set_config(**write)
            got = "accepted"
        except DeviceNak as exc:
            got = f"declined ({exc.code}: {exc.reason})"
        now = dict(ctrl.config().raw)
        runner.measure(step, f"{label} written while live", got, "declined", got != "accepted",
                       detail=f"wrote {write}")
        if now != before:
            with contextlib.suppress(DeviceNak):
                ctrl.set_config(**back)
        runner.measure(step, f"{label} written while live: configuration as before",
                       "unchanged" if now == before else "changed", "unchanged", now == before)


@step("expect_meters_within_caps", Action(
    {},
    doc="461a.12(j), (k)(1), docs/protocol.md section 6.4: every meter `meters.get` reports is at or below "
    "the payout limit and the display capacity the controller reads back now (`config.get`: a limit written "
    "in the case, not the one filed), and a meter standing at its cap reports `diverted` for it",
))
def expect_meters_within_caps(runner: CaseContext, step: Step) -> None:
    reading = runner.read_meters()
    config = runner.controller().config().raw
    meters_cfg = config.get("meters") or {}
    raw_diverted = reading.raw.get("diverted")
    judged = 0
    for name, amount in sorted(reading.meters.items()):
        cfg = meters_cfg.get(name)
        if not isinstance(cfg, dict):
            continue
        caps = [c for c in (cfg.get("payout_limit"), cfg.get("display_capacity")) if isinstance(c, int)]
        if not caps:
            continue
        judged += 1
        cap = min(caps)
        runner.measure(step, f"{name} meter within its cap", amount, f"<= {cap}", amount <= cap, unit="cents",
                       detail=f"{fmt(amount)} against payout limit {cfg.get('payout_limit')}, display capacity "
                       f"{cfg.get('display_capacity')} read back")
        if amount == cap:
            told = isinstance(raw_diverted, dict) and name in raw_diverted
            runner.measure(step, f"{name} meter at its cap: diverted reported", "reported" if told else "absent",
                           "reported", told)
    if not judged:
        raise NotApplicableHere("the controller reads back no payout limit or display capacity for any meter")


@step("expect_meters_at_reset", Action(
    {"meters": Arg("meters")},
    doc="461a.12(b)(5): right after the reset key (or a reset at the hit), every listed meter (default: every "
    "meter the configuration reads back with a reset amount) shows the reset amount the controller reads "
    "back now (`config.get`: one written in the case, not the one it powered up with)",
))
def expect_meters_at_reset(runner: CaseContext, step: Step, meters: Any = None) -> None:
    reading = runner.read_meters()
    meters_cfg = runner.controller().config().raw.get("meters") or {}
    names = list(meters) if meters not in (None, "all", ("all",)) else sorted(meters_cfg)
    for name in names:
        cfg = meters_cfg.get(name)
        if not isinstance(cfg, dict) or not isinstance(cfg.get("reset"), int):
            raise AssertionError(f"expect_meters_at_reset: the configuration reads back no reset amount for {name}")
        shows = reading.meters.get(name)
        runner.measure(step, f"{name} meter after its reset", shows, cfg["reset"], shows == cfg["reset"],
                       unit="cents", detail=f"the reset amount read back: {fmt(cfg['reset'])}")


@step("expect_royal9_denomination", Action(
    {"seats": Arg("seats", default="all")},
    doc="docs/protocol.md sections 6.3 and 12 (`bad-amount`): with a round open and a base wager at each "
    "listed seat, a Royal 9 wager of every denomination but the one the controller reads back now ($1, $5, "
    "the filed one) is refused (`bad-amount`), and one of the denomination in force is accepted",
    acts=("wager",),
))
def expect_royal9_denomination(runner: CaseContext, step: Step, seats: Any = "all") -> None:
    den = runner.controller().config().denomination
    filed = runner.profile.rules.denomination
    others = sorted({100, 500, *([filed * 100] if filed is not None else [])} - {den})
    for seat in runner.seats_of(seats):
        for amount in others:
            res = runner.place(seat, "royal9", amount)
            reasons = refusal_reasons(runner, seat, "royal9", "bad-amount")
            ok = not res.accepted and res.reason in reasons
            runner.measure(step, f"seat {seat} royal9 wager of {fmt(amount)} (denomination in force {fmt(den)})",
                           "accepted" if res.accepted else f"rejected ({res.reason})",
                           f"rejected ({' or '.join(reasons)})", ok)
        res = runner.place(seat, "royal9", den)
        runner.measure(step, f"seat {seat} royal9 wager of {fmt(den)} (the denomination in force)",
                       "accepted" if res.accepted else f"rejected ({res.reason})", "accepted", res.accepted)

