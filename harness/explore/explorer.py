"""Random legal operation sequences against a device, judged by the model after every step.

Hypothesis's stateful testing (:class:`hypothesis.stateful.RuleBasedStateMachine`) chooses each next
operation among those the model says are legal in its current state, the device carries it out
(:mod:`harness.explore.device`), and :func:`harness.explore.judge.judge` compares every observable
with every outcome the model permits.  The first difference raises :class:`FindingError`; Hypothesis
then shrinks the sequence, re-running each candidate from a fresh device (an emulated profile gets a
new emulator process per sequence, so a sequence reproduces on its own), and the last run is the
shortest sequence that still fails.
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
import shutil
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar

from hypothesis import HealthCheck, Phase, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import Flaky
from hypothesis.stateful import RuleBasedStateMachine, get_state_machine_test, rule

from harness.bench.performers import Performers
from harness.bench.session import BenchSession
from harness.cards import Card, parse_card
from harness.devices import vocabulary
from harness.devices.contract import ContractError
from harness.errors import DeviceError
from harness.explore import rules as R
from harness.explore.device import ROLES, ExploredTable, available_ops
from harness.explore.draws import Draws, merge_changes, unheld_combinations
from harness.explore.judge import (
    Difference,
    Observed,
    adopt,
    contract_difference,
    differences,
    frames_dropped,
    judge,
)
from harness.explore.model import R9_METERS, TableModel
from harness.explore.ops import (
    ANSWERED_FRAME_KINDS,
    FOREIGN_COMMANDS,
    BadFrame,
    Comm,
    ConfigWrite,
    CorruptAnswers,
    DealFirst,
    DealMisread,
    DealNext,
    DealRest,
    ForeignCommand,
    LineDrop,
    LoadShoe,
    LostRequest,
    NoMoreBets,
    Op,
    OpenRound,
    Pipelined,
    PlaceWager,
    PowerCutMidDeal,
    PowerCycle,
    PressLockout,
    Reboot,
    Reconnect,
    RemoveWager,
    ResetKey,
    SeqFrom,
    ShoeError,
    ShoeRefusal,
    SupplyOn,
    VoidRound,
    VoidRounds,
)
from harness.explore.replay import round_need, start_outcome
from harness.explore.state import State
from harness.profiles.model import Profile
from harness.suites.run.profile_rig import open_rig
from harness.suites.run.rig import Rig, start_profile_emulator

BASE_TYPES = ("player", "banker", "tie")
#: the kinds of broken frame drawn (docs/protocol.md section 2)
FRAME_KINDS = BadFrame.choices["kind"]
#: request numbers at the edges a receiver may get wrong: a signed 16-bit SEQ, and the wrap after 65535
EDGE_SEQS = (32767, 32768, 40000, 65534, 65535)
#: the reply deadline on an emulated profile's ports (a host under load answers late, the device is not late)
EMULATOR_TIMEOUT_MS = 10_000


class RigError(Exception):
    """The device did not answer (a timeout, a line down): the exploration ends as an ERROR."""


class FindingError(AssertionError):
    """The device did something the model permits nowhere."""

    def __init__(self, ops: list[Op], differences: list[Difference]) -> None:
        super().__init__("; ".join(d.text() for d in differences))
        self.ops = list(ops)
        self.differences = differences


class OtherFailure(FindingError):
    """A difference met while shrinking a finding that breaks none of the finding's rules."""


@dataclass
class Stats:
    ops: int = 0
    sequences: int = 0
    device_s: float = 0.0
    model_s: float = 0.0
    rules: Counter[str] = field(default_factory=Counter)
    pairs: Counter[tuple[str, str]] = field(default_factory=Counter)
    choices: Counter[str] = field(default_factory=Counter)
    #: act requests answered late once that could not be asked again harmlessly (no finding rests on them)
    late_unconfirmed: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"operations": self.ops, "sequences": self.sequences,
                "device_s": round(self.device_s, 3), "model_s": round(self.model_s, 3),
                "rules": {name: self.rules.get(name, 0) for name in R.RULES},
                "rules_covered": sum(1 for name in R.RULES if self.rules.get(name)), "rules_total": len(R.RULES),
                "state_pairs": {f"{phase} x {op}": n for (phase, op), n in sorted(self.pairs.items())},
                "choices": dict(sorted(self.choices.items())), "late_acts_unconfirmed": self.late_unconfirmed}


class Session:
    """One exploration: the profile, its model, the device (fresh per sequence where emulated)."""

    def __init__(self, profile: Profile, *, defect: str | None = None, listen: str = "pty",
                 steps: int = 120, work_dir: Path | None = None, shrink_s: float = 60.0,
                 fresh: bool = True) -> None:
        if profile.is_emulated:  # an emulator's speed is not under test: a loaded host must not end the run
            timing = dataclasses.replace(profile.timing, response_timeout_ms=max(profile.timing.response_timeout_ms,
                                                                                 Decimal(EMULATOR_TIMEOUT_MS)))
            profile = dataclasses.replace(profile, timing=timing)
        self.profile = profile
        self.model = TableModel(profile)
        self.defects = (defect,) if defect else ()
        self.listen = listen
        self.steps = steps
        self.enabled = available_ops(profile)
        self.fresh = fresh and profile.is_emulated
        self.stats = Stats()
        self.failure: FindingError | None = None
        self.first_failure_s: float | None = None
        #: how many operations the first failing sequence had (before shrinking)
        self.first_failure_ops: int | None = None
        #: the rules the first failure broke: a shrink candidate failing on none of them is another failure
        self.first_rules: frozenset[str] | None = None
        #: the rig error that ended the exploration (a device that stopped answering)
        self.rig_error: str | None = None
        self.shrink_s = shrink_s
        self.budget_s = float("inf")
        self.t0 = time.perf_counter()
        self._own_dir = work_dir is None
        self.work_dir = work_dir or Path(tempfile.mkdtemp(prefix="tablecert-explore-"))
        self._rig: Rig | None = None   # kept across sequences on a bench that is not emulated
        self._table: ExploredTable | None = None
        #: the drivers were closed after a message outside the contract: the next table is the same
        #: devices again (brought to rest), on new drivers that hold no broken message
        self._reopened = False
        self._n = 0
        self.identity: dict[str, Any] | None = None
        #: the controller's driver sends round.settle (voids), and its line can be closed and opened again
        self.can_void = False
        self.can_reconnect = False
        #: the reset key is turned through the test channel, which names any meter (a key of a meter the table
        #: does not have is a request; a bench's keys are the ones it has)
        self.keys_any_meter = profile.bench.performer("reset-key").kind == "test-channel"
        #: the lines the host can close and open again (each of its own port)
        self.reconnect_roles: tuple[str, ...] = ()
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="explore-emulator")
        self._next: Future[Any] | None = None
        self._stopping: list[Future[None]] = []
        self._lock = threading.Lock()
        #: the model's state where the last sequence ended
        self.last_state: State | None = None
        #: what the sequences draw: cards from the table's decks, configuration writes at its bounds
        self.draws = Draws(self.model)

    # ------------------------------------------------------------------ the device

    def open_table(self) -> tuple[ExploredTable, State, dict[str, Any] | None]:
        """The table for one sequence, and the model's state for it.

        With ``fresh`` (an emulated profile only) every sequence gets a new emulator, so that a sequence
        (and every shrunk candidate of it) starts from the table as filed; the next emulator process starts in the
        background while a sequence plays (only the processes overlap: two rigs' drivers never do,
        they share the VISA resource manager).  Otherwise the same devices go on: before each later
        sequence they are brought to rest (the sensors link restored, the power cycled or an open round
        voided) and their meters, payments, layout and configuration adopted as they stand."""
        fresh = self.fresh
        first = self._table is None and not self._reopened
        self._reopened = False
        if fresh or self._table is None:
            if self._rig is not None:
                self._retire(self._rig)
            if fresh:
                emulator = self._next.result() if self._next is not None else self._start_emulator()
                self._next = self._pool.submit(self._start_emulator)
                rig = open_rig(self.profile, listen=self.listen, emulator=emulator)
            else:
                rig = open_rig(self.profile, listen=self.listen, run_dir=self.work_dir, defects=self.defects)
            self._rig = rig
            self._table = ExploredTable(self.profile, rig, _performers(self.profile, rig), royal9=self.model.royal9)
        table = self._table
        assert table is not None
        self.can_void, self.can_reconnect = table.can_void(), table.can_reconnect()
        self.reconnect_roles = tuple(r for r in ("controller", "shoe", "sensors") if table.can_reconnect(r))
        rested = not first and not fresh
        try:
            if rested:
                self._rest(table)
            obs = table.read(Observed())
            identity = table.identity()
        except ContractError as exc:
            # an answer outside the contract as a sequence starts: after the power cycle that rests the
            # table between sequences, the sequence that shows it is that power cycle alone
            self.off_contract([PowerCycle()] if rested and "power_cycle" in self.enabled else [], exc)
        except DeviceError as exc:
            dropped = frames_dropped(table.frames)
            if dropped:  # an answer dropped for its broken frame: the device's, as after any operation
                self.failed([PowerCycle()] if rested and "power_cycle" in self.enabled else [], dropped)
            # a table that does not come back from its rest (its power, say) is the rig's error, as in a run:
            # said as such, never a traceback of the sequence engine's replay
            self.rig_error = f"bringing the table to rest between sequences: {type(exc).__name__}: {exc}"
            raise RigError(self.rig_error) from exc
        obs.identity = identity
        if fresh or (first and self.profile.is_emulated):
            state = self.model.initial()
        else:
            state = adopt(self.model, obs, config=not first)
        if fresh:  # a new emulator is a new device: its identity is held to itself from here on
            self.identity = None
        diffs = differences(self.model, start_outcome(state), obs, self.identity)
        if diffs:
            self.failed([], diffs)
        if self.identity is None:
            self.identity = dict(obs.identity)
        self.stats.rules[R.CONFIG_AS_FILED.name if first or fresh else R.POWER.name] += 1
        self.stats.rules[R.IDENTITY_SERIAL.name] += 1  # every device's identity read and compared
        return table, state, self.identity

    def _start_emulator(self) -> Any:
        with self._lock:
            self._n += 1
            run_dir = self.work_dir / f"sequence-{self._n}"
        run_dir.mkdir(parents=True, exist_ok=True)
        return start_profile_emulator(self.profile, listen=self.listen, run_dir=run_dir, defects=self.defects)

    def _retire(self, rig: Rig) -> None:
        """Close a sequence's drivers now; stop its emulator in the background."""
        emulator, rig.emulator = rig.emulator, None
        rig.close()
        self._rig = self._table = None
        if emulator is not None:
            self._stopping.append(self._pool.submit(_stop_emulator, emulator))

    def _rest(self, table: ExploredTable) -> None:
        last = self.last_state
        if last is not None and not last.link_up:
            table.perform(Comm(True))
        if "power_cycle" in self.enabled:
            table.perform(PowerCycle())
        elif last is not None and last.phase == "open":
            settle = getattr(table.ctrl, "settle_round", None)
            if settle is not None:
                with contextlib.suppress(DeviceError):
                    settle()
        # the filed configuration written back (as the suites' recovery does), so that a sequence starts
        # from the Rules Submission and replays the same on a fresh device; a refusal leaves it as it is
        filed = self.model.initial()
        changes: dict[str, Any] = {"meters": {n: {"rate": str(c.rate), "initial": c.initial, "reset": c.reset,
                                                  "payout_limit": c.payout_limit}
                                              for n, c in filed.meter_cfg.items()}}
        if self.model.royal9:
            changes["denomination"] = filed.denomination
        if self.profile.rules.commission is not None:
            changes["commission"] = str(filed.commission)
        # decks and personal combinations only where the device takes them (config_writes:): a write of a
        # field it never takes is refused whole, and the rest with it
        if self.profile.writes("decks") != "never":
            changes["decks"] = filed.decks
        if self.profile.writes("combinations") != "never" and any(c is not None for _s, c in filed.seats):
            changes["seats"] = [{"seat": seat, "combo": None if c is None else list(c)} for seat, c in filed.seats]
        if filed.meter_cfg or self.model.royal9:
            with contextlib.suppress(DeviceError):
                table.ctrl.set_config(**changes)

    def budget_over(self) -> bool:
        """No failure yet and the exploration's budget is spent."""
        return self.first_failure_s is None and time.perf_counter() - self.t0 > self.budget_s

    def shrink_over(self) -> bool:
        """Shrinking stops ``shrink_s`` after the first failure (the shortest failing sequence so far
        is the finding)."""
        return self.first_failure_s is not None and time.perf_counter() - self.t0 > self.first_failure_s + self.shrink_s

    def off_contract(self, ops: list[Op], exc: ContractError) -> None:
        """A device answered or sent a message outside the contract during the last of ``ops``: a
        finding like any other (shrunk, written as a case).  The drivers that read it are closed, so
        that the next sequence starts on new ones."""
        if self._rig is not None:
            self._retire(self._rig)
            self._reopened = not self.fresh
        self.failed(ops, [contract_difference(exc)])

    def failed(self, ops: list[Op], diffs: list[Difference]) -> None:
        """Record the failure and raise it.  The finding kept is the shortest failing sequence seen: a
        shrink candidate fewer rules long may play more operations (a rule may play many), and the shrink
        may be cut short by its time, so the last failure is not always the shortest."""
        if self.first_failure_s is None:
            self.first_failure_s = time.perf_counter() - self.t0
            self.first_failure_ops = len(ops)
            self.first_rules = frozenset(d.rule for d in diffs)
        if self.first_rules is not None and not self.first_rules & {d.rule for d in diffs}:
            # a shrink candidate that fails otherwise (a shrunk draw of cards the shoe refuses, say) is not the
            # finding made smaller: raised as its own kind, from its own line, so that Hypothesis shrinks the
            # first failure and not this one, and never kept as the finding
            raise OtherFailure(ops, diffs)
        error = FindingError(ops, diffs)
        if self.failure is None or len(ops) <= len(self.failure.ops):
            self.failure = error
        raise error

    def close(self) -> None:
        if self._rig is not None:
            self._rig.close()
            self._rig = self._table = None
        if self._next is not None:
            with contextlib.suppress(Exception):
                _stop_emulator(self._next.result())
            self._next = None
        for stopping in self._stopping:
            with contextlib.suppress(Exception):
                stopping.result()
        self._pool.shutdown(wait=True)
        if self._own_dir:
            shutil.rmtree(self.work_dir, ignore_errors=True)

def _stop_emulator(emulator: Any) -> None:
    emulator.stop()
    shutil.rmtree(emulator.run_dir, ignore_errors=True)


def _performers(profile: Profile, rig: Rig) -> Performers:
    relays: dict[str, Any] = {}
    if profile.bench.actuators:
        bench = BenchSession(profile)
        bench.open_actuators(rig)
        relays = bench.relays
    return Performers(profile.bench, relays=relays)


def machine_for(session: Session) -> type[RuleBasedStateMachine]:
    """The state machine class of one exploration (its rules drawn from the model's table)."""
    model = session.model
    seats = [*model.seats, max(model.seats) + 1]
    types = list(model.types) + [t for t in ("dragon7",) if t not in model.types]
    # a stake that is not whole dollars (the Banker commission on it is rounded to the cent, not
    # charged on the dollars), and 0 (refused bad-amount, section 12)
    #: amounts the table takes (the protocol sets no maximum: one past 16 bits, with cents a 5 % commission
    #: rounds); 0 and a negative amount are refused bad-amount (docs/protocol.md sections 6.3 and 12:
    #: "amount not positive"; a negative one may be NAK BAD_ARGS, read as that refusal)
    stakes = [100, 500, 1000, 2500, 1050, 123456]
    amounts = [*stakes, 0, -500]
    enabled = session.enabled
    templates = session.draws.templates()
    #: the rule of an incident and the rounds after it, with what it draws (two rules: :meth:`incident_round`)
    incident_rule = op_rule(kind=st.sampled_from(("void", "config", "meter", "meter", "meter", "denomination",
                                               "commission", "reboot", "power", "reconnect", "link",
                                               "shoe-error", "bad-frame", "reload")),
                         template=st.sampled_from(templates),
                         placed=st.lists(st.tuples(st.sampled_from(model.seats), st.sampled_from(model.types),
                                                   st.sampled_from(stakes)), min_size=1, max_size=4),
                         rng=st.randoms(use_true_random=False))

    #: the explorer's rules by name, in the order written: (the strategies of their arguments, their
    #: preconditions), filled once the class is built; :meth:`Explore.step` draws among them
    rules: dict[str, tuple[dict[str, st.SearchStrategy[Any]], list[Callable[[Any], bool]]]] = {}

    class Explore(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.ops: list[Op] = []
            self.idle = session.shrink_over() or session.budget_over() or session.rig_error is not None
            if self.idle:  # the time is up (to explore, or to shrink): every further sequence passes untried
                self.state = model.initial()
                return
            session.stats.sequences += 1
            self.table, self.state, self.identity = session.open_table()

        def teardown(self) -> None:
            if not self.idle:
                session.last_state = self.state

        def play(self, op: Op) -> None:
            if self.idle:
                return
            if session.budget_over() or session.shrink_over():  # the time is up within a long sequence
                self.idle = True
                return
            s = self.state
            if not model.legal(s, op):
                return
            t0 = time.perf_counter()
            outs = model.step(s, op)
            t1 = time.perf_counter()
            self.ops.append(op)
            try:
                obs = self.table.perform(op, round_need(model, s, op))
            except ContractError as exc:
                # a device answering or sending outside the contract is itself a finding, never the rig's
                session.off_contract(self.ops, exc)
                raise
            except DeviceError as exc:
                dropped = frames_dropped(self.table.frames)
                if dropped:  # the answer never read was dropped for its broken frame: the device's
                    session.failed(self.ops, dropped)
                # a device that does not answer is the rig's ERROR, as in a certification run, never a finding
                session.rig_error = f"operation {len(self.ops)} ({op.describe()}): {type(exc).__name__}: {exc}"
                raise RigError(session.rig_error) from exc
            t2 = time.perf_counter()
            try:
                out, diffs = judge(model, outs, obs, self.identity)
            except ContractError as exc:  # a field outside the contract, raised as the judge reads it
                session.off_contract(self.ops, exc)
                raise
            dropped = frames_dropped(self.table.frames)
            if dropped:
                session.failed(self.ops, diffs + dropped)
            stats = session.stats
            stats.model_s += (t1 - t0) + (time.perf_counter() - t2)
            stats.device_s += t2 - t1
            stats.ops += 1
            if out is None:
                session.failed(self.ops, diffs)
            assert out is not None
            stats.rules.update(out.rules)
            stats.rules[R.ANSWER_TIME.name] += 1  # every step's reads were timed (docs/protocol.md section 5)
            stats.rules[R.ACT_TIME.name] += 1  # and its act's requests
            stats.rules[R.WAGER_LIST.name] += 1  # and the layout's order
            stats.rules[R.FRAMES_SENT.name] += 1  # and every frame each device sent
            if obs.sensor_events_judged:
                stats.rules[R.WAGER_NO_EVENT.name] += 1  # and the bet sensors' line (no event for wager.place)
            if obs.busy_answer is not None:
                stats.rules[R.DEAL_BUSY.name] += 1  # a test.deal sent while the shoe dealt
            if obs.instrument_reads:
                stats.rules[R.INSTRUMENTS.name] += 1  # the bench supply's settings read back around the power
            stats.late_unconfirmed += len(obs.late_unconfirmed)
            stats.pairs[(s.phase, op.name)] += 1
            if out.choice is not None:
                stats.choices[out.choice] += 1
            self.state = out.state

        def again(self, op: Op) -> None:
            """The act once more where the device just refused it: a refusal must hold when asked again (a
            device that gives in at the second ask breaks the clause the first refusal kept)."""
            if self.ops and self.ops[-1] == op:
                self.play(op)

        @op_rule(twice=st.booleans())
        def open_round(self, twice: bool) -> None:
            self.play(OpenRound())
            if twice and self.state.phase != "open":
                self.again(OpenRound())

        @op_rule(seat=st.sampled_from(seats), kind=st.sampled_from(types), amount=st.sampled_from(amounts),
              twice=st.booleans())
        def wager(self, seat: int, kind: str, amount: int, twice: bool) -> None:
            op = PlaceWager(seat, kind, amount)
            self.play(op)
            if twice and (seat, kind) not in self.state.layout:
                self.again(op)

        @op_rule(placed=st.lists(st.tuples(st.sampled_from(model.seats), st.sampled_from(model.types),
                                        st.sampled_from(stakes)), min_size=1, max_size=6))
        def wagers(self, placed: list[tuple[int, str, int]]) -> None:
            """Several wagers the table offers, a Royal 9 wager at the denomination in force."""
            for seat, kind, amount in placed:
                self.play(PlaceWager(seat, kind, (self.state.denomination or amount) if kind == "royal9" else amount))

        @op_precondition(lambda self: model.royal9)
        @op_rule(seat=st.sampled_from(seats), amount=st.sampled_from([None, 100, 500]))
        def wager_royal9(self, seat: int, amount: int | None) -> None:
            self.play(PlaceWager(seat, "royal9", self.state.denomination or 500 if amount is None else amount))

        @op_rule(placed=st.lists(st.tuples(st.sampled_from(model.seats), st.sampled_from(model.types),
                                        st.sampled_from(stakes)), min_size=1, max_size=6),
              biased=st.booleans(), rng=st.randoms(use_true_random=False))
        def play_round(self, placed: list[tuple[int, str, int]], biased: bool, rng: random.Random) -> None:
            """A whole round: opened, wagered, dealt from the shoe (loaded first when it cannot give a
            round), settled.  One in four (``rng``) is a meter jackpot's round: a seat's personal king-9
            on the Player hand, the Banker hand or both, a Royal 9 wager at that seat, and half of those
            a Royal 9 wager at another seat too (the envy award)."""
            self.whole_round(placed, biased, rng)

        def whole_round(self, placed: list[tuple[int, str, int]], biased: bool, rng: random.Random,
                        jackpot: bool | str | None = None, both: bool = False, keep: bool = False) -> None:
            """:meth:`play_round`'s round; ``jackpot`` True or False decides the meter jackpot instead of
            ``rng`` (a meter's name: that meter's jackpot), ``both``: Royal 9 wagers at each denomination
            before the first card; ``keep``: dealt from the shoe as it stands wherever it holds a round."""
            self.play(OpenRound())
            self.wagers(placed)
            if rng.random() < 0.04:
                # the layout full: every type the table offers at every seat (the longest wager.list, the most
                # payouts of a settlement: docs/protocol.md 6.3 lists "every wager on the layout")
                self.wagers([(seat, kind, stakes[seat % len(stakes)]) for seat in model.seats for kind in model.types])
            if rng.random() < 0.3:
                # one seat holding a Player, a Banker and a Tie wager at three stakes: each is settled on its
                # own (section 8: one payout per wager, its own stake)
                seat = rng.choice(model.seats)
                self.wagers([(seat, kind, stake) for kind, stake in zip(BASE_TYPES, rng.sample(stakes, 3), strict=True)
                             if kind in model.types])
            # the personal combinations in force (a seats write may have moved them)
            combos = [(seat, tuple(parse_card(c) for c in combo)) for seat, combo in self.state.seats
                      if combo is not None]
            if jackpot is None:
                jackpot = rng.random() < 0.25
            if keep and model.legal(self.state, DealFirst()):
                pass  # the shoe part dealt before an incident: its next cards must be counted on from the load
            elif combos and model.royal9 and jackpot:
                seat, combo = rng.choice(combos)
                self.wagers([(seat, "player", 500), (seat, "royal9", 500)])
                others = [s for s in model.seats if s != seat]
                if others and rng.random() < 0.5:  # another seat's Royal 9 wager: mega envy, 629a Royal 9 (e)(9)
                    other = rng.choice(others)
                    self.wagers([(other, "banker", 500), (other, "royal9", 500)])
                filler = rng.sample(session.draws.shoe, 4)
                # the combination on the Player hand (cards 1 and 3: minor), on the Banker hand (cards 2
                # and 4: major) or on both (mega), 629a Royal 9 (e)(6)-(e)(8); one draw in four of a
                # random jackpot, two seats' combinations, one on each hand: a minor and a major won in the
                # same round, two payments pending for the reset key at once
                owners = [(s2, c2) for s2, c2 in combos if s2 != seat]
                which = R9_METERS[::-1].index(jackpot) if isinstance(jackpot, str) else rng.randrange(5)
                if which == 3 and not owners:
                    which = 2
                unheld = unheld_combinations(combos, self.state.decks)
                if which == 4 and unheld:
                    # both hands show one king-9 combination no position holds: a Royal 9 on each hand, but
                    # nobody's personal combination, so no meter is won and no envy is owed (629a Royal 9
                    # (e)(6)-(e)(9): the combination "designated for the position")
                    combo = rng.choice(unheld)
                if which == 4:
                    which = 2
                # each hand holds its combination king first or nine first, at random and on its own: 9-K is
                # the same two cards as K-9 (interpretation r9-order-insensitive), whichever order each
                # hand got them in
                player, banker = (combo if rng.random() < 0.5 else combo[::-1] for _ in range(2))
                if which == 0:
                    cards = (player[0], filler[0], player[1], filler[1], filler[2], filler[3])
                elif which == 1:
                    cards = (filler[0], banker[0], filler[1], banker[1], filler[2], filler[3])
                elif which == 2:
                    cards = (player[0], banker[0], player[1], banker[1], filler[0], filler[1])
                else:
                    other, other_combo = rng.choice(owners)
                    self.wagers([(other, "banker", 500), (other, "royal9", 500)])
                    banker = other_combo if rng.random() < 0.5 else other_combo[::-1]
                    cards = (player[0], banker[0], player[1], banker[1], filler[0], filler[1])
                self.load_round(cards, rng)
            else:
                shapes = ("tie", "banker3", "player3", "tableau", "tableau",
                          *(("royal9", "royal9") if model.royal9 else ()))
                shape = rng.choice(shapes) if rng.random() < 0.4 else "any"
                if shape == "royal9":  # every Royal 9 line wants a Royal 9 wager on it
                    seat = rng.choice(model.seats)
                    self.wagers([(seat, "tie", 500), (seat, "royal9", 500)])
                if shape != "any":
                    self.load_round(session.draws.shaped_round(shape, rng), rng)
                elif not model.legal(self.state, DealFirst()):
                    pool = session.draws.biased if biased else session.draws.shoe
                    self.load_round(tuple(rng.sample(pool, 6)), rng)
            self.midround(rng, both)
            misread = "deal_misread" in enabled and rng.random() < 0.1
            self.play(DealMisread() if misread and self.state.phase == "open" else DealFirst())
            if self.state.phase == "dealing" and rng.random() < 0.35:
                # an act while the round is in play, as in :meth:`deal`, after any number of its cards (a third
                # of the rounds: the refusals a deal in progress owes are met many times a minute on a slow table)
                for _ in range(rng.randrange(5)):
                    self.play(DealNext())
                self.mid_deal(rng.randrange(64), rng)
            self.play(DealRest())

        def midround(self, rng: random.Random, both: bool = False) -> None:
            """Before the round's first card, now and then (each one draw in ten): a base wager taken off
            from under a Royal 9 wager; the link cut and restored (wagering must stay closed); no more bets
            or the button, then a wager on the layout placed again at another amount (629a.7(c)) and one
            taken off; a wager of a type the table does not offer (refused disabled); a configuration write
            (a round is open: REFUSED, docs/protocol.md 6.4)."""
            s = self.state
            if s.phase != "open":
                return
            if model.royal9 and (both or rng.random() < 0.15):
                # a Royal 9 wager at each denomination (one is not the table's: bad-amount, section 12)
                seat = rng.choice(model.seats)
                if not any((seat, kind) in s.layout for kind in BASE_TYPES):
                    self.play(PlaceWager(seat, "player", 500))
                for amount in rng.sample((100, 500), 2):
                    self.play(PlaceWager(seat, "royal9", amount))
            s = self.state
            r9 = sorted(seat for seat, kind in s.layout if kind == "royal9")
            if r9 and rng.random() < 0.1:
                seat = rng.choice(r9)
                for kind in BASE_TYPES:
                    if (seat, kind) in self.state.layout:
                        self.play(RemoveWager(seat, kind))
                if rng.random() < 0.5:
                    # the seat's base wagers taken off: a Royal 9 wager placed there again meets a seat with
                    # no base-game wager now (section 6.3: no-base-wager, where the interpretation holds)
                    self.play(PlaceWager(seat, "royal9", self.state.denomination or 500))
            if self.state.layout and rng.random() < 0.1:
                # a wager of any type taken off while wagering is open, and placed back (section 6.3)
                seat, kind = rng.choice(sorted(self.state.layout))
                amount = self.state.layout[(seat, kind)]
                self.play(RemoveWager(seat, kind))
                self.play(PlaceWager(seat, kind, amount))
            if "comm" in enabled and rng.random() < 0.1:
                self.play(Comm(False))
                if self.state.layout and rng.random() < 0.5:
                    # a removal asked while the link is down: the controller decides removals (section 6.3) and
                    # wagering is closed, so it is refused and the wager stays listed
                    self.play(RemoveWager(*sorted(self.state.layout)[-1]))
                self.play(Comm(True))
                if self.state.layout:
                    seat, kind = sorted(self.state.layout)[0]
                    self.play(PlaceWager(seat, kind, self.state.layout[(seat, kind)] + 100))
            if rng.random() < 0.1:
                closing = [op for op, name in ((NoMoreBets(), "no_more_bets"), (PressLockout(), "lockout_button"))
                           if name in enabled]
                if closing:
                    self.play(rng.choice(closing))
                    if "comm" in enabled and rng.random() < 0.3:
                        # the link lost once wagering is closed: the wagers contributed at the closing, once
                        self.play(Comm(False))
                        self.play(Comm(True))
                if self.state.layout:
                    seat, kind = rng.choice(sorted(self.state.layout))
                    amount = self.state.layout[(seat, kind)]
                    self.play(PlaceWager(seat, kind, amount * 2 if kind != "royal9" else amount))
                    self.play(RemoveWager(seat, kind))
            if "power_cycle" in enabled and self.state.layout and rng.random() < 0.04:
                # the power lost with wagers on the layout: after power-up the layout is empty (section 8)
                self.play(PowerCycle())
                return
            if rng.random() < 0.1:
                # a wager of a type the table does not offer, with wagering open: refused disabled (section 12)
                unoffered = [t for t in vocabulary.WAGER_TYPES if t not in model.types]
                if unoffered:
                    self.play(PlaceWager(rng.choice(model.seats), rng.choice(unoffered), rng.choice(stakes)))
            if self.state.layout and rng.random() < 0.1:
                # a wager placed again at amount 0 or below: refused bad-amount, the wager stays (sections 6.3, 12)
                seat, kind = rng.choice(sorted(self.state.layout))
                self.play(PlaceWager(seat, kind, rng.choice((0, -self.state.layout[(seat, kind)]))))
            if rng.random() < 0.1:
                changes = session.draws.config_write(self.state, rng.choice(templates))
                if changes is not None:
                    self.play(ConfigWrite(changes))

        @incident_rule
        def incident_round(self, kind: str, template: tuple[str, str, str], placed: list[tuple[int, str, int]],
                           rng: random.Random) -> None:
            """An incident, then one to three whole rounds played after it, and the payments they leave
            paid with the reset key: a fault that shows only in the round after a void, a reboot, a power
            cycle, a reconnection or a link cut, or only once a written setting is in force, is met often.
            The writes: any template (in an open round with no wager half the time), a meter's reset amount,
            payout limit or rate followed by that round's meter jackpot, the other denomination followed by
            Royal 9 wagers at both amounts, the Banker commission; a write is followed half the time by a
            power cycle or a reboot (what was written must still be in force)."""
            if self.state.phase == "dealing":
                self.play(DealRest())
            jackpot: bool | str | None = None
            both = False
            changes: dict[str, Any] | None = None
            if "reset_key" in enabled and model.royal9 and not self.state.pending and rng.random() < 0.3:
                # the incident meets a payment waiting for the reset key: pending payments are non-volatile
                # and move only at their key (sections 6.4, 8), whatever happens to the table meanwhile
                if self.state.phase == "open" and session.can_void:
                    self.play(VoidRound())
                if self.state.phase in ("idle", "settled"):
                    self.whole_round(placed, False, rng, True)
            if kind == "void" and session.can_void:
                self.play(OpenRound())
                if rng.random() < 0.5:
                    self.wagers(placed + self.qualifying(rng))
                closers = [op for op, name in ((PressLockout(), "lockout_button"), (NoMoreBets(), "no_more_bets"))
                           if name in enabled]
                if closers and rng.random() < 0.5:
                    # wagering closed (the button or the dealer's no more bets), no card out: the round may
                    # still be voided, and the contributions the wagers made as they became final stay on
                    # the meters (section 8, 461a.12(h)); the round is settled all the same, so the next
                    # round.open is taken
                    self.play(rng.choice(closers))
                self.play(VoidRound())
                if rng.random() < 0.4:
                    # the round is over: a wager is refused locked-out ("no round is open", section 12)
                    # and one voided off the layout is not there to remove (section 8 states)
                    seat, wager_type, amount = placed[0]
                    if wager_type == "royal9":
                        amount = self.state.denomination or amount
                    self.play(PlaceWager(seat, wager_type, amount))
                    if rng.random() < 0.5:
                        self.play(RemoveWager(seat, wager_type))
            elif kind in ("config", "meter", "denomination", "commission"):
                if kind == "config" and self.state.phase in ("idle", "settled") and rng.random() < 0.25:
                    # a round with no wager dealt its first card: live all the same ("a round is open or
                    # dealing", docs/protocol.md 6.4), so the write is REFUSED and the round played out as before
                    self.first_cards([], rng)
                    live = session.draws.config_write(self.state, template)
                    if live is not None:
                        self.play(ConfigWrite(live))
                    if self.state.phase == "dealing":
                        self.play(DealRest())
                if kind == "config" and self.state.phase == "open" and not self.state.layout \
                        and rng.random() < 0.5:
                    pass  # written in the open round, no wager on the layout (REFUSED while live)
                elif self.state.phase == "open" and session.can_void:
                    self.play(VoidRound())
                if kind == "meter":
                    field, value = rng.choice((("reset", "amount-1"), ("reset", "floor+1"), ("reset", "amount"),
                                               ("payout_limit", "amount+1"), ("payout_limit", "amount+3"),
                                               ("payout_limit", "amount+700"), ("payout_limit", "land"),
                                               ("payout_limit", "land-1"), ("payout_limit", "land+1"),
                                               ("rate", "2"), ("initial", "amount+100")))
                    meter = rng.choice(R9_METERS)
                    template = (field, meter, value)
                    jackpot = meter
                    if field == "reset" and self.state.phase != "open":
                        # a reset amount may not exceed the meter's amount (6.4): the meters grow first
                        self.whole_round(placed, False, rng, False, True)
                        self.pay_pending()
                elif kind == "denomination":
                    template = ("denomination", "", "100" if self.state.denomination == 500 else "500")
                    both = True
                elif kind == "commission":
                    template = ("commission", "", rng.choice(("0", "4", "4.5", "5")))
                changes = session.draws.config_write(self.state, template)
                if changes is not None:
                    self.play(ConfigWrite(changes))
                    if rng.random() < 0.5:
                        if "reboot" in enabled and rng.random() < 0.5:
                            self.play(Reboot())
                        elif "power_cycle" in enabled:
                            self.play(PowerCycle())
            elif (kind == "reboot" and "reboot" in enabled) or (kind == "power" and "power_cycle" in enabled):
                if self.state.phase in ("idle", "settled"):
                    # a shoe part dealt as the power goes: its cards stay in it, and the rounds after are dealt
                    # from it where it still counts them (each card's n since the load, docs/protocol.md 6.2)
                    self.part_dealt_shoe(placed, rng)
                if rng.random() < 0.5:
                    # the power or the controller lost with wagers on the layout of an open round: the round
                    # is volatile, so the controller is back idle (section 8) and the next round.open is taken;
                    # one time in two the round's first cards out too: they are the lost round's, and the next
                    # round is settled on its own cards alone (section 8: "the cards a host settles on are the
                    # shoe's")
                    if self.state.phase == "dealing":
                        self.play(DealRest())
                    dealt = rng.random() < 0.5
                    self.first_cards(placed, rng, more=rng.randrange(3) if dealt else 0, deal=dealt)
                if kind == "reboot" and rng.random() < 0.5 and model.legal(self.state, Reboot("sensors")):
                    # the bet sensors rebooted between rounds: the controller still decides acceptance
                    self.play(Reboot("sensors"))
                    self.after_power_up(placed, rng, True)
                self.play(Reboot() if kind == "reboot" else PowerCycle())
                self.after_power_up(placed, rng)
                if session.can_void and rng.random() < 0.5:
                    # the round lost with the power is gone: round.settle has no round open to void (section 8)
                    self.play(VoidRound())
                    if rng.random() < 0.5 and model.legal(self.state, OpenRound()):
                        # the first round after power-up opened, wagered and voided with no card out: taken as
                        # in any round (section 8, round.settle)
                        self.play(OpenRound())
                        self.wagers(placed)
                        self.play(VoidRound())
            elif kind == "reconnect" and session.can_reconnect:
                # the host's line closed and opened again: between rounds with a shoe part dealt, or with a
                # round's first cards out; what the device holds (the shoe's count since its load, the
                # round, the meters) is the device's, not the line's (docs/protocol.md 6.1, 6.2, section 8)
                if self.state.phase in ("idle", "settled") and rng.random() < 0.7:
                    if rng.random() < 0.5:
                        self.part_dealt_shoe(placed, rng)
                    else:
                        self.first_cards(placed, rng)
                self.play(Reconnect(rng.choice(session.reconnect_roles)))
            elif kind == "reload":
                # the shoe loaded again with a round's first cards out: the new shoe's cards complete the
                # round (section 8: "the cards a host settles on are the shoe's") and count from 1 (6.2)
                if self.state.phase in ("idle", "settled"):
                    self.first_cards(placed, rng)
                if self.state.phase == "dealing":
                    reload = LoadShoe(tuple(c.code for c in rng.sample(session.draws.shoe, 20)))
                    if model.legal(self.state, reload):
                        self.play(reload)
            elif kind == "shoe-error" and "shoe_error" in enabled:
                # a shoe fault between rounds, or after a round's first cards: it deals no card, so the next
                # card's n and the shoe's count go on from the cards out (docs/protocol.md 6.2); the rounds
                # after it are dealt from the same shoe whenever it holds a round
                if self.state.phase in ("idle", "settled") and rng.random() < 0.5:
                    self.part_dealt_shoe(placed, rng)
                self.play(ShoeError())
            elif kind == "bad-frame" and "bad_frame" in enabled:
                # a broken request to the controller or the shoe: dropped (or NAK BAD_FRAME with its SEQ), and the
                # line's event SEQ runs on (docs/protocol.md sections 2, 3, 4); the rounds after it send the
                # events that show it
                self.play(BadFrame(rng.choice(("controller", "shoe")), rng.choice(FRAME_KINDS)))
            elif kind == "link" and "comm" in enabled:
                self.play(Comm(False))
                if "reboot" in enabled and rng.random() < 0.5:
                    # the controller rebooted while the link is down: round.open stays REFUSED (section 8)
                    self.play(Reboot())
                    self.play(OpenRound())
                self.play(Comm(True))
            for n in range(rng.randint(1, 3)):
                if self.state.phase == "dealing":
                    self.play(DealRest())
                if not self.state.link_up and "comm" in enabled:
                    self.play(Comm(True))
                self.pay_pending()
                self.whole_round(placed, rng.random() < 0.5, rng, jackpot if n == 0 else None, both and n == 0,
                                 n == 0 and kind in ("power", "reboot", "shoe-error", "bad-frame", "reconnect",
                                                     "reload"))
            diverted = sorted(m for m, ms in self.state.meters.items() if ms.diverted and m in self.state.meter_cfg)
            if diverted and rng.random() < 0.5:
                # a meter that diverted cents has its limit raised between rounds: a write moves no meter and no
                # diverted cent (6.4: a meter whose settings change keeps its amount and its residual)
                raised = session.draws.config_write(self.state, ("payout_limit", diverted[0], "amount+700"))
                if raised is not None:
                    if self.state.phase == "open" and session.can_void:
                        self.play(VoidRound())
                    self.play(ConfigWrite(raised))
            if rng.random() < 0.25:
                # what the rounds left (meters, diverted cents, payout meters, payments waiting for the key, the
                # round number, what was written) is non-volatile: a power cycle or a reboot before it is paid
                # must keep it exactly (section 8, 461a.12)
                downs = [op for op, name in ((PowerCycle(), "power_cycle"), (Reboot(), "reboot")) if name in enabled]
                if downs:
                    self.play(rng.choice(downs))
                    self.after_power_up(placed, rng)
            self.pay_pending()

        def after_power_up(self, placed: list[tuple[int, str, int]], rng: random.Random, closed: bool = False) -> None:
            """Half the time after a power cycle or a reboot, before any round.open: a wager at a seat (the
            controller is back idle and locked, cause power: refused at every seat, whatever the sensors held
            before, docs/protocol.md sections 6.3, 8); ``closed``: wagering was closed before (refused too)."""
            if rng.random() < 0.5 and (self.state.phase == "idle" or closed):
                seat, kind, amount = rng.choice(placed)
                self.play(PlaceWager(rng.choice(model.seats) if rng.random() < 0.5 else seat, kind,
                                     (self.state.denomination or amount) if kind == "royal9" else amount))

        def load_round(self, cards: tuple[Card, ...], rng: random.Random) -> None:
            """The round's cards loaded, and one time in two 14 cards from the table's decks after them: the
            shoe then holds rounds more, so that what comes after this round (a power cycle, a reboot, a shoe
            fault, a write) meets a shoe part dealt, whose counts must run on from the load."""
            rest = session.draws.without(cards)  # a second draw from the whole decks could load a card too often
            filler = tuple(rng.sample(rest, min(14, len(rest)))) if rng.random() < 0.5 else ()
            self.play(LoadShoe(tuple(c.code for c in (*cards, *filler))))

        def first_cards(self, placed: list[tuple[int, str, int]], rng: random.Random, more: int | None = None,
                        deal: bool = True) -> None:
            """A round opened (where none is) and wagered, and with ``deal`` dealt its first card and then
            ``more`` cards more while the round takes them (by default one time in two one), from the shoe as
            it stands where it holds a round."""
            if deal and (self.state.shoe is None or model.round_length(self.state.shoe) is None):
                self.load_round(tuple(rng.sample(session.draws.shoe, 6)), rng)
            if self.state.phase != "open":
                self.play(OpenRound())
            self.wagers(placed)
            if deal and model.legal(self.state, DealFirst()):
                self.play(DealFirst())
                for _ in range(int(rng.random() < 0.5) if more is None else more):
                    if self.state.phase == "dealing" and model.legal(self.state, DealNext()):
                        self.play(DealNext())

        def part_dealt_shoe(self, placed: list[tuple[int, str, int]], rng: random.Random) -> None:
            """Between rounds: a shoe of 60 cards loaded where the one in it cannot deal a round, and a round
            dealt from it, so that the shoe holds rounds more and has counted cards out."""
            if self.state.shoe is None or model.round_length(self.state.shoe) is None:
                self.play(LoadShoe(tuple(c.code for c in rng.sample(session.draws.shoe, 60))))
            self.play(OpenRound())
            self.wagers(placed)
            self.play(DealFirst())
            if self.state.phase == "dealing":
                self.play(DealRest())
            self.pay_pending()

        @incident_rule
        def incident_round_again(self, kind: str, template: tuple[str, str, str],
                                 placed: list[tuple[int, str, int]], rng: random.Random) -> None:
            """:meth:`incident_round` a second time among the rules: an incident and the rounds after it
            are drawn twice as often as any other rule."""
            self.incident_round(kind, template, placed, rng)

        @op_rule(roll=st.integers(0, 3), start=st.integers(0, len(templates) - 1), count=st.integers(4, 12),
              placed=st.lists(st.tuples(st.sampled_from(model.seats), st.sampled_from(model.types),
                                        st.sampled_from(stakes)), min_size=1, max_size=4),
              rng=st.randoms(use_true_random=False))
        def config_sweep(self, roll: int, start: int, count: int, placed: list[tuple[int, str, int]],
                         rng: random.Random) -> None:
            """One draw in four: ``count`` configuration templates in a row between rounds (from ``start``, in
            the order of :data:`~harness.explore.draws.CONFIG_TEMPLATES`), then a whole round played at what
            they left in force and its payments paid: every template is met many times a sequence, and a
            write's effect on the next round's contributions, caps and payouts with it."""
            if roll != 3:
                return
            self.between_rounds()
            for i in range(count):
                changes = session.draws.config_write(self.state, templates[(start + i) % len(templates)])
                if changes is not None:
                    self.play(ConfigWrite(changes))
            self.pay_pending()
            self.whole_round(placed + self.qualifying(rng), rng.random() < 0.5, rng)
            self.pay_pending()

        def qualifying(self, rng: random.Random) -> list[tuple[int, str, int]]:
            """A Royal 9 wager at the denomination in force on a Player wager at one seat (none on a table
            without the Royal 9): a round after a write or an incident always feeds the meters."""
            if not model.royal9 or self.state.denomination is None:
                return []
            seat = rng.choice(model.seats)
            return [(seat, "player", 500), (seat, "royal9", self.state.denomination)]

        def pay_pending(self) -> None:
            """Every payment waiting turned with the reset key (where the bench can); between two keys, with a
            payment still waiting, a round.open, which must be refused (section 8: "While a payment is
            pending, round.open is REFUSED": any payment, not the one the last key paid).  First, the key of a
            meter with nothing waiting while another's payment waits: REFUSED, "a reset key with nothing to reset"
            (section 3), that meter not turned back (461a.12(h))."""
            waiting = {p.meter for p in self.state.pending}
            idle = [m for m in R9_METERS if m in self.state.meters and m not in waiting]
            if session.keys_any_meter and "mystery" not in self.state.meters:
                idle.append("mystery")  # the mystery's key on a table without one: nothing to reset
            if self.state.pending and idle and "reset_key" in enabled:
                self.play(ResetKey(idle[len(self.ops) % len(idle)]))
            for meter in sorted({p.meter for p in self.state.pending}):
                if "reset_key" in enabled:
                    self.play(ResetKey(meter))
                    if self.state.pending:
                        self.play(OpenRound())

        @op_rule(roll=st.integers(0, 7), rounds=st.integers(1, 90), rng=st.randoms(use_true_random=False))
        def shoe_run(self, roll: int, rounds: int, rng: random.Random) -> None:
            """A whole shoe (every card of the table's decks, shuffled) dealt round after round, with a
            few wagers each, one draw in eight: the later cards of a shoe (its 256th) and a run of rounds
            (the 20th, the 50th) are met in many sequences, not by chance, and the other operations keep
            their share of the sequence (a shoe run is some 45 rounds: drawn one in four, it took more
            than half of every sequence's operations)."""
            if roll != 7:
                return
            if self.state.phase == "dealing":
                self.play(DealRest())
            cards = list(session.draws.shoe)
            rng.shuffle(cards)
            self.play(LoadShoe(tuple(c.code for c in cards)))
            # one run in two meets, between two of its rounds, the power cut, a controller reboot, a shoe fault
            # or a broken frame, and goes on dealing from the same shoe: each card's n and the shoe's count
            # still run from the load (docs/protocol.md 6.2), the round numbers on (section 8)
            breaks = [op for op, name in ((PowerCycle(), "power_cycle"), (Reboot(), "reboot"),
                                          (ShoeError(), "shoe_error"), (BadFrame("shoe"), "bad_frame"),
                                          (BadFrame("controller"), "bad_frame")) if name in enabled]
            at = rng.randrange(1, rounds) if breaks and rounds > 1 and rng.random() < 0.5 else -1
            for i in range(rounds):
                if i == at:
                    self.play(rng.choice(breaks))
                s = self.state
                if not s.link_up and "comm" in enabled:
                    self.play(Comm(True))
                self.pay_pending()
                self.play(OpenRound())
                if self.state.phase != "open":
                    return
                placed = [(rng.choice(model.seats), rng.choice(BASE_TYPES), rng.choice(stakes))
                          for _ in range(rng.randint(0, 3))]
                if model.royal9 and placed and rng.random() < 0.5:
                    placed.append((placed[0][0], "royal9", 0))
                self.wagers(placed)
                if not model.legal(self.state, DealFirst()):
                    return
                self.play(DealFirst())
                self.play(DealRest())

        @op_rule(roll=st.integers(0, 7), rounds=st.integers(150, 300), rng=st.randoms(use_true_random=False))
        def round_run(self, roll: int, rounds: int, rng: random.Random) -> None:
            """Many rounds in a row, as fast as the table plays them, one draw in eight: opened and voided
            (round.settle) in one step where the controller's driver can (:class:`VoidRounds`), else each
            dealt from the shoe with no wager.  The round counter's later values (past a byte's 255) are met
            within one sequence."""
            if roll != 7:
                return
            if self.state.phase == "dealing":
                self.play(DealRest())
            if not self.state.link_up and "comm" in enabled:
                self.play(Comm(True))
            self.pay_pending()
            if session.can_void:
                if self.state.phase == "open":
                    self.play(VoidRound())
                self.play(VoidRounds(rounds))
                return
            for _ in range(rounds):
                if not self.state.link_up and "comm" in enabled:
                    self.play(Comm(True))
                self.pay_pending()
                self.play(OpenRound())
                if self.state.phase != "open":
                    return
                if not model.legal(self.state, DealFirst()):
                    cards = list(session.draws.shoe)
                    rng.shuffle(cards)
                    self.play(LoadShoe(tuple(c.code for c in cards)))
                self.play(DealFirst())
                self.play(DealRest())

        @op_precondition(lambda self: session.can_void)
        @op_rule(roll=st.integers(0, 3))
        def void(self, roll: int) -> None:
            """round.settle: a void while a round is open, refused otherwise (one draw in four)."""
            if roll == 3 or self.state.phase == "open":
                self.play(VoidRound())

        @op_precondition(lambda self: session.can_reconnect)
        @op_rule(roll=st.integers(0, 3), pick=st.integers(0, 2), rng=st.randoms(use_true_random=False))
        def reconnect(self, roll: int, pick: int, rng: random.Random) -> None:
            """The host's line to a device closed and opened again (one draw in four; the controller's, the
            shoe's or the bet sensors', each with a line of its own), then now and then once more, or a card
            dealt: the shoe's cards are counted since the load whatever the host did (section 6.2)."""
            if roll == 3:
                roles = session.reconnect_roles
                role = roles[pick % len(roles)]
                self.play(Reconnect(role))
                if rng.random() < 0.3:
                    self.play(Reconnect(role))  # a slow hello is judged at two reconnections in a row
                if role == "shoe" and rng.random() < 0.5:
                    op = next((o for o in (DealNext(), DealFirst()) if model.legal(self.state, o)), None)
                    if op is not None:
                        self.play(op)
                elif role != "shoe" and rng.random() < 0.5:
                    # a wager right after: the line is the host's, wagering is the controller's (open or closed
                    # as it was, sections 6.3, 8); half the time at a seat with a wager on the layout, so what the
                    # seat holds (a base under a Royal 9 wager, 629a Royal 9 (b)) is met on the new line too
                    kind = rng.choice(model.types)
                    on_layout = sorted({seat for seat, _kind in self.state.layout})
                    seat = rng.choice(on_layout) if on_layout and rng.random() < 0.5 else rng.choice(model.seats)
                    amount = rng.choice(stakes)
                    self.play(PlaceWager(seat, kind, (self.state.denomination or amount) if kind == "royal9"
                                         else amount))

        @op_rule(seat=st.sampled_from(seats), kind=st.sampled_from(types), pick=st.integers(0, 7))
        def remove_wager(self, seat: int, kind: str, pick: int) -> None:
            """Chips taken off: mostly a wager on the layout (in whatever phase: before and after wagering
            closes), else any seat and type."""
            placed = sorted(self.state.layout)
            if placed and pick:
                seat, kind = placed[pick % len(placed)]
            self.play(RemoveWager(seat, kind))

        @op_precondition(lambda self: "lockout_button" in enabled)
        @op_rule(roll=st.integers(0, 3))
        def lockout_button(self, roll: int) -> None:
            """The button one draw in two; one in four then no more bets as well: wagering already closed by the
            button, the call is still taken in an open round (docs/protocol.md section 8 refuses it only with no
            round open or no such input)."""
            if roll >= 2:
                self.play(PressLockout())
            if roll == 3 and "no_more_bets" in enabled:
                self.play(NoMoreBets())

        @op_precondition(lambda self: "no_more_bets" in enabled)
        @op_rule()
        def no_more_bets(self) -> None:
            self.play(NoMoreBets())

        @op_rule(n=st.integers(6, 400), biased=st.booleans(), rng=st.randoms(use_true_random=False))
        def load(self, n: int, biased: bool, rng: random.Random) -> None:
            pool = session.draws.biased if biased else session.draws.shoe
            cards = rng.sample(pool, min(n, len(pool)))
            self.play(LoadShoe(tuple(c.code for c in cards)))

        @op_rule(rest=st.booleans(), misread=st.integers(0, 7), more=st.integers(0, 4), probe=st.integers(0, 15),
              rng=st.randoms(use_true_random=False))
        def deal(self, rest: bool, misread: int, more: int, probe: int, rng: random.Random) -> None:
            """The round's first card (one in eight misread, where the shoe's test channel can), up to four
            more that do not complete the round (``more``), one time in two an act while the round is in
            play (:meth:`mid_deal`), and (``rest``) at once the others: a round is dealt whole as often as
            it is interrupted after its first cards."""
            first: Op = DealMisread() if misread == 0 and "deal_misread" in enabled else DealFirst()
            self.play(DealRest() if self.state.phase == "dealing" else first)
            for _ in range(more):  # up to four cards more, the round still in play (not its last card)
                self.play(DealNext())
            if self.state.phase == "dealing" and probe < 8:
                self.mid_deal(probe, rng)
            if rest and self.state.phase == "dealing":
                self.play(DealRest())

        def mid_deal(self, which: int, rng: random.Random) -> None:
            """One act while a round is being dealt (its first card out, a misread one too, its last not): a
            void (REFUSED while the tableau needs a card), round.open (REFUSED while the last round is
            unsettled), a wager or a removal (refused: wagering is closed), a configuration write (REFUSED
            while live), the reset key, the button, no more bets or the link cut and restored (docs/protocol.md
            sections 6.3, 6.4, 8)."""
            s = self.state
            acts: list[Op] = [VoidRound(), OpenRound(),
                              PlaceWager(rng.choice(model.seats), rng.choice(model.types), rng.choice(stakes))]
            if s.layout:
                acts.append(RemoveWager(*rng.choice(sorted(s.layout))))
            changes = session.draws.config_write(s, rng.choice(templates))
            if changes is not None:
                acts.append(ConfigWrite(changes))
            if "reset_key" in enabled and model.profile.rules.meters:
                acts.append(ResetKey(rng.choice(R9_METERS)))
            acts += [op for op, name in ((PressLockout(), "lockout_button"), (NoMoreBets(), "no_more_bets"),
                                         (Comm(False), "comm")) if name in enabled]
            if "shoe_error" in enabled:
                acts.append(ShoeError())  # a shoe fault between two cards of the round: it deals none
            if "bad_frame" in enabled:
                acts.append(BadFrame("controller"))  # a broken request while the round is in play
            if "power_cut_mid_deal" in enabled and model.legal(s, PowerCutMidDeal()):
                acts.append(PowerCutMidDeal())  # the power lost with the shoe mid-deal (sections 8, 12)
            op = acts[which % len(acts)]
            self.play(op)
            if isinstance(op, (VoidRound, OpenRound)):
                self.again(op)  # a refusal must hold when asked again
            if isinstance(op, VoidRound):
                # and at every later card of the deal but its last: round.settle is REFUSED while the tableau
                # still needs a card (section 8), whichever card the deal has reached
                while self.state.phase == "dealing" and model.legal(self.state, DealNext()) and not self.idle:
                    self.play(DealNext())
                    self.play(VoidRound())
            if isinstance(op, Comm):  # the link lost after wagering closed moves no meter (section 8), and back
                if rng.random() < 0.5 and self.state.phase == "dealing":
                    # the round's last card with the link still down: settled then, as at any last card (the
                    # link's loss closes wagering and moves nothing else, section 8)
                    self.play(DealRest())
                self.play(Comm(True))

        @op_precondition(lambda self: "reset_key" in enabled and bool(model.profile.rules.meters))
        @op_rule(meter=st.sampled_from(R9_METERS), twice=st.booleans(), then=st.integers(0, 3))
        def reset_key(self, meter: str, twice: bool, then: int) -> None:
            """The reset key of a meter; asked again where it was refused; one time in four (where the key was
            taken and the bench can) a power cycle after it: the payment it booked is non-volatile too."""
            taken = any(p.meter == meter for p in self.state.pending)
            self.play(ResetKey(meter))
            if twice:
                self.again(ResetKey(meter))
            if taken and then == 3 and "power_cycle" in enabled:
                self.play(PowerCycle())

        @op_rule(template=st.sampled_from(templates), second=st.sampled_from(templates), roll=st.integers(0, 3))
        def config_write(self, template: tuple[str, str, str], second: tuple[str, str, str], roll: int) -> None:
            """One write from a template; one draw in two two templates' fields in one write (a field
            refused refuses the whole write: none of the others may be applied, docs/protocol.md 6.4; each
            field taken must be in force, whatever else the write held)."""
            changes = session.draws.config_write(self.state, template)
            more = session.draws.config_write(self.state, second) if roll >= 2 else None
            if changes is not None and more is not None:
                changes = merge_changes(changes, more)
            if changes is None:
                return
            before = self.state.in_force()
            self.play(ConfigWrite(changes))
            if roll % 2 and self.state.in_force() == before:
                self.write_after_refusal()

        def between_rounds(self) -> bool:
            """The round in play ended (dealt out, or voided with no card out) where it can be: whether the table
            is between rounds now."""
            if self.state.phase == "dealing":
                self.play(DealRest())
            if self.state.phase == "open" and session.can_void:
                self.play(VoidRound())
            return self.state.phase in ("idle", "settled")

        def write_after_refusal(self) -> None:
            """After a write that changed nothing (refused, or of the values in force), the round it met ended
            and a write of a value in force that the table takes between rounds: docs/protocol.md 6.4, a write
            refused changes nothing, so nothing of it may come in force with the next write taken."""
            self.between_rounds()
            s = self.state
            if s.meter_cfg:
                name = min(s.meter_cfg)
                self.play(ConfigWrite({"meters": {name: {"rate": str(s.meter_cfg[name].rate)}}}))
                # and one the table must refuse (below a floor of 629a Royal 9 (f)(2), (g)(2)): a refusal leaves
                # every check as it was, so the next write out of range is refused as the first
                below = session.draws.config_write(self.state, ("initial", name, "floor-1"))
                if below is not None:
                    self.play(ConfigWrite(below))
            elif model.profile.rules.commission is not None:
                self.play(ConfigWrite({"commission": str(s.commission)}))

        @op_precondition(lambda self: "power_cycle" in enabled)
        @op_rule(roll=st.integers(0, 31), cycles=st.integers(10, 60))
        def power_run(self, roll: int, cycles: int) -> None:
            """Power cycles in a row, one draw in thirty-two (a cycle takes a real table most of a second):
            what is non-volatile must survive the 50th as the first (461a.12(n)), and a fault that shows only
            after many (a boot counter, a storage that wears) is met within one sequence."""
            if roll == 31:
                for _ in range(cycles):
                    self.play(PowerCycle())

        @op_precondition(lambda self: "power_cycle" in enabled)
        @op_rule(roll=st.integers(0, 3))
        def power_cycle(self, roll: int) -> None:
            """One power cycle in four draws: often enough to meet every phase, rare enough to let rounds
            finish."""
            if roll == 3:
                self.play(PowerCycle())

        @op_precondition(lambda self: "reboot" in enabled)
        @op_rule(roll=st.integers(0, 3), sensors=st.booleans(), placed=st.sampled_from(seats))
        def reboot(self, roll: int, sensors: bool, placed: int) -> None:
            """A reboot by a line fault (one draw in two): the controller's, or between rounds the bet sensors'
            (then a wager at a seat: the controller, still locked, refuses it, section 6.3) or the shoe's (then a
            round's first card: out of the shoe for the controller too, so wagering closes on it, sections 6.2,
            8)."""
            if roll < 2:
                return
            if sensors and model.legal(self.state, Reboot("sensors")):
                self.play(Reboot("sensors"))
                self.play(PlaceWager(placed, "player", stakes[0]))
            elif roll == 3 and self.between_rounds() and model.legal(self.state, Reboot("shoe")):
                self.play(Reboot("shoe"))
                self.first_cards([(placed, "player", stakes[0])], random.Random(placed), more=0)
                self.play(PlaceWager(placed % len(seats) + 1, "player", stakes[0]))  # after the card: locked-out
            else:
                self.play(Reboot())

        @op_precondition(lambda self: "foreign" in enabled)
        @op_rule(roll=st.integers(0, 3), rng=st.randoms(use_true_random=False))
        def foreign(self, roll: int, rng: random.Random) -> None:
            """One draw in two, commands of another device's role to each device (NAK UNKNOWN_CMD, nothing
            changes: docs/protocol.md section 6), in whatever phase the round is: cheap, so every line meets
            every other role's reads and round commands within a short budget."""
            if roll < 2:
                return
            for role in ROLES:
                others = [cmd for cmd in FOREIGN_COMMANDS if cmd not in vocabulary.COMMANDS[role]]
                for cmd in rng.sample(others, min(2, len(others))):
                    self.play(ForeignCommand(role, cmd))

        @op_precondition(lambda self: "shoe_error" in enabled or "bad_frame" in enabled)
        @op_rule(roll=st.integers(0, 3), role=st.sampled_from(ROLES), kind=st.sampled_from(FRAME_KINDS))
        def line_fault(self, roll: int, role: str, kind: str) -> None:
            """One draw in four a shoe fault (its error event: no card dealt) or a broken request to a device (its
            CRC broken: dropped; a good CRC around what is not a command: NAK BAD_FRAME with its SEQ, or VERSION
            for VER 2; a partial frame then silence: abandoned; the event SEQ runs on each way), docs/protocol.md
            sections 2, 3, 4, 6.2.  One more in four, a good frame that reaches the receiver in a form it must
            still read (late, split, inside a false frame, of the largest length): answered at once, so cheap to
            draw often."""
            if role == "sensors" and "foreign" not in enabled:
                role = "controller"  # the sensors are framed by the reference protocol's driver only where all are
            if roll == 3 and "shoe_error" in enabled and (role == "shoe" or "bad_frame" not in enabled):
                self.play(ShoeError())
            elif roll >= 2 and "bad_frame" in enabled:
                self.play(BadFrame(role, kind))
            elif roll == 1 and "bad_frame" in enabled:
                self.play(BadFrame(role, ANSWERED_FRAME_KINDS[FRAME_KINDS.index(kind) % len(ANSWERED_FRAME_KINDS)]))

        @op_precondition(lambda self: "supply_on" in enabled)
        @op_rule(roll=st.integers(0, 7))
        def supply_on(self, roll: int) -> None:
            """One draw in two, the bench supply's OUTP ON with its output on, in whatever phase the round is
            (docs/protocol.md section 9): nothing may change, an open round and its wagers included.  Cheap (0.3 s
            of events read), and one rule of many, so drawn often: at one in eight it was never drawn in 60 s."""
            if roll >= 4:
                self.play(SupplyOn())

        @op_precondition(lambda self: "lost_request" in enabled and "bad_frame" in enabled)
        @op_rule(roll=st.integers(0, 7), count=st.sampled_from((1, 2, 3)), role=st.sampled_from(ROLES),
              kind=st.sampled_from(("bad-crc", "garbage")))
        def lost_request(self, roll: int, count: int, role: str, kind: str) -> None:
            """One draw in four between rounds, the controller's ``no-answer`` line fault for ``count`` requests
            and a round.open: lost, "not executed, not answered" (docs/protocol.md section 7), so no round opens;
            with a count over one the pings after it lost too, and the next answered; it costs the host's request
            deadline.  One more in eight, a device's ``bad-crc`` or ``garbage`` line fault for ``count`` answers
            (pings): none readable, the next answered (section 7)."""
            if roll >= 6:
                self.play(LostRequest(count))
            elif roll == 5:
                if role == "sensors" and "foreign" not in enabled:
                    role = "controller"  # the sensors speak the reference protocol only where all three do
                self.play(CorruptAnswers(role, kind, count))

        @op_precondition(lambda self: "shoe_refusal" in enabled)
        @op_rule(roll=st.integers(0, 3), kind=st.sampled_from(ShoeRefusal.choices["kind"]))
        def shoe_refusal(self, roll: int, kind: str) -> None:
            """One draw in two, a shoe command refused or of nothing to do (a load past the decks, a deal of no
            card), in whatever phase the round is: nothing changes (docs/protocol.md sections 3, 7)."""
            if roll >= 2 and model.legal(self.state, ShoeRefusal(kind)):
                self.play(ShoeRefusal(kind))

        @op_precondition(lambda self: "line_drop" in enabled and len(session.reconnect_roles) == len(ROLES))
        @op_rule(roll=st.integers(0, 3), role=st.sampled_from(ROLES))
        def line_drop(self, roll: int, role: str) -> None:
            """One draw in four between rounds or with wagering open, a device's line fault ``disconnect``: its
            line drops, the others answer on, and the device on its line opened again is as it was
            (docs/protocol.md sections 4, 7)."""
            if roll == 3 and model.legal(self.state, LineDrop(role)):
                self.play(LineDrop(role))

        @op_precondition(lambda self: "bad_frame" in enabled)
        @op_rule(roll=st.integers(0, 3), role=st.sampled_from(ROLES), count=st.integers(2, 4),
              seq=st.one_of(st.sampled_from(EDGE_SEQS), st.integers(1, 0xFFFF)))
        def request_numbers(self, roll: int, role: str, count: int, seq: int) -> None:
            """One draw in four, pings pipelined in one write to a device; one in four, the host's requests to it
            numbered on from another SEQ (the 15-bit and 16-bit edges and their wrap among them), every later
            request of the sequence numbered on from there: each answered with its own SEQ (docs/protocol.md
            sections 3, 4)."""
            if role == "sensors" and "foreign" not in enabled:
                role = "controller"
            if roll == 2:
                self.play(Pipelined(role, count))
            elif roll == 3:
                self.play(SeqFrom(role, seq))

        @op_precondition(lambda self: "comm" in enabled)
        @op_rule(roll=st.integers(0, 3))
        def comm(self, roll: int) -> None:
            """The sensors link cut one draw in four; a cut link is restored at the next draw."""
            if not self.state.link_up and roll == 2 and "reboot" in enabled:
                # the controller rebooted while the link is down: round.open stays REFUSED (section 8)
                self.play(Reboot())
                self.play(OpenRound())
                return
            if not self.state.link_up or roll == 3:
                self.play(Comm(not self.state.link_up))

        @rule(data=st.data())
        def step(self, data: st.DataObject) -> None:
            """One of the rules whose preconditions hold, drawn evenly, with its arguments: every rule is open
            to every sequence.  (Hypothesis's own choice among rules turns a random share of them off for each
            sequence, "swarm testing"; with a handful of long sequences a minute a rule was off in all of them
            about one run in six, and what only it reaches went unexplored.)"""
            ready = [name for name, (_args, pres) in rules.items() if all(pre(self) for pre in pres)]
            name = data.draw(st.sampled_from(ready), label="rule")
            getattr(self, name)(**data.draw(st.fixed_dictionaries(rules[name][0]), label=name))

    for name, function in vars(Explore).items():
        args = getattr(function, OP_RULE, None)
        if args is not None:
            rules[name] = (args, list(getattr(function, OP_PRECONDITIONS, [])))
    Explore.__name__ = Explore.__qualname__ = f"Explore_{session.profile.name.replace('-', '_')}"
    return Explore


#: the marks :func:`op_rule` and :func:`op_precondition` leave on a rule of :func:`machine_for`
OP_RULE = "__explore_rule__"
OP_PRECONDITIONS = "__explore_preconditions__"

_F = TypeVar("_F", bound=Callable[..., Any])


def op_rule(**args: st.SearchStrategy[Any]) -> Callable[[_F], _F]:
    """Register a method of the explorer's machine as a rule drawn by its ``step``, with the strategies of
    its arguments (as Hypothesis's ``rule``)."""
    def mark(function: _F) -> _F:
        setattr(function, OP_RULE, args)
        return function
    return mark


def op_precondition(holds: Callable[[Any], bool]) -> Callable[[_F], _F]:
    """A rule of the explorer is drawn only where ``holds(machine)`` (as Hypothesis's ``precondition``)."""
    def mark(function: _F) -> _F:
        setattr(function, OP_PRECONDITIONS, [*getattr(function, OP_PRECONDITIONS, []), holds])
        return function
    return mark


@dataclass
class Result:
    finding: FindingError | None
    error: str | None
    elapsed_s: float
    to_find_s: float | None
    stats: Stats
    batches: int


def explore(session: Session, *, seed: int, budget_s: float, examples_per_batch: int = 4,
            progress: Callable[[Stats, float], None] | None = None) -> Result:
    """Sequences until the budget is spent or the device differs from the model (then shrunk)."""
    machine = machine_for(session)
    conf = settings(deadline=None, database=None, derandomize=False, max_examples=examples_per_batch,
                    stateful_step_count=session.steps, suppress_health_check=list(HealthCheck),
                    phases=(Phase.generate, Phase.shrink), print_blob=False, report_multiple_bugs=False)
    t0 = session.t0 = time.perf_counter()
    session.budget_s = budget_s
    batch = 0
    found_at: float | None = None
    try:
        while time.perf_counter() - t0 < budget_s:
            test = get_state_machine_test(machine, settings=conf)
            test = hypothesis_seed(seed * 1_000_003 + batch)(test)
            batch += 1
            try:
                test()
            except (FindingError, RigError, Flaky):
                if session.rig_error is not None and session.failure is None:
                    raise DeviceError(session.rig_error) from None
                if session.failure is None:
                    raise
                # a finding is kept, shrunk as far as the rig let it be: a device that cannot be brought back
                # after what it did (a line it no longer greets by the contract, say) ends the shrink, not the
                # finding
                found_at = time.perf_counter() - t0
                break
            if progress is not None:
                progress(session.stats, time.perf_counter() - t0)
    except DeviceError as exc:
        return Result(None, f"{type(exc).__name__}: {exc}", time.perf_counter() - t0, None, session.stats, batch)
    elapsed = time.perf_counter() - t0
    finding = session.failure if found_at is not None else None
    return Result(finding, None, elapsed, session.first_failure_s if finding is not None else None,
                  session.stats, batch)


