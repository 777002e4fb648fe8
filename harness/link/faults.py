"""Suite steps for what can go wrong on a link: two tables hitting one common meter in the same
instant, a table losing its link mid-round, the link controller losing power while the tables deal
(58 Pa. Code 461a.12(b)(1), (b)(4), (c)(2), (h), (h)(1), (n); ``suites/link/``).

As in :mod:`harness.link.steps`, every value comes from the link profile (which tables share which
meter, whose hand wins it); the only cards written here are the round with no Royal 9
(:data:`harness.link.steps.NO_ROYAL9`).  Every wager goes into the case's ledger.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from harness.cards import Card
from harness.devices.link import NakError
from harness.errors import DeviceTimeout
from harness.link.play import (
    LinkCase,
    TableRunner,
    check_payouts,
    drain,
    is_payout,
    local_growth,
    play_round,
    state,
    wait_reset,
    wait_until,
)
from harness.link.steps import ACTS, NO_ROYAL9, hand, owners
from harness.suites.load.model import Step
from harness.suites.steps.core import deal, open_round, shoe
from harness.suites.steps.registry import Action, Arg, step

if TYPE_CHECKING:
    from harness.suites.run.runner import CaseRunner


# ---------------------------------------------------------------------------- two hits, one instant


@step("link_simultaneous_hit", Action(doc=(
    "for every common meter, two tables on it deal the hand that wins it at the same instant: the link controller "
    "orders the two claims, both in one instant at the amount the meter showed, each winner paid as "
    "link-simultaneous-hits says; one reset key resets the meter once (a second turn is refused), and each table's "
    "payout meters record its winner's award"), acts=ACTS))
def link_simultaneous_hit(runner: CaseRunner, step: Step) -> None:
    case = state(runner)
    for common in case.settings.meters:
        pair = [(case.tables[t.name], m) for t, m in case.settings.on(common)
                if any(hand(case.tables[t.name], m, s) for s in owners(case.tables[t.name]))][:2]
        if len(pair) < 2:
            runner.measure(step, f"common meter {common}: two tables can hit it", "no such hand on two tables",
                           "two tables", True, detail="no shoe of the link deals its hand twice: nothing to hit")
            continue
        _two_hits(case, step, common, pair)


def _two_hits(case: LinkCase, step: Step, common: str, pair: list[tuple[TableRunner, str]]) -> None:
    runner = case.runner
    link = case.link
    drain(case)
    link.events(0.0)
    paid0 = {t.name: t.controller().meters().paid_by_attendant for t, _m in pair}
    order0 = max((h.order for h in link.hits()), default=0)
    plan = []
    for t, meter in pair:
        seat = next(s for s in owners(t) if hand(t, meter, s))
        plan.append((t, meter, seat, hand(t, meter, seat)))
        open_round(t, step)
        t.place_many(t.batch())
    gate = threading.Barrier(len(plan))

    def both(item: tuple[TableRunner, str, int, tuple[Card, ...]]) -> None:
        t, _meter, _seat, cards = item
        t.loaded = ()
        shoe(t, step, cards=cards)
        gate.wait(5.0)
        deal(t, step, settle=True)
        check_payouts(t)

    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="link-hit") as pool:
        futures = [pool.submit(both, item) for item in plan]
    for f in futures:
        if f.exception() is not None:
            raise f.exception()  # type: ignore[misc]
    claims = [h for h in link.hits() if h.order > order0 and h.meter == common]
    seen = [(h.table, h.seat) for h in claims]
    want = sorted((t.name, seat) for t, _m, seat, _c in plan)
    runner.measure(step, f"common meter {common}: the link controller's hit claims", sorted(seen), want,
                   sorted(seen) == want, detail="one claim per winner, none twice")
    instants = {h.instant for h in claims}
    orders = sorted(h.order for h in claims)
    amounts = {h.amount for h in claims}
    runner.measure(step, f"common meter {common}: one instant, in the controller's order",
                   f"instants {sorted(instants)}, orders {orders}, amounts {sorted(amounts)}",
                   "one instant, two orders, one amount",
                   len(instants) == 1 and len(set(orders)) == len(orders) and len(amounts) == 1)
    for t, meter, _seat, _cards in plan:
        _table_key_refused(t, step, common, meter)
    pending = [p for p in (link.meters().raw.get("pending") or []) if p["meter"] == common]
    resets_before = len([e for e in link.events(0.0) if e.name == "reset" and e.payload.get("meter") == common])
    if pending:
        link.reset_key(common)
    try:
        link.reset_key(common)
        again = "accepted"
    except NakError:
        again = "refused"
    resets = resets_before + len([e for e in link.events(0.2)
                                  if e.name == "reset" and e.payload.get("meter") == common])
    runner.measure(step, f"common meter {common}: reset once", f"{resets} reset(s); a second key turn {again}",
                   "1 reset(s); a second key turn refused", resets == 1 and again == "refused")
    amount = next(iter(amounts), 0)
    shared = runner.interpretation("link-simultaneous-hits") == "shared"
    first = min(claims, key=lambda h: h.order) if claims else None
    for t, meter, seat, _cards in plan:
        wait_reset(t, meter)
        award = amount
        if shared:  # whole cents each; the cents left over to the first in the controller's order
            award = amount // len(plan) + (amount % len(plan) if first and (first.table, first.seat) == (t.name, seat)
                                           else 0)
        payout = t.wait_event(f"table {t.name} seat {seat}'s award", is_payout(seat))
        stake = int(payout.payload.get("stake") or 0)
        kept = stake if t.oracle.interp.award_returns_stake else 0
        got = int(payout.payload["returned"]) - kept
        runner.measure(step, f"table {t.name} seat {seat}: award on {common} ({'shared' if shared else 'each paid'})",
                       got, award, got == award, unit="cents")
        paid = t.controller().meters().paid_by_attendant - paid0[t.name]
        runner.measure(step, f"table {t.name}: attendant-paid meter records the award", paid, award, paid == award,
                       unit="cents")
        t.round.settled = True
        local_growth(t)


def _table_key_refused(t: TableRunner, step: Step, common: str, meter: str) -> None:
    """docs/protocol.md section 14: the table's own reset key on a common meter is REFUSED while the
    award waits (its key is the link controller's), and the award stays pending at the table."""
    clause = "contract-14-table-key-on-common-meter"
    try:
        wait_until(f"table {t.name} to show the award on {meter} pending", lambda: meter in t.read_meters().pending)
    except DeviceTimeout:
        t.measure(step, f"its own reset key on {meter} (common {common})",
                  "no award pending at the table: key not turned", "REFUSED while the award waits", True,
                  clause=clause)
        return
    try:
        t.controller().reset_key(meter)
        got = "answered"
    except NakError as exc:
        got = f"REFUSED ({exc.reason})" if exc.code == "REFUSED" else f"{exc.code} ({exc.reason})"
    still = meter in t.read_meters().pending
    t.measure(step, f"its own reset key on {meter} (common {common}) while the award waits",
              f"{got}; {'still pending' if still else 'no longer pending'}", "REFUSED; still pending",
              got.startswith("REFUSED") and still, clause=clause)


# ---------------------------------------------------------------------------- faults


@step("link_drop", Action(doc=(
    "each table in turn loses its link, alternately before its round is dealt (the round's contribution waits "
    "and arrives once the link is back) and right after the link controller counted a contribution whose "
    "answer is lost (sent again, counted once); while it is off the link its Royal 9 wagers are refused and "
    "the base game goes on, and the other tables play and feed the meters as usual"), acts=ACTS))
def link_drop(runner: CaseRunner, step: Step) -> None:
    case = state(runner)
    for i, name in enumerate(case.tables):
        _drop_one(case, step, name, ("now", "after-contribution")[i % 2])


def _drop_one(case: LinkCase, step: Step, name: str, when: str) -> None:
    link = case.link
    runner = case.runner
    t = case.tables[name]
    drain(case)
    case.each(lambda r: (open_round(r, step), r.place_many(r.batch())))
    link.cut(name, when)
    if when == "now":
        wait_until(f"table {name} to see its link down", lambda: not t.link_up())
    case.each(lambda r: deal(r, step, settle=True, cards=NO_ROYAL9))
    wait_until(f"table {name} to see its link down", lambda: not t.link_up())
    others = [n for n in case.tables if n != name]
    open_round(t, step)
    base = t.place(t.seats[0], "banker", t.stake_default * 2)
    r9 = t.place(t.seats[0], "royal9", None)
    runner.measure(step, f"table {name} off the link ({when}): its Royal 9 wager refused, the base game open",
                   f"Royal 9 {'refused (' + str(r9.reason) + ')' if not r9.accepted else 'accepted'}, "
                   f"base {'accepted' if base.accepted else 'refused'}",
                   "Royal 9 refused, base accepted", not r9.accepted and base.accepted)

    def other(r: TableRunner) -> list[str]:
        return play_round(r, step, NO_ROYAL9)

    found = [p for ps in case.each(other, others) for p in ps] if others else []
    runner.measure(step, f"the other tables while table {name} is off the link", len(found), 0, not found,
                   unit="problems", detail="; ".join(found)[:2000])
    deal(t, step, settle=True, cards=NO_ROYAL9)
    link.restore(name)
    drain(case)


@step("link_controller_reboot", Action(
    {"duration_ms": Arg("int", default=800)},
    doc=("the link controller loses power for `duration_ms` while every table deals a round whose wagers it "
         "accepted before; the tables refuse Royal 9 wagers while it is dark and deliver the round's contributions "
         "when it is back, from the meters it kept (461a.12(n), (h))"), acts=ACTS))
def link_controller_reboot(runner: CaseRunner, step: Step, duration_ms: int) -> None:
    case = state(runner)
    link = case.link
    drain(case)
    before = link.meters()
    case.each(lambda r: (open_round(r, step), r.place_many(r.batch())))
    link.reboot(duration_ms)
    wait_until("every table to see the link controller gone",
               lambda: not any(t.link_up() for t in case.tables.values()), timeout_s=duration_ms / 1000 + 5)
    case.each(lambda r: deal(r, step, settle=True, cards=NO_ROYAL9))

    def dark(r: TableRunner) -> str:
        open_round(r, step)
        r.place(r.seats[0], "banker", r.stake_default * 2)
        if r.link_up():
            got = "not probed: the link controller was back"
        else:
            res = r.place(r.seats[0], "royal9", None)
            got = f"refused ({res.reason})" if not res.accepted else "ACCEPTED while off the link"
        deal(r, step, settle=True, cards=NO_ROYAL9)
        return got

    seen = dict(zip(case.tables, case.each(dark), strict=True))
    probed = [v for v in seen.values() if not v.startswith("not probed")]
    runner.measure(step, "Royal 9 wagers while the link controller is dark",
                   "; ".join(f"{n}: {v}" for n, v in seen.items()), "refused at every table probed",
                   bool(probed) and all(v.startswith("refused") for v in probed))
    drain(case, timeout_s=duration_ms / 1000 + 15)
    after = link.meters()
    lower = {m: (before.meters[m], after.meters.get(m)) for m in before.meters
             if after.meters.get(m, 0) < before.meters[m]}
    runner.measure(step, "common meters after the power cycle, none lower", lower or "none lower", "none lower",
                   not lower)
