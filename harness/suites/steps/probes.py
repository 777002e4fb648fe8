"""Probes that cover: every seat, every wager type, every meter, every round, and the trace a
refusal leaves.

A device built apart from the shipped emulator passed suites that tried a prohibited act at some
seats, with some wager types, on some rounds.  These steps try it everywhere it could happen and
look behind the answer:

- ``expect_wagering_closed``: once wagering is closed (the lock-out, the button, "no more bets"),
  a wager at every seat of the table with every wager type its Rules Submission offers, side
  wagers included, and an increase of every standing wager are refused, no standing wager can be
  withdrawn, and the attempts leave no trace: the wagering system lists exactly the wagers accepted
  before, and no meter, fraction of a cent or payout meter moved (627a.7(c), 629a.7(c), 631a.8(c);
  629a Royal 9 (a)(2));
- ``expect_royal9_base_kept``: at every seat where a Royal 9 wager stands on a base wager, the base
  wager cannot be withdrawn from under it (629a Royal 9 (b): the option is offered to a player who
  placed a Midibaccarat wager);
- ``expect_idle_reset_key``: the reset key of every meter turned with no hit pending changes no
  meter, fraction of a cent or payout meter (461a.12(b)(5), (h));
- ``expect_lockout_rounds``: the lock-out latency of every round the case dealt, bulk rounds
  included, judged over all of them: the worst round, and the count of rounds over the limit
  (629a Royal 9 (a)(2); harness.suites.run.timing).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from harness.bench.acts import PlaceWagers, Removal, RemoveWager, TurnResetKey
from harness.devices.link import DeviceNak
from harness.devices.roles import MeterReading, Wager
from harness.errors import DeviceError
from harness.money import Cents, fmt
from harness.record.model import ROUND_LATENCIES
from harness.suites.load.model import Step
from harness.suites.run.context import WAGER_LIST, citing_also
from harness.suites.run.timing import decided, lockout_limit
from harness.suites.steps.core import WAGER_TYPES, power
from harness.suites.steps.games import offered_types
from harness.suites.steps.permitted import refusal_permitted, write_clause
from harness.suites.steps.registry import Action, Arg, step

if TYPE_CHECKING:
    from harness.suites.run.context import CaseContext

#: the Midibaccarat wagers of 629a.7(b) that open the Royal 9 option
BASE_TYPES = ("player", "banker", "tie")
_QUALIFYING = ("royal9", "hit-and-run")


def trace(before: MeterReading, now: MeterReading, skip: set[str] | None = None) -> list[str]:
    """Every meter, fraction of a cent and payout meter that differs between two readings."""
    out = []
    for meter in sorted(set(before.meters) | set(now.meters)):
        if meter in (skip or set()):
            continue
        a, b = before.meters.get(meter), now.meters.get(meter)
        if a != b:
            out.append(f"{meter} {fmt(a) if a is not None else 'absent'} -> {fmt(b) if b is not None else 'absent'}")
        ra, rb = before.residual.get(meter, Decimal(0)), now.residual.get(meter, Decimal(0))
        if ra != rb:
            out.append(f"{meter} residual {ra} -> {rb} c")
    for label, a, b in (("cumulative paid", before.cumulative_paid, now.cumulative_paid),
                        ("paid by table", before.paid_by_table, now.paid_by_table),
                        ("paid by attendant", before.paid_by_attendant, now.paid_by_attendant)):
        if a != b:
            out.append(f"{label} {fmt(a)} -> {fmt(b)}")
    return out


def _show(wagers: dict[tuple[int, str], Cents]) -> str:
    return ", ".join(f"{s}/{k} {fmt(a)}" for (s, k), a in sorted(wagers.items())) or "none"


def _settled(runner: CaseContext) -> bool:
    runner.pump()
    return any(e.name == "round_end" for e in runner.round.ctrl_events)


@step("expect_wagering_closed", Action(
    {"seats": Arg("seats", default="all"), "types": Arg("str-list"), "reason": Arg("str"),
     "withdraw": Arg("bool", default=True)},
    doc="once wagering is closed: a wager at every listed seat (default: every seat of the table) with "
    "every wager type the Rules Submission offers (`types` to name some), side wagers included, and an "
    "increase of every standing wager are refused (`reason`: as stated; a Royal 9 wager may also be "
    "refused for want of a base wager), no standing wager can be withdrawn (`withdraw`), and the attempts "
    "leave no trace: the wagering system lists exactly the wagers accepted before, and no meter, fraction "
    "of a cent or payout meter moved",
    acts=("wager", "remove-wager"),
))
def expect_wagering_closed(runner: CaseContext, step: Step, seats: Any, withdraw: bool,
                           types: tuple[str, ...] | None = None, reason: str | None = None) -> None:
    sensors = runner.rig.sensors
    if sensors is None:
        raise DeviceError("this case needs bet sensors and the profile has none")
    kinds = list(types) if types else list(offered_types(runner.profile))
    unknown = [k for k in kinds if k not in WAGER_TYPES]
    if unknown:
        raise AssertionError(f"expect_wagering_closed: unknown wager types {', '.join(unknown)}")
    seat_list = runner.seats_of(seats)
    before = runner.read_meters()
    standing = dict(runner.round.wagers)
    stake = runner.stake_default
    batch = tuple(Wager(seat, kind, stake if kind in _QUALIFYING else standing.get((seat, kind), 0) + stake)
                  for seat in seat_list for kind in kinds)
    results = runner.perform(PlaceWagers(batch, probe=True))
    accepted, wrong = [], []
    for w, res in zip(batch, results, strict=True):
        runner.round.results.append(res)
        if res.accepted:
            accepted.append(f"seat {w.seat} {w.type} {fmt(w.amount)}"
                            + (" (an increase)" if (w.seat, w.type) in standing else ""))
            runner.round.wagers[(w.seat, w.type)] = w.amount
        elif reason is not None and res.reason != reason and not (w.type == "royal9"
                                                                   and res.reason == "no-base-wager"):
            wrong.append(f"seat {w.seat} {w.type}: {res.reason}")
    runner.measure(step, f"wagers and increases accepted after wagering closed ({len(seat_list)} seat(s) x "
                   f"{len(kinds)} wager type(s): {', '.join(kinds)})", "; ".join(accepted) or "none", "none",
                   not accepted, detail=f"{len(batch)} attempts; standing before: {_show(standing)}")
    if reason is not None:
        runner.measure(step, f"every refusal gives the reason {reason}", "; ".join(wrong) or "all", "all",
                       not wrong)
    if withdraw:
        removed = []
        for (seat, kind) in sorted(standing):
            try:
                got: Removal = runner.perform(RemoveWager(seat, kind))
            except DeviceNak as exc:
                got = Removal(False, exc.reason)
            if got.removed:
                removed.append(f"seat {seat} {kind}")
                runner.round.wagers.pop((seat, kind), None)
        runner.measure(step, "standing wagers withdrawn after wagering closed", "; ".join(removed) or "none",
                       "none", not removed, detail=f"{len(standing)} standing wager(s) tried")
    now = runner.read_meters()
    listed = {(w.seat, w.type): w.amount for w in sensors.wagers()}
    if _settled(runner):
        # the round settled meanwhile: the layout is cleared and its hits may move meters; what is
        # left to see is that no refused attempt was paid
        paid = {(int(e.payload["seat"]), str(e.payload["type"])) for e in runner.round.ctrl_events
                if e.name == "payout"}
        ghosts = sorted(paid - set(runner.round.wagers))
        runner.measure(step, "no refused attempt settled (the round settled during the probe)",
                       ", ".join(f"{s}/{k}" for s, k in ghosts) or "none", "none", not ghosts)
        return
    runner.measure(step, "wagers listed by the wagering system after the attempts", _show(listed),
                   _show(runner.round.wagers), listed == runner.round.wagers,
                   detail="exactly the wagers accepted: a refused attempt is not on the layout",
                   clause=citing_also(runner, step, WAGER_LIST))
    moved = trace(before, now)
    runner.measure(step, "meters, fractions of a cent and payout meters unmoved by the refused attempts",
                   "; ".join(moved) or "unchanged", "unchanged", not moved or bool(accepted),
                   detail="a refused wager is never counted into the meters" if not accepted else
                   "wagers were accepted: their contributions are the accepted ones'")


@step("expect_royal9_base_kept", Action(
    {"seats": Arg("seats", default="all")},
    doc="629a Royal 9 (b): at every listed seat where a Royal 9 wager stands on base wagers, each base "
    "wager is withdrawn in turn: the last one must stay (or the Royal 9 wager go with it), so no Royal 9 "
    "wager is left on the layout without a Player, Banker or Tie wager at its seat; the case's wagers "
    "follow what the wagering system then lists",
    acts=("remove-wager",),
))
def expect_royal9_base_kept(runner: CaseContext, step: Step, seats: Any) -> None:
    sensors = runner.rig.sensors
    if sensors is None:
        raise DeviceError("this case needs bet sensors and the profile has none")
    seat_list = runner.seats_of(seats)
    probed = [s for s in seat_list if (s, "royal9") in runner.round.wagers
              and any((s, b) in runner.round.wagers for b in BASE_TYPES)]
    runner.measure(step, "seats with a Royal 9 wager on a base wager to probe", len(probed), len(seat_list),
                   len(probed) == len(seat_list), unit="seats")
    outcomes = []
    for seat in probed:
        for base in [b for b in BASE_TYPES if (seat, b) in runner.round.wagers]:
            try:
                got: Removal = runner.perform(RemoveWager(seat, base))
            except DeviceNak as exc:
                got = Removal(False, exc.reason)
            outcomes.append(f"seat {seat} {base}: " + ("withdrawn" if got.removed else f"refused ({got.reason})"))
    listed = {(w.seat, w.type): w.amount for w in sensors.wagers()}
    for key in [k for k in runner.round.wagers if k[0] in probed and k not in listed]:
        del runner.round.wagers[key]  # withdrawn (a Royal 9 wager with its base, where the device does so)
    alone = [s for s in probed if (s, "royal9") in listed and not any((s, b) in listed for b in BASE_TYPES)]
    runner.measure(step, "Royal 9 wagers left without a base wager at their seat", ", ".join(map(str, alone))
                   or "none", "none", not alone, detail="; ".join(outcomes))


@step("expect_idle_reset_key", Action(
    {"meters": Arg("meters")},
    doc="461a.12(b)(5), (h): with no hit pending, the reset key of every listed meter (default: every "
    "meter of the Rules Submission) is turned; the controller may refuse it or do nothing, and no meter, "
    "fraction of a cent or payout meter moves",
    acts=("reset-key",),
))
def expect_idle_reset_key(runner: CaseContext, step: Step, meters: tuple[str, ...] | None = None) -> None:
    rules = runner.profile.rules
    declared = list(rules.meters) + (["hit-and-run"] if rules.hit_and_run is not None else [])
    names = declared if meters in (None, ("all",)) else list(meters or ())
    before = runner.read_meters()
    # a hit the controller announced in the case's own rounds may wait for its key (a mystery award
    # triggers in any qualifying round, 629a Royal 9 (h)): its meter is left out of the probe; a
    # payment waiting with no hit announced is what the reset key must never be turned over
    announced = {str(e.payload.get("meter")) for e in runner.hits_seen}
    unexplained = [m for m in before.pending if m not in announced]
    runner.measure(step, "no hit waiting for the reset key before the keys are turned, but hits the controller "
                   "announced", ", ".join(unexplained) or "none", "none", not unexplained,
                   detail=f"announced and waiting: {', '.join(m for m in before.pending if m in announced) or 'none'}")
    answers, other = [], []
    runner.pump()
    mark = len(runner.round.ctrl_events)
    for name in [n for n in names if n not in before.pending]:
        try:
            runner.perform(TurnResetKey(name, probe=True))
            answers.append(f"{name}: answered")
        except DeviceNak as exc:
            answers.append(f"{name}: refused {exc.code} ({exc.reason})")
            if exc.code != "REFUSED":
                other.append(f"{name}: {exc.code}")
    # docs/protocol.md, section 7: reset_key answers the meter or NAK REFUSED; another code (BUSY, an
    # internal error) is the device failing the request, not declining it
    runner.measure(step, "reset keys with nothing pending answered or refused with REFUSED",
                   "; ".join(other) or "no other answer", "no other answer", not other, detail="; ".join(answers))
    runner.pump(0.01)
    now = runner.read_meters()
    moved = trace(before, now)
    runner.measure(step, f"reset keys turned with nothing pending ({', '.join(names)}): meters, fractions of a "
                   "cent and payout meters unchanged", "; ".join(moved) or "unchanged", "unchanged", not moved,
                   detail="; ".join(answers))
    resets = [str(e.payload.get("meter")) for e in runner.round.ctrl_events[mark:] if e.name == "reset"]
    runner.measure(step, "no reset announced for a meter with nothing pending", ", ".join(resets) or "none",
                   "none", not resets)


@step("expect_lockout_rounds", Action(
    {"within_ms": Arg("decimal")},
    doc="629a Royal 9 (a)(2): the lock-out latency of every round dealt in the case so far (scripted deals "
    "and bulk `rounds` alike, each timed from its first card by the counter armed before the deal, or else "
    "by host receive stamps), judged over all of them: the worst round within `within_ms` (default: the "
    "profile's limit) and no round over it or without a lock-out; a host-stamped round within the bench's "
    "jitter of the limit decides nothing (INCONCLUSIVE)",
))
def expect_lockout_rounds(runner: CaseContext, step: Step, within_ms: Decimal | None = None) -> None:
    limit = within_ms if within_ms is not None else lockout_limit(runner)
    jitter = runner.host_jitter_ms
    rounds = runner.lock_rounds
    if runner.interpretation("lockout-automatic") is False:
        runner.measure(step, "lock-out latency of every round", "not timed: the lock-out is the dealer's button "
                       "(lockout-automatic false), pressed before the first card", "timed where the first card "
                       "locks out", True)
        return
    if not rounds:
        runner.measure(step, "rounds dealt and timed in the case", 0, ">= 1", False, unit="rounds",
                       detail="no round dealt with an automatic lock-out to time")
        return
    missing = [r for r in rounds if r.ms is None]
    timed = [(r, r.ms) for r in rounds if r.ms is not None]
    over = [(r, ms) for r, ms in timed if ms > limit and decided(ms, limit, jitter, r.by_counter)]
    unsure = [(r, ms) for r, ms in timed if not decided(ms, limit, jitter, r.by_counter)]
    counted = sum(1 for r, _ in timed if r.by_counter)
    how = f"{counted} by the time-interval counter, {len(timed) - counted} by host receive stamps"
    shown = [f"round {r.n} {ms} ms{'' if r.by_counter else ' (host)'}" for r, ms in over]
    shown += [f"round {r.n}: " + ("no edge on the lock-out line (the counter measured it in an earlier round)"
                                  if r.timing is not None and r.timing.line_dead else "no lock-out") for r in missing]
    runner.measure(step, f"rounds locked out later than {limit} ms, or not at all, of {len(rounds)} dealt",
                   len(over) + len(missing), 0, not over and not missing, unit="rounds",
                   detail=f"{how}; " + ("; ".join(shown) or "none")
                   + (f"; within the bench's jitter ({jitter} ms) of the limit: "
                      + ", ".join(f"round {r.n} {ms} ms" for r, ms in unsure) if unsure else ""))
    runner.measure(step, ROUND_LATENCIES,
                   [[r.n, r.ms, "counter" if r.by_counter else "host"] for r in rounds], f"<= {limit}",
                   not over and not missing, unit="ms", detail="every round of the case: its number, its "
                   "latency (null: no lock-out) and what timed it")
    if not timed:
        return
    worst_round, worst = max(timed, key=lambda t: t[1])
    worst_unsure = any(r is worst_round for r, _ in unsure)
    runner.measure(step, f"worst lock-out latency after the first card over {len(timed)} rounds", worst,
                   f"<= {limit}", worst <= limit, unit="ms", advisory=worst_unsure and not over and not missing,
                   detail=f"round {worst_round.n} of the case; {how}"
                   + (f"; ADVISORY: within the bench's host-stamp jitter ({jitter} ms) of the limit"
                      if worst_unsure else ""))


# --------------------------------------------------------------------------- table parameters

#: the table parameters ``config.set`` takes besides the meters, seats and mystery (docs/protocol.md,
#: section 8): each probed alone by ``expect_table_writes``
TABLE_FIELDS = ("decks", "commission", "hit_soft17")


def other_value(field: str, value: Any) -> Any:
    """A value of ``field`` other than ``value``, within the contract's range."""
    if field == "decks":
        return value + 1 if value < 16 else value - 1
    if field == "commission":
        return str(Decimal(str(value)) + 1)
    return not value


def _other_denomination(cents: int) -> int:
    """A Royal 9 denomination other than ``cents``: $1, or $5 on a $1 table."""
    return 100 if cents != 100 else 500


def table_writes(raw: Mapping[str, Any]) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(field, the write of another value, the write of the value before) for each table parameter
    (:data:`TABLE_FIELDS`) and the denomination that a configuration read back (``config.get``)
    holds: the writes every sweep of the configuration's fields begins with."""
    out = []
    for name in TABLE_FIELDS:
        if raw.get(name) is not None:
            out.append((name, {name: other_value(name, raw[name])}, {name: raw[name]}))
    if isinstance(raw.get("denomination"), int):
        den = raw["denomination"]
        out.append(("denomination", {"denomination": _other_denomination(den)}, {"denomination": den}))
    return out


def _same(field: str, a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    return Decimal(str(a)) == Decimal(str(b)) if field == "commission" else a == b


def _shown(runner: CaseContext, field: str) -> list[str]:
    """The meters showing an amount, where the profile's ``config_writes`` for ``field`` depends on them."""
    if runner.profile.writes(field) != "no-amount-shown":
        return []
    return [m for m, cents in runner.read_meters().meters.items() if cents > 0]


@step("expect_table_writes", Action(
    {"fields": Arg("str-list")},
    doc="461a.12(i), docs/protocol.md section 8: with no round open, each table parameter `config.get` "
    "reports (decks, commission, hit_soft17; or `fields`) is written alone with another value and then "
    "with the value it had.  Which values a controller takes is its own where its profile leaves it "
    "(`config_writes`): a refusal (REFUSED or BAD_ARGS) then passes if it changed nothing, and a "
    "refusal of a field the profile declares `between-rounds` is a FAIL; a write it accepts must read "
    "back as written, and the value before must be accepted back and read back.  A parameter "
    "config.get does not report is not written",
))
def expect_table_writes(runner: CaseContext, step: Step, fields: tuple[str, ...] | None = None) -> None:
    ctrl = runner.controller()
    for field in fields or TABLE_FIELDS:
        if field not in TABLE_FIELDS:
            raise AssertionError(f"expect_table_writes: {field!r} is not one of {', '.join(TABLE_FIELDS)}")
        before = ctrl.config().raw.get(field)
        if before is None:
            runner.measure(step, f"{field}: reported by config.get", "not reported: not written",
                           "reported, or not configurable", True)
            continue
        for label, value in (("another value", other_value(field, before)), ("the value before", before)):
            try:
                ctrl.set_config(**{field: value})
                got = "accepted"
            except DeviceNak as exc:
                got = f"refused ({exc.code}: {exc.reason})"
            have = ctrl.config().raw.get(field)
            if got == "accepted":
                ok, want = _same(field, have, value), f"{value!r} (accepted: as written)"
            elif label == "another value":
                # the device's choice, unless its profile says it takes the field now (config_writes)
                free = refusal_permitted(runner.profile, field, _shown(runner, field))
                ok = free is not None and _same(field, have, before)
                want = (f"{before!r} (refused: unchanged; {free})" if free is not None else
                        f"{value!r}, taken (config_writes: {field}: {runner.profile.writes(field)}: a refusal "
                        "between rounds is a FAIL)")
            else:
                ok, want = False, f"{before!r}, accepted"
            runner.measure(step, f"{field} write of {label} ({value!r}): {got}, read back", repr(have), want, ok,
                           clause=write_clause(runner, step, ok=ok, taken=got == "accepted", why=got))


@step("expect_table_writes_kept", Action(
    {"fields": Arg("str-list")},
    doc="docs/protocol.md sections 6.4 and 8 (the configuration is kept in non-volatile storage and "
    "survives a power loss exactly): with no round open, each table parameter `config.get` reports "
    "(decks, commission, hit_soft17; or `fields`) is written with another value; the power is cut and "
    "restored (as `power: off`, `power: on`); each write the controller took reads back as written; "
    "then the values before are written back.  A write refused is the controller's own choice here "
    "(`expect_table_writes` judges refusals) and has nothing to keep",
    acts=("power",),
))
def expect_table_writes_kept(runner: CaseContext, step: Step, fields: tuple[str, ...] | None = None) -> None:
    ctrl = runner.controller()
    taken: dict[str, tuple[Any, Any]] = {}
    for field in fields or TABLE_FIELDS:
        if field not in TABLE_FIELDS:
            raise AssertionError(f"expect_table_writes_kept: {field!r} is not one of {', '.join(TABLE_FIELDS)}")
        before = ctrl.config().raw.get(field)
        if before is None:
            continue
        value = other_value(field, before)
        try:
            ctrl.set_config(**{field: value})
            taken[field] = (before, value)
        except DeviceNak as exc:
            runner.measure(step, f"{field} write of another value ({value!r})", f"refused ({exc.code})",
                           "accepted, or refused (the controller's choice: nothing to keep)", True)
    if not taken:
        runner.measure(step, "table parameters written before the power cycle", "none taken", "any", True,
                       detail="no write taken: nothing to keep across a power loss")
        return
    power(runner, step, "off")
    power(runner, step, "on")
    ctrl = runner.controller()
    after = ctrl.config().raw
    for field, (_before, value) in taken.items():
        have = after.get(field)
        runner.measure(step, f"{field} written {value!r} before a power cycle, read back after it", repr(have),
                       repr(value), _same(field, have, value))
    for field, (before, _value) in taken.items():
        try:
            ctrl.set_config(**{field: before})
            got = "accepted"
        except DeviceNak as exc:
            got = f"refused ({exc.code}: {exc.reason})"
        runner.measure(step, f"{field} written back to the value before ({before!r})", got, "accepted",
                       got == "accepted")


# --------------------------------------------------------------------------- the lock-out reported


@step("expect_lockout_reported_before_card", Action(
    {"card": Arg("int", default=2, lo=2)},
    shorthand="card",
    doc="629a Royal 9 (a)(2), docs/protocol.md section 6 (`lockout` is sent as wagering closes): after "
    "`deal: {settle: false}` at a slow pace, with nothing asked of the controller, its `lockout` event "
    "(locked) arrives before the shoe's card number `card` (host receive stamps; the pace is the margin).  "
    "A controller that applies and reports its lock-out only when something polls it (a wager, "
    "`lockout.get`) or at settlement reports a closure late that its line shows on time",
))
def expect_lockout_reported_before_card(runner: CaseContext, step: Step, card: int = 2) -> None:
    def locked() -> list[Any]:
        return [e for e in runner.round.ctrl_events if e.name == "lockout" and e.payload.get("locked")]

    runner.wait_for(f"card {card} out of the shoe", lambda: len(runner.round.cards) >= card)
    runner.pump(0.01)
    t_card = runner.round.cards[card - 1][1]
    first = locked()[0] if locked() else None
    shown = "none" if first is None else f"{(first.t_ns - t_card) / 1e6:+.3f} ms from card {card}"
    runner.measure(step, f"'lockout' event (locked) received before card {card} of the deal", shown,
                   f"before card {card}", first is not None and first.t_ns < t_card,
                   detail=f"card 1 at 0, card {card} at {(t_card - runner.round.cards[0][1]) / 1e6:.3f} ms "
                          "(host receive stamps)")
