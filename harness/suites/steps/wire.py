"""What the wire says, asked everywhere: every device's identity, every written field's answer,
every write's answer time, and the order of a round's events.

The suites held a device to the answers of its reads and to the money of its payouts; a device
built apart from the shipped emulator broke the contract in what they did not look at: a bet
sensor reporting the shoe's serial number, a ``config.set`` answering the configuration as it was
before the write, writes answered in 250 ms where reads came in 1, payouts sent in the order the
wagers were placed, a lock-out event sent after the round it closed had ended.  Each step asks its
question of every device, field, command or event it applies to:

- ``expect_identity_serials``: every table device reports the identity the profile pins for it
  (``match:``) and its own serial number, no two devices the same manufacturer's serial
  (607a.2(b)(2)(iv); docs/protocol.md section 6.1);
- ``expect_config_set_answers``: every configuration field ``config.get`` reads back is written
  with another value and then with the value before; each answer the controller gives to a write it
  takes is the whole configuration as it then stands, the ``config.get`` that follows (section 6.4);
- ``expect_write_answer_times``: every command that changes something (``config.set`` of every
  field, ``round.open``, ``wager.place`` and ``wager.remove`` at every seat, ``lockout.press``,
  ``round.no_more_bets``, ``round.settle``, ``reset_key`` of every meter) is sent several times and
  each request the case sent so far is judged on the fastest answer of its kind, within the 100 ms
  of section 5;
- ``expect_settlement_order``: the round's controller events in the order of section 8: the
  ``lockout`` that closed wagering before any of the round's ``hit``, ``payout`` and ``round_end``;
  the settlement in seat order, base-game and EZ wagers before the Royal 9 wagers, each ``hit``
  followed by its seat's ``payout``; ``round_end`` last.
"""

from __future__ import annotations

import contextlib
import copy
import re
import time
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from harness.devices.link import DeviceNak
from harness.devices.transcript import IN, OUT
from harness.errors import DeviceError
from harness.suites.load.model import Step
from harness.suites.run.context import NotApplicableHere
from harness.suites.run.frames import judge_frames
from harness.suites.steps.probes import table_writes
from harness.suites.steps.registry import Action, Arg, step
from harness.suites.steps.sweeps import measure_answer_time, reference_lines

if TYPE_CHECKING:
    from harness.suites.run.context import CaseContext

#: the table devices that answer ``identity`` (docs/protocol.md section 6.1)
IDENTITY_ROLES = ("shoe", "sensors", "controller")
#: an answer-time kind seen fewer times than this in the case, over the limit, decides nothing on its own
FEW_SAMPLES = 3
METER_FIELDS = ("rate", "initial", "reset", "payout_limit", "display_capacity")


# --------------------------------------------------------------------------- identity


@step("expect_identity_serials", Action(
    {},
    doc="58 Pa. Code 607a.2(b)(2)(iv), docs/protocol.md section 6.1: every table device (shoe, bet sensors, "
    "controller) reports the identity fields the profile pins for it (`match:`), and its own serial number: "
    "no two devices report the same manufacturer and serial (a device answering another's serial "
    "identifies the wrong device on the master list)",
))
def expect_identity_serials(runner: CaseContext, step: Step) -> None:
    idents: dict[str, dict[str, Any]] = {}
    for role in IDENTITY_ROLES:
        dev = getattr(runner.rig, role, None)
        if dev is None or getattr(dev, "identity", None) is None:
            continue
        idents[role] = dev.identity().to_dict()
    if len(idents) < 1:
        raise NotApplicableHere("no table device answers identity")
    for role, got in idents.items():
        spec = runner.profile.devices.get(role)
        pinned = dict(spec.match) if spec is not None else {}
        pinned = {k: v for k, v in pinned.items() if k != "usb_serial"}  # the adapter's, not the device's
        wrong = [f"{k}: {got.get(k)!r}" for k, v in sorted(pinned.items()) if got.get(k) != v]
        runner.measure(step, f"{role} identity against the profile's match "
                       f"({', '.join(sorted(pinned)) or 'nothing pinned'})",
                       "; ".join(wrong) or "as pinned", "as pinned", not wrong,
                       detail="pinned: " + (", ".join(f"{k}={v!r}" for k, v in sorted(pinned.items())) or "none"))
    owners: dict[tuple[str, str], list[str]] = {}
    for role, got in idents.items():
        serial = got.get("serial")
        if serial:
            owners.setdefault((str(got.get("manufacturer") or ""), str(serial)), []).append(role)
    for role, got in idents.items():
        serial = got.get("serial")
        key = (str(got.get("manufacturer") or ""), str(serial or ""))
        shared = [r for r in owners.get(key, []) if r != role] if serial else []
        runner.measure(step, f"{role} serial its own (no other device of the table reports it)",
                       f"{serial!r}" + (f", also reported by the {', '.join(shared)}" if shared else ""),
                       "a serial no other device reports", not shared,
                       detail="; ".join(f"{r}: {g.get('manufacturer')!r} {g.get('serial')!r}"
                                        for r, g in idents.items()))


@step("expect_version_refusals", Action(
    {},
    doc="docs/protocol.md section 6.1: \"A device that speaks none of them answers NAK `VERSION` with a reason "
    "naming what it does speak.\"  Each device of the reference protocol is offered a version it cannot speak "
    "(`hello` version 99, versions [99]): NAK VERSION, its reason naming the version the device answered hello "
    "with when the run opened it (a reason that names the offer instead tells the host nothing to offer next)",
))
def expect_version_refusals(runner: CaseContext, step: Step) -> None:
    devices = [(role, dev) for role in IDENTITY_ROLES
               if (dev := getattr(runner.rig, role, None)) is not None and getattr(dev, "hello", None) is not None]
    if not devices:
        raise NotApplicableHere("no device of the profile speaks the framed protocol of docs/protocol.md")
    for role, dev in devices:
        spoken = int(getattr(dev, "protocol", 0))
        try:
            dev.request("hello", version=99, versions=[99])
        except DeviceNak as exc:
            got = f"NAK {exc.code} {exc.reason!r}"
            named = exc.code == "VERSION" and re.search(rf"(?<![0-9]){spoken}(?![0-9])", exc.reason or "") is not None
        else:
            got, named = "an RSP (the hello taken)", False
        runner.measure(step, f"the {role}'s refusal of a hello offering version 99 alone", got,
                       f"NAK VERSION, its reason naming version {spoken} (the version it speaks)", named)
        with contextlib.suppress(DeviceError):
            dev.hello()  # the line as the run opened it: the version it speaks negotiated again


# --------------------------------------------------------------------------- config.set answers


def _norm(value: Any) -> Any:
    """A configuration value for comparison: decimal strings by value ("0.50" == "0.5"); a vendor's own
    fields (``x-``, which hosts ignore: docs/protocol.md) left out."""
    if isinstance(value, dict):
        return {k: _norm(v) for k, v in value.items() if k != "ok" and not str(k).startswith("x-")}
    if isinstance(value, list):
        return [_norm(v) for v in value]
    if isinstance(value, str):
        try:
            return Decimal(value)
        except InvalidOperation:
            return value
    return value


def _differences(a: Any, b: Any, path: str = "") -> list[str]:
    """The paths at which two configurations differ (``a`` the answer, ``b`` the read that followed)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b)):
            out += _differences(a.get(key), b.get(key), f"{path}.{key}" if path else key)
        return out
    return [] if a == b else [f"{path or '(whole)'}: answered {a!r}, config.get {b!r}"]


def _other_meter_value(field: str, value: int | str, meter_amount: int | None) -> Any:
    if field == "rate":
        return str(Decimal(str(value)) + Decimal("0.1"))
    assert isinstance(value, int)
    if field == "reset":
        return value + 1 if meter_amount is not None and meter_amount > value else value - 1
    if field == "initial":
        return value + 1
    return value - 1   # payout limit, display capacity: still above the meter, below the cap before


def config_writes(raw: dict[str, Any], meters_now: dict[str, int]) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(field path, a write of another value, the write of the value before) for every field the
    configuration read back holds that config.set takes (docs/protocol.md section 6.4); the
    personal combinations and the mystery configuration are written with the values they have."""
    out = table_writes(raw)
    for meter, fields in sorted((raw.get("meters") or {}).items()):
        if not isinstance(fields, dict):
            continue
        for field in METER_FIELDS:
            value = fields.get(field)
            if isinstance(value, bool) or not isinstance(value, (int, str)):
                continue
            other = _other_meter_value(field, value, meters_now.get(meter))
            out.append((f"meters.{meter}.{field}", {"meters": {meter: {field: other}}},
                        {"meters": {meter: {field: value}}}))
    if isinstance(raw.get("seats"), list):
        seats = [{"seat": s.get("seat"), "combo": s.get("combo")} for s in raw["seats"] if isinstance(s, dict)]
        out.append(("seats", {"seats": seats}, {"seats": seats}))
    return out


def _write(ctrl: Any, args: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """config.set ``args``: (the answer, "taken") or (None, the refusal)."""
    try:
        return dict(ctrl.call("config.set", **copy.deepcopy(args)).payload), "taken"
    except DeviceNak as exc:
        return None, f"declined ({exc.code}: {exc.reason})"


@step("expect_config_set_answers", Action(
    {},
    doc="docs/protocol.md section 6.4 ('The answer is the whole configuration as it now stands'): with no "
    "round open, every field `config.get` reads back (decks, commission, hit_soft17, the denomination, every "
    "meter's rate, initial and reset amounts, payout limit and display capacity, the seats) is written alone "
    "with another value and then with the value before; the answer to each write the controller takes must "
    "equal the `config.get` that follows it.  Which writes it takes is its own (a refusal passes); the "
    "configuration must end as it began",
))
def expect_config_set_answers(runner: CaseContext, step: Step) -> None:
    ctrl = runner.controller()
    if getattr(ctrl, "call", None) is None or getattr(ctrl, "link", None) is None:
        raise NotApplicableHere("the controller is not reached over a line of the reference protocol")
    before = dict(ctrl.call("config.get").payload)
    meters_now = dict(runner.read_meters().meters)
    taken = 0
    for label, write, back in config_writes(before, meters_now):
        for which, args in (("another value", write), ("the value before", back)):
            answer, _got = _write(ctrl, args)
            if answer is None:
                continue
            taken += 1
            now = dict(ctrl.call("config.get").payload)
            diff = _differences(_norm(answer), _norm(now))
            runner.measure(step, f"config.set {label} ({which}: {args}): the answer against the config.get that "
                           "follows",
                           "; ".join(diff[:6]) or "the same", "the same", not diff,
                           detail=f"{len(diff)} field(s) differ" if diff else "the whole configuration as it stands")
    changed = _differences(_norm(dict(ctrl.call("config.get").payload)), _norm(before))
    if changed:  # a value taken and not taken back: the rest of the run needs the table as it was
        raise DeviceError("expect_config_set_answers: the controller took a write and then declined the value "
                          "before it; the configuration differs from the one the case began with: "
                          + "; ".join(changed[:6]))
    runner.measure(step, f"config.set writes taken and compared ({taken})", taken, ">= 0", True,
                   detail="every field config.get reads back, another value and the value before")


# --------------------------------------------------------------------------- write answer times


def _kind(payload: dict[str, Any]) -> str:
    """A request's kind for its answer time: the command, and for config.set the fields written."""
    cmd = str(payload.get("cmd", "?"))
    if cmd != "config.set":
        return cmd
    paths = []
    for key, value in sorted(payload.items()):
        if key == "cmd":
            continue
        if key == "meters" and isinstance(value, dict):
            paths += [f"meters.{m}.{f}" for m, fs in sorted(value.items()) if isinstance(fs, dict) for f in sorted(fs)]
        else:
            paths.append(key)
    return f"config.set {','.join(paths) or '(nothing)'}"


def answer_times(entries: list[Any]) -> dict[str, list[tuple[int, str]]]:
    """Every request of a transcript answered (RSP or NAK), by kind: (ns from the request written to its
    answer read, the answer: ok or the NAK code).  test.* commands (the emulator's channel, which
    says otherwise: a deal at pace 0 answers after its cards) are left out."""
    sent: dict[int, tuple[str, int]] = {}
    out: dict[str, list[tuple[int, str]]] = {}
    for e in entries:
        if e.kind != "frame":
            continue
        frame_type, seq, message = _frame(e)
        if e.direction == OUT and frame_type == "REQ":
            if not str(message.get("cmd", "")).startswith("test."):
                sent[seq] = (_kind(message), e.t_ns)
        elif e.direction == IN and frame_type in ("RSP", "NAK"):
            req = sent.pop(seq, None)
            if req is None:
                continue
            answer = "ok" if frame_type == "RSP" else str(message.get("code", "NAK"))
            out.setdefault(f"{req[0]} ({answer})", []).append((e.t_ns - req[1], answer))
    return out


def _frame(entry: Any) -> tuple[str, int, dict[str, Any]]:
    """A transcript frame's type (REQ, RSP, NAK, EVT), SEQ and message, as the link noted them."""
    meta = entry.fields
    return str(meta.get("type")), int(meta.get("seq", -1)), dict(meta.get("payload") or {})


def _try(dev: Any, cmd: str, **args: Any) -> None:
    with contextlib.suppress(DeviceError):
        dev.call(cmd, **args)


def _sweep_writes(runner: CaseContext, tries: int) -> None:
    """Send every command that changes something, ``tries`` times, leaving the table as it was: each
    config.set field another value and back, and a round opened, wagered at every seat, the wagers
    withdrawn, wagering closed by each input the table has, the round voided; the reset key of every
    meter with nothing waiting."""
    ctrl: Any = runner.rig.controller
    sensors: Any = runner.rig.sensors
    if ctrl is not None and getattr(ctrl, "link", None) is not None:
        raw = dict(ctrl.call("config.get").payload)
        meters_now = dict(runner.read_meters().meters)
        for _label, write, back in config_writes(raw, meters_now):
            for _ in range(tries):
                _try(ctrl, "config.set", **copy.deepcopy(write))
                _try(ctrl, "config.set", **copy.deepcopy(back))
        pending = set(runner.read_meters().pending)
        keys = [m for m in (raw.get("meters") or {}) if m not in pending]
        base = "blackjack" if runner.profile.game == "blackjack-hit-and-run" else "player"
        seats = runner.seats_of("all")
        for _ in range(tries):
            _try(ctrl, "round.open")
            if sensors is not None and getattr(sensors, "link", None) is not None:
                for seat in seats:
                    _try(sensors, "wager.place", seat=seat, type=base, amount=runner.stake_default)
                for seat in seats:
                    _try(sensors, "wager.remove", seat=seat, type=base)
            if "lockout-button" in runner.profile.capabilities:
                _try(ctrl, "lockout.press")
            _try(ctrl, "round.no_more_bets")
            _try(ctrl, "round.settle")
            for meter in keys:
                _try(ctrl, "reset_key", meter=meter)
    runner.pump(0.05)


@step("expect_write_answer_times", Action(
    {"tries": Arg("int", default=3, lo=1)},
    doc="docs/protocol.md section 5 ('A device answers a request within 100 ms unless the command says "
    "otherwise'): between rounds, every command that changes something is sent `tries` times (config.set of "
    "every field `config.get` reads back, another value and back; round.open; wager.place and wager.remove "
    "at every seat; lockout.press where the table has the button; round.no_more_bets; round.settle, voiding "
    "the round; reset_key of every meter with nothing waiting), and every request sent in the case so far, "
    "these and the case's own, is judged by kind (the command, the fields a config.set writes, the answer "
    "or NAK code) on its fastest answer (host stamps): within 100 ms.  A kind answered fewer than three times "
    "and over the limit is INCONCLUSIVE (one slow sample on a loaded host decides nothing); the emulator's "
    "test.* commands are not judged.  The table is left between rounds with its configuration as before",
))
def expect_write_answer_times(runner: CaseContext, step: Step, tries: int = 3) -> None:
    lines = reference_lines(runner)
    _sweep_writes(runner, tries)
    for role, dev in lines:
        start = runner.transcript_marks.get(id(dev.link), 0)
        kinds = answer_times(dev.link.transcript.entries[start:])
        for kind, samples in sorted(kinds.items()):
            times = [ns for ns, _ in samples]
            measure_answer_time(runner, step, f"{role} answers {kind}", times,
                                f"slowest {Decimal(max(times)) / 1_000_000:.3f} ms", few=len(times) < FEW_SAMPLES)
    runner.pump()


# --------------------------------------------------------------------------- the order of a round's events


def _linked_meters(runner: CaseContext) -> set[str]:
    with contextlib.suppress(DeviceError, AttributeError):
        link = runner.controller().config().raw.get("link")
        if isinstance(link, dict) and isinstance(link.get("meters"), dict):
            return {str(m) for m in link["meters"]}
    return set()


def settlement_order_faults(events: list[Any], *, hit_and_run: bool, linked: set[str]) -> dict[str, list[str]]:
    """What breaks docs/protocol.md section 8's order in one round's controller events (in order of
    arrival), by rule: ``lockout`` (the lock-out that closed wagering after the round's first hit,
    payout or round_end, or none before them), ``seat-order`` (a settlement payout after a later seat's,
    or a base-game payout after a Royal 9 one), ``hit-payout`` (a hit not followed by its seat's payout),
    ``round-end-last`` (a settlement payout or hit after round_end, or a second round_end)."""
    faults: dict[str, list[str]] = {"lockout": [], "seat-order": [], "hit-payout": [], "round-end-last": []}

    def is_linked(e: Any) -> bool:
        return str(e.payload.get("category")) in linked or str(e.payload.get("meter")) in linked

    def is_mystery(e: Any) -> bool:
        return e.payload.get("category") == "mystery" or e.payload.get("meter") == "mystery"

    end = next((i for i, e in enumerate(events) if e.name == "round_end"), None)
    first_locked = next((i for i, e in enumerate(events) if e.name == "lockout" and e.payload.get("locked")), None)
    first_settling = next((i for i, e in enumerate(events) if e.name in ("hit", "payout", "round_end")), None)
    if first_settling is not None and (first_locked is None or first_locked > first_settling):
        shown = events[first_settling]
        faults["lockout"].append(
            f"{shown.name} (SEQ {shown.seq}) before any lockout"
            + (f"; the lockout came after it (SEQ {events[first_locked].seq}, cause "
               f"{events[first_locked].payload.get('cause')})" if first_locked is not None else "; no lockout at all"))
    # the dealer's call comes first: `no_more_bets` "before its lockout", the lockout of cause
    # no-more-bets "after the no_more_bets event" (docs/protocol.md sections 6.4 and 8)
    called = next((i for i, e in enumerate(events) if e.name == "no_more_bets"), None)
    by_call = next((i for i, e in enumerate(events) if e.name == "lockout" and e.payload.get("locked")
                    and e.payload.get("cause") == "no-more-bets"), None)
    if called is not None and by_call is not None and by_call < called:
        faults["lockout"].append(f"lockout cause no-more-bets (SEQ {events[by_call].seq}) before the no_more_bets "
                                 f"event (SEQ {events[called].seq})")
    upto = events if end is None else events[:end]
    settling = [e for e in upto if e.name in ("payout", "wager_rides") and not is_mystery(e) and not is_linked(e)]
    last: tuple[int, int] | None = None
    for e in settling:
        group = 0 if hit_and_run or e.payload.get("type") != "royal9" else 1
        key = (group, int(e.payload.get("seat", 0)))
        if last is not None and key < last:
            faults["seat-order"].append(f"seat {key[1]} {e.payload.get('type')} (SEQ {e.seq}) after seat {last[1]}"
                                        + (" of the Royal 9 wagers" if last[0] > key[0] else ""))
        last = max(last, key) if last is not None else key
    for i, e in enumerate(upto):
        if e.name != "hit" or is_linked(e):
            continue
        nxt = next((x for x in upto[i + 1:] if x.name == "payout"), None)
        if nxt is None or nxt.payload.get("seat") != e.payload.get("seat"):
            faults["hit-payout"].append(f"hit seat {e.payload.get('seat')} {e.payload.get('category')} (SEQ {e.seq}) "
                                        + ("followed by no payout" if nxt is None else
                                           f"followed by seat {nxt.payload.get('seat')}'s payout (SEQ {nxt.seq})"))
    if end is not None:
        for e in events[end + 1:]:
            if e.name in ("hit", "payout") and not is_linked(e):
                faults["round-end-last"].append(f"{e.name} seat {e.payload.get('seat')} (SEQ {e.seq}) after round_end")
            elif e.name == "round_end":  # the round is settled once: one round_end (section 8, 6.4 events)
                faults["round-end-last"].append(f"round_end again (SEQ {e.seq}, round {e.payload.get('round')})")
    return faults


@step("expect_settlement_order", Action(
    {"wait_ms": Arg("decimal", default=Decimal(200))},
    doc="docs/protocol.md sections 5 and 8: the round's controller events, as sent: the `lockout` that closed "
    "wagering ('sent as it closes') comes before any of the round's `hit`, `payout` and `round_end`, and a "
    "`lockout` of cause no-more-bets after the round's `no_more_bets` event "
    "(clause contract-8-lockout-reported-in-order); the settlement sends every wager's `payout` in seat order, "
    "base-game and EZ wagers before the Royal 9 wagers (Hit and Run: seat by seat), each `hit` followed by its "
    "seat's `payout`, and `round_end` last (contract-8-settlement-order).  Mystery awards (paid at wagering "
    "close) and the awards of a linked meter (paid when the link controller answers) are not the settlement's.  "
    "The events arriving within `wait_ms` after the step starts are read first, so one sent late is seen where "
    "it came",
))
def expect_settlement_order(runner: CaseContext, step: Step, wait_ms: Decimal = Decimal(200)) -> None:
    runner.pump()
    if not any(e.name == "round_end" for e in runner.round.ctrl_events):
        raise AssertionError("expect_settlement_order: the round has not ended (deal it first)")
    deadline = time.monotonic() + float(wait_ms) / 1000
    while time.monotonic() < deadline:
        runner.pump(0.01)
    events = list(runner.round.ctrl_events)
    faults = settlement_order_faults(events, hit_and_run=runner.profile.game == "blackjack-hit-and-run",
                                     linked=_linked_meters(runner))
    shown = "; ".join(f"{e.name} {e.payload}" for e in events[:40])
    runner.measure(step, "the lockout that closed wagering sent before the round's hits, payouts and round_end "
                   "(and after its no_more_bets event)",
                   "; ".join(faults["lockout"]) or "before them", "before them", not faults["lockout"],
                   clause="contract-8-lockout-reported-in-order", detail=shown)
    for rule, name in (("seat-order", "settlement payouts in seat order, base-game and EZ wagers before Royal 9"),
                       ("hit-payout", "each hit followed by its seat's payout"),
                       ("round-end-last", "round_end after every hit and payout of the settlement")):
        runner.measure(step, name, "; ".join(faults[rule][:6]) or "in order", "in order", not faults[rule],
                       clause="contract-8-settlement-order", detail=shown)


@step("expect_frames_sent", Action(
    doc="docs/protocol.md section 2: every frame each device sent in the case passed its check (VER 1, a TYPE "
    "of section 3, a JSON object payload with no float, its CRC).  Every step already FAILs on such a frame "
    "from a line with no noise (a pty or a 127.0.0.1 socket); this step measures every line over the whole "
    "case, a cable's as advisory (a failed frame there may be the cable's).  Put it after a case that has "
    "each device send answers, refusals and events",
))
def expect_frames_sent(runner: CaseContext, step: Step) -> None:
    if not runner.frames.start:
        raise NotApplicableHere("no device of the profile speaks the framed protocol of docs/protocol.md")
    judge_frames(runner, step, asked=True)

