"""Suite actions for the base games and WAC 230-15-040: settlement timing, wagering areas, rounds.

These extend the step vocabulary (each registered with :func:`harness.suites.steps.registry.step`) with
checks the game suites need and the core vocabulary does not have:

* ``expect_settled`` -- the controller settled the round after exactly the cards out of the shoe.
  A natural stops the deal (627a.1/629a.1/631a.1 "Natural"): deal the two-card hands of a natural
  only, and a device that wants a third card never settles; that is a FAIL, not a rig TIMEOUT.
* ``expect_areas`` -- WAC 230-15-040(2): at most nine wagering areas.  The configuration read back
  from the controller lists at most nine seats, and a wager at any seat beyond the configured ones
  (up to the tenth) is refused.  A wagering area is a seat (interpretation ``wa-wagering-area-is-seat``).
* ``expect_identical_areas`` -- WAC 230-15-040(2)(b): seats that placed the same wager for the same
  amount in one round were paid alike (same category, same amount returned).
* ``expect_wager_type_refused`` -- WAC 230-15-040(5)(a)(ii): no wager can be placed on a bonus
  feature; the wagering device refuses a wager type it does not offer.
* ``expect_layout_clear`` -- WAC 230-15-040(8): after the deal no wager is left riding on the layout,
  but for the (8)(b) exception: a Mini-Baccarat three-consecutive-games wager within its three games.
* ``single_deal_rounds`` -- WAC 230-15-040(8) and (8)(a): several consecutive rounds dealt from one
  shuffled shoe, every listed wager type at every listed seat; each wager must be settled in the deal
  it was placed for (a payout event, the oracle's amount) and the layout must be clear after each
  deal, so nothing (a wager or a pot) carries into the next game.  Every card reported must be a
  standard card, no more copies than the declared decks hold (WAC 230-15-040(1)).  A
  three-consecutive-games wager among the types is the (8)(b) exception: it rides and is judged game
  by game against the oracle (:class:`~harness.suites.steps.streak.StreakBook`); after ``count``
  games up to two more are dealt, without new wagers, until the last of them is decided.
"""

from __future__ import annotations

import contextlib
import random
from collections import Counter
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from harness.bench.acts import PlaceWagers
from harness.cards import Card, Combo, format_cards, shoe_composition
from harness.devices.link import DeviceNak
from harness.devices.roles import Wager
from harness.errors import DeviceTimeout
from harness.games.royal9 import Royal9Table
from harness.games.streak import STREAK_LENGTH, STREAK_WAGERS
from harness.math.royal9_exact import royal9_math
from harness.money import Cents
from harness.suites.load.model import Step
from harness.suites.run.context import SETTLEMENT, citing_also
from harness.suites.steps.core import WAGER_TYPES, ensure_settled, hits_to_pay, measure_payments, open_round
from harness.suites.steps.expect import expected_round
from harness.suites.steps.payouts import Paid, paid_more_than_once, settlements
from harness.suites.steps.registry import Action, Arg, step
from harness.suites.steps.streak import StreakBook, riding_exception

if TYPE_CHECKING:
    from harness.suites.run.context import CaseContext

_METER_KINDS = ("royal9", "hit-and-run")



def _round_end_seen(runner: CaseContext) -> bool:
    return any(e.name == "round_end" for e in runner.round.ctrl_events)


@step("expect_settled", Action(
    {"within_ms": Arg("decimal", default=Decimal(1000), positive=True, why="nothing settles within 0 ms"),
     "cards": Arg("int", lo=1)},
    doc="the controller settled the round (a 'round_end' event) within `within_ms` of the call, after "
    "exactly `cards` cards out of the shoe (default: however many were dealt); use after "
    "`deal: {settle: false}` so a device that waits for another card is a FAIL, not a TIMEOUT",
))
def expect_settled(runner: CaseContext, step: Step, within_ms: Decimal, cards: int | None = None) -> None:
    try:
        runner.wait_for("'round_end' event", lambda: _round_end_seen(runner), timeout_s=float(within_ms) / 1000)
        settled = True
    except DeviceTimeout:
        settled = False
    if settled and cards is not None:
        # the shoe's card events travel on their own line and may trail the controller's round_end
        with contextlib.suppress(DeviceTimeout):
            runner.wait_for(f"{cards} card events", lambda: runner.cards_out() >= cards, timeout_s=0.5)
    runner.pump()
    n = runner.cards_out()  # read or misread: a misread card is out too (docs/protocol.md section 6.2)
    want = cards if cards is not None else n
    # Either way the round is done with: a round the device did not settle is this measurement's
    # FAIL, and the later expectations judge what was dealt instead of waiting for a round_end that
    # will not come (which would turn a compliance failure into a TIMEOUT).
    runner.round.settled = True
    got = f"settled after {n} cards" if settled else f"not settled after {n} cards"
    runner.measure(step, "round settled by the controller", got, f"settled after {want} cards",
                 settled and n == want, detail=f"waited up to {within_ms} ms for 'round_end'")


@step("expect_areas", Action(
    {"at_most": Arg("int", default=9, lo=1, hi=9, why="WAC 230-15-040(2) allows at most nine wagering areas")},
    doc="WAC 230-15-040(2): the controller's configuration lists at most `at_most` seats and a wager at "
    "every seat beyond the configured ones, up to `at_most` + 1, is refused (needs an open round)",
    acts=("wager",)
))
def expect_areas(runner: CaseContext, step: Step, at_most: int) -> None:
    cfg = runner.controller().config()
    seats = sorted(s.seat for s in cfg.seats)
    runner.measure(step, "wagering areas configured on the controller", len(seats), f"<= {at_most}",
                 len(seats) <= at_most, unit="seats", detail=f"seats {', '.join(map(str, seats))}")
    declared = len(runner.profile.rules.seats)
    if runner.interpretation("wa-wagering-area-is-seat") is False:
        # every wager spot of the layout is a wagering area: seats x the wager types each offers
        types = offered_types(runner.profile)
        spots = declared * len(types)
        runner.measure(step, "wagering areas (wager spots) declared by the profile", spots, f"<= {at_most}",
                       spots <= at_most, unit="spots",
                       detail=f"{declared} seat(s) x {len(types)} wager type(s) ({', '.join(types)}); "
                              "wa-wagering-area-is-seat false")
    else:
        runner.measure(step, "wagering areas declared by the profile", declared, f"<= {at_most}",
                       declared <= at_most, unit="seats")
    if runner.rig.sensors is None:
        return
    beyond = range(max(seats, default=0) + 1, at_most + 2)
    accepted = []
    reasons = []
    for seat in beyond:
        kind = "player" if not runner.oracle.is_hit_and_run else "hit-and-run"
        res = runner.place_wagers((Wager(seat, kind, runner.stake_default),), probe=True)[0]
        if res.accepted:
            accepted.append(seat)
            runner.round.wagers[(seat, res.type)] = res.amount
        reasons.append(f"seat {seat}: {res.reason}" + (f" ({res.nak})" if res.nak else ""))
    runner.measure(step, f"wagers at seats beyond the configured ones (up to seat {at_most + 1})",
                 f"accepted at {', '.join(map(str, accepted))}" if accepted else "all refused",
                 "all refused", not accepted, detail="; ".join(reasons))


def _payouts(runner: CaseContext) -> dict[tuple[int, str], Paid]:
    return settlements(runner.round.ctrl_events)


def offered_types(profile: Any) -> tuple[str, ...]:
    """The wager types the Rules Submission offers at each seat (its separate games, WAC
    230-15-040(3)): the game's base wagers and the optional wagers its capabilities declare."""
    if profile.game == "blackjack-hit-and-run":
        return ("blackjack", "hit-and-run")
    types = ["player", "banker", "tie"]
    if profile.game == "ez-baccarat":
        types += [t for t in ("dragon7", "panda8") if t in profile.capabilities]
    if "royal9" in profile.capabilities:
        types.append("royal9")
    if profile.game == "minibaccarat" and "streak3" in profile.capabilities:
        types += ["streak3-player", "streak3-banker"]
    return tuple(types)


@step("expect_identical_area_returns", Action(
    doc="WAC 230-15-040(2)(b): what each wagering area can win, exactly: every seat of the configuration "
    "read back from the controller offers the same wagers at the same paytable, and the exact return of "
    "its Royal 9 wager (`tablecert math`) is the same; seats that differ only by their personal "
    "combinations are shown with their figures and pass where wa-identical-areas-personal-combos holds",
))
def expect_identical_area_returns(runner: CaseContext, step: Step) -> None:

    cfg = runner.controller().config()
    seats = sorted(s.seat for s in cfg.seats)
    if "royal9" not in runner.profile.capabilities or not seats:
        runner.measure(step, "wagers offered at every seat", ", ".join(offered_types(runner.profile)),
                       "the same at every seat", True, detail=f"seats {', '.join(map(str, seats))}: one "
                       "paytable for the table")
        return

    combos = {s.seat: Combo.of_codes(s.combo) for s in cfg.seats if s.combo}
    table = Royal9Table(combos, int(cfg.denomination) // 100, interpretations=runner.oracle.interp)
    decks = cfg.raw.get("decks") or runner.profile.rules.decks
    math = royal9_math(table, decks=int(decks), wagers=[s.seat for s in cfg.seats])
    returns: dict[int, Fraction] = {sm.seat: sm.returned for sm in math.seats}
    figures = "; ".join(f"seat {s} {float(r) * 100:.4f}%" for s, r in sorted(returns.items()))
    distinct = set(returns.values())
    bare = [s.seat for s in cfg.seats if not s.combo]
    by_design = runner.interpretation("wa-identical-areas-personal-combos") is not False and not bare
    note = (f"seat(s) {', '.join(map(str, bare))} without a personal combination" if bare else
            "the seats differ only by their personal king-9 combinations, which "
            "wa-identical-areas-personal-combos (true) counts as identical" if by_design and len(distinct) > 1
            else "wa-identical-areas-personal-combos " + str(by_design).lower())
    runner.measure(step, "exact return of the Royal 9 wager at each seat (meters at their reset amounts)", figures,
                   "the same at every seat" + (", or differing only by personal combinations" if by_design else ""),
                   len(distinct) <= 1 or by_design, detail=note)


@step("expect_identical_areas", Action(
    doc="WAC 230-15-040(2)(b): in the round just settled, every seat that placed the same wager type for "
    "the same amount was paid the same (category and amount returned), and every wager was paid",
))
def expect_identical_areas(runner: CaseContext, step: Step) -> None:
    ensure_settled(runner, step)
    paid = _payouts(runner)
    groups: dict[tuple[str, Cents], dict[int, tuple[Any, Any]]] = {}
    unpaid = []
    for (seat, kind), stake in sorted(runner.round.wagers.items()):
        got = paid.get((seat, kind))
        if got is None:
            unpaid.append(f"seat {seat} {kind}")
            continue
        groups.setdefault((kind, stake), {})[seat] = (got.category, got.returned)
    runner.measure(step, "every wager paid (a payout event)", "; ".join(unpaid) or "all paid", "all paid",
                 not unpaid, clause=citing_also(runner, step, SETTLEMENT) if unpaid else None)
    twice = paid_more_than_once(paid)
    if twice:
        runner.measure(step, "every wager settled by one payout event", "; ".join(twice), "one each", False,
                       detail="a second payout event for the same seat and wager type pays the wager again")
    for (kind, stake), by_seat in sorted(groups.items()):
        distinct = sorted(set(by_seat.values()), key=str)
        shown = "; ".join(f"seats {','.join(str(s) for s, v in by_seat.items() if v == d)}: {d[0]} "
                          f"{d[1]} cents" for d in distinct)
        runner.measure(step, f"{kind} wagers of {stake} cents paid alike at seats "
                     f"{','.join(map(str, sorted(by_seat)))}", shown, "one result for every seat",
                     len(distinct) == 1)


@step("expect_wager_types", Action(
    {"seat": Arg("seat", default=1)},
    doc="WAC 230-15-040(3), (5)(a)(ii): the wagering device at a seat accepts exactly the wager types the "
    "Rules Submission offers (its separate games) and refuses every other type the protocol can name, "
    "so no wager can be placed on a bonus feature; every probe wager is withdrawn again (needs an open round)",
    acts=("wager", "remove-wager"),
))
def expect_wager_types(runner: CaseContext, step: Step, seat: int) -> None:
    offered = offered_types(runner.profile)
    order = [t for t in WAGER_TYPES if t in offered and t != "royal9"] + [t for t in offered if t == "royal9"]
    order += [t for t in WAGER_TYPES if t not in offered]
    accepted: list[str] = []
    refused: list[str] = []
    for kind in order:
        stake = runner.stake_default if kind in ("royal9", "hit-and-run") else max(runner.stake_default, 500)
        try:
            res = runner.perform(PlaceWagers((Wager(seat, kind, stake),), probe=True))[0]
            (accepted if res.accepted else refused).append(kind)
        except DeviceNak:
            refused.append(kind)
    for kind in reversed(accepted):
        with contextlib.suppress(DeviceNak):
            runner.rig.sensors.remove(seat, kind)  # type: ignore[union-attr]
    want_refused = [t for t in order if t not in offered]
    runner.measure(step, f"wager types accepted at seat {seat}", ", ".join(accepted) or "none",
                   ", ".join(t for t in order if t in offered), sorted(accepted) == sorted(offered),
                   detail="the separate games of the Rules Submission")
    runner.measure(step, f"wager types refused at seat {seat}", ", ".join(refused) or "none",
                   ", ".join(want_refused), sorted(refused) == sorted(want_refused),
                   detail="a type the Rules Submission does not offer (a bonus feature has no wager)")


@step("expect_wager_type_refused", Action(
    {"type": Arg("str", required=True), "seat": Arg("seat", default=1),
     "amount": Arg("amount", positive=True, why="a $0 wager is refused whatever its type")},
    shorthand="type",
    doc="the wagering device refuses a wager of a type it does not offer (e.g. a bonus feature)",
    acts=("wager",)
))
def expect_wager_type_refused(runner: CaseContext, step: Step, type: str, seat: int,
                                 amount: Cents | None = None) -> None:
    if runner.rig.sensors is None:
        raise AssertionError("this case needs bet sensors")
    stake = amount if amount is not None else runner.stake_default
    try:
        res = runner.perform(PlaceWagers((Wager(seat, type, stake),), probe=True))[0]
        got = "accepted" if res.accepted else f"refused ({res.reason})"
        ok = not res.accepted
        if res.accepted:
            runner.round.wagers[(seat, type)] = stake
    except DeviceNak as exc:
        got, ok = f"refused ({exc.code}: {exc.reason})", True
    runner.measure(step, f"seat {seat} wager of type '{type}'", got, "refused", ok,
                 detail="a wager type the table does not offer must not be accepted")


@step("expect_layout_clear", Action(
    doc="after the round is settled no wager is left on the layout (`wager.list` is empty), but for a "
    "Mini-Baccarat three-consecutive-games wager riding within its three games (WAC 230-15-040(8)(b)); "
    "one riding past its third game is flagged",
))
def expect_layout_clear(runner: CaseContext, step: Step) -> None:
    ensure_settled(runner, step)
    if runner.rig.sensors is None:
        raise AssertionError("this case needs bet sensors")
    riding, wrong = riding_exception(runner.rig.sensors.wagers())
    excepted = "; ".join(f"seat {w.seat} {w.type} riding after {w.games} game(s)" for w in riding)
    runner.measure(step, "wagers left on the layout after the deal", "; ".join(wrong) or "none", "none",
                   not wrong, detail=f"the (8)(b) exception, within its three games: {excepted}" if excepted else "")


def _shoe(runner: CaseContext, rng: random.Random) -> list[Card]:
    decks = (runner.profile.rules.hit_and_run.decks if runner.profile.rules.hit_and_run is not None
             else runner.profile.rules.decks)
    cards = [c for c, n in shoe_composition(decks).items() for _ in range(n)]
    rng.shuffle(cards)
    return cards


@step("single_deal_rounds", Action(
    {
        "count": Arg("int", required=True, lo=1, why="0 rounds deal nothing and check nothing"),
        "seed": Arg("int", default=1),
        "seats": Arg("seats", default="all"),
        "types": Arg("str-list", required=True),
    },
    doc="play `count` consecutive rounds dealt from one shuffled shoe with every listed wager type at "
    "every listed seat; measures that each wager is settled in its own deal at the oracle's amount, that "
    "the layout is clear after each deal, and that every card reported is a standard card within the "
    "declared decks; a three-consecutive-games wager (WAC 230-15-040(8)(b)) rides instead, judged game by "
    "game by the oracle, with up to two more games dealt to decide it",
    acts=("open-round", "wager", "load", "deal", "reset-key")
))
def single_deal_rounds(runner: CaseContext, step: Step, count: int, seed: int, seats: Any,
                          types: tuple[str, ...]) -> None:
    unknown = [t for t in types if t not in WAGER_TYPES]
    if unknown:
        raise AssertionError(f"single_deal_rounds: unknown wager types {', '.join(unknown)}")
    rng = random.Random(seed)
    shoe = _shoe(runner, rng)
    per_round = 16 if runner.oracle.is_hit_and_run else 6
    seat_list = runner.seats_of(seats)
    checked = bad = 0
    problems: list[str] = []
    leftovers: list[str] = []
    paying: list[str] = []
    reported: list[list[Card]] = [[]]
    # the (8)(b) exception: a three-consecutive-games wager rides, followed by the oracle game by game
    streaks = StreakBook(runner) if any(t in STREAK_WAGERS for t in types) else None
    n = 0
    while n < count or (streaks is not None and streaks.open and n < count + STREAK_LENGTH):
        n += 1
        if len(shoe) < per_round:  # the shoe is played out: the next game comes from a fresh shuffle
            shoe = _shoe(runner, rng)
            reported.append([])
        open_round(runner, step)
        for i, seat in enumerate(seat_list if n <= count else ()):  # past count: only riding wagers
            kind = types[(i + n) % len(types)]
            if streaks is not None and (seat, kind) in streaks.open:
                continue  # its streak wager of this type still rides: that area is taken
            res = runner.place(seat, kind, None)
            if not res.accepted:
                problems.append(f"round {n}: seat {seat} {kind} refused ({res.reason})")
            elif streaks is not None and kind in STREAK_WAGERS:
                streaks.placed(seat, kind, res.amount)
        def draw() -> list[Card]:
            nonlocal shoe
            cards, shoe = shoe[:per_round], shoe[per_round:]
            return cards

        runner.deal_random_round(draw, 0, seed + n)
        runner.pump(0.01)
        reported[-1].extend(c for c, _t in runner.round.cards)
        exp = expected_round(runner)
        paid = _payouts(runner)
        if streaks is not None and exp.baccarat is not None:
            decided, wrong = streaks.deal_problems(runner, exp.baccarat.winner, f"round {n}")
            checked, bad, problems = checked + decided, bad + sum(not p[0] for p in wrong), problems + [
                p[1] for p in wrong]
        for key, stake in sorted(runner.round.wagers.items()):
            if key[1] in STREAK_WAGERS:
                continue  # followed game by game above
            checked += 1
            want = exp.payouts.get(key)
            got = paid.get(key)
            if got is None or want is None or got.returned != want.returned or got.times > 1:
                bad += 1
                problems.append(f"round {n} ({format_cards(runner.cards_read())}): seat {key[0]} {key[1]} "
                                f"({stake} cents) "
                                f"returned {got.returned if got else 'nothing in this deal'}, expected "
                                f"{want.returned if want else '?'}"
                                + (f" ({got.describe()})" if got is not None and got.times > 1 else ""))
        assert runner.rig.sensors is not None
        riding, left = riding_exception(runner.rig.sensors.wagers())
        followed = streaks.open if streaks is not None else {}
        left += [f"seat {w.seat} {w.type} riding, but decided by the oracle" for w in riding
                 if (w.seat, w.type) not in followed]
        leftovers.extend(f"round {n}: {what}" for what in left)
        pay_problems, _keys = hits_to_pay(runner)
        paying += [f"round {n}: {p}" for p in pay_problems]
    exception = (f"; three-consecutive-games wagers (WAC 230-15-040(8)(b)) settled over their games, {n - count} "
                 "more game(s) dealt to decide the last of them" if streaks is not None else "")
    runner.measure(step, f"wagers settled in the deal they were placed for, over {count} games{exception}",
                   checked - bad, checked, bad == 0 and not problems, unit="wagers", detail="; ".join(problems)[:2000])
    runner.measure(step, f"wagers left on the layout after each of {n} deals", len(leftovers), 0,
                   not leftovers, unit="wagers", detail="; ".join(leftovers)[:2000])
    if paying or any(e.name == "hit" for e in runner.hits_seen):
        measure_payments(runner, step, paying, count)
    _standard_cards(runner, step, reported)


def _standard_cards(runner: CaseContext, step: Step, shoes: list[list[Card]]) -> None:
    """WAC 230-15-040(1): every card is a standard playing card, no more copies in one shoe than its
    decks hold."""
    decks = (runner.profile.rules.hit_and_run.decks if runner.profile.rules.hit_and_run is not None
             else runner.profile.rules.decks)
    cards = [c for shoe in shoes for c in shoe]
    counts = Counter(c.code for c in cards)
    standard = {c.code for c in shoe_composition(1)}
    odd = sorted(code for code in counts if code not in standard)
    over = sorted({f"{code} x{k}" for shoe in shoes for code, k in Counter(c.code for c in shoe).items()
                   if k > decks})
    runner.measure(step, f"cards reported are standard cards within {decks} deck(s)",
                 "; ".join(odd + over) or f"{len(cards)} standard cards", f"{len(cards)} standard cards",
                 not odd and not over, detail=f"{len(counts)} distinct cards")
