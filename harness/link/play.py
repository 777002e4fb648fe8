"""Rounds on the tables of a link, one at a time or all at once, and the exact ledger of the common meters.

A link case keeps one :class:`LinkCase` (made on first use by :func:`state`): a
:class:`TableRunner` per table, which is the single-table step runner bound to that table's devices
and profile (so ``open_round``, ``deal``, the oracle and the stacks work as on one table), and the
:class:`Ledger` of what the host fed the common meters and took off them.  Every accepted Royal 9
wager at a table is written to the ledger at the rate that table files for each common meter it is
on, exactly (fractions of a cent kept), whichever step placed it.  :func:`audit` then holds the link
controller to it: for every common meter, what it shows plus its residual, its held and its diverted
cents grew by exactly the contributions less what the hits closed in the case took off (each hit's
amount, reseeded at the reset amount once); the wagers it counted per table are the wagers placed;
its cumulative payout meter rose by exactly the awards the winners were due.
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from harness.bench.acts import TurnResetKey
from harness.bench.performers import Performers
from harness.devices.link import DeviceEvent, NakError
from harness.devices.roles import MeterReading, WagerResult
from harness.errors import DeviceError, DeviceTimeout
from harness.link.rig import LinkRig
from harness.money import Cents, fmt
from harness.suites.load.model import Step
from harness.suites.run.oracle import Oracle, contribution_check, qualifying_stakes
from harness.suites.run.runner import CaseRunner
from harness.suites.steps.core import deal, open_round
from harness.suites.steps.expect import expected_round

if TYPE_CHECKING:
    from harness.link.rig import LinkRig, TableRig
    from harness.profiles.model import LinkSettings

#: how long a hit's acknowledgement, a reset or a rejoin may take to reach a table
SETTLE_S = 10.0  # a wait ends when its event arrives; the margin is for a loaded host


@dataclass
class Ledger:
    """What the host fed the common meters in this case, exactly, and the counters at its start."""

    start: MeterReading
    start_pending: dict[str, int]
    start_order: int
    fed: dict[str, Fraction] = field(default_factory=dict)
    placed: dict[str, list[int]] = field(default_factory=dict)
    #: (table, seat, table meter, instant, order, meter amount) of every hit a table reported
    claims: list[tuple[str, int, str, int, int, Cents]] = field(default_factory=list)


class TableRunner(CaseRunner):
    """The single-table runner for one table of the link; its measurements go to the case's runner,
    named after the table, and its accepted Royal 9 wagers into the ledger."""

    def __init__(self, case: LinkCase, trig: TableRig) -> None:
        parent = case.runner
        super().__init__(parent.case, trig.rig, Oracle(trig.profile, parent.oracle.interp),
                         performers=Performers(trig.profile.bench))
        self.link_case = case
        self.name = trig.name
        self.table = trig.table
        self.current = parent.current

    def measure(self, step: Step, name: str, value: Any, limit: Any, passed: bool, unit: str = "",
                detail: str = "", *, advisory: bool = False, clause: str | None = None) -> None:
        with self.link_case.lock:
            self.link_case.runner.measure(step, f"table {self.name}: {name}", value, limit, passed, unit, detail,
                                          advisory=advisory, clause=clause)

    def place_many(self, wagers: list[tuple[int, str, Cents | None]]) -> list[WagerResult]:
        results = super().place_many(wagers)
        self.link_case.fed_by(self.name, [r.amount for r in results if r.accepted and r.type == "royal9"])
        return results

    def place(self, seat: int, kind: str, amount: Cents | None, *, after: str | None = None,
               not_before_ns: int | None = None) -> WagerResult:
        res = super().place(seat, kind, amount, after=after, not_before_ns=not_before_ns)
        self.link_case.fed_by(self.name, [res.amount] if res.accepted and res.type == "royal9" else [])
        return res

    @property
    def seats(self) -> list[int]:
        return [s.seat for s in self.table.rules.seats]

    def batch(self, seats: list[int] | None = None, royal9: bool = True) -> list[tuple[int, str, Cents | None]]:
        """The base wager (where ``r9-requires-base-wager`` holds, or when no Royal 9 is placed) and the
        Royal 9 wager at every seat."""
        out: list[tuple[int, str, Cents | None]] = []
        for seat in seats if seats is not None else self.seats:
            if self.requires_base_wager or not royal9:
                out.append((seat, "banker", self.stake_default * 2))
            if royal9:
                out.append((seat, "royal9", None))
        return out

    def events(self, name: str) -> list[DeviceEvent]:
        self.pump()
        return [e for e in self.round.ctrl_events if e.name == name]

    def wait_event(self, what: str, pred: Callable[[DeviceEvent], bool], timeout_s: float = SETTLE_S) -> DeviceEvent:
        self.wait_for(what, lambda: any(pred(e) for e in self.round.ctrl_events), timeout_s)
        return next(e for e in self.round.ctrl_events if pred(e))

    def link_up(self) -> bool:
        return bool((self.controller().meters().raw.get("link") or {}).get("up"))

    def void_round(self) -> None:
        """The dealer closes a round in which no card was dealt (it is void; its wagers stand as placed)."""
        self.controller().settle_round()
        self.wait_for("'round_end' event", lambda: any(e.name == "round_end" for e in self.round.ctrl_events))
        self.round.settled = True


class LinkCase:
    """A link case's tables and ledger (see the module docstring)."""

    def __init__(self, runner: CaseRunner) -> None:
        if not isinstance(runner.rig, LinkRig) or runner.rig.link is None:
            raise DeviceError("a link step needs a link profile's rig (profile link: section)")
        self.runner = runner
        self.rig: LinkRig = runner.rig
        assert runner.profile.link is not None
        self.settings: LinkSettings = runner.profile.link
        self.lock = threading.Lock()
        self.tables = {name: TableRunner(self, trig) for name, trig in self.rig.tables.items()}
        reading = self.link.meters()
        hits = self.link.hits()
        self.ledger = Ledger(reading, {str(p["meter"]): int(p["instant"]) for p in reading.raw.get("pending") or []},
                             max((h.order for h in hits), default=0))

    @property
    def link(self) -> Any:
        assert self.rig.link is not None
        return self.rig.link

    def rate(self, table: str, meter: str) -> Decimal:
        return self.settings.table(table).rules.meters[meter].rate

    def fed_by(self, table: str, amounts: list[Cents]) -> None:
        if not amounts:
            return
        t = self.settings.table(table)
        with self.lock:
            placed = self.ledger.placed.setdefault(table, [0, 0])
            placed[0] += len(amounts)
            placed[1] += sum(amounts)
            for meter, common in t.links.items():
                rate = Fraction(str(t.rules.meters[meter].rate)) / 100
                self.ledger.fed[common] = self.ledger.fed.get(common, Fraction(0)) + rate * sum(amounts)

    def each(self, fn: Callable[[TableRunner], Any], names: list[str] | None = None,
             together: bool = True) -> list[Any]:
        """``fn`` on every table (or those named), all at once in threads or one after another; the
        first exception is raised once every table finished."""
        runners = [self.tables[n] for n in (names or list(self.tables))]
        if not together or len(runners) == 1:
            return [fn(r) for r in runners]
        with ThreadPoolExecutor(max_workers=len(runners), thread_name_prefix="link-table") as pool:
            futures = [pool.submit(fn, r) for r in runners]
        for f in futures:
            if f.exception() is not None:
                raise f.exception()  # type: ignore[misc]
        return [f.result() for f in futures]


_STATES: weakref.WeakKeyDictionary[CaseRunner, LinkCase] = weakref.WeakKeyDictionary()


def state(runner: CaseRunner) -> LinkCase:
    """The case's link state (made when a case's first link step runs)."""
    found = _STATES.get(runner)
    if found is None:
        found = _STATES[runner] = LinkCase(runner)
    for t in found.tables.values():
        t.current = runner.current
    return found


# -------------------------------------------------------------------------------- one round


def play_round(t: TableRunner, step: Step, cards: list[Any] | tuple[Any, ...], *, royal9: bool = True,
               seats: list[int] | None = None) -> list[str]:
    """Open, wager at every seat, deal ``cards``, settle, check the payouts, pay any hit; the problems."""
    open_round(t, step)
    problems = [f"seat {r.seat} {r.type} refused ({r.reason})" for r in t.place_many(t.batch(seats, royal9))
                if not r.accepted]
    deal(t, step, settle=True, cards=tuple(cards))
    problems += check_payouts(t)
    problems += local_growth(t)
    problems += pay_hits(t)
    return problems


def check_payouts(t: TableRunner) -> list[str]:
    """Every wager against the oracle; a wager that won a common meter against the link controller's
    acknowledgement (the amount comes from the link, not from the table's last reading)."""
    exp = expected_round(t)
    problems = []
    for (seat, kind), e in exp.payouts.items():
        linked = [m for m in e.meters if m in t.table.links]
        if linked:
            hit = t.wait_event(f"the hit acknowledgement for seat {seat}", is_hit(seat, linked))
            with t.link_case.lock:
                t.link_case.ledger.claims.append((t.name, seat, str(hit.payload["meter"]),
                                                  int(hit.payload.get("instant") or 0),
                                                  int(hit.payload.get("order") or 0), int(hit.payload["amount"])))
            continue
        paid = [ev for ev in t.events("payout") if (ev.payload.get("seat"), ev.payload.get("type")) == (seat, kind)]
        got = int(paid[0].payload["returned"]) if paid else None
        if got != e.returned:
            problems.append(f"seat {seat} {kind} returned {got} cents, the oracle {e.returned} ({e.category})")
    return problems


def local_growth(t: TableRunner) -> list[str]:
    """The table's own meters (not on the link) grew by exactly this round's wagers x their rates."""
    start = t.snapshots["round-start"]
    now = t.read_meters()
    hit = {str(e.payload.get("meter")) for e in t.events("hit")}
    stakes = qualifying_stakes(t.round.wagers)
    out = []
    for name, m in t.table.rules.meters.items():
        if name in t.table.links or name in hit:
            continue
        got, want = contribution_check(m.rate, stakes, start, now, name, m.cap)
        if got != want:
            out.append(f"its own {name} meter grew {got} cents (growth + residual), wagers x rate {want}")
    return out


def pay_hits(t: TableRunner) -> list[str]:
    """The attendant pays every hit the table waits on: its own meters' reset key at the table, a
    common meter's at the link controller (a key another table turned first is already turned).  A
    common meter's winner must then have been paid the award the link controller recorded for it
    (checked where a wager is paid one award, r9-one-award-per-wager); the problems are returned."""
    problems = []
    pending = t.read_meters().pending
    for name in pending:
        common = t.table.links.get(name)
        if common is None:
            t.perform(TurnResetKey(name))
            continue
        hit = t.wait_event(f"the acknowledgement of the hit on {name}", is_hit(None, [name]))
        with contextlib.suppress(NakError):  # a winner at another table had it turned: closed once
            t.link_case.link.reset_key(common)
        wait_reset(t, name)
        seat = int(hit.payload["seat"])
        paid = t.wait_event(f"seat {seat}'s award on {name}", is_payout(seat))
        record = [h for h in t.link_case.link.hits(t.link_case.ledger.start_order)
                  if (h.table, h.seat, h.meter) == (t.name, seat, common)]
        award = record[-1].award if record else None
        kept = int(paid.payload.get("stake") or 0) if t.oracle.interp.award_returns_stake else 0
        if t.oracle.interp.r9_one_award_per_wager and int(paid.payload["returned"]) - kept != award:
            problems.append(f"seat {seat} was paid {int(paid.payload['returned']) - kept} cents on {common}, the "
                            f"link controller recorded an award of {award}")
    return problems


def is_payout(seat: int) -> Callable[[DeviceEvent], bool]:
    """A Royal 9 ``payout`` event of ``seat``."""
    def pred(ev: DeviceEvent) -> bool:
        return ev.name == "payout" and ev.payload.get("seat") == seat and ev.payload.get("type") == "royal9"

    return pred


def is_hit(seat: int | None, meters: list[str]) -> Callable[[DeviceEvent], bool]:
    """A ``hit`` event of one of ``meters`` (for ``seat``, unless None)."""
    def pred(ev: DeviceEvent) -> bool:
        return (ev.name == "hit" and ev.payload.get("meter") in meters
                and (seat is None or ev.payload.get("seat") == seat))

    return pred


def wait_reset(t: TableRunner, meter: str) -> None:
    """Until the table no longer waits on ``meter``'s reset key (a common meter: the link's reset reached it)."""
    wait_until(f"table {t.name} to see {meter} reset", lambda: meter not in t.read_meters().pending)


def wait_until(what: str, pred: Callable[[], bool], timeout_s: float = SETTLE_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not pred():
        if time.monotonic() > deadline:
            raise DeviceTimeout(f"no {what} within {timeout_s} s")
        time.sleep(0.01)


def random_cards(t: TableRunner, rng: random.Random) -> list[Any]:
    return t.round_cards(t.random_round_cards(rng))


def drain(case: LinkCase, timeout_s: float = 10.0) -> None:
    """Until every table is on the link and has delivered its whole outbox."""
    def delivered() -> bool:
        for t in case.tables.values():
            link = t.controller().meters().raw.get("link") or {}
            if not link.get("up") or link.get("outbox"):
                return False
        return True

    wait_until("table with its link up and its outbox delivered", delivered, timeout_s)


# -------------------------------------------------------------------------------- the audit


def _total(reading: MeterReading, meter: str) -> Fraction:
    raw = reading.raw
    return (Fraction(reading.meters.get(meter, 0)) + Fraction(str(reading.residual.get(meter, 0)))
            + int((raw.get("held") or {}).get(meter, 0)) + int((raw.get("diverted") or {}).get(meter, 0)))


def audit(case: LinkCase, step: Step) -> None:
    """The ledger against the link controller, exactly (see the module docstring)."""
    runner = case.runner
    drain(case)
    now = case.link.meters()
    led = case.ledger
    pending_now = {str(p["meter"]): int(p["instant"]) for p in now.raw.get("pending") or []}
    hits = [h for h in case.link.hits() if h.order > led.start_order]
    instants: dict[tuple[str, int], Cents] = {}
    for h in hits:
        instants.setdefault((h.meter, h.instant), h.amount)
    closed = {k: a for k, a in instants.items() if pending_now.get(k[0]) != k[1]}
    for meter, instant in led.start_pending.items():  # a hit waiting at the start, closed in the case
        if pending_now.get(meter) != instant:
            before = next((p for p in led.start.raw.get("pending") or [] if p["meter"] == meter), None)
            if before is not None:
                closed.setdefault((meter, instant), int(before["amount"]))
    for name, common in case.settings.meters.items():
        taken = sum((Fraction(a - common.reset) for (m, _i), a in closed.items() if m == name), Fraction(0))
        fed = led.fed.get(name, Fraction(0))
        got = _total(now, name) - _total(led.start, name)
        want = fed - taken
        runner.measure(step, f"common meter {name}: growth + residual + held + diverted", _dec(got), _dec(want),
                       got == want, unit="cents",
                       detail=f"contributions {_dec(fed)} c from every table at its filed rate; "
                              f"{sum(1 for m, _i in closed if m == name)} hit(s) paid and reset once each")
    counted0 = led.start.raw.get("counted") or {}
    counted1 = now.raw.get("counted") or {}
    for table in case.tables:
        placed = led.placed.get(table, [0, 0])
        a, b = counted0.get(table, {}), counted1.get(table, {})
        got_pair = [int(b.get("wagers", 0)) - int(a.get("wagers", 0)),
                    int(b.get("amount", 0)) - int(a.get("amount", 0))]
        runner.measure(step, f"wagers the link controller counted from table {table}",
                       f"{got_pair[0]} wagers, {fmt(got_pair[1])}", f"{placed[0]} wagers, {fmt(placed[1])}",
                       got_pair == placed, detail="each accepted Royal 9 wager once, none lost, none twice")
    each = runner.interpretation("link-simultaneous-hits") != "shared"
    claims_per: dict[tuple[str, int], int] = {}
    for _t, _s, meter, instant, _o, _a in led.claims:
        for tname, tr in case.tables.items():
            if tname == _t and meter in tr.table.links:
                key = (tr.table.links[meter], instant)
                claims_per[key] = claims_per.get(key, 0) + 1
    due = sum(a * (claims_per.get(k, 1) if each else 1) for k, a in closed.items())
    paid = now.cumulative_paid - led.start.cumulative_paid
    runner.measure(step, "link cumulative progressive payout meter", paid, due, paid == due, unit="cents",
                   detail=f"{len(closed)} hit instant(s) paid, {sum(claims_per.values())} winner(s) seen at the tables")


def _dec(value: Fraction) -> str:
    return f"{Decimal(value.numerator) / Decimal(value.denominator):f}"
