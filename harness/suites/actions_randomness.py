"""Statistical steps: the shuffler and shoe batteries, and the mystery trigger distribution.

Each step plans first (:mod:`harness.randomness.battery`: the confidence level from the profile or
the jurisdiction, the declared defects from the profile's ``randomness:`` section), collects its
observations, runs the battery and records every test as measurements (statistic, p-value, level,
sample size, power, histogram: :mod:`harness.randomness.evidence`).  A sample smaller than planned
with nothing rejected ends the case INCONCLUSIVE with the number still needed, never PASS.

Observations come from the emulator's test channel, or, in observe mode on a bench, from a file
of plain data written by whoever watched the device (``from: FILE``, JSON or YAML: a list of
``{pre: [...], post: [...]}`` shuffles, of ``{cards: [...]}`` shoes, or of ``{amount, reseed,
must_hit_by}`` mystery awards; :mod:`harness.randomness.observations`).
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.errors import InputError
from harness.randomness import battery
from harness.randomness.evidence import measurements
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
from harness.suites.steps import open_round, settle_round

if TYPE_CHECKING:
    from harness.suites.runner import CaseRunner


def _load(path: str) -> list[Any]:
    import yaml

    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise InputError(f"{path}: cannot read observations ({exc.strerror})") from None
    data = json.loads(text) if path.endswith(".json") else yaml.safe_load(text)
    if not isinstance(data, list):
        raise InputError(f"{path}: observations are a list")
    return data


def _record(runner: CaseRunner, step: Step, verdict: battery.Verdict) -> None:
    clause = step.clause or ",".join(runner.case.clauses)
    for m in measurements(verdict, clause):
        runner.measure(step, m.name, m.value, m.limit, m.outcome != "FAIL", m.unit, m.detail)
    if verdict.outcome == "INCONCLUSIVE":
        raise Inconclusive(verdict.message)


def _emulator_orders(runner: CaseRunner, count: int) -> list[list[int]]:
    shoe = runner.rig.shoe
    if shoe is None:
        raise AssertionError("no shoe in the rig")
    orders = shoe.shuffle(1)  # the pack as the shuffler holds it before the first observed shuffle
    while len(orders) < count + 1:
        orders += shoe.shuffle(min(3, count + 1 - len(orders)))
    return orders


@step("expect_shuffle_random", Action(
    {"shuffles": Arg("int", lo=1), "from": Arg("str")},
    doc="the shuffler battery (card positions, adjacent pairs, rising sequences, repeated shuffles) on "
    "`shuffles` shuffles (default: the plan's number) read from the emulated shuffler, or on the observed "
    "pre/post orders in file `from`; INCONCLUSIVE below the planned number",
))
def shuffler_battery(runner: CaseRunner, step: Step, shuffles: int | None = None, **args: Any) -> None:
    profile = runner.profile
    plan = battery.plan_shuffler(profile.randomness, profile.rules.decks, profile.jurisdiction)
    source = args.get("from")
    if source is not None:
        observed = [ShuffleObservation.from_dict(d) for d in _load(str(source))]
    else:
        orders = _emulator_orders(runner, shuffles or plan.required)
        observed = [ShuffleObservation(tuple(map(str, a)), tuple(map(str, b)))
                    for a, b in itertools.pairwise(orders)]
    pos = shuffle_positions(observed)
    _record(runner, step, battery.run_shuffler(plan, pos, profile.randomness.shuffler.bins))


@step("expect_shoe_random", Action(
    {"shoes": Arg("int", lo=1), "from": Arg("str")},
    doc="the shoe battery (runs of colours, serial correlation of values, ranks by shoe position) on `shoes` "
    "full shoes dealt from the emulated shuffler's packs, or on the card sequences in file `from`",
))
def shoe_battery(runner: CaseRunner, step: Step, shoes: int | None = None, **args: Any) -> None:
    profile = runner.profile
    cards = 52 * profile.rules.decks
    plan = battery.plan_shoe(profile.randomness, cards, profile.jurisdiction)
    source = args.get("from")
    if source is not None:
        observed = [ShoeObservation.from_dict(d) for d in _load(str(source))]
    else:
        orders = _emulator_orders(runner, shoes or plan.required)[1:]
        observed = [ShoeObservation(tuple(id_card(i) for i in order)) for order in orders]
    _record(runner, step, battery.run_shoe(plan, observed, profile.randomness.shoe.bins))


@step("expect_mystery_distribution", Action(
    {"awards": Arg("int", lo=1), "max_rounds": Arg("int", default=200_000, lo=1), "seed": Arg("int", default=1),
     "from": Arg("str")},
    doc="the mystery trigger distribution: play rounds (every seat wagering Royal 9) until `awards` mystery "
    "awards (default: the plan's number), or read the awards in file `from`; each award against the "
    "declared law between reseed and must-hit-by (Kolmogorov-Smirnov), none above must-hit-by",
))
def mystery_distribution(runner: CaseRunner, step: Step, max_rounds: int, seed: int, awards: int | None = None,
                         **args: Any) -> None:
    from harness.randomness.plan import rounds_per_award

    profile = runner.profile
    mystery = profile.rules.mystery
    if mystery is None:
        raise AssertionError("expect_mystery_distribution: the profile declares no mystery progressive")
    plan = battery.plan_mystery(profile.randomness, profile.jurisdiction, rounds_per_award(profile),
                                mystery.distribution)
    source = args.get("from")
    if source is not None:
        observed = [MysteryAward.from_dict(d) for d in _load(str(source))]
    else:
        observed = _play_for_awards(runner, step, awards or plan.required, max_rounds, seed,
                                    mystery.reseed, mystery.must_hit_by)
    runner.measure(step, "mystery awards observed", len(observed), awards or plan.required, True, "awards")
    _record(runner, step, battery.run_mystery(plan, observed))


def _play_for_awards(runner: CaseRunner, step: Step, wanted: int, max_rounds: int, seed: int, reseed: int,
                     must_hit_by: int) -> list[MysteryAward]:
    """Rounds at full speed, every seat wagering Royal 9 (with a Player base wager where required),
    until ``wanted`` mystery awards; other meters' hits are reset with the key."""
    rng = random.Random(seed)
    seats = runner._seats("all")
    stake = runner.stake_default
    shoe = runner.rig.shoe
    assert shoe is not None
    out: list[MysteryAward] = []
    meters = set(runner._read_meters().meters)
    for _ in range(max_rounds):
        if len(out) >= wanted:
            break
        open_round(runner, step)
        kinds = ("player", "royal9") if runner.requires_base_wager else ("royal9",)
        wagers: list[tuple[int, str, int | None]] = [(s, k, stake) for s in seats for k in kinds]
        for res in runner._place_many(wagers):
            if not res.accepted:
                raise AssertionError(f"wager refused while playing for mystery awards ({res.reason})")
        cards = runner.random_round_cards(rng)
        shoe.load(cards)
        runner.loaded = tuple(cards)
        shoe.deal(None, 0)
        settle_round(runner, step)
        hit = {str(e.payload.get("meter")) for e in runner.round.ctrl_events if e.name == "hit"}
        for e in runner.round.ctrl_events:
            if e.name == "hit" and e.payload.get("meter") == "mystery":
                out.append(MysteryAward(int(e.payload["amount"]), reseed, must_hit_by))
        for meter in sorted((hit & meters) - {"mystery"}):
            runner._ctrl().reset_key(meter)
    return out


