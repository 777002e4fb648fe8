"""The typed result of loading a device profile (see ``docs/device-profiles.md``).

Everything is frozen: a profile is the certificate holder's declaration and the record keeps a
snapshot of it (:attr:`Profile.raw`), so nothing may change it after validation.  Money is integer
cents, rates are ``Decimal`` percent, durations ``Decimal`` milliseconds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from types import MappingProxyType
from typing import Any

from harness.bench.settings import BenchSettings
from harness.cards import Combo
from harness.devices.vocabulary import PROTOCOL_VERSION
from harness.games.payouts import Pay
from harness.money import Cents
from harness.progressive.meter import MeterConfig
from harness.randomness.settings import RandomnessSettings

#: the address that means "tablecert starts the emulator for this role"
EMULATOR = "emulator"


def _frozen() -> Mapping[str, Any]:
    return MappingProxyType({})


@dataclass(frozen=True)
class DeviceSpec:
    """How to reach the device playing one role: a driver and exactly one address."""

    role: str
    driver: str
    #: serial URL or path (pyserial ``serial_for_url``), or ``"emulator"``
    port: str | None = None
    #: VISA resource name, or ``"emulator"``
    resource: str | None = None
    baudrate: int | None = None
    #: pyvisa backend for ``resource``: ``"@py"`` or ``"@sim"``
    backend: str = "@py"
    #: identity fields the harness checks against the device's own answer (stable identity)
    match: Mapping[str, str] = field(default_factory=_frozen)
    #: the instrument's calibration for the lab report: ``due`` (YYYY-MM-DD), ``certificate``,
    #: ``uncertainty`` (as the certificate states it)
    calibration: Mapping[str, str] = field(default_factory=_frozen)
    #: driver settings beyond the address: serial framing and flow control, the counter's channels,
    #: levels, slopes and measurement timeout (harness.profiles.lineparams)
    options: Mapping[str, Any] = field(default_factory=_frozen)
    #: the power supply's output: the roles it powers, as the profile states them (``()``: not stated)
    feeds: tuple[str, ...] = ()

    @property
    def address(self) -> str:
        return self.port if self.port is not None else str(self.resource)

    @property
    def powers(self) -> tuple[str, ...]:
        """The roles a power cut reaches: as stated, else the whole table for the built-in emulator
        (its supply is the table's mains) and the controller alone for a bench supply."""
        if self.feeds:
            return self.feeds
        return ("controller", "shoe", "sensors") if self.is_emulated else ("controller",)

    @property
    def is_emulated(self) -> bool:
        return self.address == EMULATOR


#: One progressive meter of the Rules Submission (Royal 9 (f)(2), (g)(2); 461a.12): the meter
#: model's own configuration type, so the profile and the model can never disagree on a field.
MeterSettings = MeterConfig


@dataclass(frozen=True)
class SeatSettings:
    """A betting position and its personal king-9 combination (Royal 9 (e)(5))."""

    seat: int
    #: (king, nine), or None when the game has no personal combinations
    combo: Combo | None = None


@dataclass(frozen=True)
class MysterySettings:
    """The mystery progressive, Royal 9 (h): a separate fourth meter fixed by its configuration."""

    configuration: int
    distribution: str
    paid_by: str
    reseed: Cents
    must_hit_by: Cents
    #: incrementation rate, percent of each qualifying wager
    rate: Decimal


@dataclass(frozen=True)
class HitAndRunSettings:
    """Blackjack Hit and Run (633a.13(l)): the shoe, the dealer's soft-17 rule, the meter."""

    decks: int
    soft17: str
    meter: MeterSettings

    @property
    def hits_soft17(self) -> bool:
        return self.soft17 == "hit"


@dataclass(frozen=True)
class Streak3Settings:
    """The Mini-Baccarat three-consecutive-games wager (Wash. Admin. Code 230-15-040(8)(b)): the
    regulation states no odds, so the Rules Submission states what a winning wager pays."""

    #: what a won streak pays ("7 to 1", "8 for 1"), as the paytable writes it
    pays: Pay


@dataclass(frozen=True)
class RulesSubmission:
    """The certificate holder's Rules Submission (601a.2) as far as a device harness needs it."""

    #: Royal 9 wager denomination in dollars (5 or 1), None without Royal 9
    denomination: int | None = None
    decks: int = 8
    seats: tuple[SeatSettings, ...] = ()
    meters: Mapping[str, MeterSettings] = field(default_factory=_frozen)
    mystery: MysterySettings | None = None
    #: banker commission, percent
    commission: Decimal | None = None
    hit_and_run: HitAndRunSettings | None = None
    #: the three-consecutive-games wager, on a Mini-Baccarat table with capability streak3
    streak3: Streak3Settings | None = None

    def combo_of(self, seat: int) -> Combo | None:
        for s in self.seats:
            if s.seat == seat:
                return s.combo
        return None


@dataclass(frozen=True)
class Timing:
    """Limits the suites measure against, in milliseconds."""

    #: first card out of the shoe -> wagers locked out (the profile's limit for the lock-out cases)
    lockout_deadline_ms: Decimal = Decimal("1.0")
    #: silence after which the controller must treat the link as lost
    comm_timeout_ms: Decimal = Decimal("500")
    #: how long a driver waits for any one answer
    #: how long a serial driver waits for one answer (a device's own ``timeout_ms`` overrides it); the
    #: protocol asks an answer within 100 ms, the margin is for a loaded host (docs/protocol.md, section 5)
    response_timeout_ms: Decimal = Decimal("2000")
    #: expanded uncertainty of a lock-out latency measurement on this bench, when the lab states it
    lockout_uncertainty_ms: Decimal | None = None
    #: how long the device waits for the rest of a partial frame before it abandons it (docs/protocol.md
    #: section 2 states the host's 250 ms and the emulators' 500 ms, and leaves a device's own to its maker)
    frame_timeout_ms: Decimal = Decimal("500")


@dataclass(frozen=True)
class EmulatorSettings:
    """Only used when tablecert starts the emulators itself."""

    lockout_latency_ms: Decimal = Decimal("0.3")
    #: how long the emulated devices take to answer a request (0: at once; below 100 ms, section 5)
    answer_latency_ms: Decimal = Decimal(0)
    #: how long the emulated controller takes to notice a lost sensors link (below comm_timeout_ms)
    comm_loss_latency_ms: Decimal = Decimal(0)
    deal_pace_ms: Decimal = Decimal("15")
    #: one defect name (``tablecert defects``) or None for a clean emulator
    defect: str | None = None
    #: one permitted behaviour (harness.emulators.personas) or None for the reference behaviour
    persona: str | None = None
    identity: Mapping[str, str] = field(default_factory=_frozen)
    seed: int | None = None
    nv_dir: str | None = None
    #: the emulator answers its test channel (``test.*``, remote wagers and buttons); false: it
    #: refuses them like a real device and every act is performed at its physical side
    test_channel: bool = True
    #: the contract version the emulated devices speak (docs/protocol.md, "Versions and change log"):
    #: the newest unless an older one is asked for, to certify what a device of that version sends
    contract_version: int = PROTOCOL_VERSION


@dataclass(frozen=True)
class CommonMeter:
    """A common progressive meter of a link, held by the link controller (461a.12(c)): its amounts.
    Each table on it files its own rate of progression (``LinkTable.rules.meters``)."""

    name: str
    initial: Cents
    reset: Cents
    payout_limit: Cents | None = None
    display_capacity: Cents | None = None


@dataclass(frozen=True)
class LinkTable:
    """One table of a link: its devices and Rules Submission as a single table's, and which of its
    meters are the link's common meters."""

    name: str
    devices: Mapping[str, DeviceSpec]
    #: the table's Rules Submission; a linked meter carries the table's rate and the common meter's amounts
    rules: RulesSubmission
    #: the table's meter -> the common meter it is on (``mega: mega-5``)
    links: Mapping[str, str]
    #: the table's entry as written, for the record and the emulator
    raw: Mapping[str, Any] = field(repr=False, default_factory=_frozen)

    @property
    def wager(self) -> Cents:
        """The Royal 9 wager this table requires, in cents."""
        return (self.rules.denomination or 0) * 100


@dataclass(frozen=True)
class LinkSettings:
    """A link (``link:`` of a profile): the link controller, its common meters and the tables on it."""

    controller: DeviceSpec
    meters: Mapping[str, CommonMeter]
    tables: tuple[LinkTable, ...]

    @property
    def is_emulated(self) -> bool:
        return self.controller.is_emulated or any(d.is_emulated for t in self.tables for d in t.devices.values())

    def table(self, name: str) -> LinkTable:
        return next(t for t in self.tables if t.name == name)

    def on(self, common: str) -> list[tuple[LinkTable, str]]:
        """The tables on a common meter, each with the name its meter has there."""
        return [(t, m) for t in self.tables for m, c in t.links.items() if c == common]


@dataclass(frozen=True)
class Profile:
    """A validated device profile."""

    spec: str
    name: str
    description: str
    game: str
    #: the jurisdictions as written, for display (``PA, WA``); None when the profile names none
    jurisdiction: str | None
    devices: Mapping[str, DeviceSpec]
    capabilities: frozenset[str]
    rules: RulesSubmission
    timing: Timing
    #: interpretation id -> value the profile overrides (defaults are not filled in here)
    interpretations: Mapping[str, Any]
    emulator: EmulatorSettings
    source_path: str
    #: the plain data as written (no position types, no Decimal), for the record
    raw: Mapping[str, Any] = field(repr=False)
    #: what the lab report says about this submission: submitting_party, lab, accreditation,
    #: tested_by, reviewed_by, approved_by (all optional text)
    report: Mapping[str, str] = field(default_factory=_frozen)
    #: who performs each physical act on this bench (``bench:``; harness.bench.settings)
    bench: BenchSettings = field(default_factory=BenchSettings)
    #: confidence, power and declared defect sizes of the statistical batteries (``randomness:``)
    randomness: RandomnessSettings = field(default_factory=RandomnessSettings)
    #: the jurisdictions the table is certified for (``jurisdiction:``); empty: every one of the catalogue
    jurisdictions: tuple[str, ...] = ()
    #: a link of tables on common meters (``link:``); then ``devices`` and ``rules`` are empty and
    #: every table's are under ``link.tables``
    link: LinkSettings | None = None
    #: configuration field -> when the device lets an operator write it (``config_writes:``; every
    #: field ``between-rounds`` under capability ``config-write``, ``never`` without it)
    config_writes: Mapping[str, str] = field(default_factory=_frozen)
    #: the fields whose writes the profile does not state (no ``config_writes:`` entry and no capability
    #: ``config-write``): ``never`` to the suites, the device's choice to the explorer
    unstated_writes: frozenset[str] = frozenset()

    def writes(self, name: str) -> str:
        """When the device takes a write of configuration field ``name`` (harness.profiles.configwrites)."""
        return self.config_writes.get(name, "between-rounds" if "config-write" in self.capabilities else "never")

    def write_choice(self, name: str) -> str:
        """As :meth:`writes`, but ``unstated`` for a field the profile says nothing of: a write of it taken
        or refused is then the device's choice (no clause of 629a or 461a.12 requires either)."""
        return "unstated" if name in self.unstated_writes else self.writes(name)

    @property
    def is_emulated(self) -> bool:
        """True when any role is played by an emulator tablecert starts."""
        return any(d.is_emulated for d in self.devices.values()) or (self.link is not None and self.link.is_emulated)

    def has(self, capability: str) -> bool:
        return capability in self.capabilities

    def device(self, role: str) -> DeviceSpec | None:
        return self.devices.get(role)
