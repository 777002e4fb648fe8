"""The device side of the explorer: one operation carried out at the table, every observable read.

The acts (a wager, the dealer's buttons, the reset key, the power, the sensors cable, the shoe) go
through the profile's performers (:mod:`harness.bench.performers`: the emulator's test channel, a
relay actuator, the bench supply), exactly as the suites perform them; the reads (``config.get``,
``meters.get``, ``wager.list``, ``lockout.get``, ``shoe.status``, ``identity``) through the role
drivers of the rig (:func:`harness.suites.run.profile_rig.open_rig`).  Nothing here knows what the answers should
be: that is the model's (:mod:`harness.explore.model`).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from harness.bench import acts
from harness.bench import jitter as bench_jitter
from harness.bench.performers import Performers
from harness.cards import Card, parse_card
from harness.devices.drivers.reference import HelloError
from harness.devices.drivers.scpi import ScpiCounter, ScpiPowerSupply
from harness.devices.dropped import FrameWatch
from harness.devices.link import (
    FALSE_HEADER,
    FULL_LENGTH,
    SPACED,
    DeviceEvent,
    DeviceNak,
    FramedLink,
    LostPings,
)
from harness.devices.registry import open_device
from harness.devices.roles import BetSensors, PowerSupply, ProgressiveController, Shoe, Wager
from harness.errors import DeviceError, DeviceTimeout
from harness.explore import ops
from harness.explore import rules as R
from harness.explore.answer_times import ANSWER_RETRIES, ANSWER_RETRY_GAP_S, HOST_ECHO, AnswerClock, device_ms
from harness.explore.judge import ANSWER_DEADLINE_MS, Observed, normalise_config
from harness.explore.model import LOST
from harness.explore.state import Pending
from harness.profiles.model import EMULATOR, Profile
from harness.suites.run.rig import Rig, device_entry

#: the acts the explorer cannot do without (a bench whose operator performs one cannot be explored)
NEEDED_ACTS = ("load", "deal", "wager", "remove-wager", "open-round")
#: optional acts: an operation whose act nobody on the bench can perform is left out
OPTIONAL_ACTS = {"lockout_button": "lockout-button", "no_more_bets": "no-more-bets", "reset_key": "reset-key",
                 "power_cycle": "power", "comm": "comm"}

#: the acts of the operations that need one besides NEEDED_ACTS: the optional ones, and the line faults only an
#: emulator's test channel makes (performer ``fault``)
OP_ACTS = {**OPTIONAL_ACTS, "power_cut_mid_deal": "power", "reboot": "fault", "deal_misread": "fault",
           "shoe_error": "fault", "lost_request": "fault", "corrupt_answers": "fault", "supply_on": "power",
           "line_drop": "fault", "shoe_refusal": "fault"}

MACHINE_PERFORMERS = ("test-channel", "actuator", "supply")
SETTLE_TIMEOUT_S = 5.0
#: how long the shoe may say ``dealing`` after a deal's answer before its cards are out (s)
DEAL_DONE_S = 2.0
#: how long the shoe's error event may take after the test channel's answer (s)
SHOE_ERROR_S = 1.0
#: how long the events are read after a shoe command that must deal no card (s)
REFUSED_DEAL_S = 0.05
#: how long a NAK BAD_CRC may take after a corrupted request (s); none is required, and one coming later would
#: fail the request after it (a NAK with SEQ 0 fails every outstanding request, docs/protocol.md section 3)
BAD_FRAME_NAK_S = 1.0
#: the silence after a partial frame (docs/protocol.md section 2: abandoned after 500 ms on an emulator): at
#: least this, and twice the device's own partial-frame timeout (the profile's timing.frame_timeout_ms)
STALL_SILENCE_S = 1.0
#: the gap before the last byte of a ping sent slowly (bad_frame kind=late-byte): at most this, and a fifth of
#: the device's own partial-frame timeout (section 2 gives the host's 250 ms and the emulators' 500 ms, and
#: leaves a device's own to its maker: the profile's timing.frame_timeout_ms)
LATE_BYTE_S = 0.1


def frame_gaps(timeout_ms: Decimal) -> tuple[float, float]:
    """(the late byte's gap, the stalled frame's silence) in seconds for a device that abandons a partial frame
    after ``timeout_ms``: the late byte well inside it, the silence well past it."""
    timeout_s = float(timeout_ms) / 1000
    return min(LATE_BYTE_S, timeout_s / 5), max(STALL_SILENCE_S, 2 * timeout_s)
#: how long another role's command may take to be answered (NAK UNKNOWN_CMD) (s)
FOREIGN_S = 1.0
#: the pace of the paced deals (shoe.status is read during them)
PACE_US = 20_000
#: the pace of the paced deals a second test.deal is sent during (one in two): slow enough that it comes while
#: the shoe is still dealing on a loaded host
BUSY_PACE_US = 250_000
#: how long that test.deal may take to be answered (s)
BUSY_S = 1.0
#: the pace of a deal the power is cut in (after its first card): the second is far off on a loaded host
CUT_PACE_US = 400_000
#: after the power comes back, how long its lockout event (cause power) is waited for (s)
POWER_EVENT_S = 1.0
#: after power-up, how long the host sends nothing and listens for the lockout event (s); a table that
#: takes longer to come back is pinged then, and its event must still come before its first answer
POWER_QUIET_S = 1.0
#: a controller reboot (line fault ``reboot``): how long it stays silent (ms)
REBOOT_MS = 200
#: how long a ping whose answer a bad-crc or garbage line fault corrupts is waited for (s)
CORRUPT_WAIT_S = 0.15
#: how long a ping the no-answer fault loses after the round.open it lost is waited for (s): none may come
LOST_PING_S = 0.15
#: how far into a reboot's silence a request is sent to be lost, and how long it is waited for (s)
REBOOT_SILENT_S = 0.04
#: every how many rounds timed with the counter one is timed with the counter set up by CONF:TINT alone
CONF_ALONE_EVERY = 6
#: every how many button presses with wagering open the counter is armed before the press
STOP_FIRST_EVERY = 2
#: the measurement timeout (ms) then: the measurement must time out, so it is kept short
STOP_FIRST_TIMEOUT_MS = 300
#: every how many power cycles through a bench supply one is the line fault power-loss and OUTP ON alone
POWER_LOSS_EVERY = 5
#: how long the table may take to go dark after the power-loss line fault, and to come back after OUTP ON (s)
POWER_LOSS_DARK_S = 2.0
POWER_LOSS_BACK_S = 5.0
#: how long the table's events are read after an OUTP ON sent with the supply's output on (s)
ON_WHILE_ON_S = 0.3
#: the line fault disconnect: how long after it the line drops (ms; section 7: "at least 50"), and how much longer
#: the host waits before it reads the other lines (s)
DROP_AFTER_MS = 50
DROP_SETTLE_S = 0.15
#: how long an answer to a request the device must lose is waited for (s): the host's own request deadline
LOST_WAIT_S = 1.0
#: an act a relay or supply performs: how long its lockout event is waited for (s)
ACT_EVENT_S = 0.1
#: host-stamp jitter samples (harness.bench.jitter) where the bench has no time-interval counter
JITTER_SAMPLES = 50
_MS = Decimal("0.001")
ROLES = ("shoe", "sensors", "controller")


def why_not_explorable(profile: Profile) -> str | None:
    """Why the profile's bench cannot be explored (an act only a person performs), or None."""
    for kind in NEEDED_ACTS:
        who = profile.bench.performer(kind).kind
        if who not in MACHINE_PERFORMERS:
            return (f"the explorer plays thousands of operations and cannot ask a person for each: act '{kind}' is "
                    f"performed by {who} on this bench (it needs the test channel; docs/explore.md)")
    return None


def line_of(profile: Profile, role: str) -> str | None:
    """The port the profile names for ``role``'s device, or None where it names none or the built-in emulators
    (which give each device a line of its own): two roles with the same line are one device."""
    port = getattr(profile.devices.get(role), "port", None)
    return None if port in (None, EMULATOR) else str(port)


def framed_roles(profile: Profile) -> tuple[str, ...]:
    """The roles the profile reaches through the reference protocol's own drivers, each on a line of its own
    (a broken frame or another role's command is the host's act on that line)."""
    lines = [line_of(profile, role) for role in ROLES]
    return tuple(role for role, line in zip(ROLES, lines, strict=True)
                 if getattr(profile.devices.get(role), "driver", None) == f"reference-{role}"
                 and (line is None or lines.count(line) == 1))


def available_ops(profile: Profile) -> set[str]:
    """Names of the optional operations some machine performer of the bench can carry out."""
    out = set()
    for op, kind in OPTIONAL_ACTS.items():
        if profile.bench.performer(kind).kind in MACHINE_PERFORMERS:
            out.add(op)
    if profile.bench.performer("fault").kind == "test-channel":  # line faults only an emulator's channel makes
        out |= {op for op, act in OP_ACTS.items() if act == "fault"}
    framed = framed_roles(profile)
    if {"controller", "shoe"} <= set(framed):
        out.add("bad_frame")  # the host's own act: a frame of the reference protocol with its CRC broken
    if len(framed) == len(ROLES):
        out.add("foreign")  # the host's own act: a command of another device's role (section 6)
    if profile.devices.get("power") is None and "power_cycle" in out \
            and profile.bench.performer("power").kind == "supply":
        out.discard("power_cycle")
    if "power_cycle" in out and profile.bench.performer("power").kind == "supply" \
            and profile.devices.get("power") is not None:
        out.add("supply_on")  # the host's own act on the bench supply (docs/protocol.md section 9)
    if "power_cycle" in out and profile.bench.performer("deal").kind == "test-channel":
        out.add("power_cut_mid_deal")
    return out


class _Stage:
    """What a performer may use of the explorer (the runner's :class:`~harness.bench.performers.Stage`)."""

    def __init__(self, rig: Rig, round_length: Callable[[list[Card]], int | None]) -> None:
        self.rig = rig
        self._round_length = round_length
        self.ctrl_events: list[DeviceEvent] = []

    def pump(self, timeout_s: float = 0.0) -> None:
        if self.rig.controller is not None:
            self.ctrl_events.extend(self.rig.controller.events(timeout_s))

    def wait_for(self, what: str, pred: Callable[[], bool], timeout_s: float = 5.0) -> None:
        deadline = time.monotonic() + timeout_s
        while not pred():
            if time.monotonic() > deadline:
                raise DeviceTimeout(f"{what} not seen within {timeout_s} s")
            self.pump(0.02)

    def cards_read(self) -> list[Card]:
        return []

    def sensor_events(self) -> list[DeviceEvent]:
        return []

    def controller_events(self) -> list[DeviceEvent]:
        return list(self.ctrl_events)

    def round_length(self, cards: list[Card]) -> int | None:
        return self._round_length(cards)

    def where(self) -> tuple[str, str]:
        return ("explore", "")


def hello_ms(device: Any) -> Decimal | None:
    """The answer time (ms, host stamps) of the first request on ``device``'s line (``hello``), or None."""
    link = getattr(device, "link", None)
    transcript = getattr(link, "transcript", None)
    if transcript is None:
        return None
    sent: dict[Any, int] = {}
    for e in transcript.since(0):
        if e.kind != "frame":
            continue
        if e.fields.get("type") == "REQ" and (e.fields.get("payload") or {}).get("cmd") == "hello":
            sent[e.fields.get("seq")] = e.t_ns
        elif e.fields.get("type") in ("RSP", "NAK") and e.fields.get("seq") in sent:
            return (Decimal(e.t_ns - sent[e.fields.get("seq")]) / Decimal(1_000_000)).quantize(_MS)
    return None


def _on_off(on: bool) -> str:
    """An output state as OUTP? reads it (docs/protocol.md section 9: ``1`` / ``0``)."""
    return "1" if on else "0"


def served_here(instrument: Any) -> bool:
    """Whether a VISA instrument is served from this host (a loopback resource: an emulated bench's, or a
    vendor fixture's run beside the harness) rather than being a box of its own on the bench."""
    name = str(getattr(instrument, "resource_name", "")).lower()
    return "::127.0.0.1::" in name or "::localhost::" in name


class ExploredTable:
    """The device under test, as the explorer drives and reads it."""

    def __init__(self, profile: Profile, rig: Rig, performers: Performers, *, royal9: bool) -> None:
        self.profile = profile
        self.rig = rig
        self.performers = performers
        self.royal9 = royal9
        shoe, sensors, ctrl = rig.shoe, rig.sensors, rig.controller
        if shoe is None or sensors is None or ctrl is None:
            raise DeviceError("the explorer needs a shoe, bet sensors and a progressive controller")
        self.shoe: Shoe = shoe
        self.sensors: BetSensors = sensors
        self.ctrl: ProgressiveController = ctrl
        self.stage = _Stage(rig, lambda cards: None)
        #: each line's frames dropped for failing their check (docs/protocol.md section 2), taken after each operation
        self.frames = FrameWatch(rig)
        self.lockout_wait_s = float(profile.timing.lockout_deadline_ms) / 1000 + 0.2
        #: cards the round dealing now still needs after its first (ops.DealRest)
        self.round_rest = 0
        #: the events of the step being played, as received: (role, event)
        self.step_events: list[tuple[str, DeviceEvent]] = []
        #: the bench's host-stamp jitter (ms), measured once where there is no counter
        self.jitter_ms: Decimal | None = None
        self._jitter_measured = False
        self.rest_deals = 0
        #: the bench supply's voltage read before the last power cycle through it (set again after it)
        self.supply_volts: Decimal | None = None
        shoe_spec = profile.devices.get("shoe")
        #: the reference protocol's shoe: one ordered line, its events pushed as they happen (docs/protocol.md
        #: section 5), so every card it counts in shoe.status has its event read before that answer
        self.shoe_events_in_order = shoe_spec is not None and shoe_spec.driver == "reference-shoe"
        #: the rounds whose lock-out the time-interval counter measured (a later round it measures nothing in
        #: is the lock-out line's, not the bench wiring's: the same line measured before)
        self.counter_edges = 0
        #: rounds timed with the counter so far: every CONF_ALONE_EVERY-th is timed with the counter set up by
        #: ``CONF:TINT`` and the levels alone, its slopes as CONF leaves them ("slopes positive")
        self.counter_rounds = 0
        #: button presses with wagering open so far: before every STOP_FIRST_EVERY-th the counter is armed, so that
        #: its stop edge (the line's rise) comes before its start edge (the next first card)
        self.open_presses = 0
        #: the counter was so armed, and the first card after the press is its start edge
        self.counter_stop_first = False
        #: power cycles so far: every POWER_LOSS_EVERY-th through a bench supply is the power-loss line fault and
        #: the supply's OUTP ON alone
        self.power_cycles = 0
        #: the wagers are placed by the test channel: no bet-sensor event may come (docs/protocol.md section 11)
        self.wagers_by_machine = performers.performer("wager").name == "test-channel"
        #: the last observation's layout (seat, type, amount), for asking a removal again
        self.last_layout: tuple[tuple[int, str, int], ...] = ()
        self.layout_before: tuple[tuple[int, str, int], ...] = ()
        #: whether wagering was closed at the last observation, and before the step being played
        self.last_locked = True
        self.locked_before = True
        #: the answer times of the reads and acts (docs/protocol.md section 5)
        self.clock = AnswerClock(self._lines, float(profile.timing.response_timeout_ms) / 1000)
        self.late_byte_s, self.stall_s = frame_gaps(profile.timing.frame_timeout_ms)

    # ------------------------------------------------------------------ reads

    def identity(self, times: dict[str, Decimal] | None = None) -> dict[str, str | None]:
        """Every device's identity (docs/protocol.md 6.1), as ``"<role> <field>"`` -> value; with ``times``,
        each device's answer time (ms, the host's own delay taken off) by role."""
        out: dict[str, str | None] = {}
        seen: set[Any] = set()
        for role, dev in (("shoe", self.shoe), ("sensors", self.sensors), ("controller", self.ctrl)):
            port = line_of(self.profile, role)
            if dev in seen or (port is not None and port in seen):
                continue  # one device playing two roles answers one identity, once
            seen |= {dev, *((port,) if port is not None else ())}
            t0 = time.perf_counter()
            answer = dev.identity()
            if times is not None:
                times[role] = device_ms(t0)
            for key, value in answer.to_dict().items():
                out[f"{role} {key}"] = value
        return out

    # ------------------------------------------------------------------ answer times of the acts

    def _lines(self) -> list[tuple[str, Any]]:
        out = []
        for role, dev in (("shoe", self.shoe), ("sensors", self.sensors), ("controller", self.ctrl)):
            link = getattr(dev, "link", None)
            if link is not None and getattr(link, "transcript", None) is not None:
                out.append((role, dev))
        return out

    def _probe(self, role: str, cmd: str, args: Mapping[str, Any], obs: Observed) -> Mapping[str, Any] | None:
        """The same request in a form that changes nothing in the state the act left, or None where
        there is none: a write of the configuration fields as they now stand (section 6.4: "A write of
        the values in force changes nothing"), the same wager at the same amount where it was accepted
        (it replaces itself) or refused, a removal again (REFUSED: nothing to remove), a refused void or
        round.open again (a round taken or voided is not asked again: that would be another path), no
        more bets or the button again once that cause stands, the reset key again once nothing is pending
        for that meter."""
        if cmd == "config.set":
            if obs.config is None:
                return None
            raw = self.ctrl.config().raw
            same: dict[str, Any] = {}
            for key, value in args.items():
                if key == "meters" and isinstance(value, Mapping):
                    meters = raw.get("meters") or {}
                    same["meters"] = {m: {f: (meters.get(m) or {}).get(f) for f in dict(fields)}
                                      for m, fields in value.items() if m in meters}
                elif key in raw:
                    same[key] = raw[key]
            return same if same else None
        if cmd == "wager.place":
            listed: dict[tuple[Any, Any], Any] = {(seat, kind): amount for seat, kind, amount in obs.layout}
            if obs.accepted is False or listed.get((args.get("seat"), args.get("type"))) == args.get("amount"):
                return args
            return None
        if cmd == "wager.remove":
            return args
        if cmd in ("round.settle", "round.open") and obs.code == "ok":
            # a round voided, settled or opened: asked again it is REFUSED, another answer on another path,
            # which says nothing of this one's time (judged at the next ask instead, AnswerClock.judge_acts)
            return None
        if cmd == "round.settle":
            return args
        if cmd == "round.open":
            return args if (not obs.locked or obs.pending) else None
        if cmd in ("round.no_more_bets", "lockout.press") and not self.locked_before:
            # the act closed wagering (the contributions booked, the lock-out sent): asked again with wagering
            # closed, another path answers, which says nothing of this one's time (judged at the next closing)
            return None
        if cmd == "round.no_more_bets":
            return args if obs.locked and obs.cause == "no-more-bets" else None
        if cmd == "lockout.press":
            return args if obs.locked and obs.cause == "button" else None
        if cmd == "reset_key":
            return args if not any(p.meter == args.get("meter") for p in obs.pending) else None
        return None

    def _restore(self, cmd: str, args: Mapping[str, Any], obs: Observed) -> tuple[str, dict[str, Any]] | None:
        """The request that puts back what an act took away, so that the act can be asked again in the same
        state and leave it as it was: a wager removed (``removed: true``) placed again at the amount it had
        (where the removal took that wager alone; a removal refused is asked again as it is)."""
        if cmd != "wager.remove" or obs.fields.get("removed") is not True:
            return None
        gone = set(self.layout_before) - set(obs.layout)
        if len(gone) != 1 or not set(obs.layout) <= set(self.layout_before):
            return None
        seat, kind, amount = gone.pop()
        if (seat, kind) != (args.get("seat"), args.get("type")):
            return None
        return "wager.place", {"seat": seat, "type": kind, "amount": amount}

    def _lockout(self) -> tuple[bool, str | None]:
        request = getattr(self.ctrl, "request", None)
        if request is None:
            return self.ctrl.lockout_state(), "?"
        got = request("lockout.get")
        cause = got.get("cause")
        return bool(got.get("locked")), None if cause is None else str(cause)

    def read(self, obs: Observed) -> Observed:
        """Every observable, into ``obs``; each read's answer time judged (docs/protocol.md section 5)."""
        raw = self.clock.timed(obs, "config.get", self.ctrl.config).raw
        obs.config = normalise_config(raw, self.royal9)
        obs.config_game = str(raw["game"]) if isinstance(raw.get("game"), str) else None
        obs.config_mystery = raw.get("mystery")
        reading = self.clock.timed(obs, "meters.get", self.ctrl.meters)
        obs.meters = dict(reading.meters)
        obs.residual = {k: Decimal(v) for k, v in reading.residual.items()}
        div = reading.raw.get("diverted")
        obs.diverted = {str(k): v for k, v in div.items()} if isinstance(div, Mapping) else None
        obs.cumulative_paid = reading.cumulative_paid
        obs.paid_by_table = reading.paid_by_table
        obs.paid_by_attendant = reading.paid_by_attendant
        obs.pending = tuple(sorted(Pending(str(p.get("meter")), int(p.get("seat", 0)), int(p.get("amount", 0)),
                                           str(p.get("category")))
                                   for p in reading.raw.get("pending") or () if isinstance(p, Mapping)))
        listed = list(self.clock.timed(obs, "wager.list", self.sensors.wagers))
        obs.layout = self.last_layout = tuple(sorted((w.seat, w.type, w.amount) for w in listed))
        obs.layout_seats = tuple(w.seat for w in listed)
        obs.locked, obs.cause = self.clock.timed(obs, "lockout.get", self._lockout)
        self.last_locked = obs.locked
        st = self.clock.timed(obs, "shoe.status", self.shoe.status)
        obs.shoe = (st.cards_dealt, st.cards_remaining)
        obs.shoe_state = str(st.state) if st.state is not None else None
        obs.card_events_judged = self.shoe_events_in_order
        obs.sensor_events_judged = self.wagers_by_machine
        return obs

    # ------------------------------------------------------------------ acts

    def _perform(self, act: acts.Act) -> Any:
        return self.performers.perform(act, self.stage)

    def settle_lines(self, quiet_s: float = 0.05, limit_s: float = 1.0) -> None:
        """Let the events already on their way come in (the last act before this table was taken over: a round
        voided at the end of the case before), and forget them: until ``quiet_s`` passes with none, at most
        ``limit_s``."""
        deadline = time.monotonic() + limit_s
        while self.pull(quiet_s) and time.monotonic() < deadline:
            pass
        self.step_events = []

    def pull(self, timeout_s: float = 0.0) -> list[tuple[str, DeviceEvent]]:
        """The events that came since the last pull (the controller's, the shoe's and the bet sensors'), kept
        for the step."""
        got: list[tuple[str, DeviceEvent]] = []
        if isinstance(self.stage, _Stage) and self.stage.ctrl_events:
            got += [("controller", e) for e in self.stage.ctrl_events]
            self.stage.ctrl_events.clear()
        got += [("controller", e) for e in self.ctrl.events(timeout_s)]
        got += [("shoe", e) for e in self.shoe.events(0.0)]
        sensor_events = getattr(self.sensors, "events", None)
        if sensor_events is not None and self.sensors is not self.ctrl:
            got += [("sensors", e) for e in sensor_events(0.0)]
        self.step_events += got
        return got

    def _lock_events(self) -> list[DeviceEvent]:
        return [e for role, e in self.step_events if role == "controller" and e.name == "lockout"]

    def _power_events(self) -> list[DeviceEvent]:
        return [e for e in self._lock_events() if e.payload.get("cause") == "power"]

    def _wait_lock_event(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while not self._lock_events() and time.monotonic() < deadline:
            self.pull(0.01)

    def perform(self, op: ops.Op, round_need: int = 0) -> Observed:
        """Carry out ``op`` and read every observable after it.  ``round_need``: for ops.DealFirst, the
        cards the round takes (the model knows it from the cards loaded); for ops.LoadShoe in the middle
        of a round, the cards it still takes from the new shoe.  Every event the step brought
        (and any that came after the last step's reads) goes into the observation."""
        self.step_events = []
        for _role, dev in self._lines():
            dev.link.strict = True  # every field of every answer and event is compared: each held to the contract
        self.pull()
        self.layout_before = self.last_layout
        self.locked_before = self.last_locked
        obs = Observed(op=op.name)
        marks = self.clock.marks()
        strays = {role: len(dev.link.unmatched) for role, dev in self._lines()}
        try:
            self._act_and_read(op, obs, round_need)
        except DeviceTimeout:
            # a request unanswered while an answer came with a SEQ no request of the step had: the device
            # answered it with another SEQ (docs/protocol.md section 3: "SEQ echoes the REQ"), a finding
            faults = self._answers_misnumbered(marks, strays) or self._requests_skipped(marks)
            if not faults:
                raise
            obs.seq_faults += faults
            obs.unread = True
            return obs
        if obs.unread:
            return obs
        self.clock.judge_acts(marks, obs, lambda role, cmd, args: self._probe(role, cmd, args, obs),
                              lambda cmd, args: self._restore(cmd, args, obs))
        self.pull()
        obs.events = [(role, e.name, e.payload, e.seq) for role, e in self.step_events]
        return obs

    def _act_and_read(self, op: ops.Op, obs: Observed, round_need: int) -> None:
        try:
            self._act(op, obs, round_need)
        except DeviceNak as exc:
            obs.code, obs.fields = exc.code, {}
            reason = self._nak_refusal(op, exc.code) if isinstance(op, ops.PlaceWager) else None
            if reason is not None:
                obs.accepted, obs.reason = False, reason
        else:
            kind = {ops.PressLockout: "lockout-button", ops.NoMoreBets: "no-more-bets", ops.Comm: "comm",
                    ops.OpenRound: "open-round"}.get(type(op))
            if kind is not None and self.performers.performer(kind).name != "test-channel":
                self._wait_lock_event(ACT_EVENT_S)  # a relay's act: its event comes on its own time
        if obs.frame_stalled:
            obs.unread = True  # the line stayed out of step: nothing more is read from it
        if obs.unread:
            return
        self.read(obs)

    def _answers_misnumbered(self, marks: Mapping[str, int], strays: Mapping[str, int]) -> list[str]:
        """The answers since ``strays`` (each line's count of answers that matched no request) whose SEQ no
        request of the step (since ``marks``, each line's transcript) had, as a person reads them."""
        out = []
        for role, dev in self._lines():
            sent = {e.fields.get("seq") for e in dev.link.transcript.since(marks.get(role, 0))
                    if e.kind == "frame" and e.fields.get("type") == "REQ"}
            for code, seq in dev.link.unmatched[strays.get(role, 0):]:
                if (seq != 0 or code == "ok") and seq not in sent:  # a NAK's SEQ 0 is "the header cannot be trusted"
                    out.append(f"the {role} answered {code} with SEQ {seq}, which no request had (requests of the "
                               f"step: SEQ {', '.join(str(n) for n in sorted(x for x in sent if isinstance(x, int)))})")
        return out

    def _requests_skipped(self, marks: Mapping[str, int]) -> list[str]:
        """A request of the step left unanswered by a device that answers the next one: a ping sent on
        the line at once is answered.  Section 3: each request is answered with its SEQ; a device that
        skips one (a SEQ it mishandles) is a finding, a device that answers nothing more is the rig's."""
        def unanswered(dev: Any, mark: int) -> list[tuple[Any, Any]]:
            frames = [e for e in dev.link.transcript.since(mark) if e.kind == "frame"]
            answered = {e.fields.get("seq") for e in frames if e.fields.get("type") in ("RSP", "NAK")}
            return [(e.fields.get("seq"), (e.fields.get("payload") or {}).get("cmd")) for e in frames
                    if e.fields.get("type") == "REQ" and e.fields.get("seq") not in answered]

        out = []
        for role, dev in self._lines():
            if not unanswered(dev, marks.get(role, 0)):
                continue
            try:
                dev.link.call("ping", None, BAD_FRAME_NAK_S)
            except DeviceError:
                continue  # it answers nothing now: not a skipped request
            # read again once the ping is answered: a device on a loaded host may answer the request late,
            # before the ping (one line: in order); that is a slow answer, not a skipped one
            left = unanswered(dev, marks.get(role, 0))
            if left:
                seq, cmd = left[-1]
                out.append(f"the {role} left {cmd} (request SEQ {seq}) unanswered, and answered the ping sent "
                           "after it")
        return out

    def _nak_refusal(self, op: ops.PlaceWager, code: str) -> str | None:
        """The refusal a NAK to ``wager.place`` stands for (docs/protocol.md section 6.3), or None where it
        stays a NAK: BAD_ARGS or REFUSED for a seat the table does not have is ``bad-seat``; BAD_ARGS for
        a negative amount (outside the schema's cents) is ``bad-amount``."""
        if op.seat not in {s.seat for s in self.profile.rules.seats} and code in ("BAD_ARGS", "REFUSED"):
            return "bad-seat"
        if op.amount < 0 and code == "BAD_ARGS":
            return "bad-amount"
        return None

    def _act(self, op: ops.Op, obs: Observed, round_need: int) -> None:
        if isinstance(op, ops.OpenRound):
            number = self._perform(acts.OpenRound())
            obs.fields = {"round": number} if isinstance(number, int) else {}
        elif isinstance(op, ops.PlaceWager):
            res = self._perform(acts.PlaceWagers(wagers=(Wager(op.seat, op.type, op.amount),)))[0]
            obs.accepted, obs.reason = res.accepted, res.reason
            if not res.accepted and not res.reason:
                obs.reason = self._nak_refusal(op, "BAD_ARGS") or res.reason
        elif isinstance(op, ops.RemoveWager):
            removal = self._perform(acts.RemoveWager(seat=op.seat, type=op.type))
            if not removal.removed:
                obs.code = "REFUSED"
            obs.fields = {"removed": True} if removal.removed else {}
        elif isinstance(op, ops.PressLockout):
            self._arm_before_press()
            self._perform(acts.PressLockout())
            obs.fields = {"locked": True}
        elif isinstance(op, ops.NoMoreBets):
            self._perform(acts.NoMoreBets())
        elif isinstance(op, ops.LoadShoe):
            self._perform(acts.LoadShoe(cards=tuple(parse_card(c) for c in op.cards), decks=self.profile.rules.decks))
            if round_need:  # loaded again in the middle of a round: what the round still takes from it
                self.round_rest = round_need
        elif isinstance(op, (ops.DealFirst, ops.DealMisread)):
            self.round_rest = round_need - 1
            if isinstance(op, ops.DealMisread):
                self._perform(acts.InjectFault(role="shoe", fault="misread"))
            self._deal_first(obs)
        elif isinstance(op, ops.DealNext):
            self._deal_at_once(1, obs)
            self._until_dealt()
            self.round_rest -= 1
        elif isinstance(op, ops.DealRest):
            self._deal_rest(obs)
        elif isinstance(op, ops.ResetKey):
            amount = self._perform(acts.TurnResetKey(meter=op.meter))
            obs.fields = {"meter": op.meter, "amount": amount} if isinstance(amount, int) else {}
        elif isinstance(op, ops.ConfigWrite):
            answer = self.ctrl.set_config(**dict(op.changes))
            obs.config_answer = normalise_config(answer.raw, self.royal9)
        elif isinstance(op, ops.PowerCycle):
            self._power_cycle(obs)
        elif isinstance(op, ops.PowerCutMidDeal):
            self._power_cut_mid_deal(obs)
        elif isinstance(op, ops.Comm):
            self._perform(acts.SetComm(connected=op.up))
            if not op.up:
                self._until_locked()
        elif isinstance(op, ops.VoidRound):
            self._void(obs)
        elif isinstance(op, ops.VoidRounds):
            self._void_rounds(op.count, obs)
        elif isinstance(op, ops.Reconnect):
            self.reconnect(op.role, obs)
        elif isinstance(op, ops.Reboot):
            if op.role == "controller":
                self._reboot(obs)
            else:
                self._reboot_other(op.role, obs)
        elif isinstance(op, ops.CorruptAnswers):
            self._corrupt_answers(op, obs)
        elif isinstance(op, ops.LineDrop):
            self._line_drop(op, obs)
        elif isinstance(op, ops.ShoeRefusal):
            self._shoe_refusal(op)
        elif isinstance(op, ops.LostRequest):
            self._lost_request(op, obs)
        elif isinstance(op, ops.SupplyOn):
            self._supply_on_while_on(obs)
        elif isinstance(op, ops.ShoeError):
            self._shoe_error()
        elif isinstance(op, ops.BadFrame):
            self._bad_frame(op, obs)
        elif isinstance(op, ops.Pipelined):
            self._pipelined(op, obs)
        elif isinstance(op, ops.SeqFrom):
            self._seq_from(op, obs)
        elif isinstance(op, ops.ForeignCommand):
            reply = self._link(op.role).call(op.cmd, {}, FOREIGN_S)
            obs.fields = {k: v for k, v in reply.payload.items() if k != "ok"}
        else:  # pragma: no cover - every op is handled above
            raise DeviceError(f"the explorer cannot perform {op.name}")

    def _supply_on_while_on(self, obs: Observed) -> None:
        """The bench supply's ``OUTP ON`` with its output on (section 9), then ON_WHILE_ON_S of its events: the
        step's reads after it judge that nothing moved (a supply that restarts its output cuts the table)."""
        supply = self.rig.power
        if supply is None:
            raise DeviceError("supply_on: the bench has no power supply")
        supply.output(True)
        obs.instrument_reads.append(("the supply's OUTP? after OUTP ON with the output on", "1",
                                     _on_off(supply.output_state())))
        end = time.monotonic() + ON_WHILE_ON_S
        while time.monotonic() < end:
            self.pull(0.02)

    def _lost_request(self, op: ops.LostRequest, obs: Observed) -> None:
        """The controller's line fault ``no-answer`` (docs/protocol.md section 7) for ``op.count`` requests,
        then ``round.open``: the answer, if any comes within LOST_WAIT_S (none may: "not executed, not
        answered"); with a count over one, pings after it (each lost too, waited for LOST_PING_S), then a
        ping that must be answered (the next request after the lost ones), and no lost one answered late."""
        link = self._link("controller")
        self._perform(acts.InjectFault(role="controller", fault="no-answer", args=(("count", op.count),)))
        try:
            reply = link.call("round.open", {}, LOST_WAIT_S)
        except DeviceTimeout:
            obs.code = LOST
        except DeviceNak as exc:
            obs.code = exc.code
        else:
            obs.code = "ok"
            obs.fields = {k: v for k, v in reply.payload.items() if k != "ok"}
        if op.count < 2:
            return
        lost = link.pings_lost(op.count - 1, LOST_PING_S, LOST_WAIT_S)
        self._judge_lost(lost, f"the {op.count} requests the no-answer fault loses (the round.open the first)",
                         R.LOST_REQUEST.name, obs)
        self.pull(0.05)
        late = lost.late(link)
        if late:
            obs.lost_faults.append((f"the pings the no-answer fault lost (SEQ {', '.join(map(str, late))})",
                                    "lost: never answered", "answered late", R.LOST_REQUEST.name))

    def _corrupt_answers(self, op: ops.CorruptAnswers, obs: Observed) -> None:
        """The line fault ``bad-crc`` or ``garbage`` of ``op.role`` with ``op.count`` (docs/protocol.md section 7;
        its own answer intact), then ``op.count`` pings, each with no answer the host can read (waited for
        CORRUPT_WAIT_S), and one more, which must be answered: the fault corrupts the next count frames (answers),
        no more.  With ``bad-crc`` every corrupted answer is a whole frame whose CRC fails: exactly count of them
        dropped.  The line's dropped frames are taken here, so the check after every operation (rule
        ``frames-sent``) does not count these."""
        link = self._link(op.role)
        self.frames.take()
        self._perform(acts.InjectFault(role=op.role, fault=op.kind, args=(("count", op.count),)))
        what = f"the {op.role}'s {op.kind} line fault with count {op.count}"
        self._judge_lost(link.pings_lost(op.count, CORRUPT_WAIT_S, LOST_WAIT_S), f"the answers {what} corrupts",
                         R.LINE_FAULTS.name, obs)
        self.pull(0.05)
        dropped = sum(len(errors) for role, _quiet, errors in self.frames.take() if role == op.role)
        if op.kind == "bad-crc" and dropped != op.count:
            obs.lost_faults.append((f"frames dropped for a failed CRC after {what}", f"{op.count}", f"{dropped}",
                                    R.LINE_FAULTS.name))

    def _shoe_refusal(self, op: ops.ShoeRefusal) -> None:
        """``test.load`` past the decks with ``check_decks``, or ``test.deal`` of ``count`` 0 (a NAK is the
        step's answer), then a moment for any card event the shoe should not send."""
        load, deal = getattr(self.shoe, "load", None), getattr(self.shoe, "deal", None)
        if load is None or deal is None:
            raise DeviceError("the shoe's driver has no test channel's load and deal")
        if op.kind == "overfull":
            load(["AS"] * (self.profile.rules.decks + 1), check_decks=True)
        else:
            deal(count=0, pace_us=0)
        self.pull(REFUSED_DEAL_S)

    def _line_drop(self, op: ops.LineDrop, obs: Observed) -> None:
        """The line fault ``disconnect`` of ``op.role`` (docs/protocol.md section 7: ``after_ms`` 50, "the line
        drops"), then, once it has dropped, a ping to each other device: each answers (its line is its own); the
        dropped line opened again as a host reconnecting opens it (:meth:`reconnect`)."""
        self._perform(acts.InjectFault(role=op.role, fault="disconnect", args=(("after_ms", DROP_AFTER_MS),)))
        time.sleep(DROP_AFTER_MS / 1000 + DROP_SETTLE_S)
        dropped = [op.role]
        for role in ("controller", "shoe", "sensors"):
            if role == op.role or not self.can_reconnect(role):
                continue
            try:
                self._link(role).call("ping", None, LOST_WAIT_S)
            except DeviceError as exc:
                whose = op.role + ("'" if op.role.endswith("s") else "'s")
                obs.lost_faults.append((f"a ping to the {role} after the {whose} line fault disconnect",
                                        f"answered (the line that drops is the {whose})",
                                        f"{type(exc).__name__}: {exc}"[:300], R.LINE_DROP.name))
                dropped.append(role)
        for role in dropped:  # every line down opened again before any is read
            self.reconnect(role, obs, pull=False, identity=False)
        if not obs.unread:
            obs.identity = self.identity()
        self.pull()

    @staticmethod
    def _judge_lost(lost: LostPings, what: str, rule: str, obs: Observed) -> None:
        """Each ping of ``lost`` answered all the same, and the ping after them unanswered, as differences."""
        for n, seq, answer in lost.answered:
            obs.lost_faults.append((f"ping {n} (SEQ {seq}) of {what}", "no answer the host can read",
                                    f"answered: {answer}", rule))
        if not lost.next_answered:
            obs.lost_faults.append((f"the ping after {what}", "answered (the fault takes count, no more)",
                                    f"no answer within {LOST_WAIT_S} s", rule))

    def _shoe_error(self) -> None:
        """The shoe's ``error`` fault (docs/protocol.md section 7), then up to SHOE_ERROR_S for its event."""
        self._perform(acts.InjectFault(role="shoe", fault="error", args=(("code", "E7"), ("text", "card jam"))))
        deadline = time.monotonic() + SHOE_ERROR_S
        while not any(role == "shoe" and e.name == "error" for role, e in self.step_events) \
                and time.monotonic() < deadline:
            self.pull(0.01)

    def _link(self, role: str) -> FramedLink:
        driver = {"controller": self.ctrl, "shoe": self.shoe, "sensors": self.sensors}[role]
        link = getattr(driver, "link", None)
        if not isinstance(link, FramedLink):
            raise DeviceError(f"the {role}'s driver sends no frames of the reference protocol")
        return link

    def _bad_frame(self, op: ops.BadFrame, obs: Observed) -> None:
        """A broken request to ``op.role`` (docs/protocol.md section 2), the device's NAK (if any) waited for
        before anything else is asked.  ``crc``: a request that would change what is observed had the device
        taken it (the controller's ``lockout.press``, the shoe's ``test.deal`` of one card, the sensors'
        ``wager.list``) with its CRC broken; ``payload``: a ping holding a float, its CRC good."""
        link = self._link(op.role)
        self.pull()
        obs.frame_kind = op.kind
        try:
            if op.kind == "stall":
                obs.frame_answers = link.send_stalled(self.stall_s, timeout_s=BAD_FRAME_NAK_S)
            elif op.kind == "oversized":
                obs.frame_answers = link.send_oversized(timeout_s=BAD_FRAME_NAK_S)
            elif op.kind == "nested":
                obs.frame_seq, obs.frame_answers = link.send_nested(timeout_s=BAD_FRAME_NAK_S)
            elif op.kind == "late-byte":
                obs.frame_seq, obs.frame_answers = link.send_late_byte(self.late_byte_s, timeout_s=BAD_FRAME_NAK_S)
            elif op.kind == "split-start":
                # the SOF's first byte alone, then the rest of the header, then the payload and CRC
                obs.frame_seq, obs.frame_answers = link.send_in_pieces(self.late_byte_s, (1, 5),
                                                                       timeout_s=BAD_FRAME_NAK_S)
            elif op.kind == "spaced":
                obs.frame_seq, obs.frame_answers = link.send_in_pieces(
                    0.0, (), body=SPACED, timeout_s=BAD_FRAME_NAK_S, what="a ping with whitespace between its tokens")
            elif op.kind == "after-false-header":
                obs.frame_seq, obs.frame_answers = link.send_in_pieces(
                    0.0, (), lead=FALSE_HEADER, timeout_s=BAD_FRAME_NAK_S,
                    what="a header announcing 5000 bytes, then a ping in the same write")
            elif op.kind == "full-length":
                obs.frame_seq, obs.frame_answers = link.send_in_pieces(
                    0.0, (), body=FULL_LENGTH, timeout_s=BAD_FRAME_NAK_S,
                    what=f"a ping of {len(FULL_LENGTH)} payload bytes (the largest LEN)")
            elif op.kind == "crc-at-once":
                self._crc_at_once(link, op.role, obs)
            elif op.kind != "crc":
                obs.frame_seq, obs.frame_answers = link.send_malformed(
                    timeout_s=BAD_FRAME_NAK_S, kind="float" if op.kind == "payload" else op.kind)
            else:
                cmd, args = {"controller": ("lockout.press", {}), "shoe": ("test.deal", {"count": 1, "pace_us": 0}),
                             "sensors": ("wager.list", {})}[op.role]
                obs.frame_answers = link.send_corrupted(cmd, args, timeout_s=BAD_FRAME_NAK_S)
        except DeviceTimeout:
            obs.frame_stalled = True  # no ping after it answered: the finding, not the rig's fault

    def _crc_at_once(self, link: FramedLink, role: str, obs: Observed) -> None:
        """A ping with its CRC broken, good pings at once after it: the good one answered within the deadline
        (docs/protocol.md sections 2, 5), less the host's own delay; a late one asked again (up to
        ANSWER_RETRIES more times, a little apart) and judged by the fastest, so that a loaded host is never
        taken for a slow receiver."""
        fastest: Decimal | None = None
        gap = ANSWER_RETRY_GAP_S
        for _ in range(ANSWER_RETRIES + 1):
            answers, took_s = link.send_corrupted_at_once(timeout_s=BAD_FRAME_NAK_S)
            obs.frame_answers += answers
            ms = (Decimal(str(took_s - HOST_ECHO.delay_s())) * 1000).quantize(Decimal("0.001"))
            fastest = ms if fastest is None else min(fastest, ms)
            if fastest <= ANSWER_DEADLINE_MS:
                return
            time.sleep(gap)
            gap *= 2
        obs.lost_faults.append((f"the {role}'s answer to a good ping sent at once after a ping whose CRC failed "
                                f"(fastest of {ANSWER_RETRIES + 1})", f"within {ANSWER_DEADLINE_MS} ms",
                                f"{fastest} ms", R.ANSWER_TIME.name))

    def _pipelined(self, op: ops.Pipelined, obs: Observed) -> None:
        """``op.count`` pings in one write (docs/protocol.md section 4), each answer waited for."""
        link = self._link(op.role)
        seen = len(link.unmatched)
        got = link.call_many([("ping", {})] * op.count, BAD_FRAME_NAK_S, one_write=True)
        for i, answer in enumerate(got, 1):
            if isinstance(answer, DeviceTimeout):
                obs.seq_faults.append(f"ping {i} of {op.count} sent to the {op.role} in one write: no answer "
                                      f"with its SEQ{self._stray(link, seen)}")
            elif isinstance(answer, DeviceError):
                raise answer

    def _seq_from(self, op: ops.SeqFrom, obs: Observed) -> None:
        """The requests to ``op.role`` numbered on from ``op.seq``, a ping the first (docs/protocol.md section 4)."""
        link = self._link(op.role)
        link.number_from(op.seq)
        seen = len(link.unmatched)
        try:
            link.call("ping", None, BAD_FRAME_NAK_S)
        except DeviceTimeout:
            obs.seq_faults.append(f"a ping to the {op.role} numbered SEQ {op.seq}: no answer with its SEQ"
                                  f"{self._stray(link, seen)}")
            obs.unread = True  # every later request is numbered on from there: none would be answered either

    @staticmethod
    def _stray(link: Any, seen: int) -> str:
        """The answers that matched no request since ``seen`` (of ``link.unmatched``), for a person."""
        stray = [f"{code} with SEQ {seq}" for code, seq in link.unmatched[seen:]]
        return f" (answered {', '.join(stray)})" if stray else ""

    def _reboot_other(self, role: str, obs: Observed) -> None:
        """The line fault ``reboot`` of the shoe or the bet sensors (docs/protocol.md section 7): silent a moment,
        back from non-volatile storage; waited for until it answers a ping, its identity read again."""
        self._perform(acts.InjectFault(role=role, fault="reboot", args=(("after_ms", 0), ("duration_ms", REBOOT_MS))))
        lost = self._sent_while_silent(role)
        time.sleep(REBOOT_MS / 1000 + 0.05)
        driver = self.shoe if role == "shoe" else self.sensors
        ping = getattr(driver, "ping", None)
        deadline = time.monotonic() + 10.0
        while ping is not None:
            try:
                ping()
                break
            except DeviceError:
                if time.monotonic() > deadline:
                    raise DeviceTimeout(f"the {role} did not answer within 10 s of its reboot") from None
                time.sleep(0.02)
        self.pull(0.05)
        self._back_from_reboot(role, lost, obs)
        obs.identity = self.identity()

    def _sent_while_silent(self, role: str) -> int | None:
        """A ``ping`` sent REBOOT_SILENT_S into a reboot (``after_ms`` 0), while the device is silent: lost, so
        no answer may come, then or once the device is back (docs/protocol.md section 7: "requests time out
        meanwhile").  Its SEQ, or None where the line is not the reference protocol's or the device answered
        at once (not yet silent: nothing to judge)."""
        try:
            link = self._link(role)
        except DeviceError:
            return None
        time.sleep(REBOOT_SILENT_S)
        seq, got = link.call_seq("ping", None, REBOOT_SILENT_S)
        return seq if got is None else None

    def _back_from_reboot(self, role: str, lost: int | None, obs: Observed) -> None:
        """Once a rebooted device answers again: ``hello`` on the same line, answered with a version the host
        offers and as the device's own role (docs/protocol.md section 6.1; a device restarted from its
        non-volatile storage is the same device); the ping sent while it was silent never answered."""
        driver = {"controller": self.ctrl, "shoe": self.shoe, "sensors": self.sensors}[role]
        hello = getattr(driver, "hello", None)
        if hello is not None:
            try:
                hello()
            except HelloError as exc:
                obs.hello_faults.append(f"after its reboot: {exc}")
        if lost is not None and any(seq == lost for _code, seq in self._link(role).unmatched):
            obs.lost_faults.append((f"the {role}'s ping (SEQ {lost}) sent while it was silent in its reboot",
                                    "lost: not executed, not answered (docs/protocol.md section 7, reboot: "
                                    "\"requests time out meanwhile\")", "answered once the device was back",
                                    R.LOST_REQUEST.name))

    def can_void(self) -> bool:
        return callable(getattr(self.ctrl, "settle_round", None))

    def can_reconnect(self, role: str = "controller") -> bool:
        """Whether the host can close its line to ``role`` and open it again: a line of its own (a port), not
        shared with another role's device."""
        spec = self.profile.devices.get(role)
        if spec is None or spec.port is None:
            return False
        if spec.is_emulated:  # the built-in emulator gives each role a line of its own (a pty or a socket)
            return True
        others = [self.profile.devices.get(r) for r in ("controller", "shoe", "sensors") if r != role]
        return all(o is None or o.port != spec.port for o in others)

    def reconnect(self, role: str = "controller", obs: Observed | None = None, *, pull: bool = True,
                  identity: bool = True) -> None:
        """Close the host's line to ``role`` and open it again (a new driver on the same port, ``hello``
        first).  The ``hello`` answer is timed (docs/protocol.md section 5): a first answer on a new line
        cannot be asked again, its condition can, so one late at two reconnections in a row is slow."""
        addresses = dict(getattr(self.rig.emulator, "addresses", None) or {})
        entry = device_entry(self.profile, role, addresses)
        if pull:
            self.pull()
        old = {"controller": self.ctrl, "shoe": self.shoe, "sensors": self.sensors}[role]
        old.close()
        try:
            new = open_device(role, entry)
        except HelloError as exc:
            if obs is None:
                raise
            obs.hello_faults.append(str(exc))  # the line is not the contract's: nothing more is read on it
            obs.unread = True
            return
        want = {"controller": ProgressiveController, "shoe": Shoe, "sensors": BetSensors}[role]
        if not isinstance(new, want):
            raise DeviceError(f"the {role}'s driver did not open as a {want.__name__}")
        if role == "controller":
            self.rig.controller = self.ctrl = new  # type: ignore[assignment]
        elif role == "shoe":
            self.rig.shoe = self.shoe = new  # type: ignore[assignment]
        else:
            self.rig.sensors = self.sensors = new  # type: ignore[assignment]
        if obs is not None:
            self.clock.hello_after_reconnect(role, hello_ms(new), obs)
            if identity:  # the device greeted on a new line is the same device: its identity as at the start (6.1)
                obs.identity = self.identity()

    def _void(self, obs: Observed) -> None:
        settle = getattr(self.ctrl, "settle_round", None)
        if settle is None:
            raise DeviceError("the controller's driver cannot send round.settle")
        got = settle()
        obs.fields = {k: got.get(k) for k in ("round", "void") if k in got}
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            ends = [e for role, e in self.step_events if role == "controller" and e.name == "round_end"]
            if ends:
                p = ends[-1].payload
                obs.round_end = int(p["round"]) if isinstance(p.get("round"), int) else None
                obs.round_end_void = p.get("void") is True
                return
            self.pull(0.02)

    def _void_rounds(self, count: int, obs: Observed) -> None:
        """``count`` rounds opened and voided one after the other; the round numbers given, and the events
        of the last round waited for (its ``round_end``), as :meth:`_void` does for one."""
        settle = getattr(self.ctrl, "settle_round", None)
        if settle is None:
            raise DeviceError("the controller's driver cannot send round.settle")
        numbers: list[Any] = []
        for _ in range(count):
            numbers.append(self._perform(acts.OpenRound()))
            settle()
            self.pull()
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline and sum(e.name == "round_end" for r, e in self.step_events
                                                  if r == "controller") < count:
            self.pull(0.02)
        obs.fields = {"first_round": numbers[0] if numbers else None,
                      "rounds_consecutive": all(isinstance(b, int) and isinstance(a, int) and b == a + 1
                                                for a, b in itertools.pairwise(numbers))}

    def _host_jitter(self) -> Decimal | None:
        jitter = getattr(self.stage, "host_jitter_ms", None)  # a certification run's, measured at its start
        if jitter is not None:
            return Decimal(jitter)
        if not self._jitter_measured:
            self._jitter_measured = True
            measured = bench_jitter.measure(self.rig, JITTER_SAMPLES)
            self.jitter_ms = Decimal(measured["jitter_ms"]) if measured else None
        return self.jitter_ms

    def _deal_first(self, obs: Observed) -> None:
        """The round's first card, and the lock-out it starts timed as the suites time it
        (harness.suites.run.timing): the time-interval counter armed before the card where the bench has
        one, else the host's receive stamps of the card event and the lockout event, judged with the
        bench's host-stamp jitter."""
        open_before = not self._lockout()[0]
        stop_first, self.counter_stop_first = self.counter_stop_first, False
        if stop_first and not open_before:
            self._deal_at_once(1, obs)
            self._until_dealt()
            self._fetch_after_stop_first(obs)
            return
        if stop_first:
            self._counter_back()
        counter = self.rig.counter if open_before else None
        conf_alone = counter is not None and self._conf_alone_now(counter)
        no_timeout = counter is not None and not conf_alone and self._no_timeout_now(counter)
        if counter is not None:
            counter.arm()
            counter.idn()  # answered after the arm: the counter has taken it before the card
        self._deal_at_once(1, obs)
        if not open_before:
            self._until_dealt()
            return
        deadline = time.monotonic() + self.lockout_wait_s
        while time.monotonic() < deadline:
            if any(e.payload.get("locked") for e in self._lock_events()):
                break
            self.pull(0.002)
        cards = self._cards_out()
        locks = [e for e in self._lock_events() if e.payload.get("locked")]
        if not locks:
            return
        interval = counter.fetch_interval_s() if counter is not None else None
        if isinstance(counter, ScpiCounter):
            self._fetch_again(counter, interval, obs)
        if no_timeout:
            self._counter_back()
            if interval is None:
                obs.instrument_reads.append((
                    "the counter's FETC? at the round's first card, with SYST:TIM INF (the lock-out line measured "
                    "in an earlier round with the profile's timeout)", "an interval (SYST:TIM: \"`INF`: none\")",
                    "9.91E+37 (timed out)"))
                return
        if conf_alone:
            self._counter_back()
            if interval is None and self.counter_edges > 0:
                # the line was measured with the slopes written; with CONF's own it was not: the counter's
                obs.instrument_reads.append((
                    "the counter's FETC? at the round's first card, set up by CONF:TINT and the levels alone (the "
                    "same lock-out line measured in an earlier round with INP:SLOP POS written)",
                    "an interval (CONF:TINT: \"slopes positive\")", "9.91E+37 (no interval)"))
                return
        if interval is not None and interval < 0:
            obs.instrument_reads.append(("the counter's FETC? at the round's first card", "an interval >= 0 (seconds "
                                         "from the start edge to the next stop edge)", f"{interval}"))
            return
        if interval is not None:
            self.counter_edges += 1
            obs.lock_ms, obs.lock_by = (Decimal(interval) * 1000).quantize(_MS), "counter"
            if obs.lock_ms > self._limit_ms() and served_here(counter):
                # a counter served from this host stamps the edges in a process under this host's scheduler,
                # as the host's receive stamps are: a reading within the bench's jitter of the limit decides
                # nothing (advisory), one farther past it does
                jitter = obs.jitter_ms = self._host_jitter()
                obs.lock_advisory = jitter is not None and obs.lock_ms - jitter <= self._limit_ms()
            return
        # the counter measured nothing where it measured this line before: the line's, not the wiring's
        obs.lock_no_edge = counter is not None and self.counter_edges > 0
        if not cards:
            self._wait_card(cards)
            cards = self._cards_out()
            if not cards:
                return
        obs.lock_ms = (Decimal(locks[0].t_ns - cards[0].t_ns) / Decimal(1_000_000)).quantize(_MS)
        obs.lock_by = "host stamps"
        jitter = obs.jitter_ms = self._host_jitter()
        limit = self._limit_ms()
        obs.lock_advisory = jitter is not None and not (obs.lock_ms + jitter <= limit or obs.lock_ms - jitter > limit)

    def _cards_out(self) -> list[DeviceEvent]:
        """The step's card events so far: read (``card``) or not (``misread``), each a card out of the shoe
        (docs/protocol.md section 6.2)."""
        return [e for role, e in self.step_events if role == "shoe" and e.name in ("card", "misread")]

    def _deal_at_once(self, count: int, obs: Observed) -> None:
        """``count`` cards dealt at once (``pace_us`` 0).  Where the test channel deals them, docs/protocol.md
        section 7 sends them "as card events (0 = at once, before the RSP)" and section 5 keeps a line in order:
        the card events received before the deal's answer are counted (one line, read in order: an event sent
        before the answer is stamped before the answer is handed over)."""
        started_ns = time.perf_counter_ns()
        self._perform(acts.Deal(count=count, pace_us=0))
        answered_ns = time.perf_counter_ns()
        if count <= 0 or self.profile.bench.performer("deal").kind != "test-channel":
            return
        self.pull()
        before = sum(started_ns <= e.t_ns <= answered_ns for e in self._cards_out())
        obs.dealt_at_once = (before, count)

    def _deal_while_dealing(self, obs: Observed) -> None:
        """One more card asked of the shoe while its deal is under way (docs/protocol.md section 7: ``test.deal``
        answers "BUSY while dealing"); judged only where the answer came before the deal's last card (one line:
        its messages come in the order sent)."""
        try:
            self._link("shoe").call("test.deal", {"count": 1, "pace_us": 0}, BUSY_S)
            code = "ok"
        except DeviceNak as exc:
            code = exc.code
        answered_ns = time.perf_counter_ns()
        self.pull()
        if sum(e.t_ns <= answered_ns for e in self._cards_out()) < self.round_rest:
            obs.busy_answer = code

    def _until_dealt(self) -> None:
        """Until the shoe no longer says ``dealing`` (the cards asked for are out; docs/protocol.md section
        12, shoe states): a shoe may answer ``test.deal`` before its cards leave it."""
        deadline = time.monotonic() + DEAL_DONE_S
        while self.shoe.status().state == "dealing" and time.monotonic() < deadline:
            time.sleep(0.005)

    def _wait_card(self, cards: list[DeviceEvent]) -> None:
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline and not self._cards_out():
            self.pull(0.01)

    def _limit_ms(self) -> Decimal:
        limit = self.profile.interpretations.get("lockout-latency-limit-ms")
        return Decimal(str(limit)) if limit is not None else Decimal(self.profile.timing.lockout_deadline_ms)

    def _until_locked(self) -> None:
        """Wagering must close within the profile's lock-out deadline: wait that long for it."""
        deadline = time.monotonic() + self.lockout_wait_s
        while time.monotonic() < deadline:
            if self._lockout()[0]:
                return
            time.sleep(0.002)

    def _deal_rest(self, obs: Observed) -> None:
        self.rest_deals += 1
        paced = (self.round_rest >= 2 and self.rest_deals % 4 == 0
                 and self.profile.bench.performer("deal").kind == "test-channel")
        if not paced:
            self._deal_at_once(self.round_rest, obs)
        else:
            # now and then a paced deal, and shoe.status read during it (docs/protocol.md section 12,
            # shoe states: dealing while a deal is in progress); judged only where the shoe answered
            # before its last card of the deal came (one line: its messages come in the order sent)
            before = self.shoe.status().cards_dealt
            busy = self.rest_deals % 8 == 0
            self._perform(acts.Deal(count=self.round_rest, pace_us=BUSY_PACE_US if busy else PACE_US))
            t0 = time.perf_counter()
            status = self.shoe.status()
            took, answered_ns = device_ms(t0), time.perf_counter_ns()
            self.pull()
            dealt = self._cards_out()
            if len(dealt) < self.round_rest:
                obs.shoe_mid_deal = str(status.state)
                # section 5: every card the answer counts had its event sent before it (one line: received
                # before the answer, so stamped before the host looked)
                obs.mid_deal_counted = (status.cards_dealt - before, sum(e.t_ns <= answered_ns for e in dealt))
                self.clock.mid_deal(took, obs)
                if busy:
                    self._deal_while_dealing(obs)
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        while True:
            seen = [e for role, e in self.step_events if role == "controller"]
            if any(e.name == "round_end" for e in seen):
                break
            if time.monotonic() > deadline:
                # the device did not settle on the cards the rules end the round with (it waits for
                # another card, or settled nothing): a difference for the judge, not a rig error
                obs.settled = False
                return
            self.pull(0.02)
        self._until_dealt()
        payouts: dict[tuple[int, str], tuple[int, int, str | None]] = {}
        for e in seen:
            p = e.payload
            if e.name in ("hit", "payout") and p.get("category") != "mystery" and isinstance(p.get("seat"), int):
                obs.settle_order.append((e.name, int(p["seat"])))
                meter = p.get("meter") if e.name == "hit" else None
                by = p.get("paid_by") if e.name == "payout" else None
                obs.settle_events.append((e.name, int(p["seat"]), None if meter is None else str(meter),
                                          None if by is None else str(by)))
            elif e.name == "reset" and obs.settle_events:  # a reset within the settlement, after its first hit
                obs.settle_events.append(("reset", None, str(p.get("meter")), None))
            if e.name == "hit" and p.get("category") != "mystery" and isinstance(p.get("seat"), int):
                obs.hit_seats += (int(p["seat"]),)
            if e.name == "payout" and p.get("category") != "mystery":
                key = (int(p.get("seat", 0)), str(p.get("type")))
                obs.payout_order.append(key)
                obs.paid_by[key] = None if p.get("paid_by") is None else str(p.get("paid_by"))
                got = (int(p.get("stake", 0)), int(p.get("returned", 0)),
                       None if p.get("category") is None else str(p.get("category")))
                if key in payouts:  # paid twice: both kept, the sums shown
                    old = payouts[key]
                    got = (old[0] + got[0], old[1] + got[1], f"{old[2]} and {got[2]} (paid twice)")
                payouts[key] = got
            elif e.name == "round_end":
                obs.round_end = int(p["round"]) if isinstance(p.get("round"), int) else None
                obs.round_end_void = p.get("void") is True
        obs.payouts = payouts

    def _reboot(self, obs: Observed) -> None:
        """The controller's line fault ``reboot`` (docs/protocol.md section 7), then, once it answers
        again, its lockout event (cause power) waited for as after a power cycle."""
        self._perform(acts.InjectFault(role="controller", fault="reboot",
                                       args=(("after_ms", 0), ("duration_ms", REBOOT_MS))))
        lost = self._sent_while_silent("controller")
        time.sleep(REBOOT_MS / 1000 + 0.05 - 2 * REBOOT_SILENT_S)
        self._listen_for_power_event()
        deadline = time.monotonic() + 10.0
        while True:
            try:
                ping = getattr(self.ctrl, "ping", None)
                if ping is not None:
                    self._first_answer(obs, ping)
                else:
                    self.ctrl.lockout_state()
                break
            except DeviceError:
                if time.monotonic() > deadline:
                    raise DeviceTimeout("the controller did not answer within 10 s of its reboot") from None
                time.sleep(0.02)
        self._wait_lock_event(POWER_EVENT_S)
        self._back_from_reboot("controller", lost, obs)
        obs.identity = self.identity()  # back from its non-volatile storage: the same device

    def _listen_for_power_event(self) -> None:
        """After power-up, up to POWER_QUIET_S with no request sent: the lockout event (cause power) is sent
        once the controller is back (docs/protocol.md section 8), asked for by nothing."""
        quiet = time.monotonic() + POWER_QUIET_S
        while not self._power_events() and time.monotonic() < quiet:
            self.pull(0.01)

    def _first_answer(self, obs: Observed, ping: Callable[[], object]) -> None:
        """The controller's first request after power-up (``ping``), and whether its lockout event (cause
        power) had come before the request was sent.  Only a device silent through the listening and then
        sending its event with the answer to that request is a finding: one line, read in order, so an
        event sent before the answer is queued once the answer is read."""
        asked_ns = time.perf_counter_ns()
        ping()
        if obs.power_event_unasked is None:
            self.pull()
            events = self._power_events()
            obs.power_event_unasked = not events or any(e.t_ns < asked_ns for e in events)

    def _set_voltage(self, supply: Any, obs: Observed) -> Decimal:
        """Before a power cycle through the bench supply, its voltage set CHECK_STEP under the one it reads (a
        step no table minds) and read back (docs/protocol.md section 9: ``VOLT 12.000``, ``VOLT?`` ``12.000``):
        the setting the output must keep across OUTP OFF and OUTP ON.  Returns the voltage set; the one read
        is set again once the power is back (:meth:`_power_cycle`)."""
        self.supply_volts = Decimal(supply.voltage())
        volts = self.supply_volts - PowerSupply.CHECK_STEP
        supply.set_voltage(volts)
        obs.instrument_reads.append((f"the supply's VOLT? after VOLT {volts:.3f}", f"{volts:.3f}",
                                 f"{Decimal(supply.voltage()):.3f}"))
        return volts

    def _conf_alone_now(self, counter: Any) -> bool:
        """Whether this round's interval is measured with the counter set up by ``CONF:TINT`` alone (and the
        levels): every :data:`CONF_ALONE_EVERY`-th counted round, on a SCPI counter whose profile keeps the
        slopes ``POS`` (docs/protocol.md section 9: ``CONF:TINT`` sets "slopes positive")."""
        self.counter_rounds += 1
        if not isinstance(counter, ScpiCounter) or self.counter_edges == 0 or self.counter_rounds % CONF_ALONE_EVERY:
            return False
        if any(v != "POS" for v in counter.slopes.values()):
            return False
        counter.configure(slopes=False)
        return True

    def _no_timeout_now(self, counter: Any) -> bool:
        """Whether this round's interval is measured with ``SYST:TIM INF`` (docs/protocol.md section 9: the
        measurement timeout, "`INF`: none"): every :data:`CONF_ALONE_EVERY`-th counted round, half way between
        those set up by ``CONF:TINT`` alone, on a SCPI counter that has measured the line before."""
        if not isinstance(counter, ScpiCounter) or self.counter_edges == 0 \
                or self.counter_rounds % CONF_ALONE_EVERY != CONF_ALONE_EVERY // 2:
            return False
        counter.configure(no_timeout=True)
        return True

    def _fetch_again(self, counter: ScpiCounter, interval: Decimal | None, obs: Observed) -> None:
        """``FETC?`` asked a second time, nothing armed since: the reading it gave (section 9; a reading is not
        erased by reading it)."""
        try:
            again = counter.fetch_again()
        except DeviceTimeout:
            shown = "no answer"
        else:
            if again == interval:
                return
            shown = "9.91E+37" if again is None else f"{again}"
        obs.instrument_reads.append(("the counter's FETC? asked again, nothing armed since its reading",
                                     "9.91E+37" if interval is None else f"{interval}", shown))

    def _arm_before_press(self) -> None:
        """Before every :data:`STOP_FIRST_EVERY`-th button press with wagering open, the counter armed (with a
        short measurement timeout on a SCPI counter): the press's rise of the lock-out line is a stop edge
        before any start edge, and the next first card (judged in :meth:`_fetch_after_stop_first`) starts."""
        counter = self.rig.counter
        if counter is None or self.counter_edges == 0 or self._lockout()[0]:
            return
        self.open_presses += 1
        if self.open_presses % STOP_FIRST_EVERY:
            return
        if isinstance(counter, ScpiCounter):
            counter.configure(measure_timeout_ms=STOP_FIRST_TIMEOUT_MS)
        counter.arm()
        counter.idn()
        self.counter_stop_first = True

    def _fetch_after_stop_first(self, obs: Observed) -> None:
        """The counter armed before the lock-out line rose, and the round's first card after: docs/protocol.md
        section 9, ``FETC?`` "seconds from the first start edge after arming to the next stop edge"; the line
        stays up after the card, so there is no such stop edge and the measurement times out."""
        counter = self.rig.counter
        assert counter is not None
        interval = counter.fetch_interval_s()
        self._counter_back()
        obs.instrument_reads.append((
            "the counter's FETC? armed before a button press raised the lock-out line, then the round's first card "
            "(a stop edge before the start edge: no stop edge after the start edge)", "9.91E+37",
            "9.91E+37" if interval is None else f"{interval}"))

    def _counter_back(self) -> None:
        """The counter set up again as the profile says, after a check that set it otherwise."""
        counter = self.rig.counter
        if isinstance(counter, ScpiCounter):
            counter.configure()

    def _supply_off_on(self, supply: PowerSupply | None, obs: Observed) -> None:
        """The power switched off and on by its performer; through a bench supply, its settings read back."""
        volts = self._set_voltage(supply, obs) if supply is not None else None
        self._perform(acts.SwitchPower(on=False))
        if supply is not None:
            obs.instrument_reads.append(("the supply's OUTP? after OUTP OFF", "0", _on_off(supply.output_state())))
            if isinstance(supply, ScpiPowerSupply):  # section 9: *OPC? answers 1 once the setting is acted on
                obs.instrument_reads.append(("the supply's *OPC? with the output off", "1", supply.query("*OPC?")))
            # VOLT? is the setting (MEAS:VOLT? is the output's measured voltage), with the output off too
            obs.instrument_reads.append(("the supply's VOLT? with the output off", f"{volts:.3f}",
                                         f"{Decimal(supply.voltage()):.3f}"))
        time.sleep(0.05)
        self._perform(acts.SwitchPower(on=True))
        if supply is not None:
            obs.instrument_reads.append(("the supply's OUTP? after OUTP ON", "1", _on_off(supply.output_state())))
            obs.instrument_reads.append(("the supply's VOLT? after OUTP OFF and OUTP ON", f"{volts:.3f}",
                                         f"{Decimal(supply.voltage()):.3f}"))
            if self.supply_volts is not None:
                supply.set_voltage(self.supply_volts)

    def _power_loss_then_on(self, supply: PowerSupply, obs: Observed) -> None:
        """The line fault ``power-loss`` (docs/protocol.md section 7: "the whole table is dark until the bench
        supply's OUTP ON"), then the supply's ``OUTP ON`` alone, its output never switched off: the table must
        come back.  A table still dark is the supply's (it took OUTP ON for nothing, its setting already on):
        said as an instrument's reading, and the table brought back by OUTP OFF and OUTP ON."""
        self._perform(acts.InjectFault(role="controller", fault="power-loss", args=(("after_ms", 0),)))
        ping = getattr(self.ctrl, "ping", None)
        dark = time.monotonic() + POWER_LOSS_DARK_S
        while ping is not None and time.monotonic() < dark:
            try:
                ping()
            except DeviceError:
                break
            time.sleep(0.02)
        supply.output(True)
        obs.instrument_reads.append(("the supply's OUTP? after the power-loss line fault and OUTP ON", "1",
                                     _on_off(supply.output_state())))
        back = time.monotonic() + POWER_LOSS_BACK_S
        answered = ping is None
        while not answered and ping is not None and time.monotonic() < back:
            try:
                ping()
                answered = True
            except DeviceError:
                time.sleep(0.05)
        if not answered:
            obs.instrument_reads.append((
                f"the table {POWER_LOSS_BACK_S:g} s after the power-loss line fault and the supply's OUTP ON",
                "back (section 7: dark until the bench supply's OUTP ON)", "dark: no answer to a ping"))
            supply.output(False)
            time.sleep(0.05)
            supply.output(True)

    def _power_cut_mid_deal(self, obs: Observed) -> None:
        """The rest of the round dealt a card every CUT_PACE_US, the power cut as soon as its first card's
        event is in (the next is a long way off), then back as in a power cycle."""
        self._perform(acts.Deal(count=self.round_rest, pace_us=CUT_PACE_US))
        deadline = time.monotonic() + DEAL_DONE_S
        while not self._cards_out():
            if time.monotonic() >= deadline:
                # no card to cut after: what the model would judge is the bench's stall, not the device's
                raise DeviceError(f"no card out of the shoe within {DEAL_DONE_S} s of the paced deal: the power "
                                  "was not cut mid-deal")
            self.pull(0.005)
        self.round_rest = 0
        self._power_cycle(obs)

    def _power_cycle(self, obs: Observed) -> None:
        supply = self.rig.power if self.profile.bench.performer("power").kind == "supply" else None
        self.power_cycles += 1
        if supply is not None and self.profile.bench.performer("fault").kind == "test-channel" \
                and self.power_cycles % POWER_LOSS_EVERY == 0:
            self._power_loss_then_on(supply, obs)
        else:
            self._supply_off_on(supply, obs)
        self._listen_for_power_event()
        deadline = time.monotonic() + 10.0
        others_back = False
        while True:
            try:
                # the other devices first: once they answer the table is back, and the controller is
                # listened to a while longer, still asked nothing, before its first request
                for dev in (self.sensors, self.shoe):
                    ping = getattr(dev, "ping", None)
                    if ping is not None and dev is not self.ctrl:
                        ping()
                if not others_back:
                    others_back = True
                    self._listen_for_power_event()
                ping = getattr(self.ctrl, "ping", None)
                if ping is not None:
                    self._first_answer(obs, ping)
                break
            except DeviceError:
                if time.monotonic() > deadline:
                    raise DeviceTimeout("the table did not answer within 10 s of its power coming back") from None
                time.sleep(0.02)
        back = time.monotonic() + 1.0  # the lock-out with cause power, once it is back
        while self._lockout()[1] not in ("power", "?") and time.monotonic() < back:
            time.sleep(0.01)
        self._wait_lock_event(POWER_EVENT_S)
        times: dict[str, Decimal] = {}
        obs.identity = self.identity(times)
        self.clock.first_identities(times, obs)
