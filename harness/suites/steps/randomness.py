"""Statistical steps: the shuffler and shoe batteries, and the mystery trigger distribution.

Each step plans first (:mod:`harness.randomness.battery`: the confidence level from the profile or
the jurisdiction, the declared defects from the profile's ``randomness:`` section), collects its
observations, plans again for what was actually observed (the pack size, the shoe's length), runs
the battery and records every test as measurements (statistic, p-value, level, sample size, power,
histogram: :mod:`harness.randomness.evidence`).  The verdict is the two-stage procedure's
(:mod:`harness.randomness.confirm`, profile ``randomness.confirm``, default true): a statistical
rejection is a FAIL only when a second, independent sample of the planned size (collected the same
way, only then) rejects too; a hard violation (an award above must-hit-by) fails at once.  A sample
smaller than planned with nothing rejected ends the case INCONCLUSIVE with the number still
needed, never PASS.

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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.bench.acts import Deal, LoadShoe, ReadShuffler
from harness.errors import DeviceError, InputError
from harness.randomness.observations import (
    MysteryAward,
    ShoeObservation,
    ShuffleObservation,
    id_card,
    shuffle_positions,
)
from harness.suites.load.model import Step
from harness.suites.run.context import Inconclusive
from harness.suites.steps.registry import Action, Arg, step
from harness.verdict import Verdict

if TYPE_CHECKING:
    from harness.randomness.confirm import Procedure
    from harness.suites.run.context import CaseContext

# the battery (numpy and scipy.stats) is imported by the steps that run it, not by every suite run


def _load(runner: CaseContext, path: str) -> list[Any]:
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


def _record(runner: CaseContext, step: Step, proc: Procedure) -> None:
    from harness.randomness.evidence import measurements

    clause = step.clause or ",".join(runner.case.clauses)
    for m in measurements(proc, clause):
        runner.measure(step, m.name, m.value, m.limit, m.outcome != Verdict.FAIL, m.unit, m.detail)
    # a finding of the same case (a payout, a meter) is a FAIL whatever the statistics still need
    if proc.outcome == Verdict.INCONCLUSIVE and not any(not m.passed and not m.advisory for m in runner.measured):
        raise Inconclusive(proc.message)


def _test_channel_loads(runner: CaseContext) -> bool:
    return runner.profile.bench.performer("load").kind == "test-channel"


def _emulator_orders(runner: CaseContext, count: int) -> list[list[int]]:
    """``count + 1`` orders of the pack from the shoe's shuffler (the order it holds, then one per
    shuffle), read out by the bench's performer for ``shuffler-readout``: the test channel; a bench
    has no one who can, and observes a marked pack instead (``from:``)."""
    if runner.rig.shoe is None:
        raise DeviceError("no shoe in the rig")
    orders: list[list[int]] = runner.perform(ReadShuffler(1))  # the pack before the first observed shuffle
    while len(orders) < count + 1:
        orders += runner.perform(ReadShuffler(min(3, count + 1 - len(orders))))
    # every order is one of the shoe's pack: each of its decks x 52 cards exactly once
    size = 52 * runner.shoe_decks
    for k, order in enumerate(orders):
        if sorted(order) != list(range(size)):
            raise DeviceError(f"the shuffler's order {k} holds {len(order)} card ids ({len(set(order))} distinct, "
                              f"largest {max(order, default=-1)}); the shoe's pack is {runner.shoe_decks} decks, "
                              f"card ids 0..{size - 1} each once")
    return orders


@step("expect_shuffle_random", Action(
    {"shuffles": Arg("int", lo=1), "from": Arg("str")}, acts=("shuffler-readout",), acts_unless=("from",),
    doc="the shuffler battery (card positions, position correlation, adjacent pairs, rising sequences, repeated "
    "shuffles) on `shuffles` shuffles (default: the plan's number) read from the emulated shuffler, or on the "
    "observed pre/post orders in file `from`; INCONCLUSIVE below the planned number; a rejection is confirmed on "
    "a second sample of as many (randomness.confirm, default true; from a file: its second half)",
))
def shuffler_battery(runner: CaseContext, step: Step, shuffles: int | None = None, **args: Any) -> None:
    from harness.randomness import battery, confirm

    profile = runner.profile
    settings = profile.randomness
    plan = battery.plan_shuffler(settings, profile.rules.decks, profile.jurisdiction)
    source = args.get("from")
    filed: tuple[list[ShuffleObservation], list[ShuffleObservation]] | None = None
    if source is not None:
        read = [ShuffleObservation.from_dict(d) for d in _load(runner, str(source))]
        if read and len(read[0].pre) != plan.size:  # the plan is for the pack observed
            plan = battery.plan_shuffler(settings, profile.rules.decks, profile.jurisdiction, cards=len(read[0].pre))
        filed = confirm.split(read, plan.required, plan.stages)
    plans = {0: plan}

    def stage(k: int) -> battery.BatteryVerdict:
        if filed is not None:
            observed = filed[k - 1]
        else:  # a fresh run of shuffles for each stage: independent of the one before
            orders = _emulator_orders(runner, shuffles or plan.required)
            observed = [ShuffleObservation(tuple(map(str, a)), tuple(map(str, b)))
                        for a, b in itertools.pairwise(orders)]
        pos = shuffle_positions(observed)
        if pos.size and pos.shape[1] != plans[0].size:  # the plan is for the pack observed
            plans[0] = battery.plan_shuffler(settings, profile.rules.decks, profile.jurisdiction, cards=pos.shape[1])
        return battery.run_shuffler(plans[0], pos, settings.shuffler.bins)

    first = stage(1)
    _record(runner, step, confirm.run(first.plan, lambda k: first if k == 1 else stage(k)))


def _live_shoes(runner: CaseContext, count: int, cards: int, seed: int) -> list[ShoeObservation]:
    """Observe mode: the bench loads the shoe and deals it out; the cards the shoe reports, in order,
    are one observation.  A shoe with a built-in shuffler (capability ``shuffler``) is loaded in
    new-deck order and shuffled by its shuffler, so the battery judges the device's shuffle (a
    person's shuffle first would hide it); any other shoe is loaded freshly shuffled by hand."""
    out = []
    decks = runner.shoe_decks
    builtin = "shuffler" in runner.profile.capabilities
    # the shoes of a statistic: thousands of cards where no act's timing is judged, so the prompts are a
    # step's bulk rounds (a person is told so; a scripted operator may hurry them, as the award rounds')
    with runner.performers.bulk_rounds():
        for k in range(count):
            runner.perform(LoadShoe(shuffled=True, decks=decks, seed=seed + k, by_shuffler=builtin))
            before = len(runner.cards_read())
            runner.perform(Deal(count=cards))

            def dealt(start: int = before) -> bool:
                return len(runner.cards_read()) - start >= cards

            runner.wait_for(f"{cards} card events from the shoe", dealt, timeout_s=10.0)
            out.append(ShoeObservation(tuple(c.code for c in runner.cards_read()[before: before + cards])))
    return out


@step("expect_shoe_random", Action(
    {"shoes": Arg("int", lo=1), "cards": Arg("int", lo=1), "seed": Arg("int", default=1), "from": Arg("str")},
    doc="the shoe battery (runs of colours, serial correlation of values, ranks by shoe position) on `shoes` "
    "shoes (default: the plan's number): packs of the emulated shoe's shuffler; on a bench, shoes the operator "
    "loads (new-deck order, shuffled by the shoe's own shuffler where it has one; else shuffled by hand) and "
    "deals out (the first `cards` cards of each, default all), read as the shoe reports "
    "them; or the card sequences in file `from`; a rejection is confirmed on a second sample of as many "
    "(randomness.confirm, default true)",
    acts=("load", "deal"), acts_unless=("from",),
))
def shoe_battery(runner: CaseContext, step: Step, seed: int, shoes: int | None = None, cards: int | None = None,
                 **args: Any) -> None:
    from harness.randomness import battery, confirm

    profile = runner.profile
    settings = profile.randomness
    length = cards or 52 * runner.shoe_decks
    plan = battery.plan_shoe(settings, length, profile.jurisdiction)
    count = shoes or plan.required
    source = args.get("from")
    filed: tuple[list[ShoeObservation], list[ShoeObservation]] | None = None
    if source is not None:
        read = [ShoeObservation.from_dict(d) for d in _load(runner, str(source))]
        shortest = min((len(s.cards) for s in read), default=length)
        if shortest != length:  # the plan is for the shoe's length observed
            plan = battery.plan_shoe(settings, shortest, profile.jurisdiction)
        filed = confirm.split(read, plan.required, plan.stages)

    def stage(k: int) -> battery.BatteryVerdict:
        if filed is not None:
            observed = filed[k - 1]
        elif _test_channel_loads(runner):
            orders = _emulator_orders(runner, count)[1:]
            observed = [ShoeObservation(tuple(id_card(i) for i in order[:length])) for order in orders]
        else:  # the confirming shoes are shuffled afresh (seeds after the first stage's)
            observed = _live_shoes(runner, count, length, seed + (k - 1) * count)
        shortest = min((len(s.cards) for s in observed), default=length)
        judged = plan if shortest == plan.size else battery.plan_shoe(settings, shortest, profile.jurisdiction)
        return battery.run_shoe(judged, observed, settings.shoe.bins)

    first = stage(1)
    _record(runner, step, confirm.run(first.plan, lambda k: first if k == 1 else stage(k)))


@step("expect_mystery_distribution", Action(
    {"awards": Arg("int", lo=1), "max_rounds": Arg("int", default=200_000, lo=1), "seed": Arg("int", default=1),
     "from": Arg("str")},
    doc="the mystery trigger distribution: play rounds (every seat wagering Royal 9, with a Player base wager "
    "where required) until `awards` mystery awards (default: the plan's number), reading each award the "
    "controller reports, or read the awards in file `from`; the awards against the Rules Submission's trigger "
    "law between reseed and must-hit-by (Kolmogorov-Smirnov), none above must-hit-by; a rejection is confirmed "
    "on as many further awards (randomness.confirm, default true); every round's payouts against the oracle and "
    "the meters conserved between readings (at the start, after every round with a hit, at the end)",
    acts=("open-round", "wager", "load", "deal", "reset-key"), acts_unless=("from",),
))
def mystery_distribution(runner: CaseContext, step: Step, max_rounds: int, seed: int, awards: int | None = None,
                         **args: Any) -> None:
    from harness.randomness import battery, confirm
    from harness.randomness.plan import rounds_per_award
    from harness.suites.steps.award_rounds import AwardRounds

    profile = runner.profile
    mystery = profile.rules.mystery
    if mystery is None:
        raise AssertionError("expect_mystery_distribution: the profile declares no mystery progressive")
    plan = battery.plan_mystery(profile.randomness, profile.jurisdiction, rounds_per_award(profile),
                                mystery.distribution, mystery.reseed, mystery.must_hit_by)
    wanted = awards or plan.required
    source = args.get("from")
    filed: tuple[list[MysteryAward], list[MysteryAward]] | None = None
    if source is not None:
        filed = confirm.split([MysteryAward.from_dict(d) for d in _load(runner, str(source))], plan.required,
                              plan.stages)
    play = AwardRounds(runner, step, seed, mystery.reseed, mystery.must_hit_by) if filed is None else None

    def stage(k: int) -> battery.BatteryVerdict:
        certain: str | None = None
        label = "" if k == 1 else f" (stage {k})"
        if filed is not None:
            observed, where = filed[k - 1], f" read from {source}"
        else:
            assert play is not None

            def stop(got: list[MysteryAward]) -> bool:
                nonlocal certain
                certain = battery.mystery_rejection_certain(plan, got, mystery.distribution, wanted)
                return certain is not None

            before = play.rounds
            observed = play.play(wanted, max_rounds, stop)
            where = f" in {play.rounds - before} rounds"
        runner.measure(step, f"mystery awards observed{label}", len(observed), wanted, True, "awards",
                       f"{len(observed)} awards{where}; {plan.required} planned"
                       + (f"; stopped early: {certain}" if certain else ""))
        return battery.run_mystery(plan, observed, mystery.distribution, certain)

    proc = confirm.run(plan, stage)
    if play is not None:
        play.measure()
    _record(runner, step, proc)
