"""Role interfaces: what suites may ask of a shoe, bet sensors, a progressive controller, a counter
and a power supply, whatever driver stands behind them (labgrid's Protocol layer).

Suites and the step runner talk only to these classes; a driver (reference protocol, SCPI, or a
vendor plugin from the ``tablecert.drivers`` entry-point group) subclasses one of them and
implements ``from_entry`` to build itself from its profile device entry.  Results are typed:
money is integer cents, rates and residuals are ``Decimal``, and every answer that matters for
timing carries the host's ``perf_counter_ns`` stamps taken in the reading thread.
"""

from __future__ import annotations

import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from decimal import Decimal
from typing import Any, ClassVar, Self

from harness.cards import Card
from harness.devices.link import DeviceEvent
from harness.devices.transcript import Transcript
from harness.errors import DeviceError
from harness.money import Cents
from harness.progressive.meter import MeterConfig

ROLES = ("shoe", "sensors", "controller", "counter", "power")


@dataclass(frozen=True)
class DeviceIdentity:
    """The device master list fields of 58 Pa. Code 607a.2(b)(2): location (i), asset number or
    game type (ii), manufacturer (iii), serial number (iv), software/program identification (v)
    and, for a progressive, controller type (vi)(A) and software name and version (vi)(B); plus
    model and program hash, which the lab needs to tie evidence to an approved build."""

    manufacturer: str | None = None
    model: str | None = None
    serial: str | None = None
    software_id: str | None = None
    controller_type: str | None = None
    software_name: str | None = None
    software_version: str | None = None
    program_hash: str | None = None
    location: str | None = None
    asset_number: str | None = None
    game_type: str | None = None

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> DeviceIdentity:
        names = [f.name for f in fields(cls)]
        return cls(**{n: (None if payload.get(n) in (None, "") else str(payload[n])) for n in names})

    def missing(self, *, progressive: bool = False) -> list[str]:
        """Fields 607a.2(b) requires that the device did not report (non-empty)."""
        required = ["location", "manufacturer", "serial", "software_id"]
        if progressive:
            required += ["controller_type", "software_name", "software_version"]
        out = [n for n in required if getattr(self, n) is None]
        if self.asset_number is None and self.game_type is None:
            out.append("asset_number|game_type")
        return out

    def not_text(self) -> list[str]:
        """Fields whose value carries a control character or padding (a fixed-width record's NULs or
        spaces, a line break): docs/protocol.md 6.1, each field is the text the master list records."""
        return [f.name for f in fields(self) if control_characters(getattr(self, f.name))]

    def to_dict(self) -> dict[str, str | None]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def control_characters(value: object) -> bool:
    """True when ``value`` is a string holding a control character (Unicode category Cc: NUL, a line
    break, ...) or padded with spaces at either end, which no identity field's text may carry
    (docs/protocol.md 6.1: a fixed-width record's padding is not part of the field)."""
    return isinstance(value, str) and (any(unicodedata.category(c) == "Cc" for c in value) or value != value.strip())


@dataclass(frozen=True)
class WagerResult:
    """A wager placement: accepted or refused with the device's reason (629a Royal 9 (a)(1))."""

    accepted: bool
    reason: str | None
    t_sent_ns: int
    t_reply_ns: int
    seat: int = 0
    type: str = ""
    amount: Cents = 0
    #: the NAK the device refused the placement with, as ``NAK <code>: <reason>`` (a seat the table
    #: does not have, docs/protocol.md section 6.3); None for an answer in the RSP
    nak: str | None = None


@dataclass(frozen=True)
class Wager:
    seat: int
    type: str
    amount: Cents
    #: a wager that rides over several games (the Mini-Baccarat three-consecutive-games wager, Wash.
    #: Admin. Code 230-15-040(8)(b)): the games it has taken part in so far; None for any other
    games: int | None = None


@dataclass(frozen=True)
class ShoeStatus:
    state: str
    cards_dealt: int
    cards_remaining: int


@dataclass(frozen=True)
class CardEvent:
    """A card out of the shoe, stamped on receipt by the reading thread."""

    card: Card
    n: int
    t_ns: int
    seq: int


@dataclass(frozen=True)
class SeatCombo:
    seat: int
    combo: tuple[str, ...] | None


@dataclass(frozen=True)
class ControllerConfig:
    """``config.get`` read-back; ``raw`` keeps every field, including ones not typed here."""

    denomination: Cents
    seats: tuple[SeatCombo, ...]
    #: each meter as read back, in the Rules Submission's own type
    meters: Mapping[str, MeterConfig]
    mystery: Mapping[str, Any] | None
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class MeterReading:
    """``meters.get``: meter amounts in cents, residuals as exact Decimal fractions of a cent."""

    meters: Mapping[str, Cents]
    residual: Mapping[str, Decimal]
    cumulative_paid: Cents
    paid_by_table: Cents
    paid_by_attendant: Cents
    t_ns: int = 0
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False)
    #: meters whose hit waits for the attendant's payment and the reset key (461a.12(b)(3), (b)(5))
    pending: tuple[str, ...] = ()
    #: fields the device sent outside the protocol contract: reading one raises its error (a
    #: ``ContractError`` naming the field), so only a case that needs that field is cost by it
    broken: Mapping[str, Exception] = field(default_factory=dict, compare=False, repr=False)

    def __getattribute__(self, name: str) -> Any:
        if name in _READING_FIELDS:
            broken = object.__getattribute__(self, "broken")
            if name in broken:
                raise broken[name]
        return object.__getattribute__(self, name)


#: the fields of a meter reading that a reply field outside the contract can leave unreadable
_READING_FIELDS = frozenset({"meters", "residual", "cumulative_paid", "paid_by_table", "paid_by_attendant",
                             "pending"})


EventPredicate = Callable[[DeviceEvent], bool]


class Device(ABC):
    """Base of every role.  ``role`` names the profile key the driver can fill."""

    role: ClassVar[str] = ""
    #: profile entry keys this driver accepts besides ``driver``; others are rejected
    options: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    @abstractmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> Self:
        """Build the driver from its profile device entry (``port``, ``resource``, ...)."""

    @abstractmethod
    def close(self) -> None: ...

    @property
    def transcript(self) -> Transcript | None:
        return None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class EventSource(ABC):
    @abstractmethod
    def events(self, timeout_s: float = 0.0) -> list[DeviceEvent]: ...

    @abstractmethod
    def wait_event(self, name: str, timeout_s: float, predicate: EventPredicate | None = None) -> DeviceEvent: ...


class TableDevice(Device):
    """A device of the table itself (not a bench instrument): it reports the device master list
    fields of 607a.2(b)(2) (docs/protocol.md, section 6.1)."""

    @abstractmethod
    def identity(self) -> DeviceIdentity: ...


class Shoe(TableDevice, EventSource):
    """Electronic dealing shoe: identity, card events with receipt stamps, misread/error events,
    and the emulator-only test channel (a real shoe answers it REFUSED)."""

    role = "shoe"

    @abstractmethod
    def status(self) -> ShoeStatus: ...

    @abstractmethod
    def wait_card(self, timeout_s: float) -> CardEvent: ...

    @abstractmethod
    def load(self, cards: Sequence[Card | str], *, check_decks: bool = True) -> int: ...

    @abstractmethod
    def deal(self, count: int | None = None, pace_us: int | None = None) -> None: ...

    @abstractmethod
    def fault(self, kind: str, **args: Any) -> None: ...

    def shuffle(self, count: int = 1) -> list[list[int]]:
        """The pack's order (card ids, top first) after each of ``count`` shuffles by a shuffler the
        shoe carries, read over the test channel; a shoe without one cannot answer."""
        raise DeviceError(f"{type(self).__name__} reports no shuffled orders")


class BetSensors(TableDevice):
    """The wagering device per betting position (629a Royal 9 (a)(1))."""

    role = "sensors"

    @abstractmethod
    def place(self, seat: int, type: str, amount: Cents) -> WagerResult: ...

    def place_many(self, wagers: Sequence[Wager]) -> list[WagerResult]:
        """Several placements; drivers whose bus allows it send them without waiting in between."""
        return [self.place(w.seat, w.type, w.amount) for w in wagers]

    @abstractmethod
    def remove(self, seat: int, type: str) -> None: ...

    @abstractmethod
    def wagers(self) -> list[Wager]: ...


class ProgressiveController(TableDevice, EventSource):
    """Progressive table game controller: identity (607a.2(b)), configuration (461a.12),
    meters, lock-out, rounds, reset key."""

    role = "controller"

    @abstractmethod
    def config(self) -> ControllerConfig: ...

    @abstractmethod
    def set_config(self, **changes: Any) -> ControllerConfig: ...

    @abstractmethod
    def meters(self) -> MeterReading: ...

    @abstractmethod
    def lockout_state(self) -> bool: ...

    @abstractmethod
    def press_lockout(self) -> None: ...

    @abstractmethod
    def open_round(self) -> int: ...

    @abstractmethod
    def no_more_bets(self) -> None: ...

    @abstractmethod
    def reset_key(self, meter: str) -> Cents: ...


class Instrument(Device):
    @abstractmethod
    def idn(self) -> str: ...


class Counter(Instrument):
    """Time-interval counter: card out (channel 1) -> lock-out (channel 2) on hardware."""

    role = "counter"
    #: how many intervals this counter has measured since it was opened (a round it then measures nothing in
    #: is the lock-out line's doing, not the wiring's: docs/protocol.md section 9)
    intervals: int = 0

    @abstractmethod
    def arm(self) -> None:
        """Arm a single interval measurement, before the event (the first card of a round)."""

    @abstractmethod
    def fetch_interval_s(self) -> Decimal | None:
        """The armed interval in seconds once measured; ``None`` when nothing was armed or the
        measurement timed out (SCPI 9.91E+37)."""


class PowerSupply(Instrument):
    """Bench supply feeding the table devices, for power-loss tests (461a.12 NV meters)."""

    role = "power"
    #: how far a check of the supply's settings moves its voltage (V): set this much under the voltage read, read
    #: back across the output switched off and on, then the voltage read set again (a step no table minds)
    CHECK_STEP = Decimal("0.1")

    @abstractmethod
    def output(self, on: bool) -> None: ...

    @abstractmethod
    def output_state(self) -> bool: ...

    @abstractmethod
    def set_voltage(self, volts: Decimal) -> None: ...

    @abstractmethod
    def voltage(self) -> Decimal: ...


@dataclass(frozen=True)
class LinkedTable:
    """A table of a link as the link controller's ``config.get`` lists it (461a.12(c)(2))."""

    table: str
    denomination: Cents
    decks: int
    #: common meter -> the rate of progression (percent) at which this table's wagers feed it
    rates: Mapping[str, Decimal]


@dataclass(frozen=True)
class LinkHit:
    """One hit claim as the link controller recorded it: its order, the instant it belongs to (claims
    while the meter still waits for the reset key of an earlier one), the amount the meter showed and
    the award (``None`` until final)."""

    order: int
    instant: int
    table: str
    n: int
    seat: int
    meter: str
    amount: Cents
    award: Cents | None


class LinkController(TableDevice, EventSource):
    """Link progressive controller: the common meters several tables feed (461a.12(c), (d)), their
    hits and reset keys; tables reach it over the link (docs/protocol.md, section 14)."""

    role = "link-controller"

    @abstractmethod
    def tables(self) -> tuple[LinkedTable, ...]:
        """The linked tables with their denominations, decks and rates per common meter."""

    @abstractmethod
    def meters(self) -> MeterReading:
        """The common meters; ``raw`` also carries ``held`` (contributions waiting for a reset key)
        and ``counted`` (per table: wagers and amount counted)."""

    @abstractmethod
    def hits(self, since: int = 0) -> list[LinkHit]:
        """The hits the controller recorded after order ``since``, in order."""

    @abstractmethod
    def links_up(self) -> dict[str, bool]:
        """Table -> whether its link is up."""

    @abstractmethod
    def reset_key(self, meter: str) -> Cents: ...


ROLE_CLASSES: dict[str, type] = {  # abstract role interfaces by profile key
    "shoe": Shoe,
    "sensors": BetSensors,
    "controller": ProgressiveController,
    "counter": Counter,
    "power": PowerSupply,
    "link-controller": LinkController,
}
