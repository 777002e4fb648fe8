"""Suite steps for a link of tables on common meters (58 Pa. Code 461a.12(c), (d); ``suites/link/``).

Every value comes from the link profile: which tables are on which common meter, each table's
seats, personal combinations, decks, denomination and rates; the hands are built by the stack
builder for each table.  The only cards written here are a round that has no Royal 9 on any table
(:data:`NO_ROYAL9`: no face card and no nine in the first four).  Each step names its tables in its
measurements; every accepted Royal 9 wager goes into the case's ledger (:mod:`harness.link.play`),
which ``expect_link_meters`` holds the link controller to.
"""

from __future__ import annotations

import functools
import random
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from harness.cards import Card, Combo, parse_cards
from harness.games.interpretations import Interpretations
from harness.link.play import (
    LinkCase,
    TableRunner,
    audit,
    check_payouts,
    drain,
    pay_hits,
    play_round,
    random_cards,
    state,
)
from harness.math.link_exact import compare, meter_chances, why_unequal
from harness.money import fmt
from harness.stackbuilder import Impossible, NotFound, build_stack
from harness.suites.load.model import Step
from harness.suites.steps.core import deal, open_round
from harness.suites.steps.registry import Action, Arg, step

if TYPE_CHECKING:
    from harness.suites.run.runner import CaseRunner

#: a round with no Royal 9 on any table: Player 2 5, Banker 3 6 (a natural 9), four cards
NO_ROYAL9 = tuple(parse_cards("2H 3C 5D 6S"))
ACTS = ("open-round", "wager", "load", "deal", "reset-key", "fault")


@functools.cache
def _hand(want: str, decks: int, combos: tuple[tuple[int, str, str], ...], interp: Interpretations) -> tuple[Card, ...]:
    result = build_stack("baccarat", want, decks=decks, seat_combos={s: Combo.of_codes((k, n)) for s, k, n in combos},
                         interpretations=interp, seed=1, deadline_s=10.0)
    if isinstance(result, Impossible | NotFound):
        return ()
    return tuple(result.cards)


def hand(t: TableRunner, meter: str, seat: int) -> tuple[Card, ...]:
    """The round that wins ``meter`` for ``seat`` at this table (empty: none exists on its shoe)."""
    combos = tuple(sorted((s.seat, *s.combo.codes()) for s in t.table.rules.seats if s.combo))
    return _hand(f"{meter}:seat={seat}", t.table.rules.decks, combos, t.oracle.interp)


def owners(t: TableRunner) -> list[int]:
    return [s.seat for s in t.table.rules.seats if s.combo is not None]


# ---------------------------------------------------------------------------- the filing


@step("expect_link_configuration", Action(doc=(
    "the link controller lists every table of the link with its wager, decks and the rate it files for "
    "each common meter, and the common meters' amounts; every table's controller reads back its own Rules "
    "Submission (wager, decks, seats and personal combinations, which meters are on the link, at what rate)")))
def expect_link_configuration(runner: CaseRunner, step: Step) -> None:
    case = state(runner)
    listed = {t.table: t for t in case.link.tables()}
    common = case.link.config().get("meters") or {}
    for name, m in case.settings.meters.items():
        got = common.get(name) or {}
        want = {"initial": m.initial, "reset": m.reset, "payout_limit": m.payout_limit,
                "display_capacity": m.display_capacity}
        shown = {k: got.get(k) for k in want}
        runner.measure(step, f"common meter {name} amounts at the link controller", shown, want, shown == want)
    for t in case.settings.tables:
        filed = (t.wager, t.rules.decks, {c: t.rules.meters[m].rate for m, c in t.links.items()})
        entry = listed.get(t.name)
        got_entry = (entry.denomination, entry.decks, dict(entry.rates)) if entry else None
        runner.measure(step, f"the link controller's entry for table {t.name} (wager, decks, rate per common meter)",
                       got_entry, filed, got_entry == filed)
        tr = case.tables[t.name]
        cfg = tr.controller().config()
        seats = {s.seat: tuple(s.combo) if s.combo else None for s in cfg.seats}
        want_seats = {s.seat: s.combo.codes() if s.combo else None for s in t.rules.seats}
        links = dict((cfg.raw.get("link") or {}).get("meters") or {})
        rates = {m: cfg.meters[m].rate for m in t.links if m in cfg.meters}
        read = (cfg.denomination, cfg.raw.get("decks"), seats, links, rates)
        filed_table = (t.wager, t.rules.decks, want_seats, dict(t.links), {m: t.rules.meters[m].rate for m in t.links})
        runner.measure(step, f"table {t.name} configuration (wager, decks, seats and combinations, linked meters, "
                             "their rates)", read, filed_table, read == filed_table)


# ---------------------------------------------------------------------------- the chances


@step("expect_link_chances", Action(doc=(
    "what each table pays on which cards, against the exact math: at every table, the hand that wins each "
    "linked meter for each seat with a personal combination claims that common meter for that seat, and a "
    "king-9 no seat owns claims none; from the decks and combinations each table reports, every wager on a "
    "common meter has the same exact chance per unit of wager (461a.12(c)(1), (d)(1); link-wager-measure)"),
    acts=ACTS))
def expect_link_chances(runner: CaseRunner, step: Step) -> None:
    case = state(runner)
    chances = []
    measure = str(runner.interpretation("link-wager-measure") or "money")
    for name, t in case.tables.items():
        problems = _probe(t, step)
        runner.measure(step, f"table {name}: each linked meter claimed exactly on its owners' hands",
                       "; ".join(problems) or "as filed", "as filed", not problems)
        cfg = t.controller().config()
        seats = {s.seat: Combo.of_codes(s.combo) if s.combo else None for s in cfg.seats}
        links = {m: c for m, c in (cfg.raw.get("link") or {}).get("meters", {}).items()}
        chances += meter_chances(name, decks=int(cfg.raw.get("decks") or 0), seats=seats,
                                 denomination=cfg.denomination // 100, interpretations=runner.oracle.interp,
                                 amounts={m: s.reset for m, s in t.table.rules.meters.items()}, links=links,
                                 measure=measure)
    bad = compare(chances)
    for common in case.settings.meters:
        mine = [c for c in chances if c.common == common]
        wrong = [why_unequal(c, ref) for c, ref in bad if c.common == common]
        shown = sorted({str(c.per_unit) for c in mine})
        runner.measure(step, f"common meter {common}: chance per unit of wager on every table and seat",
                       ", ".join(shown), "one value", not wrong, detail="; ".join(wrong[:4]))


def _probe(t: TableRunner, step: Step) -> list[str]:
    """Deal each owner's winning hand for each linked meter, then a near miss; what the table claimed."""
    problems = []
    for meter in sorted(t.table.links):
        for seat in owners(t):
            cards = hand(t, meter, seat)
            if not cards:
                continue  # no such hand on this shoe (a mega on one deck): the chance is 0 for every seat
            open_round(t, step)
            t.place_many(t.batch([seat]))
            deal(t, step, settle=True, cards=cards)
            check_payouts(t)
            claimed = [(e.payload.get("seat"), e.payload.get("meter")) for e in t.events("hit")
                       if e.payload.get("meter") in t.table.links]
            if claimed != [(seat, meter)]:
                problems.append(f"seat {seat}'s {meter} hand ({' '.join(c.code for c in cards)}) claimed {claimed}")
            problems += pay_hits(t)
        miss = _near_miss(t, meter)
        if miss:
            open_round(t, step)
            t.place_many(t.batch())
            deal(t, step, settle=True, cards=miss)
            claimed = [(e.payload.get("seat"), e.payload.get("meter")) for e in t.events("hit")
                       if e.payload.get("meter")]
            if claimed:
                problems.append(f"a king-9 no seat owns ({' '.join(c.code for c in miss)}) claimed {claimed}")
            problems += pay_hits(t)
    return problems


def _near_miss(t: TableRunner, meter: str) -> tuple[Card, ...]:
    """A round with a king-9 of suits no seat owns where ``meter``'s hand would have it."""
    if t.oracle.interp.r9_personal_combo_suited is False:
        return ()  # every king-9 is the one combination
    owned = {(s.combo[0].suit, s.combo[1].suit) for s in t.table.rules.seats if s.combo}
    free = next(((k, n) for k in "SHDC" for n in "SHDC" if (k, n) not in owned), None)
    if free is None:
        return ()
    king, nine = f"K{free[0]}", f"9{free[1]}"
    if meter == "mega":
        if t.table.rules.decks < 2:
            return ()
        return tuple(parse_cards(f"{king} {king} {nine} {nine}"))
    if meter == "major":
        return tuple(parse_cards(f"2C {king} 3C {nine}"))
    return tuple(parse_cards(f"{king} 2C {nine} 3C"))


# ---------------------------------------------------------------------------- the wager


@step("expect_link_wagers", Action(doc=(
    "at every table, a Royal 9 wager of the amount the table files is accepted and any other amount (the other "
    "tables' wagers, a dollar more or less) refused; the round is then dealt with no Royal 9"), acts=ACTS))
def expect_link_wagers(runner: CaseRunner, step: Step) -> None:
    case = state(runner)
    wagers = {t.wager for t in case.settings.tables}
    for name, t in case.tables.items():
        seat = t.seats[0]
        open_round(t, step)
        if t.requires_base_wager:
            t.place(seat, "banker", t.stake_default * 2)
        own = t.place(seat, "royal9", t.table.wager)
        others = sorted({w for w in (*wagers, t.table.wager - 100, t.table.wager + 100) if w > 0} - {t.table.wager})
        refused = []
        for amount in others:
            res = t.place(seat, "royal9", amount)
            refused.append(f"{fmt(amount)} {'refused (' + str(res.reason) + ')' if not res.accepted else 'ACCEPTED'}")
        ok = own.accepted and all("ACCEPTED" not in r for r in refused)
        runner.measure(step, f"table {name}: the Royal 9 wager it requires ({fmt(t.table.wager)}) and no other",
                       f"{fmt(t.table.wager)} {'accepted' if own.accepted else 'refused'}; " + "; ".join(refused),
                       f"{fmt(t.table.wager)} accepted; every other amount refused", ok)
        deal(t, step, settle=True, cards=NO_ROYAL9)


# ---------------------------------------------------------------------------- play


@step("link_rounds", Action(
    {"count": Arg("int", required=True), "seed": Arg("int", default=1), "together": Arg("bool", default=True),
     "random": Arg("bool", default=True)},
    doc=("`count` rounds at every table, every seat with its Royal 9 wager: all tables at once (`together`), or "
         "one table after another, each table's contributions then measured alone against the rate it files for "
         "every common meter (461a.12(c)(2)); random shoes (seeded per table) or, with `random: false`, a round "
         "with no Royal 9; each payout against the oracle, a common meter's award against the link controller"),
    acts=ACTS))
def link_rounds(runner: CaseRunner, step: Step, count: int, seed: int, together: bool, random: bool) -> None:
    case = state(runner)

    def play(t: TableRunner) -> list[str]:
        rng = _rng(seed, t.name)
        out = []
        for n in range(1, count + 1):
            cards = random_cards(t, rng) if random else NO_ROYAL9
            out += [f"round {n}: {p}" for p in play_round(t, step, cards)]
        return out

    if together:
        problems = dict(zip(case.tables, case.each(play), strict=True))
    else:
        problems = {}
        for name, t in case.tables.items():
            problems[name] = _alone(case, t, step, play)
    for name, found in problems.items():
        runner.measure(step, f"table {name}: {count} round(s) paid as the oracle says, its own meters exact",
                       len(found), 0, not found, unit="problems", detail="; ".join(found)[:2000])


def _rng(seed: int, table: str) -> random.Random:
    return random.Random(f"{seed}:{table}")


def _alone(case: LinkCase, t: TableRunner, step: Step, play: Any) -> list[str]:
    """Play at one table only and measure what it fed each common meter against its filed rate."""
    drain(case)
    before = case.link.meters()
    placed0 = list(case.ledger.placed.get(t.name, [0, 0]))
    found: list[str] = play(t)
    drain(case)
    after = case.link.meters()
    amount = case.ledger.placed.get(t.name, [0, 0])[1] - placed0[1]
    for meter, common in sorted(t.table.links.items()):
        if before.pending != after.pending or (after.raw.get("pending") or []):
            continue  # a hit in between: the case's audit accounts for it
        rate = t.table.rules.meters[meter].rate
        got = (Decimal(after.meters[common] - before.meters[common]) + after.residual.get(common, Decimal(0))
               - before.residual.get(common, Decimal(0)))
        want = Decimal(amount) * rate / 100
        case.runner.measure(step, f"common meter {common} fed by table {t.name} alone", f"{got} cents",
                            f"{want} cents", got == want,
                            detail=f"{fmt(amount)} of Royal 9 wagers at the {rate}% table {t.name} files")
    return found


@step("expect_link_meters", Action(doc=(
    "exact conservation of every common meter over the case: what it shows plus its residual, held and diverted "
    "cents grew by exactly every table's accepted Royal 9 wagers times the rate each files, less what the hits "
    "took (each reset once); the wagers the link controller counted per table are the wagers placed; its "
    "cumulative payout meter rose by the awards due")))
def expect_link_meters(runner: CaseRunner, step: Step) -> None:
    audit(state(runner), step)

