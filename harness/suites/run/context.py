"""What a step sees of the case being run: :class:`CaseContext`, the data it reads and keeps, and
the ways a step may end a case early.

The step functions (:mod:`harness.suites.steps`) are typed against :class:`CaseContext`, not the
:class:`~harness.suites.run.runner.CaseRunner` that implements it, so the step modules do not import
the runner and the runner reaches them only through the registry.  It extends the performers'
:class:`~harness.bench.performers.Stage` (what a performer may use of the case) with what the steps
use: the devices (``controller``, ``read_meters``), placing wagers (``place``, ``place_many``,
``seats_of``), the meter snapshots, measurements (``measure``), acts (``perform``), the round's
events, and :class:`CaseState`, what steps keep between them in one case.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

from harness.bench.acts import Act
from harness.bench.performers import Performers, Stage
from harness.cards import Card
from harness.devices.link import DeviceEvent
from harness.devices.roles import MeterReading, Wager, WagerResult
from harness.money import Cents
from harness.profiles.model import Profile
from harness.suites.load.model import Case, Step
from harness.suites.run.oracle import ExpectedRound, Oracle
from harness.verdict import Verdict

if TYPE_CHECKING:
    from harness.devices.dropped import FrameWatch

#: a live shoe is reloaded (freshly shuffled) when fewer cards are left than a round can take
LIVE_RELOAD_BELOW = 20
#: how long a case waits for what a round brings (its settlement, its cards), s
ROUND_TIMEOUT_S = 10.0


class Inconclusive(Exception):
    """Nothing failed, but the case cannot be decided: a statistical case with fewer observations
    than its planned power needs and no test rejecting (with the number still needed), or a
    measurement only taken as an advisory value (host stamps within the bench's jitter of the
    limit).  The case is INCONCLUSIVE, never PASS."""


class NotApplicableHere(Exception):
    """The device made a choice the rules leave to it (refused a write it may refuse) and the rest
    of the case, which judged that write, does not apply: the case is NOT APPLICABLE, with the
    reason, never FAIL."""


@dataclass
class Measured:
    name: str
    value: Any
    unit: str
    limit: Any
    passed: bool
    clause: str
    detail: str = ""
    step: Step | None = None
    #: measured, but not precisely enough to decide: neither PASS nor FAIL (INCONCLUSIVE)
    advisory: bool = False

    @property
    def outcome(self) -> str:
        if self.advisory:
            return Verdict.INCONCLUSIVE
        return Verdict.PASS if self.passed else Verdict.FAIL


@dataclass(frozen=True)
class LockTiming:
    """One round's lock-out: host receive stamps always, the counter's interval when it measured."""

    host_ms: Decimal
    counter_ms: Decimal | None
    #: the counter was armed for this round (so a ``None`` interval means it measured nothing)
    counter_armed: bool
    cause: Any
    #: the lock-out event came before the round's first card (wagering was already closed)
    before_card: bool
    #: the counter had measured the lock-out line in an earlier round of the run: armed and measuring
    #: nothing now, the line did not fall when wagering opened or did not rise at the lock-out (docs/protocol.md
    #: section 9), the device's doing and not the bench wiring's
    counter_seen: bool = False

    @property
    def line_dead(self) -> bool:
        """Armed, measured nothing, and measured the same line before: no edge on the lock-out line."""
        return self.counter_armed and self.counter_ms is None and self.counter_seen


@dataclass(frozen=True)
class RoundLock:
    """One round on the case's list: which round of the case, and its latency (``None``: the
    controller reported no lock-out at all for a round it dealt)."""

    n: int
    timing: LockTiming | None

    @property
    def ms(self) -> Decimal | None:
        if self.timing is None or self.timing.line_dead:
            return None
        return self.timing.counter_ms if self.timing.counter_ms is not None else self.timing.host_ms

    @property
    def by_counter(self) -> bool:
        return self.timing is not None and self.timing.counter_ms is not None


@dataclass
class RoundLog:
    """Everything seen since the last ``open_round``."""

    cards: list[tuple[Card, int]] = field(default_factory=list)
    #: every event of the shoe in the round (``card``, ``misread``, ``error``), in order
    shoe_events: list[DeviceEvent] = field(default_factory=list)
    ctrl_events: list[DeviceEvent] = field(default_factory=list)
    wagers: dict[tuple[int, str], Cents] = field(default_factory=dict)
    results: list[WagerResult] = field(default_factory=list)
    meters_before_settle: MeterReading | None = None
    settled: bool = False
    expected: ExpectedRound | None = None
    #: the bet sensors' own events (a ``wager`` event per chips placed at the table)
    sensor_events: list[DeviceEvent] = field(default_factory=list)
    #: the round's qualifying wagers have been added to the case's running total
    counted: bool = False
    #: the dealer closed wagering by hand in this round (the lock-out button or "no more bets")
    closed_by_dealer: bool = False
    #: this round's lock-out latency, measured once (harness.suites.run.timing)
    lock_timing: LockTiming | None = None
    #: the round is on the case's list of timed rounds (or was found not to be timed)
    lock_recorded: bool = False
    #: the cards the round's deals have asked the shoe for so far (None: a deal of all it holds)
    cards_asked: int | None = 0
    #: the round number the controller's ``round.open`` answer named (None: not known, e.g. a person
    #: pressed the button)
    number: int | None = None
    #: a step of this case opened the round (a fresh log at a case's start holds no round)
    opened: bool = False

    @property
    def between_rounds(self) -> bool:
        """No round of this case is open: none was opened, or the one opened is settled."""
        return self.settled or not self.opened


@dataclass
class CaseState:
    """What steps keep between them in one case, beyond the runner's own records."""

    #: the last ``configure_mystery`` write was taken (``mystery_play``'s ``if_written``)
    mystery_written: bool = False
    #: the configuration number that write asked for (None: none written in this case)
    mystery_last: int | None = None


#: docs/protocol.md section 6.3: "wager.list lists every wager on the layout now, in seat order"
WAGER_LIST = "contract-6-3-wager-list-seat-order"
#: docs/protocol.md section 8: every wager on the layout is settled by its one payout
SETTLEMENT = "contract-8-settlement-order"


def citing_also(runner: CaseContext, step: Step, clause: str) -> str:
    """The clauses a measurement is recorded against when it also shows ``clause`` broken: the
    step's (else the case's) and ``clause``, each once."""
    own = [c for c in (step.clause or ",".join(runner.case.clauses)).split(",") if c]
    return ",".join(own + ([clause] if clause not in own else []))


class CaseContext(Stage, Protocol):
    """What a step may use of the case being run (:class:`~harness.suites.run.runner.CaseRunner`
    implements it)."""

    case: Case
    profile: Profile
    oracle: Oracle
    #: who carries out each act this case asks for (the profile's ``bench:``)
    performers: Performers
    round: RoundLog
    measured: list[Measured]
    #: meter readings kept under a name (``read_meters: {as: NAME}``; ``open_round``'s ``round-start``)
    snapshots: dict[str, MeterReading]
    snapshot_hits: dict[str, int]
    #: every meter reading of the case, in order
    timeline: list[MeterReading]
    #: every ``hit`` and ``reset`` event of the case
    hits_seen: list[DeviceEvent]
    #: the cards the test channel loaded for the round being dealt
    loaded: tuple[Card, ...]
    live_left: int | None
    observed: list[dict[str, Any]]
    host_jitter_ms: Decimal | None
    counter_armed: bool
    lock_rounds: list[RoundLock]
    rates_written: dict[str, Decimal]
    seq_marks: dict[int, int]
    transcript_marks: dict[int, int]
    #: each device line's frames that failed section 2's checks (harness.suites.run.frames)
    frames: FrameWatch
    #: what steps keep between them in this case
    state: CaseState

    @property
    def stake_default(self) -> Cents: ...

    @property
    def requires_base_wager(self) -> bool: ...

    @property
    def shoe_decks(self) -> int: ...

    def perform(self, act: Act) -> Any: ...

    def cards_out(self) -> int: ...

    def arm_counter(self) -> None: ...

    def counter_intervals(self) -> int: ...

    def fetch_counter(self) -> Decimal | None: ...

    def measure(self, step: Step, name: str, value: Any, limit: Any, passed: bool, unit: str = "",
                detail: str = "", *, advisory: bool = False, clause: str | None = None) -> None: ...

    def interpretation(self, interp_id: str) -> Any: ...

    def new_round(self) -> None: ...

    def count_round(self) -> None: ...

    def snapshot(self, name: str, reading: MeterReading) -> MeterReading: ...

    def hit_since(self, name: str) -> set[str]: ...

    def stakes_since(self, name: str) -> Cents: ...

    def controller(self) -> Any: ...

    def read_meters(self) -> MeterReading: ...

    def place(self, seat: int, kind: str, amount: Cents | None, *, after: str | None = None,
              not_before_ns: int | None = None) -> WagerResult: ...

    def place_many(self, wagers: list[tuple[int, str, Cents | None]]) -> list[WagerResult]: ...

    def place_wagers(self, batch: tuple[Wager, ...], *, after: str | None = None, not_before_ns: int | None = None,
                     probe: bool = False) -> list[WagerResult]: ...

    def event_time(self, after: str, n: int) -> int: ...

    def seats_of(self, seats: Any) -> list[int]: ...

    def cards_arg(self, cards: tuple[Card, ...] | None, stack: str | None) -> tuple[Card, ...] | None: ...

    def wait_back(self, timeout_s: float = 10.0) -> None: ...

    def round_cards(self, cards: list[Card]) -> list[Card]: ...

    def random_round_cards(self, rng: random.Random) -> list[Card]: ...

    def dealer_closes_wagering(self) -> None: ...

    def deal_random_round(self, draw: Callable[[], list[Card]], pace_us: int | None, seed: int = 0) -> None: ...
