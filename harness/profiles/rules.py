"""The Rules Submission section of a profile: denomination, seats and combinations, meters.

The checks are the regulation's, each error positioned at the node that breaks it:

* Royal 9 denomination $5 or $1, with initial and reset amounts at or above the floors of
  Royal 9 (f)(2) ($50,000 / $450 / $450) and (g)(2) ($10,000 / $90 / $90);
* at most nine seats (Wash. Admin. Code 230-15-040(2), ``wa-230-15-040-nine-areas``), each seat
  1-9 once;
* every seat of a Royal 9 table has a personal combination, a king and a nine, unique across seats
  (Royal 9 (e)(5): "each player position has a unique combination"); with
  ``r9-personal-combo-suited: false`` any king with any nine is the same combination, so such a
  table has a single seat;
* a payout limit above the initial and reset amounts (461a.12(k)(1)) and within the display
  capacity (461a.12(j));
* the mystery configuration is one of (h)'s three rows;
* Hit and Run (633a.13(l)): decks, the dealer's soft-17 rule and the progressive meter.
* the Mini-Baccarat three-consecutive-games wager (Wash. Admin. Code 230-15-040(8)(b)): required
  with the streak3 capability, refused without it; the regulation states no odds, so ``pays`` is
  the Rules Submission's (``"7 to 1"``, ``"8 for 1"``), and a win must pay more than the stake.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from types import MappingProxyType
from typing import Any

from harness.cards import Combo
from harness.errors import InputError
from harness.games.payouts import parse_pay
from harness.money import Cents, fmt
from harness.profiles import known_values
from harness.profiles.model import (
    CommonMeter,
    HitAndRunSettings,
    MeterSettings,
    MysterySettings,
    RulesSubmission,
    SeatSettings,
    Streak3Settings,
)
from harness.progressive.floors import FLOOR_CLAUSES
from harness.schema import Fields, attempt, check_card, check_list, check_map, guard, report
from harness.yamlload import Loc, error_at

MAX_SEATS = 9
NINE_AREAS = "wa-230-15-040-nine-areas"
R9_METERS = ("mega", "major", "minor")
BACCARAT_GAMES = ("minibaccarat", "midibaccarat", "baccarat", "ez-baccarat")
_METER_KEYS = ("rate", "initial", "reset", "payout_limit", "display_capacity")


def parse_meter(
    f: Fields, name: str, floors: dict[str, Cents] | None = None, floor_note: str = ""
) -> MeterSettings:
    """One meter; ``floors`` (by meter name) refuses initial/reset amounts below the regulation's."""
    rate = f.get_rate("rate")
    if rate <= 0:
        raise f.error("rate", f"{rate}%: a progressive meter must progress (rate above 0%)")
    initial = f.get_amount("initial")
    reset = f.get_amount("reset", initial)
    limit = f.get_amount("payout_limit", None)
    capacity = f.get_amount("display_capacity", None)
    floor = (floors or {}).get(name)
    for key, amount in (("initial", initial), ("reset", reset)):
        if floor is not None and amount < floor:
            raise f.error(key, f"{fmt(amount)} is below the {fmt(floor)} floor {floor_note}")
        if capacity is not None and amount > capacity:
            raise f.error(key, f"{fmt(amount)} exceeds the display capacity {fmt(capacity)} (461a.12(j))")
    if limit is not None:
        for label, amount in (("initial", initial), ("reset", reset)):
            if limit <= amount:
                raise f.error(
                    "payout_limit",
                    f"{fmt(limit)} must be greater than the {label} amount {fmt(amount)} (461a.12(k)(1))",
                )
        if capacity is not None and limit > capacity:
            raise f.error(
                "payout_limit", f"{fmt(limit)} exceeds the display capacity {fmt(capacity)} (461a.12(j))"
            )
    return MeterSettings(name, rate, initial, reset, limit, capacity)


def parse_linked_meter(f: Fields, name: str, common: Mapping[str, CommonMeter], floors: dict[str, Cents] | None,
                       floor_note: str) -> MeterSettings:
    """A table's meter on a common meter of its link (``{link: mega-5, rate: "1.25%"}``): the rate
    the table files, the common meter's amounts, held to this table's floors."""
    target = f.get_enum("link", list(common))
    rate = f.get_rate("rate")
    if rate <= 0:
        raise f.error("rate", f"{rate}%: a progressive meter must progress (rate above 0%)")
    meter = common[target]
    floor = (floors or {}).get(name)
    for label, amount in (("initial", meter.initial), ("reset", meter.reset)):
        if floor is not None and amount < floor:
            raise f.error("link", f"the common meter {target} {label} amount {fmt(amount)} is below the "
                                  f"{fmt(floor)} floor {floor_note}")
    return MeterSettings(name, rate, meter.initial, meter.reset, meter.payout_limit, meter.display_capacity)


def _combo(value: Any, loc: Loc, what: str) -> tuple[Combo, list[Loc]]:
    combo = check_list(value, loc, what)
    if len(combo) != 2:
        raise loc.error(f"{what}: a personal combination is exactly two cards, a king and a nine "
                        f"(e.g. [KS, 9H]); got {len(combo)}")
    cards = [check_card(item, c_loc, what) for _i, item, c_loc in combo.enumerate_locs()]
    locs = [c_loc for _i, _item, c_loc in combo.enumerate_locs()]
    ranks = sorted(c.rank for c in cards)
    if ranks != [9, 13]:
        bad = next((i for i, c in enumerate(cards) if c.rank not in (9, 13)), 1)
        raise locs[bad].error(f"{what}: {cards[0].code} {cards[1].code} is not a king and a nine "
                              "(a personal combination is a king and a nine, Royal 9 (e)(5))")
    king, nine = (cards[0], cards[1]) if cards[0].rank == 13 else (cards[1], cards[0])
    return Combo(king, nine), locs


def parse_seats(value: Any, loc: Loc, *, royal9: bool, suited: bool) -> tuple[SeatSettings, ...]:
    seats_node = check_list(value, loc, "rules.seats")
    if len(seats_node) > MAX_SEATS:
        raise seats_node.loc(MAX_SEATS).error(
            f"rules.seats: {len(seats_node)} seats; at most nine wagering areas ({NINE_AREAS})"
        )
    if not seats_node:
        raise loc.error("rules.seats: at least one seat")
    out: list[SeatSettings] = []
    seen_seat: dict[int, int] = {}
    seen_combo: dict[Any, tuple[int, int]] = {}
    for i, item, i_loc in seats_node.enumerate_locs():
        with guard():
            out.append(_seat(i, item, i_loc, royal9=royal9, suited=suited, seen_seat=seen_seat,
                             seen_combo=seen_combo))
    return tuple(out)


def _seat(i: int, item: Any, i_loc: Loc, *, royal9: bool, suited: bool, seen_seat: dict[int, int],
          seen_combo: dict[Any, tuple[int, int]]) -> SeatSettings:
    what = f"rules.seats[{i + 1}]"
    f = Fields(item, i_loc, what, required=("seat",), optional=("combo",))
    if royal9 and "combo" not in f:
        one = "" if suited else ("; with r9-personal-combo-suited: false any king with any nine is one "
                                 "combination, so such a Royal 9 table has a single seat")
        report(error_at(i_loc, f"{what}: missing key 'combo': each player position has a personal combination "
                               f"of its own (58 Pa. Code 629a Royal 9 (e)(5)){one}"))
    seat = f.get_int("seat", lo=1, hi=MAX_SEATS)
    if seat in seen_seat:
        raise f.error("seat", f"seat {seat} is listed twice (first at line {seen_seat[seat]})")
    seen_seat[seat] = f.loc("seat").pos.line
    combo: Combo | None = None
    if "combo" in f:
        if not royal9:
            raise f.error("combo", "personal combinations belong to the Royal 9: add royal9 to "
                                   "capabilities or remove the combo")
        combo, _locs = _combo(f.raw("combo"), f.loc("combo"), f"{what}.combo")
        key: Any = (combo[0].suit, combo[1].suit) if suited else "any king with any nine"
        if key in seen_combo:
            other, line = seen_combo[key]
            how = "" if suited else (
                " (r9-personal-combo-suited is false: any king with any nine is one combination)"
            )
            raise f.error("combo", f"{combo[0].code} {combo[1].code} is already seat {other}'s "
                                   f"combination (line {line}); combinations must be unique{how}")
        seen_combo[key] = (seat, f.loc("combo").pos.line)
    return SeatSettings(seat, combo)


def parse_mystery(f: Fields) -> MysterySettings:
    number = f.get_enum("configuration", [1, 2, 3])
    distribution = f.get_enum("distribution", ["uniform"], "uniform")
    paid_by = f.get_enum("paid_by", ["table", "attendant"], "table")
    reseed, must_hit_by, rate = known_values.mystery(number)
    return MysterySettings(number, distribution, paid_by, reseed, must_hit_by, rate)


def _hit_and_run(f: Fields) -> HitAndRunSettings:
    hf = f.get_map("hit_and_run", required=("decks", "soft17", "meter"))
    decks_hr = attempt(lambda: hf.get_int("decks", lo=1, hi=8), 6)
    soft17 = attempt(lambda: hf.get_enum("soft17", ["hit", "stand"]), "hit")
    meter = parse_meter(hf.get_map("meter", required=("rate", "initial"), optional=_METER_KEYS), "hit-and-run")
    return HitAndRunSettings(decks_hr, soft17, meter)


def parse_streak3(f: Fields) -> Streak3Settings:
    """``rules.streak3: {pays: "7 to 1"}``: odds "X to 1" or "X for 1" that pay more than the stake."""
    sf = f.get_map("streak3", required=("pays",))
    text = sf.get_str("pays")
    try:
        pay = parse_pay(text)
    except InputError:
        raise sf.error("pays", f"'{text}' is not odds: write 'X to 1' or 'X for 1' "
                               "(e.g. '7 to 1')") from None
    if pay.kind not in ("to", "for"):
        raise sf.error("pays", f"'{text}': a won streak is paid at odds, 'X to 1' or 'X for 1' "
                               "(e.g. '7 to 1'), not a fixed amount or a share of a meter")
    if (pay.kind == "to" and pay.value <= 0) or (pay.kind == "for" and pay.value <= 1):
        raise sf.error("pays", f"{pay.describe()} pays nothing beyond the stake: a won streak must win "
                               "something (Wash. Admin. Code 230-15-040(8)(b) is a wager on winning)")
    return Streak3Settings(pay)


def parse_rules(
    node: Any, loc: Loc, *, game: str, capabilities: frozenset[str], suited: bool,
    common: Mapping[str, CommonMeter] | None = None,
) -> RulesSubmission:
    """The ``rules:`` mapping, checked against the game and the declared capabilities (``common``:
    the common meters of the link the table is on, which its meters may name with ``link:``)."""
    royal9 = "royal9" in capabilities
    hit_and_run = game == "blackjack-hit-and-run"
    required = ["seats"]
    if royal9:
        required += ["denomination", "meters"]
    if hit_and_run:
        required.append("hit_and_run")
    if "mystery" in capabilities:
        required.append("mystery")
    if "streak3" in capabilities:
        required.append("streak3")
    f = Fields(check_map(node, loc, "rules"), loc, "rules", required=required,
               optional=("denomination", "decks", "seats", "meters", "mystery", "commission", "hit_and_run",
                         "streak3"))
    denomination = None
    floors: dict[str, Cents] | None = None
    if "denomination" in f:
        if not royal9:
            report(f.error("denomination", "is the Royal 9 wager's ($5 or $1): add royal9 to capabilities "
                                           "or remove it"))
        else:
            denomination = attempt(lambda: f.get_enum("denomination", [5, 1]))
            floors = known_values.floors(denomination) if denomination is not None else None
    decks = attempt(lambda: f.get_int("decks", 6 if hit_and_run else 8, lo=1, hi=8), 8)
    seats = attempt(lambda: parse_seats(f.raw("seats"), f.loc("seats"), royal9=royal9, suited=suited), ())
    meters: dict[str, MeterSettings] = {}
    if "meters" in f:
        if not royal9:
            report(f.error("meters", "the mega, major and minor meters belong to the Royal 9: add royal9 "
                                     "to capabilities or remove them"))
        else:
            with guard():
                mf = f.get_map("meters", required=R9_METERS)
                note = f"for the ${denomination} Royal 9 ({FLOOR_CLAUSES.get(denomination or 0, '')})"
                for name in R9_METERS:
                    if name in mf:
                        with guard():
                            entry = mf.raw(name)
                            if common is not None and isinstance(entry, Mapping) and "link" in entry:
                                meters[name] = parse_linked_meter(mf.get_map(name, required=("link", "rate")),
                                                                  name, common, floors, note)
                                continue
                            meters[name] = parse_meter(
                                mf.get_map(name, required=("rate", "initial"), optional=_METER_KEYS),
                                name, floors, note)
    mystery = None
    if "mystery" in f:
        if "mystery" not in capabilities:
            report(f.error("mystery", "a mystery progressive needs the mystery capability"))
        else:
            mystery = attempt(lambda: parse_mystery(f.get_map("mystery", required=("configuration",),
                                                              optional=("distribution", "paid_by"))))
    commission: Decimal | None = None
    if "commission" in f:
        if game not in BACCARAT_GAMES:
            report(f.error("commission", f"a banker commission does not apply to {game}"))
        else:
            commission = attempt(lambda: f.get_rate("commission"))
    hr = None
    if "hit_and_run" in f:
        if not hit_and_run:
            report(f.error("hit_and_run", "applies to game blackjack-hit-and-run only"))
        else:
            hr = attempt(lambda: _hit_and_run(f))
    streak3 = None
    if "streak3" in f:
        if "streak3" not in capabilities:
            report(f.error("streak3", "the three-consecutive-games wager needs the streak3 capability"))
        else:
            streak3 = attempt(lambda: parse_streak3(f))
    return RulesSubmission(
        denomination=denomination,
        decks=decks,
        seats=seats,
        meters=MappingProxyType(meters),
        mystery=mystery,
        commission=commission,
        hit_and_run=hr,
        streak3=streak3,
    )
