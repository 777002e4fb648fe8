"""The expectation half of the step runner: every ``expect_*`` action, each a measurement.

These functions are methods of :class:`harness.suites.runner.CaseRunner` (bound there); they live
here to keep each module readable.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from harness.games.royal9 import royal9_floors
from harness.money import Cents, fmt
from harness.suites.expected import (
    ExpectedRound,
    contribution_check,
    meter_settings,
    meters_at_settlement,
    qualifying_stakes,
)
from harness.suites.model import Step

if TYPE_CHECKING:
    from harness.suites.runner import CaseRunner

IDENTITY_ROLES = ("shoe", "sensors", "controller")


def _dealt(self: CaseRunner) -> list[Any]:
    self._pump()
    return [c for c, _t in self.round.cards]


def expected_round(self: CaseRunner) -> ExpectedRound:
    """The oracle's settlement of the round just dealt (cached on the round log).

    Meter awards are paid from the meters as they stand at settlement: the reading at the round's
    start plus this round's exact contributions at the profile's rates (fractions of a cent carried
    in the residual), computed here rather than taken from the device."""
    if self.round.expected is None:
        cards = _dealt(self)
        start = self.snapshots.get("round-start")
        meters: dict[str, Cents] = {}
        if start is not None:
            meters = meters_at_settlement(self.profile, start, qualifying_stakes(self.round.wagers))
        self.round.expected = self.oracle.round(cards, self.round.wagers, meters)
    return self.round.expected


def do_expect_outcome(self: CaseRunner, step: Step, oracle: bool | None = None, **want: Any) -> None:
    """The round as dealt: the shoe reported exactly the scripted cards, the round used as many cards
    as the rules say (a natural stops the deal), and the outcome of those cards is the one stated.
    What the device *paid* for that outcome is ``expect_payout``'s business."""
    if not self.round.settled:
        self.do_settle(step)
    dealt = _dealt(self)
    if self.loaded:
        used = dealt[: len(self.loaded)]
        self.measure(step, "cards reported by the shoe", " ".join(c.code for c in used),
                     " ".join(c.code for c in self.loaded[: len(used)]),
                     [c.code for c in used] == [c.code for c in self.loaded[: len(used)]])
    exp = expected_round(self)
    actual: dict[str, Any] = {}
    if exp.baccarat is not None:
        r = exp.baccarat
        actual = {"winner": r.winner, "natural": r.natural, "dragon7": r.dragon7, "panda8": r.panda8,
                  "player_total": r.player_total, "banker_total": r.banker_total}
        self.measure(step, "cards in the round", len(dealt), r.cards_used, len(dealt) == r.cards_used,
                     unit="cards", detail="a natural stops the deal; the tableau decides third cards")
    if exp.dealer is not None:
        actual = {"dealer_cards": exp.dealer.n_cards, "dealer_bust": exp.dealer.bust}
    for key, value in want.items():
        if value is None:
            continue
        self.measure(step, f"outcome {key}", actual.get(key), value, actual.get(key) == value)


def _payouts(self: CaseRunner) -> dict[tuple[int, str], Mapping[str, Any]]:
    return {(int(e.payload["seat"]), str(e.payload["type"])): e.payload
            for e in self.round.ctrl_events if e.name == "payout"}


def do_expect_payout(self: CaseRunner, step: Step, type: str, oracle: bool | None = None, seat: int | None = None,
                     returned: Cents | None = None, category: str | None = None, none: bool | None = None) -> None:
    if not self.round.settled:
        self.do_settle(step)
    paid = _payouts(self)
    if oracle:
        exp = expected_round(self)
        keys = sorted(exp.payouts) if seat is None else [(seat, type)]
        for key in keys:
            e = exp.payouts.get(key)
            got = paid.get(key)
            want_ret = e.returned if e else 0
            got_ret = int(got["returned"]) if got else None
            self.measure(step, f"seat {key[0]} {key[1]} returned (oracle: {e.category if e else None})", got_ret,
                         want_ret, got_ret == want_ret, unit="cents",
                         detail=f"device category {got.get('category') if got else 'no payout event'}")
        return
    if seat is None:
        raise AssertionError("expect_payout without oracle needs a seat")  # schema prevents this
    got = paid.get((seat, type))
    if none:
        got_ret = int(got["returned"]) if got else 0
        self.measure(step, f"seat {seat} {type} paid nothing", got_ret, 0, got_ret == 0, unit="cents")
        return
    if returned is not None:
        got_ret = int(got["returned"]) if got else None
        self.measure(step, f"seat {seat} {type} returned", got_ret, returned, got_ret == returned, unit="cents",
                     detail=f"device category {got.get('category') if got else 'no payout event'}")
    if category is not None:
        got_cat = got.get("category") if got else None
        self.measure(step, f"seat {seat} {type} category", got_cat, category, got_cat == category)


def _ref(self: CaseRunner, meter: str, ref: Any) -> Cents:
    if isinstance(ref, int):
        return ref
    rules = self.profile.rules
    if meter == "mystery" and rules.mystery is not None:
        return {"reseed": rules.mystery.reseed, "reset": rules.mystery.reseed, "initial": rules.mystery.reseed,
                "must_hit_by": rules.mystery.must_hit_by, "floor": rules.mystery.reseed}[ref]
    settings = rules.meters.get(meter)
    if settings is None and rules.hit_and_run is not None and meter == "hit-and-run":
        settings = rules.hit_and_run.meter
    if settings is None:
        raise AssertionError(f"the profile declares no meter '{meter}'")
    if ref == "floor":
        if rules.denomination is None:
            return settings.reset
        return royal9_floors(rules.denomination)[meter]
    return {"reset": settings.reset, "initial": settings.initial}[ref]


def do_expect_meters(self: CaseRunner, step: Step, since: str | None = None,
                     delta: Mapping[str, Cents] | None = None, equals: Mapping[str, Any] | None = None,
                     at_least: Mapping[str, Any] | None = None, never_decreased: bool | None = None,
                     conservation: bool | None = None) -> None:
    now = self._read_meters()
    base_name = since or "round-start"
    if delta:
        base = self.snapshots.get(base_name)
        if base is None:
            raise AssertionError(f"no meter snapshot '{base_name}' (read_meters: {{as: {base_name}}} first)")
        for meter, want in delta.items():
            got = now.meters.get(meter, 0) - base.meters.get(meter, 0)
            self.measure(step, f"{meter} meter increase since {base_name}", got, want, got == want, unit="cents")
    for meter, ref in (equals or {}).items():
        want = _ref(self, meter, ref)
        shown = now.meters.get(meter)
        self.measure(step, f"{meter} meter equals {ref}", shown, want, shown == want, unit="cents")
    for meter, ref in (at_least or {}).items():
        want = _ref(self, meter, ref)
        shown = now.meters.get(meter)
        self.measure(step, f"{meter} meter at least {ref}", shown, f">= {fmt(want)}",
                     shown is not None and shown >= want, unit="cents")
    if never_decreased:
        _never_decreased(self, step)
    if conservation:
        _conservation(self, step, base_name, now)


def _never_decreased(self: CaseRunner, step: Step) -> None:
    """461a.12(h): between readings a meter only goes down by a hit (and then to its reset)."""
    hit_meters = {str(e.payload.get("meter")) for e in self.hits_seen}
    problems = []
    for a, b in zip(self.timeline, self.timeline[1:], strict=False):
        for meter, before in a.meters.items():
            after = b.meters.get(meter, before)
            if after < before and meter not in hit_meters:
                problems.append(f"{meter} {fmt(before)} -> {fmt(after)} without a hit")
    self.measure(step, "meters never decreased without a hit", "; ".join(problems) or "none",
                 "none", not problems, detail=f"{len(self.timeline)} readings")


def _conservation(self: CaseRunner, step: Step, base_name: str, now: Any) -> None:
    """Contributions x rate == meter growth + residual growth, exactly, for meters not hit."""
    base = self.snapshots[base_name]
    stakes = qualifying_stakes(self.round.wagers)
    hit_meters = {str(e.payload.get("meter")) for e in self.round.ctrl_events if e.name in ("hit", "reset")}
    for name, settings in meter_settings(self.profile).items():
        if name in hit_meters or name not in now.meters:
            continue
        got, want = contribution_check(settings.rate, stakes, base, now, name)
        self.measure(step, f"{name} contributions conserved (growth + residual)", f"{got} cents",
                     f"{want} cents", got == want,
                     detail=f"{fmt(stakes)} wagered at {settings.rate}%")


def do_expect_lockout(self: CaseRunner, step: Step, locked: bool, within_ms: Decimal | None = None) -> None:
    ctrl = self._ctrl()
    if within_ms is not None or self.round.cards:
        limit = within_ms if within_ms is not None else self.profile.timing.lockout_deadline_ms
        self._wait_for("first card out of the shoe", lambda: bool(self.round.cards))
        self._wait_for("'lockout' event", lambda: any(e.name == "lockout" and e.payload.get("locked")
                                                      for e in self.round.ctrl_events))
        t_card = self.round.cards[0][1]
        ev = next(e for e in self.round.ctrl_events if e.name == "lockout" and e.payload.get("locked"))
        latency = (Decimal(ev.t_ns - t_card) / Decimal(1_000_000)).quantize(Decimal("0.001"))
        tint = self.rig.counter.time_interval_s() if self.rig.counter is not None else None
        if tint is None:
            # no time-interval counter: the host's receive stamps (taken in each port's reading
            # thread) are the measurement, OS scheduling jitter included
            self.measure(step, "lock-out latency after the first card (host receive stamps)", latency,
                         f"<= {limit}", latency <= limit, unit="ms",
                         detail=f"lock-out cause {ev.payload.get('cause')}")
        else:
            ms = (tint * 1000).quantize(Decimal("0.001"))
            self.measure(step, "lock-out latency after the first card (time-interval counter)", ms,
                         f"<= {limit}", ms <= limit, unit="ms",
                         detail=f"counter channel 1 card out, channel 2 lock-out; host receive stamps gave "
                                f"{latency} ms (cause {ev.payload.get('cause')}), which include OS scheduling")
    state = ctrl.lockout_state()
    self.measure(step, "lock-out state", "locked" if state else "open", "locked" if locked else "open",
                 state == locked)


def do_expect_event(self: CaseRunner, step: Step, event: str, absent: bool, match: Mapping[str, Any] | None = None
                    ) -> None:
    self._pump(0.05)
    pool = self.round.ctrl_events if event != "card" else []
    want = dict(match or {})

    def ok(e: Any) -> bool:
        return e.name == event and all(str(e.payload.get(k)) == str(v) for k, v in want.items())

    found = [e for e in pool if ok(e)]
    desc = f"'{event}' event" + (f" with {want}" if want else "")
    if absent:
        self.measure(step, f"no {desc}", len(found), 0, not found, unit="events")
    else:
        self.measure(step, desc, len(found), ">= 1", bool(found), unit="events",
                     detail="; ".join(f"{e.name} {e.payload}" for e in pool[-6:]))


def do_expect_identity(self: CaseRunner, step: Step, fields: tuple[str, ...] | None = None) -> None:
    for role in IDENTITY_ROLES:
        dev = getattr(self.rig, role)
        if dev is None:
            continue
        ident = dev.identity()
        missing = ident.missing(progressive=role == "controller")
        if fields:
            missing = [f for f in fields if getattr(ident, f, None) is None]
        self.measure(step, f"{role} identity fields (607a.2(b))", ", ".join(missing) or "all present",
                     "all present", not missing)


def do_expect_config(self: CaseRunner, step: Step, matches: str) -> None:
    cfg = self._ctrl().config()
    rules = self.profile.rules
    if rules.denomination is not None:
        self.measure(step, "denomination", cfg.denomination, rules.denomination * 100,
                     cfg.denomination == rules.denomination * 100, unit="cents")
    want_seats = {s.seat: tuple(c.code for c in s.combo) if s.combo else None for s in rules.seats}
    got_seats = {s.seat: tuple(s.combo) if s.combo else None for s in cfg.seats}
    self.measure(step, "seats and personal combinations", got_seats, want_seats, got_seats == want_seats)
    for name, m in rules.meters.items():
        got = cfg.meters.get(name)
        want = (m.rate, m.initial, m.reset)
        have = (got.rate, got.initial, got.reset) if got else None
        self.measure(step, f"{name} rate/initial/reset", have, want, have == want)


def do_expect_mystery(self: CaseRunner, step: Step, within_range: bool) -> None:
    rules = self.profile.rules
    if rules.mystery is None:
        raise AssertionError("the profile declares no mystery progressive")
    now = self._read_meters()
    lo, hi = rules.mystery.reseed, rules.mystery.must_hit_by
    readings = [r.meters.get("mystery") for r in self.timeline if "mystery" in r.meters]
    bad = [v for v in readings if v is not None and not lo <= v <= hi]
    self.measure(step, "mystery meter within [reseed, must-hit-by]",
                 fmt(now.meters["mystery"]) if "mystery" in now.meters else None,
                 f"{fmt(lo)}..{fmt(hi)}", not bad and "mystery" in now.meters,
                 detail=f"{len(readings)} readings; outside: {', '.join(map(fmt, bad)) or 'none'}")
