"""The step runner: drives the devices through one case's steps and measures every expectation.

Each ``expect_*`` step becomes one or more measurements (name, value, unit, limit, outcome,
clause).  A measurement that does not hold is a compliance FAIL; the runner keeps going through
the remaining steps (so the record holds all the evidence) and raises :class:`ComplianceFailure`
at the end.  A device that does not answer raises ``DeviceError``/``DeviceTimeout``: an ERROR or
TIMEOUT of the rig, never confused with a FAIL.
"""

from __future__ import annotations

import random
import time
import traceback
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from harness.bench.acts import Act, Deal, LoadShoe, PlaceWagers, PressLockout
from harness.bench.performers import Performers, human_readable, pump_until
from harness.cards import Card, parse_card, shoe_composition
from harness.devices.contract import as_sent
from harness.devices.dropped import FrameWatch
from harness.devices.link import DeviceEvent, DeviceNak, NakError
from harness.devices.roles import MeterReading, Wager, WagerResult
from harness.errors import DeviceError, DeviceTimeout
from harness.money import Cents, fmt
from harness.suites.load.model import Case, Step
from harness.suites.load.stacks import find_stack
from harness.suites.run.context import (
    LIVE_RELOAD_BELOW,
    ROUND_TIMEOUT_S,
    CaseContext,
    CaseState,
    Inconclusive,
    Measured,
    NotApplicableHere,
    RoundLock,
    RoundLog,
)
from harness.suites.run.frames import judge_frames, saw
from harness.suites.run.oracle import Oracle, qualifying_stakes
from harness.suites.run.rig import Rig
from harness.suites.steps.registry import lookup
from harness.verdict import Verdict

#: NAK codes a device may answer a wager at a seat the table does not have with (a refusal)
SEAT_REFUSAL_NAKS = ("BAD_ARGS", "REFUSED")


class ComplianceFailure(AssertionError):
    """The device did not do what the regulation requires (a FAIL verdict)."""


def verdict_of(exc: BaseException) -> tuple[Verdict, str]:
    """The verdict of a case that ended on ``exc``, and its message.

    A compliance failure is FAIL; a case that cannot be decided INCONCLUSIVE; a case the device's
    permitted choice made moot NOT APPLICABLE; a wait for the devices that ran out TIMEOUT; any
    other device fault or exception ERROR (the first line of its traceback); anything that is not
    an ``Exception`` (Ctrl-C, pytest's own exit) INTERRUPTED: the device did nothing wrong.
    """
    if isinstance(exc, ComplianceFailure):
        return Verdict.FAIL, str(exc)
    if isinstance(exc, Inconclusive):
        return Verdict.INCONCLUSIVE, str(exc)
    if isinstance(exc, NotApplicableHere):
        return Verdict.NOT_APPLICABLE, str(exc)
    if isinstance(exc, DeviceTimeout):
        return Verdict.TIMEOUT, str(exc)
    if isinstance(exc, DeviceError):
        return Verdict.ERROR, str(exc)
    if isinstance(exc, Exception):
        return Verdict.ERROR, "".join(traceback.format_exception_only(exc)).strip()
    return Verdict.INTERRUPTED, f"the run was interrupted during this case ({type(exc).__name__})"


class CaseRunner:
    def __init__(
        self,
        case: Case,
        rig: Rig,
        oracle: Oracle,
        *,
        on_measure: Callable[[Measured], None] | None = None,
        on_step: Callable[[int, Step, str, dict[str, Any]], None] | None = None,
        meter_point: Callable[[str, int, tuple[str, ...]], None] | None = None,
        performers: Performers | None = None,
    ) -> None:
        self.case = case
        self.rig = rig
        self.oracle = oracle
        self.profile = oracle.profile
        self.on_measure = on_measure
        self.on_step = on_step
        self.meter_point = meter_point
        self.measured: list[Measured] = []
        self.snapshots: dict[str, MeterReading] = {}
        self.timeline: list[MeterReading] = []
        self.hits_seen: list[DeviceEvent] = []
        #: a lock-out for a lost sensors link was reported in this case (the link may still be down)
        self.link_lost_seen = False
        #: how many of ``hits_seen`` are already marked on a meter timeline
        self._marked = 0
        self.round = RoundLog()
        #: qualifying wagers (Royal 9, Hit and Run) of every round settled in this case, cents
        self.stakes_total: Cents = 0
        #: snapshot name -> ``stakes_total`` when it was taken
        self.snapshot_stakes: dict[str, Cents] = {}
        #: snapshot name -> how many hit and reset events had been seen when it was taken
        self.snapshot_hits: dict[str, int] = {}
        self.loaded: tuple[Card, ...] = ()
        self.rng = random.Random(1)
        self.t0 = time.monotonic()
        #: who carries out each act this case asks for (the profile's ``bench:``)
        self.performers = performers if performers is not None else Performers(self.profile.bench)
        self.current: Step | None = None
        #: cards left in a shoe shuffled and dealt live (None: no live shoe loaded in this case)
        self.live_left: int | None = None
        #: the live shoes of this case and the cards read, round by round (plain data for the record)
        self.observed: list[dict[str, Any]] = []
        #: the spread of host receive stamps on this bench, measured at the start of the run (ms)
        self.host_jitter_ms: Decimal | None = None
        self.counter_armed = False
        #: the acts of the step being run, as "act by performer" (the step's record detail)
        self.performed: list[str] = []
        #: the lock-out latency of every round dealt in this case (harness.suites.run.timing)
        self.lock_rounds: list[RoundLock] = []
        #: what steps keep between them in this case
        self.state = CaseState()
        #: rates of progression written in this case (``configure_meter``), in force instead of the profile's
        self.rates_written: dict[str, Decimal] = {}
        #: each device line (by the id of its link) -> how many event SEQ gaps it had recorded when the
        #: case began (``expect_event_seq`` judges the gaps since)
        self.seq_marks: dict[int, int] = {}
        #: each device line (by the id of its link) -> how long its transcript was when the case began
        #: (``expect_write_answer_times`` judges the requests since)
        self.transcript_marks: dict[int, int] = {}
        #: each device line's frames dropped for failing section 2's checks, judged at the case's end
        self.frames = FrameWatch(rig)
        for role in ("shoe", "sensors", "controller"):
            link = getattr(getattr(rig, role, None), "link", None)
            gaps = getattr(link, "event_gaps", None)
            if isinstance(gaps, list):
                self.seq_marks[id(link)] = len(gaps)
            transcript = getattr(link, "transcript", None)
            if transcript is not None:
                self.transcript_marks[id(link)] = len(transcript)

    # ------------------------------------------------------------------ running

    def run(self) -> list[Measured]:
        if self.case.bind_error:
            raise RuntimeError(f"the case could not be built for this Rules Submission: {self.case.bind_error}")
        deadline = self.t0 + self.case.timeout_s
        context: CaseContext = self  # every step's context; the steps know it by its protocol
        person0 = self.performers.person_s  # the operator's time is not the devices': it does not count
        for i, step in enumerate(self.case.steps, start=1):
            if time.monotonic() - (self.performers.person_s - person0) > deadline:
                raise DeviceTimeout(f"case did not finish within {self.case.timeout_s} s (at step {i}; the "
                                    "time spent waiting for the operator not counted)")
            before = len(self.measured)
            self.current, self.performed = step, []
            try:
                lookup(step.action).run(context, step, **step.args)
                judge_frames(context, step)  # every step's: the frames its devices sent that failed section 2
            except (DeviceError, NakError) as exc:
                if self.on_step:
                    self.on_step(i, step, Verdict.ERROR, {"error": str(exc), **self._performed()})
                judge_frames(context, step)  # an answer dropped for its broken frame is the device's
                failed_before = [m for m in self.measured if not m.passed and not m.advisory]
                if failed_before:
                    # the device already broke a clause in this case: that is the verdict (a FAIL),
                    # and the fault that stopped the case, often the broken clause's consequence (a
                    # wager it should have refused won a hit the case never meant), is named with it
                    raise ComplianceFailure("\n".join(self.describe(m) for m in failed_before)
                                            + f"\nthen the case could not go on at step {i} "
                                              f"({step.action}): {exc}") from exc
                raise
            except NotApplicableHere as exc:
                # a choice the rules leave to the device made the rest of the case moot; a clause the
                # device already broke in this case is still the verdict
                failed_before = [m for m in self.measured if not m.passed and not m.advisory]
                if failed_before:
                    raise ComplianceFailure("\n".join(self.describe(m) for m in failed_before)) from exc
                if self.on_step:
                    self.on_step(i, step, Verdict.NOT_APPLICABLE, {"reason": str(exc), **self._performed()})
                raise
            failed = [m for m in self.measured[before:] if not m.passed and not m.advisory]
            advisory = any(m.advisory for m in self.measured[before:])
            if self.on_step:
                self.on_step(i, step, Verdict.FAIL if failed else Verdict.INCONCLUSIVE if advisory else Verdict.PASS,
                             {"measurements": [m.name for m in self.measured[before:]], **self._performed()})
        failures = [m for m in self.measured if not m.passed and not m.advisory]
        if failures:
            raise ComplianceFailure("\n".join(self.describe(m) for m in failures))
        unsure = [m for m in self.measured if m.advisory]
        if unsure:
            raise Inconclusive("\n".join(self.describe(m) for m in unsure))
        return self.measured

    def _performed(self) -> dict[str, Any]:
        return {"performed": list(dict.fromkeys(self.performed))} if self.performed else {}

    # ------------------------------------------------------------------ acts (harness.bench)

    def perform(self, act: Act) -> Any:
        """Have the bench's performer for ``act.kind`` carry the act out (the step asks, the
        performer acts, the expectations observe)."""
        self.performed.append(f"{act.kind} by {human_readable(act.kind, self.profile.bench)}")
        saw(self.frames, act)
        return self.performers.perform(act, self)

    def cards_read(self) -> list[Card]:
        self.pump()
        return [c for c, _t in self.round.cards]

    def cards_out(self) -> int:
        """Cards out of the shoe this round as the shoe reported them: read (``card``) or not
        (``misread``, which still counts as out, docs/protocol.md section 6.2)."""
        self.pump()
        return sum(1 for e in self.round.shoe_events if e.name in ("card", "misread"))

    def sensor_events(self) -> list[DeviceEvent]:
        self.pump()
        return self.round.sensor_events

    def controller_events(self) -> list[DeviceEvent]:
        self.pump()
        return self.round.ctrl_events

    def round_length(self, cards: list[Card]) -> int | None:
        """How many of ``cards`` one complete round uses under the rules (None: not a whole round)."""
        try:
            return len(self.round_cards(cards))
        except Exception:
            return None

    def arm_counter(self) -> None:
        """Arm the time-interval counter before the round's first card (it measures one event)."""
        if self.rig.counter is not None and not self.round.cards:
            self.rig.counter.arm()
            # a query answered after the arm: the counter has taken it before the deal starts (an
            # arm still in flight when the first card comes out measures nothing)
            self.rig.counter.idn()
            self.counter_armed = True

    def counter_intervals(self) -> int:
        """How many intervals the bench's counter has measured since the run opened it (0: none, or no
        counter)."""
        return self.rig.counter.intervals if self.rig.counter is not None else 0

    def fetch_counter(self) -> Decimal | None:
        """The interval the counter measured since it was armed (None: no counter, not armed, or it
        measured nothing before its timeout)."""
        if self.rig.counter is None or not self.counter_armed:
            return None
        self.counter_armed = False
        return self.rig.counter.fetch_interval_s()

    def where(self) -> tuple[str, str]:
        step = self.current
        return self.case.name, (f"line {step.line}: {step.source.strip()}" if step is not None else "")

    @staticmethod
    def describe(m: Measured) -> str:
        where = f"{m.step.where}: " if m.step else ""
        src = f"\n    {m.step.source.strip()}" if m.step else ""
        return (f"{where}{m.name} [{m.clause}]{src}\n    expected: {_show(m.limit, m.unit)}\n"
                f"    actual:   {_show(m.value, m.unit)}" + (f"\n    {m.detail}" if m.detail else ""))

    def measure(self, step: Step, name: str, value: Any, limit: Any, passed: bool, unit: str = "",
                detail: str = "", *, advisory: bool = False, clause: str | None = None) -> None:
        """Record one measurement against ``clause`` (default: the step's, else the case's clauses)."""
        clause = clause or step.clause or ",".join(self.case.clauses)
        m = Measured(name, value, unit, limit, passed, clause, detail, step, advisory)
        self.measured.append(m)
        if self.on_measure:
            self.on_measure(m)

    # ------------------------------------------------------------------ helpers

    @property
    def stake_default(self) -> Cents:
        d = self.profile.rules.denomination
        return (d or 5) * 100

    def interpretation(self, interp_id: str) -> Any:
        """The value in force of a named interpretation (the profile's, else the catalogue default)."""
        return self.oracle.interp.as_dict().get(interp_id)

    @property
    def requires_base_wager(self) -> bool:
        """Interpretation ``r9-requires-base-wager``: a Royal 9 wager needs a base wager at the seat."""
        return bool(self.interpretation("r9-requires-base-wager") in (True, None))

    def pump(self, timeout_s: float = 0.0) -> None:
        """Move queued device events into the round log."""
        if self.rig.shoe is not None:
            shoe_events = self.rig.shoe.events(0.0)
            self.performers.observe("shoe", shoe_events)
            self.round.shoe_events.extend(shoe_events)
            for ev in shoe_events:
                if ev.name == "card":
                    self.round.cards.append((parse_card(str(ev.payload["card"])), ev.t_ns))
        events = getattr(self.rig.sensors, "events", None)
        if events is not None:
            got = events(0.0)
            self.round.sensor_events.extend(got)
            self.performers.observe("sensors", got)
        if self.rig.controller is not None:
            evs = self.rig.controller.events(timeout_s)
            self.performers.observe("controller", evs)
            self.round.ctrl_events.extend(evs)
            self.hits_seen.extend(e for e in evs if e.name in ("hit", "reset"))
            self.link_lost_seen = self.link_lost_seen or any(
                e.name == "lockout" and as_sent(e.payload, "cause") == "comm-lost" for e in evs)

    def wait_for(self, what: str, pred: Callable[[], bool], timeout_s: float = ROUND_TIMEOUT_S) -> None:
        pump_until(self.pump, what, pred, timeout_s)

    def new_round(self) -> None:
        """Start a new round log (events still queued belong to the round before)."""
        self.pump()
        self.count_round()
        self.round = RoundLog()

    def count_round(self) -> None:
        """Add this round's qualifying wagers to the case's total once it has been dealt."""
        if not self.round.counted and (self.round.settled or self.round.cards):
            self.round.counted = True
            self.stakes_total += qualifying_stakes(self.round.wagers)

    def snapshot(self, name: str, reading: MeterReading) -> MeterReading:
        """Keep a meter reading under ``name`` with the qualifying wagers counted so far."""
        self.snapshots[name] = reading
        self.snapshot_stakes[name] = self.stakes_total
        self.snapshot_hits[name] = len(self.hits_seen)
        return reading

    def hit_since(self, name: str) -> set[str]:
        """The meters a hit or reset was announced for since the snapshot ``name`` was taken."""
        self.pump()
        return {str(e.payload.get("meter")) for e in self.hits_seen[self.snapshot_hits.get(name, 0):]}

    def stakes_since(self, name: str) -> Cents:
        """Qualifying wagers of the rounds dealt since the snapshot ``name`` was taken."""
        self.count_round()
        return self.stakes_total - self.snapshot_stakes.get(name, 0)

    def controller(self) -> Any:
        if self.rig.controller is None:
            raise DeviceError("this case needs a progressive controller and the profile has none")
        return self.rig.controller

    def read_meters(self) -> MeterReading:
        reading: MeterReading = self.controller().meters()
        self.timeline.append(reading)
        if self.meter_point:
            # hits and resets the controller announced since the previous reading, per meter, so a
            # chart can mark them (a drop with no mark is what 461a.12(h) forbids)
            fresh, self._marked = self.hits_seen[self._marked:], len(self.hits_seen)
            for name, cents in reading.meters.items():
                marks = tuple(dict.fromkeys(e.name for e in fresh if str(e.payload.get("meter")) == name))
                self.meter_point(name, cents, marks)
        return reading

    # ------------------------------------------------------------------ driving actions

    def place(self, seat: int, kind: str, amount: Cents | None, *, after: str | None = None,
               not_before_ns: int | None = None) -> WagerResult:
        """One placement (``not_before_ns``: no earlier than that host instant, for timed attempts)."""
        if self.rig.sensors is None:
            raise DeviceError("this case needs bet sensors and the profile has none")
        stake = amount if amount is not None else self.stake_default
        res = self.place_wagers((Wager(seat, kind, stake),), after=after, not_before_ns=not_before_ns)[0]
        self.round.results.append(res)
        if res.accepted:
            self.round.wagers[(seat, kind)] = stake
        return res

    def place_many(self, wagers: list[tuple[int, str, Cents | None]]) -> list[WagerResult]:
        """Several placements as one act (the test channel pipelines them; a person works from a
        wager sheet)."""
        if self.rig.sensors is None:
            raise DeviceError("this case needs bet sensors and the profile has none")
        batch = [Wager(seat, kind, amount if amount is not None else self.stake_default)
                 for seat, kind, amount in wagers]
        results = self.place_wagers(tuple(batch))
        for w, res in zip(batch, results, strict=True):
            self.round.results.append(res)
            if res.accepted:
                self.round.wagers[(w.seat, w.type)] = w.amount
        return results

    def place_wagers(self, batch: tuple[Wager, ...], *, after: str | None = None, not_before_ns: int | None = None,
                     probe: bool = False) -> list[WagerResult]:
        """Have the wagers placed (one act) and return the wagering system's answers.

        A seat the table does not have (not among the Rules Submission's seats: past the last one,
        or outside the protocol's 1..9) may be refused with a NAK (BAD_ARGS or REFUSED) instead of
        ``accepted: false`` (docs/protocol.md, section 6.3): that is the device's compliant refusal,
        read as reason ``bad-seat`` with the NAK kept (``WagerResult.nak``), not a rig ERROR.  Such
        seats are placed one at a time so that each NAK is attributed to its wager.  So is a negative
        amount, outside the protocol's cents (docs/protocol.md section 13, ``cents``: an integer from
        0): a NAK BAD_ARGS for it is the refusal ``bad-amount`` (section 12, "amount not positive")."""
        table = set(self.seats_of("all"))
        if all(w.seat in table and w.amount >= 0 for w in batch):
            results: list[WagerResult] = self.perform(PlaceWagers(batch, after, not_before_ns, probe))
            return results
        out: list[WagerResult] = []
        for w in batch:
            try:
                out += self.perform(PlaceWagers((w,), after, not_before_ns, probe))
            except DeviceNak as exc:
                reason = "bad-seat" if w.seat not in table and exc.code in SEAT_REFUSAL_NAKS else \
                    "bad-amount" if w.amount < 0 and exc.code == "BAD_ARGS" else None
                if reason is None:
                    raise
                out.append(WagerResult(False, reason, 0, 0, w.seat, w.type, w.amount,
                                       nak=f"NAK {exc.code}: {exc.reason}"))
        return out

    def event_time(self, after: str, n: int) -> int:
        if after in ("first-card", "card"):
            idx = 1 if after == "first-card" else n
            self.wait_for(f"card {idx} out of the shoe", lambda: len(self.round.cards) >= idx)
            return self.round.cards[idx - 1][1]
        name = "lockout" if after == "lockout" else "no_more_bets"

        def closing(e: DeviceEvent) -> bool:  # the lock-out that closes wagering, not round.open's unlock
            return e.name == name and (name != "lockout" or bool(e.payload.get("locked")))

        self.wait_for(f"'{name}' event", lambda: any(closing(e) for e in self.round.ctrl_events))
        return next(e.t_ns for e in self.round.ctrl_events if closing(e))

    def seats_of(self, seats: Any) -> list[int]:
        if seats == "all":
            return [s.seat for s in self.profile.rules.seats] or list(range(1, 8))
        return list(seats)

    def cards_arg(self, cards: tuple[Card, ...] | None, stack: str | None) -> tuple[Card, ...] | None:
        if stack is not None:
            return find_stack(stack).cards
        return cards

    def wait_back(self, timeout_s: float = 10.0) -> None:
        deadline = time.monotonic() + timeout_s
        last: Exception | None = None
        while time.monotonic() < deadline:
            try:
                self.controller().ping()
                return
            except DeviceError as exc:
                last = exc
                time.sleep(0.05)
        raise DeviceTimeout(f"controller did not answer within {timeout_s} s of power on ({last})")

    def round_cards(self, cards: list[Card]) -> list[Card]:
        """The first cards of ``cards`` that make exactly one complete round under the rules."""
        return cards[: self.oracle.cards_in_round(cards)]

    def random_round_cards(self, rng: random.Random) -> list[Card]:
        decks = self.profile.rules.decks
        shoe = [c for c, n in shoe_composition(decks).items() for _ in range(n)]
        return rng.sample(shoe, 16 if self.oracle.is_hit_and_run else 6)

    @property
    def shoe_decks(self) -> int:
        hr = self.profile.rules.hit_and_run
        return hr.decks if hr is not None else self.profile.rules.decks

    def dealer_closes_wagering(self) -> None:
        """Before the first card: where the lock-out is the dealer's button (interpretation
        ``lockout-automatic`` false, Royal 9 (a)(2) "a mechanism, such as a lock-out button"), the
        dealer presses it, as the table's procedure says; an automatic lock-out needs nothing."""
        if self.interpretation("lockout-automatic") is False and not self.round.closed_by_dealer \
                and not self.round.cards:
            self.perform(PressLockout())
            self.round.closed_by_dealer = True

    def deal_random_round(self, draw: Callable[[], list[Card]], pace_us: int | None, seed: int = 0) -> None:
        """Deal one random round and wait for it to settle.

        When the test channel loads the shoe, the round's cards are ``draw()`` (the step's own
        random draw), loaded and dealt as scripted.  Anyone else loads a freshly shuffled shoe and
        deals the round live from it, as a bench does: nothing is known of the cards before they are
        read, and the oracle is applied to the cards read (``loaded`` stays empty).  The cards read
        are kept per round (:attr:`observed`) as plain data for the record."""
        self.dealer_closes_wagering()
        if self.profile.bench.performer("load").kind == "test-channel":
            cards = draw()
            self.perform(LoadShoe(tuple(cards), decks=self.shoe_decks, sheet_id="a random round"))
            self.loaded = tuple(cards)
            self.arm_counter()  # every round is timed, the bulk ones too (harness.suites.run.timing)
            self.perform(Deal(None, pace_us))
        else:
            if self.live_left is None or self.live_left < LIVE_RELOAD_BELOW:
                self.perform(LoadShoe(shuffled=True, decks=self.shoe_decks, seed=seed))
                self.live_left = self.shoe_decks * 52
                self.observed.append({"decks": self.shoe_decks, "rounds": []})
            self.loaded = ()
            before = len(self.round.cards)
            self.arm_counter()
            self.perform(Deal(one_round=True))
            self.wait_for("the cards of a whole round from the shoe",
                           lambda: self.round_length(self.cards_read()[before:]) is not None, timeout_s=2.0)
            self.live_left -= len(self.round.cards) - before
        assert self.current is not None
        lookup("settle").run(self, self.current)  # the step ``settle``, through the registry
        if not self.loaded and self.observed:
            self.observed[-1]["rounds"].append([c.code for c, _t in self.round.cards])



def _show(value: Any, unit: str) -> str:
    if unit == "cents" and isinstance(value, int):
        return fmt(value)
    if unit == "cents" and isinstance(value, dict):
        return ", ".join(f"{k} {fmt(v) if isinstance(v, int) else v}" for k, v in value.items())
    return f"{value} {unit}".strip() if unit and unit != "cents" else str(value)
