"""Statistical steps: the shuffler and shoe batteries, and the mystery trigger distribution.

Each step plans first (:mod:`harness.randomness.battery`: the confidence level from the profile or
the jurisdiction, the declared defects from the profile's ``randomness:`` section), collects its
observations, plans again for what was actually observed (the pack size, the shoe's length), runs
the battery and records every test as measurements (statistic, p-value, level, sample size, power,
histogram: :mod:`harness.randomness.evidence`).  A sample smaller than planned with nothing rejected
ends the case INCONCLUSIVE with the number still needed, never PASS.

Where the observations come from:

* the emulator's test channel (the shuffler built into the emulated shoe reports each order);
* a bench in observe mode: the shoe battery has the operator load a freshly shuffled shoe and deal
  it out, and reads every card the shoe reports; the mystery step plays rounds through the bench's
  performers and reads every award the controller reports;
* a file of plain data written by whoever watched the device (``from: FILE``, JSON or YAML: a list
  of ``{pre: [...], post: [...]}`` shuffles, of ``{cards: [...]}`` shoes, or of ``{amount, reseed,
  must_hit_by}`` mystery awards; :mod:`harness.randomness.observations`), e.g. the awards of a soak
  (``tablecert soak --awards FILE``) or a controller's award log.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.bench.acts import Deal, LoadShoe, ReadShuffler
from harness.errors import DeviceError, InputError
from harness.games.baccarat import deal_round
from harness.randomness.observations import (
    MysteryAward,
    ShoeObservation,
    ShuffleObservation,
    id_card,
    shuffle_positions,
)
from harness.suites.model import Step
from harness.suites.registry import Action, Arg, step
from harness.suites.runner import Inconclusive
from harness.suites.steps import hits_to_pay, measure_payments, open_round

if TYPE_CHECKING:
    from harness.randomness.battery import Verdict
    from harness.suites.runner import CaseRunner

# the battery (numpy and scipy.stats) is imported by the steps that run it, not by every suite run


def _load(runner: CaseRunner, path: str) -> list[Any]:
    """Observations from ``path``: absolute, or relative to the suite file (else to the working directory)."""
    import yaml

    target = Path(path)
    if not target.is_absolute():
        beside = Path(runner.case.path).parent / target
        target = beside if beside.exists() else target
    try:
        text = target.read_text()
    except OSError as exc:
        raise InputError(f"{path}: cannot read observations ({exc.strerror})") from None
    try:
        data = json.loads(text) if path.endswith(".json") else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise InputError(f"{path}: not JSON or YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
        raise InputError(f"{path}: observations are a list of mappings")
    return data


def _record(runner: CaseRunner, step: Step, verdict: Verdict) -> None:
    from harness.randomness.evidence import measurements

    clause = step.clause or ",".join(runner.case.clauses)
    for m in measurements(verdict, clause):
        runner.measure(step, m.name, m.value, m.limit, m.outcome != "FAIL", m.unit, m.detail)
    if verdict.outcome == "INCONCLUSIVE":
        raise Inconclusive(verdict.message)


def _test_channel_loads(runner: CaseRunner) -> bool:
    return runner.profile.bench.performer("load").kind == "test-channel"


def _emulator_orders(runner: CaseRunner, count: int) -> list[list[int]]:
    """``count + 1`` orders of the pack from the shoe's shuffler (the order it holds, then one per
    shuffle), read out by the bench's performer for ``shuffler-readout``: the test channel; a bench
    has no one who can, and observes a marked pack instead (``from:``)."""
    if runner.rig.shoe is None:
        raise DeviceError("no shoe in the rig")
    orders: list[list[int]] = runner.perform(ReadShuffler(1))  # the pack before the first observed shuffle
    while len(orders) < count + 1:
        orders += runner.perform(ReadShuffler(min(3, count + 1 - len(orders))))
    return orders


@step("expect_shuffle_random", Action(
    {"shuffles": Arg("int", lo=1), "from": Arg("str")}, acts=("shuffler-readout",), acts_unless=("from",),
    doc="the shuffler battery (card positions, position correlation, adjacent pairs, rising sequences, repeated "
    "shuffles) on `shuffles` shuffles (default: the plan's number) read from the emulated shuffler, or on the "
    "observed pre/post orders in file `from`; INCONCLUSIVE below the planned number",
))
def shuffler_battery(runner: CaseRunner, step: Step, shuffles: int | None = None, **args: Any) -> None:
    from harness.randomness import battery

    profile = runner.profile
    settings = profile.randomness
    plan = battery.plan_shuffler(settings, profile.rules.decks, profile.jurisdiction)
    source = args.get("from")
    if source is not None:
        observed = [ShuffleObservation.from_dict(d) for d in _load(runner, str(source))]
    else:
        orders = _emulator_orders(runner, shuffles or plan.required)
        observed = [ShuffleObservation(tuple(map(str, a)), tuple(map(str, b)))
                    for a, b in itertools.pairwise(orders)]
    pos = shuffle_positions(observed)
    if pos.size and pos.shape[1] != plan.size:  # the plan is for the pack observed
        plan = battery.plan_shuffler(settings, profile.rules.decks, profile.jurisdiction, cards=pos.shape[1])
    _record(runner, step, battery.run_shuffler(plan, pos, settings.shuffler.bins))


def _live_shoes(runner: CaseRunner, count: int, cards: int, seed: int) -> list[ShoeObservation]:
    """Observe mode: the bench loads a freshly shuffled shoe and deals it out; the cards the shoe
    reports, in order, are one observation."""
    out = []
    decks = runner.shoe_decks
    for k in range(count):
        runner.perform(LoadShoe(shuffled=True, decks=decks, seed=seed + k))
        before = len(runner.cards_read())
        runner.perform(Deal(count=cards))

        def dealt(start: int = before) -> bool:
            return len(runner.cards_read()) - start >= cards

        runner._wait_for(f"{cards} card events from the shoe", dealt, timeout_s=10.0)
        out.append(ShoeObservation(tuple(c.code for c in runner.cards_read()[before: before + cards])))
    return out


@step("expect_shoe_random", Action(
    {"shoes": Arg("int", lo=1), "cards": Arg("int", lo=1), "seed": Arg("int", default=1), "from": Arg("str")},
    doc="the shoe battery (runs of colours, serial correlation of values, ranks by shoe position) on `shoes` "
    "shoes (default: the plan's number): packs of the emulated shoe's shuffler; on a bench, shoes the operator "
    "shuffles, loads and deals out (the first `cards` cards of each, default all), read as the shoe reports "
    "them; or the card sequences in file `from`",
    acts=("load", "deal"), acts_unless=("from",),
))
def shoe_battery(runner: CaseRunner, step: Step, seed: int, shoes: int | None = None, cards: int | None = None,
                 **args: Any) -> None:
    from harness.randomness import battery

    profile = runner.profile
    settings = profile.randomness
    length = cards or 52 * runner.shoe_decks
    plan = battery.plan_shoe(settings, length, profile.jurisdiction)
    source = args.get("from")
    if source is not None:
        observed = [ShoeObservation.from_dict(d) for d in _load(runner, str(source))]
    elif _test_channel_loads(runner):
        orders = _emulator_orders(runner, shoes or plan.required)[1:]
        observed = [ShoeObservation(tuple(id_card(i) for i in order[:length])) for order in orders]
    else:
        observed = _live_shoes(runner, shoes or plan.required, length, seed)
    shortest = min((len(s.cards) for s in observed), default=length)
    if shortest != length:  # the plan is for the shoe's length observed
        plan = battery.plan_shoe(settings, shortest, profile.jurisdiction)
    _record(runner, step, battery.run_shoe(plan, observed, settings.shoe.bins))


@step("expect_mystery_distribution", Action(
    {"awards": Arg("int", lo=1), "max_rounds": Arg("int", default=200_000, lo=1), "seed": Arg("int", default=1),
     "from": Arg("str")},
    doc="the mystery trigger distribution: play rounds (every seat wagering Royal 9, with a Player base wager "
    "where required) until `awards` mystery awards (default: the plan's number), reading each award the "
    "controller reports, or read the awards in file `from`; the awards against the Rules Submission's trigger "
    "law between reseed and must-hit-by (Kolmogorov-Smirnov), none above must-hit-by",
    acts=("open-round", "wager", "load", "deal", "reset-key"), acts_unless=("from",),
))
def mystery_distribution(runner: CaseRunner, step: Step, max_rounds: int, seed: int, awards: int | None = None,
                         **args: Any) -> None:
    from harness.randomness import battery
    from harness.randomness.plan import rounds_per_award

    profile = runner.profile
    mystery = profile.rules.mystery
    if mystery is None:
        raise AssertionError("expect_mystery_distribution: the profile declares no mystery progressive")
    plan = battery.plan_mystery(profile.randomness, profile.jurisdiction, rounds_per_award(profile),
                                mystery.distribution, mystery.reseed, mystery.must_hit_by)
    wanted = awards or plan.required
    source = args.get("from")
    certain: str | None = None
    if source is not None:
        observed = [MysteryAward.from_dict(d) for d in _load(runner, str(source))]
        rounds = None
    else:
        def stop(got: list[MysteryAward]) -> bool:
            nonlocal certain
            certain = battery.mystery_rejection_certain(plan, got, mystery.distribution, wanted)
            return certain is not None

        observed, rounds = _play_for_awards(runner, step, wanted, max_rounds, seed, mystery.reseed,
                                            mystery.must_hit_by, stop)
    played = f" in {rounds} rounds" if rounds is not None else f" read from {source}"
    runner.measure(step, "mystery awards observed", len(observed), wanted, True, "awards",
                   f"{len(observed)} awards{played}; {plan.required} planned"
                   + (f"; stopped early: {certain}" if certain else ""))
    _record(runner, step, battery.run_mystery(plan, observed, mystery.distribution, certain))


def _play_for_awards(runner: CaseRunner, step: Step, wanted: int, max_rounds: int, seed: int, reseed: int,
                     must_hit_by: int, stop: Callable[[list[MysteryAward]], bool]) -> tuple[list[MysteryAward], int]:
    """Random rounds through the bench's performers, every seat wagering Royal 9 (with a Player base
    wager where required), until ``wanted`` mystery awards, or until ``stop`` says the verdict over
    ``wanted`` is already certain; the attendant pays and resets the other meters' hits with the key.
    Returns the awards and the rounds played."""
    rng = random.Random(seed)
    stake = runner.stake_default
    kinds = ("player", "royal9") if runner.requires_base_wager else ("royal9",)
    wagers: list[tuple[int, str, int | None]] = [(s, k, stake) for s in runner._seats("all") for k in kinds]
    out: list[MysteryAward] = []
    problems: list[str] = []
    rounds = 0
    for n in range(1, max_rounds + 1):
        if len(out) >= wanted:
            break
        rounds = n
        open_round(runner, step)
        for (seat, kind, _a), res in zip(wagers, runner._place_many(wagers), strict=True):
            if not res.accepted:
                raise AssertionError(f"round {n}: seat {seat} {kind} wager refused while playing for mystery awards "
                                     f"({res.reason})")

        def draw() -> list[Any]:
            cards = runner.random_round_cards(rng)
            return list(cards[: deal_round(cards).cards_used])

        runner.deal_random_round(draw, 0, seed + n)
        new = [MysteryAward(int(e.payload["amount"]), reseed, must_hit_by) for e in runner.round.ctrl_events
               if e.name == "hit" and e.payload.get("meter") == "mystery"]
        out += new
        if any(e.name == "hit" for e in runner.round.ctrl_events):  # paid, and keys turned, where an attendant pays
            round_problems, _turned = hits_to_pay(runner)
            problems += [f"round {n}: {p}" for p in round_problems]
        if new and len(out) < wanted and stop(out):
            break
    measure_payments(runner, step, problems, rounds)
    return out, rounds
