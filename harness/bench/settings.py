"""The profile's ``bench:`` section: who performs each act on this bench (see docs/device-profiles.md).

::

    bench:
      performers:                   # act -> performer; an act not listed: test-channel
        load: operator              # (none when the emulator has no test channel)
        deal: operator
        wager: operator
        lockout-button: {actuator: relay, channel: "101", hold_ms: "150"}
        reset-key: {actuator: relay, channels: {mega: "102", major: "103", minor: "104"}}
        comm: {actuator: relay, channel: "110"}
        power: supply
        fault: none
      actuators:
        relay: {driver: scpi-switch, resource: "TCPIP::192.0.2.12::5025::SOCKET"}
      operator:
        name: J. Doe
        console: true               # the bench console on 127.0.0.1 (a per-run token)
        terminal: true              # prompts on the controlling terminal too
        prompt_timeout_s: 900

Performers: ``test-channel`` (tablecert sends the device the command for the act), ``actuator``
(a relay channel of a VISA switch unit wired to a button, a key or a cable), ``supply`` (the bench
power supply, for ``power``), ``operator`` (a person, prompted), ``none``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from types import MappingProxyType
from typing import Any

from harness.bench.acts import ACTS
from harness.schema import Fields, check_map, check_str, suggest
from harness.yamlload import Loc

PERFORMERS = ("test-channel", "actuator", "supply", "operator", "none")
#: acts a relay channel can carry out: a button held closed, a key turned, a cable broken
ACTUATOR_ACTS = ("lockout-button", "reset-key", "comm", "open-round", "no-more-bets")
#: acts a person cannot do by hand at the table
NOT_BY_HAND = ("fault", "shuffler-readout")
ACTUATOR_DRIVERS = ("scpi-switch",)
_CHANNEL = r"[0-9]{1,6}"
DEFAULT_HOLD_MS = Decimal(150)
METERS = ("mega", "major", "minor", "mystery", "hit-and-run")


@dataclass(frozen=True)
class PerformerSpec:
    """Who carries out one act: ``kind`` is one of :data:`PERFORMERS`."""

    kind: str
    actuator: str | None = None
    #: the relay channel (``lockout-button``, ``comm``, the dealer's buttons)
    channel: str | None = None
    #: per meter (``reset-key``)
    channels: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    hold_ms: Decimal = DEFAULT_HOLD_MS

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.actuator:
            out.update(actuator=self.actuator, channel=self.channel, channels=dict(self.channels),
                       hold_ms=str(self.hold_ms))
        return out


@dataclass(frozen=True)
class ActuatorSpec:
    name: str
    driver: str
    resource: str
    backend: str = "@py"
    timeout_ms: int = 2000
    match: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class ScriptedOperatorSettings:
    """The settings (``bench.operator.scripted``) of the scripted operator of an emulated bench
    (:class:`harness.bench.scripted.ScriptedOperator`): it carries out each prompt through the
    emulator's physical side after human-like delays divided by ``speed``."""

    speed: Decimal = Decimal(1)
    seed: int = 1
    #: misstack one shoe in this many (0: never), to exercise the redo path
    misstack_every: int = 0
    #: the pace of a step's bulk rounds (prompts marked bulk, no act's timing judged); None: ``speed``
    bulk_speed: Decimal | None = None
    #: ``all``: it answers every prompt; ``bulk``: it carries out every act but answers only the bulk
    #: rounds' prompts (and Cannot when the table refuses): a person answers the rest on the console
    #: or the terminal (the rehearsal, ``tablecert run --bench-twin --console``)
    answers: str = "all"


@dataclass(frozen=True)
class OperatorSettings:
    name: str = ""
    console: bool = True
    console_port: int = 0
    terminal: bool = True
    prompt_timeout_s: int = 900
    scripted: ScriptedOperatorSettings | None = None


@dataclass(frozen=True)
class BenchSettings:
    """The parsed ``bench:`` section; :meth:`performer` answers for every act."""

    performers: Mapping[str, PerformerSpec] = field(default_factory=lambda: MappingProxyType({}))
    actuators: Mapping[str, ActuatorSpec] = field(default_factory=lambda: MappingProxyType({}))
    operator: OperatorSettings = field(default_factory=OperatorSettings)
    #: the emulator answers its test channel (``emulator.test_channel``, true unless set false)
    test_channel: bool = True
    has_power_supply: bool = True

    def performer(self, act: str) -> PerformerSpec:
        if act in self.performers:
            return self.performers[act]
        if act == "power":
            return PerformerSpec("supply" if self.has_power_supply else "none")
        return PerformerSpec("test-channel" if self.test_channel else "none")

    def why_not(self, act: str) -> str | None:
        """Why no one on this bench can carry out ``act`` (None: someone can)."""
        spec = self.performer(act)
        if spec.kind != "none":
            return None
        return f"no performer on this bench can {ACTS[act]} (bench.performers.{act}: none)"

    @property
    def uses_operator(self) -> bool:
        return any(self.performer(a).kind == "operator" for a in ACTS)

    def summary(self) -> dict[str, Any]:
        """Act -> performer, for the record."""
        return {a: self.performer(a).to_wire() for a in ACTS}


def parse_bench(f: Fields, *, emulated: bool, test_channel: bool, has_power: bool) -> BenchSettings:
    """Validate ``bench:`` of the profile mapping ``f`` (absent: every act by the test channel)."""
    if "bench" not in f:
        return BenchSettings(test_channel=test_channel, has_power_supply=has_power)
    bf = f.get_map("bench", optional=("performers", "actuators", "operator"))
    actuators = _actuators(bf) if "actuators" in bf else {}
    operator = _operator(bf, emulated) if "operator" in bf else OperatorSettings()
    performers: dict[str, PerformerSpec] = {}
    if "performers" in bf:
        node = check_map(bf.raw("performers"), bf.loc("performers"), "bench.performers")
        for act, value in node.items():
            if not isinstance(act, str) or act not in ACTS:
                raise node.key_loc(act).error(
                    f"bench.performers: unknown act '{act}'{suggest(str(act), ACTS)} (acts: {', '.join(ACTS)})")
            performers[act] = _performer(act, value, node.loc(act), actuators, has_power)
    bench = BenchSettings(MappingProxyType(performers), MappingProxyType(actuators), operator, test_channel,
                          has_power)
    where = bf.loc("performers")
    if emulated and not test_channel:
        for act in ACTS:
            if bench.performer(act).kind == "test-channel":
                raise where.error(f"bench.performers.{act}: test-channel, but the emulator has no test channel "
                                  "(emulator.test_channel: false)")
    if operator.scripted is not None and not bench.uses_operator:
        raise bf.loc("operator").error("bench.operator.scripted: no act is performed by the operator")
    return bench


def _performer(act: str, value: Any, loc: Loc, actuators: Mapping[str, ActuatorSpec],
               has_power: bool) -> PerformerSpec:
    what = f"bench.performers.{act}"
    if isinstance(value, str):
        kind = value
        if kind not in PERFORMERS:
            raise loc.error(f"{what}: unknown performer '{kind}'{suggest(kind, PERFORMERS)} "
                            f"(performers: {', '.join(PERFORMERS)})")
        if kind == "actuator":
            raise loc.error(f"{what}: an actuator needs its relay: {{actuator: NAME, channel: \"101\"}}")
        if kind == "supply" and act != "power":
            raise loc.error(f"{what}: the bench supply can only switch the power")
        if kind == "supply" and not has_power:
            raise loc.error(f"{what}: supply, but the profile has no power device under devices:")
        if kind == "test-channel" and act == "power":
            raise loc.error(f"{what}: no device switches its own power: supply, operator or none")
        if kind == "operator" and act in NOT_BY_HAND:
            raise loc.error(f"{what}: an operator cannot {ACTS[act]} by hand")
        return PerformerSpec(kind)
    pf = Fields(value, loc, what, required=("actuator",), optional=("channel", "channels", "hold_ms"))
    if act not in ACTUATOR_ACTS:
        raise loc.error(f"{what}: a relay cannot {ACTS[act]} (actuators serve {', '.join(ACTUATOR_ACTS)})")
    name = pf.get_str("actuator")
    if name not in actuators:
        raise pf.error("actuator", f"no actuator '{name}' under bench.actuators{suggest(name, actuators)}")
    hold = pf.get_decimal("hold_ms", DEFAULT_HOLD_MS, lo=Decimal(1), hi=Decimal(10_000))
    if act == "reset-key":
        if "channel" in pf or "channels" not in pf:
            raise loc.error(f"{what}: the reset key needs one channel per meter: channels: {{mega: \"102\", ...}}")
        cf = pf.get_map("channels", optional=METERS)
        channels = {str(k): check_str(cf.raw(str(k)), cf.loc(str(k)), cf.name(str(k)), pattern=_CHANNEL)
                    for k in cf}
        return PerformerSpec("actuator", name, None, MappingProxyType(channels), hold)
    if "channels" in pf:
        raise pf.error("channels", "one channel for this act: channel: \"101\"")
    channel = check_str(pf.raw("channel"), pf.loc("channel"), pf.name("channel"), pattern=_CHANNEL) \
        if "channel" in pf else None
    if channel is None:
        raise loc.error(f"{what}: missing key 'channel' (the relay channel wired to it)")
    return PerformerSpec("actuator", name, channel, hold_ms=hold)


def _actuators(bf: Fields) -> dict[str, ActuatorSpec]:
    node = check_map(bf.raw("actuators"), bf.loc("actuators"), "bench.actuators")
    out: dict[str, ActuatorSpec] = {}
    for name in node:
        af = Fields(node[name], node.loc(name), f"bench.actuators.{name}", required=("driver", "resource"),
                    optional=("backend", "timeout_ms", "match"))
        driver = af.get_enum("driver", ACTUATOR_DRIVERS)
        resource = af.get_str("resource")
        if resource != "emulator" and "::" not in resource:
            raise af.error("resource", f"'{resource}' is not a VISA resource name (e.g. "
                                       "TCPIP::192.0.2.12::5025::SOCKET, or emulator)")
        match: dict[str, str] = {}
        if "match" in af:
            mf = af.get_map("match", optional=("manufacturer", "model", "serial"))
            match = {str(k): mf.get_str(str(k)) for k in mf}
        out[str(name)] = ActuatorSpec(str(name), driver, resource, af.get_enum("backend", ["@py", "@sim"], "@py"),
                                      af.get_int("timeout_ms", 2000, lo=1, hi=600_000), MappingProxyType(match))
    return out


def _operator(bf: Fields, emulated: bool) -> OperatorSettings:
    of = bf.get_map("operator", optional=("name", "console", "console_port", "terminal", "prompt_timeout_s",
                                          "scripted"))
    scripted = None
    if "scripted" in of:
        if not emulated:
            raise of.error("scripted", "a scripted operator acts through an emulator's physical side; this "
                                       "profile names no emulated device")
        sf = of.get_map("scripted", optional=("speed", "seed", "misstack_every", "bulk_speed", "answers"))
        scripted = ScriptedOperatorSettings(
            sf.get_decimal("speed", Decimal(1), lo=Decimal("0.01"), hi=Decimal(100_000)),
            sf.get_int("seed", 1, lo=0), sf.get_int("misstack_every", 0, lo=0),
            sf.get_decimal("bulk_speed", None, lo=Decimal("0.01"), hi=Decimal(100_000)),
            sf.get_enum("answers", ("all", "bulk"), "all"))
    # a scripted operator answers by itself: the console and the terminal come beside it only when asked for
    return OperatorSettings(
        name=of.get_str("name", ""),
        console=of.get_bool("console", scripted is None),
        console_port=of.get_int("console_port", 0, lo=0, hi=65535),
        terminal=of.get_bool("terminal", scripted is None),
        prompt_timeout_s=of.get_int("prompt_timeout_s", 900, lo=1, hi=7 * 24 * 3600),
        scripted=scripted,
    )

