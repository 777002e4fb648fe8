"""Performers: who carries out an act on this bench (the profile's ``bench.performers``).

A step builds an :class:`~harness.bench.acts.Act` and hands it to :meth:`Performers.perform`; the
performer the profile chose for the act's kind carries it out and returns what the act yields
(the wagering system's answer to a placement, to a withdrawal).  Performers never judge: the
expectations do, from what the devices report.

* :class:`TestChannel`: the device's own command for the act (``test.load``, ``test.deal``,
  ``wager.place``, ``lockout.press``, ``reset_key``, ``round.open``, ``test.link``, ``test.fault``,
  ``test.shuffle``, ...).
  Emulators answer them; a real device refuses them (docs/protocol.md, sections 7 and 11).
* :class:`Supply`: the bench power supply's output (``OUTP ON|OFF``).
* :class:`Actuator`: a relay channel of a VISA switch unit wired to a button, a key or a cable
  (``ROUT:CLOS (@101)`` ... ``ROUT:OPEN (@101)``).
* :class:`Operator`: a person, through a prompt (:mod:`harness.bench.prompts`); what the person did is
  then observed on the devices' own lines (card events, the sensors' ``wager`` events).
"""

from __future__ import annotations

import contextlib
import random
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

from harness.bench.acts import (
    Act,
    Deal,
    InjectFault,
    LoadShoe,
    NoMoreBets,
    OpenRound,
    PlaceWagers,
    PressLockout,
    ReadShuffler,
    RedoCase,
    Removal,
    RemoveWager,
    SetComm,
    SwitchPower,
    TurnResetKey,
)
from harness.bench.settings import BenchSettings, PerformerSpec
from harness.cards import Card, shoe_composition
from harness.devices.link import DeviceEvent, DeviceNak, NakError
from harness.devices.roles import WagerResult
from harness.errors import DeviceError, DeviceTimeout

if TYPE_CHECKING:
    from harness.bench.prompts import Answer, PromptBroker
    from harness.suites.run.rig import Rig

#: how long the harness waits for a device to report what a person did at the table
OBSERVE_S = 5.0


class Stage(Protocol):
    """What a performer may use of the case being run (the step runner implements it)."""

    rig: Rig

    def pump(self, timeout_s: float = 0.0) -> None: ...

    def wait_for(self, what: str, pred: Callable[[], bool], timeout_s: float = ...) -> None: ...

    def cards_read(self) -> list[Card]: ...

    def sensor_events(self) -> list[DeviceEvent]: ...

    def controller_events(self) -> list[DeviceEvent]: ...

    def round_length(self, cards: list[Card]) -> int | None: ...

    def where(self) -> tuple[str, str]: ...


def pump_until(pump: Callable[[float], None], what: str, pred: Callable[[], bool], timeout_s: float) -> None:
    """Take in the devices' events with ``pump`` until ``pred`` holds; ``DeviceTimeout`` naming ``what``
    once ``timeout_s`` has passed.  The :meth:`Stage.wait_for` of the stages that read every device
    (the step runner's, the observe-only soak's)."""
    deadline = time.monotonic() + timeout_s
    while True:
        pump(0.005)
        if pred():
            return
        if time.monotonic() > deadline:
            raise DeviceTimeout(f"no {what} within {timeout_s} s")


class Performer(ABC):
    name = ""

    @abstractmethod
    def perform(self, act: Act, stage: Stage) -> Any: ...


def _device(stage: Stage, role: str) -> Any:
    dev = getattr(stage.rig, role, None)
    if dev is None:
        raise DeviceError(f"this case needs a {role} and the profile has none")
    return dev


class TestChannel(Performer):
    """The device carries the act out on its own command (see the module docstring)."""

    name = "test-channel"

    def __init__(self) -> None:
        #: what this performer put in the shoe and has not dealt yet (for ``Deal(one_round=True)``)
        self.shoe: deque[Card] = deque()

    def perform(self, act: Act, stage: Stage) -> Any:
        if isinstance(act, LoadShoe):
            cards = list(act.cards)
            if act.shuffled:
                cards = [c for c, n in shoe_composition(act.decks).items() for _ in range(n)]
                random.Random(act.seed).shuffle(cards)
            _device(stage, "shoe").load(cards, check_decks=act.check_decks)
            self.shoe = deque(cards)
            return None
        if isinstance(act, Deal):
            count = act.count
            if act.one_round:
                count = stage.round_length(list(self.shoe))
                if count is None:
                    raise DeviceError("the shoe does not hold a whole round: load a fresh shoe")
            _device(stage, "shoe").deal(count, act.pace_us)
            for _ in range(len(self.shoe) if count is None else min(count, len(self.shoe))):
                self.shoe.popleft()
            return None
        if isinstance(act, PlaceWagers):
            sensors = _device(stage, "sensors")
            if len(act.wagers) == 1:
                if act.not_before_ns is not None:
                    while time.perf_counter_ns() < act.not_before_ns:
                        pass
                w = act.wagers[0]
                return [sensors.place(w.seat, w.type, w.amount)]
            return sensors.place_many(list(act.wagers))
        if isinstance(act, RemoveWager):
            try:
                _device(stage, "sensors").remove(act.seat, act.type)
            except NakError as exc:
                return Removal(False, exc.reason)
            return Removal(True)
        if isinstance(act, InjectFault):
            return self._fault(act, stage)
        if isinstance(act, ReadShuffler):
            return _device(stage, "shoe").shuffle(act.count)
        ctrl = _device(stage, "controller")
        if isinstance(act, OpenRound):
            return ctrl.open_round()
        if isinstance(act, NoMoreBets):
            return ctrl.no_more_bets()
        if isinstance(act, PressLockout):
            return ctrl.press_lockout()
        if isinstance(act, TurnResetKey):
            return ctrl.reset_key(act.meter)
        if isinstance(act, SetComm):
            return ctrl.set_link(act.connected)
        raise DeviceError(f"the test channel cannot {act.kind}")

    @staticmethod
    def _fault(act: InjectFault, stage: Stage) -> Any:
        dev = _device(stage, act.role)
        if act.role == "shoe" and not act.args:
            return dev.fault(act.fault)
        request = getattr(dev, "request", None)
        if request is None:
            raise DeviceError(f"the {act.role} driver {type(dev).__name__} has no emulator test channel")
        return request("test.fault", kind=act.fault, **dict(act.args))


class Supply(Performer):
    """The bench supply's output powers the table (``power`` only)."""

    name = "supply"

    def perform(self, act: Act, stage: Stage) -> Any:
        if not isinstance(act, SwitchPower):
            raise DeviceError(f"the bench supply cannot {act.kind}")
        _device(stage, "power").output(act.on)
        return None


class Relay(Protocol):
    def close_channel(self, channel: str) -> None: ...

    def open_channel(self, channel: str) -> None: ...


#: a probed button -> (the command it stands for, what shows it was taken and how, the event that does)
_PROBE_SIGNS: dict[type, tuple[str, str, str, Callable[[DeviceEvent], bool]]] = {
    OpenRound: ("round.open", "round opened", " (no 'lockout' event unlocking wagering)",
                lambda e: e.name == "lockout" and e.payload.get("locked") is False),
    NoMoreBets: ("round.no_more_bets", "'no_more_bets' event", "", lambda e: e.name == "no_more_bets"),
}


class Actuator(Performer):
    """A relay channel wired to a button (held ``hold_ms``), a key (turned ``hold_ms``) or a cable
    (a closed channel breaks the link)."""

    name = "actuator"

    def __init__(self, relay: Relay, spec: PerformerSpec) -> None:
        self.relay = relay
        self.spec = spec

    def _pulse(self, channel: str) -> None:
        self.relay.close_channel(channel)
        try:
            time.sleep(float(self.spec.hold_ms / Decimal(1000)))
        finally:
            self.relay.open_channel(channel)

    def perform(self, act: Act, stage: Stage) -> Any:
        if isinstance(act, PressLockout | OpenRound | NoMoreBets):
            assert self.spec.channel is not None
            probe = isinstance(act, OpenRound | NoMoreBets) and act.probe
            seen = len(stage.controller_events()) if probe else 0
            self._pulse(self.spec.channel)
            if probe:  # refused: the act's sign never follows the button
                cmd, sign, how, seen_it = _PROBE_SIGNS[type(act)]
                try:
                    stage.wait_for(sign, lambda: any(seen_it(e) for e in stage.controller_events()[seen:]), OBSERVE_S)
                except DeviceTimeout:
                    raise DeviceNak(cmd, "REFUSED", f"no {sign} within {OBSERVE_S} s of the button{how}", 0) from None
            return None
        if isinstance(act, TurnResetKey):
            channel = self.spec.channels.get(act.meter)
            if channel is None:
                raise DeviceError(f"no relay channel turns the reset key of the {act.meter} meter "
                                  "(bench.performers.reset-key.channels)")
            self._pulse(channel)
            return None
        if isinstance(act, SetComm):
            assert self.spec.channel is not None
            if act.connected:
                self.relay.open_channel(self.spec.channel)
            else:
                self.relay.close_channel(self.spec.channel)
            return None
        raise DeviceError(f"a relay cannot {act.kind}")


class Operator(Performer):
    """A person carries the act out; the harness then observes what the devices report.

    A placement is read back from the sensors' ``wager`` events, a withdrawal from their
    ``wager_removed`` events.  After a deal from a stacking sheet the cards read are compared with
    the sheet: on a difference the operator is asked whether the shoe was stacked as the sheet says
    (then the shoe's report is judged) or misstacked (then the case is redone, never a FAIL)."""

    name = "operator"

    def __init__(self, broker: PromptBroker) -> None:
        self.broker = broker
        self.stack: tuple[Card, ...] | None = None
        self.dealt = 0

    def _ask(self, act: Act, stage: Stage, *, raise_on_cannot: bool = True) -> Answer:
        case, step = stage.where()
        return self.broker.ask(act, case=case, step=step, raise_on_cannot=raise_on_cannot)

    def perform(self, act: Act, stage: Stage) -> Any:
        stage.pump()
        if isinstance(act, LoadShoe):
            self._ask(act, stage)
            self.stack = None if act.shuffled else act.cards
            self.dealt = 0
            return None
        if isinstance(act, Deal):
            before = len(stage.cards_read())
            self._ask(act, stage)
            self._check_stack(act, stage, before)
            return None
        if isinstance(act, PlaceWagers):
            seen = len(stage.sensor_events())
            answer = self._ask(act, stage, raise_on_cannot=not act.probe)
            if answer.answer == "cannot":  # a probe: no such area or position on this layout
                why = f"no such betting area ({answer.note})" if answer.note else "no such betting area"
                return [WagerResult(False, why, 0, 0, w.seat, w.type, w.amount) for w in act.wagers]
            return self._placements(act, stage, seen)
        if isinstance(act, RemoveWager):
            seen = len(stage.sensor_events())
            self._ask(act, stage)
            ev = self._sensor_event(stage, seen, "wager_removed", act.seat, act.type)
            return Removal(bool(ev.payload.get("removed")), str(ev.payload.get("reason") or ""))
        if isinstance(act, TurnResetKey | NoMoreBets) and act.probe:
            answer = self._ask(act, stage, raise_on_cannot=False)
            if answer.answer == "cannot":  # the controller refused the key or the call, as the operator saw it
                cmd = "reset_key" if isinstance(act, TurnResetKey) else "round.no_more_bets"
                raise DeviceNak(cmd, "REFUSED", answer.note or "refused (seen by the operator)", 0)
            return None
        if isinstance(act, OpenRound):
            answer = self._ask(act, stage, raise_on_cannot=not act.probe)
            if answer.answer == "cannot":  # the controller refused the round, as the operator saw it
                raise DeviceNak("round.open", "REFUSED", answer.note or "refused (seen by the operator)", 0)
            stage.wait_for("the controller to open the round ('lockout' unlocked, cause round-open)",
                            lambda: any(e.name == "lockout" and e.payload.get("locked") is False
                                        for e in stage.controller_events()), OBSERVE_S)
            return None
        self._ask(act, stage)
        return None

    def _placements(self, act: PlaceWagers, stage: Stage, seen: int) -> list[WagerResult]:
        out = []
        for w in act.wagers:
            ev = self._sensor_event(stage, seen, "wager", w.seat, w.type)
            reason = ev.payload.get("reason")
            out.append(WagerResult(bool(ev.payload.get("accepted")), None if reason is None else str(reason),
                                   ev.t_ns, ev.t_ns, w.seat, w.type, w.amount))
        return out

    @staticmethod
    def _sensor_event(stage: Stage, seen: int, name: str, seat: int, kind: str) -> DeviceEvent:
        def match() -> DeviceEvent | None:
            for e in stage.sensor_events()[seen:]:
                if e.name == name and e.payload.get("seat") == seat and e.payload.get("type") == kind:
                    return e
            return None

        found = match()  # reported while the chips went down: look before waiting for more events
        if found is not None:
            return found
        try:
            stage.wait_for(f"the sensors to report seat {seat} {kind} ('{name}' event)",
                            lambda: match() is not None, OBSERVE_S)
        except DeviceTimeout as exc:
            raise DeviceTimeout(f"{exc}: the operator confirmed, the sensors did not report it") from None
        found = match()
        assert found is not None
        return found

    def _check_stack(self, act: Deal, stage: Stage, before: int) -> None:
        """Observe, then judge: a deal from a sheet must show the sheet's cards, or it is redone."""
        if self.stack is None or act.one_round:
            return
        want_n = len(self.stack) - self.dealt if act.count is None else act.count
        want = list(self.stack[self.dealt: self.dealt + want_n])
        # fewer cards read than dealt: the expectations judge what the shoe reported
        with contextlib.suppress(DeviceTimeout):
            stage.wait_for(f"{len(want)} card events from the shoe",
                            lambda: len(stage.cards_read()) - before >= len(want), OBSERVE_S)
        got = stage.cards_read()[before: before + len(want)]
        self.dealt += len(want)
        if got == want:
            return
        first = next((i for i, (g, w) in enumerate(zip(got, want, strict=False)) if g != w), len(got))
        shown = got[first].code if first < len(got) else "nothing"
        sheet = want[first].code if first < len(want) else "no card"
        message = (f"The shoe read {shown} as card {first + 1}; the sheet has {sheet}. Look at the cards "
                   "dealt: Done if they are the sheet's cards in the sheet's order (the shoe's reading is "
                   "judged), Cannot if the shoe was misstacked (the case is redone)")
        case, step = stage.where()
        answer = self.broker.ask(act, case=case, step=step, message=message, question="misstack",
                                 raise_on_cannot=False)
        if answer.answer == "cannot":
            raise RedoCase(f"misstacked: card {first + 1} read {shown}, the sheet has {sheet} (operator "
                           f"{answer.operator or 'unnamed'})")


class Performers:
    """The performer of every act on this bench, built from the profile's ``bench:`` section."""

    def __init__(self, settings: BenchSettings, *, relays: Mapping[str, Relay] | None = None,
                 broker: PromptBroker | None = None) -> None:
        self.settings = settings
        self.test_channel = TestChannel()
        self.supply = Supply()
        self.broker = broker
        self.operator = Operator(broker) if broker is not None else None
        self.relays = relays if relays is not None else {}  # filled when the bench opens
        self._actuators: dict[str, Actuator] = {}

    def performer(self, kind: str) -> Performer:
        spec = self.settings.performer(kind)
        if spec.kind == "test-channel":
            return self.test_channel
        if spec.kind == "supply":
            return self.supply
        if spec.kind == "operator":
            if self.operator is None:
                raise DeviceError(f"the profile gives '{kind}' to the operator and no prompt is attached")
            return self.operator
        if spec.kind == "actuator":
            assert spec.actuator is not None
            if kind not in self._actuators:
                relay = self.relays.get(spec.actuator)
                if relay is None:
                    raise DeviceError(f"actuator '{spec.actuator}' is not open")
                self._actuators[kind] = Actuator(relay, spec)
            return self._actuators[kind]
        raise DeviceError(self.settings.why_not(kind) or f"no performer for {kind}")

    def perform(self, act: Act, stage: Stage) -> Any:
        return self.performer(act.kind).perform(act, stage)

    @property
    def person_s(self) -> float:
        """Seconds spent so far waiting for the operator's answers: a person's time, which a case's
        own deadline (``timeout_s``, the devices' time) does not count; every prompt has its own."""
        return self.broker.waited_ns / 1e9 if self.broker is not None else 0.0
    def bulk_rounds(self) -> contextlib.AbstractContextManager[None]:
        """The acts asked inside are a step's bulk rounds (:meth:`PromptBroker.bulk_rounds`; nothing
        changes for a performer that is not a person)."""
        return self.broker.bulk_rounds() if self.broker is not None else contextlib.nullcontext()

    def observe(self, role: str, events: list[DeviceEvent]) -> None:
        """Device events as they arrive, for the front ends (the bench console shows them)."""
        if self.broker is not None:
            for ev in events:
                self.broker.device_event(role, ev.name, ev.payload)


def human_readable(kind: str, settings: BenchSettings) -> str:
    spec = settings.performer(kind)
    if spec.kind == "actuator":
        where = spec.channel or ", ".join(f"{m} {c}" for m, c in spec.channels.items())
        return f"actuator {spec.actuator} ({where})"
    return spec.kind
