"""One bench for the length of a run: the performers, the actuators they drive, and the prompts.

:class:`BenchSession` is opened with the rig (the devices) and closed with it.  It opens every
actuator of ``bench.actuators`` by its explicit VISA resource (an emulated bench's ``resource:
emulator`` is the emulator's switch unit), and, when any act is the operator's, the prompt broker
with its front ends: the scripted operator on an emulated bench that asks for one, otherwise the
bench console on 127.0.0.1 and the controlling terminal, as the profile's ``bench.operator`` says.

Under ``tablecert run`` the terminal is ``tablecert run``'s (:mod:`harness.bench.relay`): the console's
address is said there, before the first case, and the terminal front end is the relayed one; it is
attached only when a person can answer on that terminal, and the run says so when only the console
can.  A scripted operator does not turn the console off: a profile that asks for the console or the
terminal beside it gets them, which is how ``tablecert run --bench-twin --console`` rehearses a bench.
"""

from __future__ import annotations

import contextlib
import sys
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from harness.bench import jitter
from harness.bench.console import BenchConsole
from harness.bench.hands import Hands
from harness.bench.performers import Performers
from harness.bench.prompts import PromptBroker
from harness.bench.relay import RelayedTerminal, RelayLink
from harness.bench.scripted import HumanPace, ScriptedOperator
from harness.bench.terminal import TerminalFrontEnd
from harness.devices.drivers.scpi import ScpiSwitch
from harness.errors import DeviceError
from harness.games.interpretations import Interpretations
from harness.suites.run.oracle import Oracle
from harness.suites.run.rig import check_identity

if TYPE_CHECKING:
    from harness.profiles.model import Profile
    from harness.suites.run.rig import Rig


class BenchSession:
    def __init__(self, profile: Profile, *, operator: str = "", run_id: str = "",
                 console: bool | None = None) -> None:
        self.profile = profile
        self.settings = profile.bench
        self.relays: dict[str, Any] = {}
        self.broker: PromptBroker | None = None
        self.console: Any = None
        self.console_wanted = self.settings.operator.console if console is None else console
        if self.settings.uses_operator:
            self.broker = PromptBroker(operator or self.settings.operator.name,
                                       float(self.settings.operator.prompt_timeout_s))
            self.broker.board.run_id = run_id
            self.broker.board.profile = profile.name
        self.performers = Performers(self.settings, relays=self.relays, broker=self.broker)
        #: the host-stamp jitter measured when the bench opened (harness.bench.jitter)
        self.jitter: dict[str, Any] | None = None
        #: the line to ``tablecert run``, which owns the terminal (harness.bench.relay), if any
        self.link: Any = None

    @property
    def jitter_ms(self) -> Decimal | None:
        return Decimal(self.jitter["jitter_ms"]) if self.jitter else None

    def summary(self) -> dict[str, Any]:
        """The bench as the record keeps it: who performed each act, the operator, the prompt front
        ends, and the host-stamp jitter measured at the start."""
        return {"performers": self.settings.summary(),
                "operator": self.broker.operator if self.broker is not None else "",
                "front_ends": [fe.name for fe in self.broker.front_ends] if self.broker is not None else [],
                "host_stamp_jitter": self.jitter}

    # ------------------------------------------------------------------ opening

    def open(self, rig: Rig) -> None:
        try:
            self.open_actuators(rig)
            if self.broker is not None:  # first: the person sees the console's address as soon as can be
                self.open_front_ends(rig)
            self.jitter = jitter.measure(rig)
        except BaseException:
            self.close()
            raise

    def open_actuators(self, rig: Rig) -> None:

        for name, spec in self.settings.actuators.items():
            resource = spec.resource
            if resource == "emulator":
                if rig.emulator is None:
                    raise DeviceError(f"bench.actuators.{name}: resource emulator, but no emulator is running")
                resource = str(rig.emulator.addresses["switch"])
            relay = ScpiSwitch(resource, spec.backend, timeout_ms=spec.timeout_ms, name=f"actuator {name}")
            self.relays[name] = relay
            if spec.match:
                check_identity(f"actuator {name}", relay, dict(spec.match))  # type: ignore[arg-type]
            relay.write("ROUT:OPEN:ALL")  # every relay released before the first case
            relay.query("*OPC?")

    def open_front_ends(self, rig: Rig) -> None:
        assert self.broker is not None
        op = self.settings.operator
        if op.scripted is not None:
            if rig.emulator is None:
                raise DeviceError("bench.operator.scripted needs the emulator tablecert starts")
            hands = Hands(str(rig.emulator.addresses["physical"]))
            oracle = _oracle(self.profile)

            def round_length(cards: list[Any]) -> int | None:
                try:
                    return oracle.cards_in_round(cards)
                except Exception:
                    return None

            bulk = op.scripted.bulk_speed
            self.broker.attach(ScriptedOperator(hands, self.broker, round_length, pace=HumanPace(op.scripted.speed),
                                                seed=op.scripted.seed, misstack_every=op.scripted.misstack_every,
                                                operator=("scripted operator" if op.scripted.answers != "all"
                                                          else self.broker.operator or "scripted operator"),
                                                bulk_pace=None if bulk is None else HumanPace(bulk),
                                                answers=op.scripted.answers))

        self.link = RelayLink.from_environment()
        if self.console_wanted:
            self.console = BenchConsole(self.broker, port=op.console_port)
            self.broker.attach(self.console)
            self._say(f"tablecert: bench console at {self.console.url}")
        if op.terminal:
            self._attach_terminal()
        if self.link is not None:
            self.link.serve(self.broker)

    def _attach_terminal(self) -> None:
        assert self.broker is not None
        if self.link is not None:
            if self.link.terminal:
                self.broker.attach(RelayedTerminal(self.link))
                self._say("tablecert: answer each prompt on this terminal (d, c or a, then Enter)"
                          + (" or on the bench console" if self.console is not None else ""))
            elif self.console is not None:
                self._say("tablecert: no terminal to answer on (standard input is not a terminal): "
                          "only the bench console can answer")
            return

        terminal = TerminalFrontEnd.open(self.broker)
        if terminal is not None:
            self.broker.attach(terminal)

    def _say(self, text: str) -> None:
        """A line for the person: on ``tablecert run``'s terminal, and on stderr (the record's log)."""
        if self.link is not None:
            self.link.say(text)
        sys.stderr.write(f"\n{text}\n")
        sys.stderr.flush()

    # ------------------------------------------------------------------ cases

    def case_started(self, name: str, title: str, done: int, total: int) -> None:
        if self.broker is not None:
            self.broker.progress(done=done, total=total, case=name, title=title)

    def case_finished(self, name: str, verdict: str, done: int, total: int) -> None:
        if self.broker is not None:
            self.broker.progress(done=done, total=total, case=name, verdict=verdict)

    def prompts(self) -> list[dict[str, Any]]:
        """The prompts and answers since the last call (one case's evidence)."""
        return self.broker.take_log() if self.broker is not None else []

    def close(self) -> None:
        if self.broker is not None:
            self.broker.close()
        if self.link is not None:
            self.link.close()
            self.link = None
        for relay in self.relays.values():
            with contextlib.suppress(Exception):
                relay.write("ROUT:OPEN:ALL")
            relay.close()
        self.relays.clear()


def _oracle(profile: Profile) -> Any:

    return Oracle(profile, Interpretations.from_overrides(dict(profile.interpretations)))
