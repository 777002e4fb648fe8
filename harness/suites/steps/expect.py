"""The expectation half of the step runner: every ``expect_*`` action, each a measurement.

Each is registered with :func:`harness.suites.steps.registry.step` and called by the runner with the
case it serves (a :class:`harness.suites.run.context.CaseContext`) and the step's validated arguments.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from harness.devices.contract import as_sent
from harness.errors import DeviceError, InputError
from harness.money import Cents, fmt
from harness.suites.load import refs
from harness.suites.load.model import Step
from harness.suites.run.oracle import (
    ExpectedRound,
    capped,
    contribution_check,
    meter_settings,
    meters_at_settlement,
    qualifying_stakes,
)
from harness.suites.run.timing import lock_timing, lockout_limit
from harness.suites.steps.core import EVENTS, SHOE_EVENTS, WAGER_TYPES, ensure_settled
from harness.suites.steps.payouts import (
    Paid,
    category_shown,
    measure_line_announced,
    measure_meter_hit_amount,
    measure_no_phantom_settlement,
    measure_paid_once,
    measure_stake_reported,
    settlements,
)
from harness.suites.steps.registry import Action, Arg, choice, step

if TYPE_CHECKING:
    from harness.suites.run.context import CaseContext

IDENTITY_ROLES = ("shoe", "sensors", "controller")


def _dealt(runner: CaseContext) -> list[Any]:
    runner.pump()
    return [c for c, _t in runner.round.cards]


def expected_round(runner: CaseContext) -> ExpectedRound:
    """The oracle's settlement of the round just dealt (cached on the round log).

    Meter awards are paid from the meters as they stand at settlement: the reading at the round's
    start plus this round's exact contributions at the profile's rates (fractions of a cent carried
    in the residual), computed here rather than taken from the device."""
    if runner.round.expected is None:
        cards = _dealt(runner)
        start = runner.snapshots.get("round-start")
        meters: dict[str, Cents] = {}
        if start is not None:
            meters = meters_at_settlement(runner.profile, start, qualifying_stakes(runner.round.wagers),
                                          runner.rates_written)
        try:
            runner.round.expected = runner.oracle.round(cards, runner.round.wagers, meters)
        except InputError as exc:  # the shoe reported too few cards for the rules to settle on
            raise DeviceError(f"the shoe reported {len(cards)} card(s) this round, not a whole round: {exc}") from None
    return runner.round.expected


@step("expect_outcome", Action(
    {
        "oracle": Arg("bool"),
        "winner": choice("player", "banker", "tie"),
        "natural": Arg("bool"),
        "dragon7": Arg("bool"),
        "panda8": Arg("bool"),
        "player_total": Arg("int", hi=9, why="a baccarat hand totals 0 to 9"),
        "banker_total": Arg("int", hi=9, why="a baccarat hand totals 0 to 9"),
        "player_cards": Arg("int", lo=2, hi=3, why="a baccarat hand holds two or three cards"),
        "banker_cards": Arg("int", lo=2, hi=3, why="a baccarat hand holds two or three cards"),
        "dealer_cards": Arg("int", lo=2, hi=21, why="a dealer's hand holds at least two cards, and 21 points at most"),
        "dealer_bust": Arg("bool"),
    },
    shorthand="oracle",
    doc="the round's outcome as the device reported it",
))
def expect_outcome(runner: CaseContext, step: Step, oracle: bool | None = None, **want: Any) -> None:
    """The round as dealt: the shoe reported exactly the scripted cards, the round used as many cards
    as the rules say (a natural stops the deal), and the outcome of those cards is the one stated.
    What the device *paid* for that outcome is ``expect_payout``'s business."""
    ensure_settled(runner, step)
    dealt = _dealt(runner)
    if runner.loaded:
        # the cards the round must use, as loaded: a shoe that reported fewer is a FAIL here, not a
        # comparison of the few it did report
        whole = runner.round_length(list(runner.loaded)) or len(runner.loaded)
        used = dealt[: len(runner.loaded)]
        want_cards = runner.loaded[: max(len(used), whole)]
        runner.measure(step, "cards reported by the shoe", " ".join(c.code for c in used),
                     " ".join(c.code for c in want_cards), [c.code for c in used] == [c.code for c in want_cards])
    exp = expected_round(runner)
    actual: dict[str, Any] = {}
    if exp.baccarat is not None:
        r = exp.baccarat
        actual = {"winner": r.winner, "natural": r.natural, "dragon7": r.dragon7, "panda8": r.panda8,
                  "player_total": r.player_total, "banker_total": r.banker_total,
                  "player_cards": len(r.player), "banker_cards": len(r.banker)}
        runner.measure(step, "cards in the round", len(dealt), r.cards_used, len(dealt) == r.cards_used,
                     unit="cards", detail="a natural stops the deal; the tableau decides third cards")
    if exp.dealer is not None:
        actual = {"dealer_cards": exp.dealer.n_cards, "dealer_bust": exp.dealer.bust}
    for key, value in want.items():
        if value is None:
            continue
        runner.measure(step, f"outcome {key}", actual.get(key), value, actual.get(key) == value)


def _payouts(runner: CaseContext) -> dict[tuple[int, str], Paid]:
    return settlements(runner.round.ctrl_events)


@step("expect_payout", Action(
    {
        "oracle": Arg("bool"),
        "seat": Arg("seat"),
        "type": choice(*WAGER_TYPES, default="royal9"),
        "returned": Arg("amount"),
        "award": Arg("amount"),
        "category": Arg("str"),
        "none": Arg("bool"),
        "paid_by": choice("table", "attendant"),
    },
    shorthand="oracle",
    doc="what the device paid a seat's wager: `returned` (total handed back, stake included), or "
    "`award` (a fixed line as the paytable writes it; the stake comes back too where "
    "award-returns-stake holds); `paid_by`: who the payout says pays it (a meter jackpot: the attendant); "
    "`oracle`: every wager against the oracle, each settled once, and each Royal 9 payout's `stake` the wager "
    "the table accepted at that seat (0 where it accepted none: an award paid without a wager)",
))
def expect_payout(runner: CaseContext, step: Step, type: str, oracle: bool | None = None, seat: int | None = None,
                     returned: Cents | None = None, category: str | None = None, none: bool | None = None,
                     award: Cents | None = None, paid_by: str | None = None) -> None:
    ensure_settled(runner, step)
    paid = _payouts(runner)
    ars = runner.oracle.interp.award_returns_stake
    if oracle:
        exp = expected_round(runner)
        keys = sorted(exp.payouts) if seat is None else [(seat, type)]
        for key in keys:
            e = exp.payouts.get(key)
            got = paid.get(key)
            want_ret = e.returned if e else 0
            got_ret = got.returned if got else None
            runner.measure(step, f"seat {key[0]} {key[1]} returned (oracle: {e.category if e else None})", got_ret,
                         want_ret, got_ret == want_ret, unit="cents", detail=category_shown(got))
            measure_paid_once(runner, step, key, got, settles=e is not None)
            measure_line_announced(runner, step, key, got, award_returns_stake=ars)
            measure_meter_hit_amount(runner, step, key, got, award_returns_stake=ars)
        if seat is None:
            measure_no_phantom_settlement(runner, step, paid)
            measure_stake_reported(runner, step, paid)
        return
    if seat is None:
        raise AssertionError("expect_payout without oracle needs a seat")  # schema prevents this
    got = paid.get((seat, type))
    measure_paid_once(runner, step, (seat, type), got)
    measure_line_announced(runner, step, (seat, type), got, award_returns_stake=ars)
    measure_meter_hit_amount(runner, step, (seat, type), got, award_returns_stake=ars)
    if none:
        got_ret = got.returned if got else 0
        runner.measure(step, f"seat {seat} {type} paid nothing", got_ret, 0, got_ret == 0, unit="cents")
        return
    if award is not None:
        stake = runner.round.wagers.get((seat, type), 0)
        returned = award + (stake if ars else 0)
    if returned is not None:
        got_ret = got.returned if got else None
        runner.measure(step, f"seat {seat} {type} returned", got_ret, returned, got_ret == returned, unit="cents",
                     detail=category_shown(got))
    if category is not None:
        got_cat = got.category if got else None
        runner.measure(step, f"seat {seat} {type} category", got_cat, category, got_cat == category)
    if paid_by is not None:
        got_by = got.paid_by if got else None
        runner.measure(step, f"seat {seat} {type} paid by", got_by, paid_by, got_by == paid_by)


@step("expect_meters", Action(
    {
        "since": Arg("str"),
        "delta": Arg("meter-amounts"),
        "grown": Arg("meters"),
        "equals": Arg("meter-refs"),
        "at_least": Arg("meter-refs"),
        "never_decreased": Arg("bool"),
        "conservation": Arg("bool"),
    },
    doc="meter deltas to the cent (`delta`: amounts the regulation fixes, e.g. '$0' for wagers that do "
    "not qualify; `grown`: the whole cents the qualifying wagers since the snapshot add at the "
    "profile's rates, the residual carried), relations to the Rules Submission (`equals: {minor: "
    "reset}`, `at_least: {mega: floor}`), no turning back, residual conservation",
))
def expect_meters(runner: CaseContext, step: Step, since: str | None = None,
                     delta: Mapping[str, Cents] | None = None, grown: tuple[str, ...] | None = None,
                     equals: Mapping[str, Any] | None = None,
                     at_least: Mapping[str, Any] | None = None, never_decreased: bool | None = None,
                     conservation: bool | None = None) -> None:
    now = runner.read_meters()
    base_name = since or "round-start"
    if delta or grown:
        base = runner.snapshots.get(base_name)
        if base is None:
            raise AssertionError(f"no meter snapshot '{base_name}' (read_meters: {{as: {base_name}}} first)")
        for meter, want in (delta or {}).items():
            got = now.meters.get(meter, 0) - base.meters.get(meter, 0)
            runner.measure(step, f"{meter} meter increase since {base_name}", got, want, got == want, unit="cents")
        if grown:
            _grown(runner, step, base_name, base, now, grown)
    for meter, ref in (equals or {}).items():
        want = refs.amount(runner, meter, ref)
        shown = now.meters.get(meter)
        runner.measure(step, f"{meter} meter equals {ref}", shown, want, shown == want, unit="cents")
    for meter, ref in (at_least or {}).items():
        want = refs.amount(runner, meter, ref)
        shown = now.meters.get(meter)
        runner.measure(step, f"{meter} meter at least {ref}", shown, f">= {fmt(want)}",
                     shown is not None and shown >= want, unit="cents")
    if never_decreased:
        _never_decreased(runner, step)
    if conservation:
        _conservation(runner, step, base_name, now)


def _grown(runner: CaseContext, step: Step, base_name: str, base: Any, now: Any, meters: tuple[str, ...]) -> None:
    """Each meter shows exactly the whole cents that the qualifying wagers since the snapshot add at
    the profile's rate, on top of the fraction of a cent it carried (Royal 9 (f)(2), (g)(2); 461a.12)."""
    settings = meter_settings(runner.profile, runner.rates_written)
    stakes = runner.stakes_since(base_name)
    names = tuple(settings) if meters == ("all",) else meters
    # the mystery meter awards when its hidden trigger falls, in any round: across an award its
    # growth is not wagers x rate (mystery_play checks the arithmetic over the award)
    awarded = "mystery" in runner.hit_since(base_name)
    for name in names:
        if name == "mystery" and awarded and meters == ("all",):
            continue
        m = settings.get(name)
        if m is None:
            raise AssertionError(f"the Rules Submission declares no {name} meter")
        carried = base.residual.get(name, Decimal(0))
        exact = carried + Decimal(stakes) * m.rate / 100
        start = base.meters.get(name, 0)
        want = capped(m, start, int(exact)) - start  # a meter at its limit stops there (461a.12(j), (k)(1))
        got = now.meters.get(name, 0) - start
        runner.measure(step, f"{name} meter growth since {base_name}", got, want, got == want, unit="cents",
                       clause=getattr(step, "clause", None) or rate_clause(runner, name),
                       detail=f"{fmt(stakes)} wagered x {m.rate}% + {carried} c carried = {exact} c"
                              + (f"; stopped at the meter's limit {fmt(m.cap)}" if want < int(exact) and m.cap else ""))


#: the clause a meter's rate of progression answers to: Royal 9 (f)(2) at $5, (g)(2) at $1, (h) for
#: the mystery meter; a growth or conservation measurement of that meter judges it, whatever else
#: the case cites (a gap finding then names the rate clause, not "no clause in common")
RATE_CLAUSES = {("royal9", 5): "pa-midi-r9-f2-rate-5", ("royal9", 1): "pa-midi-r9-g2-rate-1"}
MYSTERY_RATE_CLAUSE = "pa-midi-r9-h-rate"


def rate_clause(runner: CaseContext, meter: str) -> str | None:
    """The rate clause a measurement of ``meter``'s growth judges, or None (another progressive)."""
    if meter == "mystery":
        return MYSTERY_RATE_CLAUSE
    if meter in ("mega", "major", "minor") and "royal9" in runner.profile.capabilities:
        return RATE_CLAUSES.get(("royal9", runner.profile.rules.denomination or 0))
    return None


def _never_decreased(runner: CaseContext, step: Step) -> None:
    """461a.12(h): between readings a meter only goes down by a hit (and then to its reset)."""
    hit_meters = {str(e.payload.get("meter")) for e in runner.hits_seen}
    problems = []
    for a, b in zip(runner.timeline, runner.timeline[1:], strict=False):
        for meter, before in a.meters.items():
            after = b.meters.get(meter, before)
            if after < before and meter not in hit_meters:
                problems.append(f"{meter} {fmt(before)} -> {fmt(after)} without a hit")
    runner.measure(step, "meters never decreased without a hit", "; ".join(problems) or "none",
                 "none", not problems, detail=f"{len(runner.timeline)} readings")


def caps_in_force(runner: CaseContext) -> dict[str, Cents]:
    """Each meter's cap as the controller reads it back now: the lesser of its payout limit and
    display capacity (a limit written in the case, not only the one filed); a meter with neither is
    left out (the profile's cap then stands)."""
    ctrl = getattr(getattr(runner, "rig", None), "controller", None)
    config = getattr(ctrl.config(), "raw", None) if ctrl is not None else None
    out: dict[str, Cents] = {}
    for name, fields in ((config or {}).get("meters") or {}).items():
        if isinstance(fields, Mapping):
            caps = [c for c in (fields.get("payout_limit"), fields.get("display_capacity"))
                    if isinstance(c, int) and not isinstance(c, bool)]
            if caps:
                out[str(name)] = min(caps)
    return out


def _conservation(runner: CaseContext, step: Step, base_name: str, now: Any) -> None:
    """Contributions x rate == meter growth + residual growth, exactly, for meters not hit since the
    snapshot (a hit in any round of the window, not only the last: the mystery meter awards when its
    hidden trigger falls; mystery_play checks the arithmetic across an award)."""
    base = runner.snapshots[base_name]
    stakes = runner.stakes_since(base_name)
    hit_meters = runner.hit_since(base_name)
    caps = caps_in_force(runner)
    for name, settings in meter_settings(runner.profile, runner.rates_written).items():
        if name in hit_meters or name not in now.meters:
            continue
        got, want = contribution_check(settings.rate, stakes, base, now, name, caps.get(name, settings.cap))
        runner.measure(step, f"{name} contributions conserved (growth + residual)", f"{got} cents",
                     f"{want} cents", got == want, clause=getattr(step, "clause", None) or rate_clause(runner, name),
                     detail=f"{fmt(stakes)} wagered at {settings.rate}%")


@step("expect_lockout", Action(
    {"locked": Arg("bool", default=True),
     "within_ms": Arg("decimal", positive=True, why="no lock-out is measured within 0 ms: the case could never pass")},
    doc="the controller locked out wagering; `within_ms` (default: the profile's limit) bounds the "
    "latency from the first card out of the shoe, measured by the time-interval counter (armed before "
    "the deal) or else by host receive stamps, which never decide closer to the limit than the bench's "
    "jitter measured at the start of the run (an advisory, INCONCLUSIVE value then)",
))
def expect_lockout(runner: CaseContext, step: Step, locked: bool, within_ms: Decimal | None = None) -> None:
    ctrl = runner.controller()
    automatic = runner.interpretation("lockout-automatic") is not False
    if within_ms is not None or (runner.round.cards and automatic):
        limit = within_ms if within_ms is not None else lockout_limit(runner)
        runner.wait_for("first card out of the shoe", lambda: bool(runner.round.cards))
        def locked_event() -> bool:
            return any(e.name == "lockout" and e.payload.get("locked") for e in runner.round.ctrl_events)

        # a round that ended with no lock-out reported will never report one: that is the device's FAIL,
        # not a wait that ran out
        runner.wait_for("'lockout' event (or the round's end)",
                        lambda: locked_event() or any(e.name == "round_end" for e in runner.round.ctrl_events))
        runner.pump(0.01)
        if not locked_event():
            runner.measure(step, "'lockout' event (locked) after the first card, before the round ended", "none",
                           "a lockout event", False,
                           detail="the round's round_end came with no lockout event: wagering was never "
                                  "reported closed (docs/protocol.md section 8: lockout is sent as wagering closes)")
            return
        timing = lock_timing(runner)
        assert timing is not None  # a card is out and the lock-out event is in
        if timing.counter_ms is not None:
            ms = timing.counter_ms
            runner.measure(step, "lock-out latency after the first card (time-interval counter)", ms,
                           f"<= {limit}", ms <= limit, unit="ms",
                           detail=f"counter armed before the deal, channel 1 card out, channel 2 lock-out; host "
                                  f"receive stamps gave {timing.host_ms} ms (cause {timing.cause}), which "
                                  "include OS scheduling and serial buffering")
        elif timing.line_dead:
            runner.measure(step, "lock-out line edge after the first card (time-interval counter)", "none",
                           "an edge", False,
                           detail="the counter, armed before the deal, measured nothing before its timeout, yet it "
                                  "measured this lock-out line in an earlier round of the run: the line did not fall "
                                  "when wagering opened or did not rise at the lock-out (docs/protocol.md section 9); "
                                  f"host receive stamps gave {timing.host_ms} ms (cause {timing.cause})")
        else:
            why = ("the counter measured nothing (no edge on both channels before its measurement timeout: "
                   "check its levels and slopes)" if timing.counter_armed else "no time-interval counter")
            _host_stamped(runner, step, timing.host_ms, limit, f"{why}; lock-out cause {timing.cause}")
    state = ctrl.lockout_state()
    runner.measure(step, "lock-out state", "locked" if state else "open", "locked" if locked else "open",
                 state == locked)


def _host_stamped(runner: CaseContext, step: Step, latency: Decimal, limit: Decimal, why: str) -> None:
    """The latency by the host's receive stamps (each taken in its port's reading thread): OS
    scheduling and serial buffering included, so it decides only where it is farther from the limit
    than the jitter the bench showed at the start of the run; otherwise it is advisory."""
    name = "lock-out latency after the first card (host receive stamps)"
    jitter = runner.host_jitter_ms
    if jitter is None:
        runner.measure(step, name, latency, f"<= {limit}", latency <= limit, unit="ms", detail=why)
        return
    if latency + jitter <= limit or latency - jitter > limit:
        runner.measure(step, name, latency, f"<= {limit}", latency <= limit, unit="ms",
                       detail=f"{why}; decided: {latency} ms is more than the bench's host-stamp jitter "
                              f"({jitter} ms) away from the limit")
        return
    runner.measure(step, name, latency, f"<= {limit}", latency <= limit, unit="ms", advisory=True,
                   detail=f"{why}; ADVISORY, not a verdict: {latency} ms is within the bench's host-stamp "
                          f"jitter ({jitter} ms, measured at the start of the run) of the {limit} ms limit; "
                          "a time-interval counter decides")


#: how long ``expect_event`` waits for an event still on its way (s)
EVENT_WAIT_S = 0.05


@step("expect_event", Action(
    {"event": choice(*EVENTS, required=True), "match": Arg("map"), "absent": Arg("bool", default=False),
     "count": Arg("int"), "except": Arg("map"), "read_by_now": Arg("bool", default=False)},
    shorthand="event",
    doc="an event of the round (the shoe's or the controller's) with the fields of `match` (or, with "
    "`absent`, none; with `count`, exactly that many: an event reporting a change that happened once is "
    "sent once); events with the fields of `except` are left out (`except: {category: mystery}`: a "
    "mystery award, which the hidden trigger may bring in any round).  `read_by_now: true`: the event "
    "must already have been read, with no wait: a device's line is one ordered stream, so an event sent "
    "as soon as it happened (docs/protocol.md section 5) comes before any later answer on that line "
    "(put a read of the same device, `expect_answer`, between the act and this step)",
))
def expect_event(runner: CaseContext, step: Step, event: str, absent: bool, match: Mapping[str, Any] | None = None,
                 count: int | None = None, read_by_now: bool = False, **args: Any) -> None:
    # the shoe's events (card, misread, error) come on the shoe's line, the rest on the controller's
    want = dict(match or {})
    left_out = dict(args.get("except") or {})

    def pool() -> list[Any]:
        return runner.round.shoe_events if event in SHOE_EVENTS else runner.round.ctrl_events

    def fits(e: Any, fields: Mapping[str, Any]) -> bool:
        # each field as sent: one outside the contract (an OffContract payload, which raises on
        # reading it) fits no value the step asks for, a FAIL of this step rather than its ERROR
        return all(str(as_sent(e.payload, k)) == str(v) for k, v in fields.items())

    def ok(e: Any) -> bool:
        return e.name == event and fits(e, want) and not (left_out and fits(e, left_out))

    # An absence or an exact count waits for the device's next event or EVENT_WAIT_S.  An event sought
    # ends the wait when it is there, and may take as long as the profile gives a device to answer
    # (timing.response_timeout_ms): no clause times an event's report (the lock-out itself is timed
    # by its own steps), and a report made after an act on a bench, or on a loaded host, can trail it
    if read_by_now:
        runner.pump(0.0)  # what the line has already brought in, no more
    elif absent or count is not None:
        runner.pump(EVENT_WAIT_S)
    else:
        end = time.monotonic() + max(EVENT_WAIT_S, float(runner.profile.timing.response_timeout_ms) / 1000)
        runner.pump(0.0)
        while not any(ok(e) for e in pool()) and time.monotonic() < end:
            runner.pump(min(0.005, max(0.0, end - time.monotonic())))
    found = [e for e in pool() if ok(e)]
    desc = f"'{event}' event" + (f" with {want}" if want else "") + (f" other than {left_out}" if left_out else "")
    if absent:
        runner.measure(step, f"no {desc}", len(found), 0, not found, unit="events")
    elif count is not None:
        runner.measure(step, f"{desc}: exactly {count}", len(found), count, len(found) == count, unit="events",
                       detail="; ".join(f"{e.name} {e.payload}" for e in found[:6]))
    else:
        off = [str(err) for e in pool() if e.name == event
               for k, err in getattr(e.payload, "broken", {}).items() if k in want]
        runner.measure(step, desc + (", read before the device's last answer" if read_by_now else ""), len(found),
                       ">= 1", bool(found), unit="events",
                       detail="; ".join([f"{e.name} {dict(e.payload)}" for e in pool()[-6:]] + off[:2]))


@step("expect_identity", Action({"fields": Arg("str-list")}, doc="every 607a.2(b) identity field present"))
def expect_identity(runner: CaseContext, step: Step, fields: tuple[str, ...] | None = None) -> None:
    for role in IDENTITY_ROLES:
        dev = getattr(runner.rig, role)
        if dev is None:
            continue
        ident = dev.identity()
        missing = ident.missing(progressive=role == "controller")
        if runner.interpretation("id-fields-from-device") == "manufacturer-fields":
            missing = [m for m in missing if m != "location"]  # the operator files where it stands
        broken = ident.not_text()
        if fields:
            missing = [f for f in fields if getattr(ident, f, None) is None]
            broken = [f for f in broken if f in fields]
        # a field is present as the text the master list records, without a control character in it
        missing += [f"{f} (a control character or padding in {getattr(ident, f)!r})" for f in broken]
        runner.measure(step, f"{role} identity fields (607a.2(b))", ", ".join(missing) or "all present",
                     "all present", not missing)


@step("expect_config", Action({"matches": choice("profile", default="profile")},
                        doc="configuration read back equals the profile's Rules Submission: denomination, "
                        "seats and combinations, each meter's rate, initial and reset amounts, and its payout "
                        "limit and display capacity where the profile files them"))
def expect_config(runner: CaseContext, step: Step, matches: str) -> None:
    cfg = runner.controller().config()
    rules = runner.profile.rules
    if rules.denomination is not None:
        runner.measure(step, "denomination", cfg.denomination, rules.denomination * 100,
                     cfg.denomination == rules.denomination * 100, unit="cents")
    want_seats = {s.seat: s.combo.codes() if s.combo else None for s in rules.seats}
    got_seats = {s.seat: tuple(s.combo) if s.combo else None for s in cfg.seats}
    runner.measure(step, "seats and personal combinations", got_seats, want_seats, got_seats == want_seats)
    for name, m in rules.meters.items():
        got = cfg.meters.get(name)
        want = (m.rate, m.initial, m.reset)
        have = (got.rate, got.initial, got.reset) if got else None
        runner.measure(step, f"{name} rate/initial/reset", have, want, have == want)
        # 461a.12(j), (k)(1): the payout limit and display capacity read back are the filed ones too
        for limit in ("payout_limit", "display_capacity"):
            filed = getattr(m, limit)
            if filed is not None:
                shown = getattr(got, limit) if got else None
                runner.measure(step, f"{name} {limit.replace('_', ' ')}", shown, filed, shown == filed, unit="cents")


@step("expect_mystery", Action(
    {"within_range": Arg("bool", default=True)},
    doc="the mystery meter is within [reseed, must-hit-by] and never passed must-hit-by",
))
def expect_mystery(runner: CaseContext, step: Step, within_range: bool) -> None:
    rules = runner.profile.rules
    if rules.mystery is None:
        raise AssertionError("the profile declares no mystery progressive")
    now = runner.read_meters()
    lo, hi = rules.mystery.reseed, rules.mystery.must_hit_by
    readings = [r.meters.get("mystery") for r in runner.timeline if "mystery" in r.meters]
    bad = [v for v in readings if v is not None and not lo <= v <= hi]
    runner.measure(step, "mystery meter within [reseed, must-hit-by]",
                 fmt(now.meters["mystery"]) if "mystery" in now.meters else None,
                 f"{fmt(lo)}..{fmt(hi)}", not bad and "mystery" in now.meters,
                 detail=f"{len(readings)} readings; outside: {', '.join(map(fmt, bad)) or 'none'}")


@step("expect_meter_hits", Action(
    {"oracle": Arg("bool", required=True)},
    shorthand="oracle",
    doc="the meters the controller reported hit in the round are exactly those the oracle's awards "
    "take (a mega hand hits no major or minor unless the interpretations in force say so)",
))
def expect_meter_hits(runner: CaseContext, step: Step, oracle: bool) -> None:
    ensure_settled(runner, step)
    runner.pump(0.02)
    exp = expected_round(runner)
    want = sorted({m for p in exp.payouts.values() for m in p.meters})
    got = sorted({str(e.payload["meter"]) for e in runner.round.ctrl_events
                  if e.name == "hit" and e.payload.get("meter") and e.payload.get("meter") != "mystery"})
    runner.measure(step, "meters hit in the round", ", ".join(got) or "none", ", ".join(want) or "none",
                   got == want, detail="the oracle's awards under the interpretations in force")
